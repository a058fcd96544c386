"""Moving a warmed cache between gateways: one machine renders, many receive.

The archive is a plain tar: `entries/<key>.wav` for each entry and, last, `manifest.json`
naming the voice identities and, per entry, its key, voice, language, text, size and CRC-32.
Import never extracts paths from the archive: it reads each listed member, checks size and
checksum, refuses entries made with a voice this gateway does not use (their audio would be
wrong), and writes each accepted entry atomically through the cache.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import tarfile
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from cosyedge.speech.cache.entry import DamagedEntry, checksum

if TYPE_CHECKING:
    from cosyedge.speech.cache.store import PhraseCache

FORMAT = "cosyedge-cache"
VERSION = 1
MANIFEST = "manifest.json"
_KEY = re.compile(r"[0-9a-f]{64}\Z")
MAX_ENTRY_BYTES = 64 << 20


class ArchiveError(Exception):
    """The file is not a cache archive this version can read."""


@dataclass
class Exported:
    entries: int = 0
    bytes: int = 0
    voices: Counter[str] = field(default_factory=Counter)


@dataclass
class Imported:
    imported: int = 0
    already: int = 0
    damaged: list[str] = field(default_factory=list)
    refused: Counter[str] = field(default_factory=Counter)  # voice identity → entries


def export_cache(cache: PhraseCache, dest: Path) -> Exported:
    """Write every verified entry to a tar at `dest` (replaced atomically)."""
    done = Exported()
    entries = []
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.")
    try:
        with os.fdopen(fd, "wb") as f, tarfile.open(fileobj=f, mode="w") as tar:
            for row in list(cache.rows()):
                data = cache.read_file(row.key)
                if data is None:
                    continue
                _add(tar, f"entries/{row.key}.wav", data)
                entries.append(
                    {
                        "key": row.key,
                        "voice": row.voice,
                        "lang": row.lang,
                        "text": row.text,
                        "size": len(data),
                        "crc": checksum(data),
                    }
                )
                done.entries += 1
                done.bytes += len(data)
                done.voices[row.voice] += 1
            manifest = {
                "format": FORMAT,
                "version": VERSION,
                "created": time.time(),
                "voices": dict(done.voices),
                "entries": entries,
            }
            _add(tar, MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=1).encode())
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return done


def import_cache(
    cache: PhraseCache, src: Path, voices: Mapping[str, str], archive: BinaryIO | None = None
) -> Imported:
    """Import entries whose voice identity is one of `voices` (identity → display name),
    from `src`, read through `archive` when it is already open."""
    done = Imported()
    try:
        tar = tarfile.open(src, mode="r:*", fileobj=archive)  # noqa: SIM115 (closed below)
    except (OSError, tarfile.TarError) as exc:
        raise ArchiveError(f"{src}: not a readable tar archive ({exc})") from None
    with tar:
        manifest = _manifest(tar, src)
        for i, entry in enumerate(manifest["entries"]):
            key, voice = _entry_fields(entry, i, src)
            if voice not in voices:
                done.refused[voice] += 1
                continue
            if cache.contains(key):
                done.already += 1
                continue
            problem = _import_entry(cache, tar, entry, key)
            if problem:
                done.damaged.append(f"{key[:12]}: {problem}")
            else:
                done.imported += 1
    cache.evict()
    return done


def _import_entry(cache: PhraseCache, tar: tarfile.TarFile, entry: dict, key: str) -> str | None:
    try:
        member = tar.getmember(f"entries/{key}.wav")
    except KeyError:
        return "listed in the manifest but not in the archive"
    if not member.isfile() or member.size != entry.get("size") or member.size > MAX_ENTRY_BYTES:
        return "size differs from the manifest"
    f = tar.extractfile(member)
    data = f.read() if f else b""
    if checksum(data) != entry.get("crc"):
        return "checksum differs from the manifest"
    try:
        cache.put_file(key, data, expect_voice=entry["voice"])
    except DamagedEntry as exc:
        return str(exc)
    return None


def _manifest(tar: tarfile.TarFile, src: Path) -> dict:
    try:
        member = tar.getmember(MANIFEST)
        f = tar.extractfile(member)
        manifest = json.loads(f.read() if f else b"")
    except (KeyError, ValueError, RecursionError, tarfile.TarError):  # nested too deeply too
        raise ArchiveError(f"{src}: no readable {MANIFEST}; not a cosyedge cache archive") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArchiveError(f"{src}: {MANIFEST} is not a cosyedge cache manifest")
    if manifest.get("version") != VERSION:
        raise ArchiveError(
            f"{src}: archive version {manifest.get('version')!r}, this cosyedge reads {VERSION}"
        )
    if not isinstance(manifest.get("entries"), list):
        raise ArchiveError(f"{src}: {MANIFEST}: entries must be a list")
    return manifest


def _entry_fields(entry: object, i: int, src: Path) -> tuple[str, str]:
    key = entry.get("key") if isinstance(entry, dict) else None
    voice = entry.get("voice") if isinstance(entry, dict) else None
    if not isinstance(key, str) or not _KEY.match(key) or not isinstance(voice, str):
        raise ArchiveError(f"{src}: {MANIFEST}: entries[{i}] needs a key and a voice")
    return key, voice


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o600
    info.mtime = int(time.time())
    with contextlib.closing(io.BytesIO(data)) as f:
        tar.addfile(info, f)
