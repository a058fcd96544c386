"""Mandarin readings of forms plant text writes that the general rules would misread:
integer slash pairs (`2/3台泵运行`), a month and a day without a year, addresses inside URLs,
money, hexadecimal codes, ratios, time ranges and compact ISO timestamps.

Slash pairs, the rule chosen (`2/3台泵运行` was 三分之二台, `10/20` 二十分之十):
- before a measure word (台, 套, 组, ...) the pair counts units out of those installed, and an
  operator says it as such: `2/3台泵运行` → 三台中的两台泵运行. 三分之二台 is a share of one
  machine, and 二比三 a ratio; "two of the three" is what the loudspeaker must carry, with the
  measure word repeated as it is spoken (where the first is more than the second it is no
  count: 斜杠);
- otherwise a numerator below its denominator is a fraction, as Chinese text writes a share:
  `3/4开度` → 四分之三开度; any other pair is said as written, 斜杠 between: `12/3` → 十二斜杠三
  (it was 三分之十二);
- a vulgar fraction character is a fraction: `½寸` → 二分之一寸, `1½寸` → 一又二分之一寸;
- two digits each side after a word that says a date follows (日期, 于, 从, 自, 至, 截至,
  截止, a weekday, 在, 计划, ...), before a word that says a day is meant (日, 前, 检修, ...)
  or before a time are a month and a day, month first as Chinese writes them (and as the
  English rules read `10/20`) unless the first cannot be a month: `日期10/20` → 日期十月二十日;
  one digit on either side too, after a firm cue (日期, 于, 截至, 截止, a weekday, 计划, 预计,
  定于, ...: not 从, 自, 至 or 在, which come before shares as often, `降至1/2`) or before a
  word after (日, 前, 检修, 保养, 到期, ...; never 起, 完成, 开始, 结束, 停机, 执行 or 更换, for
  any pair, as a share may come before them, `1/2完成`): `日期2/3` → 日期二月三日, `于9/30` →
  于九月三十日. 于 ending a word (处于, 低于, 等于) is no cue. A weekday after the pair is a
  word after (`11/30(周一)` → 十一月三十日(周一)) (zh-front-9);
- two pairs a dash joins, one part written with two digits, both days of the year, are a
  range of days: `11/30-12/2` → 十一月三十日到十二月二日; a month and a four-digit year are a
  month: `11/2026` → 二零二六年十一月; a dotted month and two-digit day before 日 a day:
  `11.30日` → 十一月三十日 (zh-front-9);
- three numbers or more a slash joins before 号 are a list, elsewhere 斜杠 between
  (`1/2/3号泵` → 一、二、三号泵); a pipe thread's size a fraction (`G1/2` → G 二分之一); a
  slash after a place's or a machine's number parts the label from a value (`罐2/85度` →
  罐二斜杠八十五度) (zh-front-9).
"""

from __future__ import annotations

import re
from decimal import Decimal

from cosyedge.speech import rx
from cosyedge.speech.text.plant import (
    COMPACT_TIMESTAMP,
    ORDER_FORM,
    compact_timestamp,
    say_order_number,
)
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.zh.fields import count
from cosyedge.speech.zh.numbers import read_digits, read_integer, read_number

# Words that end a place's or a machine's name (labels.py reads its hyphens).
LABEL_WORDS = "区号机泵期线段楼层室站库厂车柜箱台组列排座栋房池罐塔炉桥门井路阀釜仓架轴"
# Measure words a count of plant units is written with.
MEASURE_WORDS = "台套组个路条根只座辆块支把间层道片节级段"
_START = r"(?<![\d./A-Za-z])"
# An inch mark after a size: `3/4"管道` is 四分之三英寸管道.
_INCH = r'"|\s?(?:inch(?:es)?|in)(?![A-Za-z])'
SLASH_PAIR = rx.compile(
    rf"{_START}(?:(\d+)\s+)?(\d{{1,4}})([/\u2044])(\d{{1,4}})(?![\d./\u2044])"
    rf"([{MEASURE_WORDS}]|{_INCH})?"
)


def _fraction(n: int, d: int) -> str:
    return f"{read_integer(d)}分之{read_integer(n)}"


def _slash_pair(m: re.Match[str]) -> str:
    """三台中的两台, 四分之三, 一又二分之一, 四分之三英寸, 十二斜杠三 (see the module's
    docstring)."""
    whole, top, slash, bottom, after = m.groups()
    n, d = int(top), int(bottom)
    inch = bool(after) and after not in MEASURE_WORDS  # a size: a fraction, then 英寸
    measure = "英寸" if inch else after or ""
    if 0 < n < d and (whole or inch or slash == "\u2044"):
        said = _fraction(n, d)
        return (f"{read_integer(int(whole))}又" if whole else "") + said + measure
    head = f"{read_integer(int(whole))} " if whole else ""
    if measure and not inch and n <= d and d:
        return head + f"{count(bottom)}{measure}中的{count(top)}{measure}"
    if 0 < n < d:
        return head + _fraction(n, d) + measure
    return head + f"{read_number(top)}斜杠{read_number(bottom)}" + measure


# A pair in quotation marks: the closing mark is no inch mark (`"2/3"台运行`).
# The marks must pair: in `“3/4"”` the ASCII mark is an inch mark.
QUOTED_PAIR = rx.compile(
    rf'(?:"(\d{{1,4}})/(\d{{1,4}})"|“(\d{{1,4}})/(\d{{1,4}})”)([{MEASURE_WORDS}])?'
)


def _quoted_pair(m: re.Match[str]) -> str:
    """`"2/3"台运行` → “三台中的两台”运行: the pair as a count of the measure word after the
    quotation (which moves inside it), a share, or 斜杠, between full-width quotation marks."""
    top, bottom, measure = m[1] or m[3], m[2] or m[4], m[5]
    n, d = int(top), int(bottom)
    if measure and n <= d and d:
        said = f"{count(bottom)}{measure}中的{count(top)}{measure}"
    elif 0 < n < d:
        said = _fraction(n, d) + (measure or "")
    else:
        said = f"{read_number(top)}斜杠{read_number(bottom)}" + (measure or "")
    return f"“{said}”"


# 于 after a word it ends (处于, 低于, 等于, ...) says no date.
DATE_CUES = (
    r"日期|(?<![处位等大小低高属由对关基相鉴用介])于|从|自|至|截至|截止|(?:周|星期)[一二三四五六日天]"
    r"|在|计划|预计|定于|安排|期限"
)
# Words after the pair that say it is a day: 日 (said once; 号 may number equipment), a
# deadline (前, 之前, 以前), or work done on a day (检修, 保养, ...). Not 后, 起, 完成, 开始,
# 结束, 停机, 执行 or 更换: `10/10后恢复`, `10/10结束` may as well be a share before a verb,
# and are left to the slash pairs unless a word before says a date.
# A weekday after the pair, perhaps in brackets, says a day as well (11/30（周一）).
AFTER_DATE = r"日|之?前|以前|检修|维修|维护|保养|巡检|校准|到期|交付"
AFTER_DATE += r"|\s?[(（]?\s?(?:周|星期)[一二三四五六日天]"
# Cues that name a date before two digits each side, but may as well come before a share.
_LOOSE_CUES = ("从", "自", "至", "在")
MONTH_DAY = rx.compile(
    rf"(?:({DATE_CUES})\s*[:：]?\s*)?{_START}(\d{{1,2}})/(\d{{1,2}})(?![\d./{MEASURE_WORDS}])"
    rf"(?=(\s*\d{{1,2}}[:：]\d\d))?(?=({AFTER_DATE}))?(日)?"
)
# Days in each month; 29 in February, as a date without its year may be in a leap year.
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _month_day(m: re.Match[str]) -> str:
    """日期10/20, 10/20检修, 请在10/20前 → 十月二十日: month first unless the first cannot be a
    month (20/10). A pair a cue calls a date that is no day of the year (31/04, 02/30) is said
    as written, 斜杠 between: never a date, nor the fraction of one."""
    cue, first, second, time, after, day_mark = m.groups()
    # A single digit is as often a share (降至1/2, 在1/2开度): only a firm cue makes it a day.
    short = len(first) < 2 or len(second) < 2
    if not (time or after or (cue and not (short and cue in _LOOSE_CUES))):
        return m.group(0)
    a, b = int(first), int(second)
    month, day = (b, a) if a > 12 >= b else (a, b)
    head = m.group(0)[: m.start(2) - m.start()] if cue else ""
    if not (1 <= month <= 12 and 1 <= day <= _DAYS[month - 1]):
        return head + f"{read_number(first)}斜杠{read_number(second)}" + (day_mark or "")
    return head + f"{read_integer(month)}月{read_integer(day)}日"


# --- dates with a cue in their own form: a range of two, a month and a year, a dotted day --

_PAIR = r"(\d{1,2})/(\d{1,2})"
# Two month-day pairs a dash or a tilde joins (11/30-12/2): a range of days, where both are
# days of the year and one of them is written with two digits (1/2-3/4 may be shares).
DATE_RANGE = rx.compile(rf"{_START}{_PAIR}\s*[-~\u2013\u2014]\s*{_PAIR}(?![\d./])")
# A month and a four-digit year of today's alerts (11/2026, 1970 to 2099): no share is
# written with such a year below it (1/1900 may be one).
MONTH_YEAR = rx.compile(rf"{_START}(\d{{1,2}})/(19[7-9]\d|20\d\d)(?![\d./]|[-年]\d)")
# A label's number (柜3, 3号柜, 2#) or a number, then a slash, or a label and a space, before a
# dated year (柜3/2024-05-01, 3号柜 2024/05/01): the label and the date are two fields, a
# pause between, never a month and a year (柜二零二四年三月) nor a run of digits.
_DATED = r"(?=\d{4}[-/.年]\d{1,2}[-/.月]\d{1,2}(?!\d))"
# (A space between Chinese and a digit is gone by now: 3号柜2024/05/01.)
_NUMBERED = rf"(?<![\d./A-Za-z])\d+[号#][{LABEL_WORDS}]*"
_LABEL_NUMBER = rf"(?<=[{LABEL_WORDS}])\d+"
LABEL_BEFORE_DATE = rx.compile(
    rf"({_NUMBERED}|{_LABEL_NUMBER}|{_START}\d+)/{_DATED}"
    rf"|({_NUMBERED}\s*|{_LABEL_NUMBER}\s+){_DATED}"
)
# A month and a two-digit day with a dot before 日 (11.30日): 日 says the day, not a decimal
# (12.5日 may be days).
DOTTED_DAY = rx.compile(r"(?<![\d.])(\d{1,2})\.(\d{2})日")


def _is_month_day(month: str, day: str) -> bool:
    return 1 <= int(month) <= 12 and 1 <= int(day) <= _DAYS[int(month) - 1]


def _month_and_day(month: str, day: str) -> str:
    return f"{read_integer(int(month))}月{read_integer(int(day))}日"


def _date_range(m: re.Match[str]) -> str:
    """11/30-12/2 → 十一月三十日到十二月二日; anything else as written."""
    first, second = m.group(1, 2), m.group(3, 4)
    wide = any(len(part) == 2 for part in m.groups())
    if not (wide and _is_month_day(*first) and _is_month_day(*second)):
        return m[0]
    return f"{_month_and_day(*first)}到{_month_and_day(*second)}"


def _month_year(m: re.Match[str]) -> str:
    """11/2026 → 二零二六年十一月; no month: as written."""
    if not 1 <= int(m[1]) <= 12:
        return m[0]
    return f"{read_digits(m[2])}年{read_integer(int(m[1]))}月"


def _dotted_day(m: re.Match[str]) -> str:
    """11.30日 → 十一月三十日; no day of the year: as written."""
    return _month_and_day(m[1], m[2]) if _is_month_day(m[1], m[2]) else m[0]


# --- slashes after a label, between three numbers, in a pipe thread ---------------------------

# Three numbers or more slashes join (1/2/3号泵): before 号 a list of numbered units, said with
# 、 as a list is (the slash was silent: 一二三号泵); elsewhere 斜杠 between, as written.
SLASH_LIST = rx.compile(r"(?<![\d./A-Za-z])(\d{1,4}(?:/\d{1,4}){2,})(?![\d./])(号)?")


def _slash_list(m: re.Match[str]) -> str:
    """1/2/3号 → 1、2、3号; 1/2/3 → 1斜杠2斜杠3 (the numbers left to the number rules)."""
    return m[1].replace("/", "、" if m[2] else "斜杠") + (m[2] or "")


# A pipe thread's size after its letters (G1/2, R1/4, NPT3/4) is a fraction of an inch.
PIPE_THREAD = rx.compile(
    r"(?<![A-Za-z0-9])(G|R|Rc|Rp|NPT|BSPP|BSPT|BSP)(\d{1,2})/(\d{1,2})(?![\d./])"
)


def _pipe_thread(m: re.Match[str]) -> str:
    """G1/2 → G 二分之一; a size that is no fraction below one: as written."""
    n, d = int(m[2]), int(m[3])
    return f" {m[1]} {_fraction(n, d)}" if 0 < n < d else m[0]


# A number right after a place's or a machine's word, then a slash and a value (罐2/85度,
# 柜3/1500RPM): the slash parts the label from the value, no share (罐八十五分之二度); a
# count of units after it (柜2/3台) is left to the pairs.
LABEL_SLASH = rx.compile(
    rf"(?<=[{LABEL_WORDS}])(\d{{1,4}})/(?=\d+(?:\.\d+)?(?![\d./{MEASURE_WORDS}号]))"
)


# --- URLs with an address ------------------------------------------------------------------------

URL = rx.compile(
    r"(?<![A-Za-z0-9.])([A-Za-z][A-Za-z0-9+.-]*)://(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?"
    r"((?:/[A-Za-z0-9_.~%-]*)*)(?![A-Za-z0-9/])"
)
_SCHEME_SIGNS = {".": "点", "+": "加", "-": "杠"}


def _url(m: re.Match[str]) -> str:
    """H T T P 冒号斜杠斜杠 幺零点零点零点五 端口 八零八零 斜杠 status: the scheme letter by
    letter, the address as an address, the path's words left for the voice."""
    scheme, address, port, path = m.groups()
    if any(int(o) > 255 for o in address.split(".")):
        return m.group(0)
    said = "".join(_SCHEME_SIGNS.get(c) or f" {c.upper()} " for c in scheme) + "冒号斜杠斜杠"
    said += "点".join(read_digits(o, one="幺") for o in address.split("."))
    said += f"端口{read_digits(port, one='幺')}" if port else ""
    return said + "".join(f"斜杠 {segment} " for segment in path.split("/")[1:])


# --- order numbers: 6ES7 214-1AG40-0XB0 ---------------------------------------------------------

ORDER_NUMBER = rx.compile(rf"(?<![A-Za-z0-9.-])({ORDER_FORM})(?![A-Za-z0-9-]|\.[A-Za-z0-9])")


def _order_char(c: str) -> str:
    return read_digits(c, one="幺") if c.isdigit() else f" {c} "


def _order_number(m: re.Match[str]) -> str:
    """六 E S 七, 二幺四杠幺 A G 四零杠零 X B 零: character by character, digits as codes
    are read (幺 for 1), a pause (a full-width comma) where a space parts the groups, 杠 for
    a hyphen."""
    return say_order_number(m.group(1), _order_char, {" ": "，", "-": "杠"})


# --- money, hexadecimal codes, ratios, time ranges -----------------------------------------------

# Sign or code → the unit said after the amount.
CURRENCIES = {"$": "美元", "USD": "美元", "€": "欧元", "EUR": "欧元", "£": "英镑", "GBP": "英镑"}
CURRENCIES |= {"¥": "元", "CNY": "元", "RMB": "元", "JPY": "日元"}
# Dollars of other places marked before the sign, the won and the rupee, their codes
# (zh-front-9: HK$300 was H K then a bare 三百, the currency lost).
CURRENCIES |= {"HK$": "港元", "US$": "美元", "NT$": "新台币", "A$": "澳元", "C$": "加元"}
CURRENCIES |= {"S$": "新加坡元", "₩": "韩元", "₹": "卢比", "HKD": "港元", "TWD": "新台币"}
CURRENCIES |= {"KRW": "韩元", "INR": "卢比", "AUD": "澳元", "CAD": "加元", "SGD": "新加坡元"}
_AMOUNT = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_CODES = "USD|EUR|GBP|CNY|RMB|JPY|HKD|TWD|KRW|INR|AUD|CAD|SGD"
# A magnitude written after the amount ($1.5M, ￥1.5万, $2.3k): said before the currency.
MAGNITUDES = {"万": "万", "亿": "亿", "千": "千", "k": "千", "K": "千"}
# Millions and billions are counted in 万 and 亿, as Chinese counts: $1.5M is 一百五十万美元
# (一点五百万 is no way to say it), $1.5B 十五亿美元; the size of one of them in 万.
_IN_WAN = {"M": 100, "B": 100_000}
MAGNITUDE = r"[万亿千]|[kKMB](?![A-Za-z])"
_MINUS = r"[-−\u2013]"
MONEY = rx.compile(
    rf"(?<![A-Za-z0-9.])(?P<sign>{_MINUS}?)"
    rf"(?:(?P<mark>(?:HK|US|NT|[ACS])\$|[$€£¥₩₹])\s?(?P<sign_after>{_MINUS}?)|(?P<code>{_CODES})\s?)"
    rf"(?P<amount>{_AMOUNT})(?P<magnitude>{MAGNITUDE})?"
    rf"(?P<yuan>元)?(?![\d.,]\d|[A-Za-z]|-[A-Za-z0-9])"
    rf"|(?<![A-Za-z0-9.])(?<!\d,)(?P<sign_before>{_MINUS}?)(?P<written>{_AMOUNT})\s?"
    rf"(?P<code_after>{_CODES}|€)(?![A-Za-z])"
)


def say_amount(amount: str) -> str:
    """An amount of money: a decimal without the zeros that end its cents, as an operator
    says it (5.50 → 五点五, 5.00 → 五, 1.05 → 一点零五)."""
    whole, _, cents = amount.replace(",", "").partition(".")
    cents = cents.rstrip("0")
    return read_number(whole + ("." + cents if cents else ""))


def in_wan(amount: str, size: int) -> tuple[str, str]:
    """An amount of millions (`size` 100) or billions (100,000) as Chinese counts it: in 亿
    from a hundred million, else in 万 (1.5, 100 → 150, 万; 1.5, 100,000 → 15, 亿)."""
    wan = Decimal(amount.replace(",", "")) * size
    if not wan:
        return "0", ""
    if wan >= 10_000:
        return format((wan / 10_000).normalize(), "f"), "亿"
    return format(wan.normalize(), "f"), "万"


def say_sum(amount: str, magnitude: str | None) -> str:
    """An amount with the magnitude written after it, without its currency: 一点五万,
    一百五十万 ($1.5M), 十五亿 ($1.5B)."""
    if magnitude in _IN_WAN:
        amount, word = in_wan(amount, _IN_WAN[magnitude])
        return say_amount(amount) + word
    return say_amount(amount) + MAGNITUDES.get(magnitude or "", "")


def _money(m: re.Match[str]) -> str:
    """￥300 → 三百元, $1,200 → 一千二百美元, 5.50€ → 五点五欧元, ￥1.5万 → 一点五万元,
    $1.5M → 一百五十万美元, $1.5B → 十五亿美元, ￥-50 → 负五十元; ¥300元 says 元 once."""
    unit = CURRENCIES[m["mark"] or m["code"] or m["code_after"]]
    negative = m["sign"] or m["sign_after"] or m["sign_before"]
    said = "负" * bool(negative) + say_sum(m["amount"] or m["written"], m["magnitude"]) + unit
    return said + ("元" if m["yuan"] and unit != "元" else "")


# 0x1F, 1Fh, and the IEC 61131-3 literal 16#FF00 (PLC status words), at least two characters
# after 16# (16#1 could be a number and an equipment number). The letter the h form needs is
# looked for ahead, once: placing it inside the run would be tried at every character.
HEX = rx.compile(
    r"(?<![A-Za-z0-9.])(?:0x([0-9A-Fa-f]+)|(?!\d+Ah)(?=\d*[A-F])([0-9][0-9A-F]*)h"
    r"|16#([0-9A-Fa-f]{2,}))(?![A-Za-z0-9#]|\.[A-Za-z0-9])"
)


def _hex(m: re.Match[str]) -> str:
    """0x1F → 十六进制 幺 F: 十六进制, then each character, digits with 幺 as codes are read."""
    written = m.group(1) or m.group(2) or m.group(3)
    return "十六进制" + "".join(
        read_digits(c, one="幺") if c.isdigit() else f" {c.upper()} " for c in written
    )


# A ratio word, then perhaps a colon, 为 or 是, or an opening bracket (比例（1:50）, 配比为1:50),
# then the ratio; its terms may be decimals (配比1:2.5). 比分 (a score) is one too: 三比一.
RATIO = rx.compile(
    r"(比例|配比|混合比|稀释比|传动比|变比|比分|稀释|混合|兑水|比)(\s*(?:[:：]|为|是|约为|设为|[（(])?\s*)"
    r"(\d+(?:\.\d+)?)[:：](\d+(?:\.\d+)?)(?!\d|[:：]\d)"
)


def _ratio(m: re.Match[str]) -> str:
    """比例1:50 → 比例一比五十, 配比为1:2.5 → 配比为一比二点五; a bracket between is kept."""
    between = m.group(2).strip()
    between = "" if between in (":", "：") else between
    return f"{m[1]}{between}{read_number(m[3])}比{read_number(m[4])}"


# Between two clock times a dash, an en or em dash or a tilde is 到 (08:00—16:00), also
# after a time in UTC (08:00 UTC-09:00 UTC, 08:00Z-16:00Z).
TIME_RANGE = rx.compile(
    r"(?:(?<=\d[:：]\d\d)|(?<=\d\dZ)|(?<=\d UTC)|(?<=\dUTC))"
    r"\s*[-\u2013\u2014~]\s*(?=\d{1,2}[:：]\d\d)"
)
# A tilde before a number, not after one: about (~5min), not a range's 到; ≈ is about. A 约
# written before it is the same word (约~5min is 约五分钟, once).
_NOT_ABOUT = r"\d%‰A-Za-z.#)°℃"  # after which a tilde joins a range (5~10, 1#~3#)
ABOUT = rx.compile(rf"(?:大?约\s*)?(?:(?<![{_NOT_ABOUT}])(?<![{_NOT_ABOUT}]\s)~\s*(?=\d)|≈\s*)")

RULES = (
    Rule("URL", URL, _url),
    Rule("order number", ORDER_NUMBER, _order_number),
    Rule("timestamp", COMPACT_TIMESTAMP, compact_timestamp),
    Rule("hexadecimal", HEX, _hex),
    Rule("money", MONEY, _money),
    Rule("ratio", RATIO, _ratio),
    Rule("range", TIME_RANGE, lambda m: "到"),
    Rule("about", ABOUT, lambda m: "大约" if m.group(0).startswith("大") else "约"),
    Rule("date", DATE_RANGE, _date_range),
    Rule("label before a date", LABEL_BEFORE_DATE, lambda m: (m[1] or m[2]).rstrip() + "，"),
    Rule("date", MONTH_YEAR, _month_year),
    Rule("date", DOTTED_DAY, _dotted_day),
    Rule("date", MONTH_DAY, _month_day),
)
"""Read before every other rule of the alert pre-pass."""

SLASHES = (
    Rule("pipe thread", PIPE_THREAD, _pipe_thread),
    Rule("slash list", SLASH_LIST, _slash_list),
    Rule("label and value", LABEL_SLASH, lambda m: m[1] + "斜杠"),
    Rule("slash pair", QUOTED_PAIR, _quoted_pair),
    Rule("slash pair", SLASH_PAIR, _slash_pair),
)
"""Read where the fractions were."""
