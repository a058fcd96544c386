"""glibc's allocator, driven through ctypes: handing free heap pages back, and one arena for
all threads. Elsewhere (musl) each of these finds nothing and does nothing."""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable
from dataclasses import dataclass, field

MIB = 1 << 20


def libc_function(name: str) -> Callable[..., int] | None:
    """A function of the C library this process runs on (`malloc_trim`, `mallopt`); None where
    it has none by that name (not glibc)."""
    try:
        return getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):
        return None


def libc_malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, which hands the heap's free pages back to the system."""
    return libc_function("malloc_trim")


def rss_mb() -> float:
    """Resident set size of this process, from /proc/self/statm (cheap enough for every step)."""
    with open("/proc/self/statm", "rb") as f:
        resident_pages = int(f.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / MIB


@dataclass
class HandBack:
    """Hands the heap's free pages back to the system (`malloc_trim`) once RSS has grown
    `slack_mb` past the lowest it was seen at since the last hand-back, and not before.

    Handing back after every step of an inference kept RSS at its floor, but the next step
    faulted the same pages in again: a quarter more CPU per phrase. Up to `slack_mb` of free
    heap is kept for the next steps to reuse instead (docs/architecture.md, "Memory and CPU").
    Thread-safe enough: two threads deciding at once at worst trim twice.
    """

    slack_mb: float
    trim: Callable[[int], int] | None = field(default_factory=lambda: libc_malloc_trim())
    measure: Callable[[], float] = rss_mb
    floor_mb: float = float("inf")  # the lowest RSS seen since the last hand-back
    count: int = 0  # how many times it handed back

    def __call__(self) -> bool:
        """After a step: hand back if RSS is `slack_mb` above the floor; whether it did."""
        if self.trim is None:  # not glibc: nothing to trim this way
            return False
        rss = self.measure()
        self.floor_mb = min(self.floor_mb, rss)
        if rss < self.floor_mb + self.slack_mb:
            return False
        self.trim(0)
        self.floor_mb, self.count = self.measure(), self.count + 1
        return True


# glibc's malloc.h: the most arenas malloc keeps (by default 8 per core).
_M_ARENA_MAX = -8


def one_malloc_arena() -> bool:
    """Have glibc's malloc serve every thread from one arena; False where there is no glibc.

    By default each thread that allocates gets an arena of its own, and what a thread's arena
    keeps after `malloc_trim` is memory no other thread can use: with its own, the synthesis
    thread kept 6-8 MB more after the start-up phrases in 10 of 14 starts (`RSS now` 111 MB
    instead of 104). The threads that allocate much (synthesis, playback) do so in turns, so
    one arena's lock costs no measurable time (docs/measurements.md). Call before threads start.
    """
    mallopt = libc_function("mallopt")
    return mallopt is not None and mallopt(_M_ARENA_MAX, 1) == 1
