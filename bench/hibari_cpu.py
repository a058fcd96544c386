"""CPU per second of audio and memory of cosyedge's hibari voice against hibari's own runtime,
for each way of handing a step's memory back, side by side in one run.

    python -m bench.hibari_cpu [--reps N] [--slacks 0,6,12,24] [--rounds N]

Every variant runs in a fresh process of its own (so the heap one leaves is not the next
one's), the processes taking turns rep by rep, the first rotating. Each loads its voice with
one thread, speaks a warm-up phrase, then the same texts (the bench's three speed texts and
long unique alerts of three clauses) `--rounds` times; cosyedge's voice through `Renderer`,
as the daemon says a phrase. It reports CPU seconds of the whole process per second of audio
(counted as `python -m bench` counts it: from asking for the phrase to its last chunk),
the peak RSS above the loaded voice (VmHWM, reset after the warm-up), and what RSS stays above
it at the end; against hibari's, the ratio of the medians and the median of each rep's ratio
(the machine's load drifts less within a rep than across the run). Variants: `hibari`
(hibari's `Hibari`), `each step` (a hand-back after every step), `slack N` (a hand-back once
RSS is N MB above its floor, `STEP_SLACK_MB`), `never`; options after a comma (`steps N`,
`clauses`, `arena`, `gaussian`: the vocoder's noise drawn as hibari draws it, `mmap KiB` and
`trim MiB`: glibc's thresholds fixed there). Medians over
reps; the load average at start and end.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

import numpy as np

from bench.texts import REPO, SPEED_TEXTS

RESULTS = REPO / "bench" / "results"
WORDS = [
    "pump",
    "valve",
    "boiler",
    "sensor",
    "pressure",
    "flow",
    "line",
    "station",
    "feed",
    "cooling",
    "water",
    "tank",
    "motor",
    "belt",
    "filter",
    "heater",
    "relief",
    "bypass",
    "drain",
    "level",
    "alarm",
]


def long_text(n: int) -> str:
    """About 190 characters in three clauses, different for every n."""
    words = [WORDS[(n * 7 + i * 3) % len(WORDS)] for i in range(24)]
    return (
        f"Report {n}: {' '.join(words[:8])}, then {' '.join(words[8:16])}, "
        f"and finally {' '.join(words[16:])} at station {n * 13}."
    )


def texts(rounds: int) -> list[str]:
    return [
        t for r in range(rounds) for t in (*SPEED_TEXTS.values(), long_text(r), long_text(r + 50))
    ]


def child(variant: str, rounds: int) -> dict:
    """One variant in this process: load, warm up, speak the texts; its figures."""
    from bench.inprocess import timed
    from bench.systems import HIBARI_FAMILY, System
    from cosyedge.speech.memory import peak_rss_mb, reset_peak, rss_mb

    ours = variant != "hibari"
    if ours:
        _use_variant(variant)
    system = System("x", variant, HIBARI_FAMILY, "int8", ours)
    speaker = system.load(1)
    for text in SPEED_TEXTS.values():  # warm-up: the lexicons, the first-call allocations
        list(speaker.stream(text))
    loaded = rss_mb()
    reset_peak()
    cpu, audio = 0.0, 0.0
    for text in texts(rounds):
        # As the project's benchmark counts (bench/inprocess.py): from the first call for
        # audio to the last chunk; a fresh phrase cache is opened before, the phrase cached
        # after.
        _, _, samples, used = timed(speaker.stream(text))
        cpu += used
        audio += samples / speaker.sample_rate
    return {
        "cpu_per_audio_s": cpu / audio,
        "audio_s": audio,
        "loaded_mb": loaded,
        "peak_above_mb": peak_rss_mb() - loaded,
        "end_above_mb": rss_mb() - loaded,
    }


def _use_variant(variant: str) -> None:
    """What `variant` hands back (and, after a comma, `steps N`: MAX_PHONEMES; `arena`:
    onnxruntime's memory arena; `clauses`: a step per clause, as before, instead of a step per
    sentence), set before the voice is made."""
    from cosyedge.speech.voices import hibari

    hand_back, *options = (part.strip() for part in variant.split(","))
    if hand_back == "each step":
        hibari.STEP_SLACK_MB = 0.0
    elif hand_back == "never":
        hibari.STEP_SLACK_MB = float("inf")
    else:
        hibari.STEP_SLACK_MB = float(hand_back.split()[1])
    for option in options:
        if option == "arena":
            hibari.MEMORY_ARENA = True
        elif option == "clauses":
            _step_per_clause()
        elif option == "gaussian":
            _gaussian_noise()
        elif option.startswith("mmap"):
            _mallopt(-3, int(option.split()[1]) << 10)  # M_MMAP_THRESHOLD
        elif option.startswith("trim"):
            _mallopt(-1, int(option.split()[1]) << 20)  # M_TRIM_THRESHOLD
        else:
            hibari.MAX_PHONEMES = int(option.split()[1])


def _gaussian_noise() -> None:
    """The vocoder's noise drawn as hibari's own runtime draws it: numpy's Gaussian."""
    import dataclasses

    from cosyedge.speech.voices.vocoder import Vocoder

    def gaussian(rng, out, work):
        rng.standard_normal(dtype=np.float32, out=out.view(np.float32))

    synth = Vocoder.synth  # the method replaced
    Vocoder.synth = lambda self, *parts, rng: synth(
        dataclasses.replace(self, noise=gaussian), *parts, rng=rng
    )


def _mallopt(option: int, value: int) -> None:
    """One of glibc's malloc settings fixed (`mmap`: blocks this large and more are mapped on
    their own, given back as they are freed; `trim`: free memory at the heap's top given back
    past this); either stops glibc adjusting both thresholds as blocks are freed."""
    from cosyedge.speech.allocator import libc_function

    mallopt = libc_function("mallopt")
    assert mallopt is not None and mallopt(option, value) == 1


def _step_per_clause() -> None:
    """As before: a step per clause (`split_clauses`), each cut past MAX_PHONEMES."""
    from cosyedge.speech.voices import hibari
    from cosyedge.speech.voices.clauses import split_clauses

    def units(self, words, lexicon, applied):  # the method replaced
        for clause in split_clauses(lexicon.mark(words, hibari._markup, applied)):
            yield from self._phonemes(clause)

    hibari.HibariG2P.units = units


def run(variant: str, rounds: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "bench.hibari_cpu", "child", variant, str(rounds)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    if sys.argv[1:2] == ["child"]:
        print(json.dumps(child(sys.argv[2], int(sys.argv[3]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--slacks", default="6,12,24")
    parser.add_argument("--variants", help="instead: ';'-separated, e.g. 'never, steps 128'")
    args = parser.parse_args()
    variants = ["hibari", "each step", *(f"slack {s}" for s in args.slacks.split(",")), "never"]
    if args.variants:
        variants = ["hibari", *args.variants.split(";")]
    load_start = os.getloadavg()
    runs: dict[str, list[dict]] = {v: [] for v in variants}
    for rep in range(args.reps):
        turn = rep % len(variants)
        for variant in variants[turn:] + variants[:turn]:
            runs[variant].append(run(variant, args.rounds))
            print(f"rep {rep} {variant}: {runs[variant][-1]}", file=sys.stderr, flush=True)
    load_end = os.getloadavg()
    theirs = statistics.median(r["cpu_per_audio_s"] for r in runs["hibari"])
    print(
        f"{datetime.date.today().isoformat()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"one thread, medians of {args.reps} runs taking turns, load average "
        f"{load_start[0]:.1f} at start, {load_end[0]:.1f} at end\n"
    )
    print(
        "| variant | CPU s per audio s | / hibari's own | the same rep's, median "
        "| peak above loaded | kept at end |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    rows = []
    for variant, values in runs.items():
        cpu = statistics.median(r["cpu_per_audio_s"] for r in values)
        paired = statistics.median(
            r["cpu_per_audio_s"] / h["cpu_per_audio_s"]
            for r, h in zip(values, runs["hibari"], strict=True)
        )
        peak = statistics.median(r["peak_above_mb"] for r in values)
        end = statistics.median(r["end_above_mb"] for r in values)
        rows.append(
            {"variant": variant, "cpu": cpu, "ratio": cpu / theirs, "paired": paired}
            | {"peak": peak, "end": end}
        )
        print(
            f"| {variant} | {cpu:.4f} | {cpu / theirs:.2f}x | {paired:.2f}x "
            f"| {peak:.1f} MB | {end:+.1f} MB |"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "hibari_cpu.json").write_text(
        json.dumps({"load": [load_start, load_end], "rows": rows, "runs": runs}, indent=1)
    )


if __name__ == "__main__":
    main()
