"""Pauses a reading needs where the written text has only a space (en-8).

A tag, a formula or a label that ends in digits, then a spaced value: `Tank T1 85 %`,
`SF6 5.5 bar`, `CH4 5 % LEL`, `PT-101 5 bar`, `PM10 150`. Read with no break, the digits of
the two run together ("T one eighty five percent" is heard as T 185 %, "P T one oh one five"
as 1015): a comma after the name keeps them apart.
"""

from __future__ import annotations

import re

from cosyedge.speech.text.spans import Rule

# Letters, an optional hyphen, digits: a whole token, not part of a path, an address or an
# offset (kg/m3, UTC+8, GMT-5), not a quarter before its year (Q3 2026, a date). Then spaces
# and a number, with its sign.
NAME_BEFORE_VALUE = re.compile(
    r"(?<![\w./+\-:#])(?!(?:UTC|GMT)-?\d|Q[1-4]\s+\d{4}(?!\d))"
    r"([A-Za-z]{1,6}-?\d{1,6})(?=\s+[-+]?\.?\d)"
)
# A unit with a power written after a number (5 m3 10 min, 2.5 mm2 3 cores): no name.
_UNIT = re.compile(r"(?:[a-z]{1,3}|Nm|Sm)[23]")
_NUMBER_BEFORE = re.compile(r"(?<![\w.])[-+]?\d[\d.,]*\s+$")


def _pause(m: re.Match[str]) -> str:
    """The name and a comma; a unit after a number as it is."""
    unit = _UNIT.fullmatch(m.group(1))
    if unit and _NUMBER_BEFORE.search(m.string[max(0, m.start() - 24) : m.start()]):
        return m.group(0)
    return m.group(1) + ","


RULES = (Rule("pause after a name", NAME_BEFORE_VALUE, _pause),)
