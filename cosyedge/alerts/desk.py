"""The alarm desk: the one place where alarm state changes.

The policy sits behind one lock. Messages and commands (paho's network thread), the
announcer and the clock thread all come through here, and each change is followed at once,
in order, by its journal entries and reports.
"""

from __future__ import annotations

import logging
import threading
import time

from cosyedge.alerts.alert import RejectedAlert
from cosyedge.alerts.commands import BadCommand, parse_command
from cosyedge.alerts.journal import Recovered
from cosyedge.alerts.policy import AlarmPolicy, Delivery, Effect, Item, Outcome
from cosyedge.mqtt.intake import Intake
from cosyedge.mqtt.reports import Reporter

log = logging.getLogger(__name__)

TICK_S = 0.1


class AlarmDesk:
    def __init__(self, policy: AlarmPolicy, intake: Intake, reporter: Reporter) -> None:
        self.policy = policy
        self.intake = intake
        self.reporter = reporter
        self._cond = threading.Condition()
        self._status: dict | None = None

    def recover(self, recovered: Recovered) -> None:
        """Take up what the previous run left: known ids, unconfirmed reports, open alerts."""
        for seen in recovered.seen:
            self.policy.remember(seen.key, _on_clock(seen.received), seen.topic)
        for unsent in recovered.unsent:
            self.reporter.send(unsent.seq, unsent.messages)
        for pending in recovered.pending:
            self.submit(pending.seq, pending.topic, pending.payload, pending.received)

    # -- from paho's network thread -------------------------------------------------------
    def submit(self, seq: int, topic: str, payload: bytes, received: float) -> None:
        ticket = self.intake.ticket(seq, topic, payload, received)
        try:
            offer = self.intake.offer(ticket, payload, _on_clock(received))
        except RejectedAlert as exc:
            log.warning("rejected message on %r: %s", topic, exc)
            with self._cond:
                self.reporter.outcome(Outcome(ticket, "rejected", {"reason": str(exc)}))
            return
        what = offer.announcement.priority if offer.announcement else "return to normal"
        log.info("accepted alert %s on %r (%s)", offer.key, topic, what)
        with self._cond:
            self._emit(self.policy.offer(offer, time.monotonic()))
            self._cond.notify_all()

    def command(self, payload: bytes) -> None:
        try:
            cmd = parse_command(payload)
            with self._cond:
                self._emit(self.policy.command(cmd, time.monotonic()))
                self._cond.notify_all()
        except BadCommand as exc:
            text = payload[:500].decode("utf-8", "replace")
            log.warning("command %r not carried out: %s", text, exc)
            self.reporter.error(f"command: {exc}", command=text)

    # -- from the announcer ---------------------------------------------------------------
    def take(self, timeout: float) -> Item | None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                item, effects = self.policy.take(time.monotonic())
                self._emit(effects)
                remaining = deadline - time.monotonic()
                if item is not None or remaining <= 0:
                    return item
                self._cond.wait(remaining)

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
            status = self.policy.status()
        self.reporter.confirm()
        if status != self._status:
            self._status = status
            self.reporter.status("online", **status)

    def waiting(self) -> int:
        """Items queued or held in their on-delay."""
        with self._cond:
            status = self.policy.status()
        return status["queue"] + status["held"]

    def publish_status(self, state: str = "online") -> None:
        with self._cond:
            status = self.policy.status()
        self._status = status
        self.reporter.status(state, **status)

    def _emit(self, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, Outcome):
                if effect.kind not in ("spoken", "summarized"):
                    reason = effect.detail.get("reason", "")
                    log.info("alert %s: %s %s", effect.detail.get("id"), effect.kind, reason)
                self.reporter.outcome(effect)
            else:
                log.info("%s %s", effect.kind.replace("_", " "), dict(effect.detail))
                self.reporter.event(effect)


def _on_clock(received: float) -> float:
    """A wall-clock receipt time on the monotonic clock the rules run on."""
    return time.monotonic() - (time.time() - received)
