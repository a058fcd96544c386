"""The hibari voices' vocoder (`speech/voices/vocoder.py`) makes the signal hibari's own
runtime makes (`hibari.dsp.synth`): on the real model's outputs, and on the classes of input
at its edges (frame counts around its blocks and the window's overlap, silence, unvoiced
speech, log-magnitudes far past their cap), the same samples up to float rounding, the noise
drawn from the same seed."""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.random
import pytest
from hibari import dsp

from cosyedge.speech.voices import to_int16
from cosyedge.speech.voices.vocoder import BLOCK, HOP, OVERLAP, Vocoder, pulse_train

PHRASES = (
    "Emergency stop at packing station three.",
    "Stop.",
    "Pump four discharge pressure high, check the relief valve on line two.",
)
# Float rounding: hibari's float32 FFT of the pulse train against a float64 one here. Speech
# lies within +-1, where 1e-6 is a thirtieth of an int16 step; relative to louder samples.
CLOSE = 1e-6


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
    ours = Vocoder().synth(*parts, rng=np.random.default_rng(seed))
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
    """The whole voice, its steps cut and their pauses shortened: the same int16 audio as
    with hibari's vocoder put in its place, within one step on a few samples."""
    unseeded = numpy.random.default_rng
    monkeypatch.setattr(numpy.random, "default_rng", lambda seed=None: unseeded(seed or 11))
    text = " ".join(PHRASES)
    ours = np.concatenate(list(hibari_voice.synthesize(text)))

    @dataclasses.dataclass(frozen=True)
    class Hibaris:
        def synth(self, *parts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
            return dsp.synth(*parts, rng)

    theirs = dataclasses.replace(hibari_voice, _vocoder=Hibaris())
    theirs_audio = np.concatenate(list(theirs.synthesize(text)))
    assert ours.shape == theirs_audio.shape and len(ours) > 4 * hibari_voice.sample_rate
    steps = np.abs(ours.astype(np.int32) - theirs_audio)
    assert steps.max() <= 1 and np.count_nonzero(steps) <= len(ours) // 1000
