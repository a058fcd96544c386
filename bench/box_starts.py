"""The packaged first start, under systemd: `sudo python -m bench.box_starts DEB [--reps N]`.

Boots a real systemd 252 in namespaces (`systemd-box`, as tests/test_box.py), installs the
.deb as a gateway would and times, from the service's exec to its READY as systemd timed them
(`ExecMainStartTimestampMonotonic` to `ActiveEnterTimestampMonotonic`), N times each, taking
turns:
- first start, tables shipped: `/var/lib/cosyedge/models` emptied, the service started; it
  reads the package's tables and makes only the optimized graphs;
- warm restart: the same again, as every later start finds it;
- first start, tables made: `models` emptied and the package's tables moved aside, as a
  package without them (every version before they were shipped) starts: the tables are made
  in `state_dir/models` first.

Prints a markdown table with the date, CPU, cores and the load average, and writes
bench/results/box_starts.json. Needs root and the systemd-box launcher beside the checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

from bench.memory import machine

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from box import ASOUND_CONF, Box, box_script  # noqa: E402  (the tests' own launcher)

RESULTS = REPO / "bench" / "results"
UNIT = "cosyedge.service"
TABLES = "/opt/cosyedge/share/cosyedge/tables"
ASIDE = "/root/tables-aside"
KINDS = {
    "shipped": "first start, tables shipped (empty models/)",
    "warm": "warm restart",
    "made": "first start, tables made (empty models/, none shipped)",
}


def installed(box: Box, deb: Path) -> None:
    """The package installed in the booted `box` as tests/test_box.py installs it."""
    box.copy(Path("/var/lib/dpkg"), "/var/lib/dpkg")
    box.copy(Path("/etc/mosquitto"), "/etc/mosquitto")
    box.sh("rm -f /usr/sbin/policy-rc.d /etc/mosquitto/conf.d/cosyedge.conf")
    box.write("/etc/asound.conf", ASOUND_CONF)
    box.copy(deb, "/root/")
    box.sh(f"dpkg -i /root/{deb.name}", timeout=300)
    box.wait_until(lambda: box.show(UNIT, "ActiveState") == "active", "service active", 300)


def ready_s(box: Box, before: str) -> float:
    """Seconds from exec to READY of a start made after `before` ran with the unit stopped."""
    box.sh(f"systemctl stop {UNIT} && {before} && systemctl start {UNIT}", timeout=300)
    started = int(box.show(UNIT, "ExecMainStartTimestampMonotonic"))
    return (int(box.show(UNIT, "ActiveEnterTimestampMonotonic")) - started) / 1e6


def measure(box: Box, reps: int) -> dict[str, list[float]]:
    empty = "rm -rf /var/lib/cosyedge/models"
    runs: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for rep in range(reps):
        runs["shipped"].append(ready_s(box, empty))
        runs["warm"].append(ready_s(box, "true"))
        runs["made"].append(ready_s(box, f"{empty} && mv {TABLES} {ASIDE}"))
        box.sh(f"mv {ASIDE} {TABLES}")
        print(f"rep {rep + 1}: {[runs[k][-1] for k in KINDS]}", file=sys.stderr)
    return runs


def table(runs: dict[str, list[float]]) -> str:
    lines = ["| start, exec to READY | median | min-max |", "|---|---:|---:|"]
    for kind, label in KINDS.items():
        times = runs[kind]
        spread = f"{min(times):.1f}-{max(times):.1f} s"
        lines.append(f"| {label} | {statistics.median(times):.1f} s | {spread} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.box_starts", description=__doc__)
    parser.add_argument("deb", type=Path, help="cosyedge's .deb (scripts/package's last line)")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    script = box_script()
    if script is None or os.geteuid() != 0:
        raise SystemExit("bench.box_starts needs root and the systemd-box launcher")
    at_start = machine()
    box = Box(script, Path(f"/tmp/cosyedge-bench-box-{os.getpid()}"))
    try:
        booted = box.up()
        if booted.returncode != 0:
            raise SystemExit(f"systemd-box cannot boot here: {booted.stderr.strip()[-300:]}")
        installed(box, args.deb.resolve())
        runs = measure(box, args.reps)
    finally:
        box.down()
    report = {"machine": at_start, "load_average_end": os.getloadavg(), "runs": runs}
    print(f"{report['machine']}, load average at the end {report['load_average_end']}")
    print(table(runs))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "box_starts.json").write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
