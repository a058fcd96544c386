"""Mandarin readings of notations the other alert rules would split or misread (zh-front-7):
an offset written after UTC or GMT, European digit grouping, a range with its unit or its
currency at both ends, a unit raised to a negative power, a minus parted from its value by a
space, and a compact date after a word that says a date follows.

The choices made where a form is ambiguous:
- an offset touching `UTC` or `GMT` is the zone, said as a numeric offset after a time is
  (`08:30 UTC+8` → 八点三十分东八区, `14:00 UTC-5` → 十四点西五区, `UTC+05:30` →
  协调世界时加五小时三十分); an offset of nothing leaves the time in UTC (`08:30 UTC+0` as
  `08:30 UTC`: 协调世界时八点三十分); a dash after `UTC` with `UTC` again after the next time
  (`08:00 UTC-09:00 UTC`) is a range's;
- European grouping only where nothing else can be meant: dots grouping thousands before a
  decimal comma with two dot groups or more (`1.234.567,8`), or next to the euro sign or EUR
  (`€1.234,56`, `1.234,56 €`, `€5,50`); digits grouped by a no-break, narrow no-break or thin
  space (`1 234 567,5`, folded in `fold_grouping` before Unicode folding makes them spaces).
  `1.234,5kg` stays a list (一点二三四、五千克): a decimal comma is not guessed without a sign;
- a dash between a unit and a number is the range's (`-5°C-10°C` → 零下五摄氏度到十摄氏度, as
  `PT-101` and `5-10` have no minus); a second dash is the minus (`-5°C--10°C`);
- a minus a space parts from its number is one only right after a colon or an equals sign and
  before a value with a unit or a percentage, or a number ending the clause (`温度: - 5°C`,
  `= - 5 °C`); elsewhere a spaced dash may be a separator or a list's bullet and is left;
- an inch mark after a number is inches unless it closes a quotation (`管道2"` → 管道二英寸,
  `"2"` is a quoted two); a K after a temperature word is kelvin (`温度300K` → 温度三百开尔文),
  elsewhere a letter (`5K`);
- a date with its year last and slashes (`11/30/2026`, `日期2/3/2026`) is month first, as the
  pairs without a year are, unless the first cannot be a month (`30/11/2026`);
- eight digits are a date (`在20261130检修` → 在二零二六年十一月三十日检修) only when they are one
  (years 1970 to 2099, a day of that month) and a word before or after says a day is meant
  (the month and day words of plant.py); an order or serial number has no such word and
  keeps its reading.
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.symbols import Unit
from cosyedge.speech.zh import fields, plant
from cosyedge.speech.zh.joints import range_dash
from cosyedge.speech.zh.numbers import read_integer, read_number
from cosyedge.speech.zh.units import GRAMMAR, say_unit, unit_words
from cosyedge.speech.zh.units import PATTERN as UNIT

# As alertforms.py writes them (imported there from here would be circular).
_NUMBER = r"(?:(?<!\d)(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?)"
_SIGN = r"(?:(?<![A-Za-z0-9])[-−\u2013])?"
_UNIT_END = r"(?![A-Za-z0-9²³])"
# A value not inside a tag (PT-101A-102A) or another token: no letter, digit or dash before.
_ALONE = r"(?<![A-Za-z0-9._\-−\u2013])"
_CLOCK = r"\d{1,2}[:：]\d{2}(?:[:：]\d{2}(?:\.\d+)?)?"

# --- an offset written after UTC or GMT --------------------------------------------------------

UTC_OFFSET = rx.compile(
    rf"(?:(?<![\d.])({_CLOCK})\s?)?(?<![A-Za-z])(?:UTC|GMT)([+\-−])(\d{{1,2}})(?:[:：]?(\d{{2}}))?"
    r"(?!\d|[:：]\d|[A-Za-z])(?!\s?(?:UTC|GMT))"
)


def _utc_offset(m: re.Match[str]) -> str:
    """The time as written (the time rule reads it), then its zone as `fields.say_offset`
    says one; an offset of nothing is UTC, said before the time as the UTC rule says it."""
    time, sign, hours, minutes = m.groups()
    if not (int(hours) or int(minutes or 0)):
        return f"{time} UTC" if time else fields.UTC_WORD
    zone = fields.say_offset("+" if sign == "+" else "-", int(hours), int(minutes or 0))
    return m.group(0) if zone is None else (time or "") + zone


# --- European grouping -------------------------------------------------------------------------

_DOTTED_COMMA = r"\d{1,3}(?:\.\d{3})+,\d+"
_EURO_AMOUNT = rf"(?:{_DOTTED_COMMA}|\d+,\d{{2}}(?!\d))"
EUROPEAN = rx.compile(
    rf"(?<=€)\s?{_EURO_AMOUNT}(?![\d.,]\d)|(?<=EUR)\s?{_EURO_AMOUNT}(?![\d.,]\d)"
    rf"|(?<![\d.])(?<!\d,)(?:{_EURO_AMOUNT}(?=\s?(?:€|EUR(?![A-Za-z])))"
    rf"|\d{{1,3}}(?:\.\d{{3}}){{2,}},\d+(?![\d.,]\d))"
)
_SWAPPED = str.maketrans({".": ",", ",": ".", "\u00a0": ",", "\u202f": ",", "\u2009": ","})
_SPACE_GROUPED = rx.compile(
    r"(?<![\d.])(?<!\d,)\d{1,3}(?:[\u00a0\u202f\u2009]\d{3})+(?:,\d+)?(?!\d|[.,]\d)"
)


def _plain(written: str) -> str:
    """`1.234,56` → `1,234.56`: grouped as the other rules know a quantity to be (grouping is
    never an identifier's, however many its digits), the decimal comma a point."""
    return written.translate(_SWAPPED)


def fold_grouping(text: str) -> str:
    """Digits grouped by a no-break, narrow no-break or thin space written as one number
    (`1 234,5` → `1,234.5`): Unicode folding would make those spaces part two numbers."""
    return _SPACE_GROUPED.sub(lambda m: _plain(m.group(0)), text)


# --- ranges with the unit or the currency at both ends -----------------------------------------

_SHARES = {"ppm": "百万分之", "ppb": "十亿分之"}
_DASH = range_dash()
UNIT_RANGE = rx.compile(
    rf"{_ALONE}({_SIGN})(?<![\d.])({_NUMBER})\s*(?P<unit>{UNIT}){_UNIT_END}{_DASH}"
    rf"([-−\u2013]?)({_NUMBER})\s*(?P=unit){_UNIT_END}"
)


def _end(sign: str, number: str, unit: str) -> str:
    """One end with its unit: 零下 before degrees Celsius below zero, else 负."""
    words, share = say_unit(unit), _SHARES.get(unit)
    reading = read_number(number.replace(",", ""))
    said = share + reading if share else reading + words
    return ("零下" if words == "摄氏度" else "负") * bool(sign) + said


def _unit_range(m: re.Match[str]) -> str:
    """-5°C--10°C → 零下五摄氏度到零下十摄氏度: each end as it is written, 到 between."""
    unit = m.group("unit")
    return f"{_end(m[1], m[2], unit)}到{_end(m[4], m[5], unit)}"


_AMOUNT = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_MAGNITUDE = plant.MAGNITUDE
MONEY_RANGE = rx.compile(
    rf"(?<![A-Za-z0-9.])([$€£¥])\s?({_AMOUNT})({_MAGNITUDE})?{_DASH}(\1)?\s?({_AMOUNT})"
    rf"({_MAGNITUDE})?(?!\d|[.,]\d|[A-Za-z%])"
)


def _money_range(m: re.Match[str]) -> str:
    """$5-$10 → 五美元到十美元, $5-10 → 五到十美元 (the currency said where it is written),
    $1.5M-$2M → 一百五十万美元到两百万美元 (each end with its magnitude)."""
    mark, low, low_size, again, high, high_size = m.groups()
    word = plant.CURRENCIES[mark]
    said = plant.say_sum(low, low_size) + (word if again else "")
    return f"{said}到{plant.say_sum(high, high_size)}{word}"


# --- a unit raised to a negative power: m⁻¹, kg·m⁻³ --------------------------------------------

# normalize.py writes a superscript power after a letter with a caret before Unicode folding
# (m⁻¹ → m^-1), so the minus is not taken for a hyphen.
_LETTERS = r"[A-Za-zµμΩ°]+"
_TERM = rf"{_LETTERS}(?:\^-\d|\d)?"
_PRODUCT = r"[·⋅*]"
NEGATIVE_POWER = rx.compile(
    rf"(?:{_ALONE}({_SIGN})(?<![\d.])({_NUMBER})\s*|(?<![A-Za-z0-9^.]))"
    rf"((?:{_TERM}{_PRODUCT})*{_LETTERS}\^-\d(?:{_PRODUCT}{_TERM})*)(?![A-Za-z0-9^])"
)


def _negative_unit(written: str) -> Unit | None:
    """kg·m^-3 → kg per cubic metre: the terms with a negative power below the line."""
    above, below = [], []
    for term in re.split(_PRODUCT, written):
        base, caret, power = term.partition("^-")
        if caret:
            below.append(GRAMMAR.below.get(base + ("" if power == "1" else power)))
        else:
            above.append(GRAMMAR.above.get(term))
    if None in above or None in below:
        return None
    return Unit(tuple(above), tuple(below))


def _negative_power(m: re.Match[str]) -> str:
    """5m^-1 → 五每米, kg·m^-3 → 千克每立方米; letters that are no unit keep their power said
    (x^-1 → X的负一次方)."""
    sign, number, written = m.groups()
    unit = _negative_unit(written)
    if unit is None:
        said = re.sub(r"\^-(\d)", lambda p: f"的负{read_integer(int(p[1]))}次方", written)
    else:
        said = unit_words(unit)
    head = "负" * bool(sign) + read_number(number.replace(",", "")) if number else ""
    return head + said


# --- a minus parted from its value by a space ------------------------------------------------

SPACED_MINUS = rx.compile(
    rf"(?<=[:：=])(\s*)[-−\u2013]\s+(?=\d+(?:\.\d+)?\s*(?:(?:{UNIT}){_UNIT_END}|[%％]"
    r"|\s*(?:$|[，。；,;!！?？])))"
)

# --- a compact date after a word that says a date follows ------------------------------------

COMPACT_DATE = rx.compile(
    rf"(?:({plant.DATE_CUES})\s*[:：]?\s*)?(?<![\dA-Za-z.#/-])"
    rf"(19[7-9]\d|20\d\d)(\d\d)(\d\d)(?![\dA-Za-z#]|[./-]\d)(?=({plant.AFTER_DATE}))?"
)


def _compact_date(m: re.Match[str]) -> str:
    """在20261130检修 → 在二零二六年十一月三十日检修: a date only with a word that says one, and
    only a day of the calendar; otherwise the digits are left to the number rules."""
    cue, year, month, day, after = m.groups()
    said = fields.say_date(year, month, day) if cue or after else None
    if said is None:
        return m.group(0)
    return m.group(0)[: m.start(2) - m.start()] + said


# --- inch marks and kelvin ---------------------------------------------------------------------

# A size in inches: a number and an inch mark that closes no quotation (`管道2"`, not `"2"`).
INCHES = rx.compile(r'(?<![\d./\u2044A-Za-z])(\d+(?:\.\d+)?)"(?![\d"])')


def _inches(m: re.Match[str]) -> str:
    """管道2" → 管道二英寸; inside a quotation (an odd number of marks before it that are no
    inch marks, none after a digit) the mark closes it (`"2"`): as written."""
    if len(re.findall(r'(?<!\d)"', m.string[: m.start()])) % 2:
        return m.group(0)
    return read_number(m.group(1)) + "英寸"


# A K after a temperature word is kelvin (温度300K); elsewhere `5K` is a number and a letter.
KELVIN = rx.compile(
    r"((?:温度|温升|低温|高温|热力学温度)\s*(?:[:：=]|为|是)?\s*)(\d+(?:\.\d+)?)\s?K(?![A-Za-z0-9])"
)

# --- a date with its year last: 11/30/2026 -----------------------------------------------------

YEAR_LAST = rx.compile(r"(?<![\d./A-Za-z])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/]|\.\d)")


def _year_last(m: re.Match[str]) -> str:
    """11/30/2026 → 二零二六年十一月三十日: month first, as the pairs without a year are read,
    unless the first cannot be a month (30/11/2026); no day of the calendar is said as written,
    斜杠 between (never a date, nor raw slashes)."""
    first, second, year = m.groups()
    a, b = int(first), int(second)
    month, day = (b, a) if a > 12 >= b else (a, b)
    said = fields.say_date(year, str(month), str(day))
    if said is None:
        return "斜杠".join(read_number(part) for part in m.groups())
    return said


RULES = (
    Rule("date", YEAR_LAST, _year_last),
    Rule("time zone offset", UTC_OFFSET, _utc_offset),
    Rule("European grouping", EUROPEAN, lambda m: _plain(m.group(0).strip())),
    Rule("minus", SPACED_MINUS, lambda m: m.group(1) + "-"),
    Rule("date", COMPACT_DATE, _compact_date),
    Rule("range", MONEY_RANGE, _money_range),
)
"""Read before every other rule of the alert pre-pass."""

UNIT_RULES = (
    Rule("unit", INCHES, _inches),
    Rule("unit", KELVIN, lambda m: m[1] + read_number(m[2]) + "开尔文"),
    Rule("range", UNIT_RANGE, _unit_range),
    Rule("unit", NEGATIVE_POWER, _negative_power),
)
"""Read after the fields (durations, MAC addresses, telephone numbers), before the tags."""
