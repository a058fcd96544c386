"""Standard signal tones, measured as an instrument would: the on/off timing of the evacuation
pattern by an envelope detector, frequencies by zero crossings, FFT and a short-time FFT,
levels in dBFS, clicks as the steepest step at the phases' edges; and one played on the sound
device (ALSA's file sink) and measured as captured."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from support import fresh_portaudio

from cosyedge.audio.player import Player
from cosyedge.audio.tones import TONES, tone, tone_for
from cosyedge.config.loader import ConfigError, build_section
from cosyedge.config.signals import TONE_NAMES, ToneConfig

RATES = (8000, 16000, 22050, 44100, 48000)
ISO_8201 = {"tone": (0.45, 0.55), "short off": (0.45, 0.55), "long off": (1.35, 1.65)}
CYCLE = (3.6, 4.4)  # ISO 8201: 4 s +-10 %


def on_phases(pcm: np.ndarray, rate: int, window_s: float = 0.005) -> list[tuple[float, float]]:
    """(start, end) in seconds of each stretch where the signal's RMS over a centred window
    is above half its largest: the half-amplitude points of each tone phase."""
    n = max(1, round(window_s * rate))
    power = np.convolve(pcm.astype(np.float64) ** 2, np.ones(n) / n, mode="same")
    on = np.sqrt(power) >= 0.5 * np.sqrt(power.max())
    edges = np.flatnonzero(np.diff(np.concatenate([[0], on.astype(np.int8), [0]])))
    return [(a / rate, b / rate) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def crossing_hz(pcm: np.ndarray, rate: int) -> float:
    """The frequency by zero crossings: rising ones, interpolated between samples."""
    x = pcm.astype(np.float64)
    rising = np.flatnonzero((x[:-1] < 0) & (x[1:] >= 0))
    where = rising + x[rising] / (x[rising] - x[rising + 1])
    return (len(where) - 1) / ((where[-1] - where[0]) / rate)


def spectrum_db(pcm: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    x = pcm.astype(np.float64) * np.blackman(len(pcm))
    magnitude = np.abs(np.fft.rfft(x, 8 * len(x)))
    return np.fft.rfftfreq(8 * len(x), 1 / rate), 20 * np.log10(magnitude / magnitude.max() + 1e-12)


def dbfs(value: float) -> float:
    return 20 * math.log10(value / 32767)


def test_the_configurations_tones_are_the_generators():
    assert tuple(TONES) == TONE_NAMES


@pytest.mark.parametrize("rate", RATES)
@pytest.mark.parametrize("waveform,hz", [("square", None), ("sine", 970.0)])
def test_temporal_three_keeps_iso_8201s_timing(rate, waveform, hz):
    repeats = 3
    pcm = tone("temporal-three", rate, repeats, -12, hz=hz, waveform=waveform)
    phases = on_phases(pcm, rate)
    assert len(phases) == 3 * repeats
    offs = [b[0] - a[1] for a, b in itertools.pairwise(phases)]
    offs.append(len(pcm) / rate - phases[-1][1] + phases[0][0])  # into the next cycle
    for i, (start, end) in enumerate(phases):
        assert ISO_8201["tone"][0] <= end - start <= ISO_8201["tone"][1]
        kind = "long off" if i % 3 == 2 else "short off"
        assert ISO_8201[kind][0] <= offs[i] <= ISO_8201[kind][1], (i, offs[i])
        if i + 3 < len(phases):
            assert CYCLE[0] <= phases[i + 3][0] - start <= CYCLE[1]
    # Generated at the nominal values: each within a millisecond of them.
    assert all(abs(end - start - 0.5) < 0.001 for start, end in phases)
    assert all(abs(off - (1.5 if i % 3 == 2 else 0.5)) < 0.001 for i, off in enumerate(offs))
    assert len(pcm) == repeats * 4 * rate


@pytest.mark.parametrize("rate", RATES)
def test_temporal_three_sounds_at_its_frequency_and_waveform(rate):
    square = tone("temporal-three", rate, 1, -12)
    sine = tone("temporal-three", rate, 1, -12, hz=970.0, waveform="sine")
    for pcm, hz in ((square, 520.0), (sine, 970.0)):
        for start, end in on_phases(pcm, rate):
            middle = pcm[round((start + 0.05) * rate) : round((end - 0.05) * rate)]
            assert crossing_hz(middle, rate) == pytest.approx(hz, abs=0.5)
    start, end = on_phases(square, rate)[0]
    freqs, db = spectrum_db(square[round(start * rate) : round(end * rate)], rate)
    third = db[np.argmin(np.abs(freqs - 3 * 520.0))]
    assert third == pytest.approx(20 * math.log10(1 / 3), abs=0.5)  # a square wave's 1/3
    above = freqs > 0.46 * rate  # band-limited: no harmonic left to fold back
    assert db[above].max() < -60
    freqs, db = spectrum_db(sine[round(start * rate) : round(end * rate)], rate)
    assert db[np.abs(freqs - 3 * 970.0) < 20].max() < -60  # a sine: no harmonics


def stft_peaks(pcm: np.ndarray, rate: int, frame_s=0.03, hop_s=0.01):
    """(time, peak frequency) of each frame lying wholly within a tone phase."""
    n, hop = round(frame_s * rate), round(hop_s * rate)
    phases = on_phases(pcm, rate)
    found = []
    for start in range(0, len(pcm) - n, hop):
        t0, t1 = start / rate, (start + n) / rate
        if not any(a <= t0 and t1 <= b for a, b in phases):
            continue
        freqs, db = spectrum_db(pcm[start : start + n], rate)
        found.append(((t0 + t1) / 2, freqs[np.argmax(db)]))
    return np.array(found)


@pytest.mark.parametrize("rate", RATES)
def test_slow_whoop_sweeps_500_to_1200_hz_in_3_75_s_then_rests_0_25_s(rate):
    pcm = tone("slow-whoop", rate, 2, -12)
    phases = on_phases(pcm, rate)
    assert len(phases) == 2 and len(pcm) == 8 * rate
    for start, end in phases:
        assert end - start == pytest.approx(3.75, abs=0.002)
    assert phases[1][0] - phases[0][1] == pytest.approx(0.25, abs=0.002)
    start, end = phases[0]
    peaks = stft_peaks(pcm[: round(4 * rate)], rate)
    slope, at_zero = np.polyfit(peaks[:, 0], peaks[:, 1], 1)
    assert np.abs(peaks[:, 1] - (slope * peaks[:, 0] + at_zero)).max() < 8  # linear
    assert slope * start + at_zero == pytest.approx(500, abs=5)
    assert slope * end + at_zero == pytest.approx(1200, abs=5)


@pytest.mark.parametrize("rate", RATES)
def test_continuous_is_one_unbroken_tone(rate):
    pcm = tone("continuous", rate, 5, -12)
    assert len(pcm) == 5 * rate
    assert on_phases(pcm, rate) == [pytest.approx((0.005, 5.0 - 0.005), abs=0.001)]
    assert crossing_hz(pcm, rate) == pytest.approx(970.0, abs=0.1)
    other = tone("continuous", rate, 2, -12, hz=612.5)  # not a whole number of periods a second
    assert crossing_hz(other, rate) == pytest.approx(612.5, abs=0.1)
    inside = other[rate // 2 : 3 * rate // 2]
    steepest = 2 * np.pi * 612.5 / rate * np.abs(other).max()
    assert np.abs(np.diff(inside.astype(np.float64))).max() <= 1.01 * steepest + 1  # no joint


@pytest.mark.parametrize("name", TONE_NAMES)
@pytest.mark.parametrize("level", [0.0, -6.0, -12.0, -20.0])
def test_each_tone_peaks_at_its_level(name, level):
    rate = 22050
    pcm = tone(name, rate, 1, level)
    assert dbfs(np.abs(pcm).max()) == pytest.approx(level, abs=0.01)
    if name != "temporal-three":  # the sines: RMS 3.01 dB below the peak
        start, end = on_phases(pcm, rate)[0]
        steady = pcm[round((start + 0.05) * rate) : round((end - 0.05) * rate)]
        rms = np.sqrt(np.mean(steady.astype(np.float64) ** 2))
        assert dbfs(rms) == pytest.approx(level - 10 * math.log10(2), abs=0.02)


def sounding(pcm: np.ndarray, rate: int) -> list[tuple[int, int]]:
    """(first, last + 1) of each run of samples not zero, the runs at least 5 ms apart (a
    sine's own samples fall on zero now and then)."""
    loud = np.flatnonzero(pcm)
    breaks = np.flatnonzero(np.diff(loud) > 0.005 * rate)
    firsts = np.concatenate([[loud[0]], loud[breaks + 1]])
    lasts = np.concatenate([loud[breaks], [loud[-1]]])
    return [(int(a), int(b) + 1) for a, b in zip(firsts, lasts, strict=True)]


@pytest.mark.parametrize("rate", RATES)
@pytest.mark.parametrize(
    "name,kwargs,top_hz",
    [
        ("temporal-three", {}, None),
        ("temporal-three", {"hz": 970.0, "waveform": "sine"}, 970.0),
        ("slow-whoop", {}, 1200.0),
        ("continuous", {}, 970.0),
    ],
)
def test_no_clicks_at_the_edges_of_a_phase(rate, name, kwargs, top_hz):
    pcm = tone(name, rate, 2, -6, **kwargs)
    peak = np.abs(pcm).max()
    ms = round(0.001 * rate)
    runs = sounding(pcm, rate)
    assert len(runs) == {"temporal-three": 6, "slow-whoop": 2, "continuous": 1}[name]
    for first, end in runs:  # faded in and out: near silence a millisecond from each edge
        assert np.abs(pcm[first : first + ms]).max() < 0.1 * peak
        assert np.abs(pcm[end - ms : end]).max() < 0.1 * peak
    if top_hz is not None:  # a sine steps no further between two samples than its own slope
        steepest = 2 * np.pi * top_hz / rate * peak
        assert np.abs(np.diff(pcm.astype(np.float64))).max() <= 1.01 * steepest + 1


@pytest.mark.parametrize(
    "args,why",
    [
        (("siren", 22050, 1, -12), "no tone 'siren'"),
        (("continuous", 96000, 1, -12), "sample rate 96000 Hz"),
        (("continuous", 7999, 1, -12), "sample rate 7999 Hz"),
        (("continuous", 22050, 0, -12), "0 repeats"),
        (("continuous", 22050, 1, 3.0), "at 3.0 dBFS"),
        (("continuous", 22050, 1, -12, 5000.0), "5000.0 Hz"),
        (("slow-whoop", 22050, 1, -12, 800.0), "slow-whoop has the frequencies"),
        (("continuous", 22050, 1, -12, None, "triangle"), "waveform 'triangle'"),
    ],
)
def test_what_no_tone_can_be_is_refused(args, why):
    with pytest.raises(ValueError, match=why):
        tone(*args)


def test_a_tone_use_is_configured_and_checked_like_any_section():
    config = build_section(
        ToneConfig, {"name": "continuous", "hz": 700, "waveform": "sine", "repeats": 2}, "z.tone"
    )
    pcm = tone_for(config, 16000)
    assert len(pcm) == 2 * 16000 and crossing_hz(pcm, 16000) == pytest.approx(700, abs=0.1)
    assert dbfs(np.abs(pcm).max()) == pytest.approx(-12, abs=0.01)  # the default level
    refused = {
        "z.tone.name: missing required key": {},
        'z.tone.name: expected one of temporal-three, slow-whoop, continuous, got "siren"': {
            "name": "siren"
        },
        "z.tone.level_dbfs: expected a number -40-0, got 3": {
            "name": "continuous",
            "level_dbfs": 3,
        },
        "z.tone.hz: expected a number 200-3000, got 50": {"name": "continuous", "hz": 50},
        "z.tone.repeats: expected an integer 1-100, got 0": {"name": "continuous", "repeats": 0},
        'z.tone.waveform: expected one of sine, square, got "saw"': {
            "name": "temporal-three",
            "waveform": "saw",
        },
        "z.tone.hz: slow-whoop sweeps 500 to 1200 Hz as a sine by its definition; leave it out": {
            "name": "slow-whoop",
            "hz": 800,
        },
        "z.tone.volume: unknown key (known: name, repeats, level_dbfs, hz, waveform)": {
            "name": "continuous",
            "volume": 1,
        },
    }
    for problem, data in refused.items():
        with pytest.raises(ConfigError) as caught:
            build_section(ToneConfig, data, "z.tone", "site.yaml")
        assert caught.value.problems == [f"site.yaml: {problem}"]


def test_a_tone_played_on_the_device_is_heard_as_generated(alsa_sink, monkeypatch):
    for name, value in alsa_sink.env.items():
        monkeypatch.setenv(name, value)
    fresh_portaudio()
    rate = 22050
    pcm = tone("temporal-three", rate, 1, -12, hz=970.0, waveform="sine")
    played = Player(None, 100).play(rate, [pcm])
    assert played.played and played.samples == len(pcm)
    captured = alsa_sink.streams()[-1]
    phases = on_phases(captured, rate)
    assert [end - start for start, end in phases] == [pytest.approx(0.5, abs=0.002)] * 3
    offs = [b[0] - a[1] for a, b in itertools.pairwise(phases)]
    assert offs == [pytest.approx(0.5, abs=0.002)] * 2
    assert phases[0][0] == pytest.approx(0.005, abs=0.001)  # nothing lost or added before it
    assert len(captured) >= len(pcm)  # the last off phase too
    middle = captured[round(0.1 * rate) : round(0.4 * rate)]
    assert crossing_hz(middle, rate) == pytest.approx(970.0, abs=0.5)
    assert dbfs(np.abs(captured).max()) == pytest.approx(-12, abs=0.01)
