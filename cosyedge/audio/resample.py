"""Sample-rate conversion of recorded audio to the output's rate: a polyphase windowed-sinc
filter in numpy.

The ratio is reduced to whole numbers, `up / down`; each output sample is the sum of the
input samples within `ZERO_CROSSINGS` zero crossings of the low-pass kernel centred on its
position, the kernel a sinc cut off at `CUTOFF` of the lower of the two Nyquist frequencies,
shaped by a Kaiser window (beta `KAISER_BETA`). Its `up` phases are computed once a
conversion, each normalised to unit gain at DC. Measured (tests/test_recorded.py): a 1 kHz tone
keeps its level within 0.05 dB from 48 kHz to 22.05 kHz and from 8 kHz to 48 kHz, and what
would fold back (a 15 kHz tone at 48 kHz brought to 22.05 kHz) or be imaged (a 1 kHz tone at
8 kHz brought to 48 kHz, at 7 kHz) is more than 70 dB down.

`resample` is the one function callers use (`RecordedMessage.pcm` takes it as a parameter),
so another converter (soxr) can stand in with the same signature.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

ZERO_CROSSINGS = 16  # of the kernel, each side of its centre: the filter's length
KAISER_BETA = 8.6  # the window's stop-band attenuation, about 80 dB
CUTOFF = 0.92  # of the lower Nyquist frequency: the transition band ends below it
BLOCK = 16384  # output samples computed at once: bounds the working memory (a few MB)

Resampler = Callable[[np.ndarray, int, int], np.ndarray]


def resample(samples: np.ndarray, from_rate: int, to_rate: int) -> np.ndarray:
    """`samples` (one channel, float) at `from_rate` as float32 at `to_rate`, with
    len(samples) * to_rate // from_rate samples; the same samples when the rates are equal."""
    if from_rate == to_rate:
        return samples.astype(np.float32, copy=False)
    common = math.gcd(from_rate, to_rate)
    up, down = to_rate // common, from_rate // common
    table = _phases(up, down)
    half = table.shape[1] // 2
    padded = np.concatenate([np.zeros(half - 1), samples, np.zeros(half)]).astype(np.float32)
    windows = np.lib.stride_tricks.sliding_window_view(padded, table.shape[1])
    out = np.empty(len(samples) * up // down, dtype=np.float32)
    for start in range(0, len(out), BLOCK):
        position = np.arange(start, min(start + BLOCK, len(out)), dtype=np.int64) * down
        base, phase = position // up, position % up
        out[start : start + len(position)] = np.einsum("ij,ij->i", windows[base], table[phase])
    return out


def _phases(up: int, down: int) -> np.ndarray:
    """The kernel at each of the `up` fractional positions: row p, column i weighs the input
    sample `i - half + 1` places from the one at or before the output's position."""
    scale = CUTOFF * min(1.0, up / down)  # cutoff, as a fraction of the input's Nyquist
    reach = ZERO_CROSSINGS / scale  # the kernel's half-length, in input samples
    half = math.ceil(reach)
    offsets = np.arange(-half + 1, half + 1)
    distance = np.arange(up)[:, None] / up - offsets[None, :]
    inside = np.clip(1 - (distance / reach) ** 2, 0.0, None)
    kernel = scale * np.sinc(scale * distance) * np.i0(KAISER_BETA * np.sqrt(inside))
    kernel[np.abs(distance) >= reach] = 0.0
    return (kernel / kernel.sum(axis=1, keepdims=True)).astype(np.float32)
