"""The CosyVoice flow's Euler steps and guidance against what they cost, not in CI: `python -m
bench.cosyvoice_flow --pack P [--steps 10,8,6,5,4,3,2] [--guidance on,off] [--threads 1]`.

For each step count, with and without classifier-free guidance: the mean log-mel distance
(dB) of its audio to the released flow's, 10 steps with guidance (the parity sentences'
greedy tokens, the same noise for every count: what `convert-cosyvoice --flow-steps N
[--no-guidance]` records in the manifest), and the flow's time per clause (the mel from the
tokens: encoder, regulator and the estimator's steps), mean over the sentences. Runs with
onnxruntime alone (no torch). On a random-weight pack the distances say how the schedule
behaves on such a model, not how released weights sound with fewer steps. Writes JSON under
bench/results/.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from cosyedge.config.voices import SessionConfig
from cosyedge.packs import evaluate
from cosyedge.packs.cosyvoice_flow import distances_to_released
from cosyedge.packs.cosyvoice_int8 import pcm16, speak
from cosyedge.packs.cosyvoice_parity import SENTENCES, SPOKEN
from cosyedge.speech.voices.cosypack import CosyPack
from cosyedge.speech.voices.cosytokens import BpeTokenizer
from cosyedge.speech.voices.cosyvoice import CosyvoiceModels, greedy_sampler

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
REPEATS = 5  # the flow's time is the best of these, the machine being shared


def flow_seconds(models: CosyvoiceModels, token_lists: list[list[int]]) -> float:
    """Mean seconds of the flow (tokens to mel) per clause, best of REPEATS."""
    best = []
    for tokens in token_lists:
        noise = np.random.default_rng(0).standard_normal(
            (1, 80, models.speaker.prompt_feat.shape[0] + models.mel_frames(len(tokens))),
            dtype=np.float32,
        )
        times = []
        for _ in range(REPEATS):
            started = time.perf_counter()
            models.mel(tokens, noise)
            times.append(time.perf_counter() - started)
        best.append(min(times))
    return float(np.mean(best))


def measure(
    pack_dir: Path, counts: tuple[int, ...], threads: int, guidances: tuple[bool, ...] = (True,)
) -> dict:
    pack = CosyPack.open(pack_dir)
    settings = SessionConfig(intra_op_threads=threads, save_optimized=False)
    models = CosyvoiceModels.load(pack, settings)
    bpe = BpeTokenizer.load(pack.path("tokenizer"))
    sentences = SENTENCES[:SPOKEN]
    tokens = [models.speech_tokens(bpe.encode(s), greedy_sampler(models.eos)) for s in sentences]
    rows = []
    for guidance in guidances:
        distances = distances_to_released(pack, counts, sentences, guidance)
        for n in counts:
            seconds = flow_seconds(replace(models, flow_steps=n, guidance=guidance), tokens)
            rows.append({"steps": n, "guidance": guidance, "log_mel_db_to_10": distances[n],
                         "flow_s_per_clause": round(seconds, 4)})  # fmt: skip
            print(json.dumps(rows[-1]), flush=True)
    audio_s = float(np.mean([len(t) for t in tokens])) / 50
    return {"pack": str(pack_dir), "threads": threads, "clause_audio_s": audio_s, "rows": rows,
            "other_noise_log_mel_db": other_noise(pack, models, tokens)}  # fmt: skip


def other_noise(pack: CosyPack, models: CosyvoiceModels, token_lists: list[list[int]]) -> float:
    """The scale the distances are read on: 10 steps against 10 steps from other random draws
    (flow noise, source phases and noise), mean log-mel dB over the sentences."""
    models = replace(models, flow_steps=10)
    distances = [
        evaluate.log_mel_distance(
            pcm16(speak(models, tokens, i)), pcm16(speak(models, tokens, 100 + i)), pack.sample_rate
        )
        for i, tokens in enumerate(token_lists)
    ]
    print(json.dumps({"other_noise_log_mel_db": round(float(np.mean(distances)), 3)}))
    return round(float(np.mean(distances)), 3)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pack", type=Path, required=True)
    parser.add_argument("--steps", default="10,8,6,5,4,3,2")
    parser.add_argument("--guidance", default="on", help="on, off or on,off")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    counts = tuple(int(n) for n in args.steps.split(","))
    guidances = tuple(g == "on" for g in args.guidance.split(","))
    report = measure(args.pack, counts, args.threads, guidances)
    report["machine"] = {"cpu": platform.machine(), "cores": os.cpu_count(),
                         "load_average": os.getloadavg()}  # fmt: skip
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"cosyvoice-flow-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
