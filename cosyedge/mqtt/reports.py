"""What became of every alert, told on MQTT: outcome, event, error and retained status topics.

Each outcome is on disk in the journal, with the messages that tell it, before they are
published (told ahead of its record, an outcome a crash lost would be decided again at the
next start, perhaps otherwise; only while the journal cannot write do they go at once), and
marked sent once the broker has acknowledged them all, so a report lost to a crash is sent
again at the next start (reports are at-least-once, like the alerts; `seq` tells repeats: a
repeat tells the same outcome).
A publish that fails never reaches the caller: an outcome's reports are kept and sent again
at every `confirm` until they go out, the latest status likewise, and the observer is told
meanwhile that reports are not going out, and likewise while an outcome's reports have gone
out but the broker has not acknowledged them for OVERDUE_S (it is down, or does not answer).
Reports the session took but the broker had not acknowledged when a reload closed that
session for a new connection are sent again through the new one (`replaced`): a change of
broker, port, credentials, TLS or client id loses none.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from cosyedge.config.mqtt import ReportsConfig
from cosyedge.intake import hermes
from cosyedge.journal import Journal
from cosyedge.model import Event, Outcome
from cosyedge.observe import Observer

log = logging.getLogger(__name__)

Publish = Callable[..., int | None]  # (topic, payload, retain=False) -> message id, if any
# An outcome's reports not acknowledged this long after it was decided are the fault `reports`:
# a broker acknowledges within milliseconds, and a restart it gets over in a few seconds.
OVERDUE_S = 10.0


class Reporter(Observer):
    def __init__(
        self,
        config: ReportsConfig,
        publish: Publish,
        journal: Journal,
        observer: Observer | None = None,
        status_detail: Callable[[], dict[str, Any]] = dict,
        clock: Callable[[], float] = time.monotonic,
        by: str | None = None,
        run: str = "",
    ) -> None:
        """`observer` is told every outcome report as it is published (none may raise), and
        `trouble("reports", ...)` while reports cannot be published or are overdue, and once
        neither; `status_detail`: the fields the status carries beside the desk's (must not
        raise); `clock`: what overdue is measured by; `by`: the role every outcome report
        names (`standby`), None for none; `run`: this run's name, which every outcome report
        and event carries (a standby takes its primary's only of the run its status names)."""
        self.config = config
        self._by = {"by": by} if by is not None else {}
        self._run = {"run": run} if run else {}
        self._publish = publish
        self.journal = journal
        self._clock = clock
        self._lock = threading.Lock()
        self._waiting: dict[int, set[int]] = {}  # seq -> message ids not yet acknowledged
        self._taken: dict[int, list[tuple[str, str]]] = {}  # seq -> what is waiting, to resend
        self._unpublished: dict[int, list[tuple[str, str]]] = {}  # seq -> to publish again
        self._since: dict[int, float] = {}  # seq -> when it was sent first, until acknowledged
        self._status_due: tuple[str, str] | None = None  # a status not yet published
        self._status_order = 0  # the `order` of the last status told
        self._status_lock = threading.Lock()  # statuses published in the order they were read
        self._connected = False  # the session connected once: statuses are published
        self._trouble: str | None = None  # why publishing fails
        self._told: str | None = None  # the trouble the observer last heard of
        self.observer = observer or Observer()
        self.status_detail = status_detail
        # Filled on paho's network thread, which holds paho's own lock meanwhile: taking ours
        # there could deadlock against a publish, so it only appends.
        self._acknowledged: deque[int] = deque()

    def outcome(self, outcome: Outcome) -> None:
        """Tell an outcome. Every report has the same common fields, whatever its outcome:
        `seq`, `outcome`, `topic`, `received`, `id` and `priority` (null where they cannot be
        known: a journal line nobody can read has no id, a return to normal no priority).
        Published, and told the observer, once the journal has the outcome on disk."""
        ticket = outcome.ticket
        report: dict[str, Any] = {
            "seq": ticket.seq,
            "outcome": outcome.kind,
            "topic": ticket.topic,
            "received": round(ticket.received, 3),
            "id": None,
            "priority": None,
            **outcome.detail,
            **self._by,
            **self._run,
        }
        messages = [(self.config.outcome_topic, _json(report))]
        if ticket.hermes is not None and outcome.kind != "covered":
            # A standby's copy covered: the primary that ended the request answers it.
            messages += hermes.answers(ticket.hermes, outcome.kind, report)
        key = outcome.detail.get("id")
        handled = None if outcome.copy else key  # a copy's id is its original's (Outcome)
        # Told once on disk: a crash could lose a record told before, and the next start
        # decide its message again, perhaps otherwise (summarized with the others taken up,
        # expired meanwhile): two outcomes. It costs the report one group commit.
        on_disk = functools.partial(self._publish_outcome, report, messages)
        self.journal.close(ticket.seq, handled, ticket.topic, ticket.received, messages, on_disk)

    def _publish_outcome(self, report: dict[str, Any], messages: list[tuple[str, str]]) -> None:
        """An outcome is on disk (the journal's writer thread): its reports go out."""
        self.send(report["seq"], messages)
        self.observer.reported(report)
        if report["outcome"] == "failed":
            self.error(str(report.get("reason")), seq=report["seq"], id=report["id"])

    def send(self, seq: int, messages: list[tuple[str, str]]) -> None:
        with self._lock:  # so that confirm() sees the ids before their acknowledgements
            self._since.setdefault(seq, self._clock())
            self._unpublished[seq] = [(topic, _utf8(payload)) for topic, payload in messages]
            self._publish_unpublished()
        self._tell()

    def _publish_unpublished(self) -> None:
        """Publish the reports still waiting, oldest first (under the lock); on a failure
        the rest waits for the next `confirm`."""
        for seq, messages in list(self._unpublished.items()):
            try:
                mids = {self._publish(topic, payload) for topic, payload in messages}
            except Exception as exc:
                self._trouble = f"cannot publish reports ({_reason(exc)}); kept to send again"
                return
            self._taken[seq] = self._unpublished.pop(seq)
            self._waiting[seq] = {mid for mid in mids if mid}
        self._trouble = None

    def event(self, event: Event) -> None:
        self._fire(
            self.config.event_topic, _json({"event": event.kind, **event.detail, **self._run})
        )

    def error(self, error: str, **context: Any) -> None:
        self._fire(self.config.error_topic, _json({"error": error, **context}))

    def status(self, state: str, detail: dict[str, Any], order: int = 0) -> None:
        """The retained status, now if the session ever connected, else at its connection:
        paho keeps what is published before the first connection and sends it after what
        is published at it, so an early status (an empty queue, before the journal's unsaid
        alerts were taken up) would be the one left retained. `order` is when the status was
        read (a count): one read before a status already told is not told after it, or it
        would stay retained (`online` while a fault had begun, a fault cleared still shown)."""
        payload = _json({"state": state, **detail, **self.status_detail()})
        with self._status_lock:
            if order and order < self._status_order:
                return
            self._status_order = max(order, self._status_order)
            self._status_due = (self.config.status_topic, payload)
            self._send_status()

    def connected(self) -> None:
        """The session connected (paho's network thread): the status kept until then goes."""
        with self._status_lock:
            self._connected = True
            self._send_status()

    def _send_status(self) -> None:
        due = self._status_due
        if due is not None and self._connected and self._fire(*due, retain=True):
            self._status_due = None

    def _fire(self, topic: str, payload: str, retain: bool = False) -> bool:
        """Publish a message nobody resends (events, errors); False when it failed."""
        try:
            self._publish(topic, payload, retain)
        except Exception as exc:
            log.error("cannot publish on %s: %s", topic, _reason(exc))
            return False
        return True

    def _tell(self) -> None:
        """Tell the observer when publishing starts or stops failing, or reports start or
        stop being overdue (outside the lock)."""
        trouble = self._trouble or self._overdue()
        if trouble != self._told:
            self._told = trouble
            self.observer.trouble("reports", trouble)

    # -- delivery confirmation ------------------------------------------------------------
    def published(self, mid: int) -> None:
        """The broker acknowledged message `mid` (called on paho's network thread)."""
        self._acknowledged.append(mid)

    def confirm(self) -> None:
        """Publish what failed before, and mark outcomes whose reports all reached the broker
        as sent in the journal."""
        with self._lock:
            if self._unpublished:
                self._publish_unpublished()
            done = self._settle()
        for seq in done:
            self.journal.sent(seq)
        self._send_status()
        self._tell()

    def _settle(self) -> list[int]:
        """The outcomes whose reports have all been acknowledged since the last call, no
        longer waiting (under the lock)."""
        acknowledged = set()
        while self._acknowledged:
            acknowledged.add(self._acknowledged.popleft())
        done = []
        for seq, mids in self._waiting.items():
            mids -= acknowledged  # paho reuses ids after 65535, so unmatched ones are dropped
            if not mids:
                done.append(seq)
        for seq in done:
            del self._waiting[seq], self._taken[seq]
            self._since.pop(seq, None)
        return done

    def replaced(self, ids: range) -> None:
        """The session that gave out `ids` is closed (mqtt/link.py): the reports it took and
        the broker had not acknowledged are published again, oldest first, through the session
        in force at the next `confirm` (at-least-once: `seq` tells a repeat)."""
        with self._lock:
            done = self._settle()  # what it did get acknowledged before it closed
            lost = [seq for seq, mids in self._waiting.items() if any(m in ids for m in mids)]
            for seq in lost:
                del self._waiting[seq]
                self._unpublished[seq] = self._taken.pop(seq)
            self._unpublished = dict(sorted(self._unpublished.items()))
        for seq in done:
            self.journal.sent(seq)
        if lost:
            log.info("%d reports the closed MQTT session did not deliver: sent again", len(lost))

    def _overdue(self) -> str | None:
        """Why reports are late: some outcome's were sent OVERDUE_S ago or more, and the
        broker has not acknowledged them (those kept to publish again count too)."""
        with self._lock:
            oldest = min(self._since.values(), default=None)
        if oldest is None or self._clock() - oldest < OVERDUE_S:
            return None
        return f"outcome reports not acknowledged by the broker for over {OVERDUE_S:g} s"

    def unconfirmed(self) -> int:
        """Outcomes whose reports the broker has not acknowledged yet (or not taken)."""
        with self._lock:
            return len(self._waiting) + len(self._unpublished)

    def drain(self, timeout: float) -> bool:
        """Confirm until every report is published and acknowledged, for at most `timeout`
        seconds; True when none is left. A routine stop drains first, so that the next start
        does not send again the reports of alerts spoken just before it."""
        deadline = time.monotonic() + timeout
        while True:
            self.confirm()
            with self._lock:
                left = bool(self._waiting or self._unpublished)
            if not left or time.monotonic() >= deadline:
                return not left
            time.sleep(0.02)


def _reason(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


def _json(data: dict[str, Any]) -> str:
    return _utf8(json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def _utf8(text: str) -> str:
    """Text that encodes as UTF-8: a lone surrogate from a payload becomes `?`, where it
    would otherwise make every publish of the report fail."""
    return text.encode("utf-8", "replace").decode("utf-8")
