"""glibc's allocator, driven through ctypes: handing free heap pages back, and one arena for
all threads. Elsewhere (musl) each of these finds nothing and does nothing."""

from __future__ import annotations

import ctypes
from collections.abc import Callable


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
