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
