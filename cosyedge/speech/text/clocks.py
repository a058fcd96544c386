"""Clock times and lengths of time written in forms the time and duration rules misread (en-9).

- The military clock, four digits (`1400`, `0745`), is a time where a word or a zone says
  one is meant: after a word of time (`at 1900`, `ETA 1630`, `Time: 0745`, `until 2300`,
  `from 0600 to 1400`), with `hrs` or `hours` after it (`Shift ends 1400 hrs`), before a
  zone (`1405Z`, `1405 UTC`, `1405 CET`) or before `shift` (`0745 shift change`): "at
  nineteen hundred", "fourteen oh five U T C". After a word that also starts a year (from,
  until, since, by, before, after) a year (`since 2020`, 1900 to 2059) is left as written,
  unless `hrs`, a zone or the other end of a range says it is a time. After a word of length
  (runtime, uptime, for, every, ...) it is a duration: `Runtime 1405 hrs` → "one thousand
  four hundred five hours". A unit after it makes it a quantity (`at 1400 rpm`).
- A time written with a dot or an h after a word of time (`at 7.45`, `Time: 19h45`): "seven
  forty five", "nineteen forty five"; `14:00 hrs`, `14:00h` → "fourteen hundred hours".
  Elsewhere `7.45` is a decimal and `1h30` a duration.
- A length of time in clock notation after a word of length (offline for, elapsed,
  downtime, uptime, duration, wait, runtime, ...), before ago, left or remaining, or with
  more hours than a day has (`123:45:00`): the duration's parts, largest first, "and"
  before the last, parts of nothing left out, as `3h40m` is said: `offline for 00:05:30` →
  "offline for five minutes and thirty seconds", `Downtime: 01:30:00` → "one hour and
  thirty minutes". Two parts are hours and minutes, minutes and seconds before `min`
  (`Wait 05:30 min`). `scheduled for 14:00` stays a time.
- A small `m` after a number after a word of length or before ago, left or remaining is
  minutes, not meters: `Downtime: 45m`, `Stopped 5m ago` → "forty five minutes", "five
  minutes ago" (`3m high` stays meters).
- An ISO 8601 duration (`PT5M`, `PT1H30M`, `P1DT2H`, `P1Y2M`): its parts, as above: "five
  minutes", "one hour and thirty minutes", "one day and two hours".
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text import units
from cosyedge.speech.text.daydates import VERSION_WORDS
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import cardinal, digits
from cosyedge.speech.text.zones import ZONE_NAMES

# Words after which a time of day follows. The first set never starts a year; the second
# may (since 2020), so a year after it is left.
# "time" only as a field's label (`Time: 0745`): `cycle time 1200` is a length.
_TIME_CUES = (
    r"at|@|ETA|ETD|ETR|time(?=\s*[:=])|starts?|started|ends?|ended|begins?"
    r"|shift\s+(?:start|end)s?"
)
_YEAR_CUES = r"from|until|till|since|by|before|after"
# Words after which a length of time follows (`Downtime: 45m`, `Runtime 1405 hrs`).
DURATION_WORDS = (
    r"for|elapsed|downtime|uptime|duration|wait|waited|waiting|runtime|run\s+time|ran"
    r"|idle|idled|lasted|took|delay|delayed|timeout|timer|every|within"
    r"|total|operating\s+hours"
)
# Words after a length of time that say it is one (`00:10:00 remaining`); after a small m
# only those no length in meters takes (`5m ago`; `1m left` may be a pipe's).
_AFTER_LENGTH = r"\s+(?i:ago|left|remaining|overdue|later|elapsed)\b"
_AFTER_MINUTES = r"\s+(?i:ago|later|overdue|elapsed)\b"
# A word of scheduling before "for": a time of day follows it (scheduled for 14:00).
_SCHEDULED = r"scheduled|planned|booked|set|moved|postponed|rescheduled|due|ready"
_GAP = r"(?:\s*[:=]\s*|\s+)"
_HHMM = r"([01]\d|2[0-3])([0-5]\d)"
_ZONES = "|".join(sorted(ZONE_NAMES, key=len, reverse=True))
_MARK = rf"\s?(?:hrs|hours)\b|Z(?!\w)|(?=\s?(?:UTC|GMT|{_ZONES})(?![A-Za-z]))"
# A word before the digits, or nothing a number is part of (`1.1400`, `B-1400`).
_CUED = (
    rf"(?:(?<![\w.])(?:((?i:{_TIME_CUES}){_GAP}|@\s*)|((?i:{_YEAR_CUES}){_GAP})"
    rf"|((?i:{DURATION_WORDS}){_GAP}))|(?<![\w.:/@-])(?<!\d,))"
)
# Not before more digits, a decimal, a date's or an identifier's dash (`at 2024-05-01`), or
# a colon other than a heading's (`2001:db8::1`, `9001:2015`).
_ALONE = r"(?!\w|[.,/\u2013-]\d|:\S)"
MILITARY = rx.compile(rf"{_CUED}{_HHMM}({_MARK}|(?=\s(?i:shift)\b))?{_ALONE}")
# Two of them joined by a dash or a word, a cue before or a mark after for both (`from
# 0600 to 1400`, `0600-1400 hrs`).
_JOINT = r"\s?[-\u2013]\s?|\s+(?i:to|until|till)\s+"
MILITARY_RANGE = rx.compile(rf"{_CUED}{_HHMM}({_JOINT}){_HHMM}({_MARK})?{_ALONE}")
# The other end of a range whose first end is a clock time (`08:00 to 1400`, `from 14.30 to
# 15.00`).
RANGE_END = rx.compile(rf"(?<=\d:\d\d)({_JOINT})([01]?\d|2[0-3])[.h]([0-5]\d){_ALONE}")
# What says the digits are a quantity: a unit (with a power or a quotient), a times sign, a
# currency's code, a count's noun (`at 1400 rpm`, `at 1000 m^-1`, `at 6.02x10^1`, `at 0.00
# EUR`, `starts 1200 times`).
_QUANTITY_AHEAD = rx.compile(
    rf"\s?(?:{units.GRAMMAR.pattern()})(?!\w)"
    r"|\s?[x\u00d7*^\u00b7/%\u2030\u00b0$\u20ac\u00a3\u00a5\u20b9\u00a2]"
    r"|\s?(?:USD|EUR|GBP|CNY|RMB|JPY|INR|CHF)\b"
    r"|\s+(?i:times|cycles|counts|units|pcs|parts|pieces|items|starts|trips|events|records)\b"
    r"|\s+(?:thousand|million)\b"  # a multiplier read before (at 1.5k cycles, en-10)
)
_YEAR = rx.compile(r"19\d\d|20[0-5]\d")


def _military(m: re.Match[str]) -> str:
    """`at 1900` → `at 19:00`, `1400 hrs` → `14:00 hours`, `1405Z` → `14:05Z`, for the time
    rules; as written after a word of length, before a unit, or where a year may be meant
    (see the module's docstring)."""
    cue, year_cue, length_cue, hours, minutes, mark = m.groups()
    if not _a_time(m, (cue, year_cue, length_cue), mark, [hours + minutes]):
        return m.group(0)
    return (cue or year_cue or "") + f"{hours}:{minutes}" + _said_mark(mark)


def _military_range(m: re.Match[str]) -> str:
    """`from 0600 to 1400` → `from 06:00 to 14:00`; as `_military` says when."""
    cue, year_cue, length_cue, hours, minutes, joint, hours2, minutes2, mark = m.groups()
    if not _a_time(m, (cue, year_cue, length_cue), mark, [hours + minutes, hours2 + minutes2]):
        return m.group(0)
    said = f"{hours}:{minutes}{joint}{hours2}:{minutes2}"
    return (cue or year_cue or "") + said + _said_mark(mark)


def _a_time(m: re.Match[str], cues: tuple, mark: str | None, written: list[str]) -> bool:
    """Whether four digits (or a range of them) are a time: a word of time or a mark says
    so, or a word that may start a year and digits no year can be; never after a word of
    length or before a unit."""
    cue, year_cue, length_cue = cues
    if length_cue or (mark is None and _QUANTITY_AHEAD.match(m.string, m.end())):
        return False
    years = all(_YEAR.fullmatch(w) for w in written)
    return bool(cue or mark is not None or (year_cue and not years))


def _said_mark(mark: str | None) -> str:
    """`hrs` is "hours" after a time (the time rule reads no unit); a zone stays."""
    return " hours" if mark and mark.strip() in ("hrs", "hours") else mark or ""


# --- a time with a dot or an h after a word of time; hours after a clock time -----------------

DOTTED_TIME = rx.compile(
    rf"(?<![\w.])(?:((?i:{_TIME_CUES}){_GAP}|@\s*)|((?i:{_YEAR_CUES}){_GAP}))"
    rf"([01]?\d|2[0-3])[.h]([0-5]\d){_ALONE}(?!-[A-Za-z])"  # 0.10-beta: a version
)
# A dotted time with its hour written in two digits before h or hrs (`07.45 h`, `14.30 h`).
DOTTED_HOURS = rx.compile(r"(?<![\w.:/-])(?<!\d,)([01]\d|2[0-3])\.([0-5]\d)(?=\s?(?:h|hrs)\b)")
# A version word before it makes `10.10h` a version with a letter (`firmware 10.10h`), a
# duration's part a duration's hours (`0d 10.10h`).
_NO_TIME_BEFORE = rx.compile(rf"\b(?i:{VERSION_WORDS})\s+v?$|\d(?:d|h|min|m|s)\s*$")


def _dotted_hours(m: re.Match[str]) -> str:
    """`07.45 h` → `07:45 h`, read by the clock rules; after a version word or a duration's
    part as written."""
    if _NO_TIME_BEFORE.search(m.string, max(0, m.start() - 12), m.start()):
        return m.group(0)
    return f"{m[1]}:{m[2]}"


HOURS_AFTER_TIME = rx.compile(r"(?<=\d:\d\d)\s?(?:hrs|hr|h)(?![\w/])")


def _dotted_time(m: re.Match[str]) -> str:
    """`at 7.45` → `at 7:45`; before a unit (`at 7.45 bar`) a decimal, left, and after a word
    that may start a year only a two-digit hour is one (`from 14.30`, not `from 2.50`)."""
    cue, year_cue, hours, minutes = m.groups()
    if _QUANTITY_AHEAD.match(m.string, m.end()) or (year_cue and len(hours) < 2):
        return m.group(0)
    return f"{cue or year_cue}{hours}:{minutes}"


# --- lengths of time in clock notation ------------------------------------------------------

_CLOCK = r"(\d{1,3}):([0-5]\d)(?::([0-5]\d)(?:\.(\d{1,3}))?)?"
_MINUTE_UNIT = r"min|mins|minutes"
# In any case: an alert in capitals writes `WAIT 05:30 MIN` (en-10).
_UNIT_AFTER = rf"(\s?(?i:{_MINUTE_UNIT}|h|hrs|hours)\b)?"
CUED_LENGTH = rx.compile(
    rf"(?<![\w.])(?:((?i:{_SCHEDULED}))\s+)?((?i:{DURATION_WORDS}))({_GAP}){_CLOCK}"
    rf"(?!\d|[:.]\d){_UNIT_AFTER}"
)
LENGTH_BEFORE_WORD = rx.compile(
    rf"(?<![\w.:]){_CLOCK}(?!\d|[:.]\d){_UNIT_AFTER}(?={_AFTER_LENGTH})"
)
# A count of days before a clock-notation length (`Uptime 3 days 04:05:06`, en-12): the clock
# is the hours, minutes and seconds past the days, not a time of day. With seconds only:
# `in 3 days 14:00` may be a time of day.
DAYS_LENGTH = rx.compile(
    r"(?<![\w.:])(\d+)\s?((?i:days?|d))\b,?\s+(\d{1,2}):([0-5]\d):([0-5]\d)(?:\.(\d{1,3}))?"
    r"(?!\d|[:.]\d)"
)
LONG_LENGTH = rx.compile(r"(?<![\w.:])(\d{2,}):([0-5]\d):([0-5]\d)(?:\.(\d{1,3}))?(?!\d|[:.]\d)")


def say_length(parts: list[tuple[str, str]]) -> str:
    """`[("1", "hour"), ("30", "minute"), ("0", "second")]` → "one hour and thirty minutes":
    parts of nothing left out (all nothing: the last), "and" before the last, as compact
    durations are said."""
    kept = [(a, u) for a, u in parts if float(a)] or parts[-1:]
    words = []
    for amount, unit in kept:
        whole, _, fraction = amount.partition(".")
        said = cardinal(int(whole)) + (f" point {digits(fraction)}" if fraction else "")
        words.append(f"{said} {unit if said == 'one' else unit + 's'}")
    if len(words) > 1:
        words[-1] = "and " + words[-1]
    return " ".join(words)


def _clock_parts(
    first: str, second: str, third: str | None, fraction: str | None, unit: str | None
) -> list[tuple[str, str]]:
    """(amount, unit) of a clock-notation length: three parts hours, minutes, seconds; two
    hours and minutes, or minutes and seconds before a minute's unit."""
    if third is not None:
        seconds = third + (f".{fraction}" if fraction else "")
        return [(first, "hour"), (second, "minute"), (seconds, "second")]
    if unit and unit.strip().lower() in _MINUTE_UNIT.split("|"):
        return [(first, "minute"), (second, "second")]
    return [(first, "hour"), (second, "minute")]


def _cued_length(m: re.Match[str]) -> str:
    """`offline for 00:05:30` → "offline for five minutes and thirty seconds"; after a word
    of scheduling (`scheduled for 14:00`) a time of day, left."""
    scheduled, word, gap, *clock = m.groups()
    if scheduled and word.lower() == "for":
        return m.group(0)
    before = m.group(0)[: m.start(2) - m.start()]
    return before + word + gap + say_length(_clock_parts(*clock))


def _days_length(m: re.Match[str]) -> str:
    """`3 days 04:05:06` → "3 days, four hours five minutes and six seconds" (`d` said as
    days; the count left for the number rule)."""
    count, word, *clock = m.groups()
    if word.lower() == "d":
        word = "day" if count == "1" else "days"
    return f"{count} {word}, " + say_length(_clock_parts(*clock, None))


def _long_length(m: re.Match[str]) -> str:
    """`123:45:00` → "one hundred twenty three hours and forty five minutes"; 24 hours or
    fewer: a time of day, left for the time rule."""
    hours, minutes, seconds, fraction = m.groups()
    if int(hours) <= 24:
        return m.group(0)
    return say_length(_clock_parts(hours, minutes, seconds, fraction, None))


# --- minutes written m after a word of length -------------------------------------------------

_AMOUNT = r"(\d+(?:\.\d+)?)\s?m(?![\w/²³^'\u2019+-]|\.\d)"
# Not within or total, which a distance takes as well (`within 5m of the robot`).
_MINUTE_WORDS = DURATION_WORDS.replace("|within", "").replace("|total", "")
CUED_MINUTES = rx.compile(rf"(?<![\w.])((?i:{_MINUTE_WORDS}){_GAP}){_AMOUNT}")
MINUTES_BEFORE_WORD = rx.compile(rf"(?<![\w.])(?<!\d,){_AMOUNT}(?={_AFTER_MINUTES})")


def _minutes(amount: str) -> str:
    return say_length([(amount, "minute")])


# --- ISO 8601 durations: PT5M, PT1H30M, P1DT2H ------------------------------------------------

_ISO_UNITS = (("Y", "year"), ("M", "month"), ("W", "week"), ("D", "day"))
_ISO_TIME_UNITS = (("H", "hour"), ("M", "minute"), ("S", "second"))
_ISO_PART = r"(?:(\d{{1,6}}(?:[.,]\d{{1,6}})?){})?"
ISO_DURATION = rx.compile(
    r"(?<![\w.-])P(?=\d|T\d)"
    + "".join(_ISO_PART.format(u) for u, _ in _ISO_UNITS)
    + r"(?:T(?=\d)"
    + "".join(_ISO_PART.format(u) for u, _ in _ISO_TIME_UNITS)
    + r")?(?![\w-]|[.,]\d)"
)


def _iso_duration(m: re.Match[str]) -> str:
    """`PT1H30M` → "one hour and thirty minutes"; a fraction before the last part, or one
    part without a `T` (`P1D`, a label as well), is no duration: left."""
    names = [name for _, name in (*_ISO_UNITS, *_ISO_TIME_UNITS)]
    parts = [(a.replace(",", "."), n) for a, n in zip(m.groups(), names, strict=True) if a]
    if any("." in a for a, _ in parts[:-1]) or not ("T" in m.group(0) or len(parts) > 1):
        return m.group(0)  # P1D alone may be a label: a duration has its T or two parts
    return say_length(parts)


RULES = (
    Rule("duration", ISO_DURATION, _iso_duration),
    Rule("duration", CUED_MINUTES, lambda m: m[1] + _minutes(m[2])),
    Rule("duration", MINUTES_BEFORE_WORD, lambda m: _minutes(m[1])),
    Rule("time", MILITARY_RANGE, _military_range),
    Rule("time", MILITARY, _military),
    Rule("time", DOTTED_HOURS, _dotted_hours),
    Rule("time", DOTTED_TIME, _dotted_time),
    # After the times above: a range's other end is read as its first.
    Rule("time", RANGE_END, lambda m: f"{m[1]}{m[2]}:{m[3]}"),
)
"""Read first, before tags, numbers and units take the digits and letters."""
LENGTHS = (
    Rule("duration", DAYS_LENGTH, _days_length),
    Rule("duration", CUED_LENGTH, _cued_length),
    Rule("duration", LENGTH_BEFORE_WORD, lambda m: say_length(_clock_parts(*m.groups()))),
    Rule("duration", LONG_LENGTH, _long_length),
    Rule("time", HOURS_AFTER_TIME, lambda m: " hours"),
)
"""Read after the ratios (`ratio 100:50:25`), before the clock times."""
