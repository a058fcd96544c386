"""An OPC UA server's Alarms & Conditions as a source of alerts (`sources[i].opcua`).

The component runs asyncua on an event loop of its own, on a thread of its own: nothing of it
waits on the daemon's monitor tick or on the alert path, and nothing of the daemon waits on
it (the tick reads a fault under a lock; a command is handed over with `call_soon_threadsafe`).

Each session subscribes to the notifier's events and calls ConditionRefresh (every connect,
first or again), so conditions already standing are known. The conditions' events go through
the rules of sources/conditions.py; an alert or a return to normal goes in at the door
(`Door.accept`) as a JSON message on `opcua/<name>/<condition>`, journaled and read like any
other; an acknowledgement or a shelve at the server is the desk's command. An operator's ack
or confirm here (the command topic, the HTTP API, the page: all reach the desk, which records
them) is heard in the alarm history's facts and calls the condition's Acknowledge or Confirm
with its last EventId, the comment and the user; the server's answer is an event and in the
audit. A session that cannot be had or kept is the fault `opcua:<name>`, its reason naming
why (server down, certificate rejected, session lost, keep-alive missed); the source connects
again after 1, 2, 4 ... s up to `reconnect_max_s`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosyedge.component import Component, Detail
from cosyedge.config.source_opcua import OpcuaConfig
from cosyedge.intake import sourced
from cosyedge.intake.alert import Message, clean_text
from cosyedge.model import Command, CommandAnswer, Event, RejectedAlert, error_text
from cosyedge.observe import Observer
from cosyedge.sources import opcua_client as ua_client
from cosyedge.sources.conditions import ConditionEvent, Step, Tracker
from cosyedge.sources.phrase import phrase, plain, worded

if TYPE_CHECKING:
    from asyncua import Client

    from cosyedge.alarms.desk import AlarmDesk
    from cosyedge.intake.door import Door

log = logging.getLogger(__name__)

POLL_S = 0.5  # how often a session's health is looked at while nothing comes
STOP_WAIT_S = 3.0
# The condition state is written once a burst of events is handled (nothing waits in the
# inbox), and at the latest this long after its first change: a refresh of thousands of
# conditions is one write, not one each (the file is rewritten whole, and synced).
KEEP_S = 0.5
SERVER_USER = "OPC UA server"  # who an acknowledgement or shelve at the server is by
OFFLINE = "no session with the server; sent once after the next ConditionRefresh"


class OpcuaSource(Component, Observer):
    """One server's conditions, from `start` to `stop`; an Observer for the desk's commands."""

    def __init__(self, config: OpcuaConfig, door: Door, desk: AlarmDesk, state_dir: Path) -> None:
        self.config, self.door, self.desk = config, door, desk
        self.fault_name = f"opcua:{config.name}"
        self.tracker = Tracker(config.name, state_dir / "opcua" / f"{config.name}.json")
        desk.elsewhere.add(self._names)
        self._lock = threading.Lock()
        self._fault: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inbox: asyncio.Queue[tuple[str, Any]] | None = None
        self._task: asyncio.Task[None] | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._errors = ua_client.ErrorWatch("")
        # The loop's own: the conditions a ConditionRefresh under way has sent (None: none
        # under way), and the operator's calls not sent, to send once after the next one.
        self._refreshed: set[str] | None = None
        self._unsent: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
        self._unkept: float | None = None  # since when the state has changes not written
        self._online = False  # a session is up and its first ConditionRefresh has ended
        self._topics = f"{sourced.PREFIX}opcua/{config.name}/#"  # all its alarms
        self._hold_s = ua_client.TIMEOUT_S + config.keepalive_s  # a connect and a refresh
        self._unanswered: dict[str, str] = {}  # condition -> EventId of an unanswered ack
        self._own: set[str] = set()  # the ids the source is ending itself, not the operator

    # -- the daemon's threads ------------------------------------------------------------
    def start(self) -> None:
        # asyncua logs every publish and whole endpoint descriptions at info: the journal
        # would hold little else. Its warnings and errors are kept.
        logging.getLogger("asyncua").setLevel(max(logging.WARNING, log.getEffectiveLevel()))
        for warning in self.config.warnings(f"opcua {self.config.name}"):
            log.warning("%s", warning)  # as `check` warns: security off, secrets open to others
        # Its alarms taken up from the last run are not re-announced before its first
        # ConditionRefresh tells which still stand (or, with no server, a connect and a
        # keep-alive later: then said, as standing may be).
        self.desk.policy.holds.hold(self._topics, time.monotonic() + self._hold_s)
        name = f"opcua-{self.config.name}"
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()
        self._ready.wait(STOP_WAIT_S)

    def tick(self, now: float) -> Mapping[str, str | None]:
        with self._lock:
            return {self.fault_name: self._fault}

    def state(self, detail: Detail) -> Mapping[str, Any]:
        return {}

    def stop(self) -> None:
        loop, task = self._loop, self._task
        if loop is not None and task is not None:
            with suppress(RuntimeError):  # the loop already closed
                loop.call_soon_threadsafe(task.cancel)
        if self._thread is not None:
            self._thread.join(STOP_WAIT_S)

    def _names(self, command: Command) -> bool:
        """Whether an operator command names one of this server's conditions (an ack of an
        alarm said once here is the server's to end)."""
        return bool(self.tracker.named({command.id} - {None}, command.topic))

    def recorded(self, fact: Mapping[str, Any]) -> None:
        """A fact of the alarm history: an operator's ack or confirm is handed to the loop
        (the desk's thread, under its lock: only handed over)."""
        if fact.get("e") != "command" or fact.get("cmd") not in ("ack", "confirm"):
            return
        with self._lock:
            if fact.get("id") in self._own:
                return  # the source's own (the server's ack, a superseded alert's end)
        loop, inbox = self._loop, self._inbox
        if loop is None or inbox is None:
            log.warning("OPC UA %s: not running; command %s not passed on", self.config.name, fact)
            return
        with suppress(RuntimeError):
            loop.call_soon_threadsafe(self._take, dict(fact))

    def _take(self, fact: dict[str, Any]) -> None:
        """On the loop: an operator's command goes to the session's inbox, in order with the
        server's events; with no session whose ConditionRefresh has ended, it is answered
        at once as not sent, and sent once after the next refresh (`_retry`)."""
        if self._online and self._inbox is not None:
            self._inbox.put_nowait(("command", fact))
        else:
            self._offline(fact)

    # -- its own thread --------------------------------------------------------------------
    def _run(self) -> None:
        try:
            with ua_client.ErrorWatch(threading.current_thread().name) as errors:
                self._errors = errors
                asyncio.run(self._main())
        except Exception:
            log.exception("OPC UA %s: the source stopped", self.config.name)
            self._set_fault(f"{self.config.name}: the source stopped; see the log")

    async def _main(self) -> None:
        self._loop, self._inbox = asyncio.get_running_loop(), asyncio.Queue()
        self._task = asyncio.current_task()
        self._ready.set()
        wait = self.config.reconnect_min_s
        with suppress(asyncio.CancelledError):
            while True:
                lasted = await self._attempt()
                wait = self.config.reconnect_min_s if lasted else wait
                log.info("OPC UA %s: connecting again in %.1f s", self.config.name, wait)
                await asyncio.sleep(wait)
                wait = min(wait * 2, self.config.reconnect_max_s)

    async def _attempt(self) -> bool:
        """One session, until it fails; whether it was ever up (the backoff starts over)."""
        client: Client | None = None
        up = False
        self._refreshed = None  # a refresh of a session that failed is no refresh
        self._online = False
        try:
            client = await ua_client.connect(self.config, self._errors)
            sub = await ua_client.subscribe(client, self.config, _Handler(self._inbox))
            log.info(
                "OPC UA %s: subscribed at %s (%s)",
                self.config.name, self.config.endpoint, _security(self.config, client),
            )  # fmt: skip
            self._set_fault(None)
            up = True
            await self._serve(client, sub)
        except ua_client.SourceFault as exc:
            self._set_fault(str(exc))
        except Exception as exc:  # asyncua raising what was not foreseen: still a fault
            log.exception("OPC UA %s: session failed", self.config.name)
            self._set_fault(error_text(exc))
        finally:
            self._online = False
            self._unsent_now()
            if self._unkept is not None:  # the session ends, or the source stops
                self._keep()
            if client is not None:
                with suppress(Exception):
                    await asyncio.wait_for(client.disconnect(), ua_client.TIMEOUT_S)
        return up

    async def _serve(self, client: Client, sub: object) -> None:
        assert self._inbox is not None
        while True:
            ua_client.watch(client, sub, self.config.keepalive_s, time.monotonic())
            try:
                kind, item = await asyncio.wait_for(self._inbox.get(), POLL_S)
            except TimeoutError:
                self._keep_due()
                continue
            if kind == "event":
                await self._event(client, item)
            else:
                await self._command(client, item)
            self._keep_due()

    def _set_fault(self, reason: str | None) -> None:
        with self._lock:
            changed, self._fault = self._fault != reason, reason
        if changed and reason is not None:
            log.error("OPC UA %s: %s", self.config.name, reason)

    # -- the server's events ---------------------------------------------------------------
    async def _event(self, client: Client, values: list[object]) -> None:
        mark = ua_client.refresh_mark(values)
        if mark == "start":
            self._refreshed = set()
        elif mark == "end":
            self._forget()
            self._decide_unanswered()
            self.desk.policy.holds.hold(self._topics, None)  # it knows which of its alarms stand
            self._online = True
            await self._retry(client)
        event = ua_client.read_event(values)
        if event is None:
            return
        if self._refreshed is not None:
            self._refreshed.add(event.condition)
        if event.shown and not any(
            map(plain, (event.message, event.source_name, event.condition_name))
        ):
            # Nothing of it to say: the condition's browse name is asked for, a fallback.
            event = replace(event, browse_name=await ua_client.browse_name(client, event.condition))
        if self.tracker.handled(event):
            state = "active" if event.active else "inactive"
            log.info(
                "OPC UA %s: %s known again (%s, event %s handled before): not said again",
                self.config.name, event.condition, state, event.event_id,
            )  # fmt: skip
            return
        # Kept (`_keep_due`: after the burst, within KEEP_S) after what it decided is
        # journaled: a kill in between finds the event not handled and decides again, and
        # the desk knows the alert's id from the journal (its duplicates).
        for step in self.tracker.handle(event):
            try:
                self._do(step)
            except Exception:  # the door and the desk never raise; if they do, the rest goes on
                log.exception("OPC UA %s: %s of %s failed", self.config.name, step.kind, step.id)
        self._changed()

    def _decide_unanswered(self) -> None:
        """A ConditionRefresh ended: an ack the server did not answer that it shows not
        done (unacknowledged at the same EventId) leaves the alarm standing, said again."""
        unanswered, self._unanswered = self._unanswered, {}
        for condition, event_id in unanswered.items():
            known = self.tracker.conditions.get(condition)
            if known is not None and not known.acked and known.event_id == event_id:
                standing = self._stands(condition)
                log.warning(
                    "OPC UA %s: the ack of %s the server did not answer was not done: "
                    "the alarm stands, said again as %s", self.config.name, condition, standing,
                )  # fmt: skip

    def _forget(self) -> None:
        """A ConditionRefresh ended: the conditions known here it did not send are gone from
        the server (restarted, its state lost); one said here returns to normal, saying why."""
        standing, self._refreshed = self._refreshed, None
        if standing is None:
            return
        steps = self.tracker.forget(standing)
        for step in steps:
            self._do(step)
        self._changed()

    def _changed(self) -> None:
        if self._unkept is None:
            self._unkept = time.monotonic()

    def _keep_due(self) -> None:
        """Write the state if it changed and the burst is over, or KEEP_S have passed."""
        unkept, inbox = self._unkept, self._inbox
        if unkept is None or inbox is None:
            return
        if inbox.empty() or time.monotonic() - unkept >= KEEP_S:
            self._keep()

    def _keep(self) -> None:
        self._unkept = None
        try:
            self.tracker.keep()
        except OSError as exc:
            log.error("OPC UA %s: cannot keep the condition state: %s", self.config.name, exc)

    def _do(self, step: Step) -> None:
        log.info("OPC UA %s: %s %s (%s)", self.config.name, step.kind, step.condition, step.id)
        topic = self.tracker.topic(step.condition)
        if step.kind in ("raise", "returned"):
            alert = self._alert(step)
            if alert.text is not None:
                self.tracker.phrased(step.condition, alert.text, alert.priority, alert.lang)
            self.door.accept(Message(topic, alert.payload), _nothing, "opcua")
            return
        by = step.event
        if step.kind == "supersede":
            self._supersede(step)
            return
        if step.kind == "ack":
            user = _signature(by.user, 64) or SERVER_USER
            command = Command("ack", id=step.id, user=user, comment=_acked_comment(self.config, by))
            if step.id not in self.desk.unacknowledged(returned=True):
                # Said once, or acknowledged here already: nothing stands here to end, but the
                # HMI's acknowledgement is audited, as a command that ended nothing.
                detail = {"cmd": "ack", "id": step.id, "ids": [], **command.by}
                with self._as_own(step.id):
                    self.desk.tell(Event("command", detail))  # shaped as the rules' own
                return
        else:
            comment = step.reason or f"{step.kind}d at the OPC UA server {self.config.name}"
            command = Command(step.kind, topic=topic, user=SERVER_USER, comment=comment)
        answer = self._own_command(command)
        if answer.refused is not None:
            name, refused = self.config.name, answer.refused
            log.warning("OPC UA %s: %s not carried out here: %s", name, step.kind, refused)

    def _supersede(self, step: Step) -> None:
        """The alert said of a condition ends as its new one is raised (`step.reason` names
        it): acknowledged here by the source, not at the server (the plant has not)."""
        if step.id not in self.desk.unacknowledged(returned=True):
            return  # acknowledged here already, or never held
        command = Command("ack", id=step.id, user=self.fault_name, comment=step.reason)
        self._own_command(command)

    def _own_command(self, command: Command) -> CommandAnswer:
        """A command of the source's own (what the server did, or a superseded alert's end),
        carried out by the desk."""
        with self._as_own(command.id or ""):
            return self.desk.command(command, json.dumps(command.__dict__))

    @contextmanager
    def _as_own(self, alert_id: str) -> Iterator[None]:
        """While it lasts, the history's facts of a command on `alert_id` are the source's
        own, not the operator's: not sent to the server (`recorded`)."""
        with self._lock:
            self._own.add(alert_id)
        try:
            yield
        finally:
            with self._lock:
                self._own.discard(alert_id)

    def _alert(self, step: Step) -> sourced.SourceAlert:
        """The alarm as a source hands it to the door (intake/sourced.py), its phrase made."""
        event, config = step.event, self.config
        if step.kind == "returned":
            return sourced.SourceAlert(step.id, None, reason=step.reason)
        fields = _fields(event)
        made = phrase(config.templates, _spoken(fields, event), event.locale)
        lang, text = worded(made, _fallbacks(config, event), self._sayable)
        priority = config.priority(event.severity)
        shown = {name: str(value) for name, value in fields.items()}
        return sourced.SourceAlert(step.id, text, priority, lang, shown)

    def _sayable(self, text: str, lang: str) -> bool:
        """Whether the voices can say a word of `text` (the rule every alert is held to)."""
        try:
            self.door.speech(text, lang)
        except RejectedAlert:
            return False
        return True

    # -- the operator's commands -------------------------------------------------------------
    async def _command(self, client: Client, fact: dict[str, Any]) -> None:
        for condition in self.tracker.named(_ids(fact), fact.get("topic")):
            await self._settle(client, fact, condition)

    async def _settle(self, client: Client, fact: dict[str, Any], condition: str) -> None:
        """Acknowledge (and for a confirm, then Confirm) what the server still awaits; an ack
        of a condition it has acknowledged is told so."""
        known = self.tracker.conditions[condition]
        for cmd in self._asked(fact, condition):
            await self._call(client, cmd, condition, known.event_id, fact)

    def _asked(self, fact: dict[str, Any], condition: str) -> list[str]:
        """The calls an operator's command asks of one condition; an ack the server has
        already is answered here, as done (nothing is sent)."""
        known = self.tracker.conditions[condition]
        calls = [] if known.acked else ["ack"]
        if fact.get("cmd") == "confirm" and known.confirmed is False:
            calls.append("confirm")
        if fact.get("cmd") == "ack" and known.acked:
            told = ua_client.Answer(ua_client.KNOWN_ACKED)
            self._answered("ack", condition, known.event_id, told, fact, None)
        return calls

    def _offline(self, fact: dict[str, Any]) -> None:
        """A command with no session: each call it asks is answered as not sent now, and
        kept to be sent once after the next ConditionRefresh."""
        told = ua_client.Answer(f"{ua_client.NOT_SENT}: {OFFLINE}")
        for condition in self.tracker.named(_ids(fact), fact.get("topic")):
            event_id = self.tracker.conditions[condition].event_id
            for cmd in self._asked(fact, condition):
                self._unsent[(cmd, condition)] = (fact, event_id)
                self._answered(cmd, condition, event_id, told, fact, None)

    def _unsent_now(self) -> None:
        """The session ended: the commands waiting in its inbox are answered as not sent
        (the server's events waiting there are dropped: the next ConditionRefresh sends
        each condition's state again)."""
        inbox = self._inbox
        while inbox is not None and not inbox.empty():
            kind, item = inbox.get_nowait()
            if kind == "command":
                self._offline(item)

    async def _call(
        self, client: Client, cmd: str, condition: str, event_id: str, fact: dict[str, Any]
    ) -> None:
        """One call and what its answer means here: an ack the server has (done, or done
        before) is acknowledged here; one it refused leaves the alarm standing, said again;
        one not sent is sent once after the next ConditionRefresh (`_retry`)."""
        answer = await ua_client.call(client, cmd, condition, event_id, _comment(fact))
        if answer.unsent and not fact.get("again"):
            self._unsent[(cmd, condition)] = (fact, event_id)
        standing = None
        if cmd == "ack" and _result(answer) == "no_answer":
            self._unanswered[condition] = event_id  # the next refresh's AckedState decides
        if cmd == "ack" and answer.settled:
            self.tracker.acknowledged(condition)
            self._keep()
        elif cmd == "ack" and answer.refused:
            standing = self._stands(condition)
        self._answered(cmd, condition, event_id, answer, fact, standing)

    async def _retry(self, client: Client) -> None:
        """Each call not sent, sent once now with the EventId it was for, if the condition
        still stands at it; else told why not."""
        unsent, self._unsent = self._unsent, {}
        for (cmd, condition), (fact, event_id) in unsent.items():
            why = self._moved_on(cmd, condition, event_id)
            again = {**fact, "again": True}
            if why is None:
                await self._call(client, cmd, condition, event_id, again)
            else:
                told = ua_client.Answer(f"{ua_client.NOT_SENT} again: {why}")
                self._answered(cmd, condition, event_id, told, again, None)

    def _moved_on(self, cmd: str, condition: str, event_id: str) -> str | None:
        """Why a call not sent is not sent after the reconnect; None: it still applies."""
        known = self.tracker.conditions.get(condition)
        if known is None:
            return "the server no longer has the condition"
        if known.event_id != event_id:
            return f"the condition changed meanwhile (its EventId is now {known.event_id})"
        done = known.acked if cmd == "ack" else known.confirmed is not False
        return f"{cmd} done at the server meanwhile" if done else None

    def _stands(self, condition: str) -> str | None:
        """An ack the server refused: the condition is unacknowledged there, so here too. If
        it is still active, its alert is said again under a new id (the operator's ack ended
        the one said). Returns that id."""
        known = self.tracker.conditions.get(condition)
        if known is None or known.phrase is None or known.said is None:
            return None
        if not known.active or known.shelved:
            return None  # not re-announced: its return to normal or shelve stands
        text, priority, lang = known.phrase
        alert = sourced.SourceAlert(self.tracker.again(condition), text, priority, lang)
        self.door.accept(Message(self.tracker.topic(condition), alert.payload), _nothing, "opcua")
        self._keep()
        return alert.id

    def _answered(
        self,
        cmd: str,
        condition: str,
        event_id: str,
        answer: ua_client.Answer,
        fact: dict[str, Any],
        standing: str | None,
    ) -> None:
        """The server's answer, told as an event, kept in the audit and logged; a refused
        ack names the alert said again (`standing`)."""
        status = answer.status
        level = logging.INFO if answer.settled else logging.WARNING
        stands = f": the alarm stands, said again as {standing}" if standing else ""
        name = self.config.name
        log.log(level, "OPC UA %s: %s of %s answered %s%s", name, cmd, condition, status, stands)
        who = {k: fact[k] for k in ("user", "comment", "again") if fact.get(k)}
        detail = {
            "cmd": cmd, "source": self.fault_name, "condition": condition,
            "event_id": event_id, "status": status, "result": _result(answer), **who,
        }  # fmt: skip
        detail |= {"standing": standing} if standing else {}
        self.desk.tell(Event("command_answer", detail))


class _Handler:
    """asyncua's subscription handler: each event's fields into the loop's inbox, in order."""

    def __init__(self, inbox: asyncio.Queue[tuple[str, Any]] | None) -> None:
        self.inbox = inbox

    def event_notification(self, event: Any) -> None:
        assert self.inbox is not None
        self.inbox.put_nowait(("event", [f.Value for f in event.event_fields]))

    def status_change_notification(self, status: Any) -> None:
        log.warning("OPC UA subscription status: %s", status.Status)


def _ids(fact: Mapping[str, Any]) -> set[str]:
    """The alert ids an operator's command names, and those it acted on here."""
    return set(fact.get("ids") or ()) | ({fact["id"]} if fact.get("id") else set())


def _fields(event: ConditionEvent) -> dict[str, Any]:
    """An event's fields as the alert's payload carries them (and its phrase may say)."""
    return {
        "SourceName": event.source_name,
        "Message": event.message,
        "Severity": event.severity,
        "ConditionName": event.condition_name,
        "ConditionId": event.condition,
        "EventId": event.event_id,
        "Time": event.time,
        "Quality": event.quality,
    }


def _result(answer: ua_client.Answer) -> str:
    """What became of a call, in one word: `done` (Good, or done before: already acked),
    `refused` (any other Bad status), `no_answer` (sent, unanswered) or `not_sent`."""
    if answer.settled:
        return "done"
    if answer.refused:
        return "refused"
    return "not_sent" if answer.unsent else "no_answer"


def _spoken(fields: dict[str, Any], event: ConditionEvent) -> dict[str, Any]:
    """The fields as a phrase says them: plain text, a wordless one empty; a wordless
    Message is the condition's name, so `{SourceName}: {Message}` still names the alarm."""
    names = (event.condition_name, event.browse_name)
    message = plain(event.message) or next(filter(None, map(plain, names)), "")
    texts = {"SourceName": plain(event.source_name), "ConditionName": plain(names[0])}
    return {**fields, **texts, "Message": message}


def _fallbacks(config: OpcuaConfig, event: ConditionEvent) -> list[str]:
    """What is said when the phrase says nothing: the ConditionName, the condition's browse
    name, else that an alarm came from this source."""
    named = [plain(event.condition_name), plain(event.browse_name)]
    return [*filter(None, named), f"alarm from {config.name}"]


def _comment(fact: Mapping[str, Any]) -> str:
    """The comment the server keeps with an ack: the user's (OPC UA takes the session's user
    as who acknowledged; the operator named here is written before the comment)."""
    user, comment = fact.get("user"), fact.get("comment")
    said = comment or "acknowledged at cosyedge"
    return f"{user}: {said}" if user else said


def _acked_comment(config: OpcuaConfig, event: ConditionEvent) -> str:
    said = f": {event.comment}" if event.comment else ""
    return _signature(f"acknowledged at the OPC UA server {config.name}{said}", 500) or ""


def _signature(text: str, limit: int) -> str | None:
    """Text as a command's `user` or `comment` may hold it: no control or format characters
    (intake/commands.py), bounded; None when nothing is left."""
    cleaned = clean_text(text).strip()[:limit]
    return cleaned or None


def _security(config: OpcuaConfig, client: Client) -> str:
    """The session's security as the log tells it: the server's certificate, unless pinned."""
    security = config.security
    if security.policy == "None":
        return "security None: unsigned, unencrypted"
    told = f"{security.policy} {security.mode}"
    if security.server_certificate is None:
        told += f", the server's certificate SHA-1 {ua_client.peer_fingerprint(client)} taken"
    return told


def _nothing() -> None:
    """Nothing waits for an OPC UA alert's journaling: the server has no acknowledgement."""
