"""Chimes, volume per priority and quiet hours."""

from __future__ import annotations

import datetime

import numpy as np

from cosyedge.audio.sound import CHIME_HZ, Sound, chime
from cosyedge.config import AlarmsConfig, PrioritiesConfig, PriorityConfig, QuietHoursConfig

RATE = 22050


def test_each_priority_has_its_own_pitch_and_rhythm():
    for priority, hz in CHIME_HZ.items():
        pcm = chime(priority, RATE)
        assert pcm.dtype == np.int16 and 0.3 * RATE < len(pcm) < 1.0 * RATE
        spectrum = np.abs(np.fft.rfft(pcm.astype(np.float32)))
        peak = np.fft.rfftfreq(len(pcm), 1 / RATE)[np.argmax(spectrum)]
        assert abs(peak - hz) < 10
        assert pcm[0] == 0 and np.abs(pcm).max() < 0.35 * 32767  # faded in, not startling
    assert len(chime("critical", RATE)) > len(chime("low", RATE))


def at(hour: int, minute: int = 0):
    return lambda: datetime.datetime(2026, 1, 1, hour, minute)


def test_volume_per_priority_and_quiet_hours_over_midnight():
    config = AlarmsConfig(
        priorities=PrioritiesConfig(low=PriorityConfig(volume=0.8, chime=False)),
        quiet_hours=QuietHoursConfig(start="22:00", end="06:00", volume=0.5),
    )
    assert Sound(config, at(12)).volume("low") == 0.8
    assert Sound(config, at(23)).volume("low") == 0.4
    assert Sound(config, at(5, 59)).volume("medium") == 0.5
    assert Sound(config, at(6)).volume("medium") == 1.0
    assert Sound(config, at(23)).volume("critical") == 1.0  # never lowered
    assert Sound(config, at(12)).volume("high", requested=0.25) == 0.25


def test_shape_puts_the_chime_first_and_scales_everything():
    speech = np.full(1000, 10000, dtype=np.int16)
    sound = Sound(AlarmsConfig(priorities=PrioritiesConfig(low=PriorityConfig(chime=False))))
    high = list(sound.shape("high", RATE, iter([speech]), 0.5))
    assert np.array_equal(high[0], (chime("high", RATE) * 0.5).astype(np.int16))
    assert np.all(high[1] == 5000)
    (low,) = sound.shape("low", RATE, iter([speech]), 1.0)
    assert low is speech
