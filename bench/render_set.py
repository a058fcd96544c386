"""Renders a list of phrases to WAV files with the default voices, all in one process, so that
the same phrases can be compared between two installations: bench/arm64.py runs it with the
arm64 package's interpreter under emulation and with this machine's development install.

It imports nothing but cosyedge and the standard library, so it runs as a lone file:

    python render_set.py PHRASES.json OUT_DIR [SEED]

PHRASES.json holds [{"lang": "en" | "zh", "text": "..."}, ...]. Phrase i is written to
OUT_DIR/i.wav, and one JSON line per phrase goes to stdout: {"index", "synth_s", "audio_s"}.
With SEED, every phrase's sampled noise (hibari's vocoder) comes from a generator seeded with
it, so two installations given the same SEED differ only where their arithmetic differs.
"""

from __future__ import annotations

import json
import sys
import time
import wave
from pathlib import Path


def seed_noise(seed: int) -> None:
    """Makes numpy.random.default_rng() without a seed return a generator seeded with `seed`:
    hibari's vocoder asks for a fresh one per phrase and samples its noise from it."""
    import numpy.random

    unseeded = numpy.random.default_rng
    numpy.random.default_rng = lambda given=None: unseeded(seed if given is None else given)


def render_all(phrases: list[dict[str, str]], out_dir: Path) -> None:
    """Every phrase with the voice of its language, as `cosyedge say` would load them from the
    embedded default configuration, but without the phrase cache: each one is synthesized."""
    import numpy as np

    from cosyedge.config import load_config
    from cosyedge.speech.voices import load_voices

    config = load_config(None)
    voices = load_voices(config.voices, config.state_dir / "models")
    out_dir.mkdir(parents=True, exist_ok=True)
    for index, phrase in enumerate(phrases):
        voice = voices[phrase["lang"]]
        started = time.perf_counter()
        pcm = np.concatenate(list(voice.synthesize(phrase["text"])))
        took = time.perf_counter() - started
        with wave.open(str(out_dir / f"{index}.wav"), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(voice.sample_rate)
            w.writeframes(pcm.astype("<i2").tobytes())
        audio_s = len(pcm) / voice.sample_rate
        print(json.dumps({"index": index, "synth_s": took, "audio_s": audio_s}), flush=True)


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    if len(argv) == 3:
        seed_noise(int(argv[2]))
    phrases = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    render_all(phrases, Path(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
