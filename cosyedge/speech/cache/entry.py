"""One cache entry on disk: a plain mono 16-bit WAV file that also says what it is.

Besides `fmt ` and `data` the file carries a `cosy` chunk (JSON: key, voice identity,
language, text, sample rate and a CRC-32 of the samples), so a lost index can be rebuilt
from the files alone. WAV readers skip unknown chunks, so the files stay ordinary WAVs.
"""

from __future__ import annotations

import hashlib
import json
import struct
import unicodedata
import zlib
from dataclasses import dataclass

import numpy as np

META_CHUNK = b"cosy"
FORMAT_VERSION = 1
_FMT = struct.Struct("<4sI4s4sIHHIIHH")  # RIFF header + fmt chunk, 36 bytes
_CHUNK = struct.Struct("<4sI")


def normalize_text(text: str) -> str:
    """The spelling the key is taken from: NFC and single spaces, so cosmetic variants hit; a
    lone surrogate (no character, nothing said, and no UTF-8 for it) is left out."""
    if not text.isascii():
        text = "".join(c for c in text if not "\ud800" <= c <= "\udfff")
    return " ".join(unicodedata.normalize("NFC", text).split())


def cache_key(text: str, voice_identity: str, lang: str) -> str:
    """Same key only for the same words, voice (model bytes, settings, engine) and language."""
    material = f"{voice_identity}\0{lang}\0{normalize_text(text)}"
    # normalize_text left lone surrogates out (json.loads makes one of an escaped half pair);
    # surrogatepass keeps a key from ever raising on one all the same.
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()


def checksum(data: bytes | memoryview) -> int:
    """CRC-32: on a 3 s phrase it costs tens of microseconds, and it catches torn or flipped
    bytes, which is all a cache needs (see bench/cache.py for the comparison with BLAKE2b)."""
    return zlib.crc32(data)


class DamagedEntry(ValueError):
    """A file that is not a whole entry; `kind` is empty, truncated or corrupt."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind


@dataclass(frozen=True)
class Clip:
    """A phrase's audio as the cache gives it back."""

    sample_rate: int
    pcm: np.ndarray  # mono int16


@dataclass(frozen=True)
class EntryMeta:
    """What a cache file says of itself: its key, voice, language, text, rate and the
    checksum of its samples."""

    key: str
    voice: str
    lang: str
    text: str
    sample_rate: int
    pcm_crc: int


@dataclass(frozen=True)
class Decoded:
    """A cache file read and checked: what it says of itself, and its samples."""

    meta: EntryMeta
    pcm: np.ndarray  # mono int16, a view into the file's bytes


def encode(key: str, voice: str, lang: str, text: str, sample_rate: int, pcm: np.ndarray) -> bytes:
    samples = np.ascontiguousarray(pcm, dtype="<i2").tobytes()
    meta = {
        "v": FORMAT_VERSION,
        "key": key,
        "voice": voice,
        "lang": lang,
        "text": text,
        "rate": sample_rate,
        "crc": checksum(samples),
    }
    blob = json.dumps(meta, ensure_ascii=False, separators=(",", ":")).encode()
    if len(blob) % 2:
        blob += b" "  # RIFF chunks are word-aligned
    riff_size = 4 + (8 + 16) + (8 + len(blob)) + (8 + len(samples))
    header = _FMT.pack(
        b"RIFF", riff_size, b"WAVE", b"fmt ", 16, 1, 1, sample_rate, sample_rate * 2, 2, 16
    )
    return b"".join(
        [
            header,
            _CHUNK.pack(META_CHUNK, len(blob)),
            blob,
            _CHUNK.pack(b"data", len(samples)),
            samples,
        ]
    )


def decode(data: bytes, verify_samples: bool = True) -> Decoded:
    """Parse and check an entry; `verify_samples` checks the embedded CRC (skip it when the
    whole file was already checked against the index)."""
    if not data:
        raise DamagedEntry("empty", "zero-length file")
    if len(data) < _FMT.size:
        raise DamagedEntry("truncated", f"only {len(data)} bytes")
    riff, riff_size, wave_id, fmt_id, fmt_size, codec, channels, rate, _, align, bits = (
        _FMT.unpack_from(data)
    )
    if riff != b"RIFF" or wave_id != b"WAVE" or fmt_id != b"fmt " or fmt_size != 16:
        raise DamagedEntry("corrupt", "not a cosyedge WAV header")
    if riff_size + 8 > len(data):
        raise DamagedEntry("truncated", f"{len(data)} bytes of {riff_size + 8}")
    if riff_size + 8 < len(data):
        raise DamagedEntry("corrupt", f"{len(data) - riff_size - 8} trailing bytes")
    if (codec, channels, align, bits) != (1, 1, 2, 16) or not 4000 <= rate <= 192000:
        raise DamagedEntry("corrupt", "not mono 16-bit PCM")
    meta: dict | None = None
    pos = _FMT.size
    while pos + _CHUNK.size <= len(data):
        chunk_id, size = _CHUNK.unpack_from(data, pos)
        body = pos + _CHUNK.size
        if body + size > len(data):
            raise DamagedEntry("truncated", f"chunk {chunk_id!r} runs past the end")
        if chunk_id == META_CHUNK:
            try:  # an imported entry is outside input: deep nesting included
                meta = json.loads(data[body : body + size])
            except (ValueError, UnicodeDecodeError, RecursionError):
                raise DamagedEntry("corrupt", "unreadable metadata chunk") from None
        elif chunk_id == b"data":
            if meta is None:
                raise DamagedEntry("corrupt", "no metadata chunk before the samples")
            return _finish(meta, data, body, size, rate, verify_samples)
        pos = body + size + (size & 1)
    raise DamagedEntry("truncated", "no sample data")


def claimed_key(data: bytes) -> str | None:
    """The key the `cosy` chunk of a file names, or None when the file has no readable one.

    Only a file laid out as an entry up to its metadata (RIFF/WAVE header, readable `cosy`
    chunk) claims a key; its samples may be damaged. A WAV someone else put in the cache
    directory claims none, and so is never taken for a damaged entry and removed."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    pos = 12
    while pos + _CHUNK.size <= len(data):
        chunk_id, size = _CHUNK.unpack_from(data, pos)
        body = pos + _CHUNK.size
        if chunk_id == META_CHUNK:
            return _key_in(data[body : body + size])
        pos = body + size + (size & 1)
    return None


def _key_in(blob: bytes) -> str | None:
    try:
        meta = json.loads(blob)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    key = meta.get("key") if isinstance(meta, dict) else None
    return key if isinstance(key, str) else None


def starts_like_entry(head: bytes) -> bool:
    """Whether these first bytes of a temp file could be an entry being written: nothing yet,
    or the start of the RIFF/WAVE header every entry begins with."""
    head = head[:16]
    masked = head[:4] + bytes(len(head[4:8])) + head[8:]  # bytes 4-8: the RIFF size, any
    return b"RIFF\0\0\0\0WAVEfmt ".startswith(masked)


def _finish(meta: dict, data: bytes, start: int, size: int, rate: int, verify: bool) -> Decoded:
    try:
        info = EntryMeta(
            key=str(meta["key"]),
            voice=str(meta["voice"]),
            lang=str(meta["lang"]),
            text=str(meta["text"]),
            sample_rate=int(meta["rate"]),
            pcm_crc=int(meta["crc"]),
        )
    except (KeyError, TypeError, ValueError):
        raise DamagedEntry("corrupt", "incomplete metadata chunk") from None
    if info.sample_rate != rate:
        raise DamagedEntry("corrupt", "sample rate differs from its metadata")
    if size == 0 or size % 2:
        raise DamagedEntry("empty" if size == 0 else "corrupt", f"{size} bytes of samples")
    view = memoryview(data)[start : start + size]
    if verify and checksum(view) != info.pcm_crc:
        raise DamagedEntry("corrupt", "sample checksum mismatch")
    return Decoded(info, np.frombuffer(view, dtype="<i2"))
