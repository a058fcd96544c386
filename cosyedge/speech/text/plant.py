"""English readings of forms plant text writes that a general rule would misread: integer
slash pairs (`2/3 pumps`), a day and a month without a year, money, hexadecimal codes,
ratios, time ranges and compact ISO timestamps; addresses are read as dictated
(`addresses.py`).

Slash pairs, the rule chosen (`Pumps 2/3 running` was "two thirds", `10/20 pumps` "October
twentieth"):
- a two-digit year after them makes a date without a cue (`31/12/26`, en-9); without a
  year two digits each side (`10/20`) are a day and a month only with a cue that a date is
  meant: a word before it (on, since, until, from, by, due, date, a weekday) or a time after
  it (`10/20 14:00`); day first unless it cannot be; a one-digit side (`on 9/30`, `due 3/4`)
  only after a word only a date follows (on, since, until, due, date, a weekday, ...), with
  no unit, count or extent after it (en-7);
- a fraction only where it is clearly a quantity: a vulgar fraction character (`½`, `1½`),
  a mixed number (`1 1/2`), or a numerator below a denominator of 2, 3, 4, 8, 16, 32 or 64
  followed by a unit, an inch mark (`1/2 in`, `3/4"`) or a word of extent or size (`3/4
  open`, `5/8 bolt`, `2/3 of`);
- any other integer pair is a count of a whole, as plants write running units: `2/3` → "two
  of three" where the first is at most the second; "slash" otherwise (`24/7`, `12/3`), and
  before a unit (`12/24 V` is a dual rating, not a share).
"""

from __future__ import annotations

import calendar
import re

from cosyedge.speech import rx
from cosyedge.speech.text import hexforms, units
from cosyedge.speech.text.addresses import ADDRESS, URL, read_address, read_url
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import (
    MONTHS,
    cardinal,
    digits,
    fraction,
    letters,
    number,
    ordered,
    ordinal,
    whole_value,
    year,
)
from cosyedge.speech.text.zones import is_range_end

# Not inside a word, an address or another field (as english.py's fields start).
_FIELD_START = r"(?<![\w./-])(?<!\d[,:])"
_WEEKDAYS = "Mon|Tue|Tues|Wed|Thu|Thurs|Fri|Sat|Sun|Monday|Tuesday|Wednesday|Thursday|Friday"
_WEEKDAYS += "|Saturday|Sunday"
# Words after which two digits each side name a day: a date is meant (when a thing happens,
# is planned or is due: `scheduled for 10/20`, `ETA 10/20`, `Next PM 10/20`).
DATE_CUES = (
    rf"on|since|until|till|from|by|due|before|after|date|dated|{_WEEKDAYS}|for|ETA|ETD|"
    r"scheduled|planned|deadline|expires|expiry|starting|effective|through|thru|PM"
)
_TIME_AHEAD = r"(?=\s+\d{1,2}:\d\d)"
# With a cue, a two-digit year may follow (`on 10/20/26`).
DAY_MONTH = rx.compile(
    rf"(?:(?<![\w.])((?i:{DATE_CUES}))(:?\s+|:))?{_FIELD_START}(\d{{1,2}})/(\d{{1,2}})"
    rf"(?:/(\d{{2}}))?(?![\w/]|[.,:]\d)({_TIME_AHEAD})?"
)


def real_date(year: int | None, month: int, day: int) -> bool:
    """Whether the day is one of the month's (of the year's, when one is given: 29/02/2025 is
    none; without a year 29/02 may be)."""
    if not 1 <= month <= 12:
        return False
    return 1 <= day <= calendar.monthrange(2024 if year is None else year, month)[1]


def day_month(first: str, second: str, year: int | None = None) -> tuple[int, int] | None:
    """(day, month) of `first/second`, day first unless it cannot be a day of a month the
    second names (05/31); None for no such day (31/04)."""
    a, b = int(first), int(second)
    d, mo = (b, a) if b > 12 >= a else (a, b)
    return (d, mo) if real_date(year, mo, d) else None


def _day_and_month(m: re.Match[str]) -> str:
    """`on 10/20` → "on October twentieth", `on 10/20/26` → "on October twentieth twenty
    twenty six", `10/20 14:00` → "October twentieth, 14:00"; without a cue the pair is left
    for the slash-pair rule, and so is a day the month does not have."""
    cue, between, first, second, short_year, time = m.groups()
    if short_year and not cue:
        return _year_last(first, second, short_year, time is not None)
    if len(first + second) < 4 and not _short_date(m):
        return m.group(0)  # 2/3 pumps, by 1/2: a count or a fraction, for the slash-pair rule
    full_year = 2000 + int(short_year) if short_year else None
    found = day_month(first, second, full_year)
    if found is None or not (cue or time is not None):
        return m.group(0)
    if (cue or "").lower() == "for" and _COUNTED_AHEAD.match(m.string, m.end()):
        return m.group(0)  # wait for 10/20 pumps: a count of a whole, not a date
    d, mo = found
    said = f"{MONTHS[mo - 1]} {ordinal(d)}" + (f" {year(full_year)}" if full_year else "")
    said += "," if time is not None else ""
    return (cue + between if cue else "") + said


def _year_last(first: str, second: str, short_year: str, time: bool) -> str:
    """A day, a month and a two-digit year without a cue (en-9): a date, day first unless it
    cannot be, as with a year of four digits (`31/12/26`, `2/12/26` → "December second
    twenty twenty six"); no such day: as written (`10/40/26` → "10 slash 40 slash 26")."""
    full_year = 2000 + int(short_year)
    found = day_month(first, second, full_year)
    if found is None:
        return f"{first} slash {second} slash {short_year}"
    d, mo = found
    return f"{MONTHS[mo - 1]} {ordinal(d)} {year(full_year)}" + ("," if time else "")


# A one-digit day or month (en-7) is a date only after a word that only a date follows, and
# with no unit, count or extent after it (`on 9/30`, `due 3/4`; not `by 1/2`, `on 2/3 pumps`).
_ONLY_DATE_CUES = rx.compile(
    rf"(?i:on|since|until|till|due|date|dated|{_WEEKDAYS}|ETA|ETD|scheduled|planned|deadline"
    r"|expires|expiry|starting|effective)"
)


def _short_date(m: re.Match[str]) -> bool:
    """Whether a pair with a one-digit side is a day and a month (see _ONLY_DATE_CUES)."""
    cue = m.group(1)
    if not cue or not _ONLY_DATE_CUES.fullmatch(cue) or _share_after_on(m):
        return False
    rest = m.string[m.end() :]
    # An inch mark after it (`1/4" line`) is a size; a quote closing a quotation is none
    # (quotes counted in the sentence's reach before it, so a long text reads in linear time).
    inch = rest.startswith('"') and not quote_open(m.string, m.start())
    return not re.match(rf"\s?(?:{_TIME_WORDS})\b|\s(?:{_EXTENT})\b", rest) and not (
        inch or units.UNIT_AHEAD.match(rest) or _COUNTED_AHEAD.match(rest)
    )


def _share_after_on(m: re.Match[str]) -> bool:
    """Whether a pair after "on" may be a share or a fraction (en-9): "on" also stands
    before a vote or an amount (`Trip on 2/3 voting`, `open on 3/4`), so a pair that can be
    one (a first below a second of 2, 3, 4, 8, 16, 32 or 64) is none of a date; one that
    can only be a date (`on 9/30`, `on 5/4`) stays one, as after a stronger cue (`due 3/4`)."""
    top, bottom = int(m.group(3)), int(m.group(4))
    share = 0 < top < bottom and bottom in FRACTION_DENOMINATORS
    return m.group(1).lower() == "on" and share and m.group(5) is None  # on 2/3/26: a date


_QUOTE_REACH = 200
# Plural nouns after a pair: what a count is of (10/20 pumps).
_COUNTED_AHEAD = rx.compile(r"\s+(?:[a-z]+s|running|online|open)\b")
# An eight-digit date after a cue (`Event 20261130`): alone it stays an amount.
COMPACT_DATE = rx.compile(
    rf"(?<![\w.])((?i:{DATE_CUES}|event|logged|recorded|created|updated|backup|report):?\s+)"
    r"((?:19|20)\d\d)(\d\d)(\d\d)(?![\w-]|[.,:]\d)"
)


def _compact_date(m: re.Match[str]) -> str:
    cue, y, mo, d = m.groups()
    if not real_date(int(y), int(mo), int(d)):
        return m.group(0)
    return f"{cue}{MONTHS[int(mo) - 1]} {ordinal(int(d))} {year(int(y))}"


# --- integer slash pairs and fractions ---------------------------------------------------------

# Denominators a quantity is written in: halves, thirds, quarters and the inch's fractions.
FRACTION_DENOMINATORS = frozenset({2, 3, 4, 8, 16, 32, 64})
# Words after a pair that say it is an amount of something: how far, how full, what size.
_EXTENT = r"open|closed|full|empty|load|speed|capacity|turns?|way|of|bolt|pipe|hose|thread|nut"
# An inch mark, or "in" where a size ends (1/2 in, 1/2 in pipe; not 2/3 in service).
_INCH = rf"inch(?:es)?\b|\"|\u2032\u2032|in(?=\s*(?:$|[,.;:)!?]|(?:{_EXTENT}|valve|NPT|BSP)\b))"
SLASH_PAIR = rx.compile(
    rf"{_FIELD_START}(?:(\d+) )?(\d+)([/\u2044])(\d+)(?!\d)"
    rf"(?:(\s?(?:{_INCH}))|(\s?(?:{units.GRAMMAR.pattern()}))(?![\w/²³^])"
    rf"|(?=\s(?:{_EXTENT})\b)()|(?![\w/\u2044]|[.,:]\d))"
)
_INCHES = units.Unit((units.Term("", "in"),))


def _unit(written: str | None, inch: str | None) -> units.Unit | None:
    """The unit after a pair (an inch mark is inches); a lone letter is none, as it may be a
    label (2/3 A)."""
    if inch:
        return _INCHES
    unit = units.GRAMMAR.parse(written.strip()) if written else None
    return None if unit is None or unit.lone_letter else unit


def _quantity(whole: str | None, n: int, d: int, unit: units.Unit | None) -> str:
    """A fraction. An inch size is said as the trade says it, the fraction an adjective:
    `3/4"` → "three quarter inch"; another unit "of a": `3/4 kg` → "three quarters of a
    kilogram"; after a mixed number the unit is plural: `1 1/2 in` → "one and one half
    inches"."""
    if whole:
        said = f"{number(whole)} and {fraction(n, d)}"
        return said + (f" {units.unit_words(unit, True)}" if unit else "")
    if unit is None:
        return fraction(n, d)
    if unit is _INCHES:
        return f"{fraction(n, d, plural=False)} inch"
    words = units.unit_words(unit, False)
    article = "an" if re.match("[aeiou]|hour", words) else "a"
    return f"{fraction(n, d)} of {article} {words}"


def _pair(top: str, bottom: str, before_unit: bool) -> str:
    """`2/3` → "2 of 3" (a count of a whole), `12/3` → "12 slash 3"; the numbers are left for
    the number rule."""
    if ordered(top) <= ordered(bottom) and bottom.strip("0") and not before_unit:
        return f"{top} of {bottom}"
    return f"{top} slash {bottom}"


# A double quote that opens or closes a quotation: not an inch mark after a digit.
_QUOTE = rx.compile(r'(?<!\d)"')


def quote_open(text: str, at: int) -> bool:
    """Whether a quotation is open at `at`: quotes counted in the sentence's reach before it
    (_QUOTE_REACH characters), not from the text's start, so a long text of inch marks reads
    in linear time."""
    return len(_QUOTE.findall(text, max(0, at - _QUOTE_REACH), at)) % 2 == 1


def _closes_a_quote(m: re.Match[str], inch: str | None) -> bool:
    """A double quote after a pair is an inch mark unless a quotation is open before it
    ("½" is one half in quotes)."""
    return inch == '"' and quote_open(m.string, m.start())


def _slash_pair(m: re.Match[str]) -> str:
    """A pair as the module's docstring states: a fraction as a quantity, else a count of a
    whole or "slash"; a unit after a pair that is no fraction is left for the unit rule."""
    whole, top, slash, bottom, inch, unit_written, extent = m.groups()
    if _closes_a_quote(m, inch):
        return _slash_pair(SLASH_PAIR.match(m.string[: m.end() - 1], m.start())) + '"'
    # A run too long for a quantity is no fraction (0): the pair's reading, digit by digit.
    n, d = whole_value(top) or 0, whole_value(bottom) or 0
    unit = _unit(unit_written, inch)
    written = slash == "\u2044"  # a vulgar fraction character: a fraction however used
    if unit is None and unit_written and (whole or written):  # 1⅓ m: a quantity, no label (en-8)
        unit = units.GRAMMAR.parse(unit_written.strip())
    quantity = whole is not None or unit is not None or extent is not None
    if 0 < n < d and (written or (quantity and d in FRACTION_DENOMINATORS)):
        return _quantity(whole, n, d, unit)
    said = f"{whole} " * bool(whole) + _pair(top, bottom, unit_written is not None)
    if unit is None and unit_written and unit_written.strip() == "V":
        # 12/24 V supply lost: a dual voltage rating (a lone A may be a label: 2/3 A)
        written_unit = units.GRAMMAR.parse(unit_written.strip())
        return f"{said} {units.unit_words(written_unit, True)}"
    return said + (" inch" if inch else unit_written or "")


# --- money: $1,200, €5.50, £30, ¥300, CNY 300 --------------------------------------------------

# Symbol or code → (one, many, the hundredth's one, many). ¥ and ￥ (NFKC folds one into the
# other) are yuan: the sites this reads for price in renminbi; JPY names yen.
CURRENCIES = {
    "$": ("dollar", "dollars", "cent", "cents"),
    "USD": ("dollar", "dollars", "cent", "cents"),
    "€": ("euro", "euros", "cent", "cents"),
    "EUR": ("euro", "euros", "cent", "cents"),
    "£": ("pound", "pounds", "penny", "pence"),
    "GBP": ("pound", "pounds", "penny", "pence"),
    "¥": ("yuan", "yuan", "fen", "fen"),
    "CNY": ("yuan", "yuan", "fen", "fen"),
    "RMB": ("yuan", "yuan", "fen", "fen"),
    "JPY": ("yen", "yen", "sen", "sen"),
    "\u20b9": ("rupee", "rupees", "paisa", "paise"),  # the rupee sign (en-9)
    "INR": ("rupee", "rupees", "paisa", "paise"),
    "CHF": ("Swiss franc", "Swiss francs", "centime", "centimes"),
}
# A euro amount may be written with a decimal comma (€5,50: two digits after it, never three,
# which group thousands).
_AMOUNT = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+|,\d\d(?!\d))?"
# A magnitude after the amount: $1.5M, $2.3k, $1.5 million.
MAGNITUDES = {"k": "thousand", "K": "thousand", "M": "million", "B": "billion", "bn": "billion"}
MAGNITUDES |= {"T": "trillion", "tn": "trillion", "trillion": "trillion"}
MAGNITUDES |= {"thousand": "thousand", "million": "million", "billion": "billion"}
# Not a tag's letters after the amount (`$5 T-101`: five dollars, then the tag).
_MAGNITUDE = r"(?:\s?(k|K|M|B|bn|T|tn)|\s(thousand|million|billion|trillion))(?![\w.,]\w|\w|-\d)"
# A minus before the sign or after it: -$50, $-50.
MONEY = rx.compile(
    rf"(?<![\w.])(-\s?)?(?:([$€£¥\u20b9])\s?(-)?|(USD|EUR|GBP|CNY|RMB|JPY|INR|CHF)\s)({_AMOUNT})"
    rf"(?:{_MAGNITUDE}|(?![\d.,]\d|\w))"
    rf"|(?<![\w.])(?<!\d,)({_AMOUNT})(?:\s?(k|K|M|B|bn|T|tn)(?=\s)|\s(thousand|million|billion))?"
    r"\s?(USD|EUR|GBP|CNY|RMB|JPY|INR|CHF|[€])(?!\w)"
)


def say_money(amount: str, currency: str, magnitude: str | None = None) -> str:
    """`1,200`, `$` → "one thousand two hundred dollars"; two decimals are the hundredths:
    `5.50`, `€` → "five euros and fifty cents" (`€5,50` too), `0.99` → "ninety nine cents";
    other decimals "point"; a magnitude before the currency: `1.5`, `$`, `M` → "one point
    five million dollars"."""
    one, many, cent, cents = CURRENCIES[currency]
    if currency in ("€", "EUR") and re.fullmatch(r"\d+,\d\d", amount):
        amount = amount.replace(",", ".")
    if magnitude:
        return f"{_amount(amount)} {MAGNITUDES[magnitude]} {many}"
    whole, _, part = amount.replace(",", "").partition(".")
    if part and len(part) != 2:
        return f"{_amount(amount)} {many}"
    said = f"{_amount(whole)} {one if whole == '1' else many}"
    if not (part and int(part)):
        return said
    hundredths = f"{number(str(int(part)))} {cent if part == '01' else cents}"
    return f"{said} and {hundredths}" if whole.strip("0") else hundredths


def _amount(written: str) -> str:
    """A sum of money is an amount however many digits it has (`120,000,000`, `250000000` →
    "two hundred fifty million"), up to the trillions; longer, or with a leading zero, the
    number rule's reading (digit by digit)."""
    whole, _, decimals = written.replace(",", "").partition(".")
    if len(whole) > 15 or (len(whole) > 1 and whole.startswith("0")):
        return number(written)
    return cardinal(int(whole or "0")) + (f" point {digits(decimals)}" if decimals else "")


def _money(m: re.Match[str]) -> str:
    sign, symbol, sign_after, code, amount, big, big_word, *after = m.groups()
    amount_after, big_after, big_word_after, code_after = after
    written = amount or amount_after
    currency = symbol or code or code_after
    if re.fullmatch(r"\d+,\d\d", written) and currency not in ("€", "EUR"):
        return m.group(0)  # $5,50: a list, not a guessed decimal comma
    said = say_money(written, currency, big or big_word or big_after or big_word_after)
    return ("minus " if sign or sign_after else "") + said


# A currency sign alone (`Cost in $`, `€/kWh`): its name.
LONE_CURRENCY = rx.compile(r"[$€£¥\u20b9]")
# A price per unit after the currency's name (five dollars/t, dollars /kWh, cents/month).
_CURRENCY_NAMES = "dollars?|euros?|pounds?|pence|penny|cents?|yuan|fen|yen"
PER_UNIT = rx.compile(rf"\b({_CURRENCY_NAMES})\s?/\s?([A-Za-z°%][\w°²³]*)(?!\w)")
# Cents written with their sign (3 ¢).
CENTS = rx.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?\u00a2(?!\w)")


def _per_unit(m: re.Match[str]) -> str:
    """`dollars/kWh` → "dollars per kilowatt hour", `dollars/month` → "dollars per month"."""
    currency, written = m.groups()
    unit = units.GRAMMAR.parse(written)
    return f"{currency} per {units.unit_words(unit, False) if unit else written}"


# --- order numbers: 6ES7 214-1AG40-0XB0, 3RT2026-1BB40 ------------------------------------------

# Siemens order numbers (MLFB) and part numbers written like them: a digit, two or three
# capitals and digits, then groups of capitals and digits after a space or a hyphen.
ORDER_FORM = r"\d[A-Z]{2,3}\d{1,4}(?:[ -][0-9A-Z]{3,5}(?![0-9A-Za-z]))?(?:-[0-9A-Z]{2,5}){1,3}"
ORDER_NUMBER = rx.compile(rf"(?<![\w.-])({ORDER_FORM})(?![\w-]|\.\w)")
ORDER_GROUPS = rx.compile(r"[0-9A-Z]+|[ -]")


def say_order_number(written: str, say_char, joints: dict[str, str]) -> str:
    """Character by character in the groups written, each joint said as `joints` has it."""
    return "".join(
        joints[piece] if piece in joints else " ".join(say_char(c) for c in piece)
        for piece in ORDER_GROUPS.findall(written)
    )


def _order_char(c: str) -> str:
    return digits(c) if c.isdigit() else letters(c)[0]


def _order_number(m: re.Match[str]) -> str:
    """`6ES7 214-1AG40-0XB0` → "six E S seven, two one four dash one eh G four zero dash zero X
    B zero": a pause where a space parts the groups, "dash" for a hyphen."""
    return say_order_number(m.group(1), _order_char, {" ": ", ", "-": " dash "})


# --- ratios, time ranges and compact timestamps ------------------------------------------------

# After a word that says a ratio follows, `1:50` is no clock time; the cue may be a few
# words or a bracket away (`Ratio (1:50)`, `ratio:1:50`, `mix ratio is 1:50`), and a ratio
# may have three terms (`1:50:100`).
RATIO = rx.compile(
    r"(?<![\w.])((?i:ratio|scale|mix|mixing|dilution|dilute|diluted|gear)"
    r"(?:\s*[(:=]\s*|\s+(?:(?i:is|of|at|to|was|set\s+to|should\s+be)\s+)?(?:\(\s*)?))"
    r"(\d+):(\d+)(?::(\d+))?(?!\d|:\d)"
)


def _ratio(m: re.Match[str]) -> str:
    """`ratio 1:50` → "ratio 1 to 50", `1:50:100` → "1 to 50 to 100" (numbers left for
    their rule)."""
    cue, *terms = m.groups()
    return cue + " to ".join(t for t in terms if t is not None)


# A numeric offset from UTC after a dated time (2024-05-01T08:30:00+08:00, 08:30-05:00 after
# a date), or a plus one after a time with seconds (08:30:00+08:00): no range, said as the
# offset from UTC, the timestamp left for the date and time rules.
DATED_OFFSET = rx.compile(
    r"(?<![\d.])(\d{4}-\d{1,2}-\d{1,2}[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)"
    r"([+-])(\d\d):?(\d\d)(?![\w:]|\.\d)"
)
UTC_OFFSET = rx.compile(r"(?<=\d:\d\d:\d\d)()(\+)(\d\d):?(\d\d)(?![\w:]|\.\d)")


def _utc_offset(m: re.Match[str]) -> str:
    """`+08:00` → " U T C plus eight", `-05:30` → " U T C minus five thirty", `+00:00` → " U
    T C"; an offset no clock has is left as written."""
    stamp, sign, hours, minutes = m.groups()
    if int(hours) > 23 or int(minutes) > 59 or is_range_end(stamp, sign, m.group(0)[len(stamp) :]):
        return m.group(0)  # no such offset, or the end of a range (2026-11-30 08:00-09:30)
    if not int(hours) and not int(minutes):
        return f"{stamp} U T C"
    said = f"{stamp} U T C {'plus' if sign == '+' else 'minus'} {number(str(int(hours)))}"
    return said + (f" {number(minutes)}" if int(minutes) else "")


# A dash between two clock times: the times are left for their rule.
TIME_RANGE = rx.compile(r"(?:(?<=\d:\d\d)|(?<=\d:\d\dZ))\s?[-\u2013~]\s?(?=\d{1,2}:\d\d)")
# 20261130T074500Z, as logs write ISO 8601 without separators: given its separators back, for
# the date and time rules.
COMPACT_TIMESTAMP = rx.compile(
    r"(?<![A-Za-z0-9.])(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)?(Z?)(?![A-Za-z0-9]|\.\d)"
)


def compact_timestamp(m: re.Match[str]) -> str:
    """`20261130T074500Z` → `2026-11-30T07:45:00Z`, for both languages' date and time rules;
    no such month or day: left as written."""
    year, month, day, hours, minutes, seconds, utc = m.groups()
    if not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
        return m.group(0)
    return f"{year}-{month}-{day}T{hours}:{minutes}" + (f":{seconds}" if seconds else "") + utc


# A month written as a word, with its day and year (Nov 30, 2026; 30 Nov 2026; November
# 2026) and a quarter with its year (Q3 2026): the year said as a year.
_MONTH_WORDS = r"Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
# In capitals too, as all-capitals alerts write them (`02 DEC 2026`, en-9).
_MONTH = rf"(?P<month>(?:{_MONTH_WORDS})(?:[a-z]+|\.)?|(?:{_MONTH_WORDS.upper()})(?:[A-Z]+|\.)?)"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)(?![\w-]|[.,:/]\d)"
_MONTH_AFTER_DAY = _MONTH.replace("month", "month2")
_MONTH_ALONE = _MONTH.replace("month", "month3")
MONTH_DATE = rx.compile(
    rf"(?<![\w.])(?:{_MONTH}\s+{_DAY},?\s+|(?P<day_first>\d{{1,2}})\s+{_MONTH_AFTER_DAY}\s+"
    rf"|{_MONTH_ALONE}\s+){_YEAR}(?P<time>\s+(?=\d{{1,2}}:\d\d))?"
)
QUARTER = rx.compile(r"(?<![\w.])Q([1-4])\s+((?:19|20)\d\d)(?![\w-]|[.,:/]\d)")
_MONTH_NAMES = {name[:3]: i for i, name in enumerate(MONTHS)}


def _month_date(m: re.Match[str]) -> str:
    """`Nov 30, 2026` and `30 Nov 2026` → "November thirtieth twenty twenty six", `November
    2026` → "November twenty twenty six"; a word that is no month (Mayday) or a day the month
    has not: left as written."""
    written = (m["month"] or m["month2"] or m["month3"]).title()
    index = _MONTH_NAMES.get(written[:3])
    full = MONTHS[index] if index is not None else ""
    if index is None or not (full.startswith(written.rstrip(".")) or written in ("Sept", "Sept.")):
        return m.group(0)
    day = m["day"] or m["day_first"]
    if day is None:
        return f"{full} {year(int(m['year']))}"
    if not real_date(int(m["year"]), index + 1, int(day)):
        return m.group(0)
    # A pause before a time after the date (`15 JAN 2027 14:00`), as after any date.
    return f"{full} {ordinal(int(day))} {year(int(m['year']))}" + (", " if m["time"] else "")


FIELDS = (
    Rule("URL", URL, read_url),
    Rule("address", ADDRESS, read_address),
    Rule("UTC offset", DATED_OFFSET, _utc_offset),
    Rule("hexadecimal", hexforms.RADIX, hexforms.radix),
    Rule("order number", ORDER_NUMBER, _order_number),
    Rule("timestamp", COMPACT_TIMESTAMP, compact_timestamp),
    Rule("hexadecimal", hexforms.HEX, lambda m: hexforms.say_hex(m.group(1) or m.group(2))),
    Rule("money", MONEY, _money),
    Rule("money", CENTS, lambda m: f"{m[1]} {'cent' if m[1] == '1' else 'cents'}"),
    Rule("date", MONTH_DATE, _month_date),
    Rule("quarter", QUARTER, lambda m: f"Q {number(m[1])} {year(int(m[2]))}"),
)
LATE = (
    Rule("currency", LONE_CURRENCY, lambda m: f" {CURRENCIES[m.group(0)][1]} "),
    Rule("money", PER_UNIT, _per_unit),
)
"""Read after the units: a currency sign no amount follows."""
"""Read before every other field: their digits are no amounts, tags or ranges."""

CLOCK = (
    Rule("date", COMPACT_DATE, _compact_date),
    Rule("date", DAY_MONTH, _day_and_month),
    Rule("ratio", RATIO, _ratio),
    Rule("UTC offset", UTC_OFFSET, _utc_offset),
    Rule("range", TIME_RANGE, lambda m: " to "),
    # After the ranges (08:00 ~ 16:00): a tilde or an at sign before a time (~14:00, @ 14:00).
    Rule("sign", rx.compile(r"[~\u2248]\s?(?=\d{1,2}:\d\d)"), lambda m: "about "),
    Rule("sign", rx.compile(r"@\s?(?=\d{1,2}:\d\d)"), lambda m: "at "),
)
"""Read before the clock times."""

# A fraction of a time unit, a word or a symbol (1/2 hour, 3/4 h, 1/4 min): an amount of time.
_TIME_UNITS = {"hour": "hour", "hours": "hour", "hr": "hour", "hrs": "hour", "h": "hour"}
_TIME_UNITS |= {"minute": "minute", "minutes": "minute", "min": "minute", "mins": "minute"}
_TIME_UNITS |= {"second": "second", "seconds": "second", "s": "second", "sec": "second"}
_TIME_UNITS |= {"day": "day", "days": "day", "d": "day", "week": "week", "weeks": "week"}
_TIME_UNITS |= {"shift": "shift", "shifts": "shift"}
_TIME_WORDS = "|".join(sorted(_TIME_UNITS, key=len, reverse=True))
# After a whole number, a mixed number (1 1/2 h).
TIME_FRACTION = rx.compile(
    rf"{_FIELD_START}(?:(\d+) )?(\d{{1,2}})/(\d{{1,2}})\s?({_TIME_WORDS})"
    r"(?![\w/²³^])"
)


def _time_fraction(m: re.Match[str]) -> str:
    """`1/2 hour` → "half an hour", `3/4 h` → "three quarters of an hour", `1/3 shift` → "one
    third of a shift", `1 1/2 h` → "one and one half hours"; a pair that is no fraction
    (5/4 h) is left for the slash-pair rule."""
    whole, top, bottom, written = m.groups()
    n, d = int(top), int(bottom)
    if not (0 < n < d and d in FRACTION_DENOMINATORS):
        return m.group(0)
    unit = _TIME_UNITS[written]
    if whole:  # 1 1/2 h: "one and one half hours"
        return f"{number(whole)} and {fraction(n, d)} {unit}s"
    article = "an" if unit == "hour" else "a"
    if (n, d) == (1, 2):
        return f"half {article} {unit}"
    return f"{fraction(n, d)} of {article} {unit}"


# Feet and inches with their marks (5'10"), and an inch mark alone after a size (Pipe 2",
# 2" valve): a double quote that closes a quotation is none.
FEET_INCHES = rx.compile(
    r"(?<![\w.'])(\d{1,2})['\u2032] ?(\d{1,2}(?:\.\d+)?)(?:\"|\u2033|'')(?![\w\"])"
)
INCH_MARK = rx.compile(r"(?<![\w./])(?<!\d,)(\d{1,3}(?:\.\d+)?)(?:\"|\u2033|'')(?![\w\"])")


def _feet_inches(m: re.Match[str]) -> str:
    """`5'10"` → "five feet ten inches" (numbers left for their rule)."""
    feet, inches = m.groups()
    feet_word = "foot" if feet == "1" else "feet"
    return f"{feet} {feet_word} {inches} {'inch' if inches == '1' else 'inches'}"


def _inch_mark(m: re.Match[str]) -> str:
    """`2"` → "2 inch", as the trade says a size; a closing quote (`"2"`) is left."""
    if quote_open(m.string, m.start()):
        return m.group(0)
    return f"{m.group(1)} inch"


# Feet and inches written with their symbols (2 ft 6 in), degrees and minutes of an angle
# (45° 30'): the inch and the minute are no word and no quote.
FEET_AND_INCHES = rx.compile(r"(?<![\w.])(\d+)\s?ft\s+(\d+(?:\.\d+)?)\s?in\b")
ANGLE_MINUTES = rx.compile(r"(?<=°)\s?(\d{1,2}(?:\.\d+)?)['\u2032](?![\w'])")

VALUE_SLASH = rx.compile(r"(?<=\d)/(?=[-+]?\.?\d)")


SLASHES = (
    Rule(
        "feet and inches",
        FEET_AND_INCHES,
        lambda m: (
            f"{m[1]} {'foot' if m[1] == '1' else 'feet'} {m[2]} "
            + ("inch" if m[2] == "1" else "inches")
        ),
    ),
    Rule(
        "angle",
        ANGLE_MINUTES,
        lambda m: f" {m[1]} {'minute' if m[1] == '1' else 'minutes'}",
    ),
    Rule("fraction of a time", TIME_FRACTION, _time_fraction),
    Rule("slash pair", SLASH_PAIR, _slash_pair),
    Rule("feet and inches", FEET_INCHES, _feet_inches),
    Rule("inch mark", INCH_MARK, _inch_mark),
    # Any other slash between values (`12.5/13.0 bar`, `230/231/229 V`, en-9) is said: the
    # voice reads a bare slash as nothing, and the values would run together.
    Rule("slash", VALUE_SLASH, lambda m: " slash "),
)
"""Read after the clock times, where the fractions were."""
