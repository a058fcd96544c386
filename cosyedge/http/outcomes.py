"""Outcome reports held for the say requests that asked to wait for them (`?wait=`).

A request is watched from the moment it is journaled, before the rules see it, so an outcome
decided at once (a duplicate) is not missed. Only watched requests are kept, and each only
until its caller stops waiting, so nothing grows with the number of alerts.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cosyedge.observe import Observer


@dataclass
class _Waiter:
    done: threading.Event = field(default_factory=threading.Event)
    report: Mapping[str, Any] | None = None


class OutcomeBoard(Observer):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[int, _Waiter] = {}

    def watch(self, seq: int) -> None:
        """Keep the outcome of `seq` for a `wait`; call before the rules can decide it."""
        with self._lock:
            self._waiting[seq] = _Waiter()

    def reported(self, report: Mapping[str, Any]) -> None:
        """An outcome report as published (from the reporter, on any thread)."""
        with self._lock:
            waiter = self._waiting.get(report.get("seq", 0))
        if waiter is not None and waiter.report is None:
            waiter.report = report
            waiter.done.set()

    def wait(self, seq: int, timeout: float) -> Mapping[str, Any] | None:
        """The outcome report of a watched `seq` within `timeout` s, or None; either way
        it is no longer watched."""
        with self._lock:
            waiter = self._waiting.get(seq)
        if waiter is None:
            return None
        waiter.done.wait(timeout)
        with self._lock:
            self._waiting.pop(seq, None)
        return waiter.report
