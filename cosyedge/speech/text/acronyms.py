"""Acronyms plants say as words: LOTO is "low-toe", HAZOP "hazop", ATEX "A-tex", not letters.

An English voice spells a word of capitals (hibari says L O T O); these are said as words
on a plant floor, so they are given to the voice spelled the way it says them as words,
each spelling checked against what hibari makes of it. A site says one its own way with an
entry of its pronunciation lexicon: a `say` entry rewrites the acronym before this rule
sees it, and a word with `phonemes` of the site's is left as written for them.
"""

from __future__ import annotations

from collections.abc import Collection

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule, alternatives

# Acronym → how the English voices are given it (tests/test_reading_classes.py holds what
# hibari makes of each: a word, not letters).
WORD_ACRONYMS = {
    "LOTO": "low-toe",
    "HAZOP": "hazop",
    "HAZID": "haz id",
    "HAZMAT": "hazmat",
    "HAZWOPER": "haz wopper",
    "ATEX": "A-tex",
    "IECEx": "I E C ex",
    "SCADA": "scada",
    "HEPA": "hepa",
    "COSHH": "cosh",
    "NIOSH": "nye osh",
    "SIL": "sil",
    "LOPA": "lopa",
    "STEL": "stel",
    "HIPPS": "hips",
    "NEMA": "neema",
    "MODBUS": "modbus",
    "PROFIBUS": "profibus",
    "PROFINET": "pro fee net",
    "ESTOP": "E stop",  # alone, hibari says "uh-stop"
}


def acronym_rule(keep: Collection[str] = ()) -> Rule:
    """The rule saying the acronyms as words, but those in `keep` (the site's own)."""
    pattern = alternatives(set(WORD_ACRONYMS) - set(keep)) or "(?!)"
    return Rule(
        "acronym said as a word",
        rx.compile(rf"(?<![\w-])(?:{pattern})(?![\w-])"),
        lambda m: WORD_ACRONYMS[m.group(0)],
    )


ACRONYMS = acronym_rule()
