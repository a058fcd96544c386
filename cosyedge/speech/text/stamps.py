"""Time stamps just beside the forms the date and time rules read (en-8).

- An offset from UTC after a time without a date or seconds, or with only its hours, or
  parted from the seconds by a space: `14:05+08:00` → "fourteen oh five U T C plus eight",
  `14:05:30+08`, `14:05:30 +0800`. A plus is an offset however it is written; a minus only
  after seconds, written onto them or as four digits after a space (`14:05:00-05:00`,
  `14:05:30 -0500`, en-9): `14:05-15:00` is a range. Seconds may have a fraction
  (`06:31:00.123 +01:00`). After a time without seconds and a space (en-12) a plus is an
  offset (`06:30 +01:00`, `06:30 +0100`), a minus as four digits (`06:30 -0500`) or with a
  colon after a morning time it would run back from (`06:30 -05:00`; `08:00 -09:30` and
  `22:00 -06:00` stay ranges).
- A compact date and time parted by a space, as logs write them: `20261130 140530` →
  "November thirtieth twenty twenty six, fourteen oh five and thirty seconds" (the seconds
  written: six digits after eight).
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import cardinal

_END = r"(?!\w|[:.]\d)"
PLUS_OFFSET = rx.compile(rf"(?<=\d:\d\d)(\+)(\d\d)(?::?(\d\d))?{_END}")
SPACED_OFFSET = rx.compile(rf"(?<=\d:\d\d:\d\d) ([+-])(\d\d)(:?)(\d\d){_END}")
# After seconds, with their fraction if any (en-9): the ISO 8601 offset, `-05:00` included.
AFTER_SECONDS = rx.compile(rf"(?<=\d:\d\d:\d\d)(\.\d{{1,9}})?( ?)([+-])(\d\d)(:?)(\d\d){_END}")
# After a time without seconds, parted by a space (en-12): `06:30 +01:00`, `06:30 -0500`.
AFTER_MINUTES = rx.compile(rf"(?<![\d:])(\d\d?):(\d\d) ([+-])(\d\d)(:?)(\d\d)?{_END}")
SPACED_COMPACT = rx.compile(
    r"(?<![\w./:-])(?<!\d,)((?:19|20)\d\d)(\d\d)(\d\d) (\d\d)(\d\d)(\d\d)(Z?)"
    r"(?![\w/-]|[.,:]\d)"
)


def _offset(sign: str, hours: str, minutes: str | None) -> str | None:
    """ " U T C plus eight", " U T C minus five thirty", " U T C" for none; None for an offset
    no clock has."""
    if int(hours) > 23 or int(minutes or 0) > 59:
        return None
    said = " U T C"
    if int(hours) or int(minutes or 0):
        said += f" {'plus' if sign == '+' else 'minus'} {cardinal(int(hours))}"
        said += f" {cardinal(int(minutes))}" if minutes and int(minutes) else ""
    return said


def _plus_offset(m: re.Match[str]) -> str:
    said = _offset(*m.groups())
    return m.group(0) if said is None else said


def _spaced_offset(m: re.Match[str]) -> str:
    sign, hours, colon, minutes = m.groups()
    said = None if sign == "-" and colon else _offset(sign, hours, minutes)
    return m.group(0) if said is None else said


def _after_seconds(m: re.Match[str]) -> str:
    """The seconds' fraction, then the offset (`.123 U T C plus one`); a spaced minus with a
    colon (`14:05:30 -05:00`) or before more than 14 hours (`14:05:00-16:00`) is a range's
    dash, left as written."""
    fraction, space, sign, hours, colon, minutes = m.groups()
    if sign == "-" and ((space and colon) or int(hours) > 14):
        return m.group(0)  # no offset is more than 14 hours behind UTC: a range's dash
    said = _offset(sign, hours, minutes)
    return m.group(0) if said is None else (fraction or "") + said


def _after_minutes(m: re.Match[str]) -> str:
    """`06:30 +01:00` → "06:30 U T C plus one". A minus is an offset written as four digits
    (`-0500`), or with a colon after a morning time it would run back from (`06:30 -05:00`:
    a range runs forward, and one back overnight starts in the evening, `22:00 -06:00`)."""
    hours, minutes, sign, off_hours, colon, off_minutes = m.groups()
    if sign == "-" and not _minus_offset(int(hours), int(off_hours), colon, off_minutes):
        return m.group(0)
    said = _offset(sign, off_hours, off_minutes)
    return m.group(0) if said is None else f"{hours}:{minutes}{said}"


def _minus_offset(hours: int, off_hours: int, colon: str, off_minutes: str | None) -> bool:
    """Whether a spaced minus after a time without seconds gives an offset from UTC."""
    if off_minutes is None or off_hours > 14:
        return False  # `06:30 -05`, `06:30 -16:00`: no offset is written so
    return not colon or (hours < 12 and off_hours < hours)


def _spaced_compact(m: re.Match[str]) -> str:
    """`20261130 140530` → `2026-11-30T14:05:30`, for the date and time rules; no such month,
    day, hour or minute: as written."""
    year, month, day, hours, minutes, seconds, utc = m.groups()
    if not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
        return m.group(0)
    if int(hours) > 23 or int(minutes) > 59 or int(seconds) > 60:
        return m.group(0)
    return f"{year}-{month}-{day}T{hours}:{minutes}:{seconds}{utc}"


FIELDS = (Rule("timestamp", SPACED_COMPACT, _spaced_compact),)
"""Read with the other whole fields, before any number."""
OFFSETS = (
    Rule("UTC offset", AFTER_SECONDS, _after_seconds),
    Rule("UTC offset", PLUS_OFFSET, _plus_offset),
    Rule("UTC offset", SPACED_OFFSET, _spaced_offset),
    Rule("UTC offset", AFTER_MINUTES, _after_minutes),
)
"""Read before the clock times."""
