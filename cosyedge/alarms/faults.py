"""The alarm system's own faults as the rules say them: each said now (high priority: only
critical alerts go first) and again every `every_s` until an `ack` or `silence` names
`fault:<name>` or the fault clears, whose end is said once. A part of AlarmPolicy (policy.py),
whose queue and item being said it shares; pure state, as the policy is."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from cosyedge.alarms.queue import AnnounceQueue
from cosyedge.model import Delivery, Effect, Event, Item, ItemKind


@dataclass
class Fault:
    """One of the alarm system's own faults, said until acknowledged or cleared."""

    text: str
    lang: str
    every_s: float  # 0: said once
    due: float = math.inf
    item: Item | None = None  # while queued or spoken
    acknowledged: bool = False


class FaultRules:
    """The policy's calls about its own faults; AlarmPolicy has the state they use."""

    queue: AnnounceQueue[Item]
    playing: Item | None
    _faults: dict[str, Fault]
    _stop: str | None
    _item: Callable[..., Item]

    def fault(self, name: str, text: str, lang: str, every_s: float) -> list[Effect]:
        """Say `text` now (high priority: only critical alerts go first) and again every
        `every_s` until `ack` or `silence` names `fault:<name>`, or the fault clears."""
        if name in self._faults:
            return []
        fault = self._faults[name] = Fault(text, lang, every_s)
        self._say_fault(name, fault)
        return []

    def fault_cleared(self, name: str, text: str | None, lang: str) -> list[Effect]:
        """The fault is over: unsaid mentions go; `text` (if any) is said once, if it was."""
        fault = self._faults.pop(name, None)
        if fault is None:
            return []
        if queued := fault.item is not None and fault.item in self.queue:
            self.queue.remove(fault.item)  # type: ignore[arg-type]  # not None: queued
        if text and not (queued and fault.due == math.inf):  # due: finite once said
            self._push_fault(f"{name}:cleared", text, lang, "low")
        return []

    def fault_waiting(self, name: str) -> bool:
        """Whether fault `name` is to be said: queued, or being said."""
        fault = self._faults.get(name)
        return fault is not None and fault.item is not None

    def _say_fault(self, name: str, fault: Fault) -> None:
        fault.item = self._push_fault(name, fault.text, fault.lang, "high")

    def _push_fault(self, name: str, text: str, lang: str, priority: str) -> Item:
        item = self._item(ItemKind.FAULT, priority, [], text, summary_lang=lang, fault=name)
        self.queue.push(item)
        return item

    def _ack_fault(self, key: str | None) -> list[str]:
        name = (key or "").removeprefix("fault:")
        fault = self._faults.get(name) if key and key.startswith("fault:") else None
        if fault is None:
            return []
        fault.acknowledged = True
        if fault.item is not None and fault.item in self.queue:
            self.queue.remove(fault.item)
            fault.item = None
        if self.playing is not None and self.playing.key == key:
            self._stop = "acknowledged"
        return [f"fault:{name}"]

    def _fault_finished(
        self, item: Item, kind: str, delivery: Delivery, now: float
    ) -> list[Effect]:
        fault = self._faults.get(item.fault)
        current = fault is not None and fault.item is item
        if kind in ("stopped", "unplayed"):  # cut short by a critical alert, or no device
            if current or item.fault.endswith(":cleared"):
                self.queue.push(item)
            return []
        if fault is not None and current:
            fault.item = None
            fault.due = now + fault.every_s if fault.every_s > 0 else math.inf
        detail = {"fault": item.fault, "result": kind, "text": item.text, **delivery.detail}
        return [Event("fault_announcement", detail)]
