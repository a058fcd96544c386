"""Files made once from an installed package's data and kept under the saved-models directory
(`state_dir/models`): hibari's G2P tables, pypinyin's reading tables.

Such a file is never trusted blindly. What it was made from (our format, the package's
version, the sha256 of each source file) names it and is recorded in a JSON sidecar with the
file's own sha256; at every load both are checked, and a file that does not match (torn write,
disk error, edits, another version of the package) is deleted and made again. It is written
under a temporary name and renamed into place, its record first, so a reader never finds half
a file. Where it can be neither read nor made, the caller is told (None) and warned, and reads
the package's own data in memory instead.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

MAKE_TIMEOUT_S = 600

# What making a file may raise when it cannot be made here; anything else is a bug.
MAKE_ERRORS = (
    OSError,
    sqlite3.Error,
    subprocess.SubprocessError,
    KeyError,
    TypeError,
    ValueError,
)


def made_apart(module: str, *args: str) -> Callable[[Path], None]:
    """A `make` running `python -m module make PATH args...` in a child process: what making
    a file reads (a package's data parsed into Python objects, tens of MB) never enters this
    process, which would not give all of it back afterwards."""

    def make(path: Path) -> None:
        command = [sys.executable, "-m", module, "make", str(path), *args]
        subprocess.run(command, check=True, capture_output=True, timeout=MAKE_TIMEOUT_S)

    return make


def file_digest(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


@dataclass(frozen=True)
class KeptFile:
    """One file made by `make` (given the path to write) from what `made_from` records, kept
    in `directory` as `{family}-{key}{suffix}`, `key` a digest of `made_from`. `what` names it
    in the log ("hibari's G2P tables"), `detail` says which one when it is made ("us")."""

    directory: Path
    family: str
    what: str
    detail: str
    made_from: dict[str, Any]
    make: Callable[[Path], None]
    suffix: str = ".sqlite"

    @property
    def path(self) -> Path:
        key = hashlib.sha256(json.dumps(self.made_from, sort_keys=True).encode()).hexdigest()
        return self.directory / f"{self.family}-{key[:16]}{self.suffix}"

    @staticmethod
    def sidecar(path: Path) -> Path:
        return path.with_name(path.name + ".json")

    def ensure(self) -> Path | None:
        """The file's path, made now if there is none usable; None (warned) if it can be
        neither read nor made here."""
        try:
            found = self._check()
        except OSError as exc:
            log.warning("cannot read %s in %s (%s)", self.what, self.directory, exc)
            found = False
        if not found and not self._made():
            return None
        return self.path

    def _check(self) -> bool:
        """Whether the file is there and intact; a damaged or stale one is removed."""
        if not self.path.exists():
            return False
        try:
            record = json.loads(self.sidecar(self.path).read_text(encoding="utf-8"))
            recorded, expected = record["made_from"], record["sha256"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            return self._discard(f"its record is missing or unreadable ({exc})")
        if recorded != self.made_from:
            return self._discard("it was made from other files or by another version")
        if file_digest(self.path) != expected:
            return self._discard("its sha256 does not match the one recorded when made")
        return True

    def _discard(self, reason: str) -> bool:
        log.warning("%s %s are not usable: %s; making them again", self.what, self.path, reason)
        _remove(self.path)
        return False

    def _made(self) -> bool:
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=self.suffix)
            os.close(fd)
        except OSError as exc:
            log.warning("cannot keep %s in %s (%s)", self.what, self.directory, exc)
            return False
        tmp = Path(name)
        try:
            self.make(tmp)
            self._commit(tmp)
        except MAKE_ERRORS as exc:
            log.warning("cannot make %s in %s (%s)", self.what, self.directory, exc)
            return False
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()
        log.info("made %s (%s) in %s", self.what, self.detail, self.path)
        self._prune()
        return True

    def _commit(self, tmp: Path) -> None:
        # The record first: a reader that finds the file finds its record too.
        record = {"made_from": self.made_from, "sha256": file_digest(tmp)}
        sidecar_tmp = self.path.with_name(f".tmp-{self.path.name}.json")
        sidecar_tmp.write_text(json.dumps(record, indent=1), encoding="utf-8")
        os.replace(sidecar_tmp, self.sidecar(self.path))
        os.replace(tmp, self.path)

    def _prune(self) -> None:
        """Remove the family's files made from earlier sources or formats."""
        for old in self.directory.glob(f"{self.family}-*{self.suffix}"):
            if old != self.path:
                log.info("removing %s of an earlier version: %s", self.what, old)
                _remove(old)


def _remove(path: Path) -> None:
    for p in (path, KeptFile.sidecar(path)):
        with contextlib.suppress(OSError):
            p.unlink()
