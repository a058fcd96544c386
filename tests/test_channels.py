"""Outputs on channels of one multi-channel card (`outputs.NAME.channel`): one PortAudio stream
of the card for them all, each output's audio in its own channel and silence in the others;
and the level of a template's tone per zone (`zones.NAME.tone_level_db`)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest
from support import REPO, Daemon, Listener, publish, site_yaml

from bench.paced_daemon import pace_sounddevice
from cosyedge.audio.channels import ChannelPlayer, SharedDevice
from cosyedge.audio.player import AudioUnavailable, Playback, PortAudio
from cosyedge.audio.preludes import Preludes
from cosyedge.config.loader import ConfigError, parse_config
from cosyedge.config.signals import ToneConfig
from cosyedge.model import Heartbeat, Prelude

RATE = 16000
WIDTH = 4  # the card's channels, as the sink records them


def card(directory: Path, name: str = "card4") -> dict[str, str]:
    """ALSA PCM `name`: a 4-channel card, each stream it opens one raw file of interleaved
    4-channel frames (a `route` to a 4-channel `file` sink: a client opening fewer channels
    gets the rest as silence, as on a card)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "asoundrc").write_text(
        f'pcm.{name}-sink {{ type file slave.pcm "null" file "{directory}/{name}.raw" '
        'format "raw" truncate false }\n'
        f'pcm.{name} {{ type route slave {{ pcm "{name}-sink" channels {WIDTH} }} '
        "ttable { 0.0 1 1.1 1 2.2 1 3.3 1 } }\n"
    )
    return {"ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{directory / 'asoundrc'}"}


def streams(directory: Path, name: str = "card4") -> list[np.ndarray]:
    """Each stream the card was opened for, as frames x channels, in order."""
    files = sorted(directory.glob(f"{name}.raw*"), key=lambda p: p.stat().st_mtime_ns)
    return [np.frombuffer(p.read_bytes(), dtype="<i2").reshape(-1, WIDTH) for p in files]


@pytest.fixture
def four(tmp_path, monkeypatch) -> tuple[Path, PortAudio]:
    """The card, PortAudio started afresh to list it, and writes paced as a card takes them
    (the file sink alone takes a second of audio in a millisecond)."""
    import sounddevice as sd

    for key, value in card(tmp_path / "alsa").items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(sd.OutputStream, "write", sd.OutputStream.write)  # put back after
    monkeypatch.setattr(sd.OutputStream, "start", sd.OutputStream.start)
    pace_sounddevice()
    portaudio = PortAudio()
    assert portaudio.rescan(sd)
    return tmp_path / "alsa", portaudio


def sine(hz: float, seconds: float, rate: int = RATE) -> np.ndarray:
    t = np.arange(round(seconds * rate)) / rate
    return np.round(8000 * np.sin(2 * np.pi * hz * t + 0.3)).astype(np.int16)


def chunked(pcm: np.ndarray, size: int = 3000) -> list[np.ndarray]:
    return [pcm[i : i + size] for i in range(0, len(pcm), size)]


def heard(channel: np.ndarray) -> np.ndarray:
    """From the first sample to the last that is not silence."""
    loud = np.flatnonzero(channel)
    return channel[loud[0] : loud[-1] + 1] if len(loud) else channel[:0]


def at_once(plays: dict[str, tuple]) -> dict[str, Playback | Exception]:
    """Each player's `play(*args)` on a thread of its own, all at once."""
    results: dict[str, Playback | Exception] = {}

    def run(name, player, *args):
        try:
            results[name] = player.play(*args)
        except Exception as exc:
            results[name] = exc

    threads = [threading.Thread(target=run, args=(n, *a)) for n, a in plays.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


def players(
    portaudio: PortAudio, device: str = "card4", block_ms: int = 100
) -> tuple[ChannelPlayer, ChannelPlayer]:
    shared = SharedDevice(device, [1, 3], portaudio)
    one = ChannelPlayer(shared, 1, block_ms, Heartbeat("player-a"), "a")
    three = ChannelPlayer(shared, 3, block_ms, Heartbeat("player-b"), "b")
    return one, three


@pytest.mark.system
def test_two_outputs_on_two_channels_play_at_once_through_one_stream(four):
    directory, portaudio = four
    # Blocks of 200 ms: each feed holds 0.8 s ahead of the card (FEED_BLOCKS), so a feeding
    # thread kept off the CPU that long by a loaded machine (seen once at 100 ms blocks, in a
    # full run at load 4 on 2 cores) leaves no gap; unbroken is what is judged here.
    one, three = players(portaudio, block_ms=200)
    a, b = sine(440, 2.0), sine(1000, 1.5)
    done = at_once({"a": (one, RATE, chunked(a)), "b": (three, RATE, chunked(b))})
    assert all(isinstance(p, Playback) and p.played for p in done.values()), done
    (frames,) = streams(directory)  # one stream of the card for both
    assert np.array_equal(heard(frames[:, 0]), heard(a))  # channel 1: a, whole, unbroken
    assert np.array_equal(heard(frames[:, 2]), heard(b))  # channel 3: b
    assert not frames[:, 1].any() and not frames[:, 3].any()  # the others silent
    # At the same time: the frames that carry a also carry b, from b's start to its end. The
    # one to join second starts behind what the card holds (0.1 s, paced) and the block being
    # written: at most 3 blocks (300 ms) after the first.
    a_at, b_at = np.flatnonzero(frames[:, 0]), np.flatnonzero(frames[:, 2])
    assert abs(b_at[0] - a_at[0]) <= 0.3 * RATE, (a_at[[0, -1]], b_at[[0, -1]])
    assert a_at[-1] > b_at[-1]
    first = {n: p.first_audio for n, p in done.items() if isinstance(p, Playback)}
    assert abs(first["a"] - first["b"]) < 0.3
    # Idle again, the card is released: the next announcement opens a stream of its own.
    assert one.play(RATE, chunked(sine(700, 0.5))).played
    assert len(streams(directory)) == 2
    assert {one.trouble, three.trouble} == {None}


@pytest.mark.system
def test_a_channel_cut_short_leaves_the_others_playing_and_another_rate_is_converted(four):
    directory, portaudio = four
    one, three = players(portaudio)
    a = sine(440, 2.0)
    b = sine(1000, 2.0, rate=22050)  # another voice's rate: resampled to the stream's
    asked = {"n": 0}

    def after_a_second_and_a_half() -> bool:
        asked["n"] += 1
        return asked["n"] > 15  # asked before each block of 100 ms

    done = at_once({
        "a": (one, RATE, chunked(a)),
        "b": (three, 22050, chunked(b), after_a_second_and_a_half),
    })  # fmt: skip
    assert done["b"].stopped and not done["a"].stopped, done
    (frames,) = streams(directory)
    assert np.array_equal(heard(frames[:, 0]), heard(a))  # a went on, whole
    # b's first 1.5 s less what was queued for the card when it gave way (dropped, as a
    # stream of its own is aborted), then silence in its channel while a goes on.
    cut = heard(frames[:, 2])
    assert 1.1 * RATE <= len(cut) <= 1.5 * RATE, len(cut)
    assert not frames[np.flatnonzero(frames[:, 0])[-1] - RATE // 2 :, 2].any()
    spectrum = np.abs(np.fft.rfft(cut.astype(np.float64)))
    assert abs(np.fft.rfftfreq(len(cut), 1 / RATE)[np.argmax(spectrum)] - 1000) < 2  # 1 kHz


@pytest.mark.system
def test_a_card_that_is_gone_is_the_fault_of_every_output_on_it(four):
    _, portaudio = four
    one, three = players(portaudio, device="no-such-card")
    done = at_once({"a": (one, RATE, chunked(sine(440, 0.5))), "b": (three, RATE, [sine(1, 1)])})
    assert all(isinstance(e, AudioUnavailable) for e in done.values()), done
    faults = {**one.tick(0.0), **three.tick(0.0)}
    assert set(faults) == {"audio:a", "audio:b"}
    assert all("sound device unavailable" in (why or "") for why in faults.values()), faults


@pytest.mark.system
def test_a_card_with_fewer_channels_than_named_is_told(four):
    _, portaudio = four
    shared = SharedDevice("card4", [200], portaudio)  # PortAudio lists 128 for a plugin
    player = ChannelPlayer(shared, 200, 100, Heartbeat("p"), "far")
    with pytest.raises(AudioUnavailable, match="128 output channels, and channel 200"):
        player.play(RATE, [sine(440, 0.2)])


CARD = "outputs: {a: {device: card, channel: 1}, b: {device: Card, channel: 3}"
ZONES = "zones: {x: {outputs: [a]}, y: {outputs: [b]}"


def test_channels_of_one_card_are_outputs_of_their_own():
    config = parse_config(f"{CARD}, c: {{device: other}}}}\n{ZONES}, z: {{outputs: [c]}}}}")
    assert [config.outputs[o].channel for o in "abc"] == [1, 3, None]


@pytest.mark.parametrize(
    ("more", "reason"),
    [
        ("c: {device: CARD, channel: 1}", 'outputs.c.channel: channel 1 of "card" is output "a"'),
        ("c: {device: card}", "outputs.c.channel: missing; outputs a, b play on channels of"),
        ("c: {rtp: {address: 239.1.1.1}, channel: 2}",
         "outputs.c.channel: a channel of a sound device, not of a network output"),
        ("c: {device: x, channel: 0}", "outputs.c.channel: expected an integer 1-64, got 0"),
    ],
)  # fmt: skip
def test_channels_that_cannot_be_are_refused_naming_the_key(more, reason):
    with pytest.raises(ConfigError) as refused:
        parse_config(f"{CARD}, {more}}}\n{ZONES}, z: {{outputs: [c]}}}}")
    assert reason in str(refused.value)


def test_one_card_without_channels_in_two_outputs_says_how_to_share_it():
    with pytest.raises(ConfigError) as refused:
        parse_config(f"{CARD.replace(', channel: 1', '').replace(', channel: 3', '')}}}\n{ZONES}}}")
    assert 'is output "a"\'s already' in str(refused.value)
    assert "give each output its `channel`" in str(refused.value)


def test_a_zones_tone_level_is_checked():
    level = ZONES.replace("[a]}", "[a], tone_level_db: -9}")
    config = parse_config(f"{CARD}}}\n{level}}}")
    assert config.zones["x"].tone_level_db == -9 and config.zones["y"].tone_level_db == 0
    with pytest.raises(ConfigError) as refused:
        parse_config(f"{CARD}}}\n{level.replace('-9', '3')}}}")
    assert "zones.x.tone_level_db: expected a number -40-0, got 3" in str(refused.value)


def test_a_tone_is_made_once_a_rate_and_scaled_once_a_zones_level():
    preludes = Preludes(())
    prelude = Prelude(tone=ToneConfig("continuous", repeats=1, level_dbfs=-6))
    full = preludes.lead(prelude, RATE, False)[0]
    low = preludes.lead(prelude, RATE, False, -12.0)[0]
    assert preludes.lead(prelude, RATE, False, -12.0)[0] is low  # not made again at an alert
    assert preludes.lead(prelude, RATE, False)[0] is full
    ratio = 20 * np.log10(rms(low) / rms(full))
    assert ratio == pytest.approx(-12.0, abs=0.01)


def rms(pcm: np.ndarray) -> float:
    return float(np.sqrt(np.mean(pcm.astype(np.float64) ** 2)))


DAEMON_RATE = 24000  # the default English voice's


def test_two_zones_on_two_channels_of_one_card_and_their_tone_levels(
    broker, saved_models, tmp_path
):
    sinks = tmp_path / "alsa"
    env = {**card(sinks), "PYTHONPATH": str(REPO)}
    config = f"""{site_yaml(broker.port, tmp_path)}outputs:
  hall-amp: {{device: card4, channel: 1}}
  yard-amp: {{device: card4, channel: 3}}
zones:
  hall: {{outputs: [hall-amp], tone_level_db: -12}}
  yard: {{outputs: [yard-amp]}}
templates:
  - topic: "plant/{{zone}}/alarm"
    text: "{{text}}"
    payload: json
    priority: high
  - topic: plant/evacuate
    text: "Evacuate the building."
    priority: critical
    tone: {{name: continuous, repeats: 1, level_dbfs: -6}}
"""
    daemon = Daemon(tmp_path / "d", config, env, models=saved_models, module="bench.paced_daemon")
    reports = Listener(broker.port, "cosyedge/report", "cosyedge/status")
    try:
        daemon.start()
        hall = {"id": "h-1", "text": "Conveyor four in the hall has stopped.", "zone": "hall"}
        yard = {"id": "y-1", "text": "Gate two in the yard is open.", "zone": "yard"}
        publish(broker.port, "plant/hall/alarm", json.dumps(hall))
        publish(broker.port, "plant/yard/alarm", json.dumps(yard))
        reports.wait_for("cosyedge/report", lambda r: len({x["id"] for x in r}) >= 2, 90)
        publish(broker.port, "plant/evacuate", "now")
        done = reports.wait_for("cosyedge/report", lambda r: len(r) >= 3, 90, "three outcomes")
    finally:
        reports.close()
        daemon.stop()
    by_id = {r["id"]: r for r in done if "id" in r}
    assert {r["outcome"] for r in done} == {"spoken"}, done
    h, y = by_id["h-1"]["zones"]["hall"], by_id["y-1"]["zones"]["yard"]
    assert y["start"] < h["end"] and h["start"] < y["end"], (h, y)  # at the same time
    said = streams(sinks)
    assert len(said) == 2, [len(s) for s in said]  # one stream for both, then the evacuation's
    both, evacuation = said
    for frames in said:
        assert not frames[:, 1].any() and not frames[:, 3].any()  # channels 2 and 4: nothing
    # Each zone's own phrase in its channel, in the same frames.
    hall_at, yard_at = np.flatnonzero(both[:, 0]), np.flatnonzero(both[:, 2])
    assert hall_at[0] < yard_at[-1] and yard_at[0] < hall_at[-1]
    assert len(heard(both[:, 0])) != len(heard(both[:, 2]))  # two phrases, not one
    # The evacuation: the tone 12 dB lower in the hall, the phrase after it the same.
    block = DAEMON_RATE // 10  # audio.block_ms: each channel begins at a frame of its own
    tone_n = DAEMON_RATE  # one cycle of `continuous`: 1 s
    parts = {}
    for zone, column in (("hall", 0), ("yard", 2)):
        channel = evacuation[:, column]
        start = np.flatnonzero(channel)[0] // block * block
        parts[zone] = channel[start : start + tone_n], heard(channel[start + tone_n :])
    level = 20 * np.log10(rms(parts["hall"][0]) / rms(parts["yard"][0]))
    assert level == pytest.approx(-12.0, abs=0.5)
    assert len(parts["hall"][1]) > DAEMON_RATE // 2
    assert np.array_equal(parts["hall"][1], parts["yard"][1])  # the speech unchanged
