"""Standard signal tones, generated: no audio assets to ship, any sample rate from 8 to 48 kHz.

| name             | one cycle                                  | frequency         | defined by |
|------------------|--------------------------------------------|-------------------|------------|
| `temporal-three` | tone 0.5 s, off 0.5 s, tone 0.5 s, off     | 520 Hz square (a) | ISO 8201   |
|                  | 0.5 s, tone 0.5 s, off 1.5 s: 4 s          |                   | (b)        |
| `slow-whoop`     | linear sweep 500 -> 1200 Hz in 3.75 s, off | sine, sweeping    | (c)        |
|                  | 0.25 s: 4 s                                |                   |            |
| `continuous`     | one unbroken tone, a cycle being 1 s       | 970 Hz sine (a)   | (d)        |

(a) Configurable: any 200-3000 Hz, sine or square. (b) ISO 8201:1987, the audible emergency
evacuation signal; NFPA 72 18.4.2 ("temporal-3"), which fixes no frequency either; 520 Hz
square is NFPA 72 18.4.5.3's low-frequency signal (520 Hz +-10 %, a square wave). (c) The slow
whoop of AS 2220-1978 ("action") and NEN 2575, as fire-alarm sounder tone tables give it (Siemens
FDS229, Cerberus PRO: "sweep-up, linear, 500 Hz -> 1,200 Hz, 3.75 s, 0.25 s"). (d) BS 5839-1's
"evacuate" tone in the same tables (970 Hz, continuous). The alternating two-tone (800/970 Hz)
is left out: no definition of its timing was found to cite.

Timing tolerances: ISO 8201 (and NFPA 72 18.4.2.1, and the Ontario Building Code's appendix
A-3.2.4.18.(2), which quotes it) allows each tone phase and each short off phase 0.5 s +-10 %
(0.45-0.55 s), the long off phase 1.5 s +-10 % (1.35-1.65 s), the cycle 4 s +-10 %. The tones
are generated at the nominal values: every tone phase starts and ends with a 10 ms
raised-cosine fade (no click), half of it taken from the off phase beside it, so the tone is
above half its amplitude for the nominal 0.5 s (3.75 s for the sweep) and below it for 0.5 s
and 1.5 s (0.25 s), to within a sample; a cycle is exactly 4 s (the first tone phase starts
half a fade after it).

The level is the peak level in dBFS (0 dBFS: int16 full scale, 32767): a sine at -12 dBFS has
its RMS at -15 dBFS. A square wave is band-limited, summed from its odd harmonics below 0.45
of the sample rate, so none folds back below Nyquist as a false tone at 8 kHz; its peak (with
the harmonics' overshoot) is the level.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cosyedge.config.signals import ToneConfig

MIN_RATE, MAX_RATE = 8000, 48000
FADE_S = 0.010  # raised-cosine fade at each end of a tone phase: no click, not heard as a ramp
MIN_HZ, MAX_HZ = 200.0, 3000.0  # a configured frequency; 3 kHz is below 8 kHz's Nyquist
HARMONIC_LIMIT = 0.45  # of the sample rate: a square wave's harmonics stop below it


@dataclass(frozen=True)
class ToneDefinition:
    """A standard tone: the length of one cycle, its default frequency and waveform (None for
    a tone whose frequencies its definition fixes) and where it is defined."""

    name: str
    cycle_s: float
    hz: float | None
    waveform: str | None
    source: str


TONES = {
    "temporal-three": ToneDefinition(
        "temporal-three", 4.0, 520.0, "square", "ISO 8201:1987, NFPA 72 18.4.2 and 18.4.5.3"
    ),
    "slow-whoop": ToneDefinition("slow-whoop", 4.0, None, None, "AS 2220-1978, NEN 2575"),
    "continuous": ToneDefinition("continuous", 1.0, 970.0, "sine", "BS 5839-1 (evacuate)"),
}

T3_PHASES_S = (0.5, 0.5, 0.5, 0.5, 0.5, 1.5)  # tone, off, tone, off, tone, off
WHOOP_HZ = (500.0, 1200.0)
WHOOP_SWEEP_S, WHOOP_OFF_S = 3.75, 0.25


def tone(
    name: str,
    sample_rate: int,
    repeats: int,
    level_dbfs: float,
    hz: float | None = None,
    waveform: str | None = None,
) -> np.ndarray:
    """`repeats` cycles of the tone `name` as int16 at `sample_rate`, its peak at
    `level_dbfs`; `hz` and `waveform` (sine, square) change those of the tones that have one
    (None: the definition's). Raises ValueError for a name, rate, count, level or frequency
    out of bounds; the length is exactly `repeats` cycles."""
    definition = _checked(name, sample_rate, repeats, level_dbfs, hz, waveform)
    make = _MAKERS[name]
    signal = make(sample_rate, repeats, hz or definition.hz, waveform or definition.waveform)
    return _at_level(signal, level_dbfs)


def tone_for(config: ToneConfig, sample_rate: int) -> np.ndarray:
    """The tone a configured use of one asks for."""
    return tone(
        config.name, sample_rate, config.repeats, config.level_dbfs, config.hz, config.waveform
    )


def _checked(
    name: str,
    sample_rate: int,
    repeats: int,
    level_dbfs: float,
    hz: float | None,
    waveform: str | None,
) -> ToneDefinition:
    if name not in TONES:
        raise ValueError(f"no tone {name!r}; the tones are {', '.join(TONES)}")
    if not MIN_RATE <= sample_rate <= MAX_RATE:
        raise ValueError(f"sample rate {sample_rate} Hz, not {MIN_RATE}-{MAX_RATE} Hz")
    if repeats < 1 or not -120.0 <= level_dbfs <= 0.0:
        raise ValueError(f"{repeats} repeats at {level_dbfs} dBFS: need >= 1, at -120 to 0 dBFS")
    definition = TONES[name]
    if definition.hz is None and (hz is not None or waveform is not None):
        raise ValueError(f"{name} has the frequencies its definition gives, no other")
    if hz is not None and not MIN_HZ <= hz <= MAX_HZ:
        raise ValueError(f"{hz} Hz, not {MIN_HZ:g}-{MAX_HZ:g} Hz")
    if waveform not in (None, "sine", "square"):
        raise ValueError(f"waveform {waveform!r}, not sine or square")
    return definition


def _temporal_three(rate: int, repeats: int, hz: float, waveform: str) -> np.ndarray:
    fade = _samples(FADE_S, rate)
    parts = []
    for i, phase_s in enumerate(T3_PHASES_S):
        n = _samples(phase_s, rate)
        # A tone phase takes half a fade from each off phase beside it: the tone is above
        # half its amplitude for the nominal phase (the first from half a fade in).
        if i % 2 == 0:
            parts.append(_faded(_wave(waveform, hz, n + fade, rate), fade))
        else:
            parts.append(np.zeros(n - fade))
    return np.tile(np.concatenate(parts), repeats)


def _slow_whoop(rate: int, repeats: int, hz: float | None, waveform: str | None) -> np.ndarray:
    fade = _samples(FADE_S, rate)
    sweep_n = _samples(WHOOP_SWEEP_S, rate)
    # The frequency runs linearly 500 -> 1200 Hz between the half-amplitude points, which fall
    # on the sweep's nominal start and end (the fades reach half a fade beyond them).
    t = (np.arange(sweep_n + fade) - fade / 2) / rate
    low, high = WHOOP_HZ
    slope = (high - low) / WHOOP_SWEEP_S
    sweep = _faded(np.sin(2 * np.pi * (low * t + slope * t * t / 2)), fade)
    cycle = np.concatenate([sweep, np.zeros(_samples(WHOOP_OFF_S, rate) - fade)])
    return np.tile(cycle, repeats)


def _continuous(rate: int, repeats: int, hz: float, waveform: str) -> np.ndarray:
    # One unbroken wave for the whole length: tiled cycles would break its phase at each
    # joint for a frequency that is not a whole number of periods a second.
    fade = _samples(FADE_S, rate)
    return _faded(_wave(waveform, hz, _samples(repeats * 1.0, rate), rate), fade)


_MAKERS: dict[str, Callable[..., np.ndarray]] = {
    "temporal-three": _temporal_three,
    "slow-whoop": _slow_whoop,
    "continuous": _continuous,
}


def _wave(waveform: str, hz: float, n: int, rate: int) -> np.ndarray:
    """A sine, or a square wave summed from its odd harmonics below the harmonic limit."""
    t = np.arange(n) / rate
    if waveform == "sine":
        return np.sin(2 * np.pi * hz * t)
    orders = range(1, max(2, math.floor(HARMONIC_LIMIT * rate / hz) + 1), 2)
    return sum(np.sin(2 * np.pi * k * hz * t) / k for k in orders) * (4 / np.pi)


def _faded(signal: np.ndarray, fade: int) -> np.ndarray:
    ramp = 0.5 - 0.5 * np.cos(np.pi * (np.arange(fade) + 0.5) / fade)
    out = signal.copy()
    out[:fade] *= ramp
    out[len(out) - fade :] *= ramp[::-1]
    return out


def _at_level(signal: np.ndarray, level_dbfs: float) -> np.ndarray:
    peak = float(np.max(np.abs(signal))) or 1.0
    amplitude = 32767 * 10 ** (level_dbfs / 20)
    return np.round(signal * (amplitude / peak)).astype(np.int16)


def _samples(seconds: float, rate: int) -> int:
    return round(seconds * rate)
