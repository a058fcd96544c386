"""Objective checks of synthesized speech: log-mel distance between two renderings of the same
text, and word error through an offline recognizer (pocketsphinx, when installed)."""

from __future__ import annotations

import functools
import re

import numpy as np

N_FFT = 1024
HOP = 256
N_MELS = 80
FLOOR_DB = 80.0  # dynamic range kept below each utterance's loudest mel band


@functools.lru_cache(maxsize=4)
def _mel_filters(sample_rate: int) -> np.ndarray:
    def mel(hz):
        return 2595.0 * np.log10(1.0 + np.asarray(hz) / 700.0)

    def hz(m):
        return 700.0 * (10.0 ** (np.asarray(m) / 2595.0) - 1.0)

    edges = hz(np.linspace(mel(0.0), mel(sample_rate / 2), N_MELS + 2))
    bins = np.fft.rfftfreq(N_FFT, 1.0 / sample_rate)
    filters = np.zeros((N_MELS, len(bins)), np.float32)
    for i in range(N_MELS):
        lo, mid, hi = edges[i : i + 3]
        rising = (bins - lo) / (mid - lo)
        falling = (hi - bins) / (hi - mid)
        filters[i] = np.maximum(0.0, np.minimum(rising, falling))
    return filters


def log_mel(pcm: np.ndarray, sample_rate: int) -> np.ndarray:
    """[frames, mels] in dB, floored FLOOR_DB below the loudest value, so silences compare equal."""
    x = pcm.astype(np.float32) / 32768.0
    x = np.pad(x, (N_FFT // 2, N_FFT // 2))
    frames = np.lib.stride_tricks.sliding_window_view(x, N_FFT)[::HOP] * np.hanning(N_FFT)
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    db = 10.0 * np.log10(np.maximum(power @ _mel_filters(sample_rate).T, 1e-10))
    return np.maximum(db, db.max() - FLOOR_DB)


def log_mel_distance(a: np.ndarray, b: np.ndarray, sample_rate: int) -> float:
    """Mean absolute log-mel difference in dB along the best time alignment (DTW), so a frame of
    difference in a phoneme's duration does not count as distortion."""
    ma, mb = log_mel(a, sample_rate), log_mel(b, sample_rate)
    cost = np.abs(ma[:, None, :] - mb[None, :, :]).mean(axis=2)
    total, steps = _dtw(cost)
    return float(total / steps)


def _dtw(cost: np.ndarray) -> tuple[float, int]:
    """Cheapest monotonic path through `cost` and its length, one anti-diagonal at a time (every
    cell on a diagonal depends only on the two before it, so each diagonal is one numpy step)."""
    n, m = cost.shape
    total = np.full((n + 1, m + 1), np.inf)
    steps = np.zeros((n + 1, m + 1), np.int64)
    total[0, 0] = 0.0
    for k in range(2, n + m + 1):
        i = np.arange(max(1, k - m), min(n, k - 1) + 1)
        j = k - i
        options = np.stack([total[i - 1, j - 1], total[i - 1, j], total[i, j - 1]])
        counts = np.stack([steps[i - 1, j - 1], steps[i - 1, j], steps[i, j - 1]])
        best = options.argmin(axis=0)
        pick = np.arange(len(i))
        total[i, j] = options[best, pick] + cost[i - 1, j - 1]
        steps[i, j] = counts[best, pick] + 1
    return float(total[n, m]), int(steps[n, m])


def words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def word_error_rate(reference: str, heard: str) -> float:
    """Word-level edit distance over the reference length."""
    ref, hyp = words(reference), words(heard)
    previous = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        current = [i]
        for j, h in enumerate(hyp, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (r != h)))
        previous = current
    return previous[-1] / max(1, len(ref))


def recognizer_available() -> bool:
    try:
        import pocketsphinx  # noqa: F401
    except ImportError:
        return False
    return True


class Listener:
    """pocketsphinx's bundled en-US model, loaded once (it takes most of a second)."""

    def __init__(self) -> None:
        from pocketsphinx import Decoder

        self._decoder = Decoder(samprate=16000, loglevel="FATAL")

    def transcribe(self, pcm: np.ndarray, sample_rate: int) -> str:
        x = pcm.astype(np.float32)
        n = int(len(x) * 16000 / sample_rate)
        resampled = np.interp(np.linspace(0, len(x) - 1, n), np.arange(len(x)), x)
        self._decoder.start_utt()
        self._decoder.process_raw(resampled.astype("<i2").tobytes(), full_utt=True)
        self._decoder.end_utt()
        hyp = self._decoder.hyp()
        return hyp.hypstr if hyp else ""
