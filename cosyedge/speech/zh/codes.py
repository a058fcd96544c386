"""Mandarin readings of codes, countdowns, short dates and zones the number rules would take
for amounts or ranges (zh-front-9).

- No range runs down: two whole numbers a hyphen joins where the second is the smaller are a
  model, standard or part number, read as an identifier in its groups, digit by digit with 幺
  for 1, 杠 for the hyphen: `CPU 1516-3` → C P U 幺五幺六杠三 (was 一千五百一十六到三),
  `EN 60204-1` → E N 六零二零四杠幺. After a standard's letters (GB, GB/T, IEC, ISO, EN, DIN,
  JB/T, ...) the pair is the standard's number and year whichever is larger:
  `GB 2626-2019` → G B 二六二六杠二零幺九. A range is kept where the second is not smaller
  (`3-5`), where a unit, a percent sign, 号 or a measure word follows (`80-60℃`), and where
  the dash is an en dash or a tilde, or is spaced.
- A countdown `T-5` before a time unit (`T-5分钟`, `T-10s`) or after 倒计时 or 倒数 is T 减:
  `倒计时T-5分钟` → 倒计时 T 减五分钟 (was T 杠 五, a tag). Alone, `T-5` stays a tag.
- A code after a word that says a fault, an alarm or an error (故障, 报警, 告警, 错误, 异常)
  with letters before its digits, or any code after a code word (代码, 故障码, 错误码, 寄存器,
  地址, ...), is read as codes are: letters spelled, digits one by one with 幺 for 1:
  `故障F30001` → 故障 F 三零零零幺 (was F 三万零一), `报警代码1001` → 报警代码幺零零幺.
  Digits alone after 报警 or 故障 stay a number (`报警110` → 报警一百一十), and a label before a
  place or machine word keeps its reading (`报警A1区` → 报警 A 一区).
- A date of three two-digit parts with a two-digit year. With hyphens or slashes, year first
  (yy-mm-dd, as Chinese and ISO 8601 write dates) where the first part cannot be a month (13
  to 99): `26-11-30`, `26/11/30` → 二六年十一月三十日 (the year as written, no century
  guessed). Where the first could be a day (13 to 31), the middle is the month either way, so
  the month is never wrong; year first is the choice, and a day-first writer's `30/11/26` is
  heard as 三零年十一月二十六日 (day and year swapped: write four-digit years for that). With
  slashes, month first (mm/dd/yy) where the first can be a month and the middle cannot:
  `11/30/26` → 二六年十一月三十日. Any other slashed triple (`11/12/10`: which part is the
  year cannot be told) is said as written, 斜杠 between its numbers; a hyphenated one is a
  serial number, as before.
- A zone's abbreviation after a time is said before it, as 北京时间 is: `14:05 CST` →
  北京时间十四点零五分. CST is China Standard Time (a Chinese alert does not mean US Central);
  BJT too; HKT 香港时间, JST 日本标准时间, KST 韩国标准时间, SGT 新加坡时间, CET 欧洲中部时间,
  CEST 欧洲中部夏令时间, MSK 莫斯科时间. UTC and GMT are 协调世界时 (fields.py), as before.
- A room's, a bed's or a storage place's number, a word before (房间, 床位, 库位, ...) or after
  (室, 床) saying so, is its number, not a range: `房间3-105` → 房间三杠幺零五 (was
  三到一百零五). A score after 比分 with a hyphen is a score: `比分3-1` → 比分三比一.
- After a word that says an identifier follows (炉号, 批号, 批次号, 卷号, 件号, 图号, 编号, 序号,
  流水号, 工单号, 生产号, 工号, 卡号, 订单号, 单号, 账号, 物料号, ...), digits, or digits joined
  by hyphens, are its groups, digit by digit with 幺: `炉号26-1130` → 炉号二六杠幺幺三零 (was
  炉号二十六到一千一百三十), `工号1234` → 工号幺二三四 (was 一千二百三十四, a quantity). A
  numbered unit whose second number is the smaller is one label, not a range: `5-1号泵` →
  五杠一号泵 (alertforms.py).
- Two or three dots between numbers are a range (S7 and Codesys write one so): `液位12..5米`
  → 液位十二到五米 (was 十二..五米, heard as 十二五米), `4...20mA` → 四到二十毫安.
- A star between numbers is a times sign (`4*2.5mm²` → 四乘二点五平方毫米); a plus sign
  before a value with its unit or a percent sign is its sign, 正 (`温度+25℃` →
  温度正二十五摄氏度, `+0.5%` → 正百分之零点五).
- A licence plate (a province's character, a letter, five or six letters or digits) one by
  one: `京A12345` → 京 A 幺二三四五. Nine digits or more after a word that says a value (数值,
  计数器, 累计, 读数, 总量, 产量) are a cardinal: `数值1000000000` → 数值十亿 (alone they stay
  an identifier's, digit by digit).
- +86 written onto a Chinese number, unspaced or with hyphens, is grouped as the telephone
  rule reads `+86 138 1234 5678`: `+8613812345678` → 加八六 and 幺三八, 幺二三四, 五六七八 (a
  two-digit area code is 10 or 2x, as China's are); 0086 so too, said 零零八六 as dialled.
"""

from __future__ import annotations

import calendar
import re

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.zh.joints import VALUE_NOUNS, WORD
from cosyedge.speech.zh.labels import LABEL_ENDS, MEASURE_WORDS
from cosyedge.speech.zh.numbers import digit_order, read_digits, read_integer, read_number
from cosyedge.speech.zh.units import PATTERN as UNIT

# --- no range runs down ----------------------------------------------------------------------

# Standards bodies whose numbers are written number-year (GB/T 19001-2016) or number-part
# (IEC 61131-3): after them the pair is an identifier, rising or not.
STANDARDS = r"GB(?:/[TZ])?|JB(?:/T)?|DL(?:/T)?|HG(?:/T)?|NB(?:/T)?|SH(?:/T)?|IEC|ISO|EN|DIN|ANSI"
STANDARDS += r"|IEEE|NFPA|JIS|UL|ASTM|BS"
# What makes the pair values a range reads: a unit, a percent or degree sign, 号 (1-3号泵),
# or a Chinese unit, measure or time word (速度10-5转 is 十到五转, as 80-60℃ is a range: a
# falling pair with its unit is one, as English reads it); so does a word naming a value
# before it (速度10-5).
_VALUES_AFTER = (
    rf"\s?(?:{UNIT})(?![A-Za-z0-9/²³^])|\s?[%％‰℃°#号]|(?:{MEASURE_WORDS})|(?:{WORD})"
    r"|[米度元万亿千百分秒天年月日周层台套组个]"
)
DESCENDING = rx.compile(
    rf"(?:({VALUE_NOUNS})\s*[:：=]?\s*)?"
    rf"(?:(?<![A-Za-z])({STANDARDS})\s?)?(?<![A-Za-z0-9.+\-/])(?<!\d[,:])(\d+)-(\d+)"
    rf"(?![A-Za-z0-9\-]|[.,:/]\d)(?!{_VALUES_AFTER})"
)


def _descending(m: re.Match[str]) -> str:
    """1516-3 → 幺五幺六杠三; a rising pair (3-5), or one after a word naming a value, left to
    the range rule, unless a standard's letters come before it."""
    value, standard, first, second = m.groups()
    if value:
        return m.group(0)
    # More digits written after the hyphen (001-0000) is no run down: a local number.
    if not standard and (digit_order(second) >= digit_order(first) or len(second) > len(first)):
        return m.group(0)
    said = "杠".join(read_digits(group, one="幺") for group in (first, second))
    return (f"{standard} " if standard else "") + said


# --- countdowns ------------------------------------------------------------------------------

_TIME_UNIT = r"(?:s|secs?|seconds?|min|mins|minutes?|h|hrs?|hours?)(?![A-Za-z])|秒|分钟|分|小时|天"
COUNTDOWN = rx.compile(
    rf"(?:(?<=倒计时)|(?<=倒数))\s*T-(\d{{1,4}})(?![\d.])"
    rf"|(?<![A-Za-z0-9.\-])T-(\d{{1,4}})(?=\s?(?:{_TIME_UNIT}))"
)

# --- codes after a fault, alarm or error word --------------------------------------------------

# Words a code follows, whatever it is written with; words a code follows only with letters
# before its digits (报警110 is an alarm's number, documented as such).
CODE_WORDS = r"故障代码|故障码|错误代码|错误码|报警代码|报警码|告警代码|告警码|代码|寄存器|地址"
# Other words ending in 码 that name a code (zh-front-9: `状态码404` was 四百零四).
CODE_WORDS += (
    r"|状态码|响应码|校验码|返回码|条形码|条码|功能码|诊断码|事件码|结果码|识别码|指令码|命令码"
)
FAULT_WORDS = r"故障|报警|告警|错误|异常"
FAULT_CODE = rx.compile(
    rf"(?:({CODE_WORDS})|({FAULT_WORDS}))(\s*(?:[:：=]|为|是)?\s*)"
    rf"(?<![A-Za-z0-9])([A-Za-z]{{1,3}})?(\d+)"
    rf"(?![A-Za-z0-9_]|[.,:：/\-][A-Za-z0-9]|\s?(?:{UNIT})(?![A-Za-z0-9])|\s?[%％‰℃°#号])"
    # A place's or a machine's label (报警A1区: zone A1) keeps its reading.
    rf"(?![{LABEL_ENDS}])"
)


def _fault_code(m: re.Match[str]) -> str:
    """故障F30001 → 故障 F 三零零零幺; digits alone after a fault word: as written."""
    code_word, fault_word, between, letters, number = m.groups()
    if not (code_word or letters):
        return m.group(0)
    spelled = " ".join(letters.upper()) + " " if letters else ""
    return f"{code_word or fault_word}{between} {spelled}{read_digits(number, one='幺')} "


# --- dates with a two-digit year -------------------------------------------------------------

SHORT_YEAR_DATE = rx.compile(
    r"(?<![A-Za-z0-9./\-])(?<!\d:)(\d{2})([-/])(\d{2})\2(\d{2})(?![A-Za-z0-9]|[-/.:][A-Za-z0-9])"
    # Before 号 three numbers are numbered units (10/11/12号泵), not a date.
    r"(?!号)"
)


def _is_day(year: int, month: int, day: int) -> bool:
    """Whether `day` is in `month`: a two-digit year's leap years are the same in 19yy and
    20yy (00 is never a year here: a year comes first only above 12)."""
    return 1 <= month <= 12 and 1 <= day <= calendar.monthrange(2000 + year, month)[1]


def _short_year_date(m: re.Match[str]) -> str:
    """26-11-30, 11/30/26 → 二六年十一月三十日 (see the module's docstring for which part is
    the year); no date: a slashed triple with 斜杠 between its numbers, a hyphenated one as
    written (a serial number)."""
    a, joint, b, c = m.group(1), m.group(2), m.group(3), m.group(4)
    x, y, z = int(a), int(b), int(c)
    if x > 12 and _is_day(x, y, z):
        year, month, day = a, y, z
    elif joint == "/" and 1 <= x <= 12 < y and _is_day(z, x, y):
        year, month, day = c, x, y
    else:
        return m.group(0) if joint == "-" else "斜杠".join(read_number(p) for p in (a, b, c))
    return f"{read_digits(year)}年{read_number(str(month))}月{read_number(str(day))}日"


# --- a zone's abbreviation after a time --------------------------------------------------------

ZONES = {"CST": "北京时间", "BJT": "北京时间", "HKT": "香港时间", "JST": "日本标准时间"}
ZONES |= {"KST": "韩国标准时间", "SGT": "新加坡时间", "CET": "欧洲中部时间"}
ZONES |= {"CEST": "欧洲中部夏令时间", "MSK": "莫斯科时间"}
_CLOCK = r"\d{1,2}[:：]\d{2}(?:[:：]\d{2}(?:\.\d+)?)?"
# A range of times before the zone is in it (08:00-16:00 CST): the zone said before both.
ZONE = rx.compile(
    rf"(?<![\d.])(?<!\d:)((?:\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}(?:T|\s+))?{_CLOCK}"
    rf"(?:\s*[-\u2013\u2014~]\s*{_CLOCK})?)\s?"
    rf"({'|'.join(ZONES)})(?![A-Za-z0-9])"
)


# --- scores, rooms, ranges with dots and numbers with +86 written on ---------------------------

# A score after 比分 with a hyphen, as with a colon (比分3:1): 三比一.
SCORE = rx.compile(r"(比分)(\s*(?:[:：]|为|是)?\s*)(\d{1,3})\s*-\s*(\d{1,3})(?![\d.])")
# A room, a bed or a storage place: a word before (房间3-105) or after (3-105室) says the pair
# is its number, rising or not.
_PLACE_BEFORE = r"房间号?|房号|宿舍|病房|床位号?|床号|门牌号?|库位号?|货位号?|储位号?|仓位号?"
PLACE_NUMBER = rx.compile(
    rf"(?:({_PLACE_BEFORE})\s*[:：]?\s*)?(?<![A-Za-z0-9.+\-/])(?<!\d[,:])(\d{{1,4}})-(\d{{1,5}})"
    r"(?![A-Za-z0-9\-]|[.,:/]\d)(?=(室|房间|号房|床|库位|货位))?"
)


def _place_number(m: re.Match[str]) -> str:
    """房间3-105, 3-105室 → 三杠幺零五: the building's, then the room's number; without such a
    word as written (a range or an identifier, for the rules after)."""
    word, first, second, after = m.groups()
    if not (word or after):
        return m.group(0)
    said = "杠".join(read_digits(group, one="幺") for group in (first, second))
    return (word or "") + said


# A word that says an identifier follows (a heat's, a batch's, a coil's, a drawing's number):
# digits joined by hyphens after it are its groups, digit by digit (炉号26-1130 was
# 炉号二十六到一千一百三十, a range).
# A person's, a card's or an order's number too (工号, 卡号, 订单号, ...): one group of digits
# is said digit by digit as well, as tags are (工号1234 was 工号一千二百三十四, a quantity).
_IDENTIFIER_WORDS = (
    r"炉号|炉次号?|批号|批次号?|卷号|件号|图号|编号|序号|流水号|生产号|工号|员工号|卡号|工卡号"
    r"|(?:订|运|工|派|提|送货|出库|入库)单号|单号|账号|帐号|条码号?|物料号|追溯号|证号"
)
IDENTIFIER = rx.compile(
    rf"({_IDENTIFIER_WORDS})(\s*(?:[:：]|为|是)?\s*)(?<![A-Za-z0-9.+\-/])(\d+(?:-\d+)*)"
    r"(?![A-Za-z0-9\-]|[.,:/]\d)"
)


def _identifier(m: re.Match[str]) -> str:
    """炉号26-1130 → 炉号二六杠幺幺三零: each group digit by digit with 幺, 杠 between."""
    said = "杠".join(read_digits(group, one="幺") for group in m[3].split("-"))
    return m[1] + m[2] + said


# Two or three dots between numbers (S7 and Codesys write a range so: 4..20, 12...5) are a
# range's dash, so the range rules read it with its unit: 液位12..5米 → 十二到五米.
DOTS_RANGE = rx.compile(r"(?<![\d.])(-?\d+(?:\.\d+)?)\.{2,3}\+?(-?\d+(?:\.\d+)?)(?!\d|[.,]\d)")
# A Chinese mobile or landline number with +86 written onto it (+8613812345678): grouped as
# the telephone rule reads +86 138 1234 5678; a two-digit area code is 10 or 2x.
PLUS_86 = rx.compile(
    r"(?<![\dA-Za-z+])\+86-?(?:(1[3-9]\d)-?(\d{4})-?(\d{4})|(10|2\d|[3-9]\d\d)-?(\d{3,4})-?(\d{4}))"
    r"(?![\d.-])"
)

# A star between numbers is a times sign (a cable's cores and cross-section, 4*2.5mm²), unless
# a power of ten follows (scientific notation, read as such later): it was left to the voice,
# which says nothing for it (四二点五, heard as 42.5).
TIMES = rx.compile(r"(?<=\d)\s*\*\s*(?=\d)(?!10\^)")
# A plus sign before a value with its unit or a percent sign, nothing before it that it could
# add to (nor a caret: a power's sign): the value's sign, 正 as 负 is said (温度+25℃ was
# 加二十五摄氏度).
PLUS_SIGN = rx.compile(
    rf"(?<![A-Za-z0-9)）%％℃°.^])\+(?=\d+(?:\.\d+)?\s*(?:[%％‰℃°]|(?:{UNIT})(?![A-Za-z0-9])))"
)

# A licence plate: a province's character, the city's letter, then five letters or digits (six
# on a new-energy plate), read as plates are, one by one (京A12345 was 京 A 一万二千三百四十五).
_PROVINCES = "京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼"
# A digit among them (a word is no plate); a new-energy plate's letter may end it (粤B12345D),
# and a coach's, a police or a trailer plate's character (鲁Q 1234学) (zh-front-9).
PLATE = rx.compile(
    rf"([{_PROVINCES}])([A-Z])[\s·]?(?=[A-Z]*\d)([A-Z0-9]{{5,6}}|[A-Z0-9]{{4}}[学警挂])"
    r"(?![A-Za-z0-9])"
)


def _plate(m: re.Match[str]) -> str:
    """京A12345 → 京 A 幺二三四五: letters spelled, digits one by one with 幺."""
    chars = m[2] + m[3]
    said = (read_digits(c, one="幺") if c.isdigit() else c if c > "Z" else f" {c} " for c in chars)
    return m[1] + "".join(said)


# A count after a word that says a value is one (数值, 计数器, 累计, 读数, 总量, 产量): a
# cardinal however many its digits (nine or more alone are an identifier's).
VALUE_WORDS = r"数值|计数值|计数器|计数|累计值|累计|读数|总数|总量|产量"
LONG_VALUE = rx.compile(
    rf"({VALUE_WORDS})(\s*(?:[:：=]|为|是)?\s*)(?<![\d.])([1-9]\d{{8,15}})(?!\d|[.,]\d|[A-Za-z])"
)
# +86 or 0086 written with hyphens or none: 0086 is said as it is dialled, 零零八六. A
# landline's area code is parted from its number by a hyphen, or the two are written as one
# run: a hyphen after a longer run (0086-10000-0000) makes a serial number's groups, not
# an area code cut out of them.
ZERO_86 = rx.compile(
    r"(?<![\dA-Za-z+])0086-?(?:(1[3-9]\d)-?(\d{4})-?(\d{4})"
    r"|(10|2\d|[3-9]\d\d)(?:-(\d{3,4})-?|(\d{3,4}))(\d{4}))"
    r"(?![\d.-])"
)


def _zero_86(m: re.Match[str]) -> str:
    """0086-10-88886666 → 零零八六, 幺零, 八八八八, 六六六六 (a pause between groups)."""
    return "，".join(read_digits(g, one="幺") for g in ("0086", *m.groups()) if g)


RULES = (
    Rule("times", TIMES, lambda m: "×"),
    Rule("licence plate", PLATE, _plate),
    Rule("telephone number", ZERO_86, _zero_86),
    Rule("number", LONG_VALUE, lambda m: m[1] + m[2] + read_integer(int(m[3]))),
    Rule("telephone number", PLUS_86, lambda m: "+86 " + " ".join(g for g in m.groups() if g)),
    Rule("ratio", SCORE, lambda m: f"{m[1]}{m[2]}{read_number(m[3])}比{read_number(m[4])}"),
    Rule("range", DOTS_RANGE, lambda m: f"{m[1]}~{m[2]}"),
    Rule("place number", PLACE_NUMBER, _place_number),
    Rule("identifier", IDENTIFIER, _identifier),
    Rule("sign", PLUS_SIGN, lambda m: "正"),
    Rule("time zone", ZONE, lambda m: ZONES[m[2]] + m[1]),
    Rule("date", SHORT_YEAR_DATE, _short_year_date),
    Rule("countdown", COUNTDOWN, lambda m: f" T 减{m[1] or m[2]}"),
    Rule("fault code", FAULT_CODE, _fault_code),
)
"""Read before the dates, times, tags and numbers take their pieces."""

HYPHENS = (Rule("identifier", DESCENDING, _descending),)
"""Read after the values with units, before the ranges and equipment numbers."""
