"""A small reference verbalizer for the Mandarin reading classes, written apart from the front
end (cosyedge/speech/zh/) and never calling it: the property tests compare what the front end
says for a generated instance with what these say for the parts it was made of.
"""

from __future__ import annotations

import re

DIGITS = dict(zip("0123456789", "零一二三四五六七八九", strict=True))
PLACES = ["", "十", "百", "千"]
MYRIADS = ["", "万", "亿", "万亿"]


def _below_myriad(n: int) -> str:
    """1-9999 with 零 for a gap inside: 1010 一千零一十, 1001 一千零一."""
    text = str(n)
    out, gap = "", False
    for i, d in enumerate(text):
        place = len(text) - 1 - i
        if d == "0":
            gap = True
            continue
        out += ("零" if gap and out else "") + DIGITS[d] + PLACES[place]
        gap = False
    return out


def integer(n: int) -> str:
    """Cardinal: groups of four digits with 万 and 亿; 零 where a group starts below a thousand
    or empty groups stand between; 十 for a leading 一十, 两 for a leading 二 before 百 千 万 亿."""
    if n == 0:
        return "零"
    groups = []
    while n:
        n, group = divmod(n, 10000)
        groups.append(group)
    out, gap = "", False
    for index in reversed(range(len(groups))):
        group = groups[index]
        if not group:
            gap = bool(out)
            continue
        if out and (gap or group < 1000):
            out += "零"
        out += _below_myriad(group) + MYRIADS[index]
        gap = False
    if out.startswith("一十"):
        out = out[1:]
    if re.match("二[百千万亿]", out):
        out = "两" + out[1:]
    return out


def digits(text: str, one: str = "一") -> str:
    return "".join(one if d == "1" else DIGITS[d] for d in text)


def decimal(text: str) -> str:
    whole, _, fraction = text.partition(".")
    return integer(int(whole)) + ("点" + digits(fraction) if fraction else "")


def tidy(text: str) -> str:
    """The spacing the front end gives: a space each side of a Latin capital, none next to
    Chinese punctuation, one at most, none at the ends."""
    text = re.sub("([A-Z])", r" \1 ", text)
    text = re.sub(r"\s*([，。！？；：、（）])\s*", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def audible(text: str) -> str:
    """What the Mandarin voices hear of normalized text: its characters, capitals and
    punctuation. A space is never heard (the pinyin is read a character or a capital at a
    time, zh/pinyin.py), so the front end's spacing is no part of a reading."""
    return re.sub(r"\s+", "", text)


# --- the classes ---------------------------------------------------------------------------


def duration(parts: list[tuple[str, str]]) -> str:
    """(amount, unit word) pairs as reading_forms gives them (day, hour, minute, second): 两 for
    two; minutes 分钟 at the end, 分 before seconds; parts of nothing left out."""
    kept = [(a, u) for a, u in parts if float(a) != 0] or [parts[-1]]
    out = ""
    for i, (amount, unit) in enumerate(kept):
        said = "两" if amount.lstrip("0") == "2" else decimal(amount)
        word = {"day": "天", "hour": "小时", "second": "秒"}.get(unit)
        if unit == "minute":
            word = "分钟" if i == len(kept) - 1 else "分"
        out += said + word
    return out


def mac(pairs: list[str]) -> str:
    """Pair by pair, a pause (a full-width comma) between; digits with 幺 for 1, letters as
    capitals."""
    return "，".join(digits(p.upper(), one="幺") if p.isdigit() else _mixed(p) for p in pairs)


def _mixed(pair: str) -> str:
    return " ".join(c.upper() if c.isalpha() else digits(c, one="幺") for c in pair)


PREFIXES = {"p": "皮", "n": "纳", "µ": "微", "μ": "微", "u": "微", "m": "毫", "c": "厘", "h": "百"}
PREFIXES |= {"k": "千", "M": "兆", "G": "吉", "T": "太"}
UNIT_NAMES = {
    *(("m", "米"), ("ft", "英尺"), ("g", "克"), ("s", "秒"), ("min", "分钟"), ("h", "小时")),
    *(("A", "安"), ("V", "伏"), ("W", "瓦"), ("Wh", "瓦时"), ("VA", "伏安"), ("var", "乏")),
    *(("varh", "乏时"), ("Ah", "安时"), ("Pa", "帕"), ("Hz", "赫兹"), ("Ω", "欧"), ("J", "焦")),
    *(("N", "牛"), ("Nm", "牛米"), ("l", "升"), ("L", "升"), ("lb", "磅"), ("lbf", "磅力")),
    *(("bar", "巴"), ("°C", "摄氏度"), ("°F", "华氏度"), ("dB", "分贝")),
    *(("barg", "巴表压"), ("bar(g)", "巴表压"), ("bara", "巴绝压"), ("bar(a)", "巴绝压")),
    *(("Nm3", "标准立方米"), ("Nm³", "标准立方米")),
}
UNIT_NAMES = dict(UNIT_NAMES)
LENGTHS = {"m", "ft"}


def unit_term(prefix: str, base: str, power: int, in_product: bool) -> str:
    """Prefix before unit; an hour in a product 时, a minute 分; 平方/立方 before a length,
    二次方/三次方 before other units."""
    name = {"h": "时", "min": "分"}.get(base, UNIT_NAMES[base]) if in_product else UNIT_NAMES[base]
    name = PREFIXES.get(prefix, "") + name
    if power == 1:
        return name
    if base in LENGTHS:
        return {2: "平方", 3: "立方"}[power] + name
    return {2: "二次方", 3: "三次方"}[power] + name


def quantity(amount: str, above: list, below: list) -> str:
    """The amount, then its unit; 两 for two hours, minutes or seconds alone (两小时)."""
    two_of_time = amount == "2" and not below and above in ([("", u, 1)] for u in ("h", "min", "s"))
    said = ("两" if two_of_time else decimal(amount)) + "".join(
        unit_term(*t, len(above) > 1) for t in above
    )
    if below:
        said += "每" + "".join(unit_term(*t, len(below) > 1) for t in below)
    return said


def date(y: int, m: int, d: int) -> str:
    return f"{digits(str(y))}年{integer(m)}月{integer(d)}日"


def address(octets: tuple, port: str | None, prefix: int | None) -> str:
    said = "点".join(digits(o, one="幺") for o in octets)
    if port:
        said += "端口" + digits(port, one="幺")
    if prefix is not None:
        said += "斜杠" + integer(prefix)
    return said


def tag(letters: str, numbers: str, suffix: str) -> str:
    """Letters one by one, 杠 for the hyphen, digits one by one with 幺 for 1."""
    return " ".join([*letters, "杠", digits(numbers, one="幺"), *suffix])


JOINERS = {"-": "杠", "_": "下划线", "/": "斜杠"}
PIECES = {"GW2": "G W 二", "PLC": "P L C", "LOG": "L O G", "HMI3": "H M I 三"}
PIECES |= {"CAB12": "C A B 幺二"}


def joined(before, joiner, field, after_joiner, after) -> str:
    kind, parts = field
    said = {"ip": address, "mac": lambda *p: mac(list(p)), "tag": tag, "date": date}[kind](*parts)
    if before:
        said = f"{PIECES[before]} {JOINERS[joiner]} {said}"
    if after:
        said = f"{said} {JOINERS[after_joiner]} {PIECES.get(after) or after.upper()}"
    return said


def clock(parts: tuple) -> str:
    """八点, 八点零五分, 十二点零分三十秒: the hour, then minutes (零 before one digit) if any
    minutes or seconds, then seconds if any."""
    _, hours, mi, seconds, fraction, _ = parts
    sec = int(seconds or 0)
    said = integer(int(hours)) + "点"
    if mi or sec or fraction:
        said += ("零" if 0 < mi < 10 else "") + integer(mi) + "分"
    if sec or fraction:
        said += integer(sec) + ("点" + digits(fraction) if fraction else "") + "秒"
    return said


def timestamp(date_parts: tuple | None, time_parts: tuple | None) -> str:
    """The date, the time; a time in UTC (Z) has 协调世界时 before it all, so the zone is
    heard before the hour."""
    said = (date(*date_parts) if date_parts else "") + (clock(time_parts) if time_parts else "")
    return ("协调世界时" if time_parts and time_parts[5] else "") + said


def phone(before: str, groups: tuple, extension: str) -> str:
    """Digit by digit with 幺 for 1, a pause (a full-width comma) between groups, an
    extension after 转; what precedes it as written (a colon there becomes full-width)."""
    said = "，".join(digits(g, one="幺") for g in groups)
    return before + said + ("转" + digits(extension, one="幺") if extension else "")


def number_list(items: tuple, unit: tuple | None) -> str:
    """Numbers joined by commas that do not group thousands: a list, 、 between its numbers,
    the unit after the last (`1,5bar` → 一、五巴); no magnitude is guessed."""
    said = [decimal(item) for item in items]
    if unit:
        said[-1] = quantity(items[-1], [unit], [])
    return "、".join(said)


def percent_range(low: tuple, high: tuple, symbol: str) -> str:
    """`10%-20%` → 百分之十到百分之二十: each end a percentage, 负 before a negative one."""
    ends = [("负" if sign else "") + "百分之" + decimal(n) for sign, n in (low, high)]
    return "到".join(ends)


def caret_power(mantissa: str | None, sign: str, power: str, unit: tuple | None) -> str:
    """`3.2*10^5Pa` → 三点二乘十的五次方帕; `10^6` → 十的六次方; a minus exponent 负."""
    said = "十的" + ("负" if sign == "-" else "") + integer(int(power)) + "次方"
    if mantissa is None:
        return said
    return decimal(mantissa) + "乘" + said + (unit_term(*unit, False) if unit else "")


# --- slash pairs, a month and a day, URLs, money, codes, ratios, time ranges --------------------


def counted(n: int) -> str:
    """A count before a measure word: 两 for two."""
    return "两" if n == 2 else integer(n)


def slash_pair(whole: int | None, n: int, d: int, vulgar: bool, measure: str) -> str:
    """Before a measure word, a count out of those installed (`2/3台` → 三台中的两台); else a
    share as a fraction (四分之三) where the first is below the second, a mixed number, a
    size in inches (`3/4"` → 四分之三英寸) or a vulgar fraction character a fraction (一又二分
    之一); any other pair with 斜杠."""
    if not (whole or vulgar or measure) and 1 <= n <= 12 and 1970 <= d <= 2099:
        return f"{digits(str(d))}年{integer(n)}月"  # a month and its year (zh-front-9)
    share = f"{integer(d)}分之{integer(n)}" if 0 < n < d else None
    inch = measure == '"'  # an inch mark: a size, 英寸
    measure = "英寸" if inch else measure
    if share and (whole or vulgar or inch):
        return (f"{integer(whole)}又" if whole else "") + share + measure
    head = integer(whole) if whole else ""
    if measure and not inch and n <= d and d:
        return head + f"{counted(d)}{measure}中的{counted(n)}{measure}"
    return head + (share or f"{integer(n)}斜杠{integer(d)}") + measure


def month_day(month: int, day: int, cue: str, time: tuple | None) -> str:
    return cue + f"{integer(month)}月{integer(day)}日" + (clock(time) if time else "")


SCHEME_SIGNS = {".": "点", "+": "加", "-": "杠"}


def url(scheme: str, octets: tuple, port: str | None, path: str) -> str:
    """The scheme letter by letter, 冒号斜杠斜杠, the address, 端口, the path with 斜杠 (its
    letters spelled, as any Latin word the Mandarin front end is given alone)."""
    said = "".join(SCHEME_SIGNS.get(c) or c.upper() for c in scheme) + "冒号斜杠斜杠"
    said += address(octets, port, None)
    return said + "".join("斜杠" + segment.upper() for segment in path.split("/")[1:])


MONEY = {**dict.fromkeys(("$", "USD"), "美元"), **dict.fromkeys(("€", "EUR"), "欧元")}
MONEY |= {**dict.fromkeys(("£", "GBP"), "英镑"), **dict.fromkeys(("¥", "￥", "CNY", "RMB"), "元")}


def money(mark: str, whole: int, cents: str | None) -> str:
    """The amount as a decimal without the zeros that end its cents (5.50 五点五, 5.00 五),
    then the currency's word."""
    cents = (cents or "").rstrip("0")
    return integer(whole) + ("点" + digits(cents) if cents else "") + MONEY[mark]


def hex_code(written: str) -> str:
    return "十六进制" + "".join(c.upper() if c.isalpha() else digits(c, one="幺") for c in written)


def ratio(word: str, a: int, b: int) -> str:
    return f"{word}{integer(a)}比{integer(b)}"


def time_range(first: tuple, second: tuple) -> str:
    return clock(first) + "到" + clock(second)


def order_number(groups: tuple, joints: tuple) -> str:
    """Character by character, digits with 幺 for 1, a pause (a full-width comma) where a
    space parts the groups, 杠 for a hyphen."""
    said = digits_and_letters(groups[0])
    for joint, g in zip(joints, groups[1:], strict=True):
        said += ("，" if joint == " " else "杠") + digits_and_letters(g)
    return said


def digits_and_letters(group: str) -> str:
    return "".join(c if c.isalpha() else digits(c, one="幺") for c in group)


# --- Mandarin, attacked again: signs, powers, decimals, dates, phones, money, codes, tags -------


def signed_temperature(negative: bool, amount: str) -> str:
    """A temperature in degrees Celsius, 零下 before a negative one whatever dash wrote it."""
    return ("零下" if negative else "") + decimal(amount) + "摄氏度"


def power(base: str, sign: str, exponent: int, times: str | None, unit: str) -> str:
    """`1*10⁻⁶mbar` → 一乘十的负六次方毫巴, `5²` → 五的二次方: the base's power (负 for a minus),
    after the mantissa and 乘 where one is written."""
    said = ("负" if sign == "-" else "") + integer(exponent) + "次方"
    head = f"{decimal(times)}乘" if times is not None else ""
    return head + decimal(base) + "的" + said + unit


def leading_point(fraction: str, unit: str) -> str:
    """`.5MPa` → 零点五兆帕: a bare leading point is 零点."""
    return "零点" + digits(fraction) + unit


def decimal_ratio(word: str, between: str, a: str, b: str) -> str:
    """`配比为1:2.5` → 配比为一比二点五; a colon after the word is not said, a bracket is."""
    shown = "" if between in (":", "\uff1a") else between.strip()
    closing = {"（": "）", "(": "）"}.get(shown, "")
    return f"{word}{shown.replace('(', '（')}{decimal(a)}比{decimal(b)}{closing}"


def impossible_time(hours: int, minutes: str) -> str:
    """`13:70` → 十三冒号七十: said as written, never as a time."""
    head = (
        digits(minutes) if len(minutes) > 1 and minutes.startswith("0") else integer(int(minutes))
    )
    return integer(hours) + "冒号" + head


DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def month_day_cued(first: int, second: int, before: str, after: str) -> str:
    """A pair two digits each side with a word before or after it that says it is a day:
    the month and the day (日 said once), or as written with 斜杠 for no day of the year."""
    month, day = (second, first) if first > 12 >= second else (first, second)
    if 1 <= month <= 12 and 1 <= day <= DAYS_IN_MONTH[month - 1]:
        return before + f"{integer(month)}月{integer(day)}日" + after.removeprefix("日")
    return before + f"{two(first)}斜杠{two(second)}" + after


def two(n: int) -> str:
    """Two digits as written: 04 零四, 12 十二."""
    return digits(f"{n:02}") if n < 10 else integer(n)


def grouped_phone(word: str, plus: bool, groups: tuple, extension: str) -> str:
    """Groups as written, digit by digit with 幺, a pause between, 加 for a plus, 转 before
    an extension."""
    said = "，".join(
        ("加" if plus and i == 0 else "") + digits(g, one="幺") for i, g in enumerate(groups)
    )
    return word + said + (f"转{digits(extension, one='幺')}" if extension else "")


MAGNITUDE_WORDS = {"万": "万", "亿": "亿", "k": "千"}
# Millions and billions as Chinese counts them: in 万 (ten thousand), from 10^8 in 亿.
MAGNITUDE_SIZES = {"M": 10**6, "B": 10**9}


def money_more(negative: bool, mark: str, whole: int, cents: str | None, magnitude: str) -> str:
    """A signed amount, perhaps with a magnitude after it (一点五万元, 负五十元); millions and
    billions counted in 万 or 亿 (`$1.5M` → 一百五十万美元, `$1.5B` → 十五亿美元)."""
    word = MONEY[mark]
    if magnitude in MAGNITUDE_SIZES:
        hundredths = (whole * 100 + int(cents or 0)) * MAGNITUDE_SIZES[magnitude]
        said = counted_in_myriads(hundredths) + word
    else:
        said = money(mark, whole, cents)
        said = said[: -len(word)] + MAGNITUDE_WORDS.get(magnitude, "") + word
    return ("负" if negative else "") + said


def counted_in_myriads(hundredths: int) -> str:
    """An amount given in hundredths, in 亿 from 10^8, else in 万 (nothing: 零): the whole
    number of them, and any decimals digit by digit without the zeros that end them."""
    if not hundredths:
        return "零"
    unit, word = (10**10, "亿") if hundredths >= 10**10 else (10**6, "万")
    whole, rest = divmod(hundredths, unit)
    decimals = str(rest).zfill(len(str(unit)) - 1).rstrip("0")
    return integer(whole) + ("点" + digits(decimals) if decimals else "") + word


def serial(groups: tuple) -> str:
    """Groups of digits joined by hyphens: digit by digit with 幺, 杠 between."""
    return "杠".join(digits(g, one="幺") for g in groups)


def numbered(kind: str, ordinal: bool, a: int, b: int) -> str:
    """`1-3号` → 一到三号, `2/3号` → 二号和三号, `第3/5号` → 第三号和第五号; a hyphen before a
    smaller number joins one label: `5-1号` → 五杠一号 (zh-front-9: no range runs down)."""
    if kind == "-":
        return f"{integer(a)}{'杠' if b < a else '到'}{integer(b)}号"
    head = "第" if ordinal else ""
    return f"{head}{integer(a)}号和{head}{integer(b)}号"


def offset(clock_parts: tuple, sign: str, hours: int, minutes: int) -> str:
    """A time with its offset from UTC after it: 东八区, 西五区, 协调世界时 for none, else
    协调世界时加/减 hours 小时 minutes 分."""
    if not (hours or minutes):
        zone = "协调世界时"
    elif not minutes and hours <= 12:
        zone = ("东" if sign == "+" else "西") + integer(hours) + "区"
    else:
        zone = "协调世界时" + ("加" if sign == "+" else "减") + integer(hours) + "小时"
        zone += integer(minutes) + "分" if minutes else ""
    return clock(clock_parts) + zone


def share(amount: str, symbol: str) -> str:
    """`1200ppm` → 百万分之一千二百, `5ppb` → 十亿分之五."""
    return {"ppm": "百万分之", "ppb": "十亿分之"}[symbol] + decimal(amount)


def hex_iec(written: str) -> str:
    """`16#FF00` → 十六进制 F F 零零."""
    return hex_code(written)


# --- Mandarin, zh-front-7 ------------------------------------------------------------------------


def zone(negative: bool, hours: int, minutes: int) -> str:
    """An offset from UTC as a zone: 东八区 / 西五区 for whole hours up to twelve, else
    协调世界时加/减 hours 小时 minutes 分."""
    if not minutes and hours <= 12:
        return ("西" if negative else "东") + integer(hours) + "区"
    said = "协调世界时" + ("减" if negative else "加") + integer(hours) + "小时"
    return said + (integer(minutes) + "分" if minutes else "")


def utc_word_offset(time: tuple | None, negative: bool, hours: int, minutes: int) -> str:
    """`08:30 UTC+8` → 八点三十分东八区, as `08:30+08:00` is said; an offset of nothing is UTC,
    said before the time (`08:30 UTC+0` → 协调世界时八点三十分)."""
    said = clock(time) if time else ""
    if not (hours or minutes):
        return "协调世界时" + said
    return said + zone(negative, hours, minutes)


def timestamp_range(date_form, first: tuple, second: tuple) -> str:
    """The date, then the first time 到 the second."""
    head = date(*date_form.parts[:3]) if date_form else ""
    return head + clock(first) + "到" + clock(second)


def european_number(whole: int, decimals: str, kind: str, words: str) -> str:
    """The number grouping and a decimal comma write: cardinal, decimals digit by digit; in
    euros as money is said (the zeros ending the cents left out)."""
    if kind == "euro":
        return money("€", whole, decimals)
    return integer(whole) + ("点" + digits(decimals) if decimals else "") + words


def signed_unit_range(
    low_negative: bool, low: str, high_negative: bool, high: str, words: str, twice: bool
) -> str:
    """Each end with 零下 (degrees Celsius) or 负 where it is below zero; the unit after each
    end where it is written after each, else once at the end."""
    minus = "零下" if words == "摄氏度" else "负"
    first = minus * low_negative + decimal(low) + (words if twice else "")
    return first + "到" + minus * high_negative + decimal(high) + words


def money_range(mark: str, low: int, low_size: str, high: int, high_size: str, twice: bool) -> str:
    """`$5-$10` → 五美元到十美元, `$5-10` → 五到十美元, `$1M-$2M` → 一百万美元到两百万美元: each
    end with its magnitude, as `money_more` says one."""
    word = MONEY[mark]
    ends = [
        money_more(False, mark, n, None, size)[: -len(word)]
        for n, size in ((low, low_size), (high, high_size))
    ]
    return ends[0] + (word if twice else "") + "到" + ends[1] + word


def short_month_day(cue: str, first: int, second: int) -> str:
    """Month first unless the first cannot be a month; a pair that is no day of the year as
    written, 斜杠 between (a colon after the cue said full-width)."""
    month, day = (second, first) if first > 12 >= second else (first, second)
    if 1 <= month <= 12 and 1 <= day <= DAYS_IN_MONTH[month - 1]:
        return cue + f"{integer(month)}月{integer(day)}日"
    return cue + f"{integer(first)}斜杠{integer(second)}"


def compact_date(year: int, month: int, day: int, before: str, after: str) -> str:
    """A day of the calendar: the year digit by digit, month and day; anything else the eight
    digits as a cardinal (fewer than nine digits, no leading zero)."""
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    if 1 <= month <= 12 and 1 <= day <= days[month - 1]:
        return before + date(year, month, day) + after
    return before + integer(year * 10000 + month * 100 + day) + after


def spelled_phone(groups: tuple) -> str:
    """加 the country code, then each group as written (the trunk zero its own), digit by digit
    with 幺, a pause between."""
    return "加" + "，".join(digits(g, one="幺") for g in groups)


def negative_unit(amount: str | None, above, below) -> str:
    """`0.5m⁻¹` → 零点五每米, `kg·m⁻³` → 千克每立方米; `10⁻⁶mbar` → 十的负六次方毫巴."""
    if amount is None and isinstance(above, int):
        return "十的负" + integer(above) + "次方" + below
    said = decimal(amount) if amount else ""
    said += "".join(unit_term(*t, len(above) > 1) for t in above)
    return said + "每" + "".join(unit_term(*t, len(below) > 1) for t in below)


def spaced_minus(word: str, amount: str, words: str) -> str:
    """The minus read with its value: 零下 for degrees Celsius, 负 else; 百分之 for a percentage;
    = is 等于, a colon full-width."""
    said_word = word.replace("=", "等于").replace(":", "：")
    if words == "%":
        return said_word + "负百分之" + decimal(amount)
    return said_word + ("零下" if words == "摄氏度" else "负") + decimal(amount) + words


def inch_size(before: str, size: str, after: str) -> str:
    return before + decimal(size) + "英寸" + after


def kelvin(word: str, amount: str) -> str:
    return word + decimal(amount) + "开尔文"


def year_last_date(first: int, second: int, year: int, pad: bool) -> str:
    """Month first unless the first cannot be a month; a day the month has not (in that year)
    as written, 斜杠 between the numbers (a leading zero said)."""
    month, day = (second, first) if first > 12 >= second else (first, second)
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    if 1 <= month <= 12 and 1 <= day <= days[month - 1]:
        return date(year, month, day)
    said = two if pad else integer
    return f"{said(first)}斜杠{said(second)}斜杠{integer(year)}"


def impossible_cjk_date(year: int, month: int, day: int) -> str:
    """Said as written: the year digit by digit before 年, the month and the day as numbers
    (a zero written before them not said), never another day."""
    return f"{digits(str(year))}年{integer(month)}月{integer(day)}日"


# --- Mandarin, zh-front-8 ------------------------------------------------------------------------


def unsaid(words: str) -> str:
    """Escape sequences, control and format characters and lone surrogates are not said: the
    words alone."""
    return words


def label_hyphen(word: str, before: int | None, n: int, tail: str) -> str:
    """A hyphen after a place or machine word joins a label: 杠, the number a cardinal."""
    head = (integer(before) + "号" if before is not None else "") + word
    return head + "杠" + integer(n) + tail


def letter_label(labels: tuple, joint: str, noun: str) -> str:
    """Each label its number as a cardinal and its letter spelled, then the noun: 二 A 泵."""
    return joint.join(integer(n) + letter for n, letter in labels) + noun


def clock_duration(word: str, hours: int, minutes: int, seconds: int) -> str:
    """After a duration word, hh:mm:ss is hours, minutes and seconds as a duration is said."""
    parts = [(str(hours), "hour"), (str(minutes), "minute"), (str(seconds), "second")]
    return word + duration(parts)


def day_first_or_dashed_date(kind, year: int | None, month: int, day: int, before, after) -> str:
    """The date, year digit by digit; a time after it said as a time."""
    said = date(year, month, day) if year else f"{integer(month)}月{integer(day)}日"
    if after.strip() == "08:00":
        after = " 八点"
    return before + said + after


def zero_padded_version(word: str, parts: tuple) -> str:
    """Each part a cardinal, one with a leading zero digit by digit; 点 between."""
    said = "点".join(
        digits(p) if len(p) > 1 and p.startswith("0") else integer(int(p)) for p in parts
    )
    return word + said


def dot_grouped_number(n: int, before: str, words: str) -> str:
    """Dots grouping thousands: one cardinal, its unit after it."""
    return before + integer(n) + words


def plc_address(percent: bool, block: int | None, letters: str, bit: str) -> str:
    """百分号 for `%`, letters spelled, a data block's number digit by digit with 幺 then 点,
    the address's decimal as a decimal is said."""
    said = "百分号" if percent else ""
    if block is not None:
        said += "DB" + digits(str(block), one="幺") + "点"
    return said + letters + decimal(bit)


def zero_below_or_minus(kind: str, word: str, amounts: tuple, negative: bool) -> str:
    """零下 once (after a written 零下 a minus is not said again); 负 for a difference; a range
    joined by 至 or 到 said as a dash's range, 零下 at each end below zero."""
    if kind == "zero below":
        return word + "零下" + decimal(amounts[0]) + "摄氏度"
    if kind == "difference":
        return word + "负" + decimal(amounts[0]) + "摄氏度"
    low, high = amounts
    return word + "零下" + decimal(low) + "到" + "零下" * negative + decimal(high) + "摄氏度"


def letter_roman(n: int, after: str) -> str:
    """The Roman numeral's number as a cardinal, then the counting word."""
    return integer(n) + after


def binary_literal(word: str, written: str) -> str:
    """二进制, then each digit, 幺 for one as a code is read."""
    return word + "二进制" + digits(written, one="幺")


def roman_list(numbers: tuple, word: str) -> str:
    """Each numeral its number, 、 between: 一、二段."""
    return "、".join(integer(n) for n in numbers) + word


def twelve_hour_time(hour: int, minute: int, afternoon: bool) -> str:
    """上午 before noon (凌晨零点 for twelve at night), 中午 for twelve noon, 下午 until five,
    晚上 after; 两点 for two; minutes below ten with 零."""
    if not afternoon:
        part, said = ("凌晨", "零") if hour == 12 else ("上午", None)
    else:
        part, said = ("中午" if hour == 12 else "下午" if hour < 6 else "晚上"), None
    said = said or ("两" if hour == 2 else integer(hour))
    tail = ("零" if minute < 10 else "") + integer(minute) + "分" if minute else ""
    return part + said + "点" + tail


def two_or_mixed_inches(kind: str, numbers: tuple, word: str) -> str:
    """两 before a measure word; a mixed number 又 its fraction (分之, as written: 2/4 is
    四分之二), then inches."""
    if kind == "two":
        return "两" + word
    whole, num, den = numbers
    return integer(whole) + "又" + integer(den) + "分之" + integer(num) + word


def named_value(letters: str, hyphen: str, numbers: str, amount: int) -> str:
    """`PT101 5%` → P T 幺零幺, a full-width comma, 百分之五: the tag, a pause, the value (the
    digits of the two must not run together)."""
    spelled = [*letters, *(["杠"] if hyphen else []), digits(numbers, one="幺")]
    return " ".join(spelled) + "，百分之" + integer(amount)


def descending_pair(before: str, first: str, second: str) -> str:
    """`CPU 1516-3` → C P U 幺五幺六杠三: an identifier in its groups, digit by digit with 幺."""
    return before + digits(first, one="幺") + "杠" + digits(second, one="幺")


def countdown(word: str, n: int, words: str) -> str:
    """`倒计时T-5分钟` → 倒计时 T 减五分钟."""
    return f"{word}T减{integer(n)}{words}"


def fault_code(word: str, letters: str, number: str) -> str:
    """`故障F30001` → 故障 F 三零零零幺: letters spelled, digits one by one with 幺."""
    return word + letters + digits(number, one="幺")


def short_year_date(year: int, month: int, day: int) -> str:
    """`26-11-30` → 二六年十一月三十日: the year as written, digit by digit."""
    return f"{digits(str(year))}年{integer(month)}月{integer(day)}日"


def zone_abbreviation(words: str, hours: int, minutes: int, seconds: int | None) -> str:
    """`14:05 CST` → 北京时间十四点零五分: the zone before the time."""
    return words + clock((None, hours, minutes, seconds, None, None))


def dots_range(low: int, high: int, words: str) -> str:
    """`12..5米` → 十二到五米: a range, its unit after it."""
    return f"{integer(low)}到{integer(high)}{words}"


def place_number(before: str, first: str, second: str, after: str) -> str:
    """`房间3-105` → 房间三杠幺零五: digit by digit with 幺, 杠 between."""
    return before + digits(first, one="幺") + "杠" + digits(second, one="幺") + after


def plus_86_phone(groups: tuple) -> str:
    """`+8613812345678` → 加八六, then the mobile in its groups (a pause between)."""
    return spelled_phone(("86", *groups))


def plate_or_long_value(kind: str, head: str, rest) -> str:
    """`京A12345` → 京 A 幺二三四五; `数值1000000000` → 数值十亿."""
    if kind == "value":
        return head + integer(rest)
    return head + "".join(digits(c, one="幺") if c.isdigit() else c for c in rest)
