"""The CPU of `cosyedge say` of a phrase in the cache against a bare `python -c "import numpy,
yaml"` on the same machine, side by side in one run.

    python -m bench.say [--reps N]

The phrase is said once first (synthesized into a cache of a temporary state and cache
directory), then each command runs `--reps` times, taking turns, each a fresh process writing
a WAV file (`--out`: no sound device needed). CPU is the process's user and system time (as
`wait4` gives it, espeak-ng's included when the Mandarin front end runs it); medians, the
ratio of the medians, and the load average at start and end. Both run from compiled bytecode,
as an installed package does (pip compiles it): the caches go to a temporary
`PYTHONPYCACHEPREFIX`, written by a first run of each; `--source` compiles every module at
every run instead (PYTHONDONTWRITEBYTECODE), as a development tree set so does. Also which of
the modules a cache hit should not need were imported (`-X importtime`).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.texts import REPO

PHRASE = "Forklift in aisle four."
NOT_NEEDED = ("onnxruntime", "hibari", "scipy", "sounddevice", "pypinyin")


def cpu_of(argv: list[str], env: dict[str, str]) -> float:
    """User plus system CPU seconds of one run of `argv`, which must succeed."""
    process = subprocess.Popen(
        argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(
            f"{argv} failed: {process.stderr.read().decode() if process.stderr else ''}"
        )
    return usage.ru_utime + usage.ru_stime


def imported(argv: list[str], env: dict[str, str]) -> set[str]:
    """The top-level packages `argv` (a Python command) imports."""
    out = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]], cwd=REPO, env=env, capture_output=True, text=True
    )
    names = (line.split("|")[-1].strip() for line in out.stderr.splitlines() if "|" in line)
    return {name.split(".")[0] for name in names}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--source", action="store_true", help="no bytecode kept between runs")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-say-"))
    env = dict(os.environ)
    if args.source:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    config = work / "cosyedge.yaml"
    config.write_text(f"state_dir: {work / 'state'}\ncache:\n  dir: {work / 'cache'}\n")
    say = [sys.executable, "-m", "cosyedge", "say", PHRASE, "--config", str(config)]
    say += ["--out", str(work / "out.wav")]
    bare = [sys.executable, "-c", "import numpy, yaml"]
    cpu_of(say, env)  # synthesized, and in the cache from now on
    cpu_of(bare, env)  # its bytecode written, as the phrase's
    load_start = os.getloadavg()
    runs: dict[str, list[float]] = {"say": [], "bare": []}
    for rep in range(args.reps):
        order = [("say", say), ("bare", bare)]
        for name, argv in order[rep % 2 :] + order[: rep % 2]:
            runs[name].append(cpu_of(argv, env))
    load_end = os.getloadavg()
    say_s, bare_s = (statistics.median(runs[k]) for k in ("say", "bare"))
    needless = sorted(imported(say, env) & set(NOT_NEEDED))
    print(
        f"{datetime.date.today().isoformat()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"{'from source' if args.source else 'from bytecode'}, "
        f"medians of {args.reps} runs taking turns, load average {load_start[0]:.1f} at start, "
        f"{load_end[0]:.1f} at end\n\n"
        f"| command | CPU s |\n|---|---:|\n"
        f"| `cosyedge say`, phrase in the cache | {say_s:.3f} |\n"
        f'| `python -c "import numpy, yaml"` | {bare_s:.3f} |\n'
        f"| ratio | {say_s / bare_s:.2f}x |\n\n"
        f"imported by the cache hit, not needed by it: {', '.join(needless) or 'none'}"
    )


if __name__ == "__main__":
    main()
