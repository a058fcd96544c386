"""Zones in the real daemon: two zones on two sound devices, each saying its own alert at the
same time, every alert heard in the zones it names and reported once."""

from __future__ import annotations

import json
import time
import wave
from pathlib import Path

import numpy as np
from support import REPO, Daemon, Listener, publish, site_yaml, wait_until

from cosyedge.audio.sound import CHIME_HZ

RATE = 24000  # the default English voice's


def two_sinks(directory: Path) -> dict[str, str]:
    """ALSA PCMs `hall`, `hall2` and `yard`, each a raw file per stream (PortAudio lists
    them)."""
    directory.mkdir(parents=True)
    pcms = "".join(
        f'pcm.{name} {{\n  type file\n  slave.pcm "null"\n  file "{directory}/{name}.raw"\n'
        '  format "raw"\n  truncate false\n}\n'
        for name in ("hall", "hall2", "yard")
    )
    (directory / "asoundrc").write_text(pcms)
    return {"ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{directory / 'asoundrc'}"}


def two_zones(port: int, tmp_path: Path) -> str:
    """A site of two zones, `hall` and `yard`, each one sink of `two_sinks`, and a template
    whose topic level names the zone."""
    return f"""{site_yaml(port, tmp_path)}outputs:
  hall-amp: {{device: hall}}
  yard-horns: {{device: yard}}
zones:
  hall: {{outputs: [hall-amp]}}
  yard: {{outputs: [yard-horns]}}
templates:
  - topic: "plant/{{zone}}/alarm"
    text: "{{text}}"
    payload: json
    priority: high
"""


def captured(directory: Path, name: str) -> list[np.ndarray]:
    files = sorted(directory.glob(f"{name}.raw*"), key=lambda p: p.stat().st_mtime_ns)
    return [np.frombuffer(p.read_bytes(), dtype="<i2") for p in files]


def strongest_hz(pcm: np.ndarray) -> float:
    spectrum = np.abs(np.fft.rfft(pcm.astype(np.float32)))
    return float(np.fft.rfftfreq(len(pcm), 1 / RATE)[int(np.argmax(spectrum))])


def test_two_zones_say_their_own_alerts_at_once_each_on_its_devices(broker, saved_models, tmp_path):
    sinks = tmp_path / "alsa"
    env = {**two_sinks(sinks), "PYTHONPATH": str(REPO)}
    config = f"""{site_yaml(broker.port, tmp_path)}outputs:
  hall-amp: {{device: hall}}
  hall-aux: {{device: hall2}}
  yard-horns: {{device: yard}}
  yard-gone: {{device: no-such-card}}
zones:
  hall: {{outputs: [hall-amp, hall-aux]}}
  yard: {{outputs: [yard-horns, yard-gone]}}
templates:
  - topic: "plant/{{zone}}/alarm"
    text: "{{text}}"
    payload: json
    priority: high
"""
    # Paced as a card takes audio: with the file sink alone a phrase "plays" in milliseconds.
    daemon = Daemon(tmp_path / "d", config, env, models=saved_models, module="bench.paced_daemon")
    reports = Listener(broker.port, "cosyedge/report", "cosyedge/status")
    try:
        daemon.start()
        hall = {"id": "h-1", "text": "Conveyor four in the hall has stopped.", "zone": "hall"}
        yard = {"id": "y-1", "text": "Gate two in the yard is open.", "zone": "yard"}
        publish(broker.port, "plant/hall/alarm", json.dumps(hall))
        publish(broker.port, "plant/yard/alarm", json.dumps(yard))
        everywhere = {"id": "all-1", "text": "Shift change.", "zone": "all"}
        publish(broker.port, "plant/any/alarm", json.dumps(everywhere))
        done = reports.wait_for(
            "cosyedge/report", lambda r: len({x["id"] for x in r}) >= 3, 90, "three outcomes"
        )
        # An output that cannot play is its own fault; its zone is heard on the other.
        status = reports.wait_for(
            "cosyedge/status", lambda s: "audio:yard-gone" in s[-1].get("faults", {}), 30
        )[-1]
    finally:
        reports.close()
        daemon.stop()
    by_id = {r["id"]: r for r in done}
    assert len(done) == 3, done  # one outcome each, the all-call's too
    assert {r["outcome"] for r in done} == {"spoken"}, done
    assert set(by_id["h-1"]["zones"]) == {"hall"}
    assert set(by_id["y-1"]["zones"]) == {"yard"}
    assert set(by_id["all-1"]["zones"]) == {"hall", "yard"}
    h, y = by_id["h-1"]["zones"]["hall"], by_id["y-1"]["zones"]["yard"]
    # At the same time: each zone's alert began before the other's ended.
    assert y["start"] < h["end"] and h["start"] < y["end"], (h, y)
    for zone, alone in (("hall", "h-1"), ("yard", "y-1")):
        streams = captured(sinks, zone)
        assert len(streams) == 2, f"{zone}: {len(streams)} streams"  # its own, then the all-call
        first = streams[0]
        said = by_id[alone]["zones"][zone]
        assert (said["end"] - said["start"]) > 0.8 * len(first) / RATE  # heard at a card's pace
        chime_len = int(0.12 * RATE)
        assert abs(strongest_hz(first[:chime_len]) - CHIME_HZ["high"]) < 30  # its chime
        assert np.abs(first[chime_len * 3 :].astype(np.float32)).mean() > 300  # then speech
    hall_all, yard_all = captured(sinks, "hall")[1], captured(sinks, "yard")[1]
    assert np.array_equal(hall_all, yard_all)  # the all-call: one rendering, both zones
    # Both outputs of the hall played the same, each whole.
    assert [len(s) for s in captured(sinks, "hall2")] == [len(s) for s in captured(sinks, "hall")]
    for one, other in zip(captured(sinks, "hall"), captured(sinks, "hall2"), strict=True):
        assert np.array_equal(one, other)
    assert set(status["faults"]) == {"audio:yard-gone"}, status
    assert status["state"] == "degraded"
    assert set(status["zones"]) == {"hall", "yard"}


def write_wav(path: Path, samples: np.ndarray, rate: int) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.astype("<i2").tobytes())


def test_a_templates_tone_and_recorded_message_are_played_and_a_broken_one_is_a_fault(
    broker, alsa_sink, make_daemon, tmp_path
):
    rate = 24000
    t = np.arange(int(1.5 * rate)) / rate
    message = (np.sin(2 * np.pi * 440 * t) * 8000).astype(np.int16)  # 1.5 s at 440 Hz
    write_wav(tmp_path / "evac.wav", message, rate)
    (tmp_path / "broken.wav").write_bytes(b"RIFF....WAVEnot a wav at all")
    config = f"""{site_yaml(broker.port, tmp_path)}templates:
  - topic: plant/evacuate
    text: "Evacuate the building."
    priority: critical
    tone: {{name: temporal-three, repeats: 1}}
    recorded: {{file: {tmp_path / "evac.wav"}, instead_of_text: true}}
  - topic: plant/fire
    text: "Fire in hall two."
    priority: high
    recorded: {{file: {tmp_path / "broken.wav"}}}
"""
    daemon = make_daemon(config)
    reports = Listener(broker.port, "cosyedge/report", "cosyedge/status")
    try:
        publish(broker.port, "plant/evacuate", json.dumps({"id": "e-1"}))
        publish(broker.port, "plant/fire", json.dumps({"id": "f-1"}))
        done = reports.wait_for("cosyedge/report", lambda r: len(r) >= 2, 60, "two outcomes")
        status = reports.wait_for(
            "cosyedge/status", lambda s: "recorded" in s[-1].get("faults", {}), 30
        )[-1]
    finally:
        reports.close()
    by_id = {r["id"]: r for r in done}
    assert by_id["e-1"]["outcome"] == "spoken" and by_id["e-1"]["source"] == "recorded"
    assert by_id["f-1"]["outcome"] == "spoken" and by_id["f-1"]["source"] == "synth"
    assert "broken.wav" in status["faults"]["recorded"]
    assert "broken.wav" in daemon.log()
    # Told apart by how they begin (the broken file's fault is said too, maybe cut by e-1,
    # even before its first block: a stream of no samples).
    streams = [s for s in alsa_sink.streams() if len(s)]
    (evacuation,) = [s for s in streams if abs(strongest_hz(s[: rate // 2]) - 520) < 15]
    # The tone first: 4 s of temporal-three at 520 Hz in place of the chime, then the message.
    assert np.array_equal(evacuation[-len(message) :], message)
    assert len(evacuation) == 4 * rate + len(message)
    # The broken message is left out: the priority's chime, then the phrase.
    high = int(0.12 * rate)
    (fire,) = [s for s in streams if abs(strongest_hz(s[:high]) - CHIME_HZ["high"]) < 30]
    assert len(fire) > 1.0 * rate


def test_a_zone_of_ip_speakers_hears_the_all_call_as_an_rtp_page(broker, saved_models, tmp_path):
    from test_rtp import Catcher

    sinks = tmp_path / "alsa"
    env = two_sinks(sinks)
    horns = Catcher()  # an IP speaker: a UDP socket the page is sent to
    config = f"""{site_yaml(broker.port, tmp_path)}outputs:
  hall-amp: {{device: hall}}
  yard-horns: {{rtp: {{address: 127.0.0.1, port: {horns.port}, codec: pcmu}}}}
zones:
  hall: {{outputs: [hall-amp]}}
  yard: {{outputs: [yard-horns]}}
"""
    daemon = Daemon(tmp_path / "d", config, {**env, "PYTHONPATH": str(REPO)}, models=saved_models)
    reports = Listener(broker.port, "cosyedge/report")
    try:
        daemon.start()
        publish(broker.port, "cosyedge/say", json.dumps({"id": "a-1", "text": "Shift change."}))
        (done,) = reports.wait_for("cosyedge/report", lambda r: len(r) >= 1, 60, "the outcome")
    finally:
        reports.close()
        daemon.stop()
        packets = horns.close()
    assert done["outcome"] == "spoken" and set(done["zones"]) == {"hall", "yard"}
    assert done["zones"]["yard"]["outcome"] == "spoken"
    (hall,) = captured(sinks, "hall")
    assert packets and packets[0].marker and not any(p.marker for p in packets[1:])
    assert {p.pt for p in packets} == {0} and len({p.ssrc for p in packets}) == 1
    # The same announcement, chime and all, at 8 kHz in 20 ms packets.
    sent_s = sum(len(p.payload) for p in packets) / 8000
    assert abs(sent_s - len(hall) / RATE) < 0.05, (sent_s, len(hall) / RATE)
    heard = np.frombuffer(b"".join(p.payload for p in packets), dtype=np.uint8)
    assert np.mean((heard != 0xFF) & (heard != 0x7F)) > 0.5  # not µ-law silence


def test_an_output_not_there_is_a_fault_before_any_alert(broker, saved_models, tmp_path):
    """Looked for while nothing is said: the status never says all is well meanwhile."""
    sinks = tmp_path / "alsa"
    config = f"""{site_yaml(broker.port, tmp_path)}outputs:
  hall-amp: {{device: hall}}
  yard-horns: {{device: no-such-card}}
  pa: {{rtp: {{address: 239.10.0.1, port: 5004, interface: 192.0.2.1}}}}
zones:
  hall: {{outputs: [hall-amp]}}
  yard: {{outputs: [yard-horns]}}
  paging: {{outputs: [pa]}}
"""
    env = {**two_sinks(sinks), "PYTHONPATH": str(REPO)}
    status = Listener(broker.port, "cosyedge/status")
    daemon = Daemon(tmp_path / "d", config, env, models=saved_models)
    try:
        daemon.start()
        last = status.wait_for(
            "cosyedge/status",
            lambda s: set(s[-1].get("faults", {})) == {"audio:yard-horns", "audio:pa"},
            30,
        )[-1]
    finally:
        status.close()
        daemon.stop()
    assert last["state"] == "degraded"
    assert "no-such-card" in last["faults"]["audio:yard-horns"]
    assert "interface 192.0.2.1" in last["faults"]["audio:pa"]  # an IP speaker's, too
    assert captured(sinks, "hall") == []  # nothing was said to find it out


def test_after_a_kill_a_message_is_said_only_in_the_zones_that_had_not_heard_it(
    broker, saved_models, tmp_path
):
    """Heard in the hall, still waiting in the yard behind a long alert, then kill -9: the next
    start says it in the yard alone, and its one outcome tells both zones' times."""
    sinks = tmp_path / "alsa"
    env = {**two_sinks(sinks), "PYTHONPATH": str(REPO)}
    config = two_zones(broker.port, tmp_path)
    daemon = Daemon(tmp_path / "d", config, env, models=saved_models, module="bench.paced_daemon")
    journal = tmp_path / "state" / "journal.jsonl"
    reports = Listener(broker.port, "cosyedge/report")
    long = "Attention in the yard. " + "Forklift traffic on lane three, keep clear. " * 6
    try:
        daemon.start()
        publish(broker.port, "plant/yard/alarm", json.dumps({"id": "y-long", "text": long}))
        wait_until(lambda: sum(len(s) for s in captured(sinks, "yard")) > RATE, 60, "yard busy")
        both = {"id": "both-1", "text": "Shift change in ten minutes.", "zone": "all"}
        publish(broker.port, "plant/any/alarm", json.dumps(both))
        wait_until(lambda: b'"zoned"' in journal.read_bytes(), 60, "the hall's outcome kept")
        assert reports.on("cosyedge/report") == []  # the yard has not said either yet
        killed = time.time()
        daemon.process.kill()
        daemon.process.wait()
        hall_before = len(captured(sinks, "hall"))
        daemon.start()
        done = reports.wait_for(
            "cosyedge/report", lambda r: {"both-1", "y-long"} <= {x["id"] for x in r}, 120
        )
    finally:
        reports.close()
        daemon.stop()
    (once,) = [r for r in done if r["id"] == "both-1"]
    assert once["outcome"] == "spoken", once
    hall, yard = once["zones"]["hall"], once["zones"]["yard"]
    assert hall["outcome"] == yard["outcome"] == "spoken"
    assert hall["end"] < killed < yard["start"]  # heard before the kill there, after it here
    assert hall_before == 1 and len(captured(sinks, "hall")) == 1  # not said again in the hall
    assert len(captured(sinks, "yard")) == 3  # the long alert, again after the start, then this
