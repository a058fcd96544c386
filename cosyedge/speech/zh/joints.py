"""Mandarin readings of the mark between two numbers where the number rules would hear a sign,
"about" or nothing (zh-front-9).

- A dash, a tilde or an em dash between two numbers that each have a Chinese unit or measure
  word written after them (度, 米, 元, 万元, 台, 号, 点, 月, 日, 年, 楼, ...) is a range's, 到:
  `5度-10度` → 五度到十度 (was 五度负十度), `5度~10度` (was 五度约十度), `8点~17点` → 八点到十七点,
  `2026年11月30日-12月2日` → …三十日到十二月二日, `5公斤-10kg` → 五公斤到十千克; a weekday to a
  weekday too: `周一-周五` → 周一到周五. The ends keep their own readings (a date, a sign). A
  machine's or a place's label (`3号机-2号泵`, `北区-3`) has no such word right before the dash
  and keeps its 杠.
"""

from __future__ import annotations

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.zh.units import PATTERN as UNIT

# Chinese units and measure words a value or a count is written with, longer words first so
# one is taken whole (摄氏度 before 度, 号线 before 号).
WORD = (
    r"摄氏度|华氏度"
    r"|小时|分钟|秒钟|千米|公里|厘米|毫米|万元|亿元|美元|千瓦|公斤|千克|号线|千伏|兆帕|千帕|赫兹"
    r"|度|天|秒|米|元|瓦|吨|克|斤|升|号|台|套|组|个|次|倍|人|月|日|年|周|点|层|楼|万|亿|千|百|伏|安|转|帕|分"
)

# Words that name a value: a number after them is a quantity (a minus its sign, a dotted
# number its decimals), whatever else it could be.
VALUE_NOUNS = r"温度|温差|偏差|误差|差值|差压|压差|压力|流量|液位|电压|电流|功率|频率|转速|速度"
VALUE_NOUNS += r"|补偿|修正|读数|数值|设定值|实际值|值"
VALUE_WORDS = VALUE_NOUNS + r"|为|是|到|至"


def range_dash(dashes: str = "-\u2013") -> str:
    """The pattern of a range's mark between two ends: a tilde however spaced, one of `dashes`
    written onto the first end or spaced on both sides. A dash with a space before it and none
    after (`罐3 -5℃`, `-5℃ -7℃`) is the next value's minus, not a range (as English reads it):
    read as one, the sign was lost."""
    return rf"(?:\s*[~～]\s*|[{dashes}]\s*|\s+[{dashes}]\s+)"


_DASH = range_dash("-\u2013\u2014")
_VALUE = r"\d+(?:\.\d+)?"
# The end after the dash: a number (its own sign perhaps) and a Chinese word or a unit.
_HIGH_END = rf"(?=[-−]?{_VALUE}\s*(?:{WORD}|(?:{UNIT})(?![A-Za-z0-9²³])))"
# The end before it: a number and a Chinese word, not an amount after a currency's mark
# (¥100万-200万 is the money range's, its currency said once).
_LOW_END = rf"(?<![\d.$€£¥₩₹])(?<![$€£¥₩₹]\s)({_VALUE}(?:{WORD}))"
WORDED_RANGE = rx.compile(rf"{_LOW_END}{_DASH}{_HIGH_END}")
_WEEKDAY = r"(?:周|星期)[一二三四五六日天]"
WEEKDAY_RANGE = rx.compile(rf"({_WEEKDAY}){_DASH}(?={_WEEKDAY})")

RULES = (
    Rule("range", WORDED_RANGE, lambda m: m[1] + "到"),
    Rule("range", WEEKDAY_RANGE, lambda m: m[1] + "到"),
)
"""Read before every other rule of the alert pre-pass: the label, sign and "about" rules
would take the dash."""
