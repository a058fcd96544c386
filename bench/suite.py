"""Where the test suite's time goes: the README's test command's pytest run, timed whole, and
its tests' own time summed by kind (in-process, system, package, box), and their CPU (the
processes each ran included) by kind and for the test files that took the most.

With pytest-xdist the workers' test times add up to more than the wall time; the kinds' sums
say which part to make faster. The load average before and after says how busy the machine
was, as the suite shares it.

Usage: python -m bench.suite [PYTEST_ARGS...]     (CI=true to include the package and box tests)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
APART = {"tests/test_package.py": "package", "tests/test_box.py": "box"}


def pytest(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True)


def system_tests() -> set[str]:
    """The node ids the `system` marker selects."""
    listed = pytest("--collect-only", "-q", "-n", "0", "-m", "system").stdout.splitlines()
    return {line.strip() for line in listed if "::" in line}


def kind(node: str, system: set[str]) -> str:
    path = node.split("::")[0]
    return APART.get(path) or ("system" if node in system else "in-process")


def node_id(case: ET.Element) -> str:
    """A JUnit test case's pytest node id (its classname is the dotted module path)."""
    module = case.get("classname", "").replace(".", "/") + ".py"
    return f"{module}::{case.get('name')}"


def split(report: Path, system: set[str]) -> Counter[str]:
    seconds: Counter[str] = Counter()
    for case in ET.parse(report).iter("testcase"):
        seconds[kind(node_id(case), system)] += float(case.get("time", 0))
    return seconds


def cpu_by_test(directory: Path) -> Counter[str]:
    """The CPU seconds tests/conftest.py recorded per test (COSYEDGE_TEST_CPU)."""
    cpu: Counter[str] = Counter()
    for path in directory.glob("*.jsonl"):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            cpu[record["test"]] += record["cpu_s"]
    return cpu


def print_cpu(cpu: Counter[str], system: set[str], top: int = 15) -> None:
    kinds: Counter[str] = Counter()
    files: Counter[str] = Counter()
    for node, seconds in cpu.items():
        kinds[kind(node, system)] += seconds
        files[node.split("::")[0]] += seconds
    print(f"CPU {sum(cpu.values()):.0f} s: " + ", ".join(f"{k} {v:.0f}" for k, v in kinds.items()))
    for name, seconds in files.most_common(top):
        print(f"{seconds:8.0f} s  {name}")


def main(args: list[str]) -> int:
    system = system_tests()
    with tempfile.TemporaryDirectory() as tmp:
        report, cpu_dir = Path(tmp) / "junit.xml", Path(tmp) / "cpu"
        cpu_dir.mkdir()
        os.environ["COSYEDGE_TEST_CPU"] = str(cpu_dir)
        load = os.getloadavg()[0]
        started = time.monotonic()
        done = pytest("-q", f"--junitxml={report}", *args)
        wall = time.monotonic() - started
        seconds = split(report, system) if report.exists() else Counter()
        cpu = cpu_by_test(cpu_dir)
    out = done.stdout.strip()
    # pytest's short summary: what failed and why, then its count line.
    summary = out.find("= short test summary info")
    print(out[summary:] if summary >= 0 else out[-300:] or done.stderr[-500:])
    print(f"wall {wall / 60:.1f} min; load average {load:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after")  # fmt: skip
    for name in ("in-process", "system", "package", "box"):
        print(f"{name:>10}: {seconds[name] / 60:5.1f} min of test time")
    print_cpu(cpu, system)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
