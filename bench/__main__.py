"""`python -m bench`: speed, load, memory and intelligibility of cosyedge's voices next to each
family's own runtime, printed as markdown tables and written as JSON under bench/results/.

Options: --reps N (default 3), --threads 1,2, --only speed,load,memory,quality,settings,
--alerts FILE (the shared alert set, for the intelligibility texts).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import time
from importlib.metadata import version
from pathlib import Path

from bench import inprocess, processes, report
from bench.systems import systems
from bench.texts import ALERTS, REPO, SPEED_TEXTS, alert_texts

RESULTS = REPO / "bench" / "results"
SECTIONS = ("speed", "load", "memory", "quality", "settings")
DEFAULT_VOICE = "ours-hibari"


def machine() -> dict:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return {
        "date": datetime.date.today().isoformat(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "onnxruntime": version("onnxruntime"),
        "piper-tts": version("piper-tts"),
        "hibari-tts": version("hibari-tts"),
        "load_average_start": os.getloadavg(),
    }


def int8_model() -> tuple[Path, dict | None]:
    """The packaged Piper voice quantized by our own tool, made once and kept in results/."""
    from cosyedge.packs.quantize import quantize_piper
    from cosyedge.speech.voices.piper import packaged_model

    out = RESULTS / "models" / "en_US-joe-medium.int8.onnx"
    if out.exists():
        return out, None
    quantized = quantize_piper(packaged_model(), out)
    print("\n".join(quantized.lines()), flush=True)
    return out, {"distance_db": quantized.distance_db, "int8_mb": quantized.out_bytes / 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--only", default=",".join(SECTIONS))
    parser.add_argument("--alerts", type=Path, default=ALERTS)
    args = parser.parse_args()
    sections = args.only.split(",")
    threads = [int(n) for n in args.threads.split(",")]
    results: dict = {"machine": machine(), "reps": args.reps}
    model, quantized = int8_model()
    results["quantizer"] = quantized
    everything = systems(model)
    out: list[str] = [
        f"Measured {results['machine']['date']} on {results['machine']['cpu']}, "
        f"{results['machine']['cores']} cores, onnxruntime {results['machine']['onnxruntime']}, "
        f"medians of {args.reps} interleaved runs."
    ]
    verdicts: list[str] = []

    def section(name: str, body: str) -> None:
        out.append(f"\n#### {name}\n\n{body}")
        print(out[-1], flush=True)

    started = time.monotonic()
    if "speed" in sections:
        rows = inprocess.speed(everything, threads, SPEED_TEXTS, args.reps)
        results["speed"] = rows
        table, ratios, found = report.speed_tables(rows, everything)
        section("Speed", table)
        section("Speed ratios: cosyedge / the family's own runtime, same model and threads", ratios)
        verdicts += found
    if "load" in sections:
        rows = processes.loading(everything, args.reps)
        results["load"] = rows
        table, found = report.load_tables(rows, everything)
        section("Load (each in a fresh process)", table)
        verdicts += found
    if "memory" in sections:
        rows = processes.memory(everything)
        results["memory"] = rows
        table, found = report.memory_table(rows, everything, DEFAULT_VOICE)
        section("Peak RSS in MB by alert length (one sentence of clauses)", table)
        verdicts += found
    if "quality" in sections and args.alerts.exists():
        texts = alert_texts(20, args.alerts)
        rows = inprocess.quality(everything, texts)
        results["quality"] = rows
        title = f"Intelligibility ({len(texts)} alerts of the shared set)"
        section(title, report.quality_table(rows))
    if "settings" in sections:
        rows = inprocess.session_settings(everything, SPEED_TEXTS, args.reps)
        results["settings"] = rows
        section("Session settings (cosyedge voices)", report.settings_table(rows))
    section("Targets", "\n".join(f"- {v}" for v in verdicts))
    results["machine"]["load_average_end"] = os.getloadavg()
    results["seconds"] = time.monotonic() - started
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    (RESULTS / f"bench-{stamp}.json").write_text(json.dumps(results, indent=1))
    (RESULTS / "latest.md").write_text("\n".join(out) + "\n")
    print(f"\nwrote {RESULTS / f'bench-{stamp}.json'} and {RESULTS / 'latest.md'}")


if __name__ == "__main__":
    main()
