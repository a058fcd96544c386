"""Content-addressed on-disk WAV cache of whole phrases.

The key covers the text and the voice's identity (model bytes, settings, engine version), so
a changed voice can never serve stale audio. Entries are written to a temp file, fsynced and
renamed, so a crash leaves either a whole entry or none.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Clip:
    sample_rate: int
    pcm: np.ndarray  # mono int16


def cache_key(text: str, voice_identity: str) -> str:
    normalized = " ".join(text.split())
    return hashlib.sha256(f"{voice_identity}\0{normalized}".encode()).hexdigest()


class PhraseCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.wav"

    def get(self, key: str) -> Clip | None:
        path = self.path(key)
        try:
            with wave.open(str(path), "rb") as w:
                if w.getnchannels() != 1 or w.getsampwidth() != 2:
                    raise wave.Error("not mono 16-bit")
                frames = w.readframes(w.getnframes())
                rate = w.getframerate()
        except FileNotFoundError:
            return None
        except (wave.Error, EOFError, OSError) as exc:
            log.warning("cache entry %s unreadable (%s): removed, will synthesize", path, exc)
            path.unlink(missing_ok=True)
            return None
        if not frames:
            log.warning("cache entry %s is empty: removed, will synthesize", path)
            path.unlink(missing_ok=True)
            return None
        return Clip(rate, np.frombuffer(frames, dtype="<i2"))

    def put(self, key: str, clip: Clip) -> Path:
        path = self.path(key)
        path.parent.mkdir(mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".wav")
        try:
            with os.fdopen(fd, "wb") as f:
                with wave.open(f, "wb") as w:
                    w.setnchannels(1)
                    w.setsampwidth(2)
                    w.setframerate(clip.sample_rate)
                    w.writeframes(clip.pcm.astype("<i2").tobytes())
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path
