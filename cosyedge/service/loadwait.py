"""How long a start waits for a load it cannot cut short: while the loading thread works, and
no longer once it has stopped working.

A voice's load may be slow (a first start making optimized graphs on a loaded 2-core gateway,
a model on an SD card) or hung (a read of hung storage, a FIFO that never ends). Only the
kernel can tell the two apart from outside: a thread that works uses CPU or reads bytes, one
blocked in a read does neither. So the wait has a first deadline; at it, a load that worked
in the last `window_s` gets `window_s` more, again and again up to `limit_s`, and one that did
not is given up on as hung. Counted for the loading thread alone (`/proc/self/task/TID`): the
alert path working beside it is no sign of the load's progress.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

log = logging.getLogger(__name__)

# What counts as work in one window: a hung read uses neither (the thread sleeps in the
# kernel); a load on a loaded machine still gets far more than this in a window.
WORK_CPU_S = 0.05
WORK_READ_BYTES = 64 * 1024


@dataclass(frozen=True)
class Work:
    """What a thread has done so far, as the kernel counts it."""

    cpu_s: float  # user and system time
    read_bytes: int  # bytes its read calls returned (rchar), page cache hits included

    def since(self, before: Work) -> Work:
        return Work(self.cpu_s - before.cpu_s, self.read_bytes - before.read_bytes)

    def worked(self) -> bool:
        return self.cpu_s >= WORK_CPU_S or self.read_bytes >= WORK_READ_BYTES

    def describe(self) -> str:
        return f"{self.cpu_s:.1f} s of CPU, {self.read_bytes / 2**20:.1f} MB read"


def thread_work(native_id: int) -> Work | None:
    """The work of this process's thread `native_id` (threading.Thread.native_id); None when
    the kernel does not say (the thread has ended, or no /proc)."""
    task = f"/proc/self/task/{native_id}"
    stat = _read(f"{task}/stat")
    if stat is None:
        return None
    fields = stat.rpartition(")")[2].split()  # the name in parentheses may hold spaces
    io = _read(f"{task}/io") or ""  # a kernel without task I/O accounting: CPU alone
    rchar = next((int(line.split()[1]) for line in io.splitlines() if line[:6] == "rchar:"), 0)
    return Work((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), rchar)


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return f.read().decode("ascii", "replace")
    except OSError:
        return None


@dataclass
class LoadWait:
    """The wait for one load running on thread `native_id`, started at monotonic `began`:
    to the first deadline `by` (and at least one whole window), then `window_s` more at a
    time while the thread works, never past `began + limit_s`. `check(now)` is called as
    often as the start ticks; `extended` holds the seconds its last call added."""

    native_id: int
    began: float
    by: float
    window_s: float
    limit_s: float
    extended: float = 0.0
    _window_from: float | None = None  # when the window the work is judged over began
    _mark: Work | None = None  # the thread's work then

    def __post_init__(self) -> None:
        # A deadline shared with a configuration tried before may be over already: this load
        # is judged on a whole window of its own all the same.
        self.by = max(self.by, self.began + self.window_s)

    def check(self, now: float) -> str | None:
        """None while the wait goes on; once it is over, why it was given up on."""
        self.extended = 0.0
        if self._window_from is None and now >= self.by - self.window_s:
            self._window_from, self._mark = now, thread_work(self.native_id)
        if now < self.by:
            return None
        work = thread_work(self.native_id)
        done = work.since(self._mark) if work and self._mark else None
        waited, span = now - self.began, now - (self._window_from or now)
        if done is None or not done.worked():
            return f"not loaded within {waited:.0f} s (the load hangs: no work in {span:.0f} s)"
        if now + self.window_s > self.began + self.limit_s:
            return f"not loaded within {waited:.0f} s (still working: {done.describe()} lately)"
        log.warning(
            "still loading after %.0f s, and working (%s in %.0f s): waiting %.0f s more",
            waited, done.describe(), span, self.window_s,
        )  # fmt: skip
        self.by, self.extended = now + self.window_s, self.window_s
        self._window_from, self._mark = now, work
        return None
