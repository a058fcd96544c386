"""The alarm desk: the one place where alarm state changes.

The policy sits behind one lock. Messages and commands (paho's network thread), the
announcer and the clock thread all come through here, and each change is followed at once,
in order, by its journal entries and reports. Shelves and unacknowledged alarms are journaled
as they change, so a restart neither unshelves a source nor stops re-announcing an alarm.

Whatever happens while one message is handled ends in one outcome: a message that cannot
become an alert is `rejected`, one whose handling raised anything else is `failed` with the
error, and one the daemon died speaking at MAX_TRIES starts in a row is quarantined (kept
aside and `failed`), so no message can keep the daemon from starting.
"""

from __future__ import annotations

import base64
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from cosyedge.alarms import standby as peer
from cosyedge.alarms.commands import Elsewhere, acted_on, matched_nothing, unmatched
from cosyedge.alarms.health import Health, state_of
from cosyedge.alarms.lane import Lane
from cosyedge.alarms.lasting import Standing, alarm_of, board_detail, standing_detail
from cosyedge.alarms.peers import PeerDesk
from cosyedge.alarms.policy import AlarmPolicy
from cosyedge.alarms.zones import Zones
from cosyedge.journal import MAX_TRIES, Journal, Pending, Recovered
from cosyedge.model import (
    PRIORITIES,
    BadCommand,
    Command,
    CommandAnswer,
    Delivery,
    Effect,
    Event,
    Item,
    ItemKind,
    NothingMatched,
    Offer,
    Outcome,
    Reader,
    Refusal,
    Ticket,
    Verdict,
    error_text,
    on_clock,
    on_wall,
)

log = logging.getLogger(__name__)

TICK_S = 0.1
TRY_WAIT_S = 2.0  # at most this long for a suspect's try record to reach the disk
# Events kept in the alarm history as their own kind, for the audit: a command carried out,
# and a plant system's answer to one (an OPC UA Acknowledge's status).
AUDITED_EVENTS = ("command", "command_answer")


class Reports(Protocol):
    """Where the desk tells what happened (mqtt/reports.py); no call raises or blocks."""

    def outcome(self, outcome: Outcome) -> None: ...
    def event(self, event: Event) -> None: ...
    def error(self, error: str, **context: Any) -> None: ...
    def status(self, state: str, **detail: Any) -> None: ...
    def send(self, seq: int, messages: list[tuple[str, str]]) -> None: ...
    def confirm(self) -> None: ...


class Recorder(Protocol):
    """Where the desk keeps its facts for the alarm history (alarms/history.py); no call
    raises or blocks."""

    def record(self, kind: str, /, **detail: Any) -> None: ...


class AlarmDesk(PeerDesk):
    def __init__(
        self,
        policy: AlarmPolicy | Zones,
        reporter: Reports,
        journal: Journal,
        health: Health | None = None,
        history: Recorder | None = None,
        standby: peer.Watch | None = None,
        handback: peer.Handback | None = None,
        run: str | None = None,
    ) -> None:
        """`standby`: this gateway stands by for a primary; `handback`: it is a primary whose
        standby's reports it takes up at its start (alarms/standby.py); `run`: this run's
        name (None: one made here), which its reports carry too (mqtt/reports.py)."""
        # One policy is one zone's rules: the daemon without zones.
        self.policy = policy if isinstance(policy, Zones) else Zones.around(policy)
        self.reporter = reporter
        self.journal = journal
        self.health = health or Health()
        self.history = history
        self.standby, self.handback = standby, handback
        self.elsewhere = Elsewhere()  # plant systems whose alarms a command also settles
        self._cond = threading.Condition()
        self._status: dict | None = None
        self._status_order = 0  # statuses read so far: the order they are published in
        self._status_told = -peer.BEAT_S  # when the clock last told one (monotonic)
        # This run's name, in its status and its Last Will: a standby takes an `offline` only
        # of the run whose status it heard (alarms/standby.py), not one another publisher left.
        self.run = run or secrets.token_hex(8)
        self._tried: set[int] = set()  # seqs whose first attempt this run is journaled
        self._suspects: set[int] = set()  # left unsaid by the last run, which may have died
        # What the journal holds of the lasting state, on the policy's clock.
        self._kept_shelves: dict[str, float] = {}
        self._kept_alarms: dict[str, tuple[float, bool]] = {}  # key -> due, cleared
        self._ticked: float | None = None  # the clock's last tick (monotonic): see PeerDesk
        self._on_stall: Callable[[float], None] | None = None  # told of a stall (PeerDesk)

    def recover(self, recovered: Recovered, read: Reader) -> None:
        """Take up what the previous run left: known ids, unconfirmed reports, shelves,
        unacknowledged alarms and open alerts, whose journaled messages `read` (intake)
        makes offers again. Damaged journal lines and a lost journal are reported on the
        error topic."""
        for damaged in recovered.damaged:
            what = f"journal line {damaged.line} damaged ({damaged.reason})"
            where = f"kept aside in {self.journal.quarantine_path}"
            if damaged.seq is None:
                self.reporter.error(f"{what}; {where}")
            else:  # an accepted message nobody can read any more: it failed, and says so
                ticket = Ticket(damaged.seq, damaged.topic, time.time())
                self._close(ticket, "failed", f"its {what}; {where}")
        if recovered.lost:
            self.reporter.error(recovered.lost)
        for seen in recovered.seen:
            self.policy.remember(seen.key, on_clock(seen.received), seen.topic)
        for unsent in recovered.unsent:
            self.reporter.send(unsent.seq, unsent.messages)
        alarms = []
        for saved in recovered.unacknowledged:
            at = on_clock(saved.received)
            verdict = read(saved.seq, saved.topic, saved.payload, saved.received, at, None)
            if isinstance(verdict, Refusal):
                why = f"no longer an alert ({verdict.reason})"
            elif verdict.announcement is None or verdict.timing.reannounce_s <= 0:
                why = "no longer re-announced by the configuration"
            else:
                alarms.append(Standing(verdict, on_clock(saved.due), saved.cleared))
                continue
            log.warning("unacknowledged alarm %s of the last run: %s", saved.key, why)
            self.journal.alarm_ended(saved.key)
        with self._cond:
            self.policy.restore({p: on_clock(t) for p, t in recovered.shelved.items()}, alarms)
            self._kept_shelves, kept = self.policy.lasting()
            self._kept_alarms = {key: (a.due, a.cleared) for key, a in kept.items()}
            self._record_state(kept)
        if alarms or recovered.shelved:
            log.info(
                "taken up from the last run: %d unacknowledged alarms, %d shelved sources",
                len(alarms),
                len(recovered.shelved),
            )
        self._suspects = {pending.seq for pending in recovered.pending}
        for pending in recovered.pending:
            at = on_clock(pending.received)
            verdict = read(
                pending.seq, pending.topic, pending.payload, pending.received, at, pending.said
            )
            if pending.tries >= MAX_TRIES:
                self._quarantine(pending, verdict)
                continue
            if pending.zones and not isinstance(verdict, Refusal):
                with self._cond:
                    self.policy.told_before(pending.seq, pending.zones)
            self.submit(verdict, pending.again)

    def _quarantine(self, pending: Pending, verdict: Verdict) -> None:
        """A message the daemon died speaking, start after start: kept aside, not retried."""
        kept = self.journal.quarantine(
            "message the daemon stopped on while speaking it",
            seq=pending.seq,
            topic=pending.topic,
            payload=base64.b64encode(pending.payload).decode("ascii"),
            tries=pending.tries,
        )
        reason = f"quarantined: the daemon stopped {pending.tries} times while speaking it"
        if kept:
            reason += f"; kept aside in {self.journal.quarantine_path}"
        log.error("message %d on %r %s", pending.seq, pending.topic, reason)
        if isinstance(verdict, Refusal):
            known = dict(verdict.detail)
        else:
            known = {"id": verdict.key, "priority": _priority(verdict)}
            # Its id, so that the broker's copies of it are duplicates, not new alerts.
            self.policy.remember(verdict.key, on_clock(pending.received), pending.topic)
        self._close(verdict.ticket, "failed", reason, **known)

    # -- from paho's network thread -------------------------------------------------------
    def submit(self, verdict: Verdict, again: bool = False) -> None:
        """Hand one journaled message, as intake read it, to the rules; it ends in exactly
        one outcome, whatever it holds. `again`: a retained message already heard, replayed
        by the broker."""
        ticket = verdict.ticket
        if again:
            log.info("retained message on %r heard before: not said again", ticket.topic)
            self._heard_before(verdict)
            return
        if isinstance(verdict, Refusal):
            self._close(ticket, verdict.kind, verdict.reason, **verdict.detail)
            return
        what = verdict.announcement.priority if verdict.announcement else "return to normal"
        log.info("accepted alert %s on %r (%s)", verdict.key, ticket.topic, what)
        try:
            with self._cond:
                now = time.monotonic()
                self._emit(self.policy.offer(verdict, now))
                self._emit(self._ended_first(verdict.key, now))
                self._cond.notify_all()
        except Exception as exc:
            log.exception("alarm rules failed on message %d on %r", ticket.seq, ticket.topic)
            reason = f"alarm rules failed on it: {error_text(exc)}"
            self._close(ticket, "failed", reason, id=verdict.key, priority=_priority(verdict))

    def _heard_before(self, verdict: Verdict) -> None:
        if isinstance(verdict, Refusal):  # what is known of it, as its first report had
            reason = "retained message already heard"
            outcome = Outcome(verdict.ticket, "deduplicated", {**verdict.detail, "reason": reason})
            with self._cond:
                self.reporter.outcome(replace(outcome, copy=True))
            return
        with self._cond:
            self._emit(self.policy.heard_before(verdict))

    def _close(self, ticket: Ticket, kind: str, reason: str, **detail: object) -> None:
        with self._cond:
            self.reporter.outcome(Outcome(ticket, kind, {**detail, "reason": reason}))

    def command(
        self, command: Command | BadCommand, text: str, who: dict[str, str] | None = None
    ) -> CommandAnswer:
        """Carry out an operator command as intake read it, and say what became of it (the
        operator page shows it; MQTT has the event and error topics). One that cannot be
        carried out (BadCommand), or an ack, silence or confirm naming an id or topic that
        matched nothing standing (unknown, or settled already), is refused: told on the error
        topic with the payload's `text` and audited as refused under `who` (the `user` it
        named), changing nothing. One naming neither (a silence of all with nothing to
        silence) is carried out, with no ids."""
        try:
            if isinstance(command, BadCommand):
                raise command
            with self._cond:
                effects = self.policy.command(command, time.monotonic())
                ids = acted_on(effects)
                if matched_nothing(command, ids, self.elsewhere):
                    raise NothingMatched(unmatched(command))
                self._emit(effects)
                self._cond.notify_all()
            return CommandAnswer(ids=ids)
        except BadCommand as exc:
            log.warning("command %r not carried out: %s", text, exc)
            nothing = isinstance(exc, NothingMatched)
            return self._refused(f"command: {exc}", text, who, nothing)
        except Exception as exc:
            log.exception("command %r failed", text)
            return self._refused(f"command: cannot carry it out: {error_text(exc)}", text, who)

    def tell(self, event: Event) -> None:
        """An event of a part beside the rules (a plant system's answer to a command carried
        out here): reported and recorded as the rules' own events are."""
        with self._cond:
            self._emit([event])

    def audit_test(self, user: str, seq: int, request: bytes) -> None:
        """A test announcement from the operator page, taken as `seq`: in the audit, under
        the operator's name, with its request (cut to 500 characters)."""
        text = request[:500].decode("utf-8", "replace")
        self._record("test_announcement", user=user, seq=seq, request=text)

    def _refused(
        self, error: str, text: str, who: dict[str, str] | None, unmatched: bool = False
    ) -> CommandAnswer:
        """Told on the error topic, and audited with the name the command gave, if any."""
        self.reporter.error(error, command=text)
        self._record("command_refused", reason=error, command=text, **(who or {}))
        return CommandAnswer(refused=error, unmatched=unmatched)

    # -- the alarm system's own faults (from whichever thread notices) ---------------------
    def fault(self, name: str, text: str, lang: str, every_s: float) -> None:
        with self._cond:
            self._emit(self.policy.fault(name, text, lang, every_s))
            self._cond.notify_all()

    def fault_cleared(self, name: str, text: str | None, lang: str) -> None:
        with self._cond:
            self._emit(self.policy.fault_cleared(name, text, lang))
            self._cond.notify_all()

    # -- from the announcers ----------------------------------------------------------------
    def lane(self, zone: str) -> Lane:
        """What the announcer of `zone` asks of the desk."""
        return Lane(self, zone)

    def take(self, timeout: float, zone: str | None = None) -> Item | None:
        """The next item to say in `zone` (None: the first zone), within `timeout` s, or None."""
        item = self._take(timeout, zone or self.policy.names[0])
        if item is not None and item.kind is ItemKind.ALERT:
            self._try(item.offers[0].ticket.seq)  # outside the lock: it may wait for the disk
        return item

    def _take(self, timeout: float, zone: str) -> Item | None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                now = time.monotonic()
                self._taking_over(now)
                item, effects = self.policy.take(zone, now, self._hold(now))
                self._emit(effects)
                if item is not None and self.standby and self.standby.first_said(item, now):
                    log.warning("standby: speaking for the primary, first %s", item.key)
                remaining = deadline - time.monotonic()
                if item is not None or remaining <= 0:
                    return item
                self._cond.wait(remaining)

    def _try(self, seq: int) -> None:
        """Journal once per run that speaking `seq` began: dying now counts against it. For a
        message the last run left unsaid (it may be what killed it) the record is on disk
        before speaking starts; for others it follows without delaying the first audio."""
        if seq in self._tried:
            return
        self._tried.add(seq)
        self.journal.tried([seq])
        if seq in self._suspects:
            written = threading.Event()
            self.journal.when_written(written.set)
            written.wait(TRY_WAIT_S)

    def should_stop(self, item: Item) -> bool:
        with self._cond:
            return self.policy.should_stop(item, self._hold(time.monotonic()))

    def finished(self, item: Item, delivery: Delivery) -> None:
        with self._cond:
            self._said(item, delivery)
            self._emit(self.policy.finished(item, delivery, time.monotonic()))
            self._cond.notify_all()

    # -- the clock ------------------------------------------------------------------------
    def run_clock(self, stop: threading.Event) -> None:
        while not stop.wait(TICK_S):
            try:
                self.tick()
            except Exception:  # one bad tick must not stop expiry and re-announcement
                log.exception("alarm clock tick failed")

    def tick(self) -> None:
        now = time.monotonic()
        self._stood_still(now)  # before this tick counts: its lateness holds until then
        with self._cond:
            self._ticked = now
            self._emit(self.policy.tick(now))
            self._emit(self._uncovered(now))
            self._cond.notify_all()
        self.reporter.confirm()
        self._tell_status(changed_only=now < self._status_told + peer.BEAT_S)

    def waiting(self) -> int:
        """Items queued or held in their on-delay."""
        with self._cond:
            status = self.policy.status()
        return status["queue"] + status["held"]

    def waiting_in(self, zone: str) -> int:
        """Items queued in `zone`."""
        with self._cond:
            return self.policy.waiting(zone)

    def publish_status(self, state: str | None = None) -> None:
        """The retained status now: `online`, `starting`, `degraded` while a fault lasts, or
        `state`."""
        self._tell_status(state)

    def _tell_status(self, state: str | None = None, changed_only: bool = False) -> None:
        """Read the status and hand it to the reporter with when it was read: threads tell
        statuses at once (the clock, a fault's start, a connection), and one read before
        another must not be published after it."""
        with self._cond:
            status = self._full_status()
            if changed_only and status == self._status:
                return
            self._status, self._status_told = status, time.monotonic()
            self._status_order += 1
            order = self._status_order
        self.reporter.status(state or _state(status), status, order)

    def status(self) -> dict:
        """The status as the retained status topic has it now."""
        with self._cond:
            status = self._full_status()
        return {"state": _state(status), **status}

    def standing(self) -> list[tuple[str, float]]:
        """The alarms re-announced until acknowledged, not returned to normal: (alarm,
        received wall time) each; announcements re-announced so are not alarms."""
        with self._cond:
            _, alarms = self.policy.lasting()
        offers = [a.offer for a in alarms.values() if not a.cleared]
        return [(alarm, o.ticket.received) for o in offers if (alarm := alarm_of(o)) is not None]

    def unacknowledged(self, returned: bool = False) -> set[str]:
        """The ids of the alarms held unacknowledged that have not returned to normal (a
        source takes them as standing at its start); with `returned`, those that have too."""
        with self._cond:
            alarms = self.policy.board()
        return {a.offer.key for a in alarms if returned or not a.cleared}

    def board(self) -> dict[str, list[dict[str, Any]]]:
        """The unacknowledged alarms, most urgent and oldest first, and the shelves, as the
        operator page shows them; times are wall-clock (`since` its receipt, `until` a
        shelve's end)."""
        with self._cond:
            alarms, (shelved, _) = self.policy.board(), self.policy.lasting()
        rank = {p: n for n, p in enumerate(PRIORITIES)}
        alarms.sort(key=lambda a: (rank.get(a.offer.priority, len(rank)), a.offer.ticket.received))
        shelves = [{"topic": p, "until": round(on_wall(u), 3)} for p, u in sorted(shelved.items())]
        return {"alarms": [board_detail(a) for a in alarms], "shelved": shelves}

    def _full_status(self) -> dict:
        """The policy's status and the faults, read once: its state is told by these faults
        (`_state`), never read again, when a fault may have begun or ended meanwhile."""
        status = {**self.policy.status(), "faults": self.health.faults()}
        if self.standby is not None:
            now = time.monotonic()
            held = self.policy.kept(
                lambda item: self.standby is not None and self.standby.holds(item, now)
            )
            status["standby"] = {**self.standby.shown(now), "held": held}
        # Told again every beat_s by the clock, changed or not (the beat its standby watches).
        return {**status, "beat_s": peer.BEAT_S, "run": self.run}

    def _emit(self, effects: list[Effect]) -> None:
        self._keep()
        for seq, zone, told in self.policy.told_apart():
            self.journal.zone_told(seq, zone, told)
        for effect in effects:
            if isinstance(effect, Outcome):
                if effect.kind not in ("spoken", "summarized"):
                    reason = effect.detail.get("reason", "")
                    log.info("alert %s: %s %s", effect.detail.get("id"), effect.kind, reason)
                self.reporter.outcome(effect)
                self._record_outcome(effect)
            else:
                log.info("%s %s", effect.kind.replace("_", " "), dict(effect.detail))
                self.reporter.event(effect)
                self._record_event(effect)

    # -- the alarm history ------------------------------------------------------------------
    def _record(self, kind: str, /, **detail: Any) -> None:
        if self.history is None:
            return
        try:
            self.history.record(kind, **detail)
        except Exception:  # a record for later reviews must never cost an alert its outcome
            log.exception("cannot record %s in the alarm history", kind)

    def _record_outcome(self, outcome: Outcome) -> None:
        ticket, detail = outcome.ticket, outcome.detail
        why = {"reason": detail["reason"]} if "reason" in detail else {}
        self._record(
            "outcome",
            seq=ticket.seq,
            id=detail.get("id"),
            topic=ticket.topic,
            alarm=outcome.alarm,
            priority=detail.get("priority"),
            outcome=outcome.kind,
            received=round(ticket.received, 3),
            **why,
        )

    def _record_event(self, event: Event) -> None:
        if event.kind in AUDITED_EVENTS:  # the audit's own kinds: who did what to which alarm
            self._record(event.kind, **event.detail)
        else:
            self._record("event", kind=event.kind, **event.detail)

    def _record_state(self, alarms: dict[str, Standing]) -> None:
        """What stands and is shelved as this run takes over, whatever the history holds."""
        standing = [standing_detail(key, a.offer) for key, a in alarms.items() if not a.cleared]
        shelved = {p: round(on_wall(until), 3) for p, until in self._kept_shelves.items()}
        self._record("state", standing=standing, shelved=shelved)

    def _keep(self) -> None:
        """Journal what changed of the shelves and unacknowledged alarms (under the lock)."""
        shelved, alarms = self.policy.lasting()
        for pattern, until in shelved.items():
            if self._kept_shelves.get(pattern) != until:
                self.journal.shelf(pattern, on_wall(until))
                self._record("shelf", topic=pattern, until=round(on_wall(until), 3))
        for pattern in self._kept_shelves.keys() - shelved.keys():
            self.journal.shelf(pattern, None)
            self._record("shelf", topic=pattern, until=None)
        for key, a in alarms.items():
            if self._kept_alarms.get(key) != (a.due, a.cleared):
                t = a.offer.ticket
                due = on_wall(a.due)
                self.journal.alarm(key, t.seq, t.topic, t.payload, t.received, due, a.cleared)
                if key not in self._kept_alarms:
                    self._record("standing", **standing_detail(key, a.offer))
                if a.cleared and not self._kept_alarms.get(key, (0, False))[1]:
                    self._record("returned", id=key)  # to normal, unacknowledged
        for key in self._kept_alarms.keys() - alarms.keys():
            self.journal.alarm_ended(key)
            self._record("settled", id=key)
        self._kept_shelves = shelved
        self._kept_alarms = {key: (a.due, a.cleared) for key, a in alarms.items()}


def _priority(verdict: Verdict) -> str | None:
    """The priority an accepted alert is said at; None for a return to normal or a refusal."""
    announcement = verdict.announcement if isinstance(verdict, Offer) else None
    return announcement.priority if announcement else None


def _state(status: dict) -> str:
    """`degraded` while the status names a fault, `starting` while only that phase lasts,
    else `online` (health.py `state_of`)."""
    return state_of(status["faults"])
