"""The CPU of `cosyedge say` of a phrase in the cache against a bare `python -c "import numpy,
yaml"` on the same machine, side by side in one run.

    python -m bench.say [--reps N] [--ref REV]

The phrase is said once first (synthesized into a cache of a temporary state and cache
directory), then each command runs `--reps` times, taking turns, each a fresh process writing
a WAV file (`--out`: no sound device needed). CPU is the process's user and system time (as
`wait4` gives it, espeak-ng's included when the Mandarin front end runs it); medians, the
ratio of the medians, and the load average at start and end. Both run from compiled bytecode,
as an installed package does (pip compiles it): the caches go to a temporary
`PYTHONPYCACHEPREFIX`, written by a first run of each; `--source` compiles every module at
every run instead (PYTHONDONTWRITEBYTECODE), as a development tree set so does. `--ref REV`
runs the `cosyedge say` of a git revision too (exported beside, the repository untouched),
taking turns with the others. Also which of the modules a cache hit should not need were
imported (`-X importtime`).
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

from bench.starts import checkout
from bench.texts import REPO

PHRASE = "Forklift in aisle four."
ONE_THREAD = "OPENBLAS_NUM_THREADS=1"
NOT_NEEDED = ("onnxruntime", "hibari", "scipy", "sounddevice", "pypinyin")


def cpu_of(argv: list[str], env: dict[str, str], cwd: Path = REPO) -> float:
    """User plus system CPU seconds of one run of `argv` in `cwd` (whose `cosyedge` it runs),
    which must succeed."""
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
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
    parser.add_argument("--ref", help="a git revision to run side by side (e.g. main)")
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
    sides = {"this checkout": REPO}
    if args.ref:
        sides[args.ref] = checkout(args.ref, work / "ref")
    commands = {side: (say, directory) for side, directory in sides.items()}
    bare = [sys.executable, "-c", "import numpy, yaml"]
    commands["bare"] = (bare, REPO)
    # The same with numpy's OpenBLAS on one thread, as cosyedge runs it (cli.py): a bare
    # import's CPU is mostly its BLAS threads spinning, which vary from run to run.
    commands[ONE_THREAD] = (["env", "OPENBLAS_NUM_THREADS=1", *bare], REPO)
    for argv, directory in commands.values():  # said once: in the cache, bytecode written
        cpu_of(argv, {**env, "PYTHONPATH": str(directory)}, directory)
    load_start = os.getloadavg()
    runs = taking_turns(commands, env, args.reps)
    load_end = os.getloadavg()
    needless = sorted(imported(say, env) & set(NOT_NEEDED))
    print(
        f"{datetime.date.today().isoformat()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"{'from source' if args.source else 'from bytecode'}, "
        f"medians of {args.reps} runs taking turns, load average {load_start[0]:.1f} at start, "
        f"{load_end[0]:.1f} at end\n\n{table(runs)}\n\n"
        f"imported by the cache hit, not needed by it: {', '.join(needless) or 'none'}"
    )


def taking_turns(
    commands: dict[str, tuple[list[str], Path]], env: dict[str, str], reps: int
) -> dict[str, list[float]]:
    """CPU seconds of each command's runs, `reps` each, the first of each round rotating."""
    runs: dict[str, list[float]] = {name: [] for name in commands}
    names = list(commands)
    for rep in range(reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            argv, directory = commands[name]
            runs[name].append(cpu_of(argv, {**env, "PYTHONPATH": str(directory)}, directory))
    return runs


def table(runs: dict[str, list[float]]) -> str:
    """Medians of each `cosyedge say` and of the bare imports, and their ratios to both."""
    bare, one = statistics.median(runs["bare"]), statistics.median(runs[ONE_THREAD])
    lines = [
        "| command | CPU s | / bare import | / bare import, one BLAS thread |",
        "|---|---:|---:|---:|",
    ]
    names = {"bare": '`python -c "import numpy, yaml"`', ONE_THREAD: f"the same, {ONE_THREAD}"}
    for name, cpu in runs.items():
        what, median = names.get(name, f"`cosyedge say`, {name}"), statistics.median(cpu)
        lines.append(f"| {what} | {median:.3f} | {median / bare:.2f}x | {median / one:.2f}x |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
