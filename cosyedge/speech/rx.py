"""Regular expressions compiled once a machine, not once a process.

Python's `re` parses and compiles a pattern in Python. The reading rules' patterns embed the
unit grammars (13 kB each, `text/symbols.py`): their 330 patterns took 0.46 s of CPU in every
process that reads text, two thirds of its imports (the daemon at every start, `cosyedge say`
of a new phrase, `read`), on the 2-core development machine.

`compile(pattern, flags)` is `re.compile` for the reading rules: the same `re.Pattern`, made
from the program (the SRE code) that `re` compiled for that pattern and flags in an earlier
process, as Python keeps a module's bytecode in `__pycache__`. The programs are kept there,
beside this module's bytecode, in a file named for the interpreter (its version, its `_sre`
magic number, which changes with the code's format, and its byte order), so one made by
another interpreter is never read. The file holds the sha256 of what it keeps and is read
only when that matches (a torn or damaged file is ignored and written again); `_sre`
validates each program it is given, and one it refuses is compiled again. A pattern not kept
is compiled by `re`, and at the process's exit the file is written again with it, under a
temporary name renamed into place. Where the directory cannot be written (a package
installed read-only, whose postinst makes the file), every process compiles its patterns, as
it would without this module; nothing else changes.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import logging
import marshal
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FORMAT = b"cosyedge-rx 1\n"
# At most this many programs are kept (about 12 kB each): past it, a process keeps only those
# it used, so patterns of rules since changed do not pile up.
MAX_KEPT = 1000
Key = tuple[str, int]


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, from the program kept for it when there is one."""
    return _programs().compile(pattern, int(flags))


def kept_path(directory: Path | None = None) -> Path:
    """Where this interpreter's programs are kept: in `directory`, by default this package's
    `__pycache__`."""
    import _sre

    version = ".".join(map(str, sys.version_info[:3]))
    name = f"rx.{sys.implementation.cache_tag}-{version}-{_sre.MAGIC}-{sys.byteorder}.bin"
    return (directory or Path(__file__).parent / "__pycache__") / name


class Programs:
    """The kept programs of one file, read at the first pattern asked for; those compiled
    since are written back at exit (`write`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._kept: dict[Key, tuple] | None = None  # read at first use
        self._used: set[Key] = set()
        self._new = False

    def compile(self, pattern: str, flags: int) -> re.Pattern[str]:
        if not isinstance(pattern, str) or flags & re.DEBUG:
            return re.compile(pattern, flags)
        key = (pattern, flags)
        with self._lock:
            if self._kept is None:
                self._kept = _read(self.path)
            self._used.add(key)
            program = self._kept.get(key)
        made = _made(pattern, program) if program is not None else None
        if made is not None:
            return made
        program, made = _compiled(pattern, flags)
        if program is not None:
            with self._lock:
                self._kept[key] = program
                if not self._new:
                    self._new = True
                    atexit.register(self.write)
        return made

    def __len__(self) -> int:
        return len(self._kept or {})

    def forget_unused(self) -> None:
        """Keep only the programs of patterns this process compiled."""
        with self._lock:
            self._kept = {key: self._kept[key] for key in self._used if key in (self._kept or {})}

    def write(self, always: bool = False) -> None:
        """Keep the programs for the next process; silently not where that cannot be, nor
        (unless `always`) when Python is told not to write bytecode (PYTHONDONTWRITEBYTECODE,
        -B)."""
        if sys.dont_write_bytecode and not always:
            return
        with self._lock:
            kept = self._kept or {}
            if len(kept) > MAX_KEPT:
                kept = {key: kept[key] for key in self._used if key in kept}
            data = marshal.dumps(kept)
        tmp = self.path.with_name(f".tmp-{os.getpid()}-{self.path.name}")
        try:
            self.path.parent.mkdir(exist_ok=True)
            tmp.write_bytes(FORMAT + hashlib.sha256(data).hexdigest().encode() + b"\n" + data)
            os.replace(tmp, self.path)
        except OSError as exc:  # read-only, full: compiled again next time, as without this
            log.debug("cannot keep the reading rules' programs in %s: %s", self.path, exc)
            with contextlib.suppress(OSError):
                tmp.unlink()


def main() -> int:
    """Compile the reading rules' patterns and keep their programs, whatever
    PYTHONDONTWRITEBYTECODE says: what the package's postinst runs as root (`python -c 'import
    cosyedge.speech.rx as rx; rx.main()'`), so the service, which cannot write under /opt,
    finds them at its first start."""
    import importlib
    import pkgutil

    import cosyedge.speech

    for found in pkgutil.walk_packages(cosyedge.speech.__path__, "cosyedge.speech."):
        with contextlib.suppress(ImportError):  # a voice whose engine is not installed
            importlib.import_module(found.name)
    programs = _programs()
    programs.forget_unused()  # those of rules an earlier version had
    programs.write(always=True)
    print(f"{programs.path}: {len(programs)} programs")
    return 0


@functools.cache
def _programs() -> Programs:
    return Programs(kept_path())


def _read(path: Path) -> dict[Key, tuple]:
    """The programs kept in `path`, if it is whole; else none."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    header, digest = data[: len(FORMAT)], data[len(FORMAT) : len(FORMAT) + 64]
    body = data[len(FORMAT) + 65 :]
    if header != FORMAT or digest != hashlib.sha256(body).hexdigest().encode():
        return {}
    try:
        kept = marshal.loads(body)
    except (ValueError, EOFError, TypeError):
        return {}
    return kept if isinstance(kept, dict) else {}


def _compiled(pattern: str, flags: int) -> tuple[tuple | None, re.Pattern[str]]:
    """The pattern compiled by `re`'s own parser and compiler, with its program to keep
    (None where this interpreter's `re` is not built as 3.11's is)."""
    try:
        from re import _compiler, _parser

        parsed = _parser.parse(pattern, flags)
        code = [int(word) for word in _compiler._code(parsed, flags)]
        groupindex = dict(parsed.state.groupdict)
    except AttributeError:
        return None, re.compile(pattern, flags)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    program = (flags | parsed.state.flags, code, parsed.state.groups - 1, groupindex,
               tuple(indexgroup))  # fmt: skip
    made = _made(pattern, program)
    return (program, made) if made is not None else (None, re.compile(pattern, flags))


def _made(pattern: str, program: Any) -> re.Pattern[str] | None:
    """The pattern made from a kept program, or None if `_sre` refuses it."""
    import _sre

    try:
        flags, code, groups, groupindex, indexgroup = program
        return _sre.compile(pattern, flags, code, groups, groupindex, indexgroup)
    except (TypeError, ValueError, RuntimeError, OverflowError):
        return None
