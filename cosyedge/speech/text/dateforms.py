"""Date and time forms beside the documented ones (en-9), written into the forms the date
and time rules read, or said here:

- A day, a month's abbreviation and a year joined by hyphens or slashes (`30-Nov-2026`,
  `30/Nov/2026`, as Oracle and many loggers write them; `02-DEC-26`, a year of two digits
  in this century): "November thirtieth twenty twenty six", a pause before a time after it.
- The Unix `date` form (`Mon Nov 30 14:05:30 UTC 2026`): the weekday, the date with its
  year, a pause, the time and its zone ("Monday November thirtieth twenty twenty six,
  fourteen oh five and thirty seconds U T C"), not a year said as "two thousand twenty six"
  after the zone.
- An ISO week (`2026-W48`, `2026W48-3`): "week forty eight of twenty twenty six", a day
  after it "day three" ("week" said once after the word week); a week and its year after a
  W or KW (`W49/2026`, `KW49/2026`) too.
- The military clock (`at 1405 hrs`, `1405Z`) is read in clocks.py.
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import MONTHS, cardinal, year

_MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
_DAYS = {"Mon": "Monday", "Tue": "Tuesday", "Wed": "Wednesday", "Thu": "Thursday"}
_DAYS |= {"Fri": "Friday", "Sat": "Saturday", "Sun": "Sunday"}
JOINED_MONTH = rx.compile(
    rf"(?<![\w.-])(\d{{1,2}})([-/])((?i:{_MONTHS}))\2(\d{{4}}|\d\d)(?![\w/-]|[.:]\d)"
    r"(\s+(?=\d{1,2}:\d\d))?"
)
UNIX_DATE = rx.compile(
    rf"\b({'|'.join(_DAYS)})\s+({_MONTHS})\s+(\d{{1,2}})\s+(\d{{1,2}}:\d\d(?::\d\d)?)"
    r"\s+([A-Z]{3,5})\s+(\d{4})(?!\w|[.:-]\d)"
)
# A week and its year after a W or KW (Kalenderwoche), as planners write them: `W49/2026`.
SLASHED_WEEK = rx.compile(r"(?<![\w.-])K?W(\d\d?)/((?:19|20)\d\d)(?![\w/-]|[.:]\d)")
ISO_WEEK = rx.compile(r"(?<![\w.-])((?:19|20)\d\d)-?W(\d\d)(?:-?([1-7]))?(?![\w/-]|[.:]\d)")
_WEEK_BEFORE = rx.compile(r"(?i:week)\s+$")


def _joined_month(m: re.Match[str]) -> str:
    """`30-Nov-2026` → `30 Nov 2026` for the month-date rule, a year of two digits in this
    century (`02-DEC-26` → `02 Dec 2026`); a comma before a time after."""
    day, _, month, written_year, time_after = m.groups()
    full_year = written_year if len(written_year) == 4 else f"20{written_year}"
    return f"{day} {month.title()} {full_year}" + (", " if time_after else "")


def _unix_date(m: re.Match[str]) -> str:
    """`Mon Nov 30 14:05:30 UTC 2026` → `Monday Nov 30 2026, 14:05:30 UTC`."""
    weekday, month, day, time, zone, full_year = m.groups()
    return f"{_DAYS[weekday]} {month} {day} {full_year}, {time} {zone}"


def _iso_week(m: re.Match[str]) -> str:
    """`2026-W48-3` → "week forty eight of twenty twenty six, day three"; no such week: as
    written."""
    full_year, week, day = m.groups()
    if not 1 <= int(week) <= 53:
        return m.group(0)
    after_word = _WEEK_BEFORE.search(m.string, max(0, m.start() - 8), m.start())
    said = ("" if after_word else "week ") + f"{cardinal(int(week))} of {year(int(full_year))}"
    return said + (f", day {cardinal(int(day))}" if day else "")


# A month and a year of four digits (en-9): `12/2026` → "December twenty twenty six", not the
# count "twelve of two thousand twenty six"; years 1970 to 2099 but 2000 (`5/2000 parts` is a
# count). A date (`12/31/2026`) has its day between them.
MONTH_YEAR = rx.compile(r"(?<![\w/.,-])(0?[1-9]|1[0-2])/(19[7-9]\d|20(?!00)\d\d)(?![\w/-]|[.,:]\d)")

# A 12-hour time written with a dot (en-9): `6.00 am`, `10.30 p.m.` are `6:00 am`, `10:30 p.m.`
# for the time rule, not decimals.
DOTTED_CLOCK12 = rx.compile(r"(?<![\w.])(1[0-2]|0?[1-9])\.([0-5]\d)(?=\s?[aApP]\.?[mM]\b)")


RULES = (
    Rule("time", DOTTED_CLOCK12, lambda m: f"{m[1]}:{m[2]}"),
    Rule("date", JOINED_MONTH, _joined_month),
    Rule("date", MONTH_YEAR, lambda m: f"{MONTHS[int(m[1]) - 1]} {year(int(m[2]))}"),
    Rule("timestamp", UNIX_DATE, _unix_date),
    # Written as an ISO week, for the rule after it.
    Rule("week", SLASHED_WEEK, lambda m: f"{m[2]}-W{int(m[1]):02d}"),
    Rule("week", ISO_WEEK, _iso_week),
)
"""Read first, before numbers, ranges and units take their pieces."""
