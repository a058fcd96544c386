"""What the daemon could not keep in its state directory, as one fault: `state`.

A start writes into `state_dir`: the voices' optimized graphs and tables (`models/`), the
canary key, the start count, the last good configuration; a running daemon the broker's drop
count and the reload answers. None of them is worth the voice: each that cannot be written
(a full, tiny, read-only or failing disk) is held in memory or done without, and told through
the observer interface (`Observer.unkept`). `StateWatch` gathers them into the fault `state`,
said and shown like any other, naming the directory, its free space and what is not kept, so
the engineer knows the gateway runs without what it would have kept, and why. The journal,
the alarm history and the phrase cache, which fail and recover while the daemon runs, have
faults of their own (`journal`, `history`, `cache`).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path

from cosyedge.component import Component
from cosyedge.observe import Observer
from cosyedge.speech.kept import amount

log = logging.getLogger(__name__)

NAMED = 3  # the fault names this many things not kept, then counts the rest


class StateWatch(Component, Observer):
    """The fault `state` while anything told as not kept is still not kept: its reason is
    made when what is not kept changes, and again at each tick with the free space then."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._lock = threading.Lock()
        self._unkept: dict[str, str] = {}  # what → why, in the order told
        self._reason: str | None = None

    def unkept(self, what: str, problem: str | None) -> None:
        with self._lock:
            if problem is None:
                self._unkept.pop(what, None)
            else:
                self._unkept[what] = problem
            self._reason = describe(self.directory, self._unkept) if self._unkept else None

    @property
    def reason(self) -> str | None:
        """The fault's reason as last made; None while everything told was kept."""
        return self._reason

    def tick(self, now: float) -> Mapping[str, str | None]:
        """The fault with the free space measured now: a disk that filled or emptied since
        it was raised is shown as it is, not as it was then."""
        with self._lock:
            self._reason = describe(self.directory, self._unkept) if self._unkept else None
            return {"state": self._reason}


def describe(directory: Path, unkept: Mapping[str, str]) -> str:
    """`state_dir DIR (SPACE): cannot keep WHAT (WHY), ...; held in memory or done without`."""
    named = [f"{what} ({why})" for what, why in list(unkept.items())[:NAMED]]
    more = f" and {len(unkept) - NAMED} more" if len(unkept) > NAMED else ""
    return (
        f"state_dir {directory} ({space(directory)}): cannot keep {', '.join(named)}{more}; "
        "held in memory or done without"
    )


def space(directory: Path) -> str:
    """The free space of the file system `directory` is on (or would be: its nearest existing
    parent), of its size, and whether it is mounted read-only."""
    for place in (directory, *directory.parents):
        try:
            st = os.statvfs(place)
        except OSError:
            continue
        free, size = st.f_bavail * st.f_frsize, st.f_blocks * st.f_frsize
        readonly = ", read-only" if st.f_flag & os.ST_RDONLY else ""
        return f"{amount(free)} free of {amount(size)}{readonly}"
    return "free space unknown"
