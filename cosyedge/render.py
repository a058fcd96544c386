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
        return self.cached(text) or Rendering(
            self.voice.sample_rate, "synth", self._synthesize(text, self._key(text))
        )

    def cached(self, text: str) -> Rendering | None:
        """The phrase from the cache, or None: never synthesizes."""
        clip = self.cache.get(self._key(text))
        if clip is None:
            return None
        return Rendering(clip.sample_rate, "cache", iter([clip.pcm]))

    def _key(self, text: str) -> str:
        return cache_key(text, self.voice.identity)

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
