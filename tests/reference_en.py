"""A small reference verbalizer for the English reading classes, written apart from the
normalizer (cosyedge/speech/text/) and never calling it: the property tests compare what the
normalizer says for a generated instance with what these say for the parts it was made of.

Each function states the reading of one class, as the docs list them.
"""

from __future__ import annotations

import re

WORDS = [
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen"),
]
TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy"}
TENS |= {8: "eighty", 9: "ninety"}
GROUPS = ["", "thousand", "million", "billion", "trillion"]


def _below_thousand(n: int) -> list[str]:
    out = []
    if n >= 100:
        out += [WORDS[n // 100], "hundred"]
        n %= 100
    if n >= 20:
        out.append(TENS[n // 10])
        n %= 10
        if n:
            out.append(WORDS[n])
    elif n or not out:
        out.append(WORDS[n])
    return out


def cardinal(n: int) -> str:
    """Groups of three digits from the right, each with its scale word; empty groups left out."""
    if n == 0:
        return "zero"
    text = str(n)
    groups = []
    while text:
        groups.append(int(text[-3:]))
        text = text[:-3]
    out: list[str] = []
    for scale in range(len(groups) - 1, -1, -1):
        if groups[scale]:
            out += _below_thousand(groups[scale]) + ([GROUPS[scale]] if scale else [])
    return " ".join(out)


def digit_words(text: str) -> str:
    return " ".join(WORDS[int(c)] for c in text)


def letter(c: str) -> str:
    """A capital as the voice is given it: A is "eh" (alone it would be the article)."""
    return "eh" if c == "A" else c


def decimal(text: str) -> str:
    """`"12.05"` → "twelve point zero five"."""
    whole, _, fraction = text.partition(".")
    said = cardinal(int(whole))
    return said + (" point " + digit_words(fraction) if fraction else "")


def plural(count_said: str, singular: str, plural_form: str | None = None) -> str:
    return singular if count_said == "one" else (plural_form or singular + "s")


# --- the classes ---------------------------------------------------------------------------


def duration(parts: list[tuple[str, str]]) -> str:
    """(amount, unit word) pairs, largest unit first: the parts that are not nothing, "and"
    before the last; all nothing: the last part ("zero minutes")."""
    kept = [(a, u) for a, u in parts if float(a) != 0] or [parts[-1]]
    said = [f"{decimal(a)} {plural(decimal(a), u)}" for a, u in kept]
    if len(said) > 1:
        said[-1] = "and " + said[-1]
    return " ".join(said)


def mac(pairs: list[str]) -> str:
    """Pair by pair with a pause (a comma) between; hex letters as capitals, digits as words."""

    def pair(p: str) -> str:
        return " ".join(WORDS[int(c)] if c.isdigit() else letter(c.upper()) for c in p)

    return ", ".join(pair(p) for p in pairs)


PREFIXES = {
    "p": "pico",
    "n": "nano",
    "µ": "micro",
    "μ": "micro",
    "u": "micro",
    "m": "milli",
    "c": "centi",
}
PREFIXES |= {"h": "hecto", "k": "kilo", "M": "mega", "G": "giga", "T": "tera"}
UNIT_NAMES = {
    "m": ("meter", "meters"),
    "ft": ("foot", "feet"),
    "g": ("gram", "grams"),
    "s": ("second", "seconds"),
    "min": ("minute", "minutes"),
    "h": ("hour", "hours"),
    "A": ("amp", "amps"),
    "V": ("volt", "volts"),
    "W": ("watt", "watts"),
    "Wh": ("watt hour", "watt hours"),
    "VA": ("volt amp", "volt amps"),
    "var": ("var", "vars"),
    "varh": ("var hour", "var hours"),
    "Ah": ("amp hour", "amp hours"),
    "Pa": ("pascal", "pascals"),
    "Hz": ("hertz", "hertz"),
    "Ω": ("ohm", "ohms"),
    "J": ("joule", "joules"),
    "N": ("newton", "newtons"),
    "Nm": ("newton meter", "newton meters"),
    "l": ("liter", "liters"),
    "L": ("liter", "liters"),
    "lb": ("pound", "pounds"),
    "lbf": ("pound force", "pounds force"),
    "bar": ("bar", "bar"),
    "°C": ("degree Celsius", "degrees Celsius"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
    "dB": ("decibel", "decibels"),
    **dict.fromkeys(("barg", "bar(g)"), ("bar gauge", "bar gauge")),
    **dict.fromkeys(("bara", "bar(a)"), ("bar absolute", "bar absolute")),
    **dict.fromkeys(("Nm3", "Nm³"), ("normal cubic meter", "normal cubic meters")),
    **dict.fromkeys(("Sm3", "Sm³"), ("standard cubic meter", "standard cubic meters")),
    "hr": ("hour", "hours"),
    "d": ("day", "days"),
    "t": ("tonne", "tonnes"),
    "psig": ("P S I gauge", "P S I gauge"),
    "psia": ("P S I absolute", "P S I absolute"),
    "gpm": ("gallon per minute", "gallons per minute"),
    "scfm": ("standard cubic foot per minute", "standard cubic feet per minute"),
    "inHg": ("inch of mercury", "inches of mercury"),
    "inH2O": ("inch of water", "inches of water"),
    "mph": ("mile per hour", "miles per hour"),
    "K": ("kelvin", "kelvin"),
    "F": ("farad", "farads"),
    "B": ("byte", "bytes"),
    "dBm": ("D B M", "D B M"),
}
LENGTHS = {"m", "ft"}


def unit_term(prefix: str, base: str, power: int, many: bool) -> str:
    """`k`, `Ω` → "kilohm": the prefix runs into the unit, an o into an o."""
    name = UNIT_NAMES[base][1 if many else 0]
    head = PREFIXES.get(prefix, "")
    if head.endswith(("o", "a")) and name.startswith("o"):
        head = head[:-1]
    name = head + name
    if power == 1:
        return name
    if base in LENGTHS:
        return {2: "square", 3: "cubic"}[power] + " " + name
    return name + " " + {2: "squared", 3: "cubed"}[power]


def quantity(amount: str, above: list, below: list) -> str:
    """The number, then the unit: plural on the last term above the line unless it is one."""
    many = amount != "1"
    words = [unit_term(*t, many=many and i == len(above) - 1) for i, t in enumerate(above)]
    words += ["per " + unit_term(*t, many=False) for t in below]
    return decimal(amount) + " " + " ".join(words)


MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August"]
MONTHS += ["September", "October", "November", "December"]


_LAST_WORD = {"one": "first", "two": "second", "three": "third", "five": "fifth",
              "eight": "eighth", "nine": "ninth", "twelve": "twelfth"}  # fmt: skip


def ordinal(n: int) -> str:
    """Any whole number as an ordinal: the cardinal with its last word made ordinal."""
    *head, last = cardinal(n).split()
    if last in _LAST_WORD:
        last = _LAST_WORD[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return " ".join([*head, last])


def year(y: int) -> str:
    """In pairs (twenty twenty six, nineteen oh five), but two thousand five and the like."""
    high, low = divmod(y, 100)
    if high % 10 == 0 and low < 10:
        return cardinal(y)
    if low == 0:
        return cardinal(high) + " hundred"
    return cardinal(high) + (" oh " if low < 10 else " ") + cardinal(low)


def date(y: int, m: int, d: int) -> str:
    return f"{MONTHS[m - 1]} {ordinal(d)} {year(y)}"


def address(octets: tuple, port: str | None, prefix: int | None) -> str:
    said = " dot ".join(digit_words(o) for o in octets)
    if port:
        said += " port " + digit_words(port)
    if prefix is not None:
        said += " slash " + cardinal(prefix)
    return said


def tag(letters: str, digits: str, suffix: str) -> str:
    """Letters one by one, digits one by one with "oh" for zero, the suffix letter."""
    spoken = [letter(c) for c in letters]
    spoken.append(" ".join("oh" if c == "0" else WORDS[int(c)] for c in digits))
    return " ".join(spoken + [letter(c) for c in suffix])


JOINERS = {"-": "dash", "_": "underscore", "/": "slash"}
PIECES = {"GW2": "G W two", "PLC": "PLC", "LOG": "LOG", "HMI3": "H M I three"}
PIECES |= {"CAB12": "C eh B one two"}


def piece(written: str) -> str:
    """A piece of a token beside a field: one letter is a capital (a label), a word as the
    English rules read it."""
    if len(written) == 1:
        return letter(written.upper())
    return PIECES[written]


def joined(before, joiner, field, after_joiner, after) -> str:
    kind, parts = field
    said = {"ip": address, "mac": lambda *p: mac(list(p)), "tag": tag, "date": date}[kind](*parts)
    if before:
        said = f"{piece(before)} {JOINERS[joiner]} {said}"
    if after:
        said = f"{said} {JOINERS[after_joiner]} {piece(after)}"
    return said


def clock(parts: tuple) -> str:
    """24-hour: "oh" before a written leading zero (and before a one-digit hour on the
    hour, `8:00` as `08:00`), "zero zero" for the hour after midnight but midnight itself
    "zero hundred", "hundred" on the hour, seconds after "and" unless none; Z is "U T C".
    12-hour: the hour as a number, minutes unless none, then "eh M" or "P M"."""
    if parts[0] == "12":
        _, h, mi, seconds, am = parts
        said = cardinal(h) + _minutes(mi, on_the_hour="")
        said += f" and {seconds_said(str(seconds), None)}" if seconds else ""
        return said + (" eh M" if am else " P M")
    _, hours, mi, seconds, decimals, utc = parts
    h = int(hours)
    oh = "oh " if hours[0] == "0" or (len(hours) == 1 and mi == 0) else ""
    said = ("zero" if mi == 0 else "zero zero") if h == 0 else oh + cardinal(h)
    said += _minutes(mi, on_the_hour=" hundred")
    if seconds and (int(seconds) or decimals):
        said += f" and {seconds_said(seconds, decimals)}"
    return said + (" U T C" if utc else "")


def _minutes(mi: int, on_the_hour: str) -> str:
    if mi == 0:
        return on_the_hour
    return (" oh " if mi < 10 else " ") + cardinal(mi)


def seconds_said(seconds: str, decimals: str | None) -> str:
    said = cardinal(int(seconds)) + (" point " + digit_words(decimals) if decimals else "")
    return said + (" second" if said == "one" else " seconds")


def timestamp(date_parts: tuple | None, time_parts: tuple | None) -> str:
    """A date, a time, or both with a pause (a comma) between."""
    said = [date(*date_parts)] if date_parts else []
    return ", ".join(said + ([clock(time_parts)] if time_parts else []))


def version(word: str | None, parts: tuple, tag: str, tag_number: str) -> str:
    """ "version" for a v (after its word, if written: fw v1.2 → "fw version"), the word
    itself otherwise; the parts with "point", each a number (a leading zero: digits); a
    pre-release tag after "dash", spelled if short."""

    def part(p: str) -> str:
        return digit_words(p) if len(p) > 1 and p[0] == "0" else cardinal(int(p))

    head = "fw version" if word == "fw v" else word or "version"
    said = head + " " + " point ".join(part(p) for p in parts)
    if tag:
        said += " dash " + (" ".join(tag.upper()) if len(tag) <= 3 else tag)
        said += f" {cardinal(int(tag_number))}" if tag_number else ""
    return said


def identifier(before: str, groups: tuple) -> str:
    """Digit by digit, zero as "zero", in the groups it is written in, "dash" between."""
    return before + " dash ".join(digit_words(g) for g in groups)


# The acronyms plants say as words, and the spelling the English voices are given for each.
WORD_ACRONYMS = {
    *(("LOTO", "low-toe"), ("HAZOP", "hazop"), ("HAZID", "haz id"), ("HAZMAT", "hazmat")),
    *(("HAZWOPER", "haz wopper"), ("ATEX", "A-tex"), ("IECEx", "I E C ex"), ("SCADA", "scada")),
    *(("HEPA", "hepa"), ("COSHH", "cosh"), ("NIOSH", "nye osh"), ("SIL", "sil"), ("LOPA", "lopa")),
    *(("STEL", "stel"), ("HIPPS", "hips"), ("NEMA", "neema"), ("MODBUS", "modbus")),
    *(("PROFIBUS", "profibus"), ("PROFINET", "pro fee net"), ("ESTOP", "E stop")),
}
WORD_ACRONYMS = dict(WORD_ACRONYMS)


def number_list(items: tuple, unit: tuple | None) -> str:
    """Numbers joined by commas that do not group thousands: the list as written, the unit
    after the last (`3,4 kg` → "three, four kilograms"); two items before a unit, one to
    three digits then one or two, or a zero then any, are a decimal comma (`1,5 bar` → "one
    point five bar", `0,1000 bar` → "zero point one zero zero zero bar")."""
    if (
        unit
        and len(items) == 2
        and re.fullmatch(r"\d{1,3}", items[0])
        and (re.fullmatch(r"\d{1,2}", items[1]) or items[0] == "0")
    ):
        return quantity(f"{items[0]}.{items[1]}", [unit], [])
    said = [decimal(item) for item in items]
    if unit:
        said[-1] = quantity(items[-1], [unit], [])
    return ", ".join(said)


def percent_range(low: tuple, high: tuple, symbol: str) -> str:
    """`10%-20%` → "ten to twenty percent": one "percent" (or "per mille"), at the end; a sign
    is "minus"."""
    ends = [("minus " if sign else "") + decimal(n) for sign, n in (low, high)]
    return f"{ends[0]} to {ends[1]} " + ("percent" if symbol == "%" else "per mille")


def caret_power(mantissa: str | None, sign: str, power: str, unit: tuple | None) -> str:
    """`3.2x10^5 Pa` → "three point two times ten to the five pascals"; `10^6` → "ten to the
    six"; a minus exponent "minus", a plus one silent."""
    said = "ten to the " + ("minus " if sign == "-" else "") + cardinal(int(power))
    if mantissa is None:
        return said
    said = decimal(mantissa) + " times " + said
    return said + (" " + unit_term(*unit, many=True) if unit else "")


def unit_range(low: str, high: str, unit: tuple) -> str:
    """`4-20mA` → "four to twenty milliamps": the unit after the second number, as it would
    be after that number alone."""
    return decimal(low) + " to " + quantity(high, [unit], [])


def glued_letter(amount: str, letter: str, after: str) -> str:
    """`5s then` → "five seconds then" (m, s, h, l are units), `2x pumps` → "two times
    pumps", `2w then` → "two W then" (any other letter said apart)."""
    if letter in "mshl":
        said = quantity(amount, [("", letter, 1)], [])
    elif letter == "x":
        said = decimal(amount) + " times"
    else:
        said = decimal(amount) + " " + letter.upper()
    return f"{said} {after}"


def _dialled(group: str) -> str:
    return " ".join("oh" if c == "0" else WORDS[int(c)] for c in group)


def phone(word: str, groups: tuple, code: bool, extension: str) -> str:
    """Digit by digit, zero "oh", a pause between groups, "plus" before a country code, an
    extension after "extension"."""
    said = word + ("plus " if code else "") + ", ".join(_dialled(g) for g in groups)
    return said + (" extension " + _dialled(extension) if extension else "")


def day_month(month: int, day: int) -> str:
    """`01/05` → "May first": the month, then the day as an ordinal."""
    return f"{MONTHS[month - 1]} {ordinal(day)}"


def dated_day_month(
    month: int, day: int, cue: str, time: tuple | None, full_year: int | None = None
) -> str:
    """The cue as written, the date (its year after it), and a time after a pause (a comma)."""
    said = cue + day_month(month, day) + (f" {year(full_year)}" if full_year else "")
    return said + (", " + clock(time) if time else "")


# --- integer slash pairs and fractions --------------------------------------------------------

FRACTION_NAMES = {2: ("half", "halves"), 4: ("quarter", "quarters")}
SIZE_DENOMINATORS = (2, 3, 4, 8, 16, 32, 64)


def fraction_words(n: int, d: int, many: bool = True) -> str:
    """`3, 4` → "three quarters", `5, 8` → "five eighths"; not `many`: "three quarter"."""
    one, more = FRACTION_NAMES.get(d, (ordinal(d), ordinal(d) + "s"))
    return f"{cardinal(n)} {more if many and n != 1 else one}"


def slash_pair(whole: int | None, n: int, d: int, vulgar: bool, after: tuple) -> str:
    """A fraction where it is a quantity (a vulgar fraction character; a numerator below a
    denominator a size is written in, after a whole number or before a unit, an inch mark or
    a word of extent); else "n of d" for a count of a whole, "n slash d" past the whole or
    before a unit. `after`: (as written, its kind, the unit's term or what follows an inch
    mark)."""
    written, kind, extra = after
    unit = extra if kind == "unit" else None
    rest = extra if kind == "inch" else ("" if kind == "unit" else written)
    quantity = whole is not None or kind in ("extent", "unit", "inch")
    if 0 < n < d and (vulgar or (quantity and d in SIZE_DENOMINATORS)):
        return _fraction_said(whole, n, d, kind, unit) + rest
    said = f"{cardinal(whole)} " if whole is not None else ""
    if kind == "unit":
        return said + f"{cardinal(n)} slash " + quantity_said(d, unit)
    joint = "of" if n <= d and d else "slash"
    said += f"{cardinal(n)} {joint} {cardinal(d)}"
    return said + (" inch" if kind == "inch" else "") + rest


def quantity_said(n: int, unit: tuple) -> str:
    return quantity(str(n), [unit], [])


def _fraction_said(whole, n, d, kind, unit) -> str:
    if whole is not None:
        said = f"{cardinal(whole)} and {fraction_words(n, d)}"
        if kind == "inch":
            return said + " inches"
        return said + (" " + unit_term(*unit, many=True) if kind == "unit" else "")
    if kind == "inch":
        return f"{fraction_words(n, d, many=False)} inch"
    if kind == "unit":
        name = unit_term(*unit, many=False)
        return f"{fraction_words(n, d)} of {'an' if name[0] in 'aeiou' else 'a'} {name}"
    return fraction_words(n, d)


# --- URLs, money, hexadecimal codes, ratios, time ranges -------------------------------------

SCHEME_SIGNS = {".": "dot", "+": "plus", "-": "dash"}


def url(scheme: str, octets: tuple, port: str | None, path: str) -> str:
    """The scheme letter by letter ("dot" inside), "colon slash slash", the address as an
    address, "port", the path with "slash"."""
    said = " ".join(SCHEME_SIGNS.get(c) or letter(c.upper()) for c in scheme)
    said += " colon slash slash " + address(octets, port, None)
    return said + "".join(
        " slash" + (" " + segment if segment else "") for segment in path.split("/")[1:]
    )


# Mark → (one, many, a hundredth, hundredths).
MONEY = {
    **dict.fromkeys(("$", "USD"), ("dollar", "dollars", "cent", "cents")),
    **dict.fromkeys(("€", "EUR"), ("euro", "euros", "cent", "cents")),
    **dict.fromkeys(("£", "GBP"), ("pound", "pounds", "penny", "pence")),
    **dict.fromkeys(("¥", "￥", "CNY", "RMB"), ("yuan", "yuan", "fen", "fen")),
}


def money(mark: str, whole: int, cents: str | None) -> str:
    """The whole units, then "and" the hundredths unless none; no whole units: the
    hundredths alone (`$0.99` → "ninety nine cents")."""
    one, many, hundredth, hundredths = MONEY[mark]
    said = f"{cardinal(whole)} {one if whole == 1 else many}"
    if cents and int(cents):
        part = f"{cardinal(int(cents))} {hundredth if int(cents) == 1 else hundredths}"
        said = part if whole == 0 else f"{said} and {part}"
    return said


MAGNITUDE_WORDS = {"k": "thousand", "M": "million", "B": "billion", " million": "million"}


def signed_money(minus: bool, mark: str, amount: str, magnitude: str, cents: str | None) -> str:
    """`-$50` → "minus fifty dollars", `$1.5M` → "one point five million dollars", `€5,50`
    → "five euros and fifty cents"."""
    said = "minus " if minus else ""
    if magnitude:
        return f"{said}{decimal(amount)} {MAGNITUDE_WORDS[magnitude]} {MONEY[mark][1]}"
    return said + money(mark, int(amount), cents)


def hex_code(written: str) -> str:
    """ "hex", then each character: digits as words, letters as capitals."""
    return "hex " + " ".join(digit_words(c) if c.isdigit() else letter(c.upper()) for c in written)


def ratio(word: str, joint: str, terms: tuple, close: str) -> str:
    """`Ratio (1:50)` → "Ratio (one to fifty)": the terms joined by "to"."""
    return word + joint + " to ".join(cardinal(t) for t in terms) + close


def not_a_time(hours: int, minutes: str) -> str:
    """`13:70` → "thirteen colon seventy": no such time, said as written."""
    said = digit_words(minutes) if minutes.startswith("0") else cardinal(int(minutes))
    return f"{cardinal(hours)} colon {said}"


def time_range(first: tuple, second: tuple) -> str:
    return f"{clock(first)} to {clock(second)}"


def count_after_call(n: int, noun: str) -> str:
    return f"call {cardinal(n)} {noun}"


def order_number(groups: tuple, joints: tuple) -> str:
    """Character by character (digits as words, zero "zero"), a pause where a space parts the
    groups, "dash" for a hyphen."""

    def group(g: str) -> str:
        return " ".join(WORDS[int(c)] if c.isdigit() else letter(c) for c in g)

    said = group(groups[0])
    for joint, g in zip(joints, groups[1:], strict=True):
        said += (", " if joint == " " else " dash ") + group(g)
    return said


def power(mantissa: str | None, base: str, sign: str, exponent: str, unit: tuple | None) -> str:
    """`1\u00d710⁻⁶ mbar` → "one times ten to the minus six millibar"; `5²` → "five squared",
    `2³` "two cubed", `2¹⁰` → "two to the ten" (a plus sign silent)."""
    if base != "10" and sign != "-" and exponent in ("2", "3"):
        return decimal(base) + (" squared" if exponent == "2" else " cubed")
    said = ("ten" if base == "10" else decimal(base)) + " to the "
    said += ("minus " if sign == "-" else "") + cardinal(int(exponent))
    if mantissa is None:
        return said
    said = decimal(mantissa) + " times " + said
    return said + (" " + unit_term(*unit, many=True) if unit else "")


def negative(amount: str, unit: tuple) -> str:
    """`\u20135 bar` (any dash that stands for a minus) → "minus five bars"."""
    return "minus " + decimal(amount) + " " + unit_term(*unit, many=amount != "1")


def unsaid_characters(word: str, amount: int) -> str:
    """`\\x07Pump 3 bar\\x1b[31m` → "Pump three bar": control characters are not said."""
    return f"{word} {cardinal(amount)} {unit_term('', 'bar', 1, many=amount != 1)}"


def roman_numeral(word: str, value: int) -> str:
    """`Pump Ⅲ` → "Pump three"."""
    return f"{word} {cardinal(value)}"


SEPARATOR_WORDS = {"-": "dash", "/": "slash", ".": "dot"}


def written_number(text: str) -> str:
    """A number as written: a leading zero makes it digits (`04` → "zero four")."""
    return digit_words(text) if len(text) > 1 and text.startswith("0") else cardinal(int(text))


def impossible_date(parts: tuple, sep: str) -> str:
    """`2026-04-31` → "two thousand twenty six dash zero four dash thirty one": no such day,
    said as written."""
    return f" {SEPARATOR_WORDS[sep]} ".join(written_number(p) for p in parts)


def compact_date(cue: str, y: int, month: int, day: int) -> str:
    """`Event 20261130` → "Event November thirtieth twenty twenty six"."""
    return f"{cue}{MONTHS[month - 1]} {ordinal(day)} {year(y)}"


def radix_code(radix: str, written: str) -> str:
    """`16#FF00` → "hex F F zero zero", `2#1010` → "binary one zero one zero"."""
    word = {"16": "hex", "8": "octal", "2": "binary"}[radix]
    return word + " " + " ".join(digit_words(c) if c.isdigit() else letter(c) for c in written)


def time_fraction(whole: int | None, n: int, d: int, unit: str) -> str:
    """`1/2 hour` → "half an hour", `3/4 h` → "three quarters of an hour", `1 1/2 h` → "one
    and one half hours"."""
    if whole:
        return f"{cardinal(whole)} and {fraction_words(n, d)} {unit}s"
    article = "an" if unit == "hour" else "a"
    if (n, d) == (1, 2):
        return f"half {article} {unit}"
    return f"{fraction_words(n, d)} of {article} {unit}"


def inch_mark(feet: str | None, inches: str) -> str:
    """`2"` → "two inch" (a size, as the trade says it); `5'10"` → "five feet ten inches"."""
    if feet is None:
        return decimal(inches) + " inch"
    feet_said = decimal(feet) + (" foot" if feet == "1" else " feet")
    return f"{feet_said} {decimal(inches)} " + ("inch" if inches == "1" else "inches")


MARK_WORDS = {"/": "slash", ".": "dot", "-": "dash", "?": "question mark", "=": "equals"}
MARK_WORDS |= {"@": "at", ":": "colon"}


def dictate(written: str) -> str:
    """Words as written, digits one by one, marks named; "www" as its letters."""
    said, word = [], ""
    for c in written + " ":
        if c.isalpha():
            word += c
            continue
        if word:
            said.append("W W W" if word == "www" else word)
            word = ""
        if c.isdigit():
            said.append(digit_words(c))
        elif c in MARK_WORDS:
            said.append(MARK_WORDS[c])
    return " ".join(said)


def ipv6(written: str) -> str:
    """`fe80::1` → "F E eight zero colon colon one": each character, a colon "colon"."""
    return " ".join(
        "colon" if c == ":" else digit_words(c) if c.isdigit() else letter(c.upper())
        for c in written
    )


def host_address(kind: str, scheme: str | None, host: str, port: str | None, path: str) -> str:
    """`mqtt://broker:1883` → "M Q T T colon slash slash broker port one eight eight three"."""
    if kind == "ipv6":
        return ipv6(host)
    if kind in ("mail", "www"):
        return dictate(host + path)
    said = " ".join(
        "dot" if part == "." else " ".join(letter(c) for c in part.upper())
        for part in re.split(r"(\.)", scheme)
    )
    said += " colon slash slash " + (ipv6(host[1:-1]) if host.startswith("[") else dictate(host))
    said += f" port {digit_words(port)}" if port else ""
    return said + (" " + dictate(path) if path else "")


def month_date(kind: str, month: int, day: int | None, y: int) -> str:
    """`Nov 30, 2026` → "November thirtieth twenty twenty six", `Q3 2026` → "Q three twenty
    twenty six"."""
    if kind == "quarter":
        return f"Q {cardinal(month)} {year(y)}"
    return MONTHS[month - 1] + (f" {ordinal(day)}" if day else "") + f" {year(y)}"


# --- en-7 ----------------------------------------------------------------------------------


def zone_word(time: tuple | None, word: str, sign: str | None, hours: int, minutes) -> str:
    """The time, then the word spelled, then "plus" or "minus" the hours and the minutes
    unless none; an offset of nothing is no words (`UTC+0` → "U T C")."""
    said = (clock(time) + " " if time else "") + " ".join(word)
    if sign and (hours or minutes):
        said += f" {'plus' if sign == '+' else 'minus'} {cardinal(hours)}"
        said += f" {cardinal(minutes)}" if minutes else ""
    return said


def dated_time_range(date_parts: tuple, first: tuple, second: tuple) -> str:
    return f"{date(*date_parts)}, {time_range(first, second)}"


LARGE_MAGNITUDE_WORDS = {"M": "million", "B": "billion", "bn": "billion", "T": "trillion"}
LARGE_MAGNITUDE_WORDS |= {"tn": "trillion", " million": "million", " billion": "billion"}
LARGE_MAGNITUDE_WORDS |= {" trillion": "trillion"}


def large_money(mark: str, whole: int, cents: str | None, amount: str | None, magnitude) -> str:
    """An amount, however large, in words: `$120,000,000` → "one hundred twenty million
    dollars"; with a magnitude, the decimal then the magnitude then the currency."""
    if amount is not None:
        return f"{decimal(amount)} {LARGE_MAGNITUDE_WORDS[magnitude]} {MONEY[mark][1]}"
    return money(mark, whole, cents)


def grouped_number(mark: str | None, whole: int, decimals: str | None, unit) -> str:
    """A number grouped by dots or spaces is the one number: `1.234,5 kg` → "one thousand two
    hundred thirty four point five kilograms"; euros with their cents."""
    if mark:
        return money(mark, whole, decimals)
    said = cardinal(whole) + (" point " + digit_words(decimals) if decimals else "")
    return said + (f" {unit[2]}" if unit else "")


def _signed(written: str) -> str:
    return ("minus " if written.startswith("-") else "") + decimal(written.lstrip("-"))


MAGNITUDE_WORDS_EN7 = {"M": "million", "k": "thousand"}


def signed_range(kind: str, low: str, high: str, unit_or_mark, magnitude: str) -> str:
    """Each end with its sign, "to" between, the unit once at the end (singular after one);
    money: the currency once at the end, or each end said whole where one has cents or a
    magnitude."""
    if kind == "money":
        many = MONEY[unit_or_mark][1]
        if magnitude:
            word = MAGNITUDE_WORDS_EN7[magnitude]
            return f"{decimal(low)} {word} {many} to {decimal(high)} {word} {many}"
        whole, _, cents = low.partition(".")
        said = money(unit_or_mark, int(whole), cents or None) if cents else cardinal(int(low))
        return f"{said} to {money(unit_or_mark, int(high), None)}"
    said = f"{_signed(low)} to {_signed(high)}"
    if unit_or_mark is None:
        return said
    _, one, many = unit_or_mark
    return f"{said} {one if high.lstrip('-') == '1' else many}"


NEGATIVE_WORDS = {"kg": "kilogram", "N": "newton", "W": "watt", "J": "joule", "s": "second"}
NEGATIVE_WORDS |= {"m": "meter", "min": "minute", "h": "hour"}
POWER_UNIT_WORDS = {"mbar": "millibar", "Pa": "pascals", "bar": "bar", "kPa": "kilopascals"}


def negative_power(kind: str, amount: str | None, above: str, below, power: int) -> str:
    """A term with a negative power is below the line: "per", then the term, a length
    "square" or "cubic" before it, another unit "squared" or "cubed" after; the terms above
    plural unless the amount is one. A power of ten before a unit: "ten to the minus ..."
    then the unit, plural."""
    if kind == "ten":
        return f"ten to the minus {cardinal(power)} {POWER_UNIT_WORDS[below]}"
    word = NEGATIVE_WORDS[below]
    if power > 1 and below == "m":
        word = f"{ {2: 'square', 3: 'cubic'}[power] } {word}"
    elif power > 1:
        word += {2: " squared", 3: " cubed"}[power]
    said = decimal(amount) + " " if amount else ""
    if above:
        said += NEGATIVE_WORDS[above] + ("" if amount == "1" else "s") + " "
    return said + "per " + word


def spaced_minus(before: str, amount: str, unit: tuple) -> str:
    """The word and its mark as written, "minus", the amount, the unit (singular after one)."""
    said = f"{before}minus {decimal(amount)}"
    if unit[0]:
        said += " " + (unit[1] if amount == "1" else unit[2])
    return said


def tag_member_or_cued_hex(kind: str, first, second: str) -> str:
    """A tag, "dot", its member spelled; or the cue as written, "hex", each letter."""
    if kind == "member":
        return f"{tag(*first)} dot {' '.join(letter(c) for c in second)}"
    return f"{first}hex {' '.join(letter(c) for c in second)}"


# --- en-8 ----------------------------------------------------------------------------------


def glued_id_word(word: str, digits: str, between: str) -> str:
    """A two-letter word spelled (the slash of S/N silent), another as written; a colon kept
    after it; then a space and the digits one by one, zero "zero"."""
    spoken = " ".join(c for c in word if c != "/") if len(word.replace("/", "")) == 2 else word
    return spoken + between.rstrip() + " " + " ".join(WORDS[int(c)] for c in digits)


def name_before_value(name, value: str, unit: str) -> str:
    """The name (a tag's parts, or a formula as said), a comma, the value and its unit: a
    pause keeps the name's digits from running into the value's."""
    said = tag(*name) if isinstance(name, tuple) else name
    units = {"bar": "bar", "ppm": "parts per million", "°C": "degrees Celsius"}
    units |= {"kPa": "kilopascals"}
    return f"{said}, {decimal(value)} {units[unit]}"


def offset_time(time: tuple, sign: str, hours: int, minutes) -> str:
    """The time, then "U T C" and the offset as after the word (`14:05+08:00` is said as
    `14:05 UTC+8`)."""
    return zone_word(time, "UTC", sign, hours, minutes)


def dated_clock(date_parts: tuple, time: tuple) -> str:
    """The date, a comma, the time: all its decimals, "U T C" for a Z."""
    return f"{date(*date_parts)}, {clock(time)}"


def descending_hyphen(word: str | None, groups: tuple) -> str:
    """No range runs down: an identifier, digit by digit in its groups, "dash" between."""
    return (f"{word} " if word else "") + " dash ".join(digit_words(g) for g in groups)


def plant_notation(kind: str, parts) -> str:
    """Phases: "three phase" or "single phase" then the value; a pipe size a mixed number in
    inches; binary digit by digit after "binary"; a countdown "T minus" the count and its
    unit; a degree look-alike the degree sign."""
    if kind == "phases":
        return f"{'three' if parts[0] == '3' else 'single'} phase {parts[1]}"
    if kind == "pipe":
        whole, n, d = parts
        return f"{cardinal(whole)} and {fraction_words(n, d)} inches"
    if kind == "binary":
        return "binary " + digit_words(parts)
    if kind == "countdown":
        count, (_, many, one) = parts
        return f"T minus {cardinal(count)} {one if count == 1 else many}"
    value, scale = parts
    return f"{cardinal(value)} degrees {'Celsius' if scale == 'C' else 'Fahrenheit'}"


def plant_units(values: tuple, joint: str) -> str:
    """Each value, then its unit (singular after one), parted as written."""
    return joint.join(f"{decimal(a)} {one if a == '1' else many}" for a, one, many in values)


def _spelled(written: str) -> str:
    return " ".join(letter(c) for c in written)


def plc_address(kind: str, parts: tuple) -> str:
    """Letters spelled, numbers digit by digit, "dot", "colon" or "slash" as written; the
    percent sign silent; a Modbus table's x "X"."""
    if kind == "iec":
        letters, byte, bit = parts
        return f"{_spelled(letters)} {digit_words(byte)}" + (f" dot {bit_word(bit)}" if bit else "")
    if kind == "s7":
        block, size, offset, bit = parts
        said = f"D B {digit_words(block)} dot D B {size} {digit_words(offset)}"
        return said + (f" dot {bit_word(bit)}" if bit else "")
    if kind == "ab":
        file_kind, file, element, bit = parts
        said = f"{file_kind} {digit_words(file)} colon {digit_words(element)}"
        return said + (f" slash {bit_word(bit)}" if bit else "")
    return f"{digit_words(parts[0])} X {digit_words(parts[1])}"


def bit_word(bit: str | None) -> str:
    return digit_words(bit) if bit is not None else ""


def _place_group(group: str) -> str:
    if len(group) > 2 or (len(group) > 1 and group.startswith("0")):
        return " ".join("oh" if c == "0" else WORDS[int(c)] for c in group)
    return cardinal(int(group))


def designation(kind: str, parts: tuple) -> str:
    """Voting "out of"; a thread "M", the size, "by", the pitch; a Roman numeral its number;
    a place's groups (one or two digits a cardinal, more digit by digit, zero "oh") with
    "dash"; a proportion a fraction; an edition "colon" and the year; a ratio "to"; a long
    value a cardinal."""
    if kind == "voting":
        n, d, diagnostic = parts
        return f"{cardinal(n)} out of {cardinal(d)}" + (" D" if diagnostic else "")
    if kind == "thread":
        return f"M {decimal(parts[0])} by {decimal(parts[1])}"
    if kind == "roman":
        return f"{parts[0]} {cardinal(parts[1])}"
    if kind == "place":
        word, first, second = parts
        return f"{word} {_place_group(first)} dash {_place_group(second)}"
    if kind == "proportion":
        return parts[0] + fraction_words(parts[1], parts[2])
    if kind == "edition":
        word, number, edition = parts
        return f"{word} {cardinal(int(number))} colon {year(edition)}"
    if kind == "ratio":
        return f"{decimal(parts[0])} to {decimal(parts[1])}"
    if kind == "dated id":
        word, groups = parts
        spelled = [" ".join(letter(c) if c.isalpha() else WORDS[int(c)] for c in g) for g in groups]
        return word.replace("No.", "number") + " " + " dash ".join(spelled)
    return f"{parts[0]} {cardinal(parts[1])}"


def date_form(kind: str, parts: tuple) -> str:
    """A date as the month-date rule says it; the Unix form the weekday, the date, a comma,
    the time and "U T C"; an ISO week "week", its number, "of" the year, then "day" and the
    day; the military clock "at", the time, "hours"."""
    if kind == "joined":
        return date(*parts)
    if kind == "unix":
        weekday, date_parts, time = parts
        return f"{weekday} {date(*date_parts)}, {clock(time)} U T C"
    if kind == "week":
        full_year, week, weekday = parts
        said = f"week {cardinal(week)} of {year(full_year)}"
        return said + (f", day {cardinal(weekday)}" if weekday else "")
    return f"at {clock(parts)} hours"


def connection(kind: str, parts: tuple) -> str:
    """A number: "plus", each group dialled, a pause between; a node id: "namespace", its
    number, a comma, the kind's word, a numeric id digit by digit or a string's words joined
    by "dot"; a time, then the zone's name."""
    if kind == "phone":
        return "plus " + ", ".join(_dialled(g) for g in parts)
    if kind == "host":
        return " dot ".join(parts)
    if kind == "semver":
        core, pre, build = parts
        said = "version " + " point ".join(cardinal(n) for n in core)
        if pre:
            word = "R C" if pre[0] == "rc" else pre[0]
            said += f" dash {word} dot {cardinal(pre[1])}"
        return said + (f" plus {build[0]} dot {cardinal(build[1])}" if build else "")
    if kind == "node":
        namespace, kind_letter, node = parts
        said = digit_words(node) if kind_letter == "i" else " dot ".join(node)
        word = "numeric" if kind_letter == "i" else "string"
        return f"namespace {cardinal(namespace)}, {word} {said}"
    return f"{clock(parts[0])} {parts[1]}"
