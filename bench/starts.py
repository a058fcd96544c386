"""Start-up, the first start apart from warm restarts: `python -m bench.starts [--reps N]`.

How long `cosyedge run` on the default configuration takes from its exec to READY, the
sd_notify message systemd's Type=notify waits for (the daemon sends it once the broker has
acknowledged its subscriptions), read from a datagram socket named in NOTIFY_SOCKET as
systemd would be; and when each `starting: ...` STATUS came, so the time is seen by phase.

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
    config: Path, env: dict[str, str], notify: socket.socket, python: str = sys.executable
) -> dict[str, float]:
    """One start to READY with `python`: seconds to READY, to the first of each STATUS's
    phase, and to each kept file the start made (its log line)."""
    started = time.monotonic()
    daemon = subprocess.Popen(
        [python, "-m", "cosyedge", "run", "--config", str(config)],
        cwd=REPO,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    made: dict[str, float] = {}
    reader = threading.Thread(target=_made, args=(daemon, started, made), daemon=True)
    reader.start()
    try:
        return {**_until_ready(notify, started), **made}
    finally:
        daemon.terminate()
        daemon.wait(timeout=60)


def _made(daemon: subprocess.Popen, started: float, made: dict[str, float]) -> None:
    """When each kept file was made, from the daemon's log: `made <what> (...)`, `saved
    optimized model for <model>`."""
    assert daemon.stderr is not None
    for line in daemon.stderr:
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


def measure(reps: int, tmp: Path) -> dict[str, list[dict[str, float]]]:
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
    runs: dict[str, list[dict[str, float]]] = {"packaged": [], "first": [], "warm": []}
    try:
        for rep in range(reps):
            config = _fresh(tmp / f"packaged{rep}", port)
            runs["packaged"].append(run_once(config, env, notify, packaged))
            config = _fresh(tmp / f"gateway{rep}", port)
            runs["first"].append(run_once(config, env, notify))
            runs["warm"].append(run_once(config, env, notify))
            print(f"rep {rep + 1}: {[runs[k][-1] for k in runs]}", file=sys.stderr)
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
    lines = ["| start | to READY, median | min-max | phases (median s from exec) |"]
    lines.append("|---|---:|---:|---|")
    kinds = (
        ("packaged", "first start, tables shipped (empty state_dir)"),
        ("first", "first start, development install (empty state_dir)"),
        ("warm", "warm restart"),
    )
    for kind, label in kinds:
        ready = [r["ready_s"] for r in runs[kind]]
        phases = sorted({p for r in runs[kind] for p in r if p != "ready_s"})
        shown = "; ".join(
            f"{p}: {statistics.median(r[p] for r in runs[kind] if p in r):.1f}" for p in phases
        )
        span = f"{min(ready):.1f}-{max(ready):.1f} s"
        lines.append(f"| {label} | {statistics.median(ready):.1f} s | {span} | {shown} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.starts", description=__doc__)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    at_start = machine()
    with tempfile.TemporaryDirectory(prefix="bench-starts-") as tmp:
        runs = measure(args.reps, Path(tmp))
    report = {"machine": at_start, "load_average_end": os.getloadavg(), "runs": runs}
    print(f"{report['machine']}, load average at the end {report['load_average_end']}")
    print(table(runs))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "starts.json").write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
