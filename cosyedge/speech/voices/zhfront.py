"""The Mandarin voices' front end: the alert pre-pass and wetext, then tone-numbered pinyin,
with the site lexicon's `pinyin` words read as given instead of looked up."""

from __future__ import annotations

from collections.abc import Iterator

from cosyedge.speech.lexicon import Applied, Lexicon
from cosyedge.speech.voices import FrontEnd
from cosyedge.speech.zh.normalize import MandarinNormalizer
from cosyedge.speech.zh.pinyin import clause_syllables, to_clauses


def pinyin_units(words: str, lexicon: Lexicon, applied: list[Applied]) -> Iterator[str]:
    """One space-separated syllable string per clause."""

    def syllables(piece: str) -> tuple[str, ...]:
        out: list[str] = []
        for part in lexicon.split(piece, applied):
            out += part.spoken.split() if isinstance(part, Applied) else clause_syllables(part)
        return tuple(out)

    for clause in to_clauses(words, syllables):
        yield " ".join(clause.syllables)


def mandarin_front_end(
    name: str, sample_rate: int, base_identity: str, lexicon: Lexicon
) -> FrontEnd:
    """Its normalizer holds wetext's graphs (about 40 MB) once loaded, on first use."""
    normalizer = MandarinNormalizer()
    return FrontEnd(name, sample_rate, base_identity, lexicon, normalizer.normalize, pinyin_units)
