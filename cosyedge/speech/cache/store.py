"""The phrase cache: whole phrases as WAV files, checked on every read, bounded in size.

Entries are written to a temp file in their final directory, fsynced, renamed and the
directory fsynced, so a crash leaves a whole entry or none. Each read is checked against the
index (size and CRC-32 of the whole file); a damaged entry is removed, reported and so
synthesized again. Files the index does not know (lost index, crash between rename and
commit) are adopted after checking the CRC they carry. When the directory cannot be written
(disk full, read-only) the cache reports it once, speech goes on from synthesis alone, and
writing resumes by itself once it works again.

The cache deletes or replaces only files it can prove are its own: named as an entry
(`<2 hex>/<64 hex>.wav`) and either listed in the index or carrying a `cosy` chunk naming that
same key; temp files named as its own and holding nothing but the start of an entry. Anything
else in the directory is logged and left alone. The directory itself is kept 0700 (a
symlink's target too); one owned by another user is refused, as they could change what is
said.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cosyedge.faults import Faults
from cosyedge.observe import Observer
from cosyedge.regular import read_record
from cosyedge.speech.cache.entry import (
    Clip,
    DamagedEntry,
    checksum,
    claimed_key,
    decode,
    encode,
)
from cosyedge.speech.cache.files import (
    KEY,
    TEMP,
    Reconciled,
    entry_files,
    entry_key,
    fsync_dir,
    keep_private,
    remove_abandoned_temp,
    report_strangers,
    write_atomically,
)
from cosyedge.speech.cache.index import Index, IndexCorrupt, Row, Totals

if TYPE_CHECKING:
    from cosyedge.config.resources import CacheConfig

log = logging.getLogger("cosyedge.speech.cache")

INDEX_NAME = "index.sqlite3"
REOPEN_AFTER_S = 30.0
# The largest file an entry can be: the longest phrase `max_spoken_s` allows (600 s, said up to
# a third longer than estimated) as int16 at 48 kHz is 77 MB. A larger file where an entry
# should be is not one the cache wrote, and is not read whole into memory.
ENTRY_MAX = 128 << 20


@dataclass(frozen=True)
class CacheEvent:
    """Something an operator should hear about, e.g. on an MQTT error topic.

    kind: empty, truncated, corrupt, missing (an entry was damaged and removed), unwritable,
    writable (the cache works again) or index-rebuilt.
    """

    kind: str
    detail: str
    key: str | None = None


EventListener = Callable[[CacheEvent], None]
_LEVEL = {"writable": logging.INFO}


@dataclass(frozen=True)
class Limits:
    """How large the cache may grow: bytes, and entries if bounded."""

    max_bytes: int = 256 << 20
    max_entries: int | None = None


class PhraseCache:
    def _new_row(
        self, key: str, voice: str, lang: str, text: str, rate: int, data: bytes, at: float
    ) -> Row:
        """The index row of an entry file just written or adopted."""
        return Row(
            key,
            voice,
            lang,
            text,
            len(data),
            checksum(data),
            rate,
            last_used=at,
            created=at,
            pinned=key in self._pins,
        )

    @classmethod
    def from_config(
        cls, config: CacheConfig, faults: Faults | None = None, observer: Observer | None = None
    ) -> PhraseCache:
        max_bytes = int(config.max_mb * 1024 * 1024)
        limits = Limits(max_bytes, config.max_entries)
        return cls(config.dir, limits, faults=faults, observer=observer)

    def __init__(
        self,
        directory: Path,
        limits: Limits | None = None,
        on_event: EventListener | None = None,
        faults: Faults | None = None,
        observer: Observer | None = None,
    ) -> None:
        """`on_event` is told every event; `observer`, `trouble("cache", ...)` when the cache
        cannot be written and once it can again."""
        self.directory = directory
        self.faults = faults or Faults()
        self.limits = limits or Limits()
        self.on_event = on_event
        self.observer = observer or Observer()
        self.upkeep_wanted = threading.Event()  # set by put: eviction may be due
        self.evicted = 0  # entries evicted since start, for the metrics
        self._lock = threading.Lock()
        self._usage: dict[str, tuple[int, float]] = {}
        self._lookups = 0
        self._hits = 0
        self._pins: frozenset[str] = frozenset()
        self._unwritable = False
        self._pinned_over_limit = False
        self._strangers: set[Path] = set()  # files said to be left alone, said once each
        self._index: Index | None = None
        self._reopen_at = 0.0
        self._open()

    # -- the hot path --------------------------------------------------------------------
    def get(self, key: str, record: bool = True) -> Clip | None:
        """The phrase if a whole, verified entry exists; damaged entries are removed."""
        index = self._usable_index()
        row = self._lookup(index, key)
        path = self.path(key)
        try:
            self.faults.check("cache.read")
            data = read_record(path, ENTRY_MAX)
        except FileNotFoundError:
            if row is not None and self._lookup(index, key) is not None:
                self._discard(key, "missing", "indexed entry has no file")
            return self._count(key, None, record)
        except OSError as exc:
            log.warning("cannot read cache entry %s: %s", path, exc)
            return self._count(key, None, record)
        try:
            if row is not None:
                row.check(data)
                decoded = decode(data, verify_samples=False)
            else:
                decoded = decode(data)
                if decoded.meta.key != key:
                    raise DamagedEntry("corrupt", "file holds another entry")
                self._adopt(index, path, data, decoded.meta)
        except DamagedEntry as exc:
            self._damaged(key, data, row is not None, exc)
            return self._count(key, None, record)
        return self._count(key, Clip(decoded.meta.sample_rate, decoded.pcm), record)

    def get_any(self, keys: Sequence[str], record: bool = True) -> Clip | None:
        """The first of `keys` holding a whole entry (a premium rendering before the live
        voice's), counted as one lookup."""
        for key in keys:
            clip = self.get(key, record=False)
            if clip is not None:
                return self._count(key, clip, record)
        return self._count(keys[-1], None, record) if keys else None

    def contains(self, key: str) -> bool:
        """Whether the index lists the entry (unverified: `get` checks the file)."""
        return self._lookup(self._usable_index(), key) is not None

    def _count(self, key: str, clip: Clip | None, record: bool) -> Clip | None:
        if record:
            with self._lock:
                self._lookups += 1
                if clip is not None:
                    self._hits += 1
                    hits, _ = self._usage.get(key, (0, 0.0))
                    self._usage[key] = (hits + 1, time.time())
        return clip

    # -- writing -------------------------------------------------------------------------
    def put(self, key: str, clip: Clip, *, voice: str, lang: str, text: str) -> bool:
        """Store a whole phrase; False (reported once) when the cache cannot be written."""
        if not len(clip.pcm):
            return False  # an empty phrase is never a whole one
        data = encode(key, voice, lang, text, clip.sample_rate, clip.pcm)
        path = self.path(key)
        written = False
        try:
            index = self._usable_index(retry_now=True)
            if index is None:
                raise OSError(f"index {self.directory / INDEX_NAME} unavailable")
            if self._foreign(index, key, path):
                return False
            self._make_dir(path.parent)
            self.faults.check("cache.write")
            write_atomically(path, data)
            written = True
            now = time.time()
            index.add(self._new_row(key, voice, lang, text, clip.sample_rate, data, now))
        except (OSError, sqlite3.Error) as exc:
            if written:
                with contextlib.suppress(OSError):
                    path.unlink()
            if isinstance(exc, sqlite3.Error):
                self._drop_index()  # e.g. opened read-only: the next write reopens it
            self._cannot_write(exc)
            return False
        self._can_write()
        self.upkeep_wanted.set()
        return True

    def put_file(self, key: str, data: bytes, expect_voice: str) -> None:
        """Store an entry file made elsewhere (an import); raises DamagedEntry or OSError."""
        decoded = decode(data)
        if decoded.meta.key != key:
            raise DamagedEntry("corrupt", "file holds another entry")
        if decoded.meta.voice != expect_voice:
            raise DamagedEntry("corrupt", "file was made with another voice than listed")
        index = self._usable_index()
        if index is None:
            raise OSError(f"index {self.directory / INDEX_NAME} unavailable")
        path = self.path(key)
        if self._foreign(index, key, path):
            raise OSError(f"{path}: a file the cache did not write is in the way")
        self._make_dir(path.parent)
        write_atomically(path, data)
        meta = decoded.meta
        now = time.time()
        index.add(self._new_row(key, meta.voice, meta.lang, meta.text, meta.sample_rate, data, now))
        self.upkeep_wanted.set()

    def read_file(self, key: str) -> bytes | None:
        """An entry's verified bytes (for export), or None when absent or damaged."""
        if self.get(key, record=False) is None:
            return None
        try:
            return read_record(self.path(key), ENTRY_MAX)
        except OSError:
            return None

    def replaced(self, key: str) -> None:
        """Remove an entry another has replaced (the premium voice's rendering of its phrase);
        a file that is not provably the cache's own is left alone."""
        index = self._usable_index()
        if index is None or self._lookup(index, key) is None:
            return
        try:
            index.remove([key])  # the row first: a reader never sees a row without its file
            self._unlink_entry(key)
        except (OSError, sqlite3.Error) as exc:
            log.warning("cache entry %s not removed: %s", key[:12], exc)

    # -- upkeep: off the hot path -------------------------------------------------------------
    def flush_usage(self) -> None:
        with self._lock:
            usage, lookups, hits = self._usage, self._lookups, self._hits
            self._usage, self._lookups, self._hits = {}, 0, 0
        index = self._usable_index()
        if index is None or not (usage or lookups):
            return
        try:
            index.record_usage(usage, lookups, hits)
        except sqlite3.Error as exc:
            log.debug("usage not recorded: %s", exc)

    def evict(self) -> int:
        """Remove least-recently-used unpinned entries until within the limits."""
        self.upkeep_wanted.clear()
        index = self._usable_index()
        if index is None:
            return 0
        self.flush_usage()
        try:
            totals = index.totals()
            over_bytes = totals.bytes - self.limits.max_bytes
            over_count = totals.entries - (self.limits.max_entries or totals.entries)
            removed = 0
            while over_bytes > 0 or over_count > 0:
                victims = []
                for key, size in index.least_recently_used(256):
                    if over_bytes <= 0 and over_count <= 0:
                        break
                    victims.append(key)
                    over_bytes -= size
                    over_count -= 1
                if not victims:
                    self._pinned_exceed(totals)
                    break
                index.remove(victims)  # rows first: a reader never sees a row without file
                for key in victims:
                    self._unlink_entry(key)
                removed += len(victims)
        except (OSError, sqlite3.Error) as exc:
            log.warning("cache eviction stopped: %s", exc)
            return 0
        if removed:
            log.debug("evicted %d cache entries", removed)
            self.evicted += removed
        return removed

    def set_pins(self, keys: Iterable[str]) -> int:
        """Pin exactly these phrases (now and when written later); returns how many exist."""
        self._pins = frozenset(keys)
        index = self._usable_index()
        if index is None:
            return 0
        try:
            return index.set_pins(self._pins)
        except sqlite3.Error as exc:
            log.warning("cannot update pinned cache entries: %s", exc)
            return 0

    def reconcile(self) -> Reconciled:
        """Make index and files agree: adopt whole unindexed files, drop the rest."""
        index = self._usable_index()
        if index is None:
            return Reconciled()
        indexed = index.keys()
        seen: set[str] = set()
        adopted = damaged = temps = 0
        strangers: list[Path] = []
        files, complete = entry_files(self.directory)
        for path in files:
            if TEMP.match(path.name):
                outcome = remove_abandoned_temp(path)
                temps += outcome == "removed"
                if outcome == "left":
                    strangers.append(path)
                continue
            key = entry_key(path)
            if key is None:
                strangers.append(path)
                continue
            seen.add(key)
            if key in indexed:
                continue
            outcome = self._take_up(index, key, path)
            adopted += outcome == "adopted"
            damaged += outcome == "removed"
            if outcome == "left":
                strangers.append(path)
        missing = indexed - seen if complete else set()
        if missing:
            index.remove(missing)
            log.info("dropped %d cache index rows without a file", len(missing))
        report_strangers(self.directory, strangers)
        done = Reconciled(adopted, damaged, len(missing), temps, len(strangers))
        if adopted or damaged or temps:
            log.info("cache reconciled: %s", done)
        return done

    def _take_up(self, index: Index, key: str, path: Path) -> str:
        """An unindexed file named as an entry: adopted, removed (damaged, but provably an
        entry), left (not provably ours) or unread."""
        try:
            data = read_record(path, ENTRY_MAX)
        except OSError as exc:
            log.warning("cannot read cache file %s: %s", path, exc)
            return "unread"
        try:
            decoded = decode(data)
            if decoded.meta.key != key:
                raise DamagedEntry("corrupt", "file holds another entry")
        except DamagedEntry as exc:
            return "removed" if self._damaged(key, data, False, exc) else "left"
        self._adopt(index, path, data, decoded.meta)
        return "adopted"

    def stats(self) -> Totals | None:
        self.flush_usage()
        index = self._usable_index()
        return index.totals() if index else None

    def voices(self) -> dict[str, int]:
        index = self._usable_index()
        counts: dict[str, int] = {}
        for row in index.rows() if index else ():
            counts[row.voice] = counts.get(row.voice, 0) + 1
        return counts

    def frequent(self, voice: str, min_hits: int) -> list[Row]:
        """Entries of `voice` served at least `min_hits` times (usage flushed first)."""
        self.flush_usage()
        index = self._usable_index()
        try:
            return index.frequent(voice, min_hits) if index else []
        except sqlite3.Error as exc:
            log.warning("cache index query failed: %s", exc)
            return []

    def mark_failed(self, key: str, reason: str) -> None:
        index = self._usable_index()
        if index is not None:
            with contextlib.suppress(sqlite3.Error):
                index.mark_failed(key, reason, time.time())

    def failed(self) -> dict[str, str]:
        """Premium keys whose rendering failed, with why; empty when the index is unusable."""
        index = self._usable_index()
        try:
            return index.failed() if index else {}
        except sqlite3.Error:
            return {}

    def rows(self) -> Iterable[Row]:
        index = self._usable_index()
        return index.rows() if index else ()

    def close(self) -> None:
        self.flush_usage()
        if self._index is not None:
            self._index.close()
            self._index = None

    def path(self, key: str) -> Path:
        """Where an entry's file is; ValueError for anything but a key cache_key made."""
        if not KEY.match(key):
            raise ValueError(f"not a phrase cache key: {key!r}")
        return self.directory / key[:2] / f"{key}.wav"

    # -- internals --------------------------------------------------------------------
    def _open(self) -> None:
        path = self.directory / INDEX_NAME
        try:
            self._make_dir(self.directory, parents=True)
            keep_private(self.directory)
            try:
                index = Index(path)
            except IndexCorrupt as exc:
                for suffix in ("", "-wal", "-shm", "-journal"):
                    Path(f"{path}{suffix}").unlink(missing_ok=True)
                index = Index(path)
                self._report("index-rebuilt", f"index unreadable ({exc}); rebuilding from files")
        except (OSError, sqlite3.Error) as exc:
            self._reopen_at = time.monotonic() + REOPEN_AFTER_S
            self._cannot_write(exc)
            return
        self._index = index
        if index.created:
            self.reconcile()

    def _usable_index(self, retry_now: bool = False) -> Index | None:
        """The index, reopened when it failed before: at once for a write (a phrase was just
        synthesized anyway), at most every REOPEN_AFTER_S for a lookup."""
        if self._index is None and (retry_now or time.monotonic() >= self._reopen_at):
            self._open()
        return self._index

    def _drop_index(self) -> None:
        index, self._index = self._index, None
        self._reopen_at = time.monotonic() + REOPEN_AFTER_S
        if index is not None:
            with contextlib.suppress(sqlite3.Error):
                index.close()

    def _lookup(self, index: Index | None, key: str) -> Row | None:
        if index is None:
            return None
        try:
            return index.lookup(key)
        except sqlite3.Error as exc:
            log.warning("cache index lookup failed: %s", exc)
            return None

    def _adopt(self, index: Index | None, path: Path, data: bytes, meta) -> None:
        if index is None:
            return
        try:
            used = path.stat().st_mtime
            index.add(
                self._new_row(
                    meta.key, meta.voice, meta.lang, meta.text, meta.sample_rate, data, used
                )
            )
        except (OSError, sqlite3.Error) as exc:
            log.debug("cache entry %s not adopted: %s", path, exc)

    def _damaged(self, key: str, data: bytes, indexed: bool, exc: DamagedEntry) -> bool:
        """Remove a damaged file if it is provably an entry (indexed, or its `cosy` chunk
        names this key); else log and leave it. True when it was removed."""
        if indexed or claimed_key(data) == key:
            self._discard(key, exc.kind, str(exc))
            return True
        self._leave(self.path(key), str(exc))
        return False

    def _leave(self, path: Path, why: str) -> None:
        """Say once per file that it is not an entry and stays where it is."""
        with self._lock:
            first = path not in self._strangers
            self._strangers.add(path)
        if first:
            log.warning(
                "%s is not a phrase cache entry (%s): left alone, its phrase is not cached",
                path,
                why,
            )

    def _foreign(self, index: Index, key: str, path: Path) -> bool:
        """Whether a file the cache cannot prove it wrote sits where the entry would go
        (then it is logged and not replaced)."""
        if self._lookup(index, key) is not None:
            return False
        try:
            data = read_record(path, ENTRY_MAX)
        except FileNotFoundError:
            return False
        except OSError:
            data = b""  # unreadable: certainly not provably ours
        if claimed_key(data) == key:
            return False
        self._leave(path, "no metadata chunk naming its key")
        return True

    def _unlink_entry(self, key: str) -> None:
        if KEY.match(key):  # an index row naming anything else points at no file of ours
            self.path(key).unlink(missing_ok=True)

    def _discard(self, key: str, kind: str, reason: str) -> None:
        path = self.path(key)
        with contextlib.suppress(OSError):
            path.unlink()
        if self._index is not None:
            with contextlib.suppress(sqlite3.Error):
                self._index.remove([key])
        self._report(kind, f"cache entry {path} {reason}: removed, will synthesize again", key)

    def _make_dir(self, path: Path, parents: bool = False) -> None:
        if path.is_dir():
            return
        path.mkdir(mode=0o700, parents=parents, exist_ok=True)
        os.chmod(path, 0o700)  # whatever the umask
        fsync_dir(path.parent)

    @property
    def writable(self) -> bool:
        """False from a failed write until the next one that works."""
        return not self._unwritable

    def _cannot_write(self, exc: Exception) -> None:
        with self._lock:
            first, self._unwritable = not self._unwritable, True
        if first:
            self._report(
                "unwritable",
                f"cannot write the phrase cache in {self.directory} ({exc}); "
                "speaking from synthesis alone until it can",
            )

    def _can_write(self) -> None:
        with self._lock:
            recovered, self._unwritable = self._unwritable, False
        if recovered:
            self._report("writable", f"the phrase cache in {self.directory} is writable again")

    def _pinned_exceed(self, totals: Totals) -> None:
        if not self._pinned_over_limit:
            self._pinned_over_limit = True
            log.warning(
                "pinned phrases alone take %.1f MB in %d entries, more than cache.max_mb "
                "or cache.max_entries allow; they are kept",
                totals.pinned_bytes / 1e6,
                totals.pinned,
            )

    def _report(self, kind: str, detail: str, key: str | None = None) -> None:
        log.log(_LEVEL.get(kind, logging.WARNING), "%s", detail)
        if kind in ("unwritable", "writable"):
            self.observer.trouble("cache", detail if kind == "unwritable" else None)
        if self.on_event is not None:
            try:
                self.on_event(CacheEvent(kind, detail, key))
            except Exception:
                log.exception("cache event listener failed")
