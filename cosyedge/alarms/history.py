"""The alarm history: an append-only record of what became of every alarm, kept for months.

The journal holds only what is still open and is compacted. The ISA-18.2 performance
figures (alarms/kpi.py) and the operator audit need what happened, so every outcome, every
event (commands with who and why, floods, re-announcements, the alarm system's own faults)
and every change of the standing alarms and shelves is also written here: one JSON object a
line (a "fact", its kind in `e` and its wall-clock time in `t`), in `YYYY-MM-DD.jsonl` by
UTC day.

It is a record, not a promise: lines are not fsynced (a crash may lose the last moment of
them; the journal is what keeps alerts), and no caller waits for the disk. A writer thread
appends; while the disk refuses, facts wait in memory (up to MAX_WAITING, past that new ones
are counted and dropped) and its observer is told so. Days older than `keep_days` are removed,
and past `max_bytes` the oldest days go first; a day that alone would pass it is not written
further (counted, and told the observer) rather than fill the disk the journal needs.

Nothing read back is trusted: `read_facts` skips and counts lines that are not JSON objects
with a kind and a finite time, so a torn last line or a damaged file never stops a report.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from cosyedge.faults import Faults
from cosyedge.journal.files import same_file
from cosyedge.model import error_text
from cosyedge.observe import Observer
from cosyedge.regular import regular_only

log = logging.getLogger(__name__)

MAX_WAITING = 100_000  # facts held in memory while the disk refuses them
RETRY_S = 5.0  # a refused write is tried again this often
# The audit trail's kinds: who did what to which alarm, and the alarm system's own events.
AUDITED = (
    *("command", "command_refused", "command_answer", "test_announcement"),
    *("fault", "fault_cleared", "start", "stop"),
)
DAY_S = 86400.0
MAX_LINE = 1 << 16  # longer lines are not facts this writes
SUFFIX = ".jsonl"

Fact = dict[str, Any]


def day_of(t: float) -> str:
    """The UTC day a wall-clock time falls in, as the file holding it is named."""
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%d")


def _day_start(name: str) -> float | None:
    """The UTC start of the day a history file is named after; None for other files."""
    if not name.endswith(SUFFIX):
        return None
    try:
        day = dt.datetime.strptime(name.removesuffix(SUFFIX), "%Y-%m-%d")
    except ValueError:
        return None
    return day.replace(tzinfo=dt.UTC).timestamp()


def day_files(directory: Path) -> list[tuple[float, Path]]:
    """The history files in `directory`, oldest first, with the start of their day; none if
    it cannot be listed."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    days = [(_day_start(name), directory / name) for name in names]
    return sorted((start, path) for start, path in days if start is not None)


class History:
    """Facts appended by a writer thread of its own; see the module's docstring."""

    def __init__(
        self,
        directory: Path,
        keep_days: int,
        max_bytes: int,
        faults: Faults | None = None,
        clock: Callable[[], float] = time.time,
        observer: Observer | None = None,
    ) -> None:
        """`observer` is told each fact recorded, and `trouble("history", ...)` while facts
        cannot be written and once they can."""
        self.directory = directory
        self.keep_days, self.max_bytes = keep_days, max_bytes
        self.faults = faults or Faults()
        self.clock = clock
        self.observer = observer or Observer()
        self._cond = threading.Condition()
        self._waiting: deque[bytes] = deque()
        self._dropped = 0  # facts not written since the last trouble was told
        self._stopping = False
        self._writer: threading.Thread | None = None
        self._sink = _DaySink(directory)
        self._total = 0  # bytes of all the days, as of the last prune plus what was written
        self._trouble: str | None = None

    def record(self, kind: str, /, **detail: Any) -> None:
        """Keep one fact of `kind`, stamped with the time now; never raises, never waits."""
        fact = {"e": kind, "t": round(self.clock(), 3), **detail}
        self.observer.recorded(fact)
        line = _line(fact)
        if len(line) > MAX_LINE:  # e.g. a flood summary's ids: kept as their number
            line = _line(_shortened(fact))
        with self._cond:
            if len(self._waiting) >= MAX_WAITING:
                self._dropped += 1
                return
            self._waiting.append(line)
            self._cond.notify()

    def start(self) -> None:
        self._writer = threading.Thread(target=self._write_forever, name="history", daemon=True)
        self._writer.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Write what is waiting (for at most `timeout` s) and stop."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        if self._writer is not None:
            self._writer.join(timeout)
        self._sink.close()

    @property
    def trouble(self) -> str | None:
        """Why facts are not reaching the disk, while they are not."""
        return self._trouble

    # -- the writer thread ----------------------------------------------------------------
    def _write_forever(self) -> None:
        while True:
            with self._cond:
                while not (self._waiting or self._stopping):
                    self._cond.wait()
                batch, self._waiting = list(self._waiting), deque()
                stopping = self._stopping
            if not self._write(batch) and not stopping:
                with self._cond:  # keep them, oldest first, and wait before trying again
                    self._waiting.extendleft(reversed(batch[: MAX_WAITING - len(self._waiting)]))
                    self._cond.wait(RETRY_S)
            if stopping:
                return

    def _write(self, batch: list[bytes]) -> bool:
        """Append `batch` to today's file (the first batch of a day prunes first); False, and
        trouble said, when that failed, whatever the reason: the writer must not die of it."""
        try:
            today = day_of(self.clock())
            if self._sink.day != today:
                self._prune()
            self.faults.check("history.write")
            written = self._sink.append(today, batch, self.max_bytes - self._total)
        except Exception as exc:  # the disk refused, mostly; memory short, at the limit
            reason = exc if isinstance(exc, OSError) else error_text(exc)
            self._tell(f"history {self.directory}: cannot write ({reason}); facts kept in memory")
            return False
        self._total += sum(len(line) for line in batch[:written])
        with self._cond:
            self._dropped += len(batch) - written
            dropped = self._dropped
        if dropped:
            self._tell(
                f"history {self.directory}: {dropped} facts not recorded: over "
                f"{self.max_bytes / 1e6:.0f} MB in one day (alarms.history_mb)"
            )
        else:
            self._tell(None)
        return True

    def _prune(self) -> None:
        """Remove days past `keep_days`, then the oldest past `max_bytes`; today is kept."""
        now = self.clock()
        files = day_files(self.directory)
        horizon, today = now - self.keep_days * DAY_S, day_of(now)
        self._total = sum(_size(path) for _, path in files)
        for start, path in files:
            too_old = start + DAY_S <= horizon
            if path.name == f"{today}{SUFFIX}" or not (too_old or self._total > self.max_bytes):
                continue
            self._total -= _size(path)
            _remove(path)

    def _tell(self, trouble: str | None) -> None:
        if trouble == self._trouble:
            return
        if trouble is None:
            log.warning("history %s: writing again", self.directory)
            with self._cond:
                self._dropped = 0
        else:
            log.error("%s", trouble)
        self._trouble = trouble
        self.observer.trouble("history", trouble)


def _line(fact: Fact) -> bytes:
    return (json.dumps(fact, ensure_ascii=False, default=str) + "\n").encode()


def _shortened(fact: Fact) -> Fact:
    """A fact too long for a line: lists and mappings as their lengths, texts cut."""
    short: Fact = {}
    for key, value in fact.items():
        if isinstance(value, (list, tuple, dict)):
            short[f"{key}_count"] = len(value)
        elif isinstance(value, str):
            short[key] = value[:1000]
        else:
            short[key] = value
    return short


@dataclass
class _DaySink:
    """The open file of one day, appended to in whole lines."""

    directory: Path
    day: str | None = None
    _fd: int = field(default=-1, repr=False)

    def append(self, day: str, lines: list[bytes], room: int) -> int:
        """Append as many of `lines` as fit in `room` bytes; how many were written. A day's
        file removed or replaced while open (`rm -rf state_dir/*`) is made again, so what
        follows is not written to a file nobody can read."""
        path = self.directory / f"{day}{SUFFIX}"
        lost = same_file(self._fd, path) if day == self.day else None
        if lost is not None:
            log.error("history %s: was %s while in use; made again", path, lost)
        if day != self.day or lost is not None:
            self.close()
            self.directory.mkdir(parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
            self._fd = regular_only(str(path), flags, 0o640)
            self.day = day
        fitting = _fitting(lines, room)
        data = memoryview(b"".join(lines[:fitting]))
        end = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            while data:
                data = data[os.write(self._fd, data) :]
        except OSError:  # a short write (a full disk) would glue half a line to the retry
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, end)
            raise
        return fitting

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
        self._fd, self.day = -1, None


def _fitting(lines: list[bytes], room: int) -> int:
    """How many of `lines`, from the first, fit in `room` bytes."""
    for count, line in enumerate(lines):
        room -= len(line)
        if room < 0:
            return count
    return len(lines)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _remove(path: Path) -> None:
    try:
        path.unlink()
        log.info("history: removed %s (alarms.history_days, alarms.history_mb)", path.name)
    except OSError as exc:
        log.warning("history: cannot remove %s: %s", path, exc)


# -- reading it back ----------------------------------------------------------------------
@dataclass
class Skipped:
    """What `read_facts` passed over: lines that are not facts, by file."""

    damaged: dict[str, int] = field(default_factory=dict)

    def skip(self, path: Path) -> None:
        self.damaged[path.name] = self.damaged.get(path.name, 0) + 1


def sizes(directory: Path) -> dict[str, int]:
    """Each history file's size now: what `read_facts(..., upto=)` reads of it later, so
    facts appended meanwhile (heard live by a listener) are not read twice."""
    return {path.name: _size(path) for _, path in day_files(directory)}


def read_facts(
    directory: Path, since: float, skipped: Skipped, upto: Mapping[str, int] | None = None
) -> Iterator[Fact]:
    """Every well-formed fact from `since` on, oldest first by file (with `upto`: only the
    files and bytes it names); damaged lines are counted in `skipped` and passed over."""
    for start, path in day_files(directory):
        limit = None if upto is None else upto.get(path.name, 0)
        if start + DAY_S <= since or limit == 0:
            continue
        try:
            with path.open("rb") as f:
                yield from _facts(f, limit, since, path, skipped)
        except OSError as exc:
            log.warning("history: cannot read %s: %s", path, exc)
            skipped.skip(path)


def audit(directory: Path, start: float, end: float) -> tuple[list[Fact], dict[str, int]]:
    """The audit trail of [start, end), oldest first, and the damaged lines passed over in
    each file (`cosyedge report audit`, the operator page)."""
    skipped = Skipped()
    facts = [f for f in read_facts(directory, start, skipped) if f["e"] in AUDITED and f["t"] < end]
    return sorted(facts, key=lambda f: f["t"]), skipped.damaged


def begins(directory: Path, upto: Mapping[str, int] | None = None) -> float | None:
    """The time of the history's first fact (with `upto`, among those bytes): where the
    period it covers begins; None when it holds none."""
    first = next(read_facts(directory, 0.0, Skipped(), upto), None)
    return None if first is None else float(first["t"])


def _facts(
    f: BinaryIO, limit: int | None, since: float, path: Path, skipped: Skipped
) -> Iterator[Fact]:
    """The facts of one open file, line by line (a day can be large), up to `limit` bytes;
    a line longer than MAX_LINE is read, and passed over, in pieces."""
    left = math.inf if limit is None else limit
    for raw in iter(lambda: f.readline(MAX_LINE), b""):
        left -= len(raw)
        if left < 0:
            return
        fact = _fact(raw)
        if fact is None:
            skipped.skip(path)
        elif fact["t"] >= since:
            yield fact


def _fact(raw: bytes) -> Fact | None:
    try:
        fact = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested past what the parser takes
        return None
    if not isinstance(fact, dict) or not isinstance(fact.get("e"), str):
        return None
    t = fact.get("t")
    if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t):
        return None
    return fact
