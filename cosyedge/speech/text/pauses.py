"""Pauses a reading needs where the written text has only a space (en-8).

A tag, a formula or a label that ends in digits, then a spaced value: `Tank T1 85 %`,
`SF6 5.5 bar`, `CH4 5 % LEL`, `PT-101 5 bar`, `PM10 150`. Read with no break, the digits of
the two run together ("T one eighty five percent" is heard as T 185 %, "P T one oh one five"
as 1015): a comma after the name keeps them apart. The Mandarin front end takes the same
rule with its own comma and its own idea of what may stand before a name (`pause_after_name`).

An ellipsis written onto the next word or value (`trip…14:05`, `Alarm...PT-101 high`) is a
pause before it, a space after it (en-11): the time, tag or value is read as it is after a
space, not left to the voice as part of a word. Between numbers it is a range (`4...20 mA`).

Underscores joining an identifier's parts (`FT_101_PV`, `TIC_331A_SP`, `line_3_pump`, en-12)
are silent: the parts are read as written apart, a tag's letters in capitals and its
number as a tag (`FT-101 PV`: "F T one oh one PV"), not left to the voice as one word. A
form with a dash, a slash or a dot in it (a file's name) is left whole, and so are digits
grouped by underscores (`1_000`), as code writes a number.
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule

# A unit with a power written after a number (5 m3 10 min, 2.5 mm2 3 cores): no name.
_UNIT = rx.compile(r"(?:[a-z]{1,3}|Nm|Sm)[23]")
_NUMBER_BEFORE = rx.compile(r"(?<![\w.])[-+]?\d[\d.,]*\s+$")


def pause_after_name(not_after: str, pause: str) -> Rule:
    """The rule putting `pause` after a name before a value. A name: letters, an optional
    hyphen, digits, as a whole token (`not_after`: a lookbehind saying what may not come
    before it), not an offset (UTC+8, GMT-5), not a quarter before its year (Q3 2026); then
    spaces and a number, with its sign."""
    name = rx.compile(
        rf"{not_after}(?!(?:UTC|GMT)-?\d|Q[1-4]\s+\d{{4}}(?!\d))"
        r"([A-Za-z]{1,6}-?\d{1,6})(?=\s+[-+]?\.?\d)"
    )

    def say(m: re.Match[str]) -> str:
        """The name and the pause; a unit after a number as it is."""
        before = m.string[max(0, m.start() - 24) : m.start()]
        if _UNIT.fullmatch(m.group(1)) and _NUMBER_BEFORE.search(before):
            return m.group(0)
        return m.group(1) + pause

    return Rule("pause after a name", name, say)


# Not part of a path, an address or an offset (kg/m3, UTC+8, 12:30).
ELLIPSIS = rx.compile(r"(?<!\d)(\.{3,}|\u2026)(?=[^\s.\u2026])")
ELLIPSES = (Rule("pause", ELLIPSIS, lambda m: m[1] + " "),)
"""Read first (English): every later rule sees the form after it whole."""

UNDERSCORED = rx.compile(r"(?<![\w./\\:#-])([A-Za-z0-9]+(?:_[A-Za-z0-9]+)+)(?![\w/\\:-]|\.\w)")
_TAG_LETTERS = rx.compile(r"[A-Z]{1,5}")


def _underscored(m: re.Match[str]) -> str:
    """The parts apart; a tag's capitals joined to its number by a hyphen, as a tag."""
    first, *rest = parts = m[1].split("_")
    if any(a.isdigit() and b.isdigit() for a, b in zip(parts, rest, strict=False)):
        return m.group(0)  # 1_000, 16#0000_10: digits grouped, as code writes a number
    if _TAG_LETTERS.fullmatch(first) and rest[0][0].isdigit():
        first, rest = f"{first}-{rest[0]}", rest[1:]
    return " ".join([first, *rest])


UNDERSCORES = (Rule("identifier", UNDERSCORED, _underscored),)
"""Read first, with the ellipses."""

RULES = (pause_after_name(r"(?<![\w./+\-:#])", ","),)
