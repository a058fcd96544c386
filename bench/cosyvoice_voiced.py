"""HiFT's voiced parity at full size, not in CI: `python -m bench.cosyvoice_voiced --model-dir
DIR [--seconds 4] [--clauses 3]`, in the CosyVoice conversion venv.

A full conversion at full size takes 17 minutes and 7.5 GB; the part of it that voiced speech
puts at risk is HiFT, whose harmonic source sums the F0 over every sample of a clause. This
exports HiFT's two graphs of a model directory (made voiced by `tests/cosyvoice_tiny.py
--full-size`) twice, with the phase summed in float64 (as the converter does) and in float32
(as it did), and compares each with the reference's HiFT on the same mel, phases and noise:
the harmonic source's max |d|, the audio's max |d| and its log-mel distance (the parity
check's measures). The mel is the reference flow's, on random speech tokens (`--seconds` of
speech a clause). Prints one JSON line per precision and writes them under bench/results/.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import tempfile
import time
from pathlib import Path
from typing import Any
from unittest.mock import patch

import numpy as np

from cosyedge.packs import cosyvoice_export
from cosyedge.packs.convert_cosyvoice import load_models
from cosyedge.packs.cosyvoice_parity import audio_log_mel_db
from cosyedge.speech.voices.cosystream import HARMONICS, MEL_HOP
from cosyedge.speech.voices.cosyvoice import AUDIO_LIMIT, istft, stft

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
TOKEN_RATE = 50

log = logging.getLogger(__name__)


def reference_clause(models: dict[str, Any], tokens: int, seed: int) -> dict[str, np.ndarray]:
    """The reference flow's mel for random tokens, then its HiFT: F0, source and audio, with
    the random draws recorded as the parity check records them."""
    import torch
    from torch.distributions.uniform import Uniform

    flow, hift = models["flow"], models["hift"]
    generator = torch.Generator().manual_seed(seed)
    token = torch.randint(0, 4096, (1, tokens), generator=generator)
    none = torch.zeros(1, 0, dtype=torch.int32)
    embedding = torch.randn(1, 192, generator=generator)
    with torch.no_grad():
        mel, _ = flow.inference(
            token, torch.tensor([tokens]), none, torch.tensor([0]), torch.zeros(1, 0, 80),
            torch.tensor([0]), embedding, torch.zeros(1, 80, 0, 2),
        )  # fmt: skip
        f0 = hift.f0_predictor(mel)
        torch.manual_seed(seed)
        source = hift.m_source(hift.f0_upsamp(f0[:, None]).transpose(1, 2))[0].transpose(1, 2)
        torch.manual_seed(seed)
        audio, _ = hift.inference(speech_feat=mel)
        torch.manual_seed(seed)
        phase = Uniform(low=-math.pi, high=math.pi).sample((1, HARMONICS, 1))
        phase[:, 0, :] = 0
        noise = torch.randn(1, HARMONICS, mel.shape[2] * MEL_HOP)
    arrays = dict(mel=mel, f0=f0, source=source, audio=audio[0], phase=phase, noise=noise)
    return {k: v.numpy() for k, v in arrays.items()}


def graph_clause(directory: Path, ref: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The exported graphs on the reference's mel and draws: source and audio, as the voice
    computes them."""
    import onnxruntime as ort

    def session(name: str) -> Any:
        path = str(directory / f"{name}.onnx")
        return ort.InferenceSession(path, providers=["CPUExecutionProvider"])

    feeds = {"mel": ref["mel"], "phase": ref["phase"], "noise": ref["noise"]}
    (source,) = session("hift_source").run(None, feeds)
    spectrum = stft(source[0, 0])[None]
    core = {"mel": ref["mel"], "source_stft": spectrum}
    magnitude, phase = session("hift_core").run(None, core)
    audio = np.clip(istft(magnitude[0], phase[0]), -AUDIO_LIMIT, AUDIO_LIMIT)
    return source, audio


def measure(model_dir: Path, precision: str, clauses: list[dict]) -> dict[str, Any]:
    """Export HiFT with the phase summed in `precision` and compare it on every clause."""
    import torch

    summed_in_float32 = lambda f_mat: torch.cumsum(f_mat, dim=-1)  # noqa: E731 (as it was)
    phase = summed_in_float32 if precision == "float32" else cosyvoice_export.phase_cycles
    graphs = ("hift_source", "hift_core")
    with (
        tempfile.TemporaryDirectory() as work,
        patch.object(cosyvoice_export, "phase_cycles", phase),
    ):
        cosyvoice_export.export_all(load_models(model_dir), Path(work), graphs)
        results = [graph_clause(Path(work), ref) for ref in clauses]
    pairs = list(zip(results, clauses, strict=True))
    return {
        "precision": precision,
        "source_max_abs": max(float(np.abs(s - r["source"]).max()) for (s, _), r in pairs),
        "audio_max_abs": max(float(np.abs(a - r["audio"]).max()) for (_, a), r in pairs),
        "audio_log_mel_db": max(audio_log_mel_db(a, r["audio"]) for (_, a), r in pairs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, required=True)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--clauses", type=int, default=3)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    logging.basicConfig(level=logging.INFO)
    started = time.monotonic()
    models = load_models(args.model_dir)
    cosyvoice_export.remove_weight_norm(models["hift"])
    tokens = int(args.seconds * TOKEN_RATE)
    clauses = [reference_clause(models, tokens, 100 + i) for i in range(args.clauses)]
    f0 = np.concatenate([c["f0"].ravel() for c in clauses])
    rms = float(np.sqrt(np.mean(np.concatenate([c["audio"].ravel() for c in clauses]) ** 2)))
    common = {"seconds": args.seconds, "clauses": args.clauses, "audio_rms": rms,
              "f0_hz_p1_p99": [float(q) for q in np.percentile(f0, [1, 99])]}  # fmt: skip
    rows = [{**common, **measure(args.model_dir, p, clauses)} for p in ("float64", "float32")]
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"cosyvoice_voiced-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    for row in rows:
        print(json.dumps(row))
    log.info("%.0f s; written to %s", time.monotonic() - started, out)


if __name__ == "__main__":
    main()
