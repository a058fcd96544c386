"""The journal: an append-only, fsynced record of accepted messages and their outcomes.

A message is acknowledged to the broker only once it is on disk, so after `kill -9` every
alert is either still queued at the broker (not yet acknowledged) or in the journal (accepted,
no outcome yet), and is handled again at the next start. A writer thread commits in groups:
paho's network thread never waits for the disk, and one fsync covers a burst of messages.

Lines are JSON: `in` (a message accepted), `out` (its outcome and the reports that tell it),
`sent` (the broker confirmed those reports), `seen` (an id recently handled, to recognise a
redelivery) and `next` (the next sequence number). Alarm state that must outlive a restart is
kept too: `shelf` (a source shelved until a time, or no longer) and `alarm` (a spoken alarm
still unacknowledged: its message and when it is due again, or `end` once it is settled).
When the file grows past a limit it is rewritten with only what is still open.
"""

from __future__ import annotations

import base64
import fcntl
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

COMPACT_BYTES = 1 << 20


@dataclass(frozen=True)
class Pending:
    """An accepted message with no outcome yet."""

    seq: int
    topic: str
    payload: bytes
    received: float  # wall clock


@dataclass(frozen=True)
class Unsent:
    """An outcome whose reports the broker may not have received."""

    seq: int
    messages: list[tuple[str, str]]  # (topic, payload)


@dataclass(frozen=True)
class Seen:
    key: str
    received: float
    topic: str


@dataclass(frozen=True)
class Unacknowledged:
    """A spoken alarm that was still re-announced when the last run ended."""

    key: str
    seq: int
    topic: str
    payload: bytes
    received: float  # wall clock
    due: float  # wall clock: its next re-announcement


@dataclass
class Recovered:
    pending: list[Pending] = field(default_factory=list)
    unsent: list[Unsent] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    shelved: dict[str, float] = field(default_factory=dict)  # topic filter -> until, wall clock
    unacknowledged: list[Unacknowledged] = field(default_factory=list)


@dataclass
class _Record:
    record: dict | None  # None: nothing to write, only `then` to run once the rest is written
    line: bytes
    then: Callable[[], None] | None = None


class Journal:
    def __init__(self, path: Path, keep_seen_s: float, compact_bytes: int = COMPACT_BYTES) -> None:
        self.path = path
        self.keep_seen_s = keep_seen_s
        self.compact_bytes = compact_bytes
        self._lock = threading.Condition()
        self._queue: list[_Record] = []
        self._stopping = False
        self._fd = -1
        self._lock_fd = -1
        self._next_seq = 1
        # What is still open, to rewrite the file from; touched by the writer thread only.
        self._pending: dict[int, dict] = {}
        self._unsent: dict[int, dict] = {}
        self._seen: dict[str, dict] = {}
        self._shelved: dict[str, float] = {}
        self._alarms: dict[str, dict] = {}
        self._writer: threading.Thread | None = None
        self.on_error: Callable[[str], None] | None = None  # e.g. publish on the error topic

    # -- start-up -------------------------------------------------------------------------
    def open(self) -> Recovered:
        """Read what a previous run left, compact it, and start the writer."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock_fd = os.open(
            self.path.with_suffix(".lock"), os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600
        )
        try:  # two daemons on one journal would speak each other's alerts
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._lock_fd)
            raise RuntimeError(
                f"state_dir {self.path.parent}: another cosyedge is using it (journal locked)"
            ) from None
        if self.path.exists():
            self._read()
        recovered = Recovered(
            pending=[
                Pending(s, r["topic"], base64.b64decode(r["payload"]), r["at"])
                for s, r in sorted(self._pending.items())
            ],
            unsent=[
                Unsent(s, [(t, p) for t, p in r["send"]]) for s, r in sorted(self._unsent.items())
            ],
            seen=[Seen(k, r["at"], r["topic"]) for k, r in self._seen.items()],
            shelved={p: t for p, t in self._shelved.items() if t > time.time()},
            unacknowledged=[
                Unacknowledged(
                    k, r["seq"], r["topic"], base64.b64decode(r["payload"]), r["at"], r["due"]
                )
                for k, r in self._alarms.items()
            ],
        )
        self._compact()
        self._writer = threading.Thread(target=self._write_forever, name="journal", daemon=True)
        self._writer.start()
        return recovered

    def _read(self) -> None:
        with self.path.open("rb") as f:
            lines = f.read().splitlines()
        for number, raw in enumerate(lines, 1):
            try:
                record = json.loads(raw)
                self._apply(record)
            except (ValueError, KeyError, TypeError) as exc:
                # A torn last line is what a crash mid-write leaves; anything else is damage.
                level = logging.INFO if number == len(lines) else logging.WARNING
                log.log(level, "journal %s: line %d unreadable (%s)", self.path, number, exc)

    # -- appending (any thread) -----------------------------------------------------------
    def accept(
        self, topic: str, payload: bytes, received: float, then: Callable[[], None] | None = None
    ) -> int:
        """Record an accepted message; `then` runs once it is on disk (the broker ack)."""
        with self._lock:
            seq = self._next_seq
            self._next_seq += 1
            record = {
                "in": seq,
                "at": round(received, 3),
                "topic": topic,
                "payload": base64.b64encode(payload).decode("ascii"),
            }
            self._enqueue(record, then)
        return seq

    def close(
        self, seq: int, key: str | None, topic: str, received: float, send: list[tuple[str, str]]
    ) -> None:
        """The outcome of `seq` is decided; `send` are the reports that tell it."""
        record = {"out": seq, "key": key, "topic": topic, "at": round(received, 3), "send": send}
        with self._lock:
            self._enqueue(record, None)

    def sent(self, seq: int) -> None:
        with self._lock:
            self._enqueue({"sent": seq}, None)

    def shelf(self, pattern: str, until: float | None) -> None:
        """A source shelved until `until` (wall clock), or, with None, no longer."""
        with self._lock:
            self._enqueue({"shelf": pattern, "until": until}, None)

    def alarm(
        self, key: str, seq: int, topic: str, payload: bytes, received: float, due: float
    ) -> None:
        """A spoken alarm awaits acknowledgement; it is due again at `due` (wall clock)."""
        record = {
            "alarm": key,
            "seq": seq,
            "topic": topic,
            "payload": base64.b64encode(payload).decode("ascii"),
            "at": round(received, 3),
            "due": round(due, 3),
        }
        with self._lock:
            self._enqueue(record, None)

    def alarm_ended(self, key: str) -> None:
        """Acknowledged, cleared, silenced or expired: not to be taken up after a restart."""
        with self._lock:
            self._enqueue({"alarm": key, "end": True}, None)

    def when_written(self, then: Callable[[], None]) -> None:
        """Run `then` once everything recorded so far is on disk: a command's broker ack waits
        for the shelf or alarm records the command changed."""
        with self._lock:
            self._queue.append(_Record(None, b"", then))
            self._lock.notify()

    def _enqueue(self, record: dict, then: Callable[[], None] | None) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        self._queue.append(_Record(record, line, then))
        self._lock.notify()

    def unsaid(self) -> int:
        """Accepted messages without an outcome; exact once stopped."""
        return len(self._pending)

    def stop(self) -> None:
        with self._lock:
            self._stopping = True
            self._lock.notify()
        if self._writer is not None:
            self._writer.join(timeout=10)
        for fd in (self._fd, self._lock_fd):
            if fd >= 0:
                os.close(fd)
        self._fd = self._lock_fd = -1

    # -- the writer thread ----------------------------------------------------------------
    def _write_forever(self) -> None:
        while True:
            with self._lock:
                while not self._queue and not self._stopping:
                    self._lock.wait()
                batch, self._queue = self._queue, []
                if not batch:
                    return
            try:
                os.write(self._fd, b"".join(r.line for r in batch))
                os.fdatasync(self._fd)
            except OSError as exc:
                # The broker keeps what we could not record: no ack, so it is redelivered.
                problem = f"journal {self.path}: cannot write ({exc}); alerts not acknowledged"
                log.error("%s", problem)
                if self.on_error is not None:
                    self.on_error(problem)
                continue
            for r in batch:
                if r.record is not None:
                    self._apply(r.record)
                if r.then is not None:
                    r.then()
            try:
                if os.fstat(self._fd).st_size > self.compact_bytes:
                    self._compact()
            except OSError as exc:
                log.error("journal %s: cannot compact (%s)", self.path, exc)

    def _apply(self, record: dict) -> None:
        if "in" in record:
            seq = int(record["in"])
            self._pending[seq] = record
            self._next_seq = max(self._next_seq, seq + 1)
        elif "out" in record:
            seq = int(record["out"])
            self._pending.pop(seq, None)
            self._unsent[seq] = record
            if record.get("key"):
                self._seen[record["key"]] = {"at": record["at"], "topic": record["topic"]}
        elif "sent" in record:
            self._unsent.pop(int(record["sent"]), None)
        elif "seen" in record:
            self._seen[record["seen"]] = {"at": record["at"], "topic": record["topic"]}
        elif "shelf" in record:
            if record["until"] is None:
                self._shelved.pop(record["shelf"], None)
            else:
                self._shelved[record["shelf"]] = float(record["until"])
        elif "alarm" in record:
            if record.get("end"):
                self._alarms.pop(record["alarm"], None)
            else:
                self._alarms[record["alarm"]] = record
        elif "next" in record:
            self._next_seq = max(self._next_seq, int(record["next"]))
        else:
            raise KeyError("no record type")

    def _compact(self) -> None:
        """Rewrite the file with only what is still open; atomic, so a crash keeps one or other."""
        horizon = time.time() - self.keep_seen_s
        self._seen = {k: r for k, r in self._seen.items() if r["at"] > horizon}
        with self._lock:
            records = [{"next": self._next_seq}]
        records += [{"seen": k, **r} for k, r in self._seen.items()]
        self._shelved = {p: t for p, t in self._shelved.items() if t > time.time()}
        records += [{"shelf": p, "until": t} for p, t in self._shelved.items()]
        records += list(self._alarms.values())
        records += list(self._pending.values()) + list(self._unsent.values())
        data = b"".join(
            json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
            for r in records
        )
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".journal-")
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
        directory = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        if self._fd >= 0:
            os.close(self._fd)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
