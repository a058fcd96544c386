"""int8 weights for a CosyVoice pack's transformer graphs, kept only if the audio stays close.

Quantized (dynamic, int8 weights of MatMul/Gemm): the text encoder, the LM step, the flow's
encoder and the estimator, which hold nearly all of the weights and the time. HiFT stays
fp32: its time is in convolutions, and int8 convolutions ran 3x slower on this kind of CPU.

The gate, before anything is replaced: the fp32 and the int8 graphs speak the parity
sentences from the same speech tokens and the same noise, and the mean log-mel distance of
their audio must stay under `MAX_DISTANCE_DB` (the limit `cosyedge quantize` uses for Piper).
How often greedy decoding picks the same token is recorded too. Random weights (the tests,
the benchmark) say nothing about how released weights take it: convert those and read the
figures in the manifest.
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from cosyedge.config.voices import SessionConfig
from cosyedge.packs import evaluate
from cosyedge.packs.cosyvoice_parity import SENTENCES, SPOKEN
from cosyedge.speech.voices.cosypack import CosyPack
from cosyedge.speech.voices.cosystream import RngDraws
from cosyedge.speech.voices.cosytokens import BpeTokenizer
from cosyedge.speech.voices.cosyvoice import CosyvoiceModels, greedy_sampler
from cosyedge.speech.voices.session import make_session

log = logging.getLogger(__name__)

INT8_GRAPHS = ("text_encoder", "llm_step", "flow_encoder", "estimator")
MAX_DISTANCE_DB = 3.0


class Int8Refused(Exception):
    """The int8 graphs change the audio more than the gate allows."""


@dataclass(frozen=True)
class Int8Report:
    graphs: tuple[str, ...]
    distance_db: float
    greedy_token_agreement: float
    fp32_bytes: int
    int8_bytes: int

    def as_dict(self) -> dict:
        return asdict(self)


def quantize_graph(source: Path, target: Path) -> None:
    """Dynamic int8 quantization of the MatMul and Gemm weights of `source` into `target`."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        source, target, weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul", "Gemm"]
    )


def _models_with(pack: CosyPack, replaced: dict[str, Path]) -> CosyvoiceModels:
    fp32 = CosyvoiceModels.load(pack, SessionConfig(save_optimized=False))
    for role, path in replaced.items():
        fp32.sessions[role] = make_session(path, SessionConfig(save_optimized=False), None)
    return fp32


def speak(models: CosyvoiceModels, tokens: list[int], seed: int) -> np.ndarray:
    """Float audio of `tokens`, every random draw (flow noise, source phases and noise) from
    `seed`: two models given the same tokens and seed differ only by their graphs."""
    return models.whole_clause(tokens, RngDraws(np.random.default_rng(seed)))


def compare(pack: CosyPack, replaced: dict[str, Path]) -> tuple[float, float]:
    """Mean log-mel distance (dB) of int8 against fp32 audio from the same tokens and noise,
    and the share of greedy tokens int8 decoding agrees on."""
    fp32 = CosyvoiceModels.load(pack, SessionConfig(save_optimized=False))
    int8 = _models_with(pack, replaced)
    bpe = BpeTokenizer.load(pack.path("tokenizer"))
    distances, agree, total = [], 0, 0
    for i, sentence in enumerate(SENTENCES[:SPOKEN]):
        ids = bpe.encode(sentence)
        tokens = fp32.speech_tokens(ids, greedy_sampler(fp32.eos))
        other = int8.speech_tokens(ids, greedy_sampler(int8.eos))
        agree += sum(a == b for a, b in zip(tokens, other, strict=False))
        total += len(tokens)
        a, b = speak(fp32, tokens, i), speak(int8, tokens, i)
        distances.append(evaluate.log_mel_distance(pcm16(a), pcm16(b), pack.sample_rate))
    return float(np.mean(distances)), agree / max(total, 1)


def pcm16(audio: np.ndarray) -> np.ndarray:
    return np.clip(audio * 32767.0, -32767, 32767).astype(np.int16)


def quantize_pack(directory: Path) -> Int8Report:
    """Replace the transformer graphs in the (not yet manifested) pack `directory` by int8
    ones if the gate passes; the caller rewrites the manifest's hashes afterwards."""
    pack = CosyPack.open(directory)
    staging = directory / ".int8"
    staging.mkdir()
    try:
        replaced = {role: staging / pack.path(role).name for role in INT8_GRAPHS}
        for role, target in replaced.items():
            quantize_graph(pack.path(role), target)
        distance, agreement = compare(pack, replaced)
        fp32_bytes = sum(pack.path(role).stat().st_size for role in INT8_GRAPHS)
        int8_bytes = sum(path.stat().st_size for path in replaced.values())
        report = Int8Report(INT8_GRAPHS, round(distance, 3), round(agreement, 3),
                            fp32_bytes, int8_bytes)  # fmt: skip
        log.info("int8 against fp32: %s", report.as_dict())
        if distance > MAX_DISTANCE_DB:
            raise Int8Refused(
                f"int8 graphs change the audio by {distance:.1f} dB log-mel (limit "
                f"{MAX_DISTANCE_DB:.1f}); convert without --int8"
            )
        for role, path in replaced.items():
            path.replace(pack.path(role))
        return report
    finally:
        shutil.rmtree(staging, ignore_errors=True)
