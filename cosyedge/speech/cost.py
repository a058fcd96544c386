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

import dataclasses
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from cosyedge.speech import rx

_PAUSES = ",.;:!?"
_ZH_PAUSES = "，。；：！？、"
# Where a pause is natural: Latin punctuation before a space, Chinese punctuation anywhere.
_CLAUSE_END = rx.compile(rf"[{_PAUSES}]\s|[{_ZH_PAUSES}]")
# A word: up to a space, or through Chinese punctuation (Chinese puts no space after it).
_WORD = rx.compile(rf"[^\s{_ZH_PAUSES}]+[{_ZH_PAUSES}]*|[{_ZH_PAUSES}]+")


@dataclass(frozen=True)
class Pace:
    """How a voice's units become seconds: `sound` per sound (a phoneme, a syllable), `pause`
    per punctuation mark inside a unit, `step` per unit (its silent start and end)."""

    sound: float
    pause: float
    step: float
    sounds_of: Callable[[str], tuple[int, int]]  # a unit's (sounds, pauses)

    def estimate(self, units: Iterable[str]) -> Estimate:
        """The estimated seconds of these units, the sounds of the largest one, and how much
        of those seconds are the units' silent starts and ends."""
        total, largest, steps = 0.0, 0, 0
        for unit in units:
            sounds, pauses = self.sounds_of(unit)
            total += self.sound * sounds + self.pause * pauses + self.step
            largest, steps = max(largest, sounds), steps + 1
        return Estimate(total, largest, self.step * steps)


_STRESS_AND_SPACE = str.maketrans("", "", " \u02c8\u02cc")


def phonemes_of(unit: str) -> tuple[int, int]:
    """An IPA phoneme string's phonemes (stress marks and spaces are none) and pauses."""
    pauses = sum(unit.count(mark) for mark in _PAUSES)
    return len(unit.translate(_STRESS_AND_SPACE)) - pauses, pauses


def syllables_of(unit: str) -> tuple[int, int]:
    """Tone-numbered pinyin, one syllable a word (`guo1 lu2`); a clause has no inner pause."""
    return len(unit.split()), 0


def characters_of(unit: str) -> tuple[int, int]:
    """Plain text (a voice that reads text itself): its characters but spaces and pauses."""
    pauses = sum(unit.count(mark) for mark in _PAUSES + _ZH_PAUSES)
    return len("".join(unit.split())) - pauses, pauses


# Fitted by least squares on the shared alert set and generated hostile texts, each voice's
# own audio measured (bench/cost.py, docs/measurements.md): hibari's for phonemes, Piper's
# joe for its own, espeak-ng's Mandarin for syllables. The neural Mandarin voice takes the
# syllable pace, CosyVoice the character pace: neither could be measured with real weights.
PHONEME_PACE = Pace(sound=0.067, pause=0.152, step=0.709, sounds_of=phonemes_of)
PIPER_PACE = Pace(sound=0.051, pause=0.0, step=1.197, sounds_of=phonemes_of)
SYLLABLE_PACE = Pace(sound=0.31, pause=0.0, step=0.459, sounds_of=syllables_of)
CHARACTER_PACE = Pace(sound=0.12, pause=0.2, step=0.5, sounds_of=characters_of)
# The estimate fell short of the audio by at most 26 % on the measured texts (13 % on the
# shared alerts): a phrase over the limit is cut to the limit divided by 1 + this, so what is
# said of it stays within the limit.
UNDERESTIMATE = 0.30


@dataclass(frozen=True)
class Estimate:
    """A phrase's seconds of speech and the sounds of its largest model step, estimated;
    `silence_s` of the seconds are its steps' silent starts and ends."""

    seconds: float
    largest_step: int
    silence_s: float = 0.0

    @property
    def spoken_s(self) -> float:
        """The seconds of its sounds and pauses alone: what a word adds inside a phrase."""
        return self.seconds - self.silence_s


Estimator = Callable[[str], Estimate]


@dataclass(frozen=True)
class Fitted:
    """A phrase as it will be said: all of it, or its start with what was left out."""

    text: str
    left_out: str = ""
    estimate: Estimate | None = None  # of what is said
    whole_s: float = 0.0  # the whole phrase's estimated seconds

    @property
    def shortened(self) -> bool:
        return bool(self.left_out)

    @property
    def seconds(self) -> float:
        return self.estimate.seconds if self.estimate is not None else 0.0


def fit(text: str, limit_s: float, estimate: Estimator) -> Fitted:
    """`text` when its estimate is within `limit_s`; else the longest start of it cut at a
    word end whose estimate is within `limit_s` less the UNDERESTIMATE margin, or at a clause
    end when that keeps at least CLAUSE_SHARE of it; inside its first word only when that
    alone is over. A plant's alert estimated within the limit is never cut for the margin.

    The whole text and each word are read once; the cut is first guessed by sharing the
    whole's estimate among the words in proportion to what each adds, checked by reading the
    start it keeps, and found by bisection over the word ends only when the guess is off."""
    whole = estimate(text)
    if whole.seconds <= limit_s:
        return Fitted(text, "", whole, whole.seconds)
    limit_s /= 1 + UNDERESTIMATE  # what is cut is what the estimate may know least well
    words = list(_WORD.finditer(text))
    guessed = _guessed(words, whole, estimate)
    ends = [w.end() for w in words][:-1]
    kept = _longest(text, ends, limit_s, estimate, guessed)
    if kept is None:
        kept = _inside_first_word(text, words, limit_s, estimate)
    else:
        clause_ends = {m.start() + 1 for m in _CLAUSE_END.finditer(text)}
        within = [end for end in ends if end in clause_ends and end <= len(kept.text)]
        clause = _longest(text, within, limit_s, estimate, guessed)
        if clause is not None and clause.seconds >= CLAUSE_SHARE * kept.seconds:
            kept = clause
    return dataclasses.replace(kept, whole_s=whole.seconds)


# A clause end is preferred to a later word end while it keeps at least this share of what
# the word end would: a pause where the sense pauses, without losing half the message.
CLAUSE_SHARE = 0.6
_GUESSES = 2


def _guessed(words: list[re.Match[str]], whole: Estimate, estimate: Estimator) -> dict[int, float]:
    """Each word end with the estimated seconds of the text up to it: the whole's estimate
    shared among the words in proportion to what each adds (its sounds and pauses)."""
    adds = [estimate(word.group()).spoken_s for word in words]
    scale = whole.seconds / max(sum(adds), 1e-9)
    guessed, total = {}, 0.0
    for word, added in zip(words, adds, strict=True):
        total += added * scale
        guessed[word.end()] = total
    return guessed


def _longest(
    text: str, ends: list[int], limit_s: float, estimate: Estimator, guessed: dict[int, float]
) -> Fitted | None:
    """The longest start of `text` cut at one of `ends` (ascending) that fits: the guess
    and the end before it first, then bisection, the estimate growing with the text."""
    fitting = [end for end in ends if guessed[end] <= limit_s]
    for end in reversed(fitting[-_GUESSES:]):
        kept = _cut(text, end, estimate)
        if kept.seconds <= limit_s and (end == ends[-1] or guessed[_after(ends, end)] > limit_s):
            return kept
    low, high, found = 0, len(ends) - 1, None
    while low <= high:
        middle = (low + high) // 2
        kept = _cut(text, ends[middle], estimate)
        if kept.seconds <= limit_s:
            found, low = kept, middle + 1
        else:
            high = middle - 1
    return found


def _after(ends: list[int], end: int) -> int:
    return ends[ends.index(end) + 1]


def _inside_first_word(
    text: str, words: list[re.Match[str]], limit_s: float, estimate: Estimator
) -> Fitted:
    """A first word over the limit alone, cut inside at the share of its letters that its
    estimate allows, and back by a fifth while that is still over."""
    first = words[0].end() if words else len(text)
    alone = estimate(text[:first]).seconds
    kept = _cut(text, max(1, min(first, int(first * limit_s / max(alone, 1e-9)))), estimate)
    for _ in range(4):  # a word's sounds are not spread evenly over its letters
        if kept.seconds <= limit_s or len(kept.text) < 2:
            break
        kept = _cut(text, len(kept.text) * 4 // 5, estimate)
    return kept


def _cut(text: str, end: int, estimate: Estimator) -> Fitted:
    kept = text[:end].rstrip()
    return Fitted(kept, text[end:].strip(), estimate(kept))
