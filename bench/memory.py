"""Memory and load time of the front ends, side by side in one run:
`python -m bench.memory [--reps N]`.

- RSS of the daemon once started (default config, nothing said), with hibari's lexicons and
  tagger read from tables kept in state_dir, and with hibari's own G2P holding them as Python
  objects (what the daemon falls back to where state_dir cannot keep the tables); and with
  glibc's default of a malloc arena per thread instead of one (`one_malloc_arena`); and what
  of that RSS is anonymous memory and what the libraries' file pages;
- the English voice's load time with a warm state_dir, both ways;
- `cosyedge say` of a phrase already in the cache: wall time and peak RSS, as it is (no voice
  loaded) and with every voice loaded first (as it was before);
- what the Mandarin front end adds to a process with the first Chinese phrase (its front end
  made, the phrase read into pinyin), with pypinyin's readings from tables kept in state_dir,
  and as it was: pypinyin's own dictionaries and wetext's graphs loaded.

Every figure comes from a fresh process, the variants taking turns, medians of N. Prints a
markdown table and writes bench/results/memory.json.

`python -m bench.memory child KIND ...` is one such process (`own-g2p`: hibari's own G2P, as
where the tables cannot be kept; `arenas`: an arena per thread).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
PHRASE = "Emergency stop at packing station 3."
# With a sign the pre-pass leaves as it is: before, such a phrase loaded wetext's graphs.
ZH_PHRASE = "3号泵出口压力1.24MPa，超过上限±0.05MPa，请立即检查"  # noqa: RUF001
WAYS = ("tables", "own-g2p")
ZH_WAYS = ("tables", "own")
SETTLE_S = 2.0  # after the start-up log line: MQTT retries and the cache index, then quiet


# --- in the child process ---------------------------------------------------------------------


def use_own_g2p() -> None:
    """hibari's own G2P from here on, as where state_dir cannot keep the tables."""
    from cosyedge.speech.voices import hibari_tables

    hibari_tables.SavedTables.open = lambda self, british: None  # type: ignore[method-assign]


def child_load(state_dir: str) -> None:
    """Time the English voice's load alone: its modules are imported first."""
    import hibari.g2p
    import hibari.tts  # noqa: F401

    import cosyedge.speech.voices.hibari
    import cosyedge.speech.voices.hibari_tables  # noqa: F401
    from cosyedge.config import VoiceConfig
    from cosyedge.speech.memory import rss_mb
    from cosyedge.speech.voices import load_voice, settle_memory

    before = rss_mb()
    started = time.perf_counter()
    voice = load_voice("en", VoiceConfig(engine="hibari"), Path(state_dir))
    seconds = time.perf_counter() - started
    settle_memory()  # as the daemon does after loading its voices
    print(json.dumps({"load_s": seconds, "load_rss_mb": rss_mb() - before, "voice": voice.name}))


def child_zh_first(way: str, saved_dir: str) -> None:
    """What the Mandarin front end adds with the first Chinese phrase, its modules imported
    first. `own`: pypinyin's own readings, and wetext's graphs as the front end loaded them
    for this phrase before (the pre-pass leaves ± to it)."""
    import cosyedge.speech.voices.zhfront
    from cosyedge.speech.kept import SavedDir
    from cosyedge.speech.lexicon import NO_LEXICON
    from cosyedge.speech.memory import rss_mb

    saved = SavedDir(Path(saved_dir)) if way == "tables" else None
    before = rss_mb()
    started = time.perf_counter()
    front = cosyedge.speech.voices.zhfront.mandarin_front_end("zh", 1, "zh", NO_LEXICON, saved)
    words = front.words(ZH_PHRASE)
    if way == "own":
        from wetext import Normalizer

        words = Normalizer(lang="zh", operator="tn").normalize(words)
    units = list(front.units_of(words, NO_LEXICON, []))
    seconds = time.perf_counter() - started
    print(json.dumps({"zh_s": seconds, "zh_rss_mb": rss_mb() - before, "units": units}))


def child_say_loading_voices(config_path: str, text: str, out: str) -> None:
    """`cosyedge say` as it was: every voice loaded, then the phrase from the cache."""
    import numpy as np

    from cosyedge.config import load_config
    from cosyedge.speech.cache import PhraseCache
    from cosyedge.speech.render import Renderer
    from cosyedge.speech.voices import load_voices

    config = load_config(Path(config_path))
    voices = load_voices(config.voices, config.state_dir / "models", config.pronunciations)
    cache = PhraseCache.from_config(config.cache)
    rendering = Renderer(voices, cache).render(text)
    assert rendering.source == "cache", "the phrase is not in the cache"
    np.save(out, np.concatenate(list(rendering.chunks)))


def arena_per_thread() -> None:
    """glibc's default from here on: an arena for each thread that allocates."""
    import cosyedge.daemon

    cosyedge.daemon.one_malloc_arena = lambda: False  # type: ignore[attr-defined]


def child(kind: str, args: list[str]) -> None:
    if kind in ("own-g2p", "arenas"):
        use_own_g2p() if kind == "own-g2p" else arena_per_thread()
        kind, args = args[0], args[1:]
    if kind == "cosyedge":
        from cosyedge.cli import main

        raise SystemExit(main(args))
    if kind == "load":
        child_load(*args)
    elif kind == "say-loading-voices":
        child_say_loading_voices(*args)
    elif kind == "zh-first":
        child_zh_first(*args)


# --- in the parent ----------------------------------------------------------------------------


def command(way: str, kind: str, *args: str) -> list[str]:
    prefix = [way] if way in ("own-g2p", "arenas") else []
    return [sys.executable, "-m", "bench.memory", "child", *prefix, kind, *args]


def write_config(directory: Path) -> Path:
    """The default config, its broker a port nobody listens on (the daemon retries, as at a
    site whose broker is down), its cache and state in `directory`."""
    config = directory / "cosyedge.yaml"
    config.write_text(
        "mqtt:\n  port: 9\n  local_broker: false\n"
        f"cache:\n  dir: {directory / 'cache'}\nstate_dir: {directory / 'state'}\n"
    )
    return config


def status_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for process {pid}")


def daemon_start(way: str, config: Path) -> dict:
    """RSS of a daemon started with `config`, once it has logged its start-up figure."""
    process = subprocess.Popen(
        command(way, "cosyedge", "run", "--config", str(config)),
        cwd=REPO,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    logged = None
    for line in process.stderr:
        found = re.search(r"RSS now (\d+) MB", line)
        if found:
            logged = float(found.group(1))
            break
    if logged is None:
        raise RuntimeError(f"the daemon ({way}) ended before it was ready")
    time.sleep(SETTLE_S)
    rss = status_mb(process.pid, "VmRSS:")
    # What of it is the process's own (heap, Python's objects, tensors) and what is pages of
    # the libraries' files, clean, shared with the page cache and mapped in folios whose size
    # is the kernel's and the file system's choice (docs/measurements.md).
    anon, files = status_mb(process.pid, "RssAnon:"), status_mb(process.pid, "RssFile:")
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=30)
    return {"logged_rss_mb": logged, "rss_mb": rss, "anon_mb": anon, "file_mb": files}


def load(way: str, state_dir: Path) -> dict:
    done = subprocess.run(
        command(way, "load", str(state_dir)), cwd=REPO, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"load ({way}) failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def zh_first(way: str, saved_dir: Path) -> dict:
    done = subprocess.run(
        command("now", "zh-first", way, str(saved_dir)), cwd=REPO, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"first Chinese phrase ({way}) failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def timed_peak(cmd: list[str]) -> dict:
    """Wall time and the child's peak RSS (this parent is smaller than any child measured, so
    the peak it inherits at fork does not show)."""
    started = time.perf_counter()
    process = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{cmd} failed:\n{process.stderr.read().decode()}")  # type: ignore[union-attr]
    return {"say_s": seconds, "say_peak_rss_mb": usage.ru_maxrss / 1024}


def say(way: str, config: Path, out: Path) -> dict:
    """`now`: `cosyedge say` itself; `before`: every voice loaded first, hibari's own G2P."""
    if way == "before":
        return timed_peak(command("own-g2p", "say-loading-voices", str(config), PHRASE, str(out)))
    return timed_peak(
        command("now", "cosyedge", "say", PHRASE, "--config", str(config), "--out", str(out))
    )


def machine() -> dict:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        "",
    )
    return {
        "date": time.strftime("%Y-%m-%d"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "load_average_start": os.getloadavg(),
    }


def medians(runs: list[dict]) -> dict:
    figures = [key for key, value in runs[0].items() if isinstance(value, float)]
    return {key: statistics.median(run[key] for run in runs) for key in figures}


def measure(reps: int, directory: Path) -> dict[str, dict]:
    config = write_config(directory)
    out = directory / "said.wav"
    # Warm: the tables, the optimized graphs and the phrase are made and kept once.
    warm = command("tables", "cosyedge", "say", PHRASE, "--config", str(config), "--out", str(out))
    subprocess.run(warm, cwd=REPO, check=True, capture_output=True)
    models = directory / "state" / "models"
    said = {way: zh_first(way, models)["units"] for way in ZH_WAYS}  # and the tables made
    assert said["tables"] == said["own"], f"the ways read differently: {said}"
    runs: dict[str, list[dict]] = {}
    for _ in range(reps):
        for way in WAYS:
            runs.setdefault(f"start:{way}", []).append(daemon_start(way, config))
            runs.setdefault(f"load:{way}", []).append(load(way, directory / "state" / "models"))
        runs.setdefault("arena:each", []).append(daemon_start("arenas", config))
        for way in ("now", "before"):
            runs.setdefault(f"say:{way}", []).append(say(way, config, directory / f"{way}.npy"))
        for way in ZH_WAYS:
            runs.setdefault(f"zh:{way}", []).append(zh_first(way, models))
    runs["arena:one"] = runs["start:tables"]
    return {key: medians(values) for key, values in runs.items()}


# (label, key in results, field, unit, format)
ROWS = (
    ("daemon RSS after start (tables / hibari's own G2P)", "start", "rss_mb", "MB", ".0f"),
    ("its start-up log line, `RSS now`", "start", "logged_rss_mb", "MB", ".0f"),
    ("of it anonymous (heap, objects, tensors)", "start", "anon_mb", "MB", ".0f"),
    ("of it the libraries' files (code, read-only data)", "start", "file_mb", "MB", ".0f"),
    ("daemon RSS after start (one malloc arena / one per thread)", "arena", "rss_mb", "MB",
     ".0f"),
    ("English voice load, warm state_dir", "load", "load_s", "s", ".3f"),
    ("RSS the load adds", "load", "load_rss_mb", "MB", ".0f"),
    ("`cosyedge say`, phrase in the cache (no voice / all loaded)", "say", "say_s", "s", ".2f"),
    ("its peak RSS", "say", "say_peak_rss_mb", "MB", ".0f"),
    ("first Chinese phrase: RSS the front end adds (tables / pypinyin + wetext)", "zh",
     "zh_rss_mb", "MB", ".0f"),
    ("its time", "zh", "zh_s", "s", ".3f"),
)  # fmt: skip
BEFORE = {"start": "own-g2p", "arena": "each", "load": "own-g2p", "say": "before", "zh": "own"}
NOW = {"start": "tables", "arena": "one", "load": "tables", "say": "now", "zh": "tables"}


def table(results: dict[str, dict], reps: int) -> str:
    lines = [
        f"Medians of {reps} runs, each in a fresh process, the variants taking turns.",
        "",
        "| measure | now | before | now / before |",
        "|---|---:|---:|---:|",
    ]
    for label, kind, field, unit, form in ROWS:
        now = results[f"{kind}:{NOW[kind]}"][field]
        before = results[f"{kind}:{BEFORE[kind]}"][field]
        cells = f"{now:{form}} {unit} | {before:{form}} {unit} | {now / before:.2f}x"
        lines.append(f"| {label} | {cells} |")
    return "\n".join(lines)


def main() -> None:
    if sys.argv[1:2] == ["child"]:
        child(sys.argv[2], sys.argv[3:])
        return
    parser = argparse.ArgumentParser(prog="python -m bench.memory", description=__doc__)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        results = measure(args.reps, Path(tmp))
    print(f"{machine()}\n" + table(results, args.reps))
    RESULTS.mkdir(parents=True, exist_ok=True)
    report = {"machine": machine(), "reps": args.reps} | results
    (RESULTS / "memory.json").write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
