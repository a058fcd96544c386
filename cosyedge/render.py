"""Announcement text → PCM: from the phrase cache when it can, else synthesized clause by clause."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from cosyedge.cache import Clip, PhraseCache, cache_key, normalize_text
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

    def key(self, text: str, lang: str) -> str:
        return cache_key(text, self.voice.identity, lang)

    def render(self, text: str, lang: str = "en", record: bool = True) -> Rendering:
        """`record=False` (pre-warming) leaves the cache's hit statistics alone."""
        return self.cached(text, lang, record) or Rendering(
            self.voice.sample_rate, "synth", self._synthesize(text, lang, self.key(text, lang))
        )

    def cached(self, text: str, lang: str = "en", record: bool = True) -> Rendering | None:
        """The phrase from the cache, or None: never synthesizes."""
        clip = self.cache.get(self.key(text, lang), record)
        if clip is None:
            return None
        return Rendering(clip.sample_rate, "cache", iter([clip.pcm]))

    def _synthesize(self, text: str, lang: str, key: str) -> Iterator[np.ndarray]:
        parts = []
        for pcm in self.voice.synthesize(text):
            parts.append(pcm)
            yield pcm
        # Only a phrase synthesized to its end is stored: a cut-off one would lie later.
        if parts:
            clip = Clip(self.voice.sample_rate, np.concatenate(parts))
            self.cache.put(
                key, clip, voice=self.voice.identity, lang=lang, text=normalize_text(text)
            )
