"""int8 for a CosyVoice pack's graphs, kept only if the audio stays close.

Quantized dynamically (int8 weights of MatMul/Gemm): the text encoder, the LM step, the
flow's encoder and the estimator, which hold nearly all of the weights and the time. HiFT's
convolutions (`hift_core`) statically: int8 weights per output channel and uint8 activations
whose ranges come from the fp32 graphs run on calibration sentences (QDQ). Dynamic int8
convolutions (ConvInteger) and int8 activations ran 3.9 and 1.8 times slower than fp32 on a
Xeon with VNNI; uint8 activations times int8 weights are what its int8 instructions
multiply, and ran twice as fast. HiFT's harmonic source (`hift_source`: the F0 predictor and
the phase summed in float64) stays fp32: an F0 off by a rounding is summed over a clause.

Every int8 weight is kept in 7 bits (-64..63, INT8_WEIGHT_BITS, onnxruntime's reduce_range):
onnxruntime multiplies uint8 activations by int8 weights exactly with VNNI, but on CPUs
without it (AVX2, AVX-512 without VNNI) in pairs summed into 16 bits, which saturate when both
weights of a pair are large. The same 8-bit int8 HiFT on the same full-size input was 0.32 dB
from fp32 on an AVX-512 VNNI EPYC and 1.81 dB under `qemu-x86_64-static -cpu Haswell`, and
the tiny pack's flow encoder 0.32 against 1.50 dB; with 7 bits a pair cannot reach the bound
and the gate's figures hold on either (HiFT 0.34 dB both ways).

The gate, before anything is replaced: the fp32 and the int8 graphs speak the parity
sentences from the same speech tokens and the same noise, and the mean log-mel distance of
their audio must stay under `MAX_DISTANCE_DB` (the limit `cosyedge quantize` uses for Piper);
the int8 HiFT alone, on the fp32 graphs' mel and source, under `MAX_HIFT_DISTANCE_DB`. The
calibration sentences are not the gate's. How often greedy decoding picks the same token is
recorded too. Random weights (the tests, the benchmark) say nothing about how released
weights take it: convert those and read the figures in the manifest.
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
from cosyedge.speech.voices.cosypack import INT8_WEIGHT_BITS, CosyPack
from cosyedge.speech.voices.cosystream import MEL_HOP, RngDraws
from cosyedge.speech.voices.cosytokens import BpeTokenizer
from cosyedge.speech.voices.cosyvoice import CosyvoiceModels, greedy_sampler, stft
from cosyedge.speech.voices.session import make_session

log = logging.getLogger(__name__)

DYNAMIC_GRAPHS = ("text_encoder", "llm_step", "flow_encoder", "estimator")
HIFT = "hift_core"
INT8_GRAPHS = (*DYNAMIC_GRAPHS, HIFT)
MAX_DISTANCE_DB = 3.0
# HiFT alone measured 0.31 dB on the voiced full-size random model and 0.24 dB on the tiny
# one; its first convolution's weight scale four times too large gave 5.7 dB.
MAX_HIFT_DISTANCE_DB = 1.0
# The int8 LM fed fp32's tokens, its best token against fp32's at each position (no
# compounding, unlike two sequences decoded apart): 0.84 and 0.95 on the tiny model's two
# sentences, 1.0 at full size (its free decoding agreed at every token); an LM step with its
# weights scrambled falls near zero.
MIN_FORCED_AGREEMENT = 0.5
CALIBRATION = SENTENCES[SPOKEN:]  # not the sentences the gate speaks

Feeds = dict[str, np.ndarray]


class Int8Refused(Exception):
    """The int8 graphs change the audio more than the gate allows."""


@dataclass(frozen=True)
class Int8Report:
    graphs: tuple[str, ...]
    distance_db: float
    hift_distance_db: float  # the int8 HiFT alone, on the fp32 graphs' mel and source
    greedy_token_agreement: float  # decoded apart: parts for good at the first tipped token
    forced_token_agreement: float  # fed fp32's tokens: the share of its best tokens that agree
    fp32_bytes: int
    int8_bytes: int
    weight_bits: int = INT8_WEIGHT_BITS  # the runtime warns of packs without it (8 bits)

    def as_dict(self) -> dict:
        return asdict(self)


def quantize_graph(source: Path, target: Path) -> None:
    """Dynamic int8 quantization of the MatMul and Gemm weights of `source` into `target`."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        source, target, weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul", "Gemm"],
        reduce_range=True,  # INT8_WEIGHT_BITS
    )  # fmt: skip


def quantize_hift(source: Path, target: Path, calibration: list[Feeds]) -> None:
    """Static int8 of HiFT's convolutions in `source` into `target` (QDQ): int8 weights per
    output channel, uint8 activations per tensor, their ranges the least and most each took
    over `calibration` (the graph's feeds: `mel` and `source_stft`)."""
    from onnxruntime.quantization import (
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    quantize_static(
        source, target, _reader(calibration), quant_format=QuantFormat.QDQ,
        op_types_to_quantize=["Conv", "ConvTranspose"], per_channel=True,
        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
        calibrate_method=CalibrationMethod.MinMax, reduce_range=True,  # INT8_WEIGHT_BITS
    )  # fmt: skip


def _reader(calibration: list[Feeds]):
    from onnxruntime.quantization import CalibrationDataReader

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.feeds = iter(calibration)

        def get_next(self) -> Feeds | None:
            return next(self.feeds, None)

    return Reader()


def load_models(pack: CosyPack, replaced: dict[str, Path] | None = None) -> CosyvoiceModels:
    """The pack's models, the graphs of `replaced` (role → file) in place of its own."""
    models = CosyvoiceModels.load(pack, SessionConfig(save_optimized=False))
    for role, path in (replaced or {}).items():
        models.sessions[role] = make_session(path, SessionConfig(save_optimized=False), None)
    return models


def mel_and_source(
    models: CosyvoiceModels, tokens: list[int], seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """The mel (80, frames) and harmonic source of `tokens`, every random draw (flow noise,
    source phases and noise) from `seed`, in the order `whole_clause` draws them."""
    draws = RngDraws(np.random.default_rng(seed))
    mel = models.mel(
        tokens, draws.flow_noise(models.prompt_frames + models.mel_frames(len(tokens)))
    )
    return mel, models.source(mel, *draws.source_draws(mel.shape[1] * MEL_HOP))


def speak(models: CosyvoiceModels, tokens: list[int], seed: int) -> np.ndarray:
    """Float audio of `tokens`, every random draw from `seed`: two models given the same
    tokens and seed differ only by their graphs."""
    return models.vocode(*mel_and_source(models, tokens, seed))


def hift_feeds(pack: CosyPack, sentences: tuple[str, ...]) -> list[Feeds]:
    """What the pack's fp32 HiFT core is fed for each of `sentences` decoded greedily: the
    calibration."""
    models = load_models(pack)
    bpe = BpeTokenizer.load(pack.path("tokenizer"))
    feeds = []
    for i, sentence in enumerate(sentences):
        tokens = models.speech_tokens(bpe.encode(sentence), greedy_sampler(models.eos))
        mel, source = mel_and_source(models, tokens, 100 + i)
        feeds.append({"mel": mel[None].astype(np.float32), "source_stft": stft(source)[None]})
    return feeds


@dataclass(frozen=True)
class Comparison:
    distance_db: float
    hift_distance_db: float
    greedy_token_agreement: float
    forced_token_agreement: float


def compare(pack: CosyPack, replaced: dict[str, Path], spoken: int = SPOKEN) -> Comparison:
    """Mean log-mel distance (dB) of the graphs `replaced` (int8) against the pack's (fp32)
    audio from the same tokens and noise, the same of the int8 HiFT alone on fp32's mel and
    source, the share of greedy tokens int8 decoding agrees on, and the share of positions
    where the int8 LM fed fp32's tokens would choose fp32's token (its end included); over
    the first `spoken` parity sentences."""
    fp32, int8 = load_models(pack), load_models(pack, replaced)
    bpe = BpeTokenizer.load(pack.path("tokenizer"))
    distances, hift, agree, total, forced = [], [], 0, 0, []
    for i, sentence in enumerate(SENTENCES[:spoken]):
        ids = bpe.encode(sentence)
        tokens = fp32.speech_tokens(ids, greedy_sampler(fp32.eos))
        other = int8.speech_tokens(ids, greedy_sampler(int8.eos))
        agree += sum(a == b for a, b in zip(tokens, other, strict=False))
        total += len(tokens)
        forced += forced_choices(int8, ids, tokens)
        mel, source = mel_and_source(fp32, tokens, i)
        a = fp32.vocode(mel, source)
        distances.append(distance_db(a, speak(int8, tokens, i), pack.sample_rate))
        hift.append(distance_db(a, int8.vocode(mel, source), pack.sample_rate))
    return Comparison(float(np.mean(distances)), float(np.mean(hift)),
                      agree / max(total, 1), float(np.mean(forced)))  # fmt: skip


def forced_choices(models: CosyvoiceModels, ids: list[int], tokens: list[int]) -> list[bool]:
    """Decode `tokens` (then the end) through `models`' LM whatever it prefers, and say at
    each position whether its greedy choice was that token: one tipped choice does not
    change the context of the next, as it does when each side decodes on its own."""
    best, said = greedy_sampler(models.eos), []

    def forced(logp: np.ndarray, decoded: list[int], ignore_eos: bool) -> int:
        wanted = tokens[len(decoded)] if len(decoded) < len(tokens) else models.eos
        said.append(best(logp, decoded, ignore_eos) == wanted)
        return wanted

    models.speech_tokens(ids, forced)
    return said


def distance_db(a: np.ndarray, b: np.ndarray, rate: int) -> float:
    return evaluate.log_mel_distance(pcm16(a), pcm16(b), rate)


def pcm16(audio: np.ndarray) -> np.ndarray:
    return np.clip(audio * 32767.0, -32767, 32767).astype(np.int16)


def quantize_pack(directory: Path, spoken: int = SPOKEN) -> Int8Report:
    """Replace the transformer graphs in the (not yet manifested) pack `directory` by int8
    ones if the gate passes (over the first `spoken` parity sentences); the caller rewrites
    the manifest's hashes afterwards."""
    pack = CosyPack.open(directory)
    staging = directory / ".int8"
    staging.mkdir()
    try:
        replaced = quantize_graphs(pack, staging)
        report = gate(pack, replaced, spoken)
        for role, path in replaced.items():
            path.replace(pack.path(role))
        return report
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def quantize_graphs(pack: CosyPack, staging: Path) -> dict[str, Path]:
    """Every graph of `INT8_GRAPHS` quantized into `staging`: role → file."""
    replaced = {role: staging / pack.path(role).name for role in INT8_GRAPHS}
    for role in DYNAMIC_GRAPHS:
        quantize_graph(pack.path(role), replaced[role])
    calibration = hift_feeds(pack, CALIBRATION)
    quantize_hift(pack.path(HIFT), replaced[HIFT], calibration)
    return replaced


def gate(pack: CosyPack, replaced: dict[str, Path], spoken: int = SPOKEN) -> Int8Report:
    """The figures of the graphs `replaced` against the pack's fp32 ones, over the first
    `spoken` parity sentences; `Int8Refused` when HiFT's audio alone, or the whole audio,
    moves more than its limit, or the LM fed fp32's tokens chooses them less often than its
    limit."""
    c = compare(pack, replaced, spoken)
    distance, hift, forced = c.distance_db, c.hift_distance_db, c.forced_token_agreement
    fp32_bytes = sum(pack.path(role).stat().st_size for role in replaced)
    int8_bytes = sum(path.stat().st_size for path in replaced.values())
    report = Int8Report(tuple(replaced), round(distance, 3), round(hift, 3),
                        round(c.greedy_token_agreement, 3), round(forced, 3),
                        fp32_bytes, int8_bytes)  # fmt: skip
    log.info("int8 against fp32: %s", report.as_dict())
    if forced < MIN_FORCED_AGREEMENT:
        raise Int8Refused(
            f"the int8 LM, fed fp32's tokens, chooses them at {100 * forced:.0f} % of the "
            f"positions (limit {100 * MIN_FORCED_AGREEMENT:.0f} %); convert without --int8"
        )
    if hift > MAX_HIFT_DISTANCE_DB:
        raise Int8Refused(
            f"int8 HiFT changes the audio by {hift:.2f} dB log-mel (limit "
            f"{MAX_HIFT_DISTANCE_DB:.1f}); convert without --int8"
        )
    if distance > MAX_DISTANCE_DB:
        raise Int8Refused(
            f"int8 graphs change the audio by {distance:.1f} dB log-mel (limit "
            f"{MAX_DISTANCE_DB:.1f}); convert without --int8"
        )
    return report
