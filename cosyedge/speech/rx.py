"""Regular expressions compiled once a machine, not once a process.

Python's `re` parses and compiles a pattern in Python. The reading rules' patterns embed the
unit grammars (13 kB each, `text/symbols.py`): their 409 patterns took 0.46 s of CPU in every
process that reads text, two thirds of its imports (the daemon at every start, `cosyedge say`
of a new phrase, `read`), on the 2-core development machine.

`compile(pattern, flags)` is `re.compile` for the reading rules: the same `re.Pattern`, made
from the program (the SRE code) that `re` compiled for that pattern and flags in an earlier
process, as Python keeps a module's bytecode in `__pycache__`. The programs are kept there,
beside this module's bytecode, in a file named for the interpreter (its version, its `_sre`
magic number, which changes with the code's format, and its byte order), so one made by
another interpreter is never read. The file is an index (each pattern's digest, where its
program lies, its CRC-32), checked against the sha256 the file holds for it, then the
programs; only the index is held in memory (150 kB), and a program is read from the file
when its pattern is asked for, checked against its CRC-32, given to `_sre` (which validates
it) and dropped. A file, index or program that does not pass is not used: the pattern is
compiled by `re`. Patterns compiled are written into the file again when the process exits,
under a temporary name renamed into place. Where the directory cannot be written (a package
installed read-only, whose postinst makes the file), every process compiles its patterns, as
it would without this module; nothing else changes.
"""

from __future__ import annotations

import array
import atexit
import contextlib
import functools
import hashlib
import logging
import marshal
import re
import sys
import threading
import zlib
from pathlib import Path

from cosyedge.regular import regular_only

log = logging.getLogger(__name__)

FORMAT = b"cosyedge-rx 2\n"
# The most the file's index or programs are read to (they take 4.4 MB): a file grown past it
# by junk is read no further.
MAX_PROGRAMS = 1 << 26
# At most this many programs are kept (about 12 kB each): past it, a process keeps only those
# it used, so patterns of rules since changed do not pile up.
MAX_KEPT = 1000
# A pattern's kept program: the flags `re` ends with, where its words lie in the file (their
# offset from the programs' start, and count), their CRC-32, and the groups' facts.
Entry = tuple  # (flags, offset, words, crc32, groups, groupindex, indexgroup)


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, from the program kept for it when there is one."""
    return _programs().compile(pattern, int(flags))


def kept_path(directory: Path | None = None) -> Path:
    """Where this interpreter's programs are kept: in `directory`, by default where Python
    keeps this module's bytecode (`__pycache__`, or under PYTHONPYCACHEPREFIX)."""
    import _sre
    from importlib.util import cache_from_source

    version = ".".join(map(str, sys.version_info[:3]))
    name = f"rx.{sys.implementation.cache_tag}-{version}-{_sre.MAGIC}-{sys.byteorder}.bin"
    return (directory or Path(cache_from_source(__file__)).parent) / name


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
    programs.write(always=True, only_used=True)  # not those of rules an earlier version had
    print(f"{programs.path}: {len(programs.used)} programs")
    return 0


def key_of(pattern: str, flags: int) -> str:
    return hashlib.sha256(f"{flags}\0{pattern}".encode("utf-8", "surrogatepass")).hexdigest()


class Programs:
    """The programs kept in one file, its index read at the first pattern asked for; those
    compiled since are written with them at exit (`write`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._index: dict[str, Entry] | None = None  # read at first use
        self._start = 0  # where the programs begin in the file
        self.used: set[str] = set()  # the keys of the patterns this process asked for
        self.new: dict[str, tuple[Entry, array.array]] = {}  # compiled here, not kept yet

    def compile(self, pattern: str, flags: int) -> re.Pattern[str]:
        if not isinstance(pattern, str) or flags & re.DEBUG:
            return re.compile(pattern, flags)
        key = key_of(pattern, flags)
        with self._lock:
            if self._index is None:
                self._index, self._start = _read_index(self.path)
            self.used.add(key)
            entry = self._index.get(key)
        made = self._kept(pattern, entry) if entry is not None else None
        if made is not None:
            return made
        entry, words, made = _compiled(pattern, flags)
        if words is not None:
            with self._lock:
                if not self.new:
                    atexit.register(self.write)
                self.new[key] = (entry, words)
        return made

    def _kept(self, pattern: str, entry: Entry) -> re.Pattern[str] | None:
        """The pattern made from its program in the file, or None if it cannot be read whole
        or `_sre` refuses it."""
        try:
            flags, offset, count, crc, *groups = entry
            with open(self.path, "rb", opener=regular_only) as f:
                f.seek(self._start + 4 * offset)
                data = f.read(4 * count)
        except (OSError, ValueError, TypeError):
            return None
        if len(data) != 4 * count or zlib.crc32(data) != crc:
            return None
        return _made(pattern, flags, array.array("I", data), groups)

    def write(self, always: bool = False, only_used: bool = False) -> None:
        """Keep the programs for the next process: those in the file and those compiled here
        (`only_used`: those of the patterns asked for here). Silently not where that cannot
        be, nor (unless `always`) when Python is told not to write bytecode
        (PYTHONDONTWRITEBYTECODE, -B)."""
        if sys.dont_write_bytecode and not always:
            return
        with self._lock:
            programs = {**_read_all(self.path), **self.new}
            if only_used or len(programs) > MAX_KEPT:
                programs = {key: programs[key] for key in self.used if key in programs}
        # Imported at the write only: reading the programs at a start needs none of it.
        from cosyedge.speech.kept import TEMP_PREFIX, stale_temp, write_whole

        try:
            self.path.parent.mkdir(exist_ok=True)
            # What writers killed mid-write left would hold megabytes here for good.
            for left in self.path.parent.glob(f"{TEMP_PREFIX}*-{self.path.name}"):
                if stale_temp(left):
                    with contextlib.suppress(OSError):
                        left.unlink()
            write_whole(self.path, _file(programs))
        except OSError as exc:  # read-only, full: compiled again next time, as without this
            log.debug("cannot keep the reading rules' programs in %s: %s", self.path, exc)


@functools.cache
def _programs() -> Programs:
    return Programs(kept_path())


def _file(programs: dict[str, tuple[Entry, array.array]]) -> bytes:
    """The file's bytes: its format, the sha256 and length of the index, the index, the
    programs' words."""
    index, words = {}, array.array("I")
    for key, (entry, code) in programs.items():
        flags, _, _, _, *groups = entry
        index[key] = (flags, len(words), len(code), zlib.crc32(code.tobytes()), *groups)
        words.extend(code)
    data = marshal.dumps(index)
    digest = hashlib.sha256(data).hexdigest().encode()
    return FORMAT + digest + len(data).to_bytes(8, "little") + data + words.tobytes()


def _read_index(path: Path) -> tuple[dict[str, Entry], int]:
    """The index of the file at `path` and where its programs begin, if the index is whole;
    else an empty one."""
    head = len(FORMAT) + 64 + 8
    try:
        with open(path, "rb", opener=regular_only) as f:
            top = f.read(head)
            size = int.from_bytes(top[-8:], "little")
            data = f.read(size) if top[: len(FORMAT)] == FORMAT and size < MAX_PROGRAMS else b""
    except OSError:
        return {}, 0
    if not data or top[len(FORMAT) : len(FORMAT) + 64] != hashlib.sha256(data).hexdigest().encode():
        return {}, 0
    try:
        index = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return {}, 0
    return (index, head + size) if isinstance(index, dict) else ({}, 0)


def _read_all(path: Path) -> dict[str, tuple[Entry, array.array]]:
    """Every program the file holds whole, with its entry: what a write keeps of it."""
    index, start = _read_index(path)
    try:
        with open(path, "rb", opener=regular_only) as f:
            f.seek(start)
            data = f.read(MAX_PROGRAMS)  # the programs are 4.4 MB: never gigabytes of junk
    except OSError:
        return {}
    words = array.array("I", data[: len(data) // 4 * 4])  # a torn file's whole words
    kept = {}
    for key, entry in index.items():
        with contextlib.suppress(ValueError, TypeError):
            _, offset, count, crc, *_ = entry
            code = words[offset : offset + count]
            if len(code) == count and zlib.crc32(code.tobytes()) == crc:
                kept[key] = (entry, code)
    return kept


def _compiled(pattern: str, flags: int) -> tuple[Entry, array.array | None, re.Pattern[str]]:
    """The pattern compiled by `re`'s own parser and compiler, with its entry and program to
    keep (None where this interpreter's `re` is not built as 3.11's is)."""
    try:
        from re import _compiler, _parser

        parsed = _parser.parse(pattern, flags)
        words = array.array("I", _compiler._code(parsed, flags))
        groupindex = dict(parsed.state.groupdict)
    except AttributeError:
        return (), None, re.compile(pattern, flags)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    groups = [parsed.state.groups - 1, groupindex, tuple(indexgroup)]
    entry = (flags | parsed.state.flags, 0, len(words), 0, *groups)
    made = _made(pattern, entry[0], words, groups)
    return (entry, words, made) if made is not None else ((), None, re.compile(pattern, flags))


def _made(pattern: str, flags: int, words: array.array, groups: list) -> re.Pattern[str] | None:
    """The pattern made from a program, or None if `_sre` refuses it."""
    import _sre

    try:
        count, groupindex, indexgroup = groups
        return _sre.compile(pattern, flags, words.tolist(), count, groupindex, indexgroup)
    except (TypeError, ValueError, RuntimeError, OverflowError):
        return None
