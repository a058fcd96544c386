"""The alert pre-pass: the forms factory alerts use, read before general normalization.

A general normalizer guesses from context and guesses wrong on alert text (`12.5A` becomes a
date, `110` a phone number, `PT-101` a negative number). These rules are specific and run
first, so what reaches the general normalizer is plain Chinese with few digits left.

How the forms are read (conventions chosen for the loudspeaker, where a form is ambiguous):
- quantities are cardinals, decimals digit by digit: `2307` → 两千三百零七, `12.5` → 十二点五;
  a comma before exactly three digits groups thousands: `1,450rpm` → 一千四百五十转每分
  (NFKC folds a full-width comma into the same character, so that is one number too); other
  digits joined by commas are a list, 、 between its numbers: `3,4` → 三、四, `1,5bar` →
  一、五巴 (a decimal comma is not guessed), `1.234,5kg` → 一点二三四、五千克;
- telephone numbers digit by digit with 幺 for 1, a pause between groups: a mobile 3-4-4
  (`13812345678` → 幺三八, 幺二三四, 五六七八), a landline its area code and its number in two
  (`021-60121234`), one written in hyphenated groups in those groups (`021-6012-1234`,
  `0755-8888-6666`, `400-820-8820` → 四零零, 八二零, 八八二零), an extension after 转; after a
  word that says a number is dialled (拨打, 电话, 分机, 火警, 急救, ...) any number
  (`火警119` → 火警幺幺九);
- identifiers are digit by digit: leading zeros (`007`) and nine digits or more;
- device tags spell their letters and read digits one by one with 幺 for 1, 杠 for a hyphen:
  `PT-101` → P T 杠 幺零幺, `A3-07` → A 三 杠 零七; a single letter glued to a number with no
  hyphen is a position, read as letter and cardinal: `B12` → B 十二; a number with letters
  after it as cardinal and letters: `12B` → 十二 B;
- equipment numbering with `#` on either side is 号: `2#泵` → 二号泵, `#3机组` → 三号机组,
  `1#~3#` → 一号到三号; `No.5` → 五号; `1st` → 第一;
- dates year first (`2024-05-01`, `2024/5/1`, `2024.05.01`, `2024年5月1日`) with the year digit
  by digit: 二零二四年五月一日; a `T` or a space before the time is dropped or kept as is;
  times: `08:30` → 八点三十分, `14:05:09` → 十四点零五分九秒, also before a colon (a
  heading, full-width or not: `07:45:报警`); a time in UTC (a trailing Z) has 协调世界时
  before it and its date: `2024-05-01T08:30:00Z` → 协调世界时二零二四年五月一日八点三十分;
- compact durations: `3h40m` → 三小时四十分钟, `1h05m20s` → 一小时五分二十秒 (两 for two,
  分钟 when the minutes end it, 分 before seconds; parts of nothing left out);
- MAC addresses pair by pair with 幺 for 1, a pause (a full-width comma) between pairs:
  `AC:DE:48:00:11:22` → A C, D E, 四八, 零零, 幺幺, 二二;
- a known field inside a longer token keeps its reading, 杠, 下划线 or 斜杠 for what joins it:
  `GW2-10.20.30.40-A` → G W 二 杠 幺零点二零点三零点四零 杠 A;
- IPv4 addresses digit by digit with 幺 and 点, a port after 端口: `192.168.1.10:1883` →
  幺九二点幺六八点幺点幺零端口幺八八三;
- negative values 负 (零下 for degrees Celsius), written with a hyphen, a minus sign, an en
  dash or a Unicode hyphen where no letter or digit comes before; a bare leading point is
  零点 (`.5MPa` → 零点五兆帕); a superscript power after a number keeps its sign
  (`1*10⁻⁶mbar` → 一乘十的负六次方毫巴, `5²` → 五的二次方); scientific notation 乘十的…次方:
  `1.5e-3` → 一点五乘十的负三次方, `3.2*10^5Pa` (or with the multiplication sign) →
  三点二乘十的五次方帕, `10^6` → 十的六次方; tolerances `±0.5`, `+/-0.5` → 正负零点五;
- units read from their parts (zh/units.py): `5kvar·h` → 五千乏时, `12ft·lbf` → 十二英尺磅力,
  `9.81m/s²` → 九点八一米每二次方秒, `40m/min` → 四十米每分钟, `60Nm` → 六十牛米;
- percentages 百分之, ranges 到 (`-`, `~` or an en dash): `5~10℃` → 五到十摄氏度, `10%-20%` →
  百分之十到百分之二十 (the hyphen between two percentages is no 负);
- other dotted numbers (versions) with 点 between cardinals: `2.1.0` → 二点一点零;
- slash pairs (zh/plant.py): before a measure word a count, `2/3台泵运行` → 三台中的两台泵运行;
  otherwise a share 分之 where the first is below the second, `3/4` → 四分之三, `1 1/2` →
  一又二分之一, `½` → 二分之一; any other pair 斜杠: `12/3` → 十二斜杠三; a month and a day
  after a date word or before a time: `日期10/20` → 日期十月二十日;
- URLs with an address (`http://10.0.0.5:8080` → H T T P 冒号斜杠斜杠幺零点零点零点五端口
  八零八零), money (`￥300` → 三百元, `$1,200` → 一千二百美元), hexadecimal codes (`0x1F` →
  十六进制幺 F), order numbers character by character (`6ES7 214-1AG40-0XB0`), ratios after
  a ratio word (`比例1:50` → 比例一比五十), time ranges (`08:00-16:00` → 八点到十六点),
  compact ISO timestamps (`20261130T074500Z`), `≈` and a leading `~` as 约;
- groups of digits joined by hyphens that are no date or telephone number digit by digit, 杠
  between (`8842-1190-07` → 八八四二杠幺幺九零杠零七, a date that cannot be: `2026-13-01`);
  numbered units before 号: `1-3号泵` → 一到三号泵, `2/3号泵` → 二号和三号泵; any other two
  numbers a dash joins are a range (`1-3米` → 一到三米), a local number (`555-1234`) is dialled;
- a time that cannot be (`13:70`) is said as written, 冒号 between; an offset from UTC after
  a time is its zone: `+08:00` → 东八区, `+05:30` → 协调世界时加五小时三十分 (a minus offset only
  after the T of a timestamp, and not before a later time after one without seconds, as a dash
  between times is a range); `UTC` after a time as `Z`;
- parts per million and billion are shares: `1200ppm` → 百万分之一千二百;
- (zh/notation.py) an offset after `UTC` or `GMT` as the zone (`08:30 UTC+8` → 八点三十分东八区),
  European grouping where nothing else is meant (`€1.234,56`), ranges with the unit or the
  currency at both ends (`-5°C--10°C`, `$5-$10`), units to a negative power (`kg·m⁻³` →
  千克每立方米), a minus a space parts from its value after a colon or `=`, a compact date after
  a date word (`在20261130检修`); `报警` alone is no dialling word (`报警110` → 报警一百一十: an
  alarm's code; 报警电话 is one);
- (zh/codes.py) a hyphenated pair that runs down is an identifier (`CPU 1516-3` →
  C P U 幺五幺六杠三), a countdown is T 减 (`T-5分钟`), a code after a fault or code word is
  spelled (`故障F30001` → 故障 F 三零零零幺), a date with a two-digit year (`26-11-30`) and a
  zone's abbreviation after a time (`14:05 CST` → 北京时间十四点零五分);
- (zh-front-10) a hyphen spaced before and not after is the next value's minus,
  not a range (`罐3 -5℃` → 罐三 零下五摄氏度; joints.range_dash); a label's number
  before a slash or a date is parted from it by a pause (`柜3/2024-05-01`; plant.py);
  a falling pair with its unit, or after a word naming a value, is a range
  (`速度10-5转` → 速度十到五转; codes.py); digits after 工号, 卡号, 订单号, ... one
  by one (codes.py); hours with one digit or 00 after 停机, 离线, 运行, ... are a
  duration, and `2026.11` is a month (labels.py);
- (zh-front-11, parting.py) a slash between two values is 斜杠, a label's number and a value
  after a space are parted by a pause, a MAC address after a word and a colon is the address,
  `DC24V` is 直流二十四伏, `AL.21` a code spelled, `C` after a temperature Celsius and `M`
  after a level metres, no 零 for a date's leading zero, a pause between a weekday and a time;
- (zh-front-12, parting.py) a number and a C written onto a T tag's digits are the tag's code,
  no temperature: `TA-00C-PLC` → T A 杠 零零 C 杠 P L C, `TE-12C` → T E 杠 幺二 C (a value
  after a sign, a word or a space stays one: `TT-101 -5C` → …零下五摄氏度).
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule, read, rule
from cosyedge.speech.zh import (
    codes,
    fields,
    joints,
    labels,
    marks,
    notation,
    parting,
    plant,
    spellings,
)
from cosyedge.speech.zh.numbers import (
    digit_order,
    read_cardinal,
    read_digits,
    read_integer,
    read_number,
    read_signed,
)
from cosyedge.speech.zh.units import PATTERN as UNIT
from cosyedge.speech.zh.units import say_unit

# A comma before exactly three digits groups thousands: 1,450 and 12,500.5 are one number each.
# A bare leading point is a decimal too (.5MPa is 零点五兆帕), where no digit, letter or point
# comes before it (v2.5, 1.1.5 are other forms).
# A number never starts inside a run of digits: a pattern failing at the run's first digit
# would otherwise be tried again at each later one (quadratic time on a long digit run).
_NUMBER = r"(?:(?<!\d)(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?|(?<![A-Za-z0-9.])\.\d+)"
# Digits joined by commas; one number only where the commas group thousands.
_COMMA_DIGITS = r"(?<![\d.])(?<!\d,)\d+(?:[.,]\d+)*,\d+(?:[.,]\d+)*"
_THOUSANDS = rx.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
# A minus sign is one when it does not join two alphanumerics (PT-101, 5-10 are not negatives);
# an en dash before a number is one as well (温度–5℃), as texts pasted from documents write it.
_SIGN = r"(?:(?<![A-Za-z0-9])[-−\u2013])?"
# A unit ends where a Latin letter or digit does not follow, so `5min` is not `5m` + `in`.
_UNIT_END = r"(?![A-Za-z0-9²³])"
_DASH = joints.range_dash()


def _code(m: re.Match[str]) -> str:
    """PT-101 → P T 杠 幺零幺: letters one by one, digits one by one, 杠 for the hyphen."""
    out = []
    for part in re.findall(r"[A-Za-z]|\d+|[-_/]", m.group(0)):
        if part.isdigit():
            out.append(read_digits(part, one="幺"))
        elif part in "-_":
            out.append("杠")
        elif part == "/":
            out.append("斜杠")
        else:
            out.append(part.upper())
    return " " + " ".join(out) + " "


def _number_text(written: str) -> str:
    return read_number(written.replace(",", ""))


def _date(m: re.Match[str]) -> str:
    """二零二四年五月一日; a day the calendar has not is said as written: with 年 and 月 its
    numbers as numbers (`2026年02月30日` → 二零二六年二月三十日), else left to the serial rule
    (`2026-02-30` → 二零二六杠零二杠三零), never as another day."""
    said = fields.say_date(m.group(1), m.group(2), m.group(3))
    if said is not None:
        return said
    if "年" not in m.group(0) or "月" not in m.group(0):
        return m.group(0)
    ending = m.group(0)[-1] if m.group(0)[-1] in "日号" else ""
    month, day = read_integer(int(m.group(2))), read_integer(int(m.group(3)))
    return f"{read_digits(m.group(1))}年{month}月{day}{ending}"


def _time(m: re.Match[str]) -> str:
    """A clock time; one that cannot be (13:70, 25:00) is said as written, 冒号 between its
    numbers: no hour is guessed, and no ratio without a word that says one follows."""
    said = fields.say_time(m.group(1), m.group(2), m.group(3), m.group(4) or "")
    if said is not None:
        return said
    parts = [p for p in m.group(1, 2, 3) if p is not None]
    return "冒号".join(read_number(p) for p in parts) + (
        "点" + read_digits(m.group(4)) if m.group(4) else ""
    )


def _signed(sign: str, number: str) -> tuple[str, bool]:
    return _number_text(number), bool(sign)


# Parts per million and billion are said as the share they are: 百万分之五, not 五 P P M.
_SHARES = {"ppm": "百万分之", "ppb": "十亿分之"}


def _quantity(reading: str, unit: str) -> str:
    """A number's reading with its unit's words: after it, or the share word before it."""
    share = _SHARES.get(unit)
    return share + reading if share else reading + say_unit(unit)


def _with_unit(m: re.Match[str]) -> str:
    reading, negative = _signed(m.group(1), m.group(2))
    said = _quantity(reading, m.group(3))
    if negative:
        return ("零下" if say_unit(m.group(3)) == "摄氏度" else "负") + said
    return said


# Per mille and per ten thousand (basis points) as the shares they are: 千分之三, 万分之五.
_PER_WORDS = {"‰": "千分之", "‱": "万分之"}


def _percent(m: re.Match[str]) -> str:
    reading, negative = _signed(m.group(1), m.group(2))
    word = _PER_WORDS.get(m.group(3), "百分之")
    return ("负" if negative else "") + word + reading


def _bound(sign: str, number: str, unit: str) -> str:
    """One end of a range, with the word its sign takes before this unit."""
    reading = _number_text(number)
    if not sign:
        return reading
    return ("零下" if say_unit(unit) == "摄氏度" else "负") + reading


def _range(m: re.Match[str]) -> str:
    """5-10℃ → 五到十摄氏度, -20~60℃ → 零下二十到六十摄氏度, 20~30% → 百分之二十到百分之三十."""
    unit = m.group(5)
    low, high = _bound(m.group(1), m.group(2), unit), _bound(m.group(3), m.group(4), unit)
    if unit in ("%", "％"):
        return f"百分之{low}到百分之{high}"
    if unit in _SHARES:
        return f"{_quantity(low, unit)}到{_quantity(high, unit)}"
    return f"{low}到{high}{say_unit(unit)}"


def _percent_range(m: re.Match[str]) -> str:
    """10%-20% → 百分之十到百分之二十: each end a percentage, 负 before a negative one's 百分之
    (as `-5%` alone), the hyphen between them no sign."""
    ends = ((m[1], m[2]), (m[3], m[4]))
    low, high = ("负" * bool(sign) + "百分之" + _number_text(n) for sign, n in ends)
    return f"{low}到{high}"


def _number(m: re.Match[str]) -> str:
    sign, digits = m.group(1), m.group(2).replace(",", "")
    whole = digits.partition(".")[0]
    identifier = len(whole) >= 9 or (len(whole) > 1 and whole[0] == "0")
    if "." not in digits and "," not in m.group(2) and identifier:
        reading = read_digits(whole)  # identifiers, not quantities (which grouping marks)
    else:
        reading = read_number(digits)
    return ("负" if sign else "") + reading


def _scientific(m: re.Match[str]) -> str:
    """1.5e-3 → 一点五乘十的负三次方, with a unit after it if one follows."""
    reading, negative = _signed(m.group(1), m.group(2))
    power = read_signed(m.group(3))
    unit = say_unit(m.group(4) or "")
    return ("负" if negative else "") + f"{reading}乘十的{power}次方{unit}"


def _ipv4(m: re.Match[str]) -> str:
    octets, port, prefix = m.group(1).split("."), m.group(2), m.group(3)
    if any(int(o) > 255 for o in octets):
        return m.group(0)
    text = "点".join(read_digits(o, one="幺") for o in octets)
    if port:
        text += "端口" + read_digits(port, one="幺")
    if prefix:
        text += "斜杠" + read_integer(int(prefix))
    return text


def _dotted(m: re.Match[str]) -> str:
    """1.2.3 → 一点二点三; a part with a leading zero digit by digit, as a version writes it:
    1.02.003 → 一点零二点零零三 (1.2.3 is another version)."""
    return "点".join(_version_part(part) for part in m.group(0).split("."))


def _version_part(part: str) -> str:
    return read_digits(part) if len(part) > 1 and part.startswith("0") else read_cardinal(part)


def _numbered(number: str) -> str:
    return read_cardinal(number) + "号"


def _comma_list(m: re.Match[str]) -> str:
    """Digits joined by commas that do not group thousands, as the list they are written as,
    、 between its numbers: `3,4` → 3、4, `1,5bar` → 1、5bar (a decimal comma would be a
    guess: a list never invents a magnitude), `1.234,5` → 1.234、5 (no European grouping)."""
    written = m.group(0)
    return written if _THOUSANDS.fullmatch(written) else "、".join(written.split(","))


def _power(m: re.Match[str]) -> str:
    """10^6 → 十的六次方, 10^-3 → 十的负三次方, 5^2 → 五的二次方: a power of a number alone,
    its unit after it (10^-6mbar → 十的负六次方毫巴)."""
    base, power = m.group(1), m.group(2)
    sign, digits = (power[0], power[1:]) if power[:1] in "+-−" else ("", power)
    minus = "负" if sign in ("-", "−") else ""
    said = f"{read_number(base)}的{minus}{read_cardinal(digits)}次方"
    return said + say_unit(m.group(3) or "")


def _serial(m: re.Match[str]) -> str:
    """8842-1190-07 → 八八四二杠幺幺九零杠零七: groups of digits digit by digit, 幺 for 1."""
    return "杠".join(read_digits(group, one="幺") for group in m.group(0).split("-"))


def _local_phone(m: re.Match[str]) -> str:
    """555-1234 → 五五五, 幺二三四 (a pause between); 100-1000, a multiple of five up to a
    larger multiple of a hundred, is a range: 一百到一千 (as English reads it)."""
    head, tail = m.group(1), m.group(2)
    if int(head) % 5 == 0 and int(tail) % 100 == 0 and int(head) < int(tail):
        return f"{read_number(head)}到{read_number(tail)}"
    return fields.say_phone(f"{head}-{tail}")


def _numbered_range(m: re.Match[str]) -> str:
    """1-3号泵 → 一到三号泵; a hyphen before a smaller number joins one label, no range runs
    down: 5-1号泵 → 五杠一号泵 (a unit's sub-number, as 3号机-2号泵 is)."""
    first, joint, second = m.groups()
    if joint == "-" and digit_order(second) < digit_order(first):
        return f"{read_cardinal(first)}杠{_numbered(second)}"
    return f"{read_cardinal(first)}到{_numbered(second)}"


def _numbered_pair(m: re.Match[str]) -> str:
    """2/3号泵 → 二号和三号泵, 第3/5号 → 第三号和第五号: two numbered units, both named."""
    ordinal = m.group(1) or ""
    first, second = (ordinal + _numbered(n) for n in m.group(2, 3))
    return f"{first}和{second}"


def _year(m: re.Match[str]) -> str:
    return read_digits(m.group(1)) + "年"


RULES: tuple[Rule, ...] = (
    # Supplies, codes, labels before values, dates' zeros: forms the rules below misread.
    *parting.FIRST,
    # Ranges whose ends both have a Chinese word: the dash is 到, before a label takes it.
    *joints.RULES,
    # Units in capitals or mixed case (1500RPM, 1.6Mpa), as the symbol the unit rules know.
    *spellings.RULES,
    # Labels, durations, dates, versions and addresses the number rules would misread.
    *labels.RULES,
    # Codes, pairs, countdowns and stamps the value rules would misread (marks.py).
    *marks.RULES,
    # Zones after times, short-year dates, countdowns and fault codes (codes.py).
    *codes.RULES,
    # Offsets after UTC, European grouping, spaced minus signs, compact dates, money ranges.
    *notation.RULES,
    # URLs, money, codes, ratios, time ranges: their digits are no amounts, tags or times.
    # An offset from UTC after a time (+08:00), before a range could take its dash.
    rule("time zone offset", fields.OFFSET, fields.say_offset_after),
    *plant.RULES,
    *fields.RULES,
    *marks.CODES,
    *notation.UNIT_RULES,
    rule("list of numbers", _COMMA_DIGITS, _comma_list),
    # A caret power of ten after a times sign is scientific notation (3.2×10^5Pa, read below
    # as 3.2e5Pa); alone (10^6) it is said as a power.
    rule(
        "scientific notation",
        r"(?<![\d.])(\d+(?:\.\d+)?)\s*[x×*·⋅]\s*10\^([-+−]?\d+)(?![\d^])",
        lambda m: f"{m[1]}e{m[2].replace('−', '-')}",
    ),
    # A caret or superscript power of a number alone: 10^6, 10⁻⁶, 5², with a unit after it
    # if one follows (10⁻⁶mbar).
    rule(
        "scientific notation",
        rf"(?<![\d.^A-Za-z])(\d+(?:\.\d+)?)\^([-+−]?\d+)(?![\d^])(?:\s*({UNIT}){_UNIT_END})?",
        _power,
    ),
    # A tolerance written in ASCII, so its minus is not read as a negative sign.
    rule("tolerance", r"\+\s*/?\s*-(?=\s*\d)", lambda m: "±"),
    rule(
        "IP address",
        r"(?<![\d.])(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?(?:/(\d{1,2}))?(?![\d.])",
        _ipv4,
    ),
    # Device tags: two to four capitals, optional hyphen, digits, optional suffix letter;
    # any capitals-hyphen-digits form (A-3, PLC-2-07); one capital, digits, hyphen (A3-07).
    rule(
        "device tag",
        r"(?<![A-Za-z0-9])(?:[A-Z]{2,4}[-_]?\d+|[A-Z]{1,4}(?:[-_]\d+)+|[A-Z]\d+(?:[-_]\d+)+)"
        r"(?:[-_]?[A-Z])?(?:[-_/]\d+)*(?![A-Za-z0-9])",
        _code,
    ),
    # The day ends at 日 or 号, or where no digit follows; a T before the time is dropped.
    rule(
        "date",
        r"(?<![\d.])(\d{4})[-/.年](\d{1,2})[-/.月](\d{1,2})(?:[日号]|T(?=\d)|(?![\d.]))",
        _date,
    ),
    # Three groups of digits or more joined by hyphens that are no date (a serial number, a
    # date that cannot be: 2026-13-01): digit by digit, 杠 between the groups as written.
    rule("serial number", r"(?<![A-Za-z0-9.-])\d+(?:-\d+){2,}(?![A-Za-z0-9-]|\.\d)", _serial),
    rule("dotted number", r"(?<![\d.])\d+(?:\.\d+){2,}(?![\d.])", _dotted),
    rule("year", r"(?<!\d)(\d{4})年", _year),
    # A colon after the time ends a heading (07:45：停机), as one before it starts a field.
    rule(
        "time",
        r"(?<!\d)(?<!\d[:：])(\d{1,2})[:：](\d{2})(?:[:：](\d{2})(?:\.(\d+))?)?(?!\d|[:：.]\d)"
        r"(?:分(?!钟))?",
        _time,
    ),
    # Numbers an ASCII colon joins that are no time (1:3, 2:1, 1:1000, 1:3:5) are a ratio, as
    # after a ratio word: the colon was a pause (一 三), the ratio lost.
    rule(
        "ratio",
        r"(?<![A-Za-z0-9.])(?<!\d[:：])(\d+(?:\.\d+)?(?::\d+(?:\.\d+)?)+)"
        r"(?![A-Za-z0-9:：]|\.\d)",
        lambda m: "比".join(read_number(term) for term in m[1].split(":")),
    ),
    rule(
        "scientific notation",
        rf"({_SIGN})(?<!\d)(\d+(?:\.\d+)?)[eE]([-+]?\d+)(?:\s*({UNIT}){_UNIT_END})?",
        _scientific,
    ),
    rule(
        "range",
        rf"({_SIGN})(?<![\d.])({_NUMBER}){_DASH}({_SIGN})({_NUMBER})\s*"
        rf"({UNIT}|[%％]){_UNIT_END}",
        _range,
    ),
    rule(
        "range",
        rf"({_SIGN})(?<![\d.])({_NUMBER})\s*[%％]{_DASH}({_SIGN})({_NUMBER})\s*[%％]",
        _percent_range,
    ),
    rule("percentage", rf"({_SIGN})({_NUMBER})\s*([%％‰‱])", _percent),
    rule("unit", rf"({_SIGN})({_NUMBER})\s*({UNIT}){_UNIT_END}", _with_unit),
    # A pair that runs down is an identifier (CPU 1516-3), not a range.
    *codes.HYPHENS,
    # Numbered units before 号: a range (1-3号泵 → 一到三号泵), a pair (2/3号泵 → 二号和三号泵).
    rule(
        "equipment number",
        r"(?<![A-Za-z0-9./-])(\d+)\s*([-~\u2013])\s*(\d+)号",
        _numbered_range,
    ),
    rule("equipment number", r"(?<![A-Za-z0-9./])(第)?(\d+)/(\d+)号", _numbered_pair),
    *plant.SLASHES,
    # Equipment numbers: 1#~3#, 2#, #3 (NFKC has already folded ＃ and ～).
    rule(
        "equipment number",
        r"(?<!\d)(\d+)#\s*[-~\u2013\u2014]\s*(\d+)#",
        lambda m: f"{_numbered(m[1])}到{_numbered(m[2])}",
    ),
    rule("equipment number", r"(?<![\d.])(\d+)#", lambda m: _numbered(m.group(1))),
    rule("equipment number", r"#(\d+)", lambda m: _numbered(m.group(1))),
    rule("equipment number", r"(?:[Nn]o|NO)\.\s*(\d+)", lambda m: _numbered(m.group(1))),
    rule(
        "ordinal",
        r"第?(?<![\d.])(\d+)(?:st|nd|rd|th)(?![A-Za-z])",  # 第 said once: 第1st
        lambda m: "第" + read_cardinal(m[1]),
    ),
    # Two numbers a slash parts that no rule above read (decimals: 1.5/3): 斜杠 as written.
    rule(
        "slash pair",
        r"(?<![A-Za-z0-9./])(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)(?![\d./])",
        lambda m: f"{read_number(m[1])}斜杠{read_number(m[2])}",
    ),
    # A local telephone number (three digits, four): digit by digit, as dialled; a multiple of
    # five then a multiple of a hundred above it is a range. Any other two numbers a dash joins
    # are a range:
    # 1-3米 → 一到三米 (a hyphen between digits is never 负).
    rule("telephone number", r"(?<![A-Za-z0-9.-])(\d{3})-(\d{4})(?![\d.-])", _local_phone),
    rule(
        "range",
        rf"(?<![A-Za-z0-9.-])(\d+(?:\.\d+)?){_DASH}(\d+(?:\.\d+)?)(?![\d.-])",
        lambda m: f"{read_number(m[1])}到{read_number(m[2])}",
    ),
    rule("number", rf"({_SIGN})({_NUMBER})", _number),
    # A slash between two values read, 元 after a currency's name.
    *parting.LAST,
)


def prepass(text: str) -> str:
    """Rewrite alert forms into words; everything else is left for the general normalizer."""
    return re.sub(r" {2,}", " ", read(RULES, text)).strip()
