"""What a phrase costs to say, known before it is said: seconds of speech and its largest step.

A phrase's characters tell little of its length as speech: a digit is a word or more, a
capital in a run of capitals is spelled out ("W": double-u), a Chinese character is a
syllable, a hash or a URL is read piece by piece. So the estimate comes from the reading the
voice itself will use (`FrontEnd.units`: phonemes for English, tone-numbered syllables for
Mandarin, the site lexicon applied), counted by the voice's `Pace`, fitted on measured audio
(bench/cost.py; docs/measurements.md gives its error).

`fit` shortens a phrase whose estimate is over a limit at the last clause or word boundary
that fits, never inside a word: a number, a code, an address or a time is said whole or not
at all. Only a single word longer than the limit by itself (a run of letters, a hash, base64)
is cut inside, since no boundary can keep any of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

# Where a pause is natural: Latin punctuation before a space, Chinese punctuation anywhere.
_CLAUSE_END = re.compile(r"[,.;:!?]\s|[，。；：！？、]")
# A word: up to a space, or through Chinese punctuation (Chinese puts no space after it).
_WORD = re.compile(r"[^\s，。；：！？、]+[，。；：！？、]*|[，。；：！？、]+")


@dataclass(frozen=True)
class Pace:
    """How a voice's units become seconds: `sound` per sound (a phoneme, a syllable), `pause`
    per punctuation mark inside a unit, `step` per unit (its silent start and end)."""

    sound: float
    pause: float
    step: float
    sounds_of: Callable[[str], tuple[int, int]]  # a unit's (sounds, pauses)

    def seconds(self, units: Iterable[str]) -> tuple[float, int]:
        """The estimated seconds of these units, and the sounds of the largest one."""
        total, largest = 0.0, 0
        for unit in units:
            sounds, pauses = self.sounds_of(unit)
            total += self.sound * sounds + self.pause * pauses + self.step
            largest = max(largest, sounds)
        return total, largest


_STRESS_AND_SPACE = str.maketrans("", "", " \u02c8\u02cc")
_PAUSES = ",.;:!?"


def phonemes_of(unit: str) -> tuple[int, int]:
    """An IPA phoneme string's phonemes (stress marks and spaces are none) and pauses."""
    pauses = sum(unit.count(mark) for mark in _PAUSES)
    return len(unit.translate(_STRESS_AND_SPACE)) - pauses, pauses


def syllables_of(unit: str) -> tuple[int, int]:
    """Tone-numbered pinyin, one syllable a word (`guo1 lu2`); a clause has no inner pause."""
    return len(unit.split()), 0


def characters_of(unit: str) -> tuple[int, int]:
    """Plain text (a voice that reads text itself): its characters but spaces and pauses."""
    pauses = sum(unit.count(mark) for mark in _PAUSES + "，。；：！？、")
    return len("".join(unit.split())) - pauses, pauses


# Fitted by least squares on the shared alert set and generated hostile texts, each voice's
# own audio measured (bench/cost.py, docs/measurements.md): hibari's for phonemes, Piper's
# joe for its own, espeak-ng's Mandarin for syllables. The neural Mandarin voice takes the
# syllable pace, CosyVoice the character pace: neither could be measured with real weights.
PHONEME_PACE = Pace(sound=0.067, pause=0.152, step=0.709, sounds_of=phonemes_of)
PIPER_PACE = Pace(sound=0.051, pause=0.0, step=1.197, sounds_of=phonemes_of)
SYLLABLE_PACE = Pace(sound=0.31, pause=0.0, step=0.459, sounds_of=syllables_of)
CHARACTER_PACE = Pace(sound=0.12, pause=0.2, step=0.5, sounds_of=characters_of)
# The estimate fell short of the audio by at most this share on the measured texts: a phrase
# is fitted to the limit divided by 1 + this, so what is said stays within the limit.
UNDERESTIMATE = 0.25


@dataclass(frozen=True)
class Estimate:
    """A phrase's seconds of speech and the sounds of its largest model step, estimated."""

    seconds: float
    largest_step: int


Estimator = Callable[[str], Estimate]


@dataclass(frozen=True)
class Fitted:
    """A phrase as it will be said: all of it, or its start with what was left out."""

    text: str
    left_out: str = ""
    estimate: Estimate | None = None

    @property
    def shortened(self) -> bool:
        return bool(self.left_out)


def fit(text: str, limit_s: float, estimate: Estimator) -> Fitted:
    """`text`, or the longest start of it cut at a clause end, else a word end, whose
    estimate (with the UNDERESTIMATE margin) is within `limit_s`; inside its first word only
    when that alone is over.

    The whole text is read once; the cut is placed by sharing that estimate among the words
    in proportion to each word's own, then checked by reading the start that is kept, and
    moved back a boundary while that is still over (at most `_RECHECKS` times)."""
    limit_s /= 1 + UNDERESTIMATE
    whole = estimate(text)
    if whole.seconds <= limit_s:
        return Fitted(text, "", whole)
    words = list(_WORD.finditer(text))
    shares = [estimate(word.group()).seconds for word in words]
    scale = whole.seconds / max(sum(shares), 1e-9)
    spent = dict(zip((w.end() for w in words), _running(shares, scale), strict=True))
    clause_ends = {m.start() + 1 for m in _CLAUSE_END.finditer(text)}
    for ends in (sorted(e for e in spent if e in clause_ends), sorted(spent)[:-1]):
        fitting = [end for end in ends if spent[end] <= limit_s]
        for end in reversed(fitting[-_RECHECKS:]):
            kept = _cut(text, end, estimate)
            if kept.estimate is not None and kept.estimate.seconds <= limit_s:
                return kept
    first = words[0].end() if words else len(text)
    inside = max(1, int(first * limit_s / max(spent.get(first, whole.seconds), 1e-9)))
    kept = _cut(text, min(inside, first), estimate)
    for _ in range(_RECHECKS):  # a word's sounds are not spread evenly over its letters
        if kept.estimate is None or kept.estimate.seconds <= limit_s or len(kept.text) < 2:
            break
        kept = _cut(text, len(kept.text) * 4 // 5, estimate)
    return kept


_RECHECKS = 4


def _running(shares: list[float], scale: float) -> Iterable[float]:
    total = 0.0
    for share in shares:
        total += share * scale
        yield total


def _cut(text: str, end: int, estimate: Estimator) -> Fitted:
    kept = text[:end].rstrip()
    return Fitted(kept, text[end:].strip(), estimate(kept))
