"""Dates written day first with dots, as much of Europe writes them, beside `01.05.2024`
(en-9):

- A two-digit year (`31.12.26`, `1.1.27`, `Calibration due 15.12.26.`): "December thirty
  first twenty twenty six", the year in this century. Day first, as every dotted date is
  read; no such day (`31.04.26`) and three numbers after a word that says a version follows
  (`firmware 1.1.27`) are left to the version and dotted-number rules.
- A day and a month without a year, a dot after each, after a word that says a date
  follows (`Since 01.12. the pump runs.`): "Since December first the pump runs."; the
  month's dot is no full stop unless the text ends or a capital follows it.
- A range of days of one year, the year written once at its end (`01.12.-05.12.2026`):
  "December first to December fifth twenty twenty six".
- A month's name or abbreviation and a day without a year, either first (`Dec 2`, `due
  December 2`, `2 Dec`, `JAN 15`): "December second", a pause before a time after it; not
  before a unit or a count (`May 5 bar`, `Mar 3 pumps`). Read after the dates with a year.
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text import units
from cosyedge.speech.text.plant import DATE_CUES, real_date
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import MONTHS, ordinal, year

_START = r"(?<![\w./-])(?<!\d[,:])"
_END = r"(?![\w/-]|[.,:]\d)"
VERSION_WORDS = r"version|firmware|fw|software|sw|release|rev|build"
SHORT_YEAR = rx.compile(
    rf"(?:(?<![\w.])((?i:{VERSION_WORDS}))\s+)?{_START}(\d{{1,2}})\.(\d{{1,2}})\.(\d\d){_END}"
)
DAY_MONTH = rx.compile(
    rf"(?<![\w.])((?i:{DATE_CUES})(?:\s+|:\s*)){_START}(\d{{1,2}})\.(\d{{1,2}})\.(?![\w.]|[,:/-]\d)"
)
DAY_RANGE = rx.compile(
    rf"{_START}(\d{{1,2}})\.(\d{{1,2}})\.?\s?[-\u2013]\s?(\d{{1,2}})\.(\d{{1,2}})\.(\d{{4}}){_END}"
)
_SENTENCE_AFTER = rx.compile(r"\s*$|\s+[A-Z]")
_NAMES = "|".join(MONTHS)
_SHORT = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
# A month as a word: its name or abbreviation, title case or capitals (a dot after an
# abbreviation is its own); not MAY, which all-capitals text writes as the verb.
_MONTH = rf"(?!MAY\b)(?:{_NAMES}|{_NAMES.upper()}|(?:{_SHORT}|{_SHORT.upper()})\.?)"
_ORDINAL = r"(?:st|nd|rd|th)?"
# A day first is none before a day the month has after it (`3 Dec 2`: December second) or one
# a date's reading left there (`12 May first twenty twenty four`, from `12 01/05/2024`).
_DAY_AFTER = (
    r"(?!\s+(?:\d|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh"
    r"|twelfth|\w+teenth|twent|thirt|two thousand|nineteen))"
)
MONTH_DAY = rx.compile(
    rf"(?<![\w.])(?:({_MONTH})\s+(\d{{1,2}}){_ORDINAL}|(\d{{1,2}}){_ORDINAL}\s+({_MONTH}){_DAY_AFTER})"
    r"(?![\w/-]|[.,:]\d)(\s+(?=\d{1,2}:\d\d))?"
)
# What says the number is no day: a unit or a count of things after it.
_NO_DAY_AHEAD = rx.compile(r"\s+[a-z]+s\b")


def _day(day: str, month: str, full_year: int | None = None) -> str | None:
    """`"01"`, `"12"` → "December first" (with the year, when given); None for no such day."""
    if not real_date(full_year, int(month), int(day)):
        return None
    said = f"{MONTHS[int(month) - 1]} {ordinal(int(day))}"
    return said + (f" {year(full_year)}" if full_year else "")


def _short_year(m: re.Match[str]) -> str:
    """`31.12.26` → "December thirty first twenty twenty six"; after a version's word, or no
    such day: as written."""
    version_word, day, month, short = m.groups()
    said = None if version_word else _day(day, month, 2000 + int(short))
    return m.group(0) if said is None else said


def _day_month(m: re.Match[str]) -> str:
    """`Since 01.12.` → "Since December first"; the dot kept where it ends a sentence."""
    cue, day, month = m.groups()
    said = _day(day, month)
    if said is None:
        return m.group(0)
    return cue + said + ("." if _SENTENCE_AFTER.match(m.string, m.end()) else "")


def _day_range(m: re.Match[str]) -> str:
    """`01.12.-05.12.2026` → "December first to December fifth twenty twenty six"."""
    day, month, day2, month2, full_year = m.groups()
    first, second = _day(day, month, int(full_year)), _day(day2, month2, int(full_year))
    if first is None or second is None:
        return m.group(0)
    return f"{first.removesuffix(' ' + year(int(full_year)))} to {second}"


def _month_day(m: re.Match[str]) -> str:
    """`Dec 2` or `2 Dec` → "December second", a comma before a time after; before a unit
    or a count, or no such day: as written."""
    month, day, day_first, month_after, time = m.groups()
    index = _month_index(month or month_after)
    ahead = units.UNIT_AHEAD.match(m.string, m.end()) or _NO_DAY_AHEAD.match(m.string, m.end())
    said = None if ahead or index is None else _day(day or day_first, str(index + 1))
    return m.group(0) if said is None else said + (", " if time else "")


def _month_index(written: str) -> int | None:
    """`"DEC"`, `"Dec."`, `"December"` → 11; `"Sept"` → 8."""
    key = written.rstrip(".").title()[:3]
    return next((i for i, name in enumerate(MONTHS) if name.startswith(key)), None)


LATE = (Rule("date", MONTH_DAY, _month_day),)
"""Read after the dates with a year (`Dec 2, 2026`, plant.py) and before the clock times."""

RULES = (
    Rule("date", DAY_RANGE, _day_range),
    Rule("date", SHORT_YEAR, _short_year),
    Rule("date", DAY_MONTH, _day_month),
)
"""Read before the clock times and the dotted numbers: `01.12.` is no time, `31.12.26` no
version."""
