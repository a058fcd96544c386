"""How far one recording of speech is from another, as a listener would tell them apart: the
distance of their log-mel spectrograms, with numpy only.

Frames of 25 ms every 10 ms (a Hann window), their power spectra summed into 40 mel bands
from 100 Hz to the Nyquist frequency (triangular filters, HTK's mel scale), in dB, each
spectrogram floored 60 dB under its loudest band (so the quantization noise of silence, at
-90 dB, does not count). The distance is the mean absolute difference in dB over the frames
where either is within 40 dB of its loudest (the speech, not the pauses), after aligning the
two by the cross-correlation of their waveforms within `max_lag_s`: a resampler's delay is
a few samples, a phrase's audio a few seconds, so a shift of a syllable is not aligned away.
"""

from __future__ import annotations

import numpy as np

BANDS = 40
LOW_HZ = 100.0
FLOOR_DB = 60.0
SPEECH_DB = 40.0


def mel(hz: np.ndarray | float) -> np.ndarray:
    return 2595.0 * np.log10(1.0 + np.asarray(hz) / 700.0)


def filterbank(rate: int, n_fft: int) -> np.ndarray:
    """BANDS triangular filters over the rfft's bins, evenly spaced on the mel scale."""
    edges_mel = np.linspace(mel(LOW_HZ), mel(rate / 2), BANDS + 2)
    edges = 700.0 * (10 ** (edges_mel / 2595.0) - 1.0)
    bins = np.fft.rfftfreq(n_fft, 1 / rate)
    rising = (bins[None, :] - edges[:-2, None]) / np.diff(edges)[:-1, None]
    falling = (edges[2:, None] - bins[None, :]) / np.diff(edges)[1:, None]
    return np.maximum(0.0, np.minimum(rising, falling))


def log_mel(pcm: np.ndarray, rate: int) -> np.ndarray:
    """The spectrogram (frames by BANDS, in dB) of int16-scaled samples, floored FLOOR_DB under
    its loudest band."""
    frame, hop = int(0.025 * rate), int(0.010 * rate)
    n_fft = 1 << (frame - 1).bit_length()
    x = np.asarray(pcm, dtype=np.float64) / 32768.0
    x = np.concatenate([x, np.zeros(max(0, frame - len(x)))])
    count = 1 + (len(x) - frame) // hop
    frames = np.lib.stride_tricks.sliding_window_view(x, frame)[::hop][:count]
    power = np.abs(np.fft.rfft(frames * np.hanning(frame), n_fft)) ** 2
    db = 10 * np.log10(power @ filterbank(rate, n_fft).T + 1e-12)
    return np.maximum(db, db.max() - FLOOR_DB)


def lag(a: np.ndarray, b: np.ndarray, most: int) -> int:
    """The shift of `a` against `b` (samples, |shift| <= most) that correlates them best:
    a[i + shift] matches b[i]."""
    n = len(a) + len(b)
    size = 1 << (n - 1).bit_length()
    fa = np.fft.rfft(np.asarray(a, dtype=np.float64), size)
    fb = np.fft.rfft(np.asarray(b, dtype=np.float64), size)
    correlation = np.fft.irfft(fa * np.conj(fb), size)
    shifts = np.arange(-most, most + 1)
    return int(shifts[np.argmax(correlation[shifts % size])])


def distance(heard: np.ndarray, reference: np.ndarray, rate: int, max_lag_s: float = 0.01) -> float:
    """The mean absolute log-mel difference (dB) of `heard` and `reference` over the frames
    either speaks in, `heard` aligned to `reference` first; compared over the shorter."""
    shift = lag(heard, reference, int(max_lag_s * rate))
    heard = heard[shift:] if shift >= 0 else np.concatenate([np.zeros(-shift), heard])
    n = min(len(heard), len(reference))
    a, b = log_mel(heard[:n], rate), log_mel(reference[:n], rate)
    speaking = (a.max(axis=1) > a.max() - SPEECH_DB) | (b.max(axis=1) > b.max() - SPEECH_DB)
    return float(np.mean(np.abs(a - b)[speaking]))
