"""Mandarin readings of units and values written as SCADA screens, HMIs and hand-typed alerts
write them, other than the rules expect (zh-front-9).

- After a number, a unit in capitals or in mixed case is the unit its letters spell, said as
  the unit: `1500RPM` → 一千五百转每分 (was 一千五百 R P M), `75KW` and `75Kw` → 七十五千瓦,
  `1.6MPA` and `1.6Mpa` → 一点六兆帕, `50HZ` and `50hz` → 五十赫兹, `35KV` → 三十五千伏,
  `1200KWH` → 一千二百千瓦时, `2.5MM` → 二点五毫米, `120M3/H` → 一百二十立方米每小时,
  `15L/MIN` → 十五升每分钟. Only spellings no other unit has are read so (`MW` stays
  megawatts, `mA` milliamperes; `MA` is left as written).
- Alternating current and direct current after volts: `380VAC` → 三百八十伏交流, `24VDC` →
  二十四伏直流.
- Conductivity per centimetre is siemens whatever the case of its S: `1250 us/cm` →
  一千二百五十微西门子每厘米 (was 微秒每厘米: no alert gives seconds per centimetre).
- A small o before C after a number is the degree sign, as typed without one: `85oC` →
  八十五摄氏度.
- Two to four capitals written onto a value with its unit or a percent sign name the value
  (a tag's letters: PV, SV, PT, RH), spelled, then the value whole: `PV1.25MPa` →
  P V 一点二五兆帕 (was P V 幺 零点二五兆帕), `RH65%` → R H 百分之六十五, `PV-5℃` →
  P V 零下五摄氏度 (the minus is the value's, not a tag's hyphen).
- Groups of three digits parted by plain spaces before a unit are one number:
  `12 500 kg` → 一万二千五百千克 (was 十二 五百千克).
- A stainless steel grade with its letter (304L, 316L, 316Ti, 310S) is a grade, digit by
  digit: `316L` → 三一六 L (was 三百一十六升).
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.zh.numbers import read_digits
from cosyedge.speech.zh.plant import CURRENCIES
from cosyedge.speech.zh.units import PATTERN as UNIT
from cosyedge.speech.zh.units import is_unit

# What a spelling is, by its letters in lower case: the symbol the unit rules know. SPELLING
# matches them in any case (lang.py keeps them with their number, in the phrase's language).
_SYMBOLS = {
    "mpa": "MPa",
    "kpa": "kPa",
    "kw": "kW",
    "kwh": "kWh",
    "kv": "kV",
    "kva": "kVA",
    "kvar": "kvar",
    "hz": "Hz",
    "khz": "kHz",
    "rpm": "rpm",
    "mm": "mm",
    "kg": "kg",
    "m3/h": "m³/h",
    "nm3/h": "Nm3/h",
    "t/h": "t/h",
    "l/min": "L/min",
    "l/h": "L/h",
    "us/cm": "µS/cm",
    "ms/cm": "mS/cm",
    "oc": "°C",
    "vac": "V交流",
    "vdc": "V直流",
}
SPELLING = "|".join(re.escape(s) for s in sorted(_SYMBOLS, key=len, reverse=True))
# After a number (not inside a tag or a code: PT101KW, 1AA0-0KG are left to their rules),
# before no letter or digit.
SPELLED_UNIT = rx.compile(
    rf"(?<![A-Za-z0-9.])(?<![A-Za-z0-9][-_/])(\d+(?:\.\d+)?\s?)({SPELLING})(?![A-Za-z0-9²³])",
    re.IGNORECASE,
)


# Spellings that are another unit's symbol yet always mean this one: seconds per centimetre
# are measured nowhere, siemens per centimetre everywhere water is.
_ALWAYS = ("us/cm", "ms/cm")


def _spelled_unit(m: re.Match[str]) -> str:
    """75KW → 75kW: the number as written, the unit as its symbol; a symbol of another unit
    (mPa: millipascals) left as written."""
    written = m[2]
    if is_unit(written) and written.lower() not in _ALWAYS:
        return m[0]
    return m[1] + _SYMBOLS[written.lower()]


# --- capitals written onto a value, digits grouped by spaces, steel grades ---------------------

# The value's end: a percent or degree sign, or a unit that is not one capital alone (a tag's
# suffix letter: PT-101A, FT305A are tags), ending the token (AA-0A-PLC is one name).
_VALUE_END = (
    rf"(?:[%％‰℃]|(?![A-Z](?![A-Za-z]))(?:{UNIT}|(?i:{SPELLING})))"
    r"(?![A-Za-z0-9²³]|[-_/.][A-Za-z0-9])"
)
# A currency's code before an amount is the money rule's (SGD1.00).
_CODES = "|".join(code for code in CURRENCIES if re.fullmatch("[A-Z]{3}", code))
NAMED_VALUE = rx.compile(
    rf"(?<![A-Za-z0-9._\-#])(?!(?:{_CODES})\d)([A-Z]{{2,4}})"
    rf"(?=[-−]?\d+(?:\.\d+)?\s?{_VALUE_END})"
)
SPACE_GROUPED = rx.compile(
    rf"(?<![\d.,])(\d{{1,3}}(?: \d{{3}})+)(?![\d.,])(?=\s?(?:{UNIT})(?![A-Za-z0-9²³]))"
)
# AISI stainless grades plants name in alerts, and the letters that follow them.
STEEL_GRADE = rx.compile(
    r"(?<![A-Za-z0-9.])(20[12]|30[1-59]|31[067]|321|347|41[06]|4[234]0)(LN|L|Ti|H|S)"
    r"(?![A-Za-z0-9])"
)

RULES = (
    Rule("steel grade", STEEL_GRADE, lambda m: f"{read_digits(m[1])} {m[2]} "),
    Rule("named value", NAMED_VALUE, lambda m: m[1] + " "),
    Rule("grouped number", SPACE_GROUPED, lambda m: m[1].replace(" ", ",")),
    Rule("unit", SPELLED_UNIT, _spelled_unit),
)
"""Read before the labels, tags and units: they then find the symbol."""
