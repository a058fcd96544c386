"""Files made once from an installed package's data: hibari's G2P tables, pypinyin's reading
tables. The Debian package ships them, made when it is built (`devtools/tables.py`), read-only
in `SHIPPED`; elsewhere (a source checkout, a development install), or where a shipped one is
missing or does not verify (said with a warning), they are made at the first start and kept
under the saved-models directory (`state_dir/models`).

Such a file is never trusted blindly. What it was made from (our format, the package's
version, the sha256 of each source file) names it and is recorded in a JSON sidecar with the
file's own sha256; at every load both are checked, and a file that does not match (torn write,
disk error, edits, another version of the package) is deleted and made again. It is written
under a temporary name and renamed into place, its record first, so a reader never finds half
a file; a temporary file left by a process that died (killed mid-write, a power cut) is
removed at the next start, so it cannot keep a small disk full. Where the file can be neither
read nor made, the caller is told (None), the saved-models directory's observer is told what
was not kept (`SavedDir.unkept`), and the caller reads the package's own data in memory.

A shipped file is checked the same way at every load, against the same record beside it, but
never removed: it is the package's (a read-only /opt, owned by root), and only a reinstall
mends it. While one verifies, the family's files in the saved-models directory are removed: an
earlier version's, left by the starts before an upgrade, would never be read again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from cosyedge.faults import Faults
from cosyedge.observe import Observer
from cosyedge.regular import load_record, regular_only, set_aside

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

MAKE_TIMEOUT_S = 600
# A kept table damaged underneath is opened again (checked, made anew) at most this often:
# where it cannot be mended (a full disk), not at every phrase.
REOPEN_EVERY_S = 60.0
# SQLite's page cache of a kept table, in KiB (2 MiB a connection by default: at that the
# start's first phrase left hibari's tables holding 1.5 MB more).
TABLE_CACHE_KIB = 256
TEMP_PREFIX = ".tmp-"  # then the writer's pid and a dash: `.tmp-1234-...`
LEGACY_TEMP_S = 3600.0  # a temporary name without a pid (older versions) is stale after this
# Where the package ships the files, made when it is built: beside the venv's own files
# (/opt/cosyedge/share/...). Its absence means no package (a checkout): they are made.
SHIPPED = Path(sys.prefix) / "share" / "cosyedge" / "tables"
_NONE_SHIPPED = "none made from the files installed now is there"

# What making a file may raise when it cannot be made here; anything else is a bug.
MAKE_ERRORS = (
    OSError,
    sqlite3.Error,
    subprocess.SubprocessError,
    KeyError,
    TypeError,
    ValueError,
)


@dataclass(frozen=True)
class SavedDir:
    """The saved-models directory (`state_dir/models`), where the voices keep the optimized
    graphs and the tables they make: `faults` is consulted before each write there (site
    `models.write`, the file as subject) and `observer` is told what could not be kept."""

    path: Path
    faults: Faults = field(default_factory=Faults)
    observer: Observer = field(default_factory=Observer)

    def unkept(self, what: str, problem: str | None) -> None:
        """`what` could not be kept here for `problem` (None: it is kept after all)."""
        self.observer.unkept(what, problem)

    def check(self, target: Path) -> None:
        """Raise the planned OSError while the fault plan fails writing `target`."""
        self.faults.check("models.write", str(target))

    def temp(self, suffix: str) -> Path:
        """A new empty temporary file here, named for this process (`sweep` removes it once
        the process is gone); made with the directory when needed. Raises OSError."""
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.check(self.path / suffix)
        prefix = f"{TEMP_PREFIX}{os.getpid()}-"
        import tempfile  # with `random`, for writers only: reading what is kept makes none

        fd, name = tempfile.mkstemp(dir=self.path, prefix=prefix, suffix=suffix)
        os.close(fd)
        return Path(name)

    def sweep(self) -> None:
        """Remove the temporary files of writers that are gone: what a process killed mid-write
        left would otherwise hold a small disk full at every later start."""
        removed: list[Path] = []
        with contextlib.suppress(OSError):  # nothing to sweep, or nothing we may
            for path in self.path.glob(f"{TEMP_PREFIX}*"):
                if stale_temp(path):
                    remove_with_record(path)
                    removed.append(path)
        if removed:  # one line, however many: a directory of thousands made thousands
            shown = ", ".join(p.name for p in removed[:3]) + (", ..." if len(removed) > 3 else "")
            log.warning(
                "removed %d files in %s left half-written by processes that are gone (%s)",
                len(removed),
                self.path,
                shown,
            )


def saved_dir_of(where: Path | SavedDir | None) -> SavedDir | None:
    """`where` as a saved-models directory; a bare path (a command, a tool) injects no faults
    and tells no one what it could not keep (the log says it)."""
    return SavedDir(where) if isinstance(where, Path) else where


def stale_temp(path: Path) -> bool:
    """Whether the temporary file's writer is gone: its pid is not running, or (a name
    without one) it was not touched for LEGACY_TEMP_S."""
    pid = path.name.removeprefix(TEMP_PREFIX).split("-", 1)[0]
    if pid.isdigit():
        return not _running(int(pid))
    with contextlib.suppress(OSError):
        return time.time() - path.stat().st_mtime > LEGACY_TEMP_S
    return False


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: running
        return True
    return True


def problem_of(exc: BaseException) -> str:
    """What a failure to write says, in a few words: an OSError's strerror (its random file
    name would make each retry look like a new trouble), else the message's first line (a
    child's last line of stderr) without the exception's name or onnxruntime's codes."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if isinstance(exc, subprocess.CalledProcessError):
        lines = (exc.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        text = lines[-1] if lines else f"exit status {exc.returncode}"
    else:
        text = (str(exc).strip().splitlines() or [""])[0]
    return _NAMED.sub("", text).rstrip(".")[:200] or type(exc).__name__


# `sqlite3.OperationalError: `, `[ONNXRuntimeError] : 7 : INVALID_PROTOBUF : `
_NAMED = re.compile(r"^(?:\[ONNXRuntimeError\].* : |[\w.]+(?:Error|Exception): )")


def short_of_space(directory: Path, needed: int) -> str | None:
    """`no space left on device: ...` when what is free where `directory` is (or would be) is
    below the `needed` bytes a writer tried to write, else None. For a writer whose own error
    does not say the disk is full (onnxruntime's `Protobuf serialization failed`): measured
    after its partial file was removed, so what was free for it to write into."""
    free = free_bytes(directory)
    if free is None or free >= needed:
        return None
    return f"no space left on device: about {amount(needed)} to write, {amount(free)} free"


def free_bytes(directory: Path) -> int | None:
    """The space free to this process on the file system `directory` is on, or would be on
    (its nearest existing parent); None when none can be asked."""
    for place in (directory, *directory.parents):
        try:
            st = os.statvfs(place)
        except OSError:
            continue
        return st.f_bavail * st.f_frsize
    return None


def amount(size: float) -> str:
    """A size in bytes, kB, MB or GB (powers of 1000)."""
    if size < 1e3:
        return f"{size:.0f} bytes"
    if size < 1e6:
        return f"{size / 1e3:.0f} kB"
    return f"{size / 1e6:.1f} MB" if size < 1e9 else f"{size / 1e9:.1f} GB"


def made_apart(module: str, *args: str) -> Callable[[Path], None]:
    """A `make` running `python -m module make PATH args...` in a child process: what making
    a file reads (a package's data parsed into Python objects, tens of MB) never enters this
    process, which would not give all of it back afterwards."""

    def make(path: Path) -> None:
        command = [sys.executable, "-m", module, "make", str(path), *args]
        subprocess.run(command, check=True, capture_output=True, timeout=MAKE_TIMEOUT_S)

    return make


class TableReader(Protocol[R_co]):
    """What reads a kept table: `reader(text)`, and `close()` for its connection."""

    def __call__(self, text: str) -> R_co: ...

    def close(self) -> None: ...


class Mended(Generic[R]):
    """A reader of a kept table made again by `reopen` (the kept file checked against its
    sha256, made anew if damaged; None where it cannot be) when reading fails, and the text
    read again: a damaged file fails as SQLite finds it ("database disk image is malformed")
    or as the code reading a value that is not what was written fails (a flipped byte: JSON
    that does not parse, or of another shape), whatever that error is, and is not failed
    until a restart. The reader that failed is closed first, so a removed damaged file's
    space is free for the new one. At most once in REOPEN_EVERY_S (an error of the text's
    own costs a check a minute); otherwise, or without a new reader, the error is raised
    as it was (the phrase said as the generic one, the fault told). Out of memory is no
    damage. One call at a time: the readers serialize their calls anyway."""

    def __init__(self, reader: TableReader[R], reopen: Callable[[], TableReader[R] | None]):
        self.reader = reader
        self._reopen = reopen
        self._reopened_at = -REOPEN_EVERY_S
        self._lock = threading.Lock()

    def __call__(self, text: str) -> R:
        with self._lock:
            try:
                return self.reader(text)
            except MemoryError:
                raise
            except Exception as exc:
                if time.monotonic() - self._reopened_at < REOPEN_EVERY_S:
                    raise
                self._reopened_at = time.monotonic()
                log.warning("a kept table failed (%s): opening the file again", problem_of(exc))
                self.reader.close()
                reader = self._reopen()
                if reader is None:
                    self.reader = Unusable(problem_of(exc))
                    raise
                self.reader = reader
                return reader(text)


def mended(reopen: Callable[[], TableReader[R] | None]) -> Mended[R] | None:
    """A reader of a kept table opened now by `reopen`, and by it again when it fails
    (`Mended`); None when none can be opened."""
    reader = reopen()
    return None if reader is None else Mended(reader, reopen)


@dataclass(frozen=True)
class Unusable:
    """In a closed reader's place while no file could be opened again: each read fails with
    what failed the last one, not with the closed connection's "Cannot operate on a closed
    database", until the next try."""

    problem: str

    def __call__(self, text: str) -> Any:
        raise RuntimeError(f"a kept table cannot be read: {self.problem}")

    def close(self) -> None:
        """Nothing is open."""


def open_table(path: Path) -> sqlite3.Connection:
    """A kept table, open read-only for the threads that share it. Immutable (never written
    once made): SQLite takes no locks, so a read-only state_dir works. Its page cache is
    TABLE_CACHE_KIB: the file is in the kernel's page cache anyway, and a lookup descends a
    few pages of which the inner ones stay in that much."""
    uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
    db = sqlite3.connect(uri, uri=True, check_same_thread=False)
    db.execute(f"PRAGMA cache_size=-{TABLE_CACHE_KIB}")
    return db


def file_digest(path: Path) -> str:
    """The sha256 of the regular file at `path`; OSError for anything else (a FIFO would block,
    /dev/zero never end)."""
    with open(path, "rb", opener=regular_only) as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


@dataclass(frozen=True)
class KeptFile:
    """One file made by `make` (given the path to write) from what `made_from` records, kept
    in `saved` as `{family}-{key}{suffix}`, `key` a digest of `made_from`, unless the
    package ships it under that name in `shipped`. `what` names it in the log ("hibari's G2P
    tables"), `detail` says which one when it is made ("us")."""

    saved: SavedDir
    family: str
    what: str
    detail: str
    made_from: dict[str, Any]
    make: Callable[[Path], None]
    suffix: str = ".sqlite"
    shipped: Path = SHIPPED  # where the package has them, read-only: none there, made here

    @property
    def directory(self) -> Path:
        return self.saved.path

    @property
    def path(self) -> Path:
        key = hashlib.sha256(json.dumps(self.made_from, sort_keys=True).encode()).hexdigest()
        return self.directory / f"{self.family}-{key[:16]}{self.suffix}"

    @staticmethod
    def sidecar(path: Path) -> Path:
        return path.with_name(path.name + ".json")

    def opened(self, open_file: Callable[[Path], T]) -> T | None:
        """The file (`ensure`) opened by `open_file`, which reads it once (SQLite opens the
        file at its first read, not at connect); None (warned) if there is none, or if it is
        gone before it is open (a state directory removed underneath: once open, the file
        stays readable)."""
        path = self.ensure()
        if path is None:
            return None
        try:
            return open_file(path)
        except (OSError, sqlite3.Error) as exc:
            log.warning("%s: %s", path, exc)
            return None

    def ensure(self) -> Path | None:
        """The shipped file's path when it verifies; else the kept file's, made now if there
        is none usable; None (warned, and told as not kept) if it can be neither read nor
        made here."""
        shipped = self._shipped()
        if shipped is not None:
            self._prune(keep=None)
            self.saved.unkept(self.what, None)
            return shipped
        self.saved.sweep()
        try:
            found = self._check()
        except OSError as exc:
            log.warning("cannot read %s in %s (%s)", self.what, self.directory, exc)
            found = False
        if not found and not self._made():
            return None
        return self.path

    def _shipped(self) -> Path | None:
        """The package's file if it ships one that verifies; a missing or damaged one is
        said (it is left as it is: the package's, mended by a reinstall). None, unsaid,
        where the family is not shipped at all (a checkout)."""
        path = self.shipped / self.path.name
        try:
            if not any(self.shipped.glob(f"{self.family}-*")):
                return None  # not a package, or one without this family (a British voice's)
            problem = problem_with(path, self.made_from) if path.exists() else _NONE_SHIPPED
        except OSError as exc:
            problem = f"it cannot be read ({exc})"
        if problem is None:
            log.debug("%s (%s): the package's %s", self.what, self.detail, path)
            return path
        log.warning(
            "%s shipped with the package are not usable (%s: %s); making them in %s instead",
            self.what, path, problem, self.directory,
        )  # fmt: skip
        return None

    def _check(self) -> bool:
        """Whether the file is there and intact; a damaged or stale one is removed."""
        if not self.path.exists():
            return False
        problem = problem_with(self.path, self.made_from)
        if problem is not None:
            log.warning(
                "%s %s are not usable: %s; making them again", self.what, self.path, problem
            )
            remove_with_record(self.path)
        return problem is None

    def _made(self) -> bool:
        try:
            tmp = self.saved.temp(self.suffix)
        except OSError as exc:
            return self._unmade(exc)
        try:
            self.make(tmp)
            self._commit(tmp)
        except MAKE_ERRORS as exc:
            return self._unmade(exc)
        finally:  # with what SQLite left beside it when the disk filled (`-journal`)
            for left in self.directory.glob(f"{tmp.name}*"):
                with contextlib.suppress(OSError):
                    left.unlink()
        log.info("made %s (%s) in %s", self.what, self.detail, self.path)
        self.saved.unkept(self.what, None)
        self._prune(keep=self.path)
        return True

    def _unmade(self, exc: BaseException) -> bool:
        log.warning("cannot keep %s in %s (%s)", self.what, self.directory, problem_of(exc))
        self.saved.unkept(self.what, problem_of(exc))
        return False

    def _commit(self, tmp: Path) -> None:
        commit(self.saved, self.made_from, tmp, self.path)

    def _prune(self, keep: Path | None) -> None:
        """Remove the family's files here but `keep`: made from earlier sources or formats,
        or (None kept: the package's are read) all of them."""
        for old in self.directory.glob(f"{self.family}-*{self.suffix}"):
            if old != keep:
                log.info("removing %s no longer read: %s", self.what, old)
                remove_with_record(old)


def problem_with(path: Path, made_from: dict[str, Any]) -> str | None:
    """What is wrong with the file at `path` (which exists) for it to be used now, made from
    `made_from`, as its record beside it tells; None when it is intact. Raises OSError when
    the file cannot be read."""
    try:
        record = load_record(KeptFile.sidecar(path))
        recorded, expected = record["made_from"], record["sha256"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"its record is missing or unreadable ({exc})"
    if recorded != made_from:
        return "it was made from other files or by another version"
    if file_digest(path) != expected:
        return "its sha256 does not match the one recorded when made"
    return None


def commit(saved: SavedDir, made_from: dict[str, Any], tmp: Path, path: Path) -> None:
    """Put the file written at `tmp` (a temporary file of `saved`) in place as `path`, made
    from `made_from`. The record first: a reader that finds the file finds its record too; a
    record without its file (the rename is what failed) is removed at the next check. What is
    no regular file in the way is set aside first (`clear_way`). Raises OSError (the fault
    plan's at site `models.write` included)."""
    saved.check(path)
    clear_way(KeptFile.sidecar(path), path)
    write_whole(KeptFile.sidecar(path), record_of(made_from, tmp))
    os.replace(tmp, path)


def clear_way(*paths: Path) -> None:
    """Set aside (`set_aside`, said) what is at `paths` that is no regular file, before a file
    is renamed there: a directory is never replaced by a rename, and each start would refuse
    its file again. Raises OSError when it cannot be renamed."""
    for path in paths:
        moved = set_aside(path)
        if moved is not None:
            log.warning("%s", moved)


def record_of(made_from: dict[str, Any], path: Path) -> bytes:
    """The record kept beside the file at `path`, made from `made_from`."""
    return json.dumps({"made_from": made_from, "sha256": file_digest(path)}, indent=1).encode()


def write_whole(path: Path, data: bytes) -> None:
    """`data` as the new content of `path`, written under a temporary name of this process
    and renamed into place: a failure (a full disk) leaves the old file, and no temporary
    one. Raises OSError."""
    tmp = path.with_name(f"{TEMP_PREFIX}{os.getpid()}-{path.name}")
    try:
        with tmp.open("wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def remove_with_record(path: Path) -> None:
    """Remove a kept file and its record; what is gone already is no error."""
    for p in (path, KeptFile.sidecar(path)):
        with contextlib.suppress(OSError):
            p.unlink()
