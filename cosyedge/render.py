"""Announcement text → PCM: from the phrase cache when it can, else synthesized clause by clause."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from cosyedge.cache import Clip, PhraseCache, cache_key
from cosyedge.voices import Voice

log = logging.getLogger(__name__)


@dataclass
class Rendering:
    sample_rate: int
    source: str  # "cache" or "synth"
    chunks: Iterator[np.ndarray]


class Renderer:
    def __init__(self, voice: Voice, cache: PhraseCache) -> None:
        self.voice = voice
        self.cache = cache

    def render(self, text: str) -> Rendering:
        key = cache_key(text, self.voice.identity)
        clip = self.cache.get(key)
        if clip is not None:
            return Rendering(clip.sample_rate, "cache", iter([clip.pcm]))
        return Rendering(self.voice.sample_rate, "synth", self._synthesize(text, key))

    def _synthesize(self, text: str, key: str) -> Iterator[np.ndarray]:
        parts = []
        for pcm in self.voice.synthesize(text):
            parts.append(pcm)
            yield pcm
        # Only a phrase synthesized to its end is stored: a cut-off one would lie later.
        if parts:
            clip = Clip(self.voice.sample_rate, np.concatenate(parts))
            try:
                self.cache.put(key, clip)
            except OSError as exc:
                log.warning("cannot write phrase cache (%s); speaking without it", exc)
