"""Opening files the daemon reads from disks it does not own (its config, what it keeps
between starts): only regular files, so a FIFO, a device or a directory put in a file's place
is refused at once instead of blocking the open (a FIFO with no writer) or never ending
(/dev/zero, read whole or hashed).
"""

from __future__ import annotations

import errno
import os
import stat


def regular_only(path: str, flags: int) -> int:
    """An opener for `open(..., opener=regular_only)`: opens without blocking, then refuses
    (OSError EINVAL, "not a regular file") what is not a regular file."""
    fd = os.open(path, flags | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        os.set_blocking(fd, True)  # what is read from it is read as from any other file
    except BaseException:
        os.close(fd)
        raise
    return fd
