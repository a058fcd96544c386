"""Mandarin readings that keep two values apart and say what a value is, where the other
rules ran them together or read a letter (zh-front-11):

- a MAC address after a word and a colon is read as the address it is, pair by pair
  (`MAC:00:1B:44:11:3A:B7`, the colon full-width or not; it was clock times and 三安, amperes);
- a supply written with its current's letters before the value is the supply: `DC24V` →
  直流二十四伏, `AC 380V` → 交流三百八十伏 (read as a tag it was D C 二四 V);
- a label's number and a value after a space are parted by a pause: `罐10 2.35m` →
  罐十, 二点三五米 (a full-width comma; heard 罐 十二点三五米);
- a slash left between two values is said, 斜杠, as the other slash pairs are (`50/52℃` →
  五十斜杠五十二摄氏度): an operator reads the two values written, and 到 or 或 would say a
  range or a choice the text does not;
- a code written letters, a dot, digits (a drive's `AL.21`, `Err.05`) is spelled and its
  digits read one by one, as a fault code is: A L 二幺;
- a `C` after a temperature tag's or word's value is Celsius: `TT-101=85C` → …八十五摄氏度;
  a tag's value is parted from it by a sign, a word or a space, so a number and a C written
  onto its digits are its own (zh-front-12): `TA-00C-PLC` → T A 杠 零零 C 杠 P L C;
- `M` after a level's, a height's or a distance's value is metres: `液位2.5M` → 液位二点五米;
- a leading zero of a month, a day or an hour is not said: `12月02日` → 十二月二日, `08时05分`
  → 八时零五分 (minutes and seconds keep theirs, as a clock's are said); a clock time
  written onto a weekday is parted from it: `星期三14:00` → 星期三, 十四点 (it was heard
  星期 三十四点);
- two hours, minutes or seconds are 两: `每2h巡检` → 每两小时巡检;
- 元 after an amount a currency's sign has already named is not said twice: `$3,713元` →
  三千七百一十三美元.
"""

from __future__ import annotations

from cosyedge.speech import rx
from cosyedge.speech.text.fields import MAC_FORM
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.zh.numbers import read_digits
from cosyedge.speech.zh.plant import LABEL_WORDS
from cosyedge.speech.zh.units import PATTERN as UNIT

# A MAC address after a word and a colon, full-width or not (`MAC：00:1B:44:11:3A:B7`): the
# colon written onto the word hid the address from its rule, which then read clock times and
# amperes (三安); not a pair of a longer run (`AC:DE:48:00:11:22:33`). A space after the colon
# gives the address back to its rule.
MAC_AFTER_WORD = rx.compile(
    rf"(?<=[A-Za-z\u4e00-\u9fff])(?<!(?<![A-Za-z0-9])[0-9A-Fa-f]{{2}})([:：])(?=(?:{MAC_FORM})(?![A-Za-z0-9]|[:.-][A-Za-z0-9]))"
)
SUPPLY = rx.compile(r"(?<![A-Za-z0-9])(AC|DC|ac|dc)\s?(?=\d+(?:\.\d+)?\s?[kmM]?V(?![A-Za-z0-9]))")
_SUPPLY_WORDS = {"ac": "交流", "dc": "直流"}

# A label's number before a space and a value: a decimal, a number with its unit or a minus
# written onto it (not
# groups of a telephone number, `热线 400 820 8820`, nor a mixed fraction, `2 1/2`).
_VALUE = rf"(?:[-−]\d|[-+−]?(?:\d*\.\d|\d+\s?(?:[%％℃°]|(?:{UNIT})(?![A-Za-z0-9²³]))))"
LABEL_THEN_VALUE = rx.compile(rf"(?<=[{LABEL_WORDS}])([1-9]\d{{0,3}})[ \t]+(?={_VALUE})")

# Letters, a dot, digits: a drive's or controller's code. No./NO. is a number sign.
DOTTED_CODE = rx.compile(
    r"(?<![A-Za-z0-9.])(?!No\.|NO\.|no\.)([A-Z]{1,4}|Err|Er|Alm|Al)\.(\d{1,4})(?![\d.]|[A-Za-z])"
)

# A temperature tag is parted from its value by a sign, a word or a space (`TT-101=85C`,
# `TT-101 85C`), as the English reading asks: its digits run to its end, so a number and a C
# written onto them (`TA-00C-PLC`, `TE-12C`, `TT-101-5C`) are the tag's own code, no value.
# Unparted, the digits split anywhere: TA-0 and a value of 0 degrees (T A 杠 零零 摄氏度).
_TAG = r"(?<![A-Za-z0-9])T[A-Z]{0,3}-?\d+[A-Z]?(?=\s|[=:：]|为|是)"
_TEMPERATURE = rf"{_TAG}|油温|水温|温度|温"
CELSIUS_C = rx.compile(
    rf"((?:{_TEMPERATURE})\s*(?:[=:：]|为|是)?\s*[-+−]?\d+(?:\.\d+)?)\s?C(?![A-Za-z0-9])"
)

_LENGTH = r"液位|水位|料位|液面|高度|深度|长度|距离|行程|位移"
METRES_M = rx.compile(
    rf"((?:{_LENGTH})\s*(?:[=:：]|为|是)?\s*[-+−]?\d+(?:\.\d+)?)\s?M(?![A-Za-z0-9])"
)

# Minutes and seconds keep theirs: 零五分, as a clock's minutes are said (十四点零五分).
LEADING_ZERO = rx.compile(r"(?<![\d./])0+(?=[1-9](?:月|日|时))")
WEEKDAY_CLOCK = rx.compile(r"((?:星期|周|礼拜)[一二三四五六日天])(?=\d{1,2}[:：]\d{2})")

# Two of a time unit alone (`每2h`, `2 min`): not a part of a compact duration (`0d 0h 2s`,
# `2h 0m`, read whole by its rule), a product or a quotient (`2min-min`, `2s/m`).
_TWO_UNITS = {"h": "小时", "hr": "小时", "hrs": "小时", "min": "分钟", "mins": "分钟"}
_TWO_UNITS |= {"s": "秒", "sec": "秒", "secs": "秒"}
TWO_OF_TIME = rx.compile(
    r"(?<![\dA-Za-z.,+\-−:])(?<![A-Za-z]\s)2\s?(hrs?|h|mins?|secs?|s)"
    r"(?![A-Za-z0-9²³/·⋅*^\-]|\s?\d)"
)

FIRST = (
    Rule("MAC address", MAC_AFTER_WORD, lambda m: m[1] + " "),
    Rule("supply", SUPPLY, lambda m: _SUPPLY_WORDS[m[1].lower()]),
    Rule("label and value", LABEL_THEN_VALUE, lambda m: m[1] + "，"),
    Rule("code", DOTTED_CODE, lambda m: _spelled(m[1]) + read_digits(m[2], one="幺") + " "),
    Rule("unit", CELSIUS_C, lambda m: m[1] + "°C"),
    Rule("unit", METRES_M, lambda m: m[1] + "m"),
    Rule("date", LEADING_ZERO, lambda m: ""),
    Rule("weekday and time", WEEKDAY_CLOCK, lambda m: m[1] + "，"),
    Rule("unit", TWO_OF_TIME, lambda m: "两" + _TWO_UNITS[m[1]]),
)
"""Read before every other rule of the alert pre-pass: the tag, number and unit rules would
read these forms first."""

# What a value's reading ends with and starts with, once the number rules have read it.
_NUMERAL = "负零一二三四五六七八九十两幺"
LAST = (
    Rule(
        "slash between values",
        rx.compile(rf"(?<=[\u4e00-\u9fff])\s*/\s*(?=[{_NUMERAL}])"),
        lambda m: "斜杠",
    ),
    Rule("money", rx.compile(r"(?<=[美欧日港澳台]元)元|(?<=英镑)元"), lambda m: ""),
)
"""Read after the pre-pass: a slash between two values read, 元 after a currency's name."""


def _spelled(letters: str) -> str:
    """E R R: a code's letters one by one, as capitals."""
    return " " + " ".join(letters.upper()) + " "
