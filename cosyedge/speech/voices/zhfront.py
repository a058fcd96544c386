"""The Mandarin voices' front end: the alert pre-pass, then tone-numbered pinyin, with the site
lexicon's `pinyin` words read as given instead of looked up."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cosyedge.speech.cost import SYLLABLE_PACE
from cosyedge.speech.kept import SavedDir
from cosyedge.speech.lexicon import Applied, Lexicon
from cosyedge.speech.text.spans import Explained
from cosyedge.speech.voices import FrontEnd
from cosyedge.speech.zh.readings import Readings, ReadingsOnFirstUse, pypinyin_readings

if TYPE_CHECKING:
    from cosyedge.speech.zh.normalize import MandarinNormalizer


@dataclass(frozen=True)
class PinyinUnits:
    """One space-separated syllable string per clause, characters read by `readings`."""

    readings: Readings = pypinyin_readings

    def __call__(self, words: str, lexicon: Lexicon, applied: list[Applied]) -> Iterator[str]:
        # Imported at the first text read, as the normalizer's rules are: a phrase said from
        # the cache reads none.
        from cosyedge.speech.zh.pinyin import clause_syllables, to_clauses

        def syllables(piece: str) -> tuple[str, ...]:
            out: list[str] = []
            for part in lexicon.split(piece, applied):
                if isinstance(part, Applied):
                    out += part.spoken.split()
                else:
                    out += clause_syllables(part, self.readings)
            return tuple(out)

        for clause in to_clauses(words, syllables):
            yield " ".join(clause.syllables)


def mandarin_front_end(
    name: str,
    sample_rate: int,
    base_identity: str,
    lexicon: Lexicon,
    saved_dir: SavedDir | None = None,
    prepare: bool = False,
) -> FrontEnd:
    """Characters are read from pypinyin's tables kept in `saved_dir` (`readings.py`), opened
    (made, the first time) now if `prepare`, as a voice does at its load so that no alert
    waits for them, else at the first Chinese phrase; the normalizer's rules likewise."""
    readings = ReadingsOnFirstUse(saved_dir)
    normalizer = MandarinOnFirstUse()
    if prepare:
        readings.prepare()
        normalizer.prepare()
    units = PinyinUnits(readings)
    return FrontEnd(
        name,
        sample_rate,
        base_identity,
        lexicon,
        normalizer.normalize,
        units,
        SYLLABLE_PACE,
        normalizer.explain,
    )


class MandarinOnFirstUse:
    """The Mandarin normalizer, made (its rules imported and compiled) at the first text it
    reads: a phrase said from the cache reads none, and a site that never says Chinese never
    pays for them. Two threads reading at once may each make one; either reads alike."""

    def __init__(self) -> None:
        self._made: MandarinNormalizer | None = None

    def prepare(self) -> None:
        """Made now, as a voice does at its load, so that no alert waits for it."""
        self._normalizer()

    def normalize(self, text: str, keep: Collection[str] = ()) -> str:
        return self._normalizer().normalize(text, keep)

    def explain(self, text: str, keep: Collection[str] = ()) -> Explained:
        return self._normalizer().explain(text, keep)

    def _normalizer(self) -> MandarinNormalizer:
        if self._made is None:
            from cosyedge.speech.zh.normalize import MandarinNormalizer

            self._made = MandarinNormalizer()
        return self._made
