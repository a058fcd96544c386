"""The journal's files: written whole and atomically, and told apart from the file that took
their place (`same_file`)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO


def same_file(fd: int, path: Path) -> str | None:
    """Why the open file `fd` is no longer the one at `path` (removed, replaced by another, as
    `rm -rf state_dir/*` or a restore from a backup leaves it), or None while it is. An error
    other than a missing file is no answer: the next write tells it."""
    try:
        opened = os.fstat(fd)
        named = os.stat(path)
    except FileNotFoundError:
        return "removed"
    except OSError:
        return None
    if opened.st_nlink == 0 or (opened.st_dev, opened.st_ino) != (named.st_dev, named.st_ino):
        return "removed or replaced"
    return None


def os_problem(exc: OSError) -> str:
    """What an OSError says without the file it names: a temporary file's random name would
    make each retry of one trouble look like a new one."""
    return exc.strerror or str(exc)


def replace_file(path: Path, data: bytes) -> None:
    """Write `data` as the new content of `path`: temporary file, fsync, rename, fsync of the
    directory. A failure leaves the old file and no temporary one."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):  # the failure itself is what counts
            os.unlink(tmp)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def bounded_lines(f: BinaryIO, limit: int) -> Iterator[bytes]:
    """The lines of the binary file `f`, without their ends; a line longer than `limit` is
    given as its first `limit` bytes and a NUL (so it fails to parse, as a damaged line), the
    rest of it read past, never held whole."""
    while line := f.readline(limit + 1):
        if len(line) > limit and not line.endswith(b"\n"):
            while (rest := f.readline(limit)) and not rest.endswith(b"\n"):
                pass
            yield line[:limit] + b"\0"
            continue
        yield line.rstrip(b"\r\n")
