"""Offline speech recognition (pocketsphinx's bundled en-us model) to hear what a voice said."""

from __future__ import annotations

import numpy as np


def transcribe(pcm: np.ndarray, sample_rate: int) -> str:
    from pocketsphinx import Decoder

    x = pcm.astype(np.float32)
    n = int(len(x) * 16000 / sample_rate)
    resampled = np.interp(np.linspace(0, len(x) - 1, n), np.arange(len(x)), x)
    decoder = Decoder(samprate=16000, loglevel="FATAL")
    decoder.start_utt()
    decoder.process_raw(resampled.astype("<i2").tobytes(), full_utt=True)
    decoder.end_utt()
    hyp = decoder.hyp()
    return hyp.hypstr if hyp else ""


def best_heard(render, sample_rate: int, words: set[str], enough: float, tries: int = 3):
    """The most of `words` heard over up to `tries` renderings (`render()` → PCM). Voices that
    sample noise (Piper, hibari) are misheard now and then, so one rendering is not judged alone;
    noise or silence gives close to none however often it is tried."""
    best: set[str] = set()
    for _ in range(tries):
        best = max(best, words & set(transcribe(render(), sample_rate).split()), key=len)
        if len(best) >= enough * len(words):
            break
    return best
