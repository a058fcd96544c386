"""The locks in locks/ (scripts/lock makes them) agree with pyproject.toml: every requirement of
what a venv installs is pinned in its lock, exactly and with hashes, at a version inside its
range; nothing is pinned that nothing there requires; the .deb's locks have the tested
versions. Offline: it reads the files only."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parent.parent
LOCKS = REPO / "locks"
# The environment every lock is resolved for (scripts/lock), where markers are evaluated.
TARGET = {
    "python_version": "3.11",
    "python_full_version": "3.11.0",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "os_name": "posix",
    "sys_platform": "linux",
    "platform_system": "Linux",
    "platform_machine": "x86_64",
}
# What pyproject.toml's requirements a lock answers for, beside the base dependencies: None for
# every extra but the conversion ones (.venv has them all, scripts/setup), else the extras
# named. The .in files hold what pyproject.toml cannot say (torch's CPU build, pip itself).
PYPROJECT_LOCKS: dict[str, tuple[str, ...] | None] = {
    "test.txt": None,
    "runtime.txt": ("wyoming", "sparkplug"),
    "piper.txt": ("piper", "wyoming", "sparkplug"),
    "convert-zh.txt": ("convert-zh",),
    "convert-cosyvoice.txt": ("convert-cosyvoice",),
}
IN_LOCKS = {
    "pip.txt": "pip.in",
    "uv.txt": "uv.in",
    "convert-zh-nodeps.txt": "convert-zh-nodeps.in",
    "convert-cosyvoice.txt": "convert-cosyvoice.in",
    "convert-cosyvoice-nodeps.txt": "convert-cosyvoice-nodeps.in",
    "sparkplug-edge.txt": "sparkplug-edge.in",
}
# The .deb's locks: the versions the tests ran with.
DEB_LOCKS = ("runtime.txt", "piper.txt")
PIN = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;\\]+)\s*(?:\\)?$")
HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}\s*(?:\\)?$")
SELF = "cosyedge (pyproject.toml)"


@dataclass(frozen=True)
class Pin:
    """One locked distribution: its exact version, its files' hashes, and what it is there for
    (the lock's `# via` lines: `cosyedge (pyproject.toml)`, another pinned package, or an
    input file as `-r locks/X.in` / `-c locks/X.txt`)."""

    version: str
    hashes: int
    via: tuple[str, ...]


def read_lock(path: Path) -> dict[str, Pin]:
    """The pins of a lock file by canonical name. Raises ValueError on a line that is neither
    a comment, an exact pin, a hash nor a `# via` annotation, or on a pin named twice."""
    pins: dict[str, Pin] = {}
    name = version = None
    hashes = 0
    via: list[str] = []

    def close() -> None:
        if name is not None and version is not None:
            if name in pins:
                raise ValueError(f"{path.name}: {name} pinned twice")
            pins[name] = Pin(version, hashes, tuple(via))

    for number, line in enumerate(path.read_text().splitlines(), 1):
        stripped = line.strip()
        if not stripped or (line.startswith("#") and name is None):
            continue
        if not line[0].isspace():
            match = PIN.match(line)
            if not match:
                raise ValueError(f"{path.name}:{number}: not an exact pin: {line}")
            close()
            name, version = canonicalize_name(match["name"]), match["version"]
            hashes, via = 0, []
        elif HASH.match(stripped):
            hashes += 1
        elif stripped == "# via" or stripped.startswith("#   "):  # the first of several, one
            via += [stripped.removeprefix("#").strip()] if stripped != "# via" else []
        elif stripped.startswith("# via "):  # the only one
            via.append(stripped.removeprefix("# via ").strip())
        else:
            raise ValueError(f"{path.name}:{number}: unexpected: {line}")
    close()
    return pins


def requirements(project: dict, extras: tuple[str, ...]) -> list[Requirement]:
    """The base dependencies and those of `extras`, with the project's own extras (as in
    `cosyedge[piper]`) followed, that apply on the locks' target."""
    name = canonicalize_name(project["name"])
    optional = project.get("optional-dependencies", {})
    found: list[Requirement] = []
    todo, seen = [("", text) for text in project["dependencies"]], set()
    todo += [(extra, text) for extra in extras for text in optional[extra]]
    while todo:
        extra, text = todo.pop()
        requirement = Requirement(text)
        if requirement.marker and not requirement.marker.evaluate({**TARGET, "extra": extra}):
            continue
        if canonicalize_name(requirement.name) != name:
            found.append(requirement)
        for wanted in requirement.extras if canonicalize_name(requirement.name) == name else ():
            if wanted not in seen:
                seen.add(wanted)
                todo += [(wanted, text) for text in optional[wanted]]
    return found


def satisfied(requirement: Requirement, pins: dict[str, Pin]) -> str | None:
    """Why `pins` do not satisfy `requirement`, or None when they do."""
    pin = pins.get(canonicalize_name(requirement.name))
    if pin is None:
        return f"{requirement} is not pinned"
    if not requirement.specifier.contains(Version(pin.version), prereleases=True):
        return f"{requirement}: pinned at {pin.version}, outside the range"
    return None


@pytest.fixture(scope="module")
def project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


@pytest.fixture(scope="module")
def locks() -> dict[str, dict[str, Pin]]:
    return {path.name: read_lock(path) for path in sorted(LOCKS.glob("*.txt"))}


def extras_of(lock: str, project: dict) -> tuple[str, ...]:
    extras = PYPROJECT_LOCKS[lock]
    if extras is None:
        return tuple(e for e in project["optional-dependencies"] if not e.startswith("convert-"))
    return extras


def test_the_locks_are_the_ones_made(locks):
    assert set(locks) == set(PYPROJECT_LOCKS) | set(IN_LOCKS)
    assert {p.name for p in LOCKS.glob("*.in")} == set(IN_LOCKS.values())


def test_every_pin_is_exact_and_hashed(locks):
    unhashed = [f"{lock}: {name}" for lock, pins in locks.items() for name, pin in pins.items()
                if not pin.hashes]  # fmt: skip
    assert not unhashed


@pytest.mark.parametrize("lock", sorted(PYPROJECT_LOCKS))
def test_what_pyproject_asks_is_pinned_inside_its_range(lock, project, locks):
    wrong = [why for r in requirements(project, extras_of(lock, project))
             if (why := satisfied(r, locks[lock]))]  # fmt: skip
    assert not wrong, f"locks/{lock} disagrees with pyproject.toml (run scripts/lock): {wrong}"


@pytest.mark.parametrize("lock", sorted(IN_LOCKS))
def test_what_the_in_files_ask_is_pinned_inside_its_range(lock, locks):
    lines = (LOCKS / IN_LOCKS[lock]).read_text().splitlines()
    wanted = [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]
    wrong = [why for r in wanted if (why := satisfied(r, locks[lock]))]
    assert not wrong, f"locks/{lock} disagrees with locks/{IN_LOCKS[lock]}: {wrong}"


@pytest.mark.parametrize("lock", sorted(set(PYPROJECT_LOCKS) | set(IN_LOCKS)))
def test_nothing_is_pinned_that_nothing_requires(lock, project, locks):
    pins = locks[lock]
    asked = set()
    if lock in PYPROJECT_LOCKS:
        asked = {canonicalize_name(r.name) for r in requirements(project, extras_of(lock, project))}
    source = f"-r locks/{IN_LOCKS[lock]}" if lock in IN_LOCKS else None
    idle = []
    for name, pin in pins.items():
        reasons = [v for v in pin.via if not v.startswith("-c ")]  # a constraint asks nothing
        real = [v for v in reasons if (v == SELF and name in asked) or v == source
                or canonicalize_name(v.split(" ")[0]) in pins]  # fmt: skip
        if not real:
            idle.append(f"{name} (via {', '.join(pin.via) or 'nothing'})")
    assert not idle, f"locks/{lock} pins what nothing requires (run scripts/lock): {idle}"


def test_the_debs_locks_have_the_tested_versions(locks):
    tested = locks["test.txt"]
    for lock in DEB_LOCKS:
        other = {n: p.version for n, p in locks[lock].items() if tested[n].version != p.version}
        assert not other, f"locks/{lock} differs from locks/test.txt: {other}"
    assert set(locks["runtime.txt"]) <= set(locks["piper.txt"])


def test_the_parser_refuses_what_is_not_a_lock(tmp_path):
    bad = tmp_path / "bad.txt"
    for text in ("numpy>=2\n", "numpy==2.4.6 \\\n    --index-url x\n", "a==1\na==2\n"):
        bad.write_text(text)
        with pytest.raises(ValueError):
            read_lock(bad)


def test_a_change_in_pyproject_is_noticed(project, locks):
    """What the tests above rest on: a range the lock's pin falls outside, or a requirement
    the lock lacks, is reported."""
    pins = locks["test.txt"]
    numpy = pins["numpy"].version
    assert satisfied(Requirement(f"numpy<{numpy}"), pins)
    assert satisfied(Requirement("not-a-locked-package>=1"), pins)
    assert satisfied(Requirement(f"numpy=={numpy}"), pins) is None
