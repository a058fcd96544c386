"""Opening files the daemon reads from disks it does not own (its config, what it keeps
between starts): only regular files, so a FIFO, a device or a directory put in a file's place
is refused at once instead of blocking the open (a FIFO with no writer) or never ending
(/dev/zero, read whole or hashed).
"""

from __future__ import annotations

import errno
import json
import os
import stat
import time
from pathlib import Path
from typing import Any

# What the daemon keeps about itself between starts (a record, a count, an answer) is a few kB;
# a state file larger than this is not one it wrote, and is not read whole into memory (a
# sparse file of gigabytes took the process past any ceiling before). Records that grow with
# the site (its filters, conditions, topics) are read with SITE_RECORD_MAX.
RECORD_MAX = 1 << 20
SITE_RECORD_MAX = 64 << 20


def regular_only(path: str, flags: int, mode: int = 0o666) -> int:
    """An opener for `open(..., opener=regular_only)`, or `os.open` with `mode`: opens without
    blocking (a FIFO with no writer, or for writing with no reader, would block the daemon for
    good), then refuses (OSError EINVAL, "not a regular file") what is not a regular file."""
    fd = os.open(path, flags | os.O_NONBLOCK, mode)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        os.set_blocking(fd, True)  # what is read from it is read as from any other file
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_record(path: Path | str, limit: int = RECORD_MAX) -> bytes:
    """The whole of the regular file `path`, of at most `limit` bytes. What is larger, and what
    is not a regular file, raises OSError as a file that cannot be read does, so its reader
    treats it as damaged; a file larger than `limit` is not read at all."""
    with open(path, "rb", opener=regular_only) as f:
        if os.fstat(f.fileno()).st_size > limit:  # refused before anything is read
            raise _too_large(path, limit)
        data = f.read(limit + 1)  # it may have grown since
    if len(data) > limit:
        raise _too_large(path, limit)
    return data


def _too_large(path: Path | str, limit: int) -> OSError:
    return OSError(errno.EFBIG, f"larger than {limit} bytes: not a record written here", path)


def load_record(path: Path | str, limit: int = RECORD_MAX) -> Any:
    """The JSON record in `path` (`read_record`). What does not parse, nesting past what the
    parser can follow included (which raises RecursionError, not ValueError), raises
    ValueError, so its reader treats it as damaged as it does any other."""
    data = read_record(path, limit)
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError(f"{path}: nested too deeply to be a record written here") from None


def set_aside(path: Path, max_bytes: int | None = None) -> str | None:
    """Rename what is at `path` aside (`NAME.set-aside-TIME`) when it is not a regular file (a
    FIFO, a directory, a device, a link to none of these or to nothing: a link to a regular
    file is followed, as where a journal was moved to another disk) or is larger than
    `max_bytes`; what was done, or None when nothing was there or it is usable. Raises OSError
    when it cannot be renamed."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        if not os.path.islink(path):
            return None  # nothing there: made anew
        found = os.lstat(path)  # a link to nothing: set aside, not followed to make its target
    if not stat.S_ISREG(found.st_mode):
        why = "is not a regular file"
    elif max_bytes is not None and found.st_size > max_bytes:
        why = f"is larger than any this writes ({found.st_size} bytes)"
    else:
        return None
    aside = _unused(path.with_name(f"{path.name}.set-aside-{int(time.time())}"))
    os.rename(path, aside)
    return f"{path} {why}: set aside as {aside.name}"


def _unused(path: Path) -> Path:
    """`path`, or `path-N` for the first N that names nothing: a rename onto a name taken
    would replace what was set aside there before (or fail, onto a directory with files)."""
    found, n = path, 1
    while os.path.lexists(found):
        found, n = path.with_name(f"{path.name}-{n}"), n + 1
    return found
