"""Text hygiene per language: written alert text → words a voice reads the way an operator expects.

A normalizer's version is part of every voice identity that uses it, so a change in how text is
read can never be served from audio cached under the old reading.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from cosyedge.speech.text.spans import Explained

# A text and the words to leave as written (the site lexicon says them its own way) → what
# is read, or what is read with the place each reading class read (`cosyedge read --explain`).
Normalize = Callable[[str, Collection[str]], str]
Explain = Callable[[str, Collection[str]], Explained]
# Bump whenever a rule of english.py changes what any text reads as: it is part of the voice
# identity. Kept here, so an identity (all a phrase in the cache needs) is had without
# compiling the rules.
ENGLISH_VERSION = "en-12"


@dataclass(frozen=True)
class Normalizer:
    version: str
    normalize: Normalize
    explain: Explain


def _unchanged(text: str, keep: Collection[str] = ()) -> str:
    return text


def unexplained(text: str, keep: Collection[str] = ()) -> Explained:
    """A text no reading class reads: as it is."""
    return Explained(text, text, ())


def sayable(text: str) -> str:
    """`text` without lone surrogates: no character and nothing said (JSON's `\\ud800`, an
    argument's bytes that are not UTF-8), and no UTF-8 can hold them."""
    if text.isascii():
        return text
    return "".join(c for c in text if not "\ud800" <= c <= "\udfff")


def normalizer_for(lang: str) -> Normalizer:
    """The normalizer for a language code such as `en` or `en-GB`; other languages pass through."""
    if lang.split("-")[0] == "en":
        return Normalizer(ENGLISH_VERSION, _english, _english_explained)
    return Normalizer("none", _unchanged, unexplained)


# english.py is imported at the first text read, not with the front end: a phrase said from
# the cache is never read, and compiling the rules is most of what `cosyedge say` of one costs.
def _english(text: str, keep: Collection[str] = ()) -> str:
    from cosyedge.speech.text import english

    return english.normalize(text, keep)


def _english_explained(text: str, keep: Collection[str] = ()) -> Explained:
    from cosyedge.speech.text import english

    return english.explain_text(text, keep)
