"""Mandarin readings of codes, pairs, countdowns and stamps the number rules would hear as
values (zh-front-9).

- Dashes between groups of digits: en and em dashes pasted from documents. Three groups or
  more, or an area code (0 and one to three digits) before five to eight digits, are joined as
  a hyphen joins them, so the telephone, date and serial rules read them (139, 1234, 5678
  with en dashes → 幺三九, 幺二三四, 五六七八; 2026, 12, 02 → 二零二六年十二月二日; it was
  负 or 到 between the groups); an em dash between two numbers otherwise is a range's, as
  the en dash is (`20—30℃` → 二十到三十摄氏度: the dash was dropped, heard as 二十三十).
- A capital letter written onto digits, then a hyphen or a dot and more of the code, is part
  of an identifier, not a unit (`12A-3` was 十二安负三): the whole code is read as tags are,
  letters spelled, digits one by one with 幺, 杠 for a hyphen and 点 for a dot:
  `设备号12A-3` → 设备号幺二 A 杠三, `ACS880-01-045A-3`. A range with its unit at both ends
  (`5A-10A`) stays a range. A Cisco MAC address (`001A.2B3C.4D5E`) is said group by group, a
  pause between.
- After a standard's letters the number is the standard's, digits one by one, with a part
  after a dot or a hyphen and a year after a colon: `UL 508A` → U L 五零八 A (was 五百零八安),
  `ISO 9001:2015` → I S O 九零零幺冒号二零幺五, `GB 3836.1-2021`.
- A tag with a dotted suffix (`FIC-101.5`) is one tag: 幺零幺点五, not 幺零幺 then 零点五 (a
  value invented); a capital letter after the suffix is the tag's (`FT-305.2A`).
- Two values with the same unit a slash parts are both values: `3A/5A` → 三安斜杠五安 (the
  first was the letter A); a list of A labels is labels only before a machine or place word
  (labels.py).
- A count of nothing before 件 or 部件 is parted from it by a pause: `库存0件` → 库存零 then 件
  (零件 is the word "parts": the quantity was not heard).
- A countdown in hours, minutes and seconds after `T-` or `T+` is a duration: `T-00:05:00` →
  T 减五分钟 (it was 五点, a time of day).
- Eight digits that are a date, a space and a time (hhmmss, hhmm or hh:mm) are a date and a
  time: `20261202 063015` → 二零二六年十二月二日六点三十分十五秒 (was a cardinal).
- A spaced minus after a word that names a value (温度, 偏差, 压力, ..., 到, 至, 为) and right
  before a number with a unit or a percent sign is the value's sign: `温度 - 5℃` →
  温度零下五摄氏度, `偏差 - 2%` → 偏差负百分之二. After any other word it is left (a separator:
  `温度高 - 85℃`).
- A version of dotted numbers after 版本, 固件, 软件 or HA is a version, never a date:
  `版本2024.11.2` → 版本二零二四点十一点二 (the four-digit part digit by digit).
- A unit after 元 or a measure word and a slash is what the price or count is per:
  `3.5元/m³` → 三点五元每立方米, `120包/min` → 一百二十包每分钟.
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.zh.codes import STANDARDS
from cosyedge.speech.zh.fields import MAC, say_date, say_duration, say_time
from cosyedge.speech.zh.joints import VALUE_WORDS
from cosyedge.speech.zh.numbers import read_digits, read_integer
from cosyedge.speech.zh.plant import say_amount
from cosyedge.speech.zh.units import PATTERN as UNIT
from cosyedge.speech.zh.units import is_unit, say_unit

_UNIT_END = r"(?![A-Za-z0-9²³])"

# --- dashes between groups of digits -----------------------------------------------------------

_DASH_CHAIN = rx.compile(r"(?<![\d.])\d+(?:[\u2013\u2014]\d+){2,}(?!\d)")
_AREA_CODE = rx.compile(r"(?<![\d.])0\d{1,3}[\u2013\u2014]\d{5,8}(?!\d)")
_EM_DASH = rx.compile(r"(?<=\d)\s*\u2014\s*(?=\d)")


def fold_dashes(text: str) -> str:
    """En and em dashes between digit groups as a hyphen (three groups or more, an area code
    and its number) or a range's en dash (two numbers an em dash joins)."""
    if "\u2013" not in text and "\u2014" not in text:
        return text

    def hyphens(m: re.Match[str]) -> str:
        return re.sub("[\u2013\u2014]", "-", m[0])

    text = _AREA_CODE.sub(hyphens, _DASH_CHAIN.sub(hyphens, text))
    return _EM_DASH.sub("\u2013", text)


# --- codes with a letter written onto digits ---------------------------------------------------

# A token of letters and digits joined by hyphens or dots, with a capital written onto digits
# right before a joint (12A-3, 045A-3, 001A.2B3C): the look ahead stays inside the token.
GLUED_CODE = rx.compile(
    r"(?<![A-Za-z0-9._\-])(?=[A-Za-z0-9.\-]*?\d[A-Z]+[-.][A-Za-z0-9])"
    r"[A-Za-z0-9]+(?:[-.][A-Za-z0-9]+)+(?![A-Za-z0-9Ωµμ°²³·⋅*/^]|[-.][A-Za-z0-9])"
)
_UNIT_RANGE = rx.compile(r"\d+(?:\.\d+)?([A-Za-z]+)-\d+(?:\.\d+)?\1")
_JOINTS = {"-": "杠", ".": "点"}
_SCIENTIFIC = rx.compile(r"\d+(?:\.\d+)?E[-+]?\d")
_VALUE = rx.compile(rf"\d+(?:\.\d+)?(?:{UNIT})")


def spell_code(code: str, joints: dict[str, str]) -> str:
    """Letters spelled, digits one by one with 幺, each joint its word: 12A-3 → 幺二 A 杠三."""
    said = []
    for part in re.findall(r"[A-Za-z]|\d+|.", code):
        if part.isdigit():
            said.append(read_digits(part, one="幺"))
        else:
            said.append(joints.get(part) or f" {part.upper()} ")
    return " " + "".join(said) + " "


def _glued_code(m: re.Match[str]) -> str:
    """The code as tags are read; a range with its unit at both ends, a value with a unit of
    several terms (1A-ft), scientific notation (5E-6Pa) and a MAC address are left to their
    rules."""
    written = m[0]
    ends = _UNIT_RANGE.fullmatch(written)
    if (ends and is_unit(ends[1])) or _VALUE.fullmatch(written) or MAC.fullmatch(written):
        return written
    if _SCIENTIFIC.match(written):
        return written
    return spell_code(written, _JOINTS)


CISCO_MAC = rx.compile(
    r"(?<![A-Za-z0-9.])(?=[0-9.]*[A-Fa-f])([0-9A-Fa-f]{4})\.([0-9A-Fa-f]{4})\.([0-9A-Fa-f]{4})"
    r"(?![A-Za-z0-9]|\.[A-Za-z0-9])"
)

# --- a standard's number ------------------------------------------------------------------------

STANDARD_NUMBER = rx.compile(
    rf"(?<![A-Za-z0-9])({STANDARDS}|TSG)\s?(\d{{2,6}}(?:[.\-]\d{{1,4}})*(?::\d{{4}})?[A-Z]?)"
    r"(?![A-Za-z0-9]|[.\-:][A-Za-z0-9])"
)


def _standard(m: re.Match[str]) -> str:
    """UL 508A → U L 五零八 A; ISO 9001:2015 → I S O 九零零幺冒号二零幺五."""
    return m[1] + spell_code(m[2], {**_JOINTS, ":": "冒号"})


# --- a tag with a dotted suffix -----------------------------------------------------------------

DOTTED_TAG = rx.compile(
    r"(?<![A-Za-z0-9._\-])([A-Z]{2,4}-\d+\.\d+(?:[A-Z](?![A-Za-z0-9]))?|[A-Z]-\d+\.\d+)"
    rf"(?![A-Za-z0-9]|[.\-]\d|\s?[%％‰℃°])(?!\s?(?:{UNIT}){_UNIT_END})"
)

# --- values with the same unit a slash parts ----------------------------------------------------

SLASHED_VALUES = rx.compile(r"(?<=\d)([A-Za-zΩ°℃%]+)/(?=\d+(?:\.\d+)?\1(?![A-Za-z0-9]))")


def _slashed(m: re.Match[str]) -> str:
    """3A/5A → 3A斜杠5A: both keep their unit."""
    unit = m[1]
    return unit + "斜杠" if unit == "%" or is_unit(unit) else m[0]


# --- a count of nothing, countdowns, stamps -----------------------------------------------------

ZERO_PIECES = rx.compile(r"(?<![\d.])0(?=部?件)")
COUNTDOWN_CLOCK = rx.compile(r"(?<![A-Za-z0-9])T([-+])(\d{1,3}):(\d{2}):(\d{2})(?![\d:]|\.\d)")


def _countdown(m: re.Match[str]) -> str:
    """T-00:05:00 → T 减五分钟; minutes or seconds of 60 or more: as written."""
    if int(m[3]) >= 60 or int(m[4]) >= 60:
        return m[0]
    sign = "减" if m[1] == "-" else "加"
    return f" T {sign}" + say_duration([(m[2], "h"), (m[3], "m"), (m[4], "s")])


DATE_TIME = rx.compile(
    r"(?<![\dA-Za-z.])((?:19|20)\d\d)(\d\d)(\d\d)\s+"
    r"(?:(\d\d)(\d\d)(\d\d)?|(\d{1,2}):(\d\d)(?::(\d\d))?)(?![\d:]|\.\d)"
)


def _date_time(m: re.Match[str]) -> str:
    """20261202 063015 → 二零二六年十二月二日六点三十分十五秒; no such day or time: as
    written."""
    date = say_date(m[1], m[2], m[3])
    hours, minutes, seconds = (m[4], m[5], m[6]) if m[4] else (m[7], m[8], m[9])
    time = say_time(hours, minutes, seconds)
    return m[0] if date is None or time is None else date + time


# --- a spaced minus after a word that names a value ---------------------------------------------

SPACED_MINUS = rx.compile(
    rf"({VALUE_WORDS})\s*([-−+])\s+"
    rf"(?=\d+(?:\.\d+)?\s*(?:[%％‰℃°]|(?:{UNIT}){_UNIT_END}))"
)

# --- an amount before 元, and the % of a PLC address -------------------------------------------

# An amount with cents before 元 is money as after ￥: the zeros ending the cents are not said
# (1,250.00元 was 一千二百五十点零零元). After a currency mark or a sign the money rule reads it.
YUAN = rx.compile(
    r"(?<![\d.,$€£¥₩₹\-−\u2013])(?<![$€£¥₩₹]\s)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+)(?=元)"
)
# The % before an IEC 61131-3 address with no decimal (%MW100, %IW64) is 百分号, as before one
# with a decimal (%IX0.1): the voice says nothing for a bare %.
PLC_PERCENT = rx.compile(r"(?<![A-Za-z0-9])%(?=[IQM][XBWDL]?\d)")

# --- versions after a version word --------------------------------------------------------------

VERSION = rx.compile(
    r"(版本号?|固件|软件|(?<![A-Za-z])HA)(\s*(?:[:：]|为|是)?\s*)[vV]?"
    r"(?<![\d.])(\d{4})\.(\d{1,2})\.(\d{1,2})(?![\d.])"
)


def _version(m: re.Match[str]) -> str:
    """版本2024.11.2 → 版本二零二四点十一点二: the year-like part digit by digit."""
    rest = (read_integer(int(p)) for p in (m[4], m[5]))
    return m[1] + m[2] + "点".join((read_digits(m[3]), *rest))


# --- a unit per which a price or a count is given -----------------------------------------------

PER_UNIT = rx.compile(rf"(?<=[元镑件包次瓶箱袋台个只桶])/((?:{UNIT})){_UNIT_END}")

RULES = (
    Rule("version", VERSION, _version),
    Rule("timestamp", DATE_TIME, _date_time),
    Rule("countdown", COUNTDOWN_CLOCK, _countdown),
    Rule("identifier", STANDARD_NUMBER, _standard),
    Rule("list of values", SLASHED_VALUES, _slashed),
    Rule("number", ZERO_PIECES, lambda m: "零，"),
    Rule("sign", SPACED_MINUS, lambda m: m[1] + m[2]),
    Rule("money", YUAN, lambda m: say_amount(m[1])),
    Rule("PLC address", PLC_PERCENT, lambda m: "百分号"),
    Rule("unit", PER_UNIT, lambda m: "每" + say_unit(m[1])),
)
"""Read after the labels (labels.py), before the other rules of the alert pre-pass."""

CODES = (
    Rule("MAC address", CISCO_MAC, lambda m: "，".join(spell_code(g, {}) for g in m.groups())),
    Rule("identifier", GLUED_CODE, _glued_code),
    Rule("device tag", DOTTED_TAG, lambda m: spell_code(m[0], _JOINTS)),
)
"""Read after the known fields (fields.py: MAC addresses, offsets, order numbers), before the
values with units."""
