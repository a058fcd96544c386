"""Mandarin readings of the fields plant systems write as one token: compact durations, MAC
addresses and a known field inside a longer token, read before the numbers and units inside
them could be (`3h40m` would be 三 H 四十米, a MAC address clock times and amperes).
"""

from __future__ import annotations

import calendar
import functools
import re

from cosyedge.speech import rx
from cosyedge.speech.text.fields import (
    HEX,
    IP_FORM,
    MAC_FORM,
    NOT_A_FIELD,
    joined,
    read_duration,
    say_joined,
)
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.zh.numbers import read_cardinal, read_digits, read_integer

# Not inside a longer run of Latin letters or digits (Chinese characters may touch a field).
_START = r"(?<![A-Za-z0-9./-])(?<!\d[,:])"

# --- dates and times, and a time in UTC (a trailing Z) -----------------------------------------


def say_date(year: str, month: str, day: str) -> str | None:
    """二零二四年五月一日: the year digit by digit; None for no such day of that year (2026-02-30,
    2026-04-31, 2026-13-01), which is then said as written, never as a date."""
    if (
        not 1 <= int(month) <= 12
        or not 1 <= int(day) <= calendar.monthrange(int(year) or 2000, int(month))[1]
    ):
        return None
    return f"{read_digits(year)}年{read_integer(int(month))}月{read_integer(int(day))}日"


def say_time(hours: str, minutes: str, seconds: str | None, fraction: str = "") -> str | None:
    """八点, 八点零五分, 十二点零分三十秒, 五十九点五秒; None for no such time."""
    hour, minute, second = int(hours), int(minutes), int(seconds or 0)
    if hour > 24 or minute > 59 or second > 59:
        return None
    text = f"{read_integer(hour)}点"
    if minute or second or fraction:
        text += ("零" if 0 < minute < 10 else "") + f"{read_integer(minute)}分"
    if second or fraction:
        text += read_integer(second) + (f"点{read_digits(fraction)}" if fraction else "") + "秒"
    return text


# A time in UTC, perhaps after its date: the zone is said first, as 北京时间 is, so the
# operator knows before the hour that it is not local time.
UTC = rx.compile(
    r"(?<![\d.])(?:(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(T|\s+))?"
    r"(\d{1,2})[:：](\d{2})(?:[:：](\d{2})(?:\.(\d+))?)?(?:Z|\s?(?:UTC|GMT))(?![A-Za-z0-9])"
)
UTC_WORD = "协调世界时"


# A numeric offset after a time (+08:00, -0500): its zone said after the time, 东八区 for a
# whole number of hours east (西五区 west), else the offset from UTC in hours and minutes.
# A minus offset only after the time of an ISO timestamp (2026-11-30T07:45:00-05:00), and
# after one without seconds only where it is no later time (T07:45-05:00): after a time
# alone a dash is a range's (08:00-16:00, 08:00:00-16:00), and so after a T before a later
# time (2026-11-30T08:00-09:30).
_CLOCK = r"\d{1,2}[:：]\d{2}(?:[:：]\d{2}(?:\.\d+)?)?"
OFFSET = rx.compile(
    rf"(?<![\d.])((?<=T){_CLOCK}(?=[-−])|{_CLOCK}(?=\+))([+\-−])(\d{{2}})[:：]?(\d{{2}})(?!\d|[:：]\d)"
)


def say_offset(sign: str, hours: int, minutes: int) -> str | None:
    """+08:00 → 东八区, -05:00 → 西五区, +00:00 → 协调世界时, +05:30 → 协调世界时加五小时三十分;
    None for no such offset (beyond 14 hours, or 60 minutes or more)."""
    if hours > 14 or minutes > 59:
        return None
    if not (hours or minutes):
        return UTC_WORD
    if not minutes and hours <= 12:
        return ("东" if sign == "+" else "西") + read_integer(hours) + "区"
    said = UTC_WORD + ("加" if sign == "+" else "减") + read_integer(hours) + "小时"
    return said + (read_integer(minutes) + "分" if minutes else "")


def say_offset_after(m: re.Match[str]) -> str:
    """The time as written (the time rule reads it), then its zone: 08:00+08:00 → 08:00东八区.
    A minus after a time without seconds before a later time is a range's (T08:00-09:30),
    left as written."""
    time, sign, hours, minutes = m.groups()
    if sign != "+" and _ends_a_range(time, int(hours), int(minutes)):
        return m.group(0)
    zone = say_offset(sign, int(hours), int(minutes))
    return m.group(0) if zone is None else time + zone


def _ends_a_range(time: str, hours: int, minutes: int) -> bool:
    """Whether -HH:MM after `time` ends a range instead: the time has no seconds (an ISO
    timestamp with an offset writes them) and HH:MM is later in the day."""
    parts = re.split("[:：]", time)
    return len(parts) == 2 and (hours, minutes) > (int(parts[0]), int(parts[1]))


def _utc(m: re.Match[str]) -> str:
    year, month, day, joint, hours, minutes, seconds, fraction = m.groups()
    date = say_date(year, month, day) if year else ""
    time = say_time(hours, minutes, seconds, fraction or "")
    if date is None or time is None:
        return m.group(0)
    return UTC_WORD + date + (" " if joint and joint != "T" else "") + time


# --- telephone numbers: 021-6012xxxx, 13812345678, 分机3305, 拨打119 ---------------------------

# Words a telephone number follows: any number after them is dialled, not counted.
# 拨 alone is dialling too (请拨120), but not where it allots (调拨, 划拨, 下拨: 调拨100吨).
PHONE_WORDS = (
    r"拨打|(?<![调划下分])拨|呼叫|致电|(?:报警|求救|联系|值班)?电话(?:号码)?|手机(?:号码?)?|分机号?"
    r"|火警|急救|匪警|热线|座机|固话|传真|(?<![\u4e00-\u9fff])转(?![\u4e00-\u9fff])"
)
_LANDLINE = r"(?:\(0\d{2,3}\)|0\d{2,3})[-\s]?\d{7,8}(?:(?:转|-)\d{1,6})?"
_MOBILE = r"1[3-9]\d[-\s]?\d{4}[-\s]?\d{4}"
# An area code or a 400/800 service prefix, then the number in two groups parted by hyphens
# or by spaces, as business cards write them: 021-6012-1234, 0755-8888-6666, 400-820-8820,
# 0571 8888 6666, 400 820 8820 (spaced, not before a unit or a letter: values in a list); a
# hyphen after the area code and a space inside the number, 0512-6789 1234 (zh-front-9: was
# 零五幺二到六千七百八十九 一千二百三十四).
_SPACED_END = r"\d{4}(?!\d|\s?[A-Za-z%％‰℃°])"
_HYPHENATED = (
    r"(?:0\d{2,3}|[48]00)(?:-\d{3,4}-\d{4}(?!-\d)"
    rf"|\s\d{{3,4}}\s{_SPACED_END}|-\d{{3,4}}\s{_SPACED_END})"
)
# After a telephone word, or alone with a country code: groups of digits as written, parted
# by hyphens or spaces (555-1234, 021 6012 1234, +86 138 1234 5678), an extension after 转.
_GROUPED = r"\+?\d{1,4}(?:[-\s]\d{2,4}){1,4}(?:转\d{1,6})?"
_EXTENSION = r"(?:转\d{1,6})?"
# A country code, perhaps the trunk zero in brackets (+44 (0)20 7946 0958), then up to six
# groups (+49 30 1234 5678 90).
_TRUNK = r"(?:\s?\(0\)\s?\d{1,5})"
_INTERNATIONAL = rf"\+\d{{1,3}}(?:{_TRUNK}|[-\s]\d{{2,5}})(?:[-\s]\d{{2,5}}){{1,5}}"
# After such a word, any number of three digits or more; alone, a landline with its area
# code or a mobile number (a short number alone is an amount: 阈值110).
PHONE = rx.compile(
    rf"(?:({PHONE_WORDS})(\s*[:：]?\s*)"
    rf"((?:{_HYPHENATED}|{_LANDLINE}(?![-\s]\d)|{_MOBILE}|{_GROUPED}|\+?\d{{3,12}}){_EXTENSION})"
    rf"|(?<![\d.-])((?:{_HYPHENATED}|{_LANDLINE}|{_MOBILE}|{_INTERNATIONAL}){_EXTENSION}))"
    r"(?![\d.]|-\d)"
)
_LANDLINE_PARTS = rx.compile(r"\(?(0\d{2,3})\)?[-\s]?(\d{3,4})(\d{4})(?:(?:转|-)(\d{1,6}))?")


def phone_groups(number: str) -> tuple[list[str], str]:
    """A number's groups as it is said, and its extension: a mobile 3-4-4; a landline its
    area code, then its own number in two (three or four, then four); one written in hyphenated
    groups in those groups (spaces or hyphens; the trunk zero in brackets, `(0)`, one of them);
    any other whole. The extension follows 转."""
    number, _, extension = number.partition("转")
    if re.fullmatch(_HYPHENATED, number):
        return re.split(r"[-\s]", number), extension
    if re.search(r"\d[-\s]\d|\+", number) and not re.fullmatch(_LANDLINE, number):
        # The trunk zero in brackets is a group of its own: said, as it is written.
        return re.split(r"[-\s]+", re.sub(r"\s?\(0\)\s?", " 0 ", number)), extension
    if re.fullmatch(_MOBILE, number):
        digits = re.sub(r"\D", "", number)
        return [digits[:3], digits[3:7], digits[7:]], extension
    landline = _LANDLINE_PARTS.fullmatch(number)
    if landline:
        area, head, tail, hyphenated = landline.groups()
        return [area, head, tail], extension or hyphenated or ""
    return [number], extension


def say_phone(number: str) -> str:
    """Digit by digit with 幺 for 1, as a number is dialled aloud, a pause between groups, an
    extension after 转."""
    groups, extension = phone_groups(number)
    said = "，".join(
        "加" * group.startswith("+") + read_digits(group, one="幺") for group in groups
    )
    return said + (f"转{read_digits(extension, one='幺')}" if extension else "")


def _phone(m: re.Match[str]) -> str:
    word, between, after_word, alone = m.groups()
    return (word or "") + (between or "") + say_phone(after_word or alone)


# --- compact durations -----------------------------------------------------------------------

# 分钟 when the minutes end the duration, 分 when seconds follow: 三小时四十分钟, 五分三十秒.
_UNIT_WORDS = {"d": "天", "h": "小时", "s": "秒"}
_PART = r"\d{1,3}(?:\.\d+)?(?:d|h|min|m|s)"
DURATION = rx.compile(
    rf"{_START}(?:({_PART}(?:\s?{_PART})+)|(\d{{1,3}})h(\d{{2}}))(?![A-Za-z0-9/]|[.:]\d)"
)


def count(amount: str) -> str:
    """An amount before a measure word: 两 for two (两小时), decimals digit by digit."""
    whole, _, fraction = amount.partition(".")
    said = "两" if whole.lstrip("0") == "2" and not fraction else read_cardinal(whole)
    return said + ("点" + read_digits(fraction) if fraction else "")


def say_duration(parts: list[tuple[str, str]]) -> str:
    """`[("1", "h"), ("05", "m"), ("20", "s")]` → 一小时五分二十秒; parts of nothing left out
    (all of them nothing: the last)."""
    said = [(amount, unit) for amount, unit in parts if float(amount)] or parts[-1:]
    words = []
    for i, (amount, unit) in enumerate(said):
        if unit in ("m", "min"):
            word = "分钟" if i == len(said) - 1 else "分"
        else:
            word = _UNIT_WORDS[unit]
        words.append(count(amount) + word)
    return "".join(words)


# --- MAC addresses ---------------------------------------------------------------------------

MAC = rx.compile(
    rf"(?<![A-Za-z0-9.-])(?<![A-Za-z0-9]:)({HEX}([:-]){HEX}(?:\2{HEX}){{4}})(?![A-Za-z0-9]|[:.-][A-Za-z0-9])"
)


def _pair(pair: str) -> str:
    """Digits as an address reads them (幺 for 1), letters as capitals, spelled later."""
    return "".join(read_digits(c, one="幺") if c.isdigit() else f" {c.upper()} " for c in pair)


def _mac(m: re.Match[str]) -> str:
    """Pair by pair, with a pause between pairs."""
    return "，".join(_pair(pair) for pair in re.split("[:-]", m.group(1)))


# --- a known field inside a longer token: GW2-10.20.30.40-A, 柜3/PT-101A ----------------------

DATE_FORM = r"\d{4}-\d{1,2}-\d{1,2}|\d{4}/\d{1,2}/\d{1,2}|\d{4}\.\d{1,2}\.\d{1,2}"
# A device tag as the tag rule reads it (alertforms.py), its digit runs whole; not a date or a
# MAC address after a word (`LOG-2026-11-15`).
_WHOLE = r"\d+(?!\d|\.\d)"
TAG_FORM = (
    rf"(?:[A-Z]{{2,4}}[-_]?{NOT_A_FIELD}{_WHOLE}|[A-Z]{{1,4}}(?:[-_]{NOT_A_FIELD}{_WHOLE})+"
    rf"|[A-Z]{_WHOLE}(?:[-_]{NOT_A_FIELD}{_WHOLE})+)(?:[-_]?[A-Z])?(?:[-_/]{NOT_A_FIELD}{_WHOLE})*"
)
JOINED = joined((MAC_FORM, IP_FORM, DATE_FORM, TAG_FORM))
JOINER_WORDS = {"-": "杠", "_": "下划线", "/": "斜杠"}

RULES = (
    Rule("telephone number", PHONE, _phone),
    Rule("time in UTC", UTC, _utc),
    Rule("field inside a token", JOINED, lambda m: say_joined(m, JOINER_WORDS)),
    Rule("MAC address", MAC, _mac),
    Rule("duration", DURATION, functools.partial(read_duration, say_duration)),
)
