"""Mandarin readings of labels and values the number rules would misread (zh-front-8).

- A hyphen between a place or equipment word and a number joins a label, never a sign:
  `北区-3` → 北区杠三, `3号机-2号泵` → 三号机杠二号泵 (was 北区负三); between two numbered units a
  range: `3号-5号泵` → 三号到五号泵. A number with a unit after it is still a value (`北区-3℃`).
- A number with the letter A written onto it, right before a machine or place word or a list's
  next label, is a label (A/B redundant pumps), not amperes: `2A泵` → 二 A 泵, `1A、1B泵` →
  一 A、一 B 泵; before any other word (保险丝, 开关, 报警) or at a range's end it stays amperes:
  `5A保险丝` → 五安保险丝, `0~5A报警`.
- A time with seconds after a word that says how long (时长, 持续时间, 用时, 耗时, 历时; and
  倒计时, 剩余时间, 超时, 已运行, 剩余, 运行时间, 等待, 累计 in zh-front-9; any with more than 24
  hours, whatever word is before it) is a duration, as compact durations are said:
  `运行时长02:15:00` → 运行时长两小时十五分钟 (was 二点十五分, a time of day),
  `耗时00:45:10` → 耗时四十五分十秒.
- A day, a month and a year with dots is a date, day first as dotted dates are written:
  `30.11.2026` → 二零二六年十一月三十日 (was 三十点十一点两千零二十六). A month and a day of two
  digits each joined by a hyphen are a date where a slash pair would be (after a date word,
  before a word that says a day or before a time): `日期11-30` → 日期十一月三十日, `计划12-05停机`,
  `12-01 08:00` (a range otherwise: `11-30` → 十一到三十).
- Two groups of three digits or more after dots are thousands (European grouping): `1.234.567`
  → 一百二十三万四千五百六十七, `1.234.567kg` with its unit (was 一点两百三十四点五百六十七 K G).
  Four groups that could be an IPv4 address stay one, and a letter before makes a version.
- Capitals and a decimal written onto them (a PLC bit address, an analog channel, PM2.5) are
  one address: the letters spelled, the number whole, `%` before them 百分号 (IEC 61131-3):
  `AI1.5` → A I 一点五, `%IX0.1` → 百分号 I X 零点一, `PM2.5` → P M 二点五 (was P M 二 零点五),
  `DB10.DBX2.3` → D B 幺零 点 D B X 二点三 (the data block's number as a tag's digits).
- 零下 and 负 said once and alike: a minus after 零下 is not said again (`零下-5℃` → 零下五摄氏度);
  a difference of temperatures is 负, never 零下 (`偏差-3℃` → 偏差负三摄氏度); both ends of a range
  joined by 至 or 到 as a dash joins them (`-5到-10℃` → 零下五到零下十摄氏度).
- A Roman numeral in capital letters right before a counting word (段, 期, 号, 类, 级, ...) is a
  number, as the Roman numeral characters are: `II段母线` → 二段母线, `IV号线` → 四号线 (a lone
  V or X may be a letter, and stays one).
- A binary literal is said as hexadecimal is, its digits one by one: `0b1011` → 二进制幺零幺幺
  (was 零 B 一千零一十一, a decimal number invented).
- A time of the twelve-hour clock with AM or PM after it is said with the part of the day
  before it, as Chinese says it: `9:30 AM` → 上午九点三十分, `2:05 PM` → 下午两点零五分,
  `12:00 PM` → 中午十二点, `8:00 PM` → 晚上八点 (was 八点 P M), `12:30 AM` → 凌晨零点三十分.
- Two alone before a measure word is 两: `2个人` → 两个人, `2倍` → 两倍, `2千克` → 两千克 (第2次
  is an ordinal: 第二次). A whole number, a hyphen and a fraction before an inch mark are a
  mixed number (ANSI pipe sizes): `1-1/2"` → 一又二分之一英寸 (was 一杠二分之一).
- A tag, a formula or a label that ends in digits, then a spaced value, is parted from it by
  a pause, a full-width comma: `PT101 5bar` → P T 幺零幺 then 五巴, `T1 85℃` → T 一 then
  八十五摄氏度 (said without it, the digits of the two run together: 幺零幺五, heard as
  1015). Not an offset (UTC-8 5), not a quarter before its year (Q3 2026), not a unit with a
  power after a number (5 m3 10).
"""

from __future__ import annotations

import calendar
import re

from cosyedge.speech.text.pauses import pause_after_name
from cosyedge.speech.text.spans import Rule, rule
from cosyedge.speech.zh.fields import say_duration
from cosyedge.speech.zh.joints import VALUE_NOUNS, WORD, range_dash
from cosyedge.speech.zh.numbers import read_cardinal, read_digits, read_integer, read_number
from cosyedge.speech.zh.plant import AFTER_DATE, DATE_CUES
from cosyedge.speech.zh.units import PATTERN as UNIT
from cosyedge.speech.zh.units import say_unit

# Words that end a place's or a machine's name: 北区, 3号机, 2期, 1号炉, A线.
LABEL_ENDS = "区号机泵期线段楼层室站库厂车柜箱台组列排座栋房池罐塔炉桥门井路阀釜仓架轴"
# A number with a unit or a percent sign after it, or a range of them, is a value: its minus
# is one.
_VALUE_AFTER = (
    rf"\d+(?:\.\d+)?(?:{range_dash()}-?\d+(?:\.\d+)?)?\s*"
    rf"(?:(?:{UNIT})(?![A-Za-z0-9²³])|[%％‰℃])"
)

# Words an ampere rating goes before: a fuse, a switch, a socket, a current, a load.
_RATED = "保险|熔|空开|断路|开关|插座|继电|接触器|电流|电源|负载|负荷|额定|充电"
_RATED += "|以|左右|的|过|时|档|及"
# The machine and place words a label goes before (anything else after 5A, 离线 or 报警, may
# follow a current: `0~5A报警`).
LABELLED = (
    "泵|区|电机|皮带|风机|线|机组|机|炉|罐|阀|段|柜|站|车间|仓|池|塔|槽|箱|回路|侧|单元|工位|楼|层"
)
# A list's next label: another letter (1A、1B), or A again where the list of them ends before a
# machine or place word (2A、3A泵); a list of A's before nothing such is of currents (zh-front-9:
# `3A/5A` was 三 A then 五安, the first heard as a letter).
_LIST = r"\s*[、,，/和]\s*\d{1,4}"
_NEXT_LABEL = rf"{_LIST}(?:[B-Z](?![A-Za-z0-9])|A(?:{_LIST}A)*(?:{LABELLED}))"
_LETTER_LABEL = (
    r"(?:(?<=\d[A-Z]/)|(?<![A-Za-z0-9.#/_~～\u2013到至-]))(\d{1,4})A"
    rf"(?=(?!{_RATED})(?:{LABELLED})|{_NEXT_LABEL})"
)


def _letter_label(m: re.Match[str]) -> str:
    """2A泵 → 二 A (泵): the number as a label's, the letter spelled."""
    number = m[1]
    said = read_digits(number) if number.startswith("0") and len(number) > 1 else number
    return (said if said != number else read_integer(int(number))) + " A "


# A countdown, what is left and a timeout are durations too (zh-front-9: `倒计时00:05:00` was
# 零点零五分, a time of day); so is how long a machine has run or waited, in total or so far
# (`已运行00:05:30` was 零点零五分三十秒).
DURATION_WORDS = ("持续时间", "时长", "持续", "用时", "耗时", "历时", "倒计时", "剩余时间", "超时")
DURATION_WORDS += ("剩余", "已运行", "运行时间", "累计运行", "累计", "等待时间", "等待", "已等待")
# Longer words first: 剩余时间 is taken whole, not 剩余 and a time.
_DURATION_WORD = "|".join(sorted(DURATION_WORDS, key=len, reverse=True))
_DURATION = (
    rf"({_DURATION_WORD})(\s*(?:[:：=]|为|是|约)?\s*)"
    r"(?<!\d)(\d{1,5})[:：](\d{2})[:：](\d{2})(?!\d|[:：.]\d)"
)
# Hours, minutes and seconds with more hours than a day has are a duration, whatever word
# comes before (`100:00:00` was 一百 零零 零零): no clock shows them.
_LONG_DURATION = (
    r"(?<![A-Za-z0-9.])(?<![A-Za-z0-9][:：])()()(\d{2,5})[:：](\d{2})[:：](\d{2})"
    r"(?![A-Za-z0-9]|[:：.][A-Za-z0-9])"
)

# After a word of an event that lasts (停机, 停运, 故障, 离线, ...), hours written with one digit
# or as 00 are how long it lasted (`停机1:30:00` was 停机一点三十分, a time of day); two digits
# from 01 are what a clock writes (停机08:30:00: when it stopped), left a time.
# Not after a colon: `报警：00:00:00` is a heading, then a time (报警 is no such word either).
EVENT_WORDS = r"停机|停运|停车|停产|停电|断电|断线|中断|离线|掉线|故障|运行|持续"
_EVENT_DURATION = (
    rf"({EVENT_WORDS})(\s*(?:了|约)?\s*)"
    r"(?<!\d)(\d|00)[:：](\d{2})[:：](\d{2})(?!\d|[:：.]\d)"
)


def _duration(m: re.Match[str]) -> str:
    """运行时长02:15:00 → 运行时长两小时十五分钟; minutes or seconds of 60 or more: no duration;
    without a word before it, 24 hours or fewer: a time of day, left to the time rule."""
    hours, minutes, seconds = m.group(3, 4, 5)
    if int(minutes) >= 60 or int(seconds) >= 60 or not (m[1] or int(hours) > 24):
        return m[0]
    parts = [(hours, "h"), (minutes, "m"), (seconds, "s")]
    return m[1] + m[2] + say_duration(parts)


def _say_date(year: str, month: int, day: int) -> str:
    return f"{read_digits(year)}年{read_integer(month)}月{read_integer(day)}日"


_DOTTED_DATE = r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4})(?!\d|\.\d)"

# A year of today's alerts and a month of two digits with a dot (2026.11) are a month, where no
# value or version word is before it and no unit after it (流量2026.11, 版本2026.11 and
# 2026.11元 stay decimals; 3.11 is always one).
_YEAR_MONTH = (
    rf"(?:({VALUE_NOUNS}|版本号?|固件|软件)(\s*(?:[:：=]|为|是)?\s*))?"
    r"(?<![\d.A-Za-z$€£¥￥₩₹+\-−])(?<![A-Za-z]\s)((?:19|20)\d\d)\.(0[1-9]|1[0-2])(?!\d|\.\d|\s*[A-Za-z%％‰℃°])"
    rf"(?!\s*(?:{WORD}))"
)


def _year_month(m: re.Match[str]) -> str:
    """2026.11 → 二零二六年十一月; after a value or version word: as written."""
    if m[1]:
        return m[0]
    return f"{read_digits(m[3])}年{read_integer(int(m[4]))}月"


def _dotted_date(m: re.Match[str]) -> str:
    """30.11.2026 → 二零二六年十一月三十日; a day no month has: no date."""
    day, month, year = int(m[1]), int(m[2]), m[3]
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(int(year), month)[1]):
        return m[0]
    return _say_date(year, month, day)


# Cues that name a date before two digits each side, but may as well come before a range.
_LOOSE_CUES = ("从", "自", "至", "在")
_DASHED_MONTH_DAY = (
    rf"(?:({DATE_CUES})\s*[:：]?\s*)?(?<![A-Za-z0-9./-])(?<!\d:)(\d{{2}})-(\d{{2}})(?!\d|[./:-]\d)"
    rf"(?=(\s*\d{{1,2}}[:：]\d\d))?(?=({AFTER_DATE}))?(日)?"
)


def _dashed_month_day(m: re.Match[str]) -> str:
    """日期11-30, 11-30检修, 12-01 08:00 → 十一月三十日; without a cue a range, as before."""
    cue, first, second, time, after, _ = m.groups()
    if not (time or after or (cue and cue not in _LOOSE_CUES)):
        return m[0]
    month, day = int(first), int(second)
    if not (
        1 <= month <= 12 and 1 <= day <= (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]
    ):
        return m[0]
    head = m[0][: m.start(2) - m.start()] if cue else ""
    return head + f"{read_integer(month)}月{read_integer(day)}日"


_DOT_GROUPED = (
    r"(?<![A-Za-z0-9.])([1-9]\d{0,2}(?:\.\d{3}){2,})(?!\d|[.,]\d)"
    rf"(?:\s*({UNIT})(?![A-Za-z0-9²³]))?"
)


def _dot_grouped(m: re.Match[str]) -> str:
    """1.234.567kg → 一百二十三万四千五百六十七千克 (grouped: a quantity, however long); an IPv4
    address left as it is."""
    groups = m[1].split(".")
    if len(groups) == 4 and all(int(g) <= 255 for g in groups):
        return m[0]
    return read_cardinal("".join(groups)) + say_unit(m[2] or "")


_ADDRESS = (
    r"(?<![A-Za-z0-9.%])(%?)(?:([A-Z]{1,4})(\d+)\.(?=[A-Z]))?([A-Z]{1,4})(\d+\.\d+)"
    r"(?![A-Za-z0-9]|\.\d)"
)


def _address(m: re.Match[str]) -> str:
    """%IX0.1 → 百分号 I X 零点一; DB10.DBX2.3 → D B 幺零 点 D B X 二点三."""
    percent, block, number, letters, bit = m.groups()
    said = "百分号" if percent else ""
    if block:
        said += f" {' '.join(block)} {read_digits(number, one='幺')} 点"
    return said + f" {' '.join(letters)} {read_number(bit)}"


_SIGN = "[-\u2212\u2013]"
# Words that name a difference or a change of temperature: below zero is no place for it.
DIFFERENCES = "偏差|温差|误差|差值|变化量|变化|温升|温降|漂移|降幅|升幅|修正|补偿"
# A minus a space parts from its value is the spaced minus's (notation.py), read as before.
_DIFFERENCE = rf"({DIFFERENCES})(\s*(?:[:：=]|为)?\s*){_SIGN}(\d+(?:\.\d+)?)\s*°C(?![A-Za-z0-9])"
_WORDED_RANGE = (
    rf"({_SIGN}\d+(?:\.\d+)?)\s*(?:至|到)\s*(?={_SIGN}?\d+(?:\.\d+)?\s*°C(?![A-Za-z0-9]))"
)


_ROMAN_VALUES = {"I": 1, "II": 2, "III": 3, "IV": 4, "VI": 6, "VII": 7, "VIII": 8, "IX": 9}
_ROMAN_VALUES |= {"XI": 11, "XII": 12}
COUNTED = "段|期|号|类|级|区|回|组|母线|线|单元|工段|机组|标段"
_LETTER_ROMAN = (
    rf"(?<![A-Za-z0-9])({'|'.join(sorted(_ROMAN_VALUES, key=len, reverse=True))})(?={COUNTED})"
)


# Not after 16# (16#0B0 is an IEC hexadecimal literal).
_BINARY = r"(?<![A-Za-z0-9.#])0[bB]([01]+)(?![A-Za-z0-9]|\.\d)"


# The minutes may be left out: 8pm is 晚上八点.
_TWELVE_HOUR = r"(?<!\d)(?<!\d[:.])(\d{1,2})(?:[:：](\d{2}))?\s*([AaPp])\.?[Mm]\.?(?![A-Za-z0-9])"


def _inside_a_code(m: re.Match[str]) -> bool:
    """Whether an hour without minutes is written onto a code (1AA0-1AM): a letter, a digit
    or a joint right before it."""
    before = m.string[m.start() - 1 : m.start()]
    return bool(re.fullmatch(r"[A-Za-z0-9_/-]", before))


def _twelve_hour(m: re.Match[str]) -> str:
    """2:05 PM → 下午两点零五分; an hour that is no hour of a twelve-hour clock: as written."""
    hour, minute = int(m[1]), int(m[2] or 0)
    if not (1 <= hour <= 12 and minute < 60) or (m[2] is None and _inside_a_code(m)):
        return m[0]
    if m[3] in "Aa":
        part = "凌晨" if hour == 12 else "上午"
    else:
        part = "中午" if hour == 12 else "下午" if hour < 6 else "晚上"
    said = part + ("两" if hour == 2 else "零" if part == "凌晨" else read_integer(hour)) + "点"
    if minute:
        said += ("零" if minute < 10 else "") + read_integer(minute) + "分"
    return said


MEASURE_WORDS = (
    "个|倍|次|台|件|位|名|人|天|小时|分钟|秒钟|秒|周|条|根|只|把|套|块|张|辆|批|项|处|种"
)
MEASURE_WORDS += "|千米|千克|公里|公斤|吨"
# Containers and rounds are counted too (2桶, 2颗, 2遍); 层, 路, 组, 段, 级 and 号 are not here:
# 2层 and 2组 name the second floor or team as often as they count two.
MEASURE_WORDS += "|桶|颗|粒|袋|瓶|份|双|对|圈|遍|趟|轮|盘|卷|捆|扇"
_TWO = rf"(?<![\d./\u2044第\-−–$¥￥€£])(?<!\d[:,])2(?=(?:{MEASURE_WORDS}))"
_MIXED_INCHES = r"(?<![\d./-])(\d+)-(?=\d+/\d+(?:\"|英寸|寸))"


# A name right after Chinese, a space or punctuation (English's may not follow a word
# character, and every Chinese character is one); not a time's minutes (12:30 5).
_PAUSE_AFTER_NAME = pause_after_name(r"(?<![A-Za-z0-9./+\-#_])(?<!\d:)", "，")


RULES: tuple[Rule, ...] = (
    _PAUSE_AFTER_NAME,
    rule("count", _TWO, "两"),
    rule("fraction", _MIXED_INCHES, r"\1 "),
    rule("time", _TWELVE_HOUR, _twelve_hour),
    rule("binary", _BINARY, lambda m: "二进制" + read_digits(m[1], one="幺")),
    rule("Roman numeral", _LETTER_ROMAN, lambda m: read_integer(_ROMAN_VALUES[m[1]])),
    rule("sign", rf"(?<=零下)\s*{_SIGN}(?=\d)", ""),
    rule(
        "sign",
        _DIFFERENCE,
        lambda m: f"{m[1]}{m[2]}负{read_number(m[3])}摄氏度",
    ),
    rule("range", _WORDED_RANGE, lambda m: f"{m[1]}~"),
    rule("PLC address", _ADDRESS, _address),
    rule("European grouping", _DOT_GROUPED, _dot_grouped),
    rule("date", _DOTTED_DATE, _dotted_date),
    rule("date", _YEAR_MONTH, _year_month),
    rule("date", _DASHED_MONTH_DAY, _dashed_month_day),
    rule("duration", _DURATION, _duration),
    rule("duration", _LONG_DURATION, _duration),
    rule("duration", _EVENT_DURATION, _duration),
    rule("equipment number", r"(?<=\d号)\s*-\s*(?=\d+号)", "到"),
    rule("equipment label", _LETTER_LABEL, _letter_label),
    rule("label", rf"(?<=[{LABEL_ENDS}])\s*-\s*(?=\d)(?!{_VALUE_AFTER})", "杠"),
)
