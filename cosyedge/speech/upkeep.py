"""The speech stage as a component: the memory guard kept at each tick, the faults of the
memory and the voices, their figures in the daemon's snapshot, and a reload's new memory
ceiling and site lexicon.

A new site lexicon changes every voice's identity, and so the cache key of every phrase: each
voice takes its language's lexicon at once, and with a premium tier the identities the
renderer looks up first and those the tier upgrades to follow.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from cosyedge.component import Component, Detail
from cosyedge.config.pronunciation import lexicon_warnings
from cosyedge.config.schema import Config
from cosyedge.speech.memory import MemoryGuard, SheddableVoice, stood_in
from cosyedge.speech.premium import identities, premium_voices
from cosyedge.speech.premium.upgrade import PremiumUpkeep
from cosyedge.speech.render import Renderer
from cosyedge.speech.voices import lexicon_for

log = logging.getLogger(__name__)


class SpeechUpkeep(Component):
    def __init__(
        self,
        config: Config,
        renderer: Renderer,
        memory: MemoryGuard,
        voices: Mapping[str, SheddableVoice],
        idle: Callable[[], bool],
        premium: PremiumUpkeep | None = None,
    ) -> None:
        """`voices`: the loaded ones, by language; `idle`: whether nothing is said, synthesized
        or waiting, when what the allocator kept may go back (MemoryGuard.settle)."""
        self.renderer, self.memory, self.voices = renderer, memory, voices
        self.idle, self.premium = idle, premium
        self._config = config

    def tick(self, now: float) -> Mapping[str, str | None]:
        self.memory.check()
        if self.idle():
            self.memory.settle()
        memory = self.memory
        return {
            "memory": memory.trouble,
            "speech": memory.degradation,
            "voice": self.renderer.trouble,
            "voices": stood_in(self.voices.values()),
        }

    def state(self, detail: Detail) -> Mapping[str, Any]:
        memory = self.memory
        return {
            "rss_mb": memory.rss(),
            "ceiling_mb": memory.ceiling_mb,
            "sheds": dict(memory.shed),
            "memory": memory.describe(),
        }

    def reconfigure(self, config: Config) -> None:
        self.memory.use_ceiling(config.memory.ceiling_mb)
        if config.pronunciations != self._config.pronunciations:
            self._use_lexicons(config)
        self._config = config

    def _use_lexicons(self, config: Config) -> None:
        for lang, voice in self.voices.items():
            voice.use_lexicon(lexicon_for(config.pronunciations, lang))
        if self.premium is not None:
            premiums = premium_voices(config.voices, config.pronunciations)
            self.renderer.use_premium(identities(premiums))
            self.premium.use(premiums)
        sizes = ", ".join(f"{lang} {len(e)}" for lang, e in config.pronunciations.items())
        log.info("site pronunciations reloaded: %s", sizes or "none")
        for warning in lexicon_warnings(config.pronunciations):
            log.warning("%s", warning)
