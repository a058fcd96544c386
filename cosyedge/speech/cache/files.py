"""The phrase cache's files: which are its own (entries, its temp files), written whole or not
at all, in a directory kept private. `store.PhraseCache` deletes or replaces only what these
prove to be its own."""

from __future__ import annotations

import logging
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from cosyedge.speech.cache.entry import starts_like_entry

log = logging.getLogger("cosyedge.speech.cache")

TEMP_PREFIX = ".tmp-"
KEY = re.compile(r"[0-9a-f]{64}\Z")  # what cache_key makes: a sha256 in hex
_SUBDIR = re.compile(r"[0-9a-f]{2}\Z")
TEMP = re.compile(rf"{re.escape(TEMP_PREFIX)}(\d+)-[a-z0-9_]{{8}}\Z")  # write_atomically's


@dataclass(frozen=True)
class Reconciled:
    """What bringing the index and the files into agreement did: how many files of each kind
    were adopted, removed, dropped from the index or left alone."""

    adopted: int = 0
    removed_damaged: int = 0
    dropped_missing: int = 0
    removed_temp: int = 0
    left_alone: int = 0  # files the cache cannot prove it wrote


def keep_private(directory: Path) -> None:
    """Take group and other access away from the cache directory, the one a symlink names
    too; raise PermissionError when it belongs to another user (they could change what is
    said). A directory that cannot be changed (read-only mount) is used as it is, with a
    warning."""
    real = directory.resolve()
    info = os.stat(real)
    if info.st_uid != os.geteuid():
        raise PermissionError(
            f"{real} belongs to uid {info.st_uid}, not to this service (uid {os.geteuid()}); "
            "not keeping phrases there"
        )
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        try:
            os.chmod(real, mode & 0o700)
        except OSError as exc:
            log.warning("cache directory %s is mode %04o, not private: %s", real, mode, exc)
            return
        log.info("cache directory %s was mode %04o; made it %04o", real, mode, mode & 0o700)


def entry_key(path: Path) -> str | None:
    """The key a file's name gives it, if it is named as an entry in its own subdirectory."""
    key = path.name.removesuffix(".wav")
    if key == path.name or not KEY.match(key) or key[:2] != path.parent.name:
        return None
    return key


def report_strangers(directory: Path, strangers: list[Path]) -> None:
    if strangers:
        log.warning(
            "left alone %d files in the phrase cache %s that it did not write, e.g. %s",
            len(strangers),
            directory,
            strangers[0],
        )


def entry_files(directory: Path) -> tuple[list[Path], bool]:
    """Files in the two-hex-digit subdirectories, and whether every directory could be listed."""
    files: list[Path] = []
    try:
        subdirs = sorted(p for p in directory.iterdir() if _SUBDIR.match(p.name) and p.is_dir())
        for sub in subdirs:
            files.extend(sub.iterdir())
    except OSError as exc:
        log.warning("cannot list the phrase cache %s: %s", directory, exc)
        return files, False
    return files, True


def write_atomically(path: Path, data: bytes) -> None:
    """Temp file in the same directory (named after our pid), fsync, rename, fsync dir."""
    import tempfile  # with `random`, for writers only: a phrase read from the cache writes none

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f"{TEMP_PREFIX}{os.getpid()}-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_abandoned_temp(path: Path) -> str:
    """Remove a temp file (named as write_atomically names them) whose writer is gone, if it
    holds nothing but the start of an entry: "removed"; "writing" while its writer lives;
    "left" when it is not provably ours."""
    match = TEMP.match(path.name)
    assert match is not None
    try:
        os.kill(int(match.group(1)), 0)
        return "writing"  # its writer (maybe this process) is alive
    except ProcessLookupError:
        pass
    except PermissionError:
        return "writing"  # alive, under another user
    except OverflowError:
        return "left"  # no pid at all
    try:
        with path.open("rb") as f:
            head = f.read(16)
    except OSError:
        return "left"
    if not starts_like_entry(head):
        return "left"
    path.unlink(missing_ok=True)
    return "removed"
