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
import threading
import time

from cosyedge.alerts.alert import RejectedAlert
from cosyedge.alerts.commands import BadCommand, parse_command
from cosyedge.alerts.journal import MAX_TRIES, Journal, Pending, Recovered
from cosyedge.alerts.policy import AlarmPolicy, Delivery, Effect, Item, Outcome, Ticket
from cosyedge.mqtt.intake import Intake
from cosyedge.mqtt.reports import Reporter
from cosyedge.service.health import Health

log = logging.getLogger(__name__)

TICK_S = 0.1
TRY_WAIT_S = 2.0  # at most this long for a suspect's try record to reach the disk


class AlarmDesk:
    def __init__(
        self,
        policy: AlarmPolicy,
        intake: Intake,
        reporter: Reporter,
        journal: Journal,
        health: Health | None = None,
    ) -> None:
        self.policy = policy
        self.intake = intake
        self.reporter = reporter
        self.journal = journal
        self.health = health or Health()
        self._cond = threading.Condition()
        self._status: dict | None = None
        self._tried: set[int] = set()  # seqs whose first attempt this run is journaled
        self._suspects: set[int] = set()  # left unsaid by the last run, which may have died
        # What the journal holds of the lasting state, on the policy's clock.
        self._kept_shelves: dict[str, float] = {}
        self._kept_alarms: dict[str, float] = {}  # key -> due

    def recover(self, recovered: Recovered) -> None:
        """Take up what the previous run left: known ids, unconfirmed reports, shelves,
        unacknowledged alarms and open alerts. Damaged journal lines and a lost journal are
        reported on the error topic."""
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
            self.policy.remember(seen.key, _on_clock(seen.received), seen.topic)
        for unsent in recovered.unsent:
            self.reporter.send(unsent.seq, unsent.messages)
        alarms = []
        for saved in recovered.unacknowledged:
            ticket = self.intake.ticket(saved.seq, saved.topic, saved.payload, saved.received)
            try:
                offer = self.intake.offer(ticket, saved.payload, _on_clock(saved.received))
            except Exception as exc:  # RejectedAlert, or whatever else it may raise
                offer, why = None, f"no longer an alert ({exc})"
            else:
                why = "no longer re-announced by the configuration"
            if offer is None or offer.announcement is None or offer.timing.reannounce_s <= 0:
                log.warning("unacknowledged alarm %s of the last run: %s", saved.key, why)
                self.journal.alarm_ended(saved.key)
                continue
            alarms.append((offer, _on_clock(saved.due)))
        with self._cond:
            self.policy.restore({p: _on_clock(t) for p, t in recovered.shelved.items()}, alarms)
            self._kept_shelves, kept = self.policy.lasting()
            self._kept_alarms = {key: due for key, (_, due) in kept.items()}
        if alarms or recovered.shelved:
            log.info(
                "taken up from the last run: %d unacknowledged alarms, %d shelved sources",
                len(alarms),
                len(recovered.shelved),
            )
        self._suspects = {pending.seq for pending in recovered.pending}
        for pending in recovered.pending:
            if pending.tries >= MAX_TRIES:
                self._quarantine(pending)
            else:
                self.submit(
                    pending.seq, pending.topic, pending.payload, pending.received, pending.again
                )

    def _quarantine(self, pending: Pending) -> None:
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
        ticket = self._ticket(pending.seq, pending.topic, pending.payload, pending.received)
        at = _on_clock(pending.received)
        try:  # its id, so that the broker's copies of it are duplicates, not new alerts
            key = self.intake.offer(ticket, pending.payload, at).key
        except Exception:
            key = None
        if key is not None:
            self.policy.remember(key, at, pending.topic)
        self._close(ticket, "failed", reason, id=key)

    # -- from paho's network thread -------------------------------------------------------
    def submit(
        self, seq: int, topic: str, payload: bytes, received: float, again: bool = False
    ) -> None:
        """Hand one journaled message to the rules; it ends in exactly one outcome, whatever
        it holds. `again`: a retained message already heard, replayed by the broker."""
        ticket = self._ticket(seq, topic, payload, received)
        if again:
            log.info("retained message on %r heard before: not said again", topic)
            self._close(ticket, "deduplicated", "retained message already heard")
            return
        try:
            offer = self.intake.offer(ticket, payload, _on_clock(received))
        except RejectedAlert as exc:
            log.warning("rejected message on %r: %s", topic, exc)
            self._close(ticket, "rejected", str(exc))
            return
        except Exception as exc:
            log.exception("cannot handle message %d on %r", seq, topic)
            self._close(ticket, "failed", f"cannot handle this message: {_error(exc)}")
            return
        what = offer.announcement.priority if offer.announcement else "return to normal"
        log.info("accepted alert %s on %r (%s)", offer.key, topic, what)
        try:
            with self._cond:
                self._emit(self.policy.offer(offer, time.monotonic()))
                self._cond.notify_all()
        except Exception as exc:
            log.exception("alarm rules failed on message %d on %r", seq, topic)
            self._close(ticket, "failed", f"alarm rules failed on it: {_error(exc)}")

    def _ticket(self, seq: int, topic: str, payload: bytes, received: float) -> Ticket:
        try:
            return self.intake.ticket(seq, topic, payload, received)
        except Exception:  # who to answer is a courtesy; the outcome is what counts
            log.exception("cannot read who sent message %d on %r", seq, topic)
            return Ticket(seq, topic, received, None, payload)

    def _close(self, ticket: Ticket, kind: str, reason: str, **detail: object) -> None:
        with self._cond:
            self.reporter.outcome(Outcome(ticket, kind, {**detail, "reason": reason}))

    def command(self, payload: bytes, retained: bool = False) -> None:
        """Carry out an operator command; a bad one is told on the error topic. A retained
        command is never carried out: the broker would replay it at every start."""
        text = payload[:500].decode("utf-8", "replace")
        try:
            if retained:
                raise BadCommand("retained commands are not carried out; clear the retained one")
            cmd = parse_command(payload)
            with self._cond:
                self._emit(self.policy.command(cmd, time.monotonic()))
                self._cond.notify_all()
        except BadCommand as exc:
            log.warning("command %r not carried out: %s", text, exc)
            self.reporter.error(f"command: {exc}", command=text)
        except Exception as exc:
            log.exception("command %r failed", text)
            self.reporter.error(f"command: cannot carry it out: {_error(exc)}", command=text)

    # -- the alarm system's own faults (from whichever thread notices) ---------------------
    def fault(self, name: str, text: str, lang: str, every_s: float) -> None:
        with self._cond:
            self._emit(self.policy.fault(name, text, lang, every_s))
            self._cond.notify_all()

    def fault_cleared(self, name: str, text: str | None, lang: str) -> None:
        with self._cond:
            self._emit(self.policy.fault_cleared(name, text, lang))
            self._cond.notify_all()

    # -- from the announcer ---------------------------------------------------------------
    def take(self, timeout: float) -> Item | None:
        """The next item to say, within `timeout` s, or None."""
        item = self._take(timeout)
        if item is not None and item.kind == "alert":
            self._try(item.offers[0].ticket.seq)  # outside the lock: it may wait for the disk
        return item

    def _take(self, timeout: float) -> Item | None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                item, effects = self.policy.take(time.monotonic())
                self._emit(effects)
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
            return self.policy.should_stop(item)

    def finished(self, item: Item, delivery: Delivery) -> None:
        with self._cond:
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
        with self._cond:
            self._emit(self.policy.tick(now))
            self._cond.notify_all()
            status = self._full_status()
        self.reporter.confirm()
        if status != self._status:
            self._status = status
            self.reporter.status(self.health.state, **status)

    def waiting(self) -> int:
        """Items queued or held in their on-delay."""
        with self._cond:
            status = self.policy.status()
        return status["queue"] + status["held"]

    def publish_status(self, state: str | None = None) -> None:
        """The retained status now: `online`, `degraded` while a fault lasts, or `state`."""
        with self._cond:
            status = self._full_status()
        self._status = status
        self.reporter.status(state or self.health.state, **status)

    def _full_status(self) -> dict:
        faults = {"faults": self.health.faults(), "restarts_last_hour": self.health.restarts}
        return {**self.policy.status(), **faults}

    def _emit(self, effects: list[Effect]) -> None:
        self._keep()
        for effect in effects:
            if isinstance(effect, Outcome):
                if effect.kind not in ("spoken", "summarized"):
                    reason = effect.detail.get("reason", "")
                    log.info("alert %s: %s %s", effect.detail.get("id"), effect.kind, reason)
                self.reporter.outcome(effect)
            else:
                log.info("%s %s", effect.kind.replace("_", " "), dict(effect.detail))
                self.reporter.event(effect)

    def _keep(self) -> None:
        """Journal what changed of the shelves and unacknowledged alarms (under the lock)."""
        shelved, alarms = self.policy.lasting()
        for pattern, until in shelved.items():
            if self._kept_shelves.get(pattern) != until:
                self.journal.shelf(pattern, _on_wall(until))
        for pattern in self._kept_shelves.keys() - shelved.keys():
            self.journal.shelf(pattern, None)
        for key, (offer, due) in alarms.items():
            if self._kept_alarms.get(key) != due:
                t = offer.ticket
                self.journal.alarm(key, t.seq, t.topic, t.payload, t.received, _on_wall(due))
        for key in self._kept_alarms.keys() - alarms.keys():
            self.journal.alarm_ended(key)
        self._kept_shelves = shelved
        self._kept_alarms = {key: due for key, (_, due) in alarms.items()}


def _error(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


def _on_clock(wall: float) -> float:
    """A wall-clock time on the monotonic clock the rules run on."""
    return time.monotonic() - (time.time() - wall)


def _on_wall(clock: float) -> float:
    """A time on the rules' monotonic clock as wall-clock time, for the journal."""
    return time.time() - (time.monotonic() - clock)
