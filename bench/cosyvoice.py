"""CosyVoice-300M at full size, not in CI: `python -m bench.cosyvoice --model-dir DIR --pack P`
`[--int8-pack Q] [--threads 1,2] [--tokens 100]`.

Measures, in one run, each in its own process so memory figures do not mix:
- the converted pack on onnxruntime (fp32, and int8 when given), at 1 and 2 threads;
- the reference PyTorch inference (eager) on the same weights, at 1 and 2 threads (run in the
  CosyVoice conversion venv, `--torch-python`, default .venv-cosyvoice/bin/python);
for one alert of two clauses with a fixed length (`--tokens` speech tokens a clause, 200 =
4 s of speech, sampled as the reference samples but never ending early), so both runtimes
produce the same amount of audio whatever random weights decide. Each clause is spoken
streamed, as each runtime streams (the pack: cosystream, its LM paused while a chunk's flow
and HiFT run; the reference: `CosyVoiceModel.tts(stream=True)`, its LM in a thread of its
own): time to the first chunk's audio, to the first clause's last, real-time factor, the
LM's time per token, the estimator's per Euler step, HiFT's per clause, load time, RSS after
load and peak RSS, and for each clause the LM's mean ms a token over its first and its last
20 tokens (`lm_ms_by_clause`; a clause holds at most 20 speech tokens a text token: these
two have 12 and 11).
Beside them, the seeds' claims: RTF 0.35, first packet 210 ms, 1.1-1.4 GB. Random weights:
speed and memory only, quality is not measured. Writes JSON under bench/results/.

`--lm-before-after` times the LM step alone, as the converter exported it before (every
relative distance projected at every step) and as it does now (projections cached), fp32 and
int8, side by side: see bench/cosyvoice_lm.py.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
CLAUSES = (
    "Pressure alarm on line seven, pump two has stopped,",
    "check the valve before the operator restarts line seven.",
)
SEEDS_CLAIMS = {"rtf": 0.35, "first_packet_ms": 210, "rss_gb": "1.1-1.4"}
EDGE_TOKENS = 20


def _rss_mb() -> float:
    with open("/proc/self/statm", "rb") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Timer:
    """Wraps a callable, adding up its time and calls, and keeping each call's time."""

    def __init__(self, fn):
        self.fn, self.seconds, self.calls, self.each = fn, 0.0, 0, []

    def __call__(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.each.append(time.perf_counter() - started)
            self.seconds += self.each[-1]
            self.calls += 1


def first_last_ms(each: list[float], edge: int = EDGE_TOKENS) -> dict[str, float]:
    """Mean ms of the first and of the last `edge` of a clause's decode steps (the prefill,
    call 0, left out): the LM's cost per token early and late in a clause."""
    steps = each[1:]
    return {
        f"ms_first_{edge}": round(1000 * sum(steps[:edge]) / len(steps[:edge]), 1),
        f"ms_last_{edge}": round(1000 * sum(steps[-edge:]) / len(steps[-edge:]), 1),
    }


class TimedSession:
    """An onnxruntime session whose runs are timed: `run`, and `run_with_iobinding` (the LM
    step's, its cache bound in place by cosycache.LmCache) on a timer of its own."""

    def __init__(self, session) -> None:
        self.run = Timer(session.run)
        self.run_with_iobinding = Timer(session.run_with_iobinding)
        self.get_inputs = session.get_inputs
        self.io_binding = session.io_binding


def _figures(
    clause_s: list[float], first_audio_s: float, samples: int, rate: int, loaded: float
) -> dict:
    audio_s = samples / rate
    return {
        "first_audio_s": round(first_audio_s, 2),
        "first_clause_s": round(clause_s[0], 2),
        "total_s": round(sum(clause_s), 2),
        "audio_s": round(audio_s, 2),
        "rtf": round(sum(clause_s) / audio_s, 2),
        "load_s": round(loaded, 1),
        "rss_loaded_mb": round(_rss_mb()),
        "peak_rss_mb": round(_peak_mb()),
    }


def worker_ort(pack_dir: Path, threads: int, tokens: int) -> dict:
    import numpy as np

    from cosyedge.config import SessionConfig
    from cosyedge.speech.voices.cosypack import CosyPack
    from cosyedge.speech.voices.cosystream import RngDraws, stream_clause
    from cosyedge.speech.voices.cosytokens import BpeTokenizer
    from cosyedge.speech.voices.cosyvoice import CosyvoiceModels, RasSampler

    started = time.perf_counter()
    pack = CosyPack.open(pack_dir, verify=False)
    settings = SessionConfig(intra_op_threads=threads, save_optimized=False)
    models = CosyvoiceModels.load(pack, settings)
    loaded = time.perf_counter() - started
    rss_loaded = _rss_mb()
    bpe = BpeTokenizer.load(pack.path("tokenizer"))
    timers = {}
    for role in ("llm_step", "estimator", "hift_core", "hift_source"):
        timed = TimedSession(models.sessions[role])
        models.sessions[role] = timed
        timers[role] = timed.run_with_iobinding if role == "llm_step" else timed.run
    clause_s, samples, per_clause, first_audio = [], 0, [], None
    for i, clause in enumerate(CLAUSES):
        rng = np.random.default_rng(i)
        ras = RasSampler(rng, models.eos)

        def fixed(logp, decoded, ignore_eos, ras=ras):
            if len(decoded) >= tokens:
                return models.eos
            return ras(logp, decoded, True)

        t0 = time.perf_counter()
        ids = bpe.encode(clause)
        calls = timers["llm_step"].calls
        decoding = models.speech_token_stream(ids, fixed)
        for chunk in stream_clause(models, decoding, RngDraws(rng)):
            first_audio = first_audio or time.perf_counter() - t0
            samples += len(chunk)
        per_clause.append(first_last_ms(timers["llm_step"].each[calls:]))
        clause_s.append(time.perf_counter() - t0)
    result = _figures(clause_s, first_audio, samples, pack.sample_rate, loaded)
    result["rss_loaded_mb"] = round(rss_loaded)
    result["ms_per_token"] = round(1000 * timers["llm_step"].seconds / timers["llm_step"].calls)
    result["lm_ms_by_clause"] = per_clause
    result["estimator_s_per_step"] = round(
        timers["estimator"].seconds / timers["estimator"].calls, 3
    )
    hift = timers["hift_core"].seconds + timers["hift_source"].seconds
    result["hift_s_per_clause"] = round(hift / len(CLAUSES), 2)
    return result


def worker_torch(model_dir: Path, threads: int, tokens: int) -> dict:
    import torch

    from cosyedge.packs.convert_cosyvoice import load_models
    from cosyedge.packs.cosyvoice_parity import whisper_tokenizer
    from cosyedge.packs.cosyvoice_reference import read_yaml, tokenizer_settings

    torch.set_num_threads(threads)
    started = time.perf_counter()
    models = load_models(model_dir)
    from cosyvoice.cli.model import CosyVoiceModel  # after load_models stood in for torchaudio

    loaded = time.perf_counter() - started
    rss_loaded = _rss_mb()
    tokenizer = whisper_tokenizer(tokenizer_settings(read_yaml(model_dir / "cosyvoice.yaml")))
    llm, flow, hift = models["llm"], models["flow"], models["hift"]
    reference_sampling = llm.sampling
    eos = llm.speech_token_size

    def fixed(scores, decoded, sampling):
        if len(decoded) >= tokens:
            return torch.tensor(eos)
        scores = scores.clone()
        scores[eos] = -float("inf")
        return reference_sampling(scores, decoded, sampling)

    llm.sampling = fixed
    embedding = torch.randn(1, 192, generator=torch.Generator().manual_seed(0))
    model = CosyVoiceModel(llm, flow, hift)
    clause_s, samples, first_audio = [], 0, None
    with torch.no_grad():
        for clause in CLAUSES:
            t0 = time.perf_counter()
            text = torch.tensor([tokenizer.encode(clause)], dtype=torch.int32)
            for chunk in model.tts(text=text, flow_embedding=embedding, llm_embedding=embedding,
                                   stream=True):  # fmt: skip
                first_audio = first_audio or time.perf_counter() - t0
                samples += chunk["tts_speech"].shape[1]
            clause_s.append(time.perf_counter() - t0)
    result = _figures(clause_s, first_audio, samples, 22050, loaded)
    result["rss_loaded_mb"] = round(rss_loaded)
    return result


def run_worker(python: Path, kind: str, path: Path, threads: int, tokens: int) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "PYTHONPATH": str(REPO)}
    command = [str(python), "-m", "bench.cosyvoice", "--worker", kind, "--path", str(path),
               "--threads", str(threads), "--tokens", str(tokens)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path)
    parser.add_argument("--pack", type=Path)
    parser.add_argument("--int8-pack", type=Path)
    parser.add_argument("--torch-python", type=Path, default=REPO / ".venv-cosyvoice/bin/python")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--tokens", type=int, default=200)
    parser.add_argument("--worker", choices=("ort", "torch"))
    parser.add_argument("--path", type=Path)
    parser.add_argument(
        "--lm-before-after",
        action="store_true",
        help="only the LM step, exported as before and as now, ms a token early and late in a "
        "clause of --tokens (bench/cosyvoice_lm.py)",
    )
    args = parser.parse_args(argv)
    if args.lm_before_after:
        from bench.cosyvoice_lm import before_after

        work = RESULTS / "lm-steps"
        before_after(args.model_dir, work, args.torch_python, int(args.threads.split(",")[0]),
                     args.tokens)  # fmt: skip
        return
    if args.worker:
        work = worker_ort if args.worker == "ort" else worker_torch
        print(json.dumps(work(args.path, int(args.threads), args.tokens)))
        return
    runs = []
    for threads in (int(t) for t in args.threads.split(",")):
        for label, kind, python, path in (
            ("onnxruntime fp32", "ort", Path(sys.executable), args.pack),
            ("onnxruntime int8", "ort", Path(sys.executable), args.int8_pack),
            ("torch eager", "torch", args.torch_python, args.model_dir),
        ):
            if path is None:
                continue
            result = run_worker(python, kind, path, threads, args.tokens)
            runs.append({"runtime": label, "threads": threads, **result})
            print(json.dumps(runs[-1]), flush=True)
    report = {
        "machine": {
            "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count(),
            "load_average": os.getloadavg(),
        },
        "tokens_per_clause": args.tokens,
        "clauses": CLAUSES,
        "seeds_claims": SEEDS_CLAIMS,
        "runs": runs,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"cosyvoice-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print(f"written {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
