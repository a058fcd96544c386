"""One language's voice that hands runs of another script to that language's voice.

A Mandarin alert naming an English pump, or an English template filled with a Chinese
field, is split into runs (see `cosyedge.speech.lang`); each run is said by its own voice, brought
to one sample rate and joined with a pause like a speaker's switch of language. A run no
configured voice reads is left out and logged; the numbers beside it are still said.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from cosyedge.speech.cost import Estimate
from cosyedge.speech.lexicon import Lexicon, say_phrase
from cosyedge.speech.voices import FrontEnd, Voice

log = logging.getLogger(__name__)

ENGINE_VERSION = "mixed-10"  # bump when the split into runs, the joining or the local time changes
SWITCH_PAUSE_S = 0.12  # between runs inside a sentence
PUNCTUATION_PAUSE_S = 0.3  # where the switch falls on punctuation
_PUNCTUATION = ",.;:!?，。；：！？、"


def resample(pcm: np.ndarray, source_rate: int, target_rate: int) -> np.ndarray:
    """Band-limited resampling of one clause (FFT zero-padding or truncation)."""
    if source_rate == target_rate or len(pcm) == 0:
        return pcm
    n_out = max(1, round(len(pcm) * target_rate / source_rate))
    spectrum = np.fft.rfft(pcm.astype(np.float64))
    bins = n_out // 2 + 1
    if bins <= len(spectrum):
        spectrum = spectrum[:bins]
    else:
        spectrum = np.pad(spectrum, (0, bins - len(spectrum)))
    out = np.fft.irfft(spectrum, n_out) * (n_out / len(pcm))
    return np.clip(np.round(out), -32767, 32767).astype(np.int16)


def mixed_identity(
    lang: str, sample_rate: int, identities: Mapping[str, str], zone: str | None = None
) -> str:
    """The identity of `lang`'s mixed voice, from every language's voice identity and the
    zone UTC timestamps are said in (none: as UTC, the identity it always had)."""
    parts = [ENGINE_VERSION, lang, str(sample_rate)]
    parts += [f"{other}={identity}" for other, identity in sorted(identities.items())]
    parts += [f"local_time_zone={zone}"] if zone else []
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def lexicons_of(voices: Mapping[str, object]) -> dict[str, Lexicon]:
    """Each voice's (or front end's) site lexicon, read now: a reload may give a voice
    another."""
    fronts = {
        lang: voice if isinstance(voice, FrontEnd) else getattr(voice, "front", None)
        for lang, voice in voices.items()
    }
    return {lang: front.lexicon for lang, front in fronts.items() if front and front.lexicon}


def said_phrase(text: str, lang: str, voices: Mapping[str, object]) -> str:
    """`text` with the site's `say` entries applied, ready to be split into languages."""
    return say_phrase(text, lang, lexicons_of(voices), voices)[0]


def mixed_estimate(fronts: Mapping[str, FrontEnd], lang: str, text: str) -> Estimate:
    """What `lang`'s mixed voice will take to say `text`: each run by its own voice's
    reading, runs no voice says counting nothing (they are left out)."""
    from cosyedge.speech.lang import split_runs  # see `MixedVoice.synthesize`

    seconds, largest, silence = 0.0, 0, 0.0
    text = said_phrase(text, lang, fronts)
    for run in split_runs(text, lang, fronts):
        front = fronts.get(run.lang)
        if front is not None and run.said:
            estimate = front.estimate(run.text)
            seconds, silence = seconds + estimate.seconds, silence + estimate.silence_s
            largest = max(largest, estimate.largest_step)
    return Estimate(seconds, largest, silence)


@dataclass
class MixedVoice:
    """`lang`'s voice handing the runs of another script to that language's voice."""

    lang: str
    voices: Mapping[str, Voice]
    local_time_zone: str | None = None  # UTC timestamps are said in its local time

    @property
    def name(self) -> str:
        return self.voices[self.lang].name

    @property
    def sample_rate(self) -> int:
        return self.voices[self.lang].sample_rate

    @property
    def identity(self) -> str:
        """Read each time: a voice reloaded after being shed may have changed on disk, and a
        reload may have given a voice another lexicon."""
        identities = {lang: v.identity for lang, v in self.voices.items()}
        return mixed_identity(self.lang, self.sample_rate, identities, self.local_time_zone)

    def synthesize(self, text: str) -> Iterator[np.ndarray]:
        # Imported at the first text read, not with the voice: a phrase said from the cache is
        # never split, and compiling the splitting rules is much of what `cosyedge say` costs.
        from cosyedge.speech.lang import split_runs, why_unsaid
        from cosyedge.speech.text.localtime import in_local_time

        previous_text = ""
        text = said_phrase(in_local_time(text, self.local_time_zone), self.lang, self.voices)
        for run in split_runs(text, self.lang, self.voices):
            voice = self.voices.get(run.lang)
            if voice is None or not run.said:
                # Another script through this voice would be noise, not words.
                log.warning("%s: not saying %r", why_unsaid(run), run.text)
                continue
            first = True
            for pcm in voice.synthesize(run.text):
                pcm = resample(pcm, voice.sample_rate, self.sample_rate)
                if first and previous_text:
                    on_punctuation = (
                        previous_text[-1] in _PUNCTUATION or run.text[0] in _PUNCTUATION
                    )
                    pause_s = PUNCTUATION_PAUSE_S if on_punctuation else SWITCH_PAUSE_S
                    pause = np.zeros(int(pause_s * self.sample_rate), dtype=np.int16)
                    pcm = np.concatenate([pause, pcm])
                first = False
                yield pcm
            previous_text = run.text
