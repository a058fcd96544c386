"""Building the packages as a release is built: `sudo python -m bench.package`.

A clean clone of HEAD in a temporary directory (nothing of this checkout's .venv, build/ or
dist/), then, each timed on its own:
- `scripts/setup`, the clone's development environment from the locks (uv's cache as this
  machine has it: say whether it was warm);
- `scripts/package`, the two .debs (the setup again, now a check, then the venv at
  /opt/cosyedge in a mount namespace, the staging and dpkg-deb);
- lintian on each .deb, every check of it (tests/test_package.py leaves out those that
  cannot fail on these packages: packaging/README.md).

Needs root (scripts/package's mount namespace), dpkg-deb and lintian. Prints a markdown table
with the date, CPU, cores and load average, and writes bench/results/package.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.memory import machine

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
LINTIAN = ("lintian", "--fail-on", "error,warning", "--tag-display-limit", "0")


def timed(command: list[str], cwd: Path) -> tuple[float, str]:
    """Seconds `command` took, and its standard output; raises when it fails."""
    started = time.monotonic()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=3600)
    took = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return took, done.stdout


def measure(tmp: Path) -> dict[str, float]:
    clone = tmp / "cosyedge"
    subprocess.run(["git", "clone", "--quiet", "--no-local", str(REPO), str(clone)], check=True)
    figures = {"setup_s": timed(["scripts/setup"], clone)[0]}
    figures["package_s"], printed = timed(["scripts/package", str(tmp / "dist")], clone)
    for deb in (Path(line) for line in printed.split()):
        name = deb.name.split("_")[0]
        figures[f"lintian_{name}_s"] = timed([*LINTIAN, str(deb)], clone)[0]
        figures[f"size_{name}_mib"] = deb.stat().st_size / 2**20
        installed = subprocess.run(
            ["dpkg-deb", "-f", str(deb), "Installed-Size"], capture_output=True, text=True
        )
        figures[f"installed_{name}_mib"] = int(installed.stdout) / 1024  # dpkg counts KiB
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.package", description=__doc__)
    parser.parse_args()
    if os.geteuid() != 0 or not shutil.which("lintian"):
        sys.exit("bench.package needs root (scripts/package) and lintian")
    # scripts/setup installs with uv, whose cache is in the user's cache directory.
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "uv"
    report: dict = {"machine": machine(), "uv_cache_warm": cache.is_dir()}
    with tempfile.TemporaryDirectory(prefix="bench-package-") as tmp:
        report["figures"] = measure(Path(tmp))
    report["load_average_end"] = os.getloadavg()
    print(json.dumps(report, indent=1))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "package.json").write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
