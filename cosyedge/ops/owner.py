"""The command line run as root on the service's phrase cache acts as the cache's owner."""

from __future__ import annotations

import contextlib
import logging
import os
import pwd
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger(__name__)


@contextlib.contextmanager
def as_owner_of(directory: Path) -> Iterator[None]:
    """Inside the block root acts as the owner of `directory` (effective ids and groups):
    the phrase cache refuses a directory another user owns (they could change what is said),
    and files root made in the service's cache would be unreadable to the daemon. Anyone
    else, or a directory root owns or that does not exist yet, runs the block as it is."""
    try:
        info = directory.stat()
    except OSError:
        info = None
    if os.geteuid() != 0 or info is None or info.st_uid == 0:
        yield
        return
    groups = os.getgroups()
    try:  # the owner's groups too: `audio`, for `say` to reach the sound device
        member_of = os.getgrouplist(pwd.getpwuid(info.st_uid).pw_name, info.st_gid)
    except KeyError:
        member_of = [info.st_gid]
    os.setgroups(member_of)
    os.setegid(info.st_gid)
    os.seteuid(info.st_uid)
    log.info("using %s as its owner, uid %d", directory, info.st_uid)
    try:
        yield
    finally:  # root's effective uid first: only it may set the group ids back
        os.seteuid(0)
        os.setegid(0)
        os.setgroups(groups)
