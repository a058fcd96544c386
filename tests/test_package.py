"""The Debian packages, end to end: build, size, lintian, install with dpkg -i, run from the
installed path, remove and purge. cosyedge alone runs the default voices and refuses a Piper
voice naming the package to install; cosyedge-voice-piper adds Piper to its venv, owning no file
of cosyedge's. It changes the machine (packages, a system user), so it runs as root on CI
(CI=true) or when COSYEDGE_TEST_PACKAGE=1, one run at a time per machine."""

from __future__ import annotations

import grp
import os
import pwd
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from support import package_state_lock

from cosyedge import __version__

PACKAGES = ("cosyedge", "cosyedge-voice-piper")
# cosyedge's .deb, packed (what it leaves out and what it ships made: packaging/README.md); the
# tables made when it is built are about 5 MiB of it.
MAX_DEB_BYTES = 64 << 20
SITE = Path("/opt/cosyedge/lib/python3.11/site-packages")
TABLES = Path("/opt/cosyedge/share/cosyedge/tables")  # made when the package is built
ARCH = subprocess.run(
    ["dpkg", "--print-architecture"], capture_output=True, text=True
).stdout.strip()
# The .deb's venv has no pip: the hint is the voice package, by name and as the file built.
VOICE_DEB = f"cosyedge-voice-piper_{__version__}_{ARCH}.deb"
HINT = (
    "voices.en.engine: piper needs the piper voice package: sudo apt install "
    f"cosyedge-voice-piper (or the .deb built beside cosyedge's: sudo apt install ./{VOICE_DEB})"
)

pytestmark = [
    pytest.mark.system,
    pytest.mark.skipif(
        not (os.environ.get("CI") or os.environ.get("COSYEDGE_TEST_PACKAGE") == "1")
        or os.geteuid() != 0
        or shutil.which("dpkg-deb") is None,
        reason="installs a package: runs as root with CI=true or COSYEDGE_TEST_PACKAGE=1",
    ),
]


def run(*command: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """A command as the gateway's operator runs it: the installed cosyedge imports its own
    modules, never a checkout's that the tests' PYTHONPATH names."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)


def as_service(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed cosyedge, as the service user."""
    return run("runuser", "-u", "cosyedge", "--", "/opt/cosyedge/bin/cosyedge", *args)


def dpkg(
    *args: str, tool: str = "dpkg", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """dpkg (or apt), waiting out another package operation on this machine instead of failing."""
    deadline = time.monotonic() + 300
    while True:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # as an operator's
        result = subprocess.run(
            [tool, *args], capture_output=True, text=True, timeout=600, cwd=cwd, env=env
        )
        if "lock" not in result.stderr or time.monotonic() > deadline:
            return result
        time.sleep(2)


def installed(package: str) -> bool:
    """Unpacked and configured (a refused `dpkg -r` leaves it so, marked for removal)."""
    result = run("dpkg-query", "-W", "-f=${db:Status-Status}", package)
    return result.stdout == "installed"


def owned_files(package: str) -> set[str]:
    """What dpkg lists as the package's, less directories (which packages may share)."""
    listed = run("dpkg", "-L", package).stdout.splitlines()
    return {path for path in listed if not Path(path).is_dir()}


def built(debs: tuple[Path, Path]) -> tuple[Path, Path]:
    """The run's .debs (conftest's `debs`, scripts/package), named as this version's."""
    main, voice = debs
    assert main.name.startswith(f"cosyedge_{__version__}_"), main
    assert voice.name.startswith(f"cosyedge-voice-piper_{__version__}_"), voice
    print(
        f"package: {main.name} ({main.stat().st_size >> 20} MB) and {voice.name} "
        f"({voice.stat().st_size >> 20} MB)"
    )
    return main, voice


# lintian's checks for embedded copies of JavaScript, CSS and PHP libraries (warnings) match
# file names only, each a name ending in one of these (lintian 2.116's checks
# languages/javascript/embedded, languages/php/embedded, languages/php/pear/embedded); they
# take a quarter of its time on the main package, matching dozens of names against each of
# its 3,000 files. No file named so: those checks have nothing to find, and are skipped.
WEB_SOURCE = re.compile(r"\.(js|css|php|inc|dtd)(\.|$)", re.IGNORECASE)
# binaries/spelling reads every string of every bundled library (a third of lintian's time on
# the main package) to emit one tag, spelling-error-in-binary, which is only informational: it
# can never fail `--fail-on error,warning`.
UNNEEDED = ("binaries/spelling", "languages/javascript/embedded", "languages/php/embedded")
UNNEEDED += ("languages/php/pear/embedded",)


def web_sources(deb: Path) -> list[str]:
    """The files of `deb` named as JavaScript, CSS or PHP sources are (compressed or not)."""
    return [name for name in contents(deb) if WEB_SOURCE.search(Path(name).name)]


def contents(deb: Path) -> list[str]:
    listed = run("dpkg-deb", "-c", str(deb))
    assert listed.returncode == 0, listed.stderr
    return [line.split(None, 5)[5].split(" -> ")[0] for line in listed.stdout.splitlines()]


def lint(*debs: Path) -> None:
    """lintian on the .debs, in one run (each of its starts costs 3.5 s of CPU, its profile
    and data read, before it reads a package): a tag of either fails it."""
    if shutil.which("lintian"):
        for deb in debs:
            assert web_sources(deb) == [], deb
        started = time.monotonic()
        skip = [option for part in UNNEEDED for option in ("--dont-check-part", part)]
        named = [str(deb) for deb in debs]
        result = run(
            "lintian", "--fail-on", "error,warning", "--tag-display-limit", "0", *skip, *named
        )
        took = time.monotonic() - started
        print(f"package: lintian {' '.join(d.name for d in debs)} took {took:.0f} s")
        assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture
def package_lock():
    with package_state_lock():
        yield


def test_debs_build_pass_lintian_install_run_and_purge(package_lock, debs, tmp_path: Path):
    if any(installed(package) for package in PACKAGES):
        pytest.skip("a cosyedge package is installed on this machine; leaving it alone")
    main, voice = built(debs)
    # What the machine had before (`cosyedge read` as root makes /var/lib/cosyedge) is not
    # the package's to remove.
    places = ("/etc/cosyedge", "/var/lib/cosyedge", "/var/cache/cosyedge", "/opt/cosyedge")
    ours = [place for place in places if not Path(place).exists()]
    assert main.stat().st_size <= MAX_DEB_BYTES
    lint(main, voice)

    # A place the service user can write to: cache, state and the WAV files said.
    work = Path("/tmp") / f"cosyedge-package-test-{os.getpid()}"
    try:
        result = dpkg("-i", str(main))
        assert result.returncode == 0, result.stdout + result.stderr
        work.mkdir()
        default, piper = work / "default.yaml", work / "piper.yaml"
        places = f"cache:\n  dir: {work}/cache\nstate_dir: {work}/state\n"
        default.write_text(places)
        piper.write_text(f"voices:\n  en:\n    engine: piper\n{places}")
        shutil.chown(work, "cosyedge")

        installed_alone(default, piper)
        with_the_voice_package(voice, piper)
        removed_and_purged()
    finally:
        shutil.rmtree(work, ignore_errors=True)
        purged = [dpkg("-P", package) for package in reversed(PACKAGES)]
    assert [p.returncode for p in purged] == [0, 0], [p.stderr for p in purged]
    assert not any(installed(package) for package in PACKAGES)
    mosquitto_conf = "/etc/mosquitto/conf.d/cosyedge.conf"
    for gone in ours:
        assert not Path(gone).exists(), gone
    assert not Path(mosquitto_conf).exists()
    assert not Path("/usr/share/doc/cosyedge-voice-piper").exists()


def installed_alone(default: Path, piper: Path) -> None:
    """cosyedge without the voice package: the default voices speak, English and Mandarin (its
    front end's text normalizer too), and a Piper voice is refused with what to install."""
    user = pwd.getpwnam("cosyedge")
    assert "cosyedge" in grp.getgrnam("audio").gr_mem
    assert user.pw_dir == "/var/lib/cosyedge"

    version = run("/opt/cosyedge/bin/cosyedge", "--version")
    assert version.stdout.strip() == f"cosyedge {__version__}", version.stderr
    check = run("/opt/cosyedge/bin/cosyedge", "check", "--config", "/etc/cosyedge/cosyedge.yaml")
    assert check.returncode == 0, check.stderr
    assert check.stdout.startswith("/etc/cosyedge/cosyedge.yaml: OK")
    conffiles = run("dpkg-query", "-W", "-f=${Conffiles}", "cosyedge").stdout
    assert "/etc/cosyedge/cosyedge.yaml" in conffiles
    assert "/etc/mosquitto/conf.d/cosyedge.conf" in conffiles  # the system broker's limits

    # The installed environment really speaks, as the service user, from its own path.
    said(default, "Installed and speaking.")
    said(default, "液位 > 90%", "--lang", "zh")  # pinyin from the reading tables shipped
    # Both read the tables the package ships (read-only, root's): none were made in state_dir.
    shipped = sorted(p.name for p in TABLES.iterdir())
    assert [name.rsplit("-", 1)[0] for name in shipped[::2]] == [
        "hibari-g2p-us",
        "pypinyin-readings",
    ]
    assert all(TABLES.joinpath(name).stat().st_uid == 0 for name in shipped)
    made = [p.name for p in (default.parent / "state" / "models").glob("*.sqlite")]
    assert made == [], made
    # The reading rules' programs, made by the postinst with the installed Python, root's,
    # where the service looks for them, and whole to the service user.
    (kept,) = (SITE / "cosyedge" / "speech" / "__pycache__").glob("rx.*.bin")
    assert kept.stat().st_uid == 0 and kept.stat().st_size > 1_000_000
    script = "from cosyedge.speech import rx; p = rx.kept_path(); "
    script += "print(p, len(rx._read_index(p)[0]))"
    # -P: the installed package's modules, not those of a checkout in the working directory.
    read = run("runuser", "-u", "cosyedge", "--", "/opt/cosyedge/bin/python", "-P", "-c", script)
    path, programs = read.stdout.split()
    assert path == str(kept) and int(programs) > 300, (read.stdout, read.stderr)

    # The Wyoming server and zeroconf ship in the package: turning them on is configuration.
    wyoming = default.with_name("wyoming.yaml")
    wyoming.write_text(default.read_text() + "wyoming:\n  enabled: true\n")
    on = as_service("check", "--config", str(wyoming))
    assert on.returncode == 0, on.stderr
    assert "would start without" not in on.stdout, on.stdout
    assert (SITE / "wyoming").is_dir() and (SITE / "zeroconf").is_dir()

    # A start would run the safe core instead (tests/test_lastgood.py); check says so.
    refused = as_service("check", "--config", str(piper))
    assert refused.returncode == 2, (refused.stdout, refused.stderr)
    assert refused.stderr.startswith(f"{piper}: {HINT}"), refused.stderr
    assert "would start on the embedded defaults' safe core" in refused.stdout
    assert not (SITE / "piper").exists()

    if shutil.which("systemd-analyze"):
        verify = run("systemd-analyze", "verify", "/lib/systemd/system/cosyedge.service")
        assert (verify.returncode, verify.stderr) == (0, "")


def said(config: Path, text: str, *options: str) -> None:
    out = config.parent / "said.wav"
    say = as_service("say", "--config", str(config), "--out", str(out), *options, text)
    assert say.returncode == 0, say.stderr
    assert out.stat().st_size > 22050 * 2
    out.unlink()


def with_the_voice_package(voice: Path, piper: Path) -> None:
    """The voice package, installed as the hint says (as root: without sudo), adds Piper to the
    same venv without sharing a file; cosyedge cannot be removed from under it; removed, it
    leaves none of its directories behind."""
    assert voice.name == VOICE_DEB
    hinted = HINT.rpartition("sudo ")[2].removesuffix(")").split()
    assert hinted[:2] == ["apt", "install"]
    result = dpkg(*hinted[1:], "-y", tool=hinted[0], cwd=voice.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    shared = owned_files("cosyedge") & owned_files("cosyedge-voice-piper")
    assert not shared, sorted(shared)[:10]
    check = as_service("check", "--config", str(piper))
    assert check.returncode == 0, check.stderr
    said(piper, "Piper is installed and speaking.")

    kept = dpkg("-r", "cosyedge")
    assert kept.returncode != 0 and installed("cosyedge"), kept.stdout + kept.stderr
    assert "cosyedge-voice-piper depends on cosyedge" in kept.stderr

    # Python writes bytecode where it finds none; the voice package's postrm clears it.
    (SITE / "piper" / "__pycache__" / "written-at-run-time.pyc").write_bytes(b"")
    removed = dpkg("-r", "cosyedge-voice-piper")
    assert removed.returncode == 0, removed.stderr
    assert not (SITE / "piper").exists()
    assert not Path("/opt/cosyedge/bin/piper").exists()
    assert as_service("check", "--config", str(piper)).returncode == 2
    purged = dpkg("-P", "cosyedge-voice-piper")
    assert purged.returncode == 0, purged.stderr
    assert not Path("/usr/share/doc/cosyedge-voice-piper").exists()
    check = run("/opt/cosyedge/bin/cosyedge", "check", "--config", "/etc/cosyedge/cosyedge.yaml")
    assert check.returncode == 0, check.stderr  # cosyedge itself untouched


def removed_and_purged() -> None:
    """Remove keeps configuration and state; the purge after it (the caller's) takes them."""
    # What systemd would have made at run time; a purge must take it away.
    for state in ("/var/lib/cosyedge", "/var/cache/cosyedge"):
        Path(state).mkdir(exist_ok=True)
        (Path(state) / "something").write_text("x")
    # The password file the operations guide has the operator add: purged with the rest.
    Path("/etc/cosyedge/mqtt-password").write_text("secret\n")

    removed = dpkg("-r", "cosyedge")
    assert removed.returncode == 0, removed.stderr
    assert not Path("/opt/cosyedge").exists()
    assert Path("/etc/cosyedge/cosyedge.yaml").exists()  # a conffile outlives remove
    assert Path("/var/lib/cosyedge/something").exists()  # and so does state
