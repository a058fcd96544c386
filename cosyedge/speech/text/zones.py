"""Time zones written as a word with an offset from it, and where a dash after a time is an
offset or the end of a range (en-7).

- `UTC` or `GMT` with an offset after it: `08:30 UTC+8` → "oh eight thirty U T C plus
  eight", `14:00 UTC-5` → "... U T C minus five", `UTC+05:30` → "U T C plus five thirty";
  the word alone is spelled as the offset's word is (`08:30 UTC` → "... U T C"). With
  `local_time_zone`, a dated timestamp with the word and its offset is converted
  (localtime.py), as one with `Z` or `+08:00` is.
- A dash and a clock time after a dated time (`2026-11-30 08:00-09:30`) is the end of a
  range when the date and the time are parted by a space and the first time has no seconds:
  an offset from UTC is written after a `T` (ISO 8601) or after seconds
  (`2024-05-01T08:30-05:30`, `2024-05-01 08:30:00-05:00` stay offsets). A plus is an offset
  however it is written: no range is written with one.
- A zone's abbreviation right after a time or a date (`14:05 CET`, en-9): its name,
  "Central European Time"; one regions share (CST, IST) spelled.
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import cardinal

# The word, an optional sign, hours (one or two digits) and minutes (with a colon or not).
ZONE_WORD = rx.compile(r"(?<![\w.])(UTC|GMT)(?:\s?([+-])\s?(\d{1,2})(?::?(\d\d))?)?(?!\w|[.,:]\d)")
# An offset written after a zone word, for the local-time conversion: `UTC+8`, ` GMT-05:30`.
WORD_OFFSET = r"\s?(?:UTC|GMT)(?:\s?[+-]\s?\d{1,2}(?::?\d\d)?)?"


def offset_minutes(written: str) -> int | None:
    """Minutes east of UTC of an offset as written: `+08:00`, `-0530`, `UTC+8`, ` GMT-05:30`,
    `Z`, `UTC` (0); None for one no clock has (`+23:99`, `UTC+24`)."""
    plain = re.sub(r"\s|UTC|GMT|Z|:", "", written)
    if not plain:
        return 0
    sign, digits = plain[0], plain[1:]
    hours, minutes = (digits, "0") if len(digits) <= 2 else (digits[:-2], digits[-2:])
    if int(hours) > 23 or int(minutes) > 59:
        return None
    size = int(hours) * 60 + int(minutes)
    return -size if sign == "-" else size


def say_offset(sign: str, hours: str, minutes: str | None) -> str:
    """`+`, `8` → "plus eight", `-`, `05`, `30` → "minus five thirty"; an offset of nothing is
    no words."""
    if not int(hours) and not int(minutes or 0):
        return ""
    said = f"{'plus' if sign == '+' else 'minus'} {cardinal(int(hours))}"
    return said + (f" {cardinal(int(minutes))}" if minutes and int(minutes) else "")


def _zone_word(m: re.Match[str]) -> str:
    """`UTC+8` → "U T C plus eight", `GMT` → "G M T"; an offset no clock has is left as
    written (its numbers read by the number rules)."""
    word, sign, hours, minutes = m.groups()
    spelled = " ".join(word)
    if sign is None:
        return spelled
    if int(hours) > 23 or int(minutes or 0) > 59:
        return m.group(0)
    return f"{spelled} {say_offset(sign, hours, minutes)}".rstrip()


def is_range_end(stamp: str, sign: str, written: str) -> bool:
    """Whether a dash and `written` after the dated time `stamp` end a range rather than give
    an offset from UTC: a space before the time, no seconds, a minus, a colon in the second
    time (`2026-11-30 08:00` then `-09:30`)."""
    return sign == "-" and " " in stamp and stamp.count(":") == 1 and ":" in written


# Zone abbreviations after a time (en-9), said as the zone's name: `14:05 CET` → "fourteen oh
# five Central European Time". One a region shares (CST: China or US Central; IST: India,
# Ireland or Israel) is spelled, naming neither.
ZONE_NAMES = {
    "CET": "Central European Time", "CEST": "Central European Summer Time",
    "EET": "Eastern European Time", "EEST": "Eastern European Summer Time",
    "WET": "Western European Time", "WEST": "Western European Summer Time",
    "BST": "British Summer Time", "MSK": "Moscow Time",
    "EST": "Eastern Standard Time", "EDT": "Eastern Daylight Time",
    "CDT": "Central Daylight Time", "MST": "Mountain Standard Time",
    "MDT": "Mountain Daylight Time", "PST": "Pacific Standard Time",
    "PDT": "Pacific Daylight Time", "JST": "Japan Standard Time",
    "KST": "Korea Standard Time", "BJT": "Beijing Time", "HKT": "Hong Kong Time",
    "SGT": "Singapore Time", "AEST": "Australian Eastern Standard Time",
    "CST": "C S T", "IST": "I S T",
}  # fmt: skip
ZONE_NAME = rx.compile(
    r"(?:(?<=\d:\d\d)|(?<=\d[aApP][mM])|(?<=\d [aApP][mM]))"
    rf"(\s?)({'|'.join(sorted(ZONE_NAMES, key=len, reverse=True))})(?![\w+-]|:\d)"
)

RULES = (
    Rule("UTC offset", ZONE_WORD, _zone_word),
    Rule("time zone", ZONE_NAME, lambda m: f"{m[1] or ' '}{ZONE_NAMES[m[2]]}"),
)
