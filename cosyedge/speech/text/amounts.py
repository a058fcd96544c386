"""Numbers grouped the European way, and ranges whose ends carry a sign, a unit or a currency
(en-7).

Groupings, rewritten before the rules read the text, into the one form they read (`1,234.5`):
- a dot before exactly three digits, repeated, then a decimal comma: `1.234,56` →
  `1,234.56`, `€1.234,56` → "one thousand two hundred thirty four euros and fifty six cents";
  the dots alone (`1.234`) stay a decimal, and a comma alone (`1,5`) a list: neither says
  which mark groups; but a comma with one or two digits after it before a unit is a
  decimal comma (`3,5 bar` → "three point five bar", en-9), as a measured value says;
- a no-break, narrow no-break, thin or figure space between groups of three digits, the
  decimal mark after it either a dot or a comma: `12 345 kg` → `12,345 kg`, `1 234,5` →
  `1,234.5` (such a space groups digits; it never parts two numbers), but after a word
  that says a telephone number follows (`Tel 555 123 456`) the groups are dialled.

Ranges, read before the plain range rule:
- a unit written on both ends (`-5°C-10°C` → "minus five to ten degrees Celsius"; with two
  minuses, `-5°C--10°C` → "... to minus ten ..."): one unit, at the end, as a range of
  percentages is said;
- a minus on the second end (`-1.5--2.5 bar` → "minus one point five to minus two point five
  bar"): the first dash is the range's;
- money on both ends (`$5-$10` → "five to ten dollars"; with cents or a magnitude each end
  said whole: `$1.5M-$2M` → "one point five million dollars to two million dollars").
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text import phones, units
from cosyedge.speech.text.spans import Rule

_GROUP_SPACES = "\u00a0\u202f\u2009\u2007"
# Not inside a word, a dotted number or a list (as english.py's numbers start).
_START = r"(?<![\w.])(?<!\d,)"
EUROPEAN = rx.compile(rf"{_START}([1-9]\d{{0,2}}(?:\.\d{{3}})+),(\d+)(?!\w|[.,]\d)")
SPACED = rx.compile(
    rf"{_START}([1-9]\d{{0,2}}(?:[{_GROUP_SPACES}]\d{{3}})+)(?:[.,](\d+))?(?!\w|[.,]\d)"
)


def _regrouped(groups: str, decimals: str | None) -> str:
    """`1,234` and `5` → `1,234.5`: the form the number rules read."""
    return groups + (f".{decimals}" if decimals else "")


# A word that says a telephone number follows: its groups are dialled, not an amount.
_DIALLED = rx.compile(r"(?i:call|dial|phone|tel|fax|hotline|mobile)\.?:?\s+(?:\+\d{1,3}\s?)?\Z")


def _spaced(m: re.Match[str]) -> str:
    """`12 345,5` → `12,345.5`, unless a word before it says a telephone number follows."""
    if _DIALLED.search(m.string, 0, m.start()):
        return m.group(0)  # Tel 555 123 456: a number dialled in its groups
    return _regrouped(re.sub(f"[{_GROUP_SPACES}]", ",", m[1]), m[2])


# (en-8) Two dot groups or more with no decimal (`1.234.567 kg`): no decimal has two points,
# so the dots group. One dot group after the euro sign (`€1.000`): a euro amount has two
# decimals, never three. A version after its word keeps its dots (`version 1.234.567`), and
# so does an address.
DOT_GROUPS = rx.compile(rf"{_START}([1-9]\d{{0,2}}(?:\.\d{{3}}){{2,}})(?!\w|[.,]\d)")
EURO_DOT_GROUPS = rx.compile(r"(?<=€)([1-9]\d{0,2}(?:\.\d{3})+)(?!\w|[.,]\d)")
_VERSION_WORD = rx.compile(r"(?i:version|firmware|fw|software|sw|release|rev|build|ver)\.?:?\s*\Z")


# A telephone number's dot groups after its word or its country code (`Tel 555.123.456`,
# `+1.555.123.456`, en-9): dialled, no thousands (phones.py).
_DIALLED_DOTS = rx.compile(rf"(?:{phones.DIAL_WORDS}:?\s+(?:\+\d{{1,3}}[.\s])?|\+)\Z")


def _dot_groups(m: re.Match[str]) -> str:
    """`1.234.567` → `1,234,567`; a version after its word, a telephone number after its
    word or a plus, or four parts none over 255 (an address: 192.168.100.200), as written."""
    if _VERSION_WORD.search(m.string[max(0, m.start() - 12) : m.start()]):
        return m.group(0)
    if _DIALLED_DOTS.search(m.string[max(0, m.start() - 24) : m.start()]):
        return m.group(0)
    parts = m[1].split(".")
    if len(parts) == 4 and all(int(p) <= 255 for p in parts):
        return m.group(0)
    return m[1].replace(".", ",")


def regroup(text: str) -> str:
    """`text` with European and space groupings written with commas and a decimal dot; a
    telephone number after its word is left."""
    text = EUROPEAN.sub(lambda m: _regrouped(m[1].replace(".", ","), m[2]), text)
    text = DOT_GROUPS.sub(_dot_groups, text)
    text = EURO_DOT_GROUPS.sub(lambda m: m[1].replace(".", ","), text)
    text = EURO_AFTER.sub(lambda m: m[1].replace(".", ","), text)
    text = MARKED.sub(lambda m: _regrouped(re.sub("[_'\u2019]", ",", m[1]), m[2]), text)
    text = INDIAN.sub(lambda m: m[1] + _regrouped(_in_threes(m[2].replace(",", "")), m[3]), text)
    return SPACED.sub(_spaced, text)


def _in_threes(run: str) -> str:
    """`"1250000"` → `"1,250,000"`: grouped as text, as a run of any length may be (int()
    refuses more than 4,300 digits)."""
    head = len(run) % 3 or 3
    return ",".join([run[:head], *(run[i : i + 3] for i in range(head, len(run), 3))])


# (en-9) Groups of three parted by an underscore, as code writes them (`1_000_000`), or by an
# apostrophe, as Switzerland does (`CHF 1'250.50`); the Indian grouping, pairs before the
# last three digits after the rupee's sign or code (`INR 12,50,000`, twelve lakh); dot
# groups before the euro written after the amount (`2.500 €`): one number each, not digits,
# a list or a decimal.
MARKED = rx.compile(
    rf"{_START}([1-9]\d{{0,2}}(?:_\d{{3}})+|[1-9]\d{{0,2}}(?:['\u2019]\d{{3}})+)(?:\.(\d+))?"
    r"(?![\w'\u2019]|[.,]\d)"
)
# Only after the rupee's sign or code: elsewhere `1,10,100` is a list, as the table says.
INDIAN = rx.compile(r"((?:₹|\bINR|\bRs\.?)\s?)([1-9]\d?(?:,\d\d)+,\d{3})(?:\.(\d+))?(?!\w|[.,]\d)")
EURO_AFTER = rx.compile(rf"{_START}([1-9]\d{{0,2}}(?:\.\d{{3}})+)(?=\s?(?:€|EUR\b))")


_NUM = r"(?:\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)"
# A range's dash: a tilde however spaced, a hyphen or en dash written onto the first end or
# spaced on both sides. A hyphen with a space before it and none after (`Tank 2 -0.5 bar`,
# `-5 °C -7 °C`) is the next value's minus, not a range: read as one, the sign was lost.
RANGE_DASH = r"(?:\s?~\s?|[-\u2013]\s?|\s[-\u2013]\s)"
_DASH = RANGE_DASH
_UNIT = rf"(?:{units.GRAMMAR.pattern()})(?![\w/²³^])"
# Each end with its unit: the second unit the first's as written.
UNIT_BOTH_ENDS = rx.compile(
    rf"(?<![\w.-])(?<!\d,)(-?{_NUM})\s?({units.GRAMMAR.pattern()}){_DASH}(-?{_NUM})\s?\2"
    r"(?![\w/²³^-])"
)
# A minus on the second end: the first dash is the range's (-1.5--2.5, 5 - -3).
MINUS_SECOND = rx.compile(rf"{_START}(-?{_NUM}){_DASH}-(?=\.?\d)")
MONEY_RANGE = rx.compile(
    rf"(?<![\w.])([$€£¥])({_NUM})((?:k|K|M|B|bn|T|tn)?){_DASH}\1({_NUM})\3(?![\w.,]\w|\w)"
)


def _unit_both_ends(m: re.Match[str]) -> str:
    """`-5°C-10°C` → "-5 to 10 °C": the unit once, after the second end; a lone letter is a
    unit only apart from its numbers (`20 A-30 A`: `0A-0A` is a code)."""
    low, unit, high = m.groups()
    parsed = units.GRAMMAR.parse(unit)
    apart = f" {unit}" in m.group(0)
    if parsed is None or (parsed.lone_letter and not (apart and unit in units.LETTERS)):
        return m.group(0)
    return f"{low} to {high} {unit}"


def _money_range(m: re.Match[str]) -> str:
    """`$5-$10` → "5 to $10" (the currency once, at the end); with cents or a magnitude,
    `$5.50-$10` → "$5.50 to $10", each said whole."""
    mark, low, magnitude, high = m.groups()
    if magnitude or "." in low + high:
        return f"{mark}{low}{magnitude} to {mark}{high}{magnitude}"
    return f"{low} to {mark}{high}"


# The end of a unit: no more of a word, a power or a quotient; a slash before another value
# parts two values (`1,5 bar/2,5 bar`, en-9).
_UNIT_END = r"(?![\w²³^]|/(?!\s?[-+]?\.?\d))"
# A decimal comma (en-9): one comma, one to three digits before it and one or two after,
# then a unit that is no lone letter (`3,5 bar`, `-5,5 °C`, `12,75 %`). Three digits after a
# comma group thousands (`1,500 kg`), and without a unit after them digits joined by commas
# stay a list (`Lines 3,4 down`): a decimal is guessed only where a measured value is
# written, as a European PLC writes one.
DECIMAL_COMMA = rx.compile(
    rf"{_START}(\d{{1,3}}),(\d{{1,2}})(?=\s?({units.GRAMMAR.pattern()}){_UNIT_END})"
)
# (en-9) After an equals sign one value is given, not a list: `PV=12,5` is a decimal.
ASSIGNED_COMMA = rx.compile(r"(?<==)(\s?\d{1,3}),(\d{1,2})(?![\d,]|\.\d)")
# A lone letter after a decimal comma is a unit where its clause ends there or another value
# follows (`0,75 A`, `2,5 h.`, `0,75 A/1,5 A`): then the comma is a decimal (en-9).
# A plural noun right before the digits names the things they number: `Fuses 1,2 A` is a list.
_PLURAL_BEHIND = rx.compile(r"\b[A-Za-z]{2,}[^\Wsu]s\s+$")
_LETTER_UNIT_AHEAD = rx.compile(r"\s*(?:[,.;:!?)\]]|$|/\s?[-+]?\.?\d)")


# (en-9) A range of two decimal commas before a unit (`2,5-3,5 bar`): the first end is one as
# the second is; and a zero before the comma (`0,750 kg`, `0,5 bar`) is no thousands group.
_UNIT_AFTER = rf"(?=\s?({units.GRAMMAR.pattern()}){_UNIT_END})"
DECIMAL_COMMA_RANGE = rx.compile(
    rf"{_START}(\d{{1,3}}),(\d{{1,2}})({RANGE_DASH})(\d{{1,3}}),(\d{{1,2}}){_UNIT_AFTER}"
)
ZERO_COMMA = rx.compile(rf"{_START}0,(\d{{1,6}})(?!\d|[.,]\d){_UNIT_AFTER}")


def _measured_unit(m: re.Match[str], group: int, zero: bool = False) -> bool:
    """Whether group `group` of `m` is a unit after a measured value: a lone letter only where
    its clause ends or another value follows and no plural noun is before the digits (`0,75
    A`; `Lines 1,2 A down`, `Fuses 1,2 A` stay lists); after a `zero` before the comma, which
    no list starts with, an A, V or W anywhere (`ALARM 0,75 A NOW`, en-10), as after any
    decimal (units.py)."""
    unit = units.GRAMMAR.parse(m[group])
    if unit is None:
        return False
    if not unit.lone_letter:
        return True
    if _PLURAL_BEHIND.search(m.string, max(0, m.start() - 24), m.start()):
        return False  # Fuses 1,2 A: the things numbered, a list
    if zero and m[group] in ("A", "V", "W"):
        return True
    return bool(_LETTER_UNIT_AHEAD.match(m.string, m.end(group)))


def _decimal_comma_range(m: re.Match[str]) -> str:
    """`2,5-3,5 bar` → `2.5-3.5 bar`; before a lone letter that is no unit as written."""
    if not _measured_unit(m, 6):
        return m.group(0)
    return f"{m[1]}.{m[2]}{m[3]}{m[4]}.{m[5]}"


def _zero_comma(m: re.Match[str]) -> str:
    """`0,750 kg` → `0.750 kg`; before a lone letter that is no unit as written."""
    if not _measured_unit(m, 2, zero=True):
        return m.group(0)
    return f"0.{m[1]}"


def _decimal_comma(m: re.Match[str]) -> str:
    """`3,5 bar` → `3.5 bar` for the number and unit rules; before a lone letter that is no
    unit (`Lines 1,2 A down`) the digits stay a list."""
    if not _measured_unit(m, 3):
        return m.group(0)
    return f"{m[1]}.{m[2]}"


RULES = (
    Rule("decimal comma", DECIMAL_COMMA_RANGE, _decimal_comma_range),
    Rule("decimal comma", ZERO_COMMA, _zero_comma),
    Rule("decimal comma", DECIMAL_COMMA, _decimal_comma),
    Rule("decimal comma", ASSIGNED_COMMA, lambda m: f"{m[1]}.{m[2]}"),
    Rule("range", MONEY_RANGE, _money_range),
    Rule("range", UNIT_BOTH_ENDS, _unit_both_ends),
)
"""Read before money and device tags (`C-10` in `-5°C-10°C` is no tag)."""
RANGES = (Rule("range", MINUS_SECOND, lambda m: f"{m[1]} to -"),)
"""Read before the range rules."""
