"""Two whole numbers joined by a hyphen where the second is the smaller (en-8).

No range runs down: `CPU 1516-3`, `EN 60204-1`, `Model 2000-10` are a model, a standard or a
part number, read as an identifier in its groups ("one five one six dash three"), not as
"one thousand five hundred sixteen to three". A range is kept where the second number is
not smaller (`Line 3-5`), where a unit follows (`80-60 °C`: values), and where the dash is
an en dash or a tilde, or is spaced (`10 - 5`).

Two values with opposite signs after a space (`25 +0.02 -0.01 mm`, `-0.01 +0.02`) are a
tolerance pair, each with its sign (en-9): "plus zero point zero two minus zero point zero
one millimeters", not a range that drops the minus.
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text import units
from cosyedge.speech.text.fields import say_identifier
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import ordered

DESCENDING = rx.compile(
    rf"(?<![\w.+\-])(?<!\d,)(\d+)-(\d+)(?![\w\-]|[.,:/]\d)"
    rf"(?!\s?(?:{units.GRAMMAR.pattern()})(?![\w/²³^]))"
)


def _descending(m: re.Match[str]) -> str:
    first, second = m.groups()
    if ordered(second) >= ordered(first):
        return m.group(0)  # a range, for the range rule
    return say_identifier(m.group(0))


_VALUE = r"(\d+(?:[.,]\d+)?|[.,]\d+)"
TOLERANCES = rx.compile(rf"(?<![\w.,+\-])([+-]){_VALUE}\s+([+-]){_VALUE}(?![\w\-]|[.,]\d)")
_SIGN_WORDS = {"+": "plus", "-": "minus"}


def _tolerances(m: re.Match[str]) -> str:
    """`+0.02 -0.01` → "plus 0.02 minus 0.01" (the values for the number rules); two values of
    one sign are left as written."""
    sign, upper, other, lower = m.groups()
    if sign == other:
        return m.group(0)
    return f"{_SIGN_WORDS[sign]} {upper} {_SIGN_WORDS[other]} {lower}"


RULES = (
    Rule("tolerance", TOLERANCES, _tolerances),
    Rule("identifier", DESCENDING, _descending),
)
"""Read before the ranges."""
