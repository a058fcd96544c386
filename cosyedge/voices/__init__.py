"""Voices: one module per engine behind one small protocol, `synthesize(text)` → PCM per clause."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

import numpy as np

from cosyedge.config import VoiceConfig


class Voice(Protocol):
    name: str
    sample_rate: int
    identity: str
    """Changes whenever the audio for the same text could change: model bytes, settings, code."""

    def synthesize(self, text: str) -> Iterator[np.ndarray]:
        """Mono int16 PCM, one array per clause, each yielded as soon as it is ready."""
        ...


def load_voice(config: VoiceConfig) -> Voice:
    if config.engine == "piper":
        from cosyedge.voices.piper import PiperVoice

        return PiperVoice.load(config)
    raise ValueError(f"voice.engine: unknown engine {config.engine!r}")
