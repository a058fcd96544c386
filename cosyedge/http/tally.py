"""Log lines that a flood of bad connections would repeat, one per connection, at most one
per kind per period: the first at once, then how many more came, once the period is over.

Clients that connect, send half a request and go (or are cut off at `timeout_s`) cost the
daemon nothing else, but a line each would bury the journal (600 of them made 850 lines). A
request the client sent whole keeps its own line (docs/http.md: one line per request).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

EVERY_S = 60.0  # one line per kind this often at most


@dataclass
class _Kind:
    text: str  # what the summary says they were
    level: int
    logged: float  # when a line of this kind was last logged
    more: int = 0  # since then, not logged


@dataclass
class Tally:
    """Rate-limited log lines by kind; `log` from any thread, `flush` at least every second
    (the HTTP front's loop) so that the count of a flood that stopped is still told."""

    every_s: float = EVERY_S
    _kinds: dict[str, _Kind] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def log(self, kind: str, level: int, message: str, *args: object) -> None:
        """`message % args` now, unless a line of `kind` was logged within `every_s`: then
        it is counted, and the count told by `flush` once the period is over. `kind` is a
        few words saying what these lines are (`connections ended early`)."""
        now = time.monotonic()
        with self._lock:
            known = self._kinds.get(kind)
            if known is not None and now - known.logged < self.every_s:
                known.more += 1
                return
            self._kinds[kind] = _Kind(kind, level, now)
        log.log(level, message, *args)

    def flush(self) -> None:
        """Tell each count whose period is over: `N more KIND in the last S s`."""
        now = time.monotonic()
        told = []
        with self._lock:
            for kind in self._kinds.values():
                if kind.more and now - kind.logged >= self.every_s:
                    told.append((kind, kind.more))
                    kind.logged, kind.more = now, 0
        for kind, count in told:
            self._tell(kind, count)

    def _tell(self, kind: _Kind, count: int) -> None:
        log.log(
            kind.level,
            "http: %d more %s in the last %g s, not logged one by one",
            count,
            kind.text,
            self.every_s,
        )
