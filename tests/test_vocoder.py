"""The hibari voices' vocoder (`speech/voices/vocoder.py`) makes the signal hibari's own
runtime makes (`hibari.dsp.synth`): on the real model's outputs, and on the classes of input
at its edges (frame counts around its blocks and the window's overlap, silence, unvoiced
speech, log-magnitudes far past their cap), the same samples up to float rounding, given
hibari's noise (its draws from the same seed). Our own draw of the noise is held to its law."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import numpy.random
import pytest
from hibari import dsp

from cosyedge.speech.voices import to_int16
from cosyedge.speech.voices.vocoder import (
    BLOCK,
    HOP,
    OVERLAP,
    Vocoder,
    polar_noise,
    pulse_train,
)

PHRASES = (
    "Emergency stop at packing station three.",
    "Stop.",
    "Pump four discharge pressure high, check the relief valve on line two.",
)
# Float rounding: hibari's float32 FFT of the pulse train against a float64 one here. Speech
# lies within +-1, where 1e-6 is a thirtieth of an int16 step; relative to louder samples.
CLOSE = 1e-6


def hibaris_noise(rng: np.random.Generator, out: np.ndarray, work: np.ndarray) -> None:
    """The noise as `hibari.dsp.synth` draws it: numpy's Gaussian, real and imaginary parts
    interleaved."""
    rng.standard_normal(dtype=np.float32, out=out.view(np.float32))


HIBARIS_NOISE = Vocoder(noise=hibaris_noise)


def outputs(voice, phonemes: str) -> list[np.ndarray]:
    """The model's six outputs for `phonemes`, as the voice's step gives them to its vocoder."""
    ids = [0, *(voice._vocab[c] for c in phonemes if c in voice._vocab), 0]
    inputs = {"ids": np.asarray([ids], np.int64), "speed": np.asarray([1.0], np.float32)}
    return [o[0] for o in voice.session.run(None, inputs)]


def model_outputs(voice) -> list[list[np.ndarray]]:
    """The model's outputs for each of PHRASES, read as hibari's G2P reads them."""
    g2p = voice.front.units_of
    from cosyedge.speech.lexicon import NO_LEXICON

    return [outputs(voice, p) for text in PHRASES for p in g2p(text, NO_LEXICON, [])]


def assert_same_signal(parts: list[np.ndarray], seed: int = 3) -> np.ndarray:
    """Ours and hibari's vocoder on `parts`, the noise seeded alike: the same samples within
    CLOSE (of the loudest, past 1), and as int16 (what is played and cached) at most one step
    apart."""
    theirs = dsp.synth(*parts, np.random.default_rng(seed))
    ours = HIBARIS_NOISE.synth(*parts, rng=np.random.default_rng(seed))
    assert ours.dtype == np.float32 and ours.shape == theirs.shape
    assert np.abs(ours - theirs).max() <= CLOSE * max(1.0, np.abs(theirs).max())
    steps = np.abs(to_int16(ours).astype(np.int32) - to_int16(theirs))
    assert steps.max() <= 1
    if np.abs(theirs).max() <= 1:  # speech, not the capped magnitudes' din: rarely a step
        assert np.count_nonzero(steps) <= max(1, len(ours) // 1000)
    return ours


def test_the_same_samples_as_hibari_on_the_models_outputs(hibari_voice):
    steps = model_outputs(hibari_voice)
    assert len(steps) >= 3 and max(s[0].shape[1] for s in steps) > BLOCK
    for parts in steps:
        ours = assert_same_signal(parts)
        assert np.abs(ours).max() > 0.05  # speech, not silence
        assert len(ours) == parts[0].shape[1] * HOP


@pytest.mark.parametrize(
    "frames",
    [1, 2, OVERLAP - 1, OVERLAP, OVERLAP + 1, BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK + 3],
)
def test_the_same_samples_whatever_the_number_of_frames(hibari_voice, frames):
    """Frame counts at the window's overlap (the norm's partial rows meet) and the pulse
    train's blocks: cut from a real step's outputs, or repeated past its end."""
    longest = max(model_outputs(hibari_voice), key=lambda s: s[0].shape[1])
    index = np.arange(frames) % longest[0].shape[1]
    parts = [np.ascontiguousarray(p[..., index]) for p in longest]
    assert_same_signal(parts, seed=frames)


def synthetic(frames: int, f0: float, level: float) -> list[np.ndarray]:
    """Outputs of one value each: log-magnitudes `level`, phases from a seeded generator."""
    rng = np.random.default_rng(frames)
    shape = (dsp.N_FFT // 2 + 1, frames)
    lh, ln, lr = (np.full(shape, level, np.float32) for _ in range(3))
    th, phi = (rng.uniform(-3, 3, shape).astype(np.float32) for _ in range(2))
    return [lh, th, ln, lr, phi, np.full(frames, f0, np.float32)]


@pytest.mark.parametrize(
    ("f0", "level"),
    [
        (0.0, -20.0),  # unvoiced and silent
        (0.0, -1.0),  # unvoiced: noise and the free-phase branch only
        (39.9, -3.0),  # just below voiced
        (40.1, -3.0),  # just voiced: the fewest harmonics' limit cases
        (220.0, 50.0),  # log-magnitudes far past the cap of 7
        (11000.0, -2.0),  # one harmonic
        (30000.0, -2.0),  # F0 past the top: no harmonic below it
    ],
)
def test_the_same_samples_at_the_edges_of_its_input(f0, level):
    assert_same_signal(synthetic(40, f0, level), seed=int(f0))


def test_a_pulse_train_is_hibaris_and_follows_the_f0_between_frames():
    f0 = np.array([0, 100, 100, 300, 39, 120, 8000], np.float32)
    ours = pulse_train(f0)
    assert len(ours) == len(f0) * HOP
    assert np.abs(ours - dsp.pulses(f0)).max() <= 1e-5 * np.abs(ours).max()
    assert not ours[: HOP // 2].any()  # the first half frame: unvoiced, as its frame is


def test_no_frames_no_samples():
    assert Vocoder().synth(*synthetic(0, 100.0, -2.0), rng=np.random.default_rng(0)).size == 0


def test_the_voice_says_a_phrase_as_with_hibaris_vocoder(hibari_voice, monkeypatch):
    """The whole voice, its steps cut and their pauses shortened, its noise drawn as hibari
    draws it: the same int16 audio as with hibari's vocoder put in its place, within one step
    on a few samples."""
    unseeded = numpy.random.default_rng
    monkeypatch.setattr(numpy.random, "default_rng", lambda seed=None: unseeded(seed or 11))
    text = " ".join(PHRASES)

    @dataclasses.dataclass(frozen=True)
    class Hibaris:
        def synth(self, *parts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
            return dsp.synth(*parts, rng)

    theirs = dataclasses.replace(hibari_voice, _vocoder=Hibaris())
    with_their_noise = dataclasses.replace(hibari_voice, _vocoder=HIBARIS_NOISE)
    ours = np.concatenate(list(with_their_noise.synthesize(text)))
    theirs_audio = np.concatenate(list(theirs.synthesize(text)))
    assert ours.shape == theirs_audio.shape and len(ours) > 4 * hibari_voice.sample_rate
    steps = np.abs(ours.astype(np.int32) - theirs_audio)
    assert steps.max() <= 1 and np.count_nonzero(steps) <= len(ours) // 1000


def normal_cdf(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def polar_draw(shape: tuple[int, int], seed: int) -> np.ndarray:
    out = np.empty(shape, np.complex64)
    polar_noise(np.random.default_rng(seed), out, np.empty(shape, np.float32))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_noise_is_complex_gaussian_its_parts_independent(seed):
    """Each part a standard normal (Kolmogorov-Smirnov, at the 0.1 % level), uncorrelated with
    the other and with its neighbours along both axes, |Z|^2 with the moments of a complex
    Gaussian (mean 2, second moment 8), and as many past 3 sigma as the law puts there."""
    z = polar_draw((601, 400), seed)
    n = z.size
    for part in (z.real.ravel(), z.imag.ravel()):
        ordered = np.sort(part.astype(np.float64))
        cdf = normal_cdf(ordered)
        above = np.arange(1, n + 1) / n - cdf
        below = cdf - np.arange(n) / n
        assert max(above.max(), below.max()) < 1.95 / math.sqrt(n)
        assert abs(np.mean(np.abs(part) > 3) - 0.0027) < 0.0006
    bound = 5 / math.sqrt(n)
    pairs = [(z.real, z.imag), (z.real[:, 1:], z.real[:, :-1]), (z.imag[1:], z.imag[:-1])]
    for a, b in pairs:
        assert abs(np.corrcoef(a.ravel(), b.ravel())[0, 1]) < bound
    power = np.abs(z.astype(np.complex128)) ** 2
    assert abs(power.mean() - 2) < 0.02 and abs((power**2).mean() - 8) < 0.2


def test_the_noise_is_new_each_draw_and_finite():
    first, second = polar_draw((601, 50), 5), polar_draw((601, 50), 6)
    assert np.isfinite(first).all() and not np.array_equal(first, second)
    assert np.abs(first).max() < 5.8  # the radius's bound from 24-bit uniforms


@pytest.mark.parametrize("level", [-1.0, 2.0])
def test_shaped_noise_has_hibaris_spectrum(level):
    """Unvoiced frames, the harmonic and free-phase branches silent: the noise alone, shaped
    by `ln`, through the whole vocoder. Its power in each of eight bands, over many frames,
    within 3 % of hibari's (drawn from numpy's Gaussian)."""
    frames = 2000
    shape = (dsp.N_FFT // 2 + 1, frames)
    quiet = np.full(shape, -30.0, np.float32)
    bins = np.linspace(level, level - 3, shape[0], dtype=np.float32)
    ln = np.repeat(bins[:, None], frames, axis=1)
    zeros = np.zeros(shape, np.float32)
    parts = [quiet, zeros, ln, quiet, zeros, np.zeros(frames, np.float32)]
    ours = Vocoder().synth(*parts, rng=np.random.default_rng(1))
    theirs = dsp.synth(*parts, np.random.default_rng(2))

    def bands(samples: np.ndarray) -> np.ndarray:
        spectrum = np.abs(np.fft.rfft(samples.astype(np.float64))) ** 2
        return np.array([band.mean() for band in np.array_split(spectrum[1:], 8)])

    assert ours.shape == theirs.shape
    np.testing.assert_allclose(bands(ours), bands(theirs), rtol=0.03)


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_outputs_of_any_float_type_are_voiced_as_float32(hibari_voice, dtype):
    """A model exported at another precision: its outputs are computed in float32, the
    samples those of the same outputs given as float32 (hibari's own runtime takes them)."""
    parts = [p.astype(dtype) for p in model_outputs(hibari_voice)[0]]
    for vocoder in (Vocoder(), HIBARIS_NOISE):
        ours = vocoder.synth(*parts, rng=np.random.default_rng(4))
        as_float32 = vocoder.synth(
            *(p.astype(np.float32) for p in parts), rng=np.random.default_rng(4)
        )
        assert ours.dtype == np.float32 and np.array_equal(ours, as_float32)


def shapes_that_disagree() -> list[tuple[str, list[np.ndarray]]]:
    good = synthetic(40, 120.0, -2.0)
    cases = [("f0 short", 5, good[5][:20]), ("f0 long", 5, np.append(good[5], 100.0))]
    cases += [("f0 2-D", 5, good[5][None]), ("th one frame", 1, good[1][:, :1])]
    cases += [("lr fewer bins", 3, good[3][:300]), ("ln 1-D", 2, good[2][:, 0])]
    cases += [("phi more frames", 4, np.concatenate([good[4], good[4]], axis=1))]
    return [(name, [*good[:i], bad, *good[i + 1 :]]) for name, i, bad in cases]


@pytest.mark.parametrize(("case", "parts"), shapes_that_disagree())
def test_outputs_whose_shapes_disagree_are_refused(case, parts):
    """Never broadcast or left unwritten (an F0 shorter than the spectra left frames of the
    pulse train's spectrum as whatever memory held): a ValueError saying what disagrees."""
    with pytest.raises(ValueError, match=r"F0|spectra"):
        Vocoder().synth(*parts, rng=np.random.default_rng(0))


@pytest.mark.parametrize(
    ("index", "make"),
    [
        (4, lambda a: np.exp(1j * a)),  # a phase as e^(i phi): its imaginary part dropped
        (1, lambda a: np.where(a > 0, a, None)),  # objects, None among them
        (0, lambda a: a.astype(str)),
        (5, lambda a: a.astype("datetime64[s]")),
    ],
    ids=["complex", "object", "str", "datetime"],
)
def test_outputs_that_are_not_real_numbers_are_refused(index, make):
    parts = synthetic(40, 120.0, -2.0)
    parts[index] = make(parts[index])
    name = ("lh", "th", "ln", "lr", "phi", "f0")[index]
    with pytest.raises(ValueError, match=f"the output {name} is .*, not real numbers"):
        Vocoder().synth(*parts, rng=np.random.default_rng(0))


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("index", range(6))
def test_outputs_that_are_not_finite_are_refused(index, value):
    """Whatever output and value: the synthesis would make finite samples of most of them (a
    capped blast, an unvoiced step), so they are refused before it, naming the output."""
    parts = synthetic(40, 120.0, -2.0)
    parts[index].reshape(-1)[parts[index].size // 2] = value
    name = ("lh", "th", "ln", "lr", "phi", "f0")[index]
    with pytest.raises(ValueError, match=f"the output {name} holds values that are not finite"):
        Vocoder().synth(*parts, rng=np.random.default_rng(0))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_int16_of_full_scale_samples_of_any_float_type(dtype):
    """float16 rounds 32767 to 32768, which wrapped to -32768: a click for every loud sample."""
    samples = np.array([1.0, -1.0, 0.5, 4.0, -4.0], dtype)
    assert to_int16(samples).tolist() == [32767, -32767, 16383, 32767, -32767]
