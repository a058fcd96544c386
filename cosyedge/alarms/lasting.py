"""An unacknowledged alarm as the rules hold it (`Active`), as it outlives a restart: what the
alarm rules hand the desk to journal (alarms/policy.py, alarms/zones.py) and are given back at
the next start; and as the operator page shows it (`OnBoard`)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from paho.mqtt.client import topic_matches_sub

from cosyedge.model import Item, Offer


@dataclass(frozen=True)
class Standing:
    """An unacknowledged alarm as it outlives a restart."""

    offer: Offer
    due: float  # its next re-announcement, on the policy's clock
    cleared: bool = False  # returned to normal: awaits confirmation, not re-announced


@dataclass
class Active:
    """A spoken alarm that is re-announced until acknowledged or expired, as the rules hold
    it (policy.py). One that returns to normal unacknowledged (`cleared`) is no longer
    re-announced, since its condition is over, but stays unacknowledged until `ack` or
    `confirm` names it (ISA-18.2)."""

    offer: Offer
    due: float
    item: Item | None = None  # its re-announcement, while queued or spoken
    silenced: bool = False
    cleared: bool = False
    said: int = 1  # times said in this run: its first time and each re-announcement


@dataclass(frozen=True)
class OnBoard:
    """An unacknowledged alarm as the operator page shows it: how often it was said in this
    run (a restart counts again from 1), and the zones it stands in (none without zones)."""

    offer: Offer
    said: int
    silenced: bool = False  # not re-announced, still unacknowledged
    cleared: bool = False  # returned to normal: awaits confirmation
    zones: tuple[str, ...] = ()


def standing_detail(key: str, offer: Offer) -> dict[str, Any]:
    """A standing alarm as the history keeps it: since its receipt."""
    since = round(offer.ticket.received, 3)
    topic, alarm = offer.source, alarm_of(offer)
    return {"id": key, "topic": topic, "alarm": alarm, "priority": offer.priority, "since": since}


def board_detail(a: OnBoard) -> dict[str, Any]:
    """An unacknowledged alarm as the operator page shows it (AlarmDesk.board)."""
    offer = a.offer
    text = offer.announcement.text if offer.announcement else ""
    shown = {"id": offer.key, "topic": offer.source, "priority": offer.priority, "text": text}
    since = round(offer.ticket.received, 3)
    return shown | {
        "since": since,
        "said": a.said,
        "silenced": a.silenced,
        "cleared": a.cleared,
        "zones": list(a.zones),
    }


def alarm_of(offer: Offer) -> str | None:
    """The alarm an offer is in the ISA-18.2 figures; None for an announcement."""
    return offer.announcement.alarm if offer.announcement else None


@dataclass
class Holds:
    """Topic filters whose standing alarms are not re-announced before a time: a source's, at
    a start, until it has learned from its plant system which still stand (an OPC UA
    ConditionRefresh). Set from the source's thread, read by the rules: under its own lock."""

    until: dict[str, float] = field(default_factory=dict)  # topic filter -> monotonic time
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def hold(self, topics: str, until: float | None) -> None:
        """No re-announcement on `topics` before `until`; None: they go on now."""
        with self.lock:
            if until is None:
                self.until.pop(topics, None)
            else:
                self.until[topics] = until

    def holding(self, source: str, now: float) -> bool:
        with self.lock:
            return any(now < t and topic_matches_sub(f, source) for f, t in self.until.items())
