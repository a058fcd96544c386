"""Thousands grouped by plain spaces, where nothing else can be meant (en-9).

A plain space parts two numbers as often as it groups one (`Lines 3 4 5`, `Tank 3 500 kg`),
so it groups thousands only where the reading cannot be a list: a first group of one to
three digits, then groups of exactly three, and after them a unit or a decimal comma
(`1 234 567 kg` → "one million two hundred thirty four thousand five hundred sixty seven
kilograms", `1 000,5 kg` → "one thousand point five kilograms"). Not after a word that
numbers a thing (`Tank 3 500 kg`: tank three, five hundred kilograms), nor after a number
(`5 12 345 kg`); without a unit or a decimal comma (`1 234 567`) the groups stay as written.
No-break and thin spaces group anywhere (amounts.py).
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text import units
from cosyedge.speech.text.designations import NUMBERING, PLACES
from cosyedge.speech.text.spans import Rule

PLAIN_GROUPS = rx.compile(
    r"(?<![\w.+-])(?<!\d,)(?<!\d )([1-9]\d{0,2}(?: \d{3})+)(?!\d|\.\d)"
    rf"(?:,(\d+)(?!\d|,\d)|(?=\s?(?:{units.GRAMMAR.pattern()})(?![\w/²³^])))"
)
# Words that number the thing after them: the first group is its number, not thousands.
_NAMED = rx.compile(
    rf"\b(?i:{NUMBERING}|{PLACES}|tank|pump|motor|valve|silo|bin|hopper|fan|bay|station"
    r"|conveyor|compressor|no\.?|nr\.?|#)\s\Z"
)
# How far back the word before is looked at: a bound keeps a reading linear.
_REACH = 24


def _grouped(m: re.Match[str]) -> str:
    """`1 234 567` → `1,234,567`, `1 000` and `5` → `1,000.5`, for the number rules; after a
    word that numbers a thing, as written."""
    if _NAMED.search(m.string[max(0, m.start() - _REACH) : m.start()]):
        return m.group(0)
    return m[1].replace(" ", ",") + (f".{m[2]}" if m[2] else "")


RULES = (Rule("number", PLAIN_GROUPS, _grouped),)
"""Read before the amounts and every other number."""
