"""hibari voices: hibari's own G2P (lexicon + OOV net, no espeak) and DSP vocoder around sessions
made by our factory.

`hibari.Hibari()` builds its sessions with its own options and would fetch any voice but the
bundled one from the network, so it is not used: this module takes the pieces it needs (G2P,
phoneme vocabulary, `dsp.synth`) and only ever opens files inside the installed package, unless
the config names another model file.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cosyedge.config import SessionConfig, VoiceConfig
from cosyedge.speech.lexicon import NO_LEXICON, Applied, Lexicon
from cosyedge.speech.text import Normalizer
from cosyedge.speech.voices import FrontedVoice, FrontEnd, identity_of, to_int16
from cosyedge.speech.voices.clauses import split_clauses
from cosyedge.speech.voices.session import make_session, model_digest, with_engine_defaults

if TYPE_CHECKING:
    import onnxruntime as ort

# Bump when our processing of the model output changes, so cached audio is not reused.
ENGINE_VERSION = "hibari-1"
SAMPLE_RATE = 24000
MAX_PHONEMES = 400  # the model's longest input; longer sentences are cut at spaces
# Without onnxruntime's arena this small model costs no more CPU and peaks 7 MB lower.
MEMORY_ARENA = False


def _assets() -> Path:
    import hibari

    return Path(hibari.__file__).parent / "assets"


def packaged_model() -> Path:
    from hibari import voices

    return _assets() / voices.VOICES[voices.DEFAULT]["file"]


def _registry_entry(digest: str) -> tuple[str, dict[str, Any]] | None:
    from hibari import voices

    for name, entry in voices.VOICES.items():
        if entry.get("sha256") == digest:
            return name, entry
    return None


def _markup(found: Applied) -> str:
    # hibari's G2P takes `[word](/phonemes/)` as a word with its phonemes given.
    return f"[{found.written}](/{found.spoken}/)"


@dataclass(frozen=True)
class HibariG2P:
    """hibari's G2P (lexicons, tagger and the small OOV net), site lexicon entries given to it
    inline."""

    g2p: Any  # hibari.g2p.G2P
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def load(cls, british: bool, settings: SessionConfig, saved_dir: Path | None) -> HibariG2P:
        """With `saved_dir`, the lexicons and tagger are read from tables kept there
        (`hibari_tables.py`), made now if needed, not at an alert."""
        from hibari.g2p.oov import OOV

        from cosyedge.speech.voices.hibari_tables import load_g2p

        oov_model = _assets() / ("oov_gb.onnx" if british else "oov.onnx")
        oov = OOV(str(oov_model), session=make_session(oov_model, settings, saved_dir))
        return cls(load_g2p(british, oov, saved_dir))

    def units(self, words: str, lexicon: Lexicon, applied: list[Applied]) -> Iterator[str]:
        marked = lexicon.mark(words, _markup, applied)
        for clause in split_clauses(marked):
            yield from self._phonemes(clause)

    def _phonemes(self, clause: str) -> list[str]:
        from hibari import Hibari

        pieces = []
        for sentence in Hibari.split_sentences(clause):
            with self.lock:  # hibari's G2P is not documented as thread-safe
                phonemes = self.g2p(sentence)
            while len(phonemes) > MAX_PHONEMES:
                cut = phonemes.rfind(" ", 0, MAX_PHONEMES)
                cut = cut if cut > 0 else MAX_PHONEMES
                pieces.append(phonemes[:cut])
                phonemes = phonemes[cut:].lstrip()
            if phonemes:
                pieces.append(phonemes)
        return pieces


@dataclass
class G2POnFirstUse:
    """A `HibariG2P` loaded when it is first asked for phonemes."""

    load: Callable[[], HibariG2P]
    lock: threading.Lock = field(default_factory=threading.Lock)
    loaded: HibariG2P | None = None

    def units(self, words: str, lexicon: Lexicon, applied: list[Applied]) -> Iterator[str]:
        with self.lock:
            if self.loaded is None:
                self.loaded = self.load()
        return self.loaded.units(words, lexicon, applied)


def front_end(
    config: VoiceConfig,
    normalizer: Normalizer,
    lexicon: Lexicon,
    saved_dir: Path | None = None,
    digest: str | None = None,
) -> FrontEnd:
    """The voice's front end alone: no acoustic model is loaded, and its G2P only when it is
    first asked for phonemes (its identity needs none of them). `digest`: the model's, when
    the caller has it already."""
    import hibari

    model = config.model or packaged_model()
    digest = digest or model_digest(model, saved_dir)
    known = _registry_entry(digest)
    name, british = (known[0], bool(known[1]["british"])) if known else (model.stem, False)
    settings = with_engine_defaults(config.session, memory_arena=MEMORY_ARENA)
    g2p = G2POnFirstUse(functools.partial(HibariG2P.load, british, settings, saved_dir))
    return FrontEnd(
        name=f"hibari-{name}",
        sample_rate=SAMPLE_RATE,
        base_identity=identity_of(ENGINE_VERSION, digest, hibari.__version__, normalizer.version),
        lexicon=lexicon,
        normalize=normalizer.normalize,
        units_of=g2p.units,
    )


@dataclass
class HibariVoice(FrontedVoice):
    front: FrontEnd
    session: ort.InferenceSession
    _vocab: dict[str, int]

    @classmethod
    def load(
        cls,
        config: VoiceConfig,
        normalizer: Normalizer,
        saved_dir: Path | None = None,
        lexicon: Lexicon = NO_LEXICON,
    ) -> HibariVoice:
        model = config.model or packaged_model()
        digest = model_digest(model, saved_dir)
        settings = with_engine_defaults(config.session, memory_arena=MEMORY_ARENA)
        voice = cls(
            front=front_end(config, normalizer, lexicon, saved_dir, digest),
            session=make_session(model, settings, saved_dir, digest),
            _vocab=json.loads((_assets() / "vocab.json").read_text(encoding="utf-8")),
        )
        # Sizes the session's arena, and loads the G2P now rather than at the first alert.
        for _ in voice.synthesize("Ready."):
            pass
        return voice

    def with_lexicon(self, lexicon: Lexicon) -> HibariVoice:
        return replace(self, front=self.front.with_lexicon(lexicon))

    def synthesize(self, text: str) -> Iterator[np.ndarray]:
        from hibari import dsp

        rng = np.random.default_rng()
        speed = np.asarray([1.0], np.float32)
        for phonemes in self.front.units(text):
            ids = [0, *(self._vocab[c] for c in phonemes if c in self._vocab), 0]
            if len(ids) < 3:
                continue
            inputs = {"ids": np.asarray([ids], np.int64), "speed": speed}
            outputs = self.session.run(None, inputs)
            harmonic, phase, noise, residual, residual_phase, f0 = (o[0] for o in outputs)
            yield to_int16(dsp.synth(harmonic, phase, noise, residual, residual_phase, f0, rng))
