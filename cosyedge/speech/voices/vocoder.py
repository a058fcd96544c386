"""The vocoder of hibari's voices: the network's spectra, one per 12.5 ms frame, made into
samples.

For each frame the network predicts, over 601 frequency bins, a harmonic branch (log-magnitude
`lh`, phase shift `th`), shaped noise (log-magnitude `ln`) and a free-phase branch
(log-magnitude `lr`, phase `phi`), and the frame's F0. The spectrum is

    S = exp(lh) e^(i pi tanh(th)) STFT(pulses(f0)) + exp(ln) Z + exp(lr) e^(i phi)

with Z complex Gaussian noise and every log-magnitude taken at most 7, made into samples by
one inverse STFT (1200-point frames, hop 300, periodic Hann window, 24 kHz, normalized by the
summed squared window). This is the signal hibari's own runtime makes (`hibari.dsp.synth`);
given the same noise, the same samples up to float rounding (tests/test_vocoder.py holds it to
that on the model's own outputs, hibari's draws put in as `noise`).

It is computed here with less CPU and memory (numbers for 8 s of speech, numpy 2.4, the
2-core EPYC): the pulse train's frames are transformed a block of frames at a time (2.3 ms,
against 5.2 ms for all frames at once); the overlap-add's norm is the window's one constant
row inside, its partial sums only at the ends; and Z is drawn in polar form (`polar_noise`,
3.0 ms) where hibari draws numpy's Gaussian (7.5 ms, two fifths of the vocoder). Z is a fresh
draw for every phrase either way, of the same law, so a phrase's noise is not hibari's
sample for sample; everything else is. docs/architecture.md, "Memory and CPU".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

N_FFT = 1200
HOP = 300
SAMPLE_RATE = 24000
BINS = N_FFT // 2 + 1
OVERLAP = N_FFT // HOP  # frames that overlap at each output sample
MAX_LOG_MAGNITUDE = 7.0
VOICED_HZ = 40.0  # below this F0 a frame is unvoiced: no pulses
TOP_HZ = 11000.0  # every harmonic below this is in the pulse train
FLAT = 2e-3  # where |2 sin(t/2)| is this small the pulse sum is taken at its limit
# Frames of the pulse train transformed at once: the float64 frames and their spectra take
# 1.2 MB, whatever the length of the step.
BLOCK = 64

OUTPUTS = ("lh", "th", "ln", "lr", "phi", "f0")  # the network's, in the order synth takes them
# Fills its complex64 `out` with complex Gaussian noise from the generator, its float32 `work`
# (of out's shape) free to use.
Noise = Callable[[np.random.Generator, np.ndarray, np.ndarray], None]


def _hann() -> np.ndarray:
    """The periodic Hann window of N_FFT points, float32."""
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)).astype(np.float32)


def _inverse_sum(squares: np.ndarray) -> np.ndarray:
    """1 / the rows of `squares` (float32) added in order from zero: one output block's
    squared-window sum as the overlap-add makes it."""
    total = np.zeros(HOP, np.float32)
    for row in squares:
        total += row
    return 1.0 / np.maximum(total, 1e-11)


def polar_noise(rng: np.random.Generator, out: np.ndarray, work: np.ndarray) -> None:
    """`out` (complex64) filled with complex Gaussian noise, its real and imaginary parts
    independent and of unit variance: a uniform angle and a Rayleigh radius sqrt(-2 ln U) for
    each (the Box-Muller transform), from float32 uniforms in `work`. U's 24 bits put the
    radius's largest at 5.8, where the law leaves it with probability 6e-8."""
    rng.random(dtype=np.float32, out=work)
    np.multiply(work, 2 * np.pi, out=work)
    np.cos(work, out=out.real)
    np.sin(work, out=out.imag)
    rng.random(dtype=np.float32, out=work)
    np.subtract(1.0, work, out=work)  # (0, 1]: the log is finite
    np.log(work, out=work)
    np.multiply(work, -2.0, out=work)
    np.sqrt(work, out=work)
    out *= work


@dataclass(frozen=True)
class Vocoder:
    """What every phrase's synthesis reads (windows, interpolation weights), made once a
    voice, and how it draws its noise. `synth` is thread-safe: it keeps nothing between
    calls."""

    window: np.ndarray = field(default_factory=_hann)
    noise: Noise = polar_noise

    @property
    def _squares(self) -> np.ndarray:
        """The squared window in OVERLAP blocks of HOP samples, float32."""
        return (self.window * self.window).reshape(OVERLAP, HOP)

    def synth(
        self,
        lh: np.ndarray,
        th: np.ndarray,
        ln: np.ndarray,
        lr: np.ndarray,
        phi: np.ndarray,
        f0: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """The network's outputs (each [BINS, frames]; `f0` [frames]; any float type, computed
        in float32) as float32 samples, HOP a frame; the noise drawn from `rng` by `noise`.
        Raises ValueError when their shapes do not agree."""
        lh, th, ln, lr, phi, f0 = _float32(lh, th, ln, lr, phi, f0)
        if lh.shape[1] == 0:
            return np.zeros(0, np.float32)
        spectrum = self.harmonics(f0, lh.shape[1])
        rotation = np.empty(lh.shape, np.complex64)
        scale = np.tanh(th)
        scale *= np.pi
        np.cos(scale, out=rotation.real)
        np.sin(scale, out=rotation.imag)
        spectrum *= _scaled(rotation, lh, scale)
        self.noise(rng, rotation, scale)  # Z, into the phases' buffer
        spectrum += _scaled(rotation, ln, scale)
        np.cos(phi, out=rotation.real)
        np.sin(phi, out=rotation.imag)
        spectrum += _scaled(rotation, lr, scale)
        del rotation, scale
        return self.overlap_add(spectrum)

    def harmonics(self, f0: np.ndarray, frames: int) -> np.ndarray:
        """The STFT of the pulse train for `f0` (centred frames, the train reflected at its
        ends), [BINS, frames] complex64: a block of BLOCK frames at a time, in float64."""
        train = np.pad(pulse_train(f0), N_FFT // 2, mode="reflect")
        starts = np.lib.stride_tricks.sliding_window_view(train, N_FFT)[::HOP]
        source_window = self.window.astype(np.float64) / (N_FFT / 4)  # a unit cosine: 1
        spectrum = np.empty((BINS, frames), np.complex64)
        for first in range(0, frames, BLOCK):
            block = starts[first : min(first + BLOCK, frames)] * source_window
            spectrum[:, first : first + len(block)] = np.fft.rfft(block, axis=1).T
        return spectrum

    def overlap_add(self, spectrum: np.ndarray) -> np.ndarray:
        """The inverse STFT of `spectrum` ([BINS, frames]): each frame's samples windowed and
        added where they overlap, normalized by the summed squared window, the first and last
        half frame left out (frames * HOP samples, float32)."""
        frames = spectrum.shape[1]
        pieces = np.fft.irfft(spectrum.T, N_FFT, axis=1).astype(np.float32, copy=False)
        pieces *= self.window
        blocks = pieces.reshape(frames, OVERLAP, HOP)
        out = np.zeros((frames + OVERLAP - 1, HOP), np.float32)
        for k in range(OVERLAP):
            out[k : k + frames] += blocks[:, k]
        self._normalize(out, frames)
        first = N_FFT // 2 // HOP
        return out[first : first + frames].reshape(-1)

    def _normalize(self, out: np.ndarray, frames: int) -> None:
        """`out`'s blocks divided by the squared window summed over the frames that reach
        them: all OVERLAP inside, fewer at the ends (only the blocks kept are done)."""
        squares = self._squares
        inside = range(OVERLAP - 1, frames)
        if len(inside):
            out[inside.start : inside.stop] *= _inverse_sum(squares)
        for block in range(N_FFT // 2 // HOP, frames + N_FFT // 2 // HOP):
            if block not in inside:
                reaching = squares[max(0, block - frames + 1) : min(OVERLAP - 1, block) + 1]
                out[block] *= _inverse_sum(reaching)


def _float32(*parts: np.ndarray) -> list[np.ndarray]:
    """The network's six outputs as float32 (not copied when they are), once they are checked:
    real numbers (a complex part would be dropped, an object cast), all finite, five spectra
    of one shape [BINS, frames] and an F0 a frame. Raises ValueError naming what is wrong.
    The synthesis would make finite samples of much that is not (an infinite magnitude is
    capped to a full-scale blast, a NaN or infinite F0 unvoices the rest of the step: speech
    made breath), so the samples' own check would not see it; an F0 shorter than the spectra
    would leave frames of the pulse train's spectrum unwritten, memory in the audio."""
    arrays = [np.asarray(part) for part in parts]
    for name, array in zip(OUTPUTS, arrays, strict=True):
        if array.dtype.kind not in "fiub":
            raise ValueError(f"the output {name} is {array.dtype}, not real numbers")
    arrays = [array.astype(np.float32, copy=False) for array in arrays]
    for name, array in zip(OUTPUTS, arrays, strict=True):
        if not np.isfinite(array).all():
            raise ValueError(f"the output {name} holds values that are not finite")
    *spectra, f0 = arrays
    shapes = {spectrum.shape for spectrum in spectra}
    if len(shapes) != 1 or spectra[0].ndim != 2 or spectra[0].shape[0] != BINS:
        raise ValueError(f"the spectra are not all [{BINS}, frames]: {sorted(shapes)}")
    if f0.shape != spectra[0].shape[1:]:
        raise ValueError(f"F0 of {f0.shape} for spectra of {spectra[0].shape[1]} frames")
    return [*spectra, f0]


def _scaled(rotation: np.ndarray, log_magnitude: np.ndarray, work: np.ndarray) -> np.ndarray:
    """`rotation` multiplied in place by exp(min(`log_magnitude`, MAX_LOG_MAGNITUDE)), made in
    `work`."""
    np.minimum(log_magnitude, MAX_LOG_MAGNITUDE, out=work)
    np.exp(work, out=work)
    rotation *= work
    return rotation


def pulse_train(f0: np.ndarray) -> np.ndarray:
    """A band-limited pulse train following `f0` (Hz a frame), HOP samples a frame, float32:
    every harmonic below TOP_HZ at unit amplitude, sum over h <= H of cos(h t) =
    sin((H + 1/2) t) / (2 sin(t / 2)) - 1/2; 0 where the frame is unvoiced. F0 between frame
    centres is interpolated linearly."""
    hz = _per_sample(np.asarray(f0, np.float32))
    voiced = hz > VOICED_HZ
    np.maximum(hz, VOICED_HZ, out=hz)
    phase = np.cumsum(hz, dtype=np.float64)
    phase *= 1.0 / SAMPLE_RATE
    np.modf(phase, phase)  # whole turns dropped: phase in [0, 2 pi) below
    phase *= 2 * np.pi
    t = phase.astype(np.float32)
    del phase
    harmonics = np.floor(TOP_HZ / hz)
    harmonics += 0.5
    below = np.multiply(t, 0.5, out=hz)  # hz is read no more
    np.sin(below, out=below)
    below *= 2
    flat = np.abs(below) <= FLAT
    train = np.multiply(harmonics, t, out=t)
    np.sin(train, out=train)
    np.divide(train, below, out=train, where=~flat)
    np.copyto(train, harmonics, where=flat)  # the limit there: H + 1/2
    train -= 0.5
    train[~voiced] = 0
    return train


def _per_sample(f0: np.ndarray) -> np.ndarray:
    """`f0` at every sample: sample j of frame k lies at k + (j + 1/2) / HOP - 1/2, between
    the frame before and this one in the first half, this one and the next in the second;
    the ends held."""
    offset = (np.arange(HOP) + 0.5) / HOP - 0.5
    towards = (offset % 1.0).astype(np.float32)  # the weight of the later of the two frames
    away = (1.0 - towards).astype(np.float32)
    held = np.pad(f0, 1, mode="edge")
    half = HOP // 2
    out = np.empty((len(f0), HOP), np.float32)
    _between((held[:-2], held[1:-1]), (away[:half], towards[:half]), out[:, :half])
    _between((held[1:-1], held[2:]), (away[half:], towards[half:]), out[:, half:])
    return out.reshape(-1)


def _between(
    frames: tuple[np.ndarray, np.ndarray], weights: tuple[np.ndarray, np.ndarray], out: np.ndarray
) -> None:
    """out[k, j] = earlier[k] * w_earlier[j] + later[k] * w_later[j], in float32, for
    `frames` (earlier, later) and `weights` (w_earlier, w_later)."""
    np.multiply(frames[0][:, None], weights[0], out=out)
    out += frames[1][:, None] * weights[1]
