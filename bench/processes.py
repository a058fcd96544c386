"""Measurements that need a fresh process each: load time, start-up to ready-to-speak, peak
memory per utterance length. Systems take turns, run by run."""

from __future__ import annotations

import dataclasses
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.systems import System
from bench.texts import LONG_CLAUSES, REPO, long_alert


def probe(system: System, threads: int | None, state_dir: Path | None, text: str | None) -> dict:
    spec = {
        "system": dataclasses.asdict(system),
        "threads": threads,
        "state_dir": str(state_dir) if state_dir else None,
        "text": text,
    }
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.probe", json.dumps(spec)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    result: dict = {}
    for line in process.stdout:
        kind, _, payload = line.partition(" ")
        if kind == "READY":
            result["startup_s"] = time.perf_counter() - started
        if kind in ("READY", "DONE"):
            result |= json.loads(payload)
    stderr = process.stderr.read() if process.stderr else ""
    if process.wait() != 0 or ("peak_rss_mb" not in result and text):
        raise RuntimeError(f"probe for {system.key} failed:\n{stderr}")
    return result


def loading(all_systems: list[System], reps: int) -> list[dict]:
    """Each system's own defaults; ours both on a first start (no saved optimized graph) and on
    a later one (reusing it)."""
    warm_dirs = {}
    for system in all_systems:
        if system.ours:
            warm_dirs[system.key] = Path(tempfile.mkdtemp(prefix="bench-state-"))
            probe(system, None, warm_dirs[system.key], None)  # saves the optimized graphs
    runs: dict[str, list[dict]] = {}
    for _ in range(reps):
        for system in all_systems:
            if system.ours:
                cold = probe(system, None, Path(tempfile.mkdtemp(prefix="bench-state-")), None)
                runs.setdefault(f"{system.key}:first-start", []).append(cold)
                warm = probe(system, None, warm_dirs[system.key], None)
                runs.setdefault(f"{system.key}:later-start", []).append(warm)
            else:
                runs.setdefault(system.key, []).append(probe(system, None, None, None))
    rows = []
    for key, values in runs.items():
        system, _, start = key.partition(":")
        row = {"system": system, "start": start or "any", "runs": len(values)}
        for field in ("import_s", "load_s", "first_phrase_s", "startup_s", "rss_after_load_mb"):
            row[field] = statistics.median(v[field] for v in values)
        rows.append(row)
    return rows


def memory(all_systems: list[System]) -> list[dict]:
    """Peak RSS of a process that loads a voice and speaks one alert of 1 to 4 clauses (the
    longest is one sentence of about 14 s)."""
    rows = []
    state = Path(tempfile.mkdtemp(prefix="bench-state-"))
    for system in all_systems:
        if system.ours:
            probe(system, 1, state, None)  # a later start: the optimized graphs are saved
    for clauses in range(1, len(LONG_CLAUSES) + 1):
        for system in all_systems:
            result = probe(system, 1, state if system.ours else None, long_alert(clauses))
            rows.append({"system": system.key, "clauses": clauses} | result)
    return rows
