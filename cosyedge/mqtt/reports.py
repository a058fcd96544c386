"""What became of every alert, told on MQTT: outcome, event, error and retained status topics.

Each outcome is journaled with the messages that tell it before they are published, and
marked sent once the broker has acknowledged them all, so a report lost to a crash is sent
again at the next start (reports are at-least-once, like the alerts; `seq` tells repeats).
"""

from __future__ import annotations

import json
import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from cosyedge.alerts.journal import Journal
from cosyedge.alerts.policy import Event, Outcome
from cosyedge.config import ReportsConfig
from cosyedge.mqtt import hermes

log = logging.getLogger(__name__)

Publish = Callable[..., int | None]  # (topic, payload, retain=False) -> message id, if any


class Reporter:
    def __init__(self, config: ReportsConfig, publish: Publish, journal: Journal) -> None:
        self.config = config
        self._publish = publish
        self.journal = journal
        self._lock = threading.Lock()
        self._waiting: dict[int, set[int]] = {}  # seq -> message ids not yet acknowledged
        # Filled on paho's network thread, which holds paho's own lock meanwhile: taking ours
        # there could deadlock against a publish, so it only appends.
        self._acknowledged: deque[int] = deque()

    def outcome(self, outcome: Outcome) -> None:
        ticket = outcome.ticket
        report: dict[str, Any] = {
            "seq": ticket.seq,
            "outcome": outcome.kind,
            "topic": ticket.topic,
            "received": round(ticket.received, 3),
            **outcome.detail,
        }
        messages = [(self.config.outcome_topic, _json(report))]
        if ticket.hermes is not None:
            messages += hermes.answers(ticket.hermes, outcome.kind, report)
        key = outcome.detail.get("id")
        self.journal.close(ticket.seq, key, ticket.topic, ticket.received, messages)
        self.send(ticket.seq, messages)
        if outcome.kind == "failed":
            self.error(str(outcome.detail.get("reason")), seq=ticket.seq, id=key)

    def send(self, seq: int, messages: list[tuple[str, str]]) -> None:
        with self._lock:  # so that confirm() sees the ids before their acknowledgements
            mids = {mid for topic, payload in messages if (mid := self._publish(topic, payload))}
            self._waiting[seq] = mids

    def event(self, event: Event) -> None:
        self._publish(self.config.event_topic, _json({"event": event.kind, **event.detail}))

    def error(self, error: str, **context: Any) -> None:
        self._publish(self.config.error_topic, _json({"error": error, **context}))

    def status(self, state: str, **detail: Any) -> None:
        self._publish(self.config.status_topic, _json({"state": state, **detail}), retain=True)

    # -- delivery confirmation ------------------------------------------------------------
    def published(self, mid: int) -> None:
        """The broker acknowledged message `mid` (called on paho's network thread)."""
        self._acknowledged.append(mid)

    def confirm(self) -> None:
        """Mark outcomes whose reports all reached the broker as sent in the journal."""
        done = []
        with self._lock:
            acknowledged = set()
            while self._acknowledged:
                acknowledged.add(self._acknowledged.popleft())
            for seq, mids in self._waiting.items():
                mids -= acknowledged  # ids are reused later, so unmatched ones are dropped
                if not mids:
                    done.append(seq)
            for seq in done:
                del self._waiting[seq]
        for seq in done:
            self.journal.sent(seq)


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
