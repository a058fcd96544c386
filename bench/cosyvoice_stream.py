"""A CosyVoice clause's first audio, streamed in chunks against spoken whole, not in CI:
`python -m bench.cosyvoice_stream --pack P [--text-tokens 6,15,30] [--rounds 5] [--threads 1]`.

For each clause length (text tokens; the LM decodes 20 speech tokens a text token, its end
never drawn, so every clause is as long as it may be), in one process and alternating round
by round: streamed as the voice speaks it (cosystream: the first chunk's audio after 120
tokens, one chunk's flow and HiFT), and whole as the voice spoke before (every token, then
the flow and HiFT of the whole clause). The same speech tokens either way (the same LM
generator). Reports the median time to the first audio and to the last, and the log-mel
distance between the two audios over the samples both have (their noise is drawn per chunk
in one and per clause in the other, so it is set beside the distance between two whole
renderings of other noise).
Onnxruntime alone (no torch). Writes JSON under bench/results/.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from cosyedge.config.voices import SessionConfig
from cosyedge.packs.cosyvoice_parity import audio_log_mel_db
from cosyedge.speech.voices.cosypack import CosyPack
from cosyedge.speech.voices.cosystream import RngDraws, stream_clause
from cosyedge.speech.voices.cosyvoice import CosyvoiceModels, RasSampler

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"


def never_ending(models: CosyvoiceModels, seed: int) -> RasSampler:
    ras = RasSampler(np.random.default_rng(seed), models.eos)
    return lambda logp, decoded, ignore_eos: ras(logp, decoded, True)  # type: ignore[return-value]


def streamed(models: CosyvoiceModels, ids: list[int], seed: int) -> Iterator[np.ndarray]:
    tokens = models.speech_token_stream(ids, never_ending(models, seed))
    return stream_clause(models, tokens, RngDraws(np.random.default_rng(seed + 1)))


def whole(models: CosyvoiceModels, ids: list[int], seed: int, noise: int) -> Iterator[np.ndarray]:
    tokens = models.speech_tokens(ids, never_ending(models, seed))
    draws = RngDraws(np.random.default_rng(noise))
    frames = models.speaker.prompt_feat.shape[0] + models.mel_frames(len(tokens))
    mel = models.mel(tokens, draws.flow_noise(frames))
    yield models.audio(mel, *draws.source_draws(mel.shape[1] * 256))


def timed(chunks: Iterator[np.ndarray]) -> tuple[float, float, np.ndarray]:
    """Seconds to the first chunk, to the last, and the audio joined."""
    started = time.perf_counter()
    first, parts = None, []
    for chunk in chunks:
        first = first if first is not None else time.perf_counter() - started
        parts.append(chunk)
    return float(first or 0.0), time.perf_counter() - started, np.concatenate(parts)


def distance(a: np.ndarray, b: np.ndarray) -> float:
    """Log-mel distance (dB) over the samples both have: a streamed clause's chunks each
    round their frames down, so it may be a few frames shorter than the whole one."""
    n = min(len(a), len(b))
    return round(audio_log_mel_db(a[:n], b[:n]), 3)


def measure(pack_dir: Path, lengths: list[int], rounds: int, threads: int) -> dict:
    settings = SessionConfig(intra_op_threads=threads, save_optimized=False)
    models = CosyvoiceModels.load(CosyPack.open(pack_dir), settings)
    timed(streamed(models, list(range(200, 200 + lengths[0])), 7))  # warm up, not counted
    rows = []
    for n in lengths:
        ids = list(range(200, 200 + n))
        times: dict[str, list[tuple[float, float]]] = {"streamed": [], "whole": []}
        for _ in range(rounds):
            *t, stream_audio = timed(streamed(models, ids, 7))
            times["streamed"].append(tuple(t))
            *t, whole_audio = timed(whole(models, ids, 7, 8))
            times["whole"].append(tuple(t))
        other = timed(whole(models, ids, 7, 9))[2]
        row = {"text_tokens": n, "speech_s": round(len(whole_audio) / 22050, 2)}
        for name, pairs in times.items():
            row[f"{name}_first_s"] = round(float(np.median([p[0] for p in pairs])), 3)
            row[f"{name}_last_s"] = round(float(np.median([p[1] for p in pairs])), 3)
        row["streamed_vs_whole_log_mel_db"] = distance(stream_audio, whole_audio)
        row["whole_other_noise_log_mel_db"] = distance(other, whole_audio)
        print(json.dumps(row), flush=True)
        rows.append(row)
    return {"pack": str(pack_dir), "threads": threads, "rounds": rounds, "rows": rows}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pack", type=Path, required=True)
    parser.add_argument("--text-tokens", default="6,15,30")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    lengths = [int(n) for n in args.text_tokens.split(",")]
    result = measure(args.pack, lengths, args.rounds, args.threads)
    result |= {"machine": platform.processor() or platform.machine(), "cpus": os.cpu_count()}
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"cosyvoice_stream-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
