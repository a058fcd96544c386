"""The journal on disk: `Journal` reads what the last run left, appends what this run accepts
on a writer thread of its own, and rewrites itself when it grows (see the package)."""

from __future__ import annotations

import base64
import errno
import fcntl
import json
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from cosyedge.faults import Faults
from cosyedge.journal.files import bounded_lines, os_problem, replace_file, same_file
from cosyedge.journal.records import (
    MAX_SEQ,
    Damaged,
    Recovered,
    check_record,
    damaged_line,
    line_of,
    payload_hash,
    recovered_from,
)
from cosyedge.observe import Observer
from cosyedge.regular import read_record, regular_only, set_aside

log = logging.getLogger("cosyedge.journal")

COMPACT_BYTES = 1 << 20
# The longest line a record can be (a message of `mqtt.max_payload_bytes`, at most 1 MiB, in
# base64, and its fields): a longer one is damaged, and is not read whole into memory.
MAX_LINE = 4 << 20
# Larger than any journal this writes (it is compacted past COMPACT_BYTES to what is still
# open): set aside unread, not scanned for minutes at every start.
JOURNAL_MAX = 1 << 30
SEQ_BLOCK = 1000  # sequence numbers reserved at a time in the high-water mark file
RETRY_MIN_S, RETRY_MAX_S = 0.1, 5.0  # backoff of the writer while the disk fails
MAX_TRIES = 3  # starts in a row at which one message was being spoken when the daemon died
HEARD_TOPICS = 4096  # topics whose last payloads are remembered for retained messages
HEARD_PER_TOPIC = 4
# How often the idle writer looks whether its file is still the journal (not removed or
# replaced): what is open is on disk again within this, though nothing was written meanwhile.
WATCH_S = 1.0


class Beat(Protocol):
    def beat(self) -> None: ...
    def rest(self) -> None: ...


@dataclass
class _Record:
    record: dict | None  # None: nothing to write, only `then` to run once the rest is written
    line: bytes
    then: Callable[[], None] | None = None


class Journal:
    def __init__(
        self,
        path: Path,
        keep_seen_s: float,
        compact_bytes: int = COMPACT_BYTES,
        faults: Faults | None = None,
        beat: Beat | None = None,
        observer: Observer | None = None,
    ) -> None:
        """`beat`: the watchdog's view of the writer. `observer` is told each fdatasync's
        seconds, and `trouble("journal", ...)` while writing fails and once it works again."""
        self.path = path
        self.quarantine_path = path.with_name("quarantine.jsonl")
        self.keep_seen_s = keep_seen_s
        self.compact_bytes = compact_bytes
        self.faults = faults or Faults()
        self._lock = threading.Condition()
        self._queue: list[_Record] = []
        self._stopping = False
        self._fd = -1
        self._lock_fd = -1
        self._next_seq = 1
        self._seq_mark = 0  # sequence numbers below this are reserved on disk
        self._heard: OrderedDict[str, list[str]] = OrderedDict()  # topic -> payload hashes
        # What is still open, to rewrite the file from; touched by the writer thread only.
        self._pending: dict[int, dict] = {}
        self._unsent: dict[int, dict] = {}
        self._seen: dict[str, dict] = {}
        self._shelved: dict[str, float] = {}
        self._alarms: dict[str, dict] = {}
        # While writes fail: why, when to try again, and the acks waiting for the disk.
        self._failing: str | None = None
        self._retry_s = RETRY_MIN_S
        self._held: list[Callable[[], None]] = []
        self._compact_failing = self._mark_failing = False  # told once while they fail
        self._writer: threading.Thread | None = None
        self.beat = beat
        self.observer = observer or Observer()

    # -- start-up -------------------------------------------------------------------------
    def open(self) -> Recovered:
        """Read what a previous run left, compact it, and start the writer.

        Raises RuntimeError when the state dir cannot be used at all (another daemon holds
        it, or it cannot be read); a disk that only refuses writes starts the writer in its
        retrying state instead, so alerts are still heard."""
        self._lock_state_dir()
        self._aside(self.path.with_suffix(".seq"))
        mark = self._read_seq_mark()
        self._aside(self.path, JOURNAL_MAX)
        damaged: list[Damaged] = []
        try:
            read = self._read(damaged) if self.path.exists() else 0
        except OSError as exc:
            raise RuntimeError(f"state_dir: cannot read the journal {self.path}: {exc}") from None
        if read == 0 or damaged:  # what the journal says of its numbers may be gone
            self._next_seq = max(self._next_seq, mark)
        recovered = self._recovered(damaged)
        if read == 0 and mark > 1:
            recovered.lost = (
                f"journal {self.path} is empty or missing, though earlier runs numbered "
                f"messages (high-water mark {mark}): what the last run left unsaid or unsent, "
                "and its shelves and unacknowledged alarms, are lost"
            )
            log.warning("%s", recovered.lost)
        try:
            self._compact()
        except OSError as exc:
            self._fail(exc)
        with self._lock:
            self._reserve(self._next_seq)
        self._writer = threading.Thread(target=self._write_forever, name="journal", daemon=True)
        self._writer.start()
        return recovered

    def _aside(self, path: Path, max_bytes: int | None = None) -> None:
        """`set_aside` what is at `path` when the journal cannot use it (a FIFO blocked every
        start for good, a directory or a dangling link ended it); RuntimeError when it can
        be neither used nor set aside."""
        try:
            moved = set_aside(path, max_bytes)
        except OSError as exc:
            raise RuntimeError(f"state_dir: cannot set {path} aside: {os_problem(exc)}") from None
        if moved is not None:
            log.error("journal %s: %s", self.path, moved)

    def _lock_state_dir(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._aside(self.path.with_suffix(".lock"))
            self._lock_fd = self._lock_file()
        except OSError as exc:
            raise RuntimeError(f"state_dir: cannot keep the alert journal there: {exc}") from None
        try:  # two daemons on one journal would speak each other's alerts
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._lock_fd)
            raise RuntimeError(
                f"state_dir {self.path.parent}: another cosyedge is using it (journal locked)"
            ) from None

    def _lock_file(self) -> int:
        """What the lock is taken on: `journal.lock`, opened for reading (a lock needs no
        more), so a read-only state_dir is held too; where the disk has no room for it or is
        read-only, the directory itself, as a daemon that cannot make it either takes it.
        Raises OSError for anything else (a lock file it may not read)."""
        lock = self.path.with_suffix(".lock")
        try:
            return regular_only(str(lock), os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EROFS, errno.EDQUOT):
                raise
            log.warning(
                "journal %s: cannot make %s (%s): locking the directory",
                self.path,
                lock.name,
                os_problem(exc),
            )
            return os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)

    def _recovered(self, damaged: list[Damaged]) -> Recovered:
        """What the records read say; they were all checked, so nothing here can fail."""
        state = (self._pending, self._unsent, self._seen, self._shelved, self._alarms)
        return recovered_from(*state, damaged)

    def _read(self, damaged: list[Damaged]) -> int:
        """Apply every valid line; returns how many there were."""
        with open(self.path, "rb", opener=regular_only) as f:
            lines = list(bounded_lines(f, MAX_LINE))
        good = 0
        found: list[Damaged] = []
        outs: set[int] = set()
        for number, raw in enumerate(lines, 1):
            record = None
            try:
                record = json.loads(raw)
                check_record(record)
            except (ValueError, RecursionError) as exc:
                reason = str(exc) if isinstance(exc, ValueError) else "nested too deeply"
                if len(raw) > MAX_LINE:
                    reason = f"longer than a record can be ({MAX_LINE} bytes)"
                elif number == len(lines) and record is None:  # a crash mid-write tears it
                    reason = f"last line incomplete, torn by a crash mid-write ({reason})"
                log.warning("journal %s: line %d damaged (%s)", self.path, number, reason[:200])
                found.append(damaged_line(number, reason[:200], record, raw))
                self._keep_aside(raw, number, reason)
                continue
            self._apply(record)
            if "out" in record:
                outs.add(record["out"])
            if "in" in record:  # accept() hears what arrives while running
                self._hear(record["topic"], payload_hash(base64.b64decode(record["payload"])))
            good += 1
        for d in found:  # a message whose outcome the file holds after all is not open
            if d.seq is not None and (d.seq in outs or d.seq in self._pending):
                d = Damaged(d.line, d.reason)
            elif d.seq is not None:
                outs.add(d.seq)  # one outcome for it, however many of its lines are damaged
                self._next_seq = max(self._next_seq, d.seq + 1)
            damaged.append(d)
        return good

    def _keep_aside(self, raw: bytes, number: int, reason: str) -> None:
        raw64 = base64.b64encode(raw[:65536]).decode("ascii")
        self.quarantine("damaged journal line", journal_line=number, reason=reason[:200], raw=raw64)

    def quarantine(self, what: str, **detail: Any) -> bool:
        """Keep something aside for an engineer to look at; False when that failed (logged)."""
        entry = {"at": round(time.time(), 3), "what": what, **detail}
        try:
            self.faults.check("quarantine.write")
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
            fd = regular_only(str(self.quarantine_path), flags, 0o600)
            try:
                os.write(fd, line_of(entry))
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            log.error("cannot keep %s aside in %s: %s", what, self.quarantine_path, exc)
            return False
        return True

    # -- the sequence number high-water mark ------------------------------------------------
    def _read_seq_mark(self) -> int:
        path = self.path.with_suffix(".seq")
        try:
            text = read_record(path).decode("utf-8", "replace")
        except FileNotFoundError:
            return 0
        except OSError as exc:
            log.warning("journal %s: cannot read (%s)", path, exc)
            return 0
        if not text.strip().isdigit() or not 0 < int(text) < MAX_SEQ:
            log.warning("journal %s: damaged high-water mark %r, not used", path, text[:40])
            return 0
        return int(text)

    def _reserve(self, seq: int) -> None:
        """Keep `seq` below the mark on disk (under the lock); a failure is logged and the
        numbering goes on: the mark only guards against losing the journal."""
        if seq < self._seq_mark:
            return
        mark = seq + SEQ_BLOCK
        try:
            self.faults.check("journal.seq")
            replace_file(self.path.with_suffix(".seq"), str(mark).encode())
        except OSError as exc:
            if not self._mark_failing:  # once, not at every message while it lasts
                log.error("journal: cannot save the sequence high-water mark (%s)", exc)
            self._mark_failing = True
            return
        self._seq_mark, self._mark_failing = mark, False

    # -- appending (any thread) -----------------------------------------------------------
    def accept(
        self,
        topic: str,
        payload: bytes,
        received: float,
        then: Callable[[], None] | None = None,
        again: bool = False,
        said: dict[str, Any] | None = None,
    ) -> int:
        """Record an accepted message; `then` runs once it is on disk (the broker ack).
        `again`: a retained message heard before, whose outcome is known in advance; `said`:
        what reading it decided (records.py `said_valid`), which a restart keeps to."""
        with self._lock:
            seq = self._next_seq
            self._next_seq += 1
            self._reserve(seq)
            self._hear(topic, payload_hash(payload))
            record = {
                "in": seq,
                "at": round(received, 3),
                "topic": topic,
                "payload": base64.b64encode(payload).decode("ascii"),
            }
            if again:
                record["again"] = True
            if said is not None:
                record["said"] = said
            self._enqueue(record, then)
        return seq

    def heard(self, topic: str, payload: bytes) -> bool:
        """Whether this very payload was among the last ones accepted on `topic`."""
        with self._lock:
            return payload_hash(payload) in self._heard.get(topic, ())

    def _hear(self, topic: str, digest: str) -> None:
        hashes = [h for h in self._heard.pop(topic, []) if h != digest]
        self._heard[topic] = [*hashes, digest][-HEARD_PER_TOPIC:]
        while len(self._heard) > HEARD_TOPICS:
            self._heard.popitem(last=False)

    def close(
        self,
        seq: int,
        key: str | None,
        topic: str,
        received: float,
        send: list[tuple[str, str]],
        then: Callable[[], None] | None = None,
    ) -> None:
        """The outcome of `seq` is decided; `send` are the reports that tell it. `then` runs
        once that is on disk (on the writer thread, in the order of the records), or at once
        while the journal cannot write: nothing reaches the disk then, and the reports are
        what shows that alerts are still spoken (the fault `journal` says the rest)."""
        record = {"out": seq, "key": key, "topic": topic, "at": round(received, 3), "send": send}
        with self._lock:
            failing = self._failing is not None
            self._enqueue(record, None if failing else then)
        if failing and then is not None:
            then()

    def sent(self, seq: int) -> None:
        with self._lock:
            self._enqueue({"sent": seq}, None)

    def tried(self, seqs: list[int]) -> None:
        """The announcer began to speak these: a crash now counts against them."""
        with self._lock:
            self._enqueue({"try": seqs}, None)

    def zone_told(self, seq: int, zone: str, told: dict[str, Any]) -> None:
        """With zones: `zone` told its outcome of `seq` (`told`: its kind and times) while
        other zones still owe theirs; a start then says `seq` only where it is owed."""
        with self._lock:
            self._enqueue({"zoned": seq, "zone": zone, "told": told}, None)

    def shelf(self, pattern: str, until: float | None) -> None:
        """A source shelved until `until` (wall clock), or, with None, no longer."""
        with self._lock:
            self._enqueue({"shelf": pattern, "until": until}, None)

    def alarm(
        self,
        key: str,
        seq: int,
        topic: str,
        payload: bytes,
        received: float,
        due: float,
        cleared: bool = False,
    ) -> None:
        """A spoken alarm awaits acknowledgement; it is due again at `due` (wall clock), or,
        `cleared` (returned to normal), it awaits confirmation and is not said again."""
        record = {
            "alarm": key,
            "seq": seq,
            "topic": topic,
            "payload": base64.b64encode(payload).decode("ascii"),
            "at": round(received, 3),
            "due": round(due, 3),
            **({"cleared": True} if cleared else {}),
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
        self._queue.append(_Record(record, line_of(record), then))
        self._lock.notify()

    def flush(self, timeout: float) -> bool:
        """Wait at most `timeout` s until everything recorded so far is on disk, and the broker
        acks waiting on it were given: a stop calls it before the session closes, so what was
        taken in just before is not delivered again at the next start. False if not in time,
        and at once when stopped: its writer wrote what it had before it ended."""
        if self._stopping:
            return False
        written = threading.Event()
        self.when_written(written.set)
        return written.wait(timeout)

    def unsaid(self) -> int:
        """Accepted messages without an outcome; exact once stopped."""
        return len(self._pending)

    @property
    def trouble(self) -> str | None:
        """Why records are not reaching the disk, while they are not."""
        return self._failing

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
                if not (self._queue or self._stopping or self._failing):
                    if self.beat is not None:
                        self.beat.rest()
                    self._lock.wait(WATCH_S)  # also idle, its file is looked at
                if self._failing and not (self._queue or self._stopping):
                    self._lock.wait(self._retry_s)  # new records wake it early: retry with them
                batch, self._queue = self._queue, []
                stopping = self._stopping
            if self.beat is not None:
                self.beat.beat()
            self._commit(batch)
            if stopping:
                if self._failing:
                    log.error("journal %s: stopped unwritten (%s)", self.path, self._failing)
                return

    def _commit(self, batch: list[_Record]) -> None:
        """Append the batch and run its acks; while appending fails, or once the file is no
        longer the journal, rewrite the whole file."""
        self._check_file()
        if not batch and not self._failing:
            return
        if not self._failing:
            try:
                self._append(b"".join(r.line for r in batch))
            except OSError as exc:
                self._fail(exc)
            else:
                self._settle(batch)
                self._compact_if_large()
                return
        for r in batch:  # in memory now, on disk with the next successful rewrite
            if r.record is not None:
                self._apply(r.record)
        self._held += [r.then for r in batch if r.then is not None]
        try:
            self._compact()
        except OSError as exc:
            self._fail(exc)
            return
        self._recover()

    def _check_file(self) -> None:
        """A file removed or replaced under the open journal (`rm -rf state_dir/*`) would take
        every later record with it: it is the fault `journal` until the file is made again
        with all that is open, and the sequence high-water mark is saved again with it."""
        lost = None if self._failing or self._fd < 0 else same_file(self._fd, self.path)
        if lost is None:
            return
        self._fail(OSError(errno.ENOENT, f"the file was {lost} while in use; making it again"))
        with self._lock:
            self._seq_mark = 0  # its file may be gone too
            self._reserve(self._next_seq)

    def _append(self, data: bytes) -> None:
        self.faults.check("journal.write")
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]
        self.faults.check("journal.fsync")
        started = time.perf_counter()
        os.fdatasync(self._fd)
        self.observer.synced(time.perf_counter() - started)

    def _settle(self, batch: list[_Record]) -> None:
        for r in batch:
            if r.record is not None:
                self._apply(r.record)
            if r.then is not None:
                r.then()

    def _fail(self, exc: OSError) -> None:
        """Writing failed: said once (log and the observer) when the trouble starts, however
        many retries fail and whatever each says, until `_recover` says it is over."""
        if self._failing is not None:
            self._retry_s = min(self._retry_s * 2, RETRY_MAX_S)
            log.debug("journal %s: still cannot write (%s)", self.path, exc)
            return
        problem = (
            f"journal {self.path}: cannot write ({os_problem(exc)}); "
            "alerts are spoken but not acknowledged"
        )
        log.error("%s; retrying", problem)
        self._failing = problem
        self.observer.trouble("journal", problem)

    def _recover(self) -> None:
        held, self._held = self._held, []
        log.warning("journal %s: writing again; %d acks sent", self.path, len(held))
        self._failing, self._retry_s = None, RETRY_MIN_S
        self.observer.trouble("journal", None)
        for then in held:
            then()

    def _compact_if_large(self) -> None:
        try:
            if os.fstat(self._fd).st_size > self.compact_bytes:
                self._compact()
        except OSError as exc:  # the appended records are safe; try again next time
            if not self._compact_failing:  # once, not at every commit while it lasts
                log.error("journal %s: cannot compact (%s)", self.path, exc)
            self._compact_failing = True
        else:
            self._compact_failing = False

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
        elif "heard" in record:
            for digest in record["hashes"][-HEARD_PER_TOPIC:]:
                self._hear(record["heard"], digest)
        elif "try" in record:
            for seq in record["try"]:
                if seq in self._pending:
                    pending = self._pending[seq]
                    pending["tries"] = pending.get("tries", 0) + 1
        elif "zoned" in record:
            pending = self._pending.get(int(record["zoned"]))
            if pending is not None:
                pending.setdefault("zones", {})[record["zone"]] = record["told"]
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

    def _compact(self) -> None:
        """Rewrite the file with only what is still open; atomic, so a crash keeps one or other."""
        horizon = time.time() - self.keep_seen_s
        self._seen = {k: r for k, r in self._seen.items() if r["at"] > horizon}
        with self._lock:
            records: list[dict] = [{"next": self._next_seq}]
            records += [{"heard": t, "hashes": h} for t, h in self._heard.items()]
        records += [{"seen": k, **r} for k, r in self._seen.items()]
        self._shelved = {p: t for p, t in self._shelved.items() if t > time.time()}
        records += [{"shelf": p, "until": t} for p, t in self._shelved.items()]
        records += list(self._alarms.values())
        records += list(self._pending.values()) + list(self._unsent.values())
        self.faults.check("journal.compact")
        replace_file(self.path, b"".join(line_of(r) for r in records))
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
