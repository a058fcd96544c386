"""The cache index in SQLite: per entry its size, checksum, use and pin, plus hit counters
and the phrases the premium voice could not render.

WAL mode with `synchronous=NORMAL`: readers never wait for a writer and a commit costs no
fsync. A power cut may lose the last commits; the files carry their own metadata, so the
entries those commits described are adopted again (see `PhraseCache.reconcile`).
One connection per index, shared between threads under a lock; every statement is short.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from cosyedge.speech.cache.entry import DamagedEntry, checksum

SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY,
    voice TEXT NOT NULL,
    lang TEXT NOT NULL,
    text TEXT NOT NULL,
    size INTEGER NOT NULL,
    crc INTEGER NOT NULL,
    sample_rate INTEGER NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0,
    last_used REAL NOT NULL,
    created REAL NOT NULL,
    pinned INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entries_lru ON entries (pinned, last_used);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS premium_failed (
    key TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    at REAL NOT NULL
) WITHOUT ROWID;
"""


class IndexCorrupt(Exception):
    """The index file is not a usable SQLite database."""


@dataclass(frozen=True)
class Row:
    """One entry of the cache's index, as the file it names was written."""

    key: str
    voice: str
    lang: str
    text: str
    size: int
    crc: int
    sample_rate: int
    hits: int = 0
    last_used: float = 0.0
    created: float = 0.0
    pinned: bool = False

    def check(self, data: bytes) -> None:
        """Raise DamagedEntry when `data`, an entry's file read whole, is not what this row
        says of it (its size, then its CRC-32)."""
        if len(data) != self.size:
            kind = "empty" if not data else "truncated" if len(data) < self.size else "corrupt"
            raise DamagedEntry(kind, f"is {len(data)} bytes, index says {self.size}")
        if checksum(data) != self.crc:
            raise DamagedEntry("corrupt", "checksum differs from the index")


@dataclass(frozen=True)
class Totals:
    """The cache's size and hit counts, as `cache stats` gives them."""

    entries: int
    bytes: int
    pinned: int
    pinned_bytes: int
    lookups: int  # counted since the cache was made, across restarts
    hits: int

    @property
    def hit_rate(self) -> float | None:
        return hit_rate(self.lookups, self.hits)


def hit_rate(lookups: int, hits: int) -> float | None:
    """The share of lookups that found their phrase, from 0 to 1 (the one formula the status,
    the metrics and `cache stats` show); None before the first lookup. Counters out of step
    (an index written by another version, or edited) never give a rate outside 0-1."""
    if lookups <= 0:
        return None
    return min(1.0, max(0, hits) / lookups)


def misses(lookups: int, hits: int) -> int:
    """Lookups that found nothing (never negative, whatever the counters hold)."""
    return max(0, lookups - max(0, hits))


_COLUMNS = "key, voice, lang, text, size, crc, sample_rate, hits, last_used, created, pinned"


def _row(found: tuple) -> Row:
    """A Row from a result in _COLUMNS order (SQLite keeps `pinned` as 0 or 1)."""
    return Row(*found[:10], bool(found[10]))


class Index:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.created = not path.exists()
        # Made 0600 before SQLite opens it (its -wal and -shm files copy the permissions), and
        # opened for writing first: SQLite would quietly fall back to read-only (OSError here).
        os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
        self._lock = threading.Lock()
        db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            (verdict,) = db.execute("PRAGMA quick_check").fetchone()
            if verdict == "ok":
                db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            db.close()
            if isinstance(exc, sqlite3.OperationalError):
                raise  # cannot open or write (read-only, disk full, locked): not corruption
            raise IndexCorrupt(f"{path}: {exc}") from None
        if verdict != "ok":
            db.close()
            raise IndexCorrupt(f"{path}: {verdict}")
        self._db = db

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield
            except BaseException:
                with contextlib.suppress(sqlite3.Error):  # SQLite may have rolled back itself
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def lookup(self, key: str) -> Row | None:
        with self._lock:
            found = self._db.execute(
                f"SELECT {_COLUMNS} FROM entries WHERE key = ?", (key,)
            ).fetchone()
        return _row(found) if found else None

    def add(self, row: Row) -> None:
        self.add_many([row])

    def add_many(self, rows: Iterable[Row]) -> None:
        with self._transaction():
            self._db.executemany(
                f"INSERT OR REPLACE INTO entries ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (dataclasses.astuple(r) for r in rows),  # fields in _COLUMNS order
            )

    def remove(self, keys: Iterable[str]) -> None:
        with self._lock:
            self._db.executemany("DELETE FROM entries WHERE key = ?", ((k,) for k in keys))

    def record_usage(self, usage: dict[str, tuple[int, float]], lookups: int, hits: int) -> None:
        with self._transaction():
            self._db.executemany(
                "UPDATE entries SET hits = hits + ?, last_used = max(last_used, ?) WHERE key = ?",
                ((n, last, key) for key, (n, last) in usage.items()),
            )
            self._db.executemany(
                "INSERT INTO counters (name, value) VALUES (?, ?) "
                "ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
                [("lookups", lookups), ("hits", hits)],
            )

    def set_pins(self, keys: Iterable[str]) -> int:
        """Pin exactly these keys (those present); everything else becomes evictable."""
        with self._transaction():
            self._db.execute("CREATE TEMP TABLE IF NOT EXISTS wanted (key TEXT PRIMARY KEY)")
            self._db.execute("DELETE FROM wanted")
            self._db.executemany("INSERT OR IGNORE INTO wanted VALUES (?)", ((k,) for k in keys))
            self._db.execute(
                "UPDATE entries SET pinned = (key IN (SELECT key FROM wanted)) "
                "WHERE pinned != (key IN (SELECT key FROM wanted))"
            )
            (count,) = self._db.execute("SELECT count(*) FROM entries WHERE pinned").fetchone()
        return count

    def totals(self) -> Totals:
        with self._lock:
            entries, size, pinned, pinned_size = self._db.execute(
                "SELECT count(*), coalesce(sum(size), 0), coalesce(sum(pinned), 0), "
                "coalesce(sum(size * pinned), 0) FROM entries"
            ).fetchone()
            counters = dict(self._db.execute("SELECT name, value FROM counters").fetchall())
        return Totals(
            entries, size, pinned, pinned_size, counters.get("lookups", 0), counters.get("hits", 0)
        )

    def least_recently_used(self, limit: int) -> list[tuple[str, int]]:
        """Unpinned entries, least recently used first, as (key, size)."""
        with self._lock:
            return self._db.execute(
                "SELECT key, size FROM entries WHERE pinned = 0 ORDER BY last_used, created "
                "LIMIT ?",
                (limit,),
            ).fetchall()

    def rows(self, batch: int = 1000) -> Iterator[Row]:
        """Every entry, fetched in key order a batch at a time so the lock is held briefly."""
        after = ""
        while True:
            with self._lock:
                found = self._db.execute(
                    f"SELECT {_COLUMNS} FROM entries WHERE key > ? ORDER BY key LIMIT ?",
                    (after, batch),
                ).fetchall()
            if not found:
                return
            yield from map(_row, found)
            after = found[-1][0]

    def frequent(self, voice: str, min_hits: int) -> list[Row]:
        """Entries of `voice` served at least `min_hits` times, the most served first."""
        with self._lock:
            found = self._db.execute(
                f"SELECT {_COLUMNS} FROM entries WHERE voice = ? AND hits >= ? "
                "ORDER BY hits DESC, key",
                (voice, min_hits),
            ).fetchall()
        return [_row(r) for r in found]

    def mark_failed(self, key: str, reason: str, at: float) -> None:
        """Record that the premium voice could not render the phrase cached under `key`."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO premium_failed (key, reason, at) VALUES (?, ?, ?)",
                (key, reason, at),
            )

    def failed(self) -> dict[str, str]:
        """Premium keys whose rendering failed, with the reason."""
        with self._lock:
            return dict(self._db.execute("SELECT key, reason FROM premium_failed").fetchall())

    def keys(self) -> set[str]:
        with self._lock:
            return {k for (k,) in self._db.execute("SELECT key FROM entries")}
