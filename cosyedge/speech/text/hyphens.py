"""Two whole numbers joined by a hyphen where the second is the smaller (en-8).

No range runs down: `CPU 1516-3`, `EN 60204-1`, `Model 2000-10` are a model, a standard or a
part number, read as an identifier in its groups ("one five one six dash three"), not as
"one thousand five hundred sixteen to three". A range is kept where the second number is
not smaller (`Line 3-5`), where a unit follows (`80-60 °C`: values), and where the dash is
an en dash or a tilde, or is spaced (`10 - 5`).
"""

from __future__ import annotations

import re

from cosyedge.speech.text import units
from cosyedge.speech.text.fields import say_identifier
from cosyedge.speech.text.spans import Rule

DESCENDING = re.compile(
    rf"(?<![\w.+\-])(?<!\d,)(\d+)-(\d+)(?![\w\-]|[.,:/]\d)"
    rf"(?!\s?(?:{units.GRAMMAR.pattern()})(?![\w/²³^]))"
)


def _descending(m: re.Match[str]) -> str:
    first, second = m.groups()
    if int(second) >= int(first):
        return m.group(0)  # a range, for the range rule
    return say_identifier(m.group(0))


RULES = (Rule("identifier", DESCENDING, _descending),)
"""Read before the ranges."""
