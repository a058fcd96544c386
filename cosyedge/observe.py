"""The one observer interface: what the parts of the daemon tell as they run.

A part is given an `Observer` when it is made and tells it what happened; it never learns who
listens. The daemon makes one `Observers` and adds each listener (the self-watch, the metrics,
the HTTP API's outcome board, the status) as it is built, so no part is handed a hook after
it is made. Every method is called on the teller's own thread, often under its lock: a
listener must not raise, block, or call back into the teller.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Fault:
    """One of the alarm system's own faults while it lasts (alarms/health.py)."""

    name: str  # the stage: journal, mqtt, reports, announcer, ...
    reason: str
    since: float  # wall clock
    told: float = 0.0  # monotonic: when a change of it was last told (logged, evented)


class Observer:
    """What can be told; each method does nothing here, and a listener overrides those it
    wants."""

    def trouble(self, part: str, reason: str | None) -> None:
        """`part` (journal, reports, history, cache, wyoming, ...) is failing for `reason`, or
        works again (None)."""

    def unkept(self, what: str, problem: str | None) -> None:
        """`what` (an optimized graph, the last good configuration, the canary key, ...) could
        not be written into the state directory for `problem` (a full, read-only or failing
        disk), and is held in memory or done without instead; or (None) it was kept there
        after all."""

    def fault(self, name: str, fault: Fault | None) -> None:
        """A fault of the alarm system began, or its reason changed (`fault`), or it ended
        (None)."""

    def received(self, via: str) -> None:
        """An alert message (`mqtt`) or say request (`http`) came in."""

    def accepted(self, via: str) -> None:
        """It was journaled, and will end in one outcome."""

    def reported(self, report: Mapping[str, Any]) -> None:
        """An outcome report, as published."""

    def synced(self, seconds: float) -> None:
        """The journal's fdatasync took this long."""

    def synthesized(self, lang: str, computing_s: float, audio_s: float) -> None:
        """A clause was synthesized: the seconds it took and the seconds of audio it made."""

    def recorded(self, fact: Mapping[str, Any]) -> None:
        """A fact went into the alarm history."""

    def changed(self) -> None:
        """A figure the retained status shows moved (the cache's hit rate, the premium tier's
        counts, the broker's drop count): it is published at the monitor's next tick."""

    def busy(self) -> None:
        """An alert began to be rendered or played (speech/cache/background.py `Activity`):
        background work stops at once. Called under the activity's lock."""

    def connected(self) -> None:
        """The MQTT session connected (paho's network thread)."""

    def lost(self) -> None:
        """The MQTT session's connection, once made, was lost (paho's network thread)."""

    def published(self, mid: int) -> None:
        """The broker acknowledged message `mid` (paho's network thread). Ids are unique
        across the sessions a daemon makes (mqtt/link.py)."""

    def replaced(self, ids: range) -> None:
        """The MQTT session that gave out the message ids `ids` was closed for a new one (a
        reload changed the connection; the daemon's main thread). What it published and was
        not acknowledged by then never will be: it is lost unless published again."""


class Observers(Observer):
    """Tells every listener added, in the order they were added; a listener that raises is
    logged and the others are told all the same.

    While the daemon starts, alerts are taken in before the listeners built with the voices
    (the metrics, the outcome board) exist. With `remember`, the first that many tellings are
    kept until `settle`, and a listener added with `catch_up` is told them first, so it counts
    what came before it exactly once; past `remember`, they are counted as `forgotten` and
    `settle` logs that those listeners missed them."""

    def __init__(self, remember: int = 0) -> None:
        self._listeners: list[Observer] = []
        self._lock = threading.Lock()  # a telling is kept and its listeners read as one step
        self._told: list[tuple[str, tuple[Any, ...]]] | None = [] if remember else None
        self._remember = remember
        self.forgotten = 0

    def add(self, listener: Observer, catch_up: bool = False) -> None:
        with self._lock:
            if catch_up:
                for name, args in self._told or ():
                    _call(listener, name, args)
            # A new list, not an append: the voices' thread adds listeners (the parts that
            # need the voices) while other threads may be telling the old ones.
            self._listeners = [*self._listeners, listener]

    def settle(self) -> None:
        """The start is over: nothing more is kept for listeners added later."""
        with self._lock:
            self._told = None
        if self.forgotten:
            log.warning(
                "%d events of the start came after the first %d kept: the metrics and "
                "outcome board do not count them",
                self.forgotten,
                self._remember,
            )

    def _tell(self, name: str, *args: Any) -> None:
        with self._lock:
            listeners = self._listeners
            if self._told is not None and len(self._told) < self._remember:
                self._told.append((name, args))
            elif self._told is not None:
                self.forgotten += 1
        for listener in listeners:
            _call(listener, name, args)

    def trouble(self, part: str, reason: str | None) -> None:
        self._tell("trouble", part, reason)

    def unkept(self, what: str, problem: str | None) -> None:
        self._tell("unkept", what, problem)

    def fault(self, name: str, fault: Fault | None) -> None:
        self._tell("fault", name, fault)

    def received(self, via: str) -> None:
        self._tell("received", via)

    def accepted(self, via: str) -> None:
        self._tell("accepted", via)

    def reported(self, report: Mapping[str, Any]) -> None:
        self._tell("reported", report)

    def synced(self, seconds: float) -> None:
        self._tell("synced", seconds)

    def synthesized(self, lang: str, computing_s: float, audio_s: float) -> None:
        self._tell("synthesized", lang, computing_s, audio_s)

    def recorded(self, fact: Mapping[str, Any]) -> None:
        self._tell("recorded", fact)

    def changed(self) -> None:
        self._tell("changed")

    def busy(self) -> None:
        self._tell("busy")

    def connected(self) -> None:
        self._tell("connected")

    def lost(self) -> None:
        self._tell("lost")

    def published(self, mid: int) -> None:
        self._tell("published", mid)

    def replaced(self, ids: range) -> None:
        self._tell("replaced", ids)


def _call(listener: Observer, name: str, args: tuple[Any, ...]) -> None:
    try:
        getattr(listener, name)(*args)
    except Exception:  # telling must never become a failure of the teller
        log.exception("%s could not be told %s", type(listener).__name__, name)
