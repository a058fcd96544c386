"""Announcement text → PCM: from the phrase cache when it can, else synthesized clause by clause."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
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
    def __init__(
        self, voice: Voice, cache: PhraseCache, by_lang: Mapping[str, Voice] | None = None
    ) -> None:
        self.voice = voice  # for languages without a voice of their own in `by_lang`
        self.by_lang = dict(by_lang or {})
        self.cache = cache

    def voice_for(self, lang: str) -> Voice:
        return self.by_lang.get(lang, self.voice)

    def key(self, text: str, lang: str) -> str:
        return cache_key(text, self.voice_for(lang).identity, lang)

    def render(self, text: str, lang: str = "en", record: bool = True) -> Rendering:
        """`record=False` (pre-warming) leaves the cache's hit statistics alone."""
        voice = self.voice_for(lang)
        return self.cached(text, lang, record) or Rendering(
            voice.sample_rate, "synth", self._synthesize(voice, text, lang, self.key(text, lang))
        )

    def cached(self, text: str, lang: str = "en", record: bool = True) -> Rendering | None:
        """The phrase from the cache, or None: never synthesizes."""
        clip = self.cache.get(self.key(text, lang), record)
        if clip is None:
            return None
        return Rendering(clip.sample_rate, "cache", iter([clip.pcm]))

    def _synthesize(self, voice: Voice, text: str, lang: str, key: str) -> Iterator[np.ndarray]:
        parts = []
        for pcm in voice.synthesize(text):
            parts.append(pcm)
            yield pcm
        # Only a phrase synthesized to its end is stored: a cut-off one would lie later.
        if parts:
            clip = Clip(voice.sample_rate, np.concatenate(parts))
            self.cache.put(key, clip, voice=voice.identity, lang=lang, text=normalize_text(text))
