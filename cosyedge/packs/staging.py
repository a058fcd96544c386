"""A directory written whole or not at all: what the voice pack converters write into."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from cosyedge.regular import SITE_RECORD_MAX, load_record
from cosyedge.speech.voices.pack import MANIFEST

log = logging.getLogger(__name__)

STOPPING_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
STAGING = ".convert-"  # then the converting process's id: `.convert-PID-XXXXXXXX`
PACK_FORMATS = ("cosyedge-",)  # what the converters write as a manifest's `format`
LICENCE = "LICENCE.txt"  # the licence text a pack carries beside its manifest
_STAGED = re.compile(r"\.convert-(\d+)-[a-z0-9_]{8}")


class Stopped(BaseException):
    """A stopping signal arrived during a staged write; raised so that the work directory is
    removed on the way out, as for any other failure."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


@contextlib.contextmanager
def stopping_signals_raise() -> Iterator[None]:
    """Within the block, SIGTERM, SIGINT and SIGHUP raise `Stopped` in the main thread instead
    of ending the process where it stands (SIGTERM's default), which would skip every cleanup.
    The previous handlers are put back after. Off the main thread, signals cannot be handled
    there: the block runs unchanged."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        # A second signal must not cut the cleanup short: the first one is acted on.
        for sig in STOPPING_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        raise Stopped(signum)

    previous = {sig: signal.signal(sig, stop) for sig in STOPPING_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def staged_dir(out: Path) -> Iterator[Path]:
    """A work directory beside `out` that becomes `out` (replacing what was there) when the
    block ends, and is removed when it raises or a stopping signal arrives (SIGTERM, SIGINT,
    SIGHUP: then `Stopped` is raised): `out` is never left half-written, and a stopped
    conversion leaves no staging behind."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with stopping_signals_raise():
        yield from _staged(out)


def refused_out(out: Path, force: bool) -> str | None:
    """Why a conversion may not write `out`, or None: a file there, or a directory with
    something in it, unless `force`; and with `force`, one that holds no voice pack (no
    manifest.json): the directory is replaced whole, and must not take a user's files."""
    if out.exists() and not out.is_dir():
        return f"{out}: exists and is not a directory"
    if not out.exists() or not any(out.iterdir()):
        return None
    if not force:
        return f"{out}: exists and is not empty (use --force to replace it)"
    files = _pack_files(out)
    if files is None:
        return f"{out}: holds no voice pack (no {MANIFEST}); --force replaces only a pack"
    others = sorted(p.name for p in out.iterdir() if p.name not in files)
    if others:
        return (
            f"{out}: holds files that are not the pack's ({', '.join(others[:5])}); --force "
            "replaces only a pack: move them first"
        )
    return None


def _pack_files(directory: Path) -> set[str] | None:
    """The names of what a voice pack in `directory` is made of (its manifest, the files it
    names, the licence text), or None when it holds none: no manifest of one of cosyedge's
    formats (a stray `manifest.json` of something else does not make it ours to replace)."""
    try:
        manifest = load_record(directory / MANIFEST, SITE_RECORD_MAX)
        pack = str(manifest.get("format", "")).startswith(PACK_FORMATS)
        named = {str(entry["name"]) for entry in manifest.get("files", {}).values()}
    except (OSError, ValueError, LookupError, TypeError, AttributeError):
        return None
    return {MANIFEST, LICENCE, *named} if pack else None


def _staged(out: Path) -> Iterator[Path]:
    _remove_orphans(out.parent)
    work = Path(tempfile.mkdtemp(prefix=f"{STAGING}{os.getpid()}-", dir=out.parent))
    try:
        yield work
        _readable_by_all(work)
        if out.exists():
            shutil.rmtree(out)
        work.rename(out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def _readable_by_all(work: Path) -> None:
    """Directories 0755, files 0644, as a package installs them: mkdtemp makes the staging
    0700, and a pack converted by root into the state directory must be readable by the
    service's own user."""
    work.chmod(0o755)
    for path in work.rglob("*"):
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)


def _remove_orphans(parent: Path) -> None:
    """Remove the staging directories in `parent` of conversions whose process is gone (one
    killed by SIGKILL or a power cut had no chance to): each holds up to a few GB. Only names
    as `_staged` makes them (`.convert-PID-` and mkdtemp's 8 characters), never a link."""
    for work in parent.glob(f"{STAGING}*-*"):
        named = _STAGED.fullmatch(work.name)
        if named and work.is_dir() and not work.is_symlink() and not _alive(int(named[1])):
            log.warning("removing %s, left by a conversion that was stopped", work)
            shutil.rmtree(work, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's, running
        return True
    return True
