"""Start-up, the first start apart from warm restarts: `python -m bench.starts [--reps N]`.

How long `cosyedge run` on the default configuration takes from its exec to hearing alerts
(`subscribed_s`: the broker acknowledged the subscriptions, so alerts are journaled and
queued from then on; read from the daemon's log line) and to READY, the sd_notify message
systemd's Type=notify waits for (`ready_s`: the voices are loaded as well, so alerts are
said), read from a datagram socket named in NOTIFY_SOCKET as systemd would be; and when each
`starting: ...` STATUS came, so the time is seen by phase. `--ref REV` runs a git revision
(a worktree made for the run) taking turns with this checkout, for figures side by side.

- first start, packaged: an empty `state_dir` and cache, as on a gateway right after the
  package is installed: hibari's G2P tables and pypinyin's reading tables are where the package
  ships them, made as scripts/package makes them (`devtools/tables.py`) under the prefix of a
  venv laid out as the package's (it reads this one's packages); the daemon makes the voices'
  optimized graphs in `state_dir/models`, then renders the fallback phrases;
- first start, development install: the same without shipped tables (a source checkout), so
  the daemon also makes the tables in `state_dir/models`;
- warm restart: the same directories again, as every later start finds them.

Each run is a fresh process against a local Mosquitto, taking turns (packaged, first, warm, ...),
on an ALSA file sink (no sound card needed). Libraries are in the page cache after the first
run; a gateway's very first start after installing also reads them from its disk, which this
does not measure. Prints a markdown table with the date, CPU, cores and the load average, and
writes bench/results/starts.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path

from bench.memory import machine
from cosyedge.mqtt.broker import LocalBroker

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
READY_TIMEOUT_S = 300.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_once(
    config: Path,
    env: dict[str, str],
    notify: socket.socket,
    repo: Path = REPO,
    python: str = sys.executable,
) -> dict[str, float]:
    """One start to READY of the code in `repo` with `python`: seconds to READY, to
    subscribed, to the first of each STATUS's phase, and to each kept file the start made (its
    log line)."""
    started = time.monotonic()
    daemon = subprocess.Popen(
        [python, "-m", "cosyedge", "run", "--config", str(config)],
        cwd=repo,
        env={**env, "PYTHONPATH": str(repo)},
        stderr=subprocess.PIPE,
        text=True,
    )
    made: dict[str, float] = {}
    reader = threading.Thread(target=_made, args=(daemon, started, made), daemon=True)
    reader.start()
    try:
        times = _until_ready(notify, started)
        deadline = time.monotonic() + 5  # the log line of the subscription, before READY
        while "subscribed_s" not in made and time.monotonic() < deadline:
            time.sleep(0.01)
        return {**times, **made}
    finally:
        daemon.terminate()
        daemon.wait(timeout=60)


def _made(daemon: subprocess.Popen, started: float, made: dict[str, float]) -> None:
    """When each kept file was made, from the daemon's log: `made <what> (...)`, `saved
    optimized model for <model>`."""
    assert daemon.stderr is not None
    for line in daemon.stderr:
        if "subscribed to" in line:
            made.setdefault("subscribed_s", time.monotonic() - started)
        found = re.search(r"(made [^(]+?) \(|(saved optimized model for \S+)", line)
        if found:
            made.setdefault(found.group(1) or found.group(2), time.monotonic() - started)


def _until_ready(notify: socket.socket, started: float) -> dict[str, float]:
    times: dict[str, float] = {}
    deadline = started + READY_TIMEOUT_S
    while (left := deadline - time.monotonic()) > 0:
        notify.settimeout(left)
        for line in notify.recv(65536).decode(errors="replace").splitlines():
            at = time.monotonic() - started
            if line == "READY=1":
                return {**times, "ready_s": at}
            phase = line.removeprefix("STATUS=").partition(" at ")[0][:60]
            if line.startswith("STATUS=starting") and phase not in times:
                times[phase] = at
    raise TimeoutError(f"no READY within {READY_TIMEOUT_S:g} s")


def measure(reps: int, tmp: Path, sides: dict[str, Path]) -> dict[str, list[dict[str, float]]]:
    """`reps` first starts and warm restarts of each side (name: its checkout), taking turns."""
    port = free_port()
    broker = LocalBroker("127.0.0.1", port, tmp / "broker")
    broker.start()
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp / "notify"))
    asoundrc = tmp / "asoundrc"
    asoundrc.write_text('pcm.!default { type file\n slave.pcm "null"\n file "/dev/null" }\n')
    env = {
        **os.environ,
        "NOTIFY_SOCKET": str(tmp / "notify"),
        "ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{asoundrc}",
    }
    packaged = packaged_python(tmp / "venv")
    runs: dict[str, list[dict[str, float]]] = {}
    try:
        for rep in range(reps):
            for side, repo in sides.items():
                starts = [("packaged", _fresh(tmp / f"packaged-{side}-{rep}", port), packaged)]
                config = _fresh(tmp / f"gateway-{side}-{rep}", port)
                starts += [("first", config, sys.executable), ("warm", config, sys.executable)]
                for kind, config, python in starts:
                    run = run_once(config, env, notify, repo, python)
                    runs.setdefault(f"{side}:{kind}", []).append(run)
                    print(f"rep {rep + 1} {side} {kind}: {run}", file=sys.stderr)
    finally:
        notify.close()
        broker.stop()
    return runs


def packaged_python(prefix: Path) -> str:
    """The interpreter of a venv at `prefix` laid out as the package's for its tables (in
    `share/cosyedge/tables`, made as scripts/package makes them), reading this venv's
    packages (a .pth file adds its site-packages)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(prefix)], check=True)
    site = Path(sysconfig.get_paths(vars={"base": str(prefix)})["purelib"])
    ours = sysconfig.get_paths()["purelib"]
    (site / "development.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    tables = prefix / "share" / "cosyedge" / "tables"
    subprocess.run([sys.executable, "-m", "devtools.tables", str(tables)], cwd=REPO, check=True)
    return str(prefix / "bin" / "python")


def checkout(rev: str, directory: Path) -> Path:
    """The code of git revision `rev`, exported into `directory` (the repository untouched)."""
    directory.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], cwd=REPO, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(directory)], input=archive.stdout, check=True)
    return directory


def _fresh(directory: Path, port: int) -> Path:
    """A gateway just installed: the default configuration, nothing in state or cache."""
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    config = directory / "cosyedge.yaml"
    config.write_text(
        f"mqtt: {{port: {port}, local_broker: false}}\n"
        f"cache: {{dir: {directory}/cache}}\nstate_dir: {directory}/state\n"
    )
    return config


def table(runs: dict[str, list[dict[str, float]]]) -> str:
    lines = [
        "| start | code | to subscribed, median | to READY, median | READY min-max | phases"
        " (median s from exec) |"
    ]
    lines.append("|---|---|---:|---:|---:|---|")
    labels = {
        "packaged": "first start, tables shipped (empty state_dir)",
        "first": "first start, development install (empty state_dir)",
        "warm": "warm restart",
    }
    for key in sorted(runs, key=lambda k: (k.split(":")[1], k)):
        side, kind = key.split(":")
        done = runs[key]
        ready = [r["ready_s"] for r in done]
        subscribed = [r["subscribed_s"] for r in done if "subscribed_s" in r]
        phases = sorted({p for r in done for p in r if p not in ("ready_s", "subscribed_s")})
        shown = "; ".join(
            f"{p}: {statistics.median(r[p] for r in done if p in r):.1f}" for p in phases
        )
        heard = f"{statistics.median(subscribed):.2f} s" if subscribed else "-"
        span = f"{min(ready):.1f}-{max(ready):.1f} s"
        lines.append(
            f"| {labels[kind]} | {side} | {heard} | {statistics.median(ready):.1f} s | {span}"
            f" | {shown} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.starts", description=__doc__)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--ref", help="a git revision to run side by side (e.g. main)")
    args = parser.parse_args()
    at_start = machine()
    with tempfile.TemporaryDirectory(prefix="bench-starts-") as tmp:
        sides = {"this checkout": REPO}
        if args.ref:
            sides = {args.ref: checkout(args.ref, Path(tmp) / "ref"), **sides}
        runs = measure(args.reps, Path(tmp), sides)
    report = {"machine": at_start, "load_average_end": os.getloadavg(), "runs": runs}
    print(f"{report['machine']}, load average at the end {report['load_average_end']}")
    print(table(runs))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "starts.json").write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
