"""How an announcement sounds: a chime per priority, volume per priority, quiet hours.

Chimes are generated tones, so there are no audio assets to ship, and each priority has its
own pitch and rhythm, so an operator can tell a critical alarm from a notice before the first
word (and a test can tell them apart in captured audio: see CHIME_HZ).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from cosyedge.config.alarms import AlarmsConfig, QuietHoursConfig

# (tone Hz, beeps) per priority: higher and more insistent for more urgent alarms.
CHIME_HZ = {"critical": 1760.0, "high": 1319.0, "medium": 988.0, "low": 659.0}
CHIME_BEEPS = {"critical": 3, "high": 2, "medium": 1, "low": 1}
BEEP_S, GAP_S, PAUSE_S = 0.12, 0.06, 0.25  # beep, between beeps, chime to speech
CHIME_LEVEL = 0.3  # of full scale, so the chime does not startle over the voice
# The alarm system's own fault: a falling two-tone, twice, unlike any priority's chime.
FAULT_TONE_HZ = (880.0, 587.0)
FAULT_TONE_REPEATS = 2


def chime(priority: str, sample_rate: int) -> np.ndarray:
    """int16 beeps with 5 ms fades (no clicks), then a pause before the speech."""
    return _beeps([CHIME_HZ[priority]] * CHIME_BEEPS[priority], sample_rate)


def fault_tone(sample_rate: int) -> np.ndarray:
    """The tone before a fault of the alarm system itself is said."""
    return _beeps(list(FAULT_TONE_HZ) * FAULT_TONE_REPEATS, sample_rate)


def _beeps(tones: list[float], sample_rate: int) -> np.ndarray:
    n = int(BEEP_S * sample_rate)
    t = np.arange(n) / sample_rate
    fade = min(n // 2, int(0.005 * sample_rate))
    ramp = np.linspace(0.0, 1.0, fade)
    gap = np.zeros(int(GAP_S * sample_rate))
    parts: list[np.ndarray] = []
    for i, hz in enumerate(tones):
        beep = np.sin(2 * np.pi * hz * t)
        beep[:fade] *= ramp
        beep[n - fade :] *= ramp[::-1]
        parts += [gap, beep] if i else [beep]
    parts.append(np.zeros(int(PAUSE_S * sample_rate)))
    return (np.concatenate(parts) * CHIME_LEVEL * 32767).astype(np.int16)


@dataclass(frozen=True)
class Sound:
    config: AlarmsConfig
    clock: Callable[[], datetime.datetime] = datetime.datetime.now

    def volume(self, priority: str, requested: float | None = None) -> float:
        level = self.config.priorities.of(priority).volume if requested is None else requested
        quiet = self.config.quiet_hours
        if quiet is not None and priority != "critical" and _within(quiet, self.clock().time()):
            level *= quiet.volume
        return level

    def shape(
        self,
        priority: str,
        sample_rate: int,
        speech: Iterator[np.ndarray],
        volume: float,
        fault: bool = False,
        lead: list[np.ndarray] | None = None,
    ) -> Iterator[np.ndarray]:
        """The chime (if configured for the priority; the fault tone, always, for a fault of
        the alarm system), or what its template plays in its place (`lead`: a tone, a
        recorded message), and the speech, at the given volume."""
        if fault:
            yield _scaled(fault_tone(sample_rate), volume)
        elif lead is not None:
            for pcm in lead:
                yield _scaled(pcm, volume)
        elif self.config.priorities.of(priority).chime:
            yield _scaled(chime(priority, sample_rate), volume)
        for pcm in speech:
            yield _scaled(pcm, volume)


def _scaled(pcm: np.ndarray, volume: float) -> np.ndarray:
    if volume >= 1.0:
        return pcm
    return (pcm.astype(np.float32) * volume).astype(np.int16)


def _within(quiet: QuietHoursConfig, now: datetime.time) -> bool:
    start = datetime.time.fromisoformat(quiet.start.zfill(5))
    end = datetime.time.fromisoformat(quiet.end.zfill(5))
    if start <= end:
        return start <= now < end
    return now >= start or now < end  # over midnight
