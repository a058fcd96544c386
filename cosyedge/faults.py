"""Fault injection: a test switch that makes named I/O call sites fail, as a full disk would.

Off unless the environment variable `COSYEDGE_FAULTS` names a plan file. The plan is JSON,
one entry per call site: `{"journal.fsync": {"errno": "EIO", "until": 1767000000.0}}`. An
entry fails its site until the wall-clock time `until`, or `times` more calls (`1`: once),
or, with neither, for as long as it stays in the plan; `match` limits it to calls whose
subject (e.g. the text being spoken) holds that string, `crash: true` makes the process
die there (SIGKILL) instead of raising, and `hang: S` makes the call take S seconds longer
(a stuck device or disk: the thread sleeps) instead of failing, or before failing when the
entry also names an `errno`; `slow: S` makes it read for S seconds first, as from a slow disk
(the thread works: a slow first start, not a hung one). The file is read again whenever it
changes, so a test can start and end a fault while the daemon runs. In the spirit of
SQLite's I/O-error tests: every site below is walked in turn by tests/test_faults.py.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import signal
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from cosyedge.regular import load_record

log = logging.getLogger(__name__)

ENV = "COSYEDGE_FAULTS"

# Every call site that consults the switch: (site, what fails there).
SITES = {
    "journal.write": "appending records to the journal",
    "journal.fsync": "flushing the journal to disk",
    "journal.compact": "rewriting the journal (temporary file, fsync, rename)",
    "journal.seq": "saving the sequence number high-water mark",
    "quarantine.write": "keeping a damaged or poison message aside",
    "cache.write": "writing a phrase into the cache",
    "cache.read": "reading a phrase from the cache",
    "mqtt.publish": "handing a report to the MQTT client",
    "speech.render": "starting to speak an item (with crash: the daemon dies there)",
    "voices.load": "loading a configured voice at start (subject: its language)",
    "history.write": "appending facts to the alarm history",
    "models.write": "keeping an optimized graph, its record, the models' digests or a table in "
    "state_dir/models (subject: the file)",
    "state.write": "keeping a small file in state_dir: the last good configuration, the canary "
    "key, the start and drop counts, the reload answer (subject: the file)",
}


class Faults:
    """Consulted at each call site; `check` raises the planned OSError or returns."""

    def __init__(self, plan: Path | None = None) -> None:
        self.plan = plan
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._entries: dict[str, dict] = {}

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Faults:
        path = environ.get(ENV)
        if path:
            log.warning("fault injection is on (%s=%s): for tests only", ENV, path)
        return cls(Path(path) if path else None)

    def check(self, site: str, subject: str = "") -> None:
        """Raise OSError (or die) at `site` while the plan says it fails."""
        if self.plan is None:
            return
        with self._lock:
            self._refresh()
            entry = self._entries.get(site)
            if entry is None or str(entry.get("match", "")) not in subject:
                return
            if not self._due(entry):
                return
        if entry.get("crash"):
            log.critical("injected crash at %s", site)
            os.kill(os.getpid(), signal.SIGKILL)
        if entry.get("slow"):
            log.warning("injected slow reading of %s s at %s", entry["slow"], site)
            read_slowly(float(entry["slow"]))
        if entry.get("hang"):
            log.warning("injected hang of %s s at %s", entry["hang"], site)
            time.sleep(float(entry["hang"]))
        if (entry.get("hang") or entry.get("slow")) and "errno" not in entry:
            return
        code = getattr(errno, str(entry.get("errno", "EIO")), errno.EIO)
        raise OSError(code, f"{os.strerror(code)} (injected at {site})")

    def _due(self, entry: dict) -> bool:
        until = entry.get("until")
        if until is not None and time.time() >= float(until):
            return False
        times = entry.get("times")
        if times is not None:
            if times <= 0:
                return False
            entry["times"] = times - 1
        return True

    def _refresh(self) -> None:
        assert self.plan is not None
        try:
            st = self.plan.stat()
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)  # a replaced plan is a new inode
            if stamp == self._stamp:
                return
            entries = load_record(self.plan)
        except (OSError, ValueError):
            entries, stamp = {}, None  # no plan (yet), or half-written: nothing fails
        self._stamp = stamp
        self._entries = {k: dict(v) for k, v in entries.items() if isinstance(v, dict)}


def read_slowly(seconds: float, chunk: int = 64 * 1024, pause_s: float = 0.05) -> None:
    """Read zeros for `seconds`, `chunk` bytes at a time with a pause between: a disk giving
    about 1.3 MB/s, at next to no CPU."""
    end = time.monotonic() + seconds
    with open("/dev/zero", "rb", buffering=0) as zeros:
        while time.monotonic() < end:
            zeros.read(chunk)
            time.sleep(pause_s)


def write_plan(path: Path, plan: Mapping[str, Mapping]) -> None:
    """Replace the plan atomically, so the daemon never reads half of it (tests use this)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(plan))
    os.replace(tmp, path)
