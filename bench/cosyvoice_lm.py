"""The CosyVoice LM step's cost per token early and late in a long clause, as exported now and
as exported before, not in CI: `python -m bench.cosyvoice --model-dir DIR --lm-before-after`
`[--tokens 200] [--threads 1]` (or `python -m bench.cosyvoice_lm` with the same arguments).

Before: the step graph that takes its cache (keys, values and projected distances) in and
gives a new one back, so onnxruntime copies it at every token (`bench.cosyvoice_lm_before`).
Now: the converter's graph, whose cache the runtime's LmCache keeps in place (buffers bound
as input and output, the new rows written into them). Both are exported from the same model
directory in the CosyVoice conversion venv (`--torch-python`), then quantized as
`--int8` packs are; each graph is timed in its own process of this Python (onnxruntime, no
torch): a prefill of `PROMPT_POSITIONS` random positions, then `--tokens` greedy decode
steps (the end of speech never chosen), each fed the previous token's embedding. Reported
per graph: the median ms of the first and of the last 20 steps (the median, as the machine is
shared), the graph's size, RSS after
loading and at peak, and a digest of the greedy tokens (equal digests: the same tokens).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROMPT_POSITIONS = 30  # sos, speaker, about 25 text tokens, task id: a short clause's prompt
EDGE_TOKENS = 20
VARIANTS = ("before fp32", "now fp32", "before int8", "now int8")


def _file(work: Path, variant: str) -> Path:
    return work / (variant.replace(" ", "-") + ".onnx")


def export_variants(model_dir: Path, work: Path) -> None:
    """Conversion venv: both step graphs of `model_dir`, fp32 and int8, and the inputs the
    timing workers feed (the speech-token embeddings, a random prompt)."""
    import numpy as np
    import torch

    from bench.cosyvoice_lm_before import export_before
    from cosyedge.packs.convert_cosyvoice import load_models
    from cosyedge.packs.cosyvoice_export import OPSET, export_all
    from cosyedge.packs.cosyvoice_int8 import quantize_graph

    torch.set_num_threads(1)
    models = load_models(model_dir)
    llm = models["llm"]
    export_all(models, work, ("llm_step",))
    (work / "llm_step.onnx").replace(_file(work, "now fp32"))
    export_before(llm, _file(work, "before fp32"), OPSET)
    for kind in ("before", "now"):
        quantize_graph(_file(work, f"{kind} fp32"), _file(work, f"{kind} int8"))
    table = llm.speech_embedding.weight.detach().numpy().astype(np.float32)
    np.save(work / "speech_embedding.npy", table)
    prompt = np.random.default_rng(0).normal(0, 1, (1, PROMPT_POSITIONS, table.shape[1]))
    np.save(work / "prompt.npy", prompt.astype(np.float32))


def _rss_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def time_variant(graph: Path, work: Path, threads: int, tokens: int) -> dict:
    """This Python (onnxruntime): prefill, then `tokens` greedy steps, each timed."""
    import numpy as np
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    session = ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
    rss_loaded = _rss_mb("VmRSS")
    table, xs = np.load(work / "speech_embedding.npy"), np.load(work / "prompt.npy")
    step = _stepper(session)
    chosen, seconds = [], []
    for _ in range(tokens + 1):
        started = time.perf_counter()
        logp, context = step(xs)
        seconds.append(time.perf_counter() - started)
        chosen.append(int(np.argmax(logp[0, : table.shape[0]])))  # never the end of speech
        xs = table[chosen[-1]].reshape(1, 1, -1)
    steps = seconds[1:]
    return {
        f"ms_first_{EDGE_TOKENS}": round(1000 * float(np.median(steps[:EDGE_TOKENS])), 1),
        f"ms_last_{EDGE_TOKENS}": round(1000 * float(np.median(steps[-EDGE_TOKENS:])), 1),
        "context": context,
        "graph_mb": round(graph.stat().st_size / 1e6, 1),
        "rss_loaded_mb": round(rss_loaded),
        "peak_rss_mb": round(_rss_mb("VmHWM")),
        "tokens_sha": hashlib.sha256(json.dumps(chosen).encode()).hexdigest()[:12],
    }


def _stepper(session):
    """A function running the step on new positions, giving their log-probabilities and the
    context after them: the runtime's LmCache for the graph now, a cache fed in and taken
    back whole for the graph before."""
    import numpy as np

    names = [i.name for i in session.get_inputs()]
    if "att_cache" not in names:
        from cosyedge.speech.voices.cosycache import LmCache

        cache = LmCache(session)
        return lambda xs: (cache.step(xs), cache.length)
    layers, heads, _, width = session.get_inputs()[1].shape
    state = {"cache": np.zeros((layers, heads, 0, width), np.float32)}

    def step(xs):
        cached, new = state["cache"].shape[2], xs.shape[1]
        mask = np.tril(np.ones((1, new, cached + new), dtype=bool), k=cached)
        logp, state["cache"] = session.run(None, {"xs": xs, "att_cache": state["cache"],
                                                  "mask": mask})  # fmt: skip
        return logp, cached + new

    return step


def _run(python: Path, *args: str, threads: int = 1) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "PYTHONPATH": str(REPO)}
    command = [str(python), "-m", "bench.cosyvoice_lm", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO)


def before_after(model_dir: Path, work: Path, torch_python: Path, threads: int,
                 tokens: int) -> list[dict]:  # fmt: skip
    """Export in the conversion venv, then time each variant in its own process."""
    work.mkdir(parents=True, exist_ok=True)
    done = _run(torch_python, "--export", "--model-dir", str(model_dir), "--work", str(work))
    if done.returncode:
        raise SystemExit(f"export failed: {done.stderr.strip().splitlines()[-1:]}")
    rows = []
    for variant in VARIANTS:
        done = _run(Path(sys.executable), "--time", str(_file(work, variant)), "--work",
                    str(work), "--threads", str(threads), "--tokens", str(tokens),
                    threads=threads)  # fmt: skip
        result = json.loads(done.stdout.strip().splitlines()[-1]) if not done.returncode else {
            "error": done.stderr.strip().splitlines()[-1:]}  # fmt: skip
        rows.append({"graph": variant, "threads": threads, **result})
        print(json.dumps(rows[-1]), flush=True)
    print(side_by_side(rows))
    return rows


def side_by_side(rows: list[dict]) -> str:
    """One line a precision: ms a token over the first and the last 20, before and now."""
    first, last = f"ms_first_{EDGE_TOKENS}", f"ms_last_{EDGE_TOKENS}"
    by_name = {row["graph"]: row for row in rows if first in row}
    lines = []
    for precision in ("fp32", "int8"):
        cells = [
            f"{kind} {by_name[name][first]:.0f} -> {by_name[name][last]:.0f} ms"
            for kind in ("before", "now")
            if (name := f"{kind} {precision}") in by_name
        ]
        lines.append(f"{precision}, first -> last {EDGE_TOKENS} tokens: " + ", ".join(cells))
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path)
    parser.add_argument("--work", type=Path, default=REPO / "bench" / "results" / "lm-steps")
    parser.add_argument("--torch-python", type=Path, default=REPO / ".venv-cosyvoice/bin/python")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tokens", type=int, default=200)
    parser.add_argument("--export", action="store_true")
    parser.add_argument("--time", type=Path)
    args = parser.parse_args(argv)
    if args.export:
        export_variants(args.model_dir, args.work)
    elif args.time:
        print(json.dumps(time_variant(args.time, args.work, args.threads, args.tokens)))
    else:
        before_after(args.model_dir, args.work, args.torch_python, args.threads, args.tokens)


if __name__ == "__main__":
    main(sys.argv[1:])
