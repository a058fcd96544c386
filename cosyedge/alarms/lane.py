"""A zone's lane: the alarm desk as one zone's announcer sees it."""

from __future__ import annotations

from typing import Protocol

from cosyedge.model import Delivery, Item


class AlarmDesk(Protocol):
    """What a lane asks of the alarm desk (desk.py)."""

    def take(self, timeout: float, zone: str | None = None) -> Item | None: ...
    def should_stop(self, item: Item) -> bool: ...
    def finished(self, item: Item, delivery: Delivery) -> None: ...
    def waiting_in(self, zone: str) -> int: ...


class Lane:
    """The desk as one zone's announcer sees it (announce/announcer.py's `Desk`)."""

    def __init__(self, desk: AlarmDesk, zone: str) -> None:
        self.desk, self.zone = desk, zone

    def take(self, timeout: float) -> Item | None:
        return self.desk.take(timeout, self.zone)

    def should_stop(self, item: Item) -> bool:
        return self.desk.should_stop(item)

    def finished(self, item: Item, delivery: Delivery) -> None:
        self.desk.finished(item, delivery)

    def waiting(self) -> int:
        return self.desk.waiting_in(self.zone)
