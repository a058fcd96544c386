"""English alert text → words read the way a plant operator expects.

Runs before phonemization for every English voice, because engines guess differently (espeak
reads `PT-101` as "pt minus one hundred and one", `6.49` with a pause, `°C` not at all):
- device codes spelled out, digits one by one: `PT-101` → "P T one oh one", `M8153` → "M eight
  one five three";
- times on the 24-hour clock: `14:48` → "fourteen forty eight", `09:05` → "oh nine oh five";
- decimals digit by digit after the point: `6.49` → "six point four nine";
- units after a number, singular for one: `32.9 A.` → "thirty two point nine amps.", `1 bar`,
  `-5 °C` → "minus five degrees Celsius", `61%` → "sixty one percent";
- ranges `5-10` and ratios `3:1` with "to", comparison signs, `#`, `&`, ordinals;
- a capital A used as a label (`pump A is on`, `PT-101A`) as the letter, not the article.
A one-letter unit (A, V, W, m, s, h, l) is only read as a unit at the end of a clause, so
`pump 3 A failed` keeps its letter.
"""

from __future__ import annotations

import re
import unicodedata

# Bump whenever a rule below changes what any text reads as: it is part of the voice identity.
VERSION = "en-1"

_ONES = (
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
    *("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen"),
)
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SCALES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (1000, "thousand"))
_ORDINAL_WORDS = {
    "one": "first",
    "two": "second",
    "three": "third",
    "five": "fifth",
    "eight": "eighth",
    "nine": "ninth",
    "twelve": "twelfth",
}


def cardinal(n: int) -> str:
    """`109` → "one hundred nine" (no "and", no hyphens: both engines read plain words best)."""
    if n < 0:
        return f"minus {cardinal(-n)}"
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + (f" {_ONES[ones]}" if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{_ONES[hundreds]} hundred" + (f" {cardinal(rest)}" if rest else "")
    for size, name in _SCALES:
        if n >= size:
            high, rest = divmod(n, size)
            return f"{cardinal(high)} {name}" + (f" {cardinal(rest)}" if rest else "")
    raise AssertionError(n)  # unreachable: every n >= 1000 meets a scale


def ordinal(n: int) -> str:
    words = cardinal(n).split()
    last = words[-1]
    if last in _ORDINAL_WORDS:
        words[-1] = _ORDINAL_WORDS[last]
    elif last.endswith("y"):
        words[-1] = last[:-1] + "ieth"
    else:
        words[-1] = last + "th"
    return " ".join(words)


def digits(text: str, zero: str = "zero") -> str:
    return " ".join(zero if d == "0" else _ONES[int(d)] for d in text)


def number(text: str) -> str:
    """A written number without sign: `1,250` → cardinal, `6.49` → "six point four nine",
    `007` → digit by digit (a leading zero means the digits are a label, not an amount)."""
    whole, _, fraction = text.replace(",", "").partition(".")
    if not whole:
        spoken = "zero"
    elif (len(whole) > 1 and whole.startswith("0")) or len(whole) > 15:
        spoken = digits(whole)
    else:
        spoken = cardinal(int(whole))
    return f"{spoken} point {digits(fraction)}" if fraction else spoken


# unit as written → (singular, plural). Longest first, so `kPa` wins over `Pa`.
_UNITS = {
    "°C": ("degree Celsius", "degrees Celsius"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
    "°": ("degree", "degrees"),
    "%": ("percent", "percent"),
    "%RH": ("percent relative humidity", "percent relative humidity"),
    "bar": ("bar", "bar"),
    "mbar": ("millibar", "millibar"),
    "barg": ("bar gauge", "bar gauge"),
    "Pa": ("pascal", "pascals"),
    "kPa": ("kilopascal", "kilopascals"),
    "MPa": ("megapascal", "megapascals"),
    "psi": ("P S I", "P S I"),
    "rpm": ("R P M", "R P M"),
    "ppm": ("part per million", "parts per million"),
    "ppb": ("part per billion", "parts per billion"),
    "mA": ("milliamp", "milliamps"),
    "kA": ("kiloamp", "kiloamps"),
    "mV": ("millivolt", "millivolts"),
    "kV": ("kilovolt", "kilovolts"),
    "kW": ("kilowatt", "kilowatts"),
    "MW": ("megawatt", "megawatts"),
    "kWh": ("kilowatt hour", "kilowatt hours"),
    "Hz": ("hertz", "hertz"),
    "kHz": ("kilohertz", "kilohertz"),
    "dB": ("decibel", "decibels"),
    "mm": ("millimeter", "millimeters"),
    "cm": ("centimeter", "centimeters"),
    "km": ("kilometer", "kilometers"),
    "mm/s": ("millimeter per second", "millimeters per second"),
    "m/s": ("meter per second", "meters per second"),
    "m3/h": ("cubic meter per hour", "cubic meters per hour"),
    "l/min": ("liter per minute", "liters per minute"),
    "kg": ("kilogram", "kilograms"),
    "ms": ("millisecond", "milliseconds"),
    "min": ("minute", "minutes"),
    "Nm": ("newton meter", "newton meters"),
}
# One-letter units are only units at the end of a clause (see the module docstring).
_LETTER_UNITS = {
    "A": ("amp", "amps"),
    "V": ("volt", "volts"),
    "W": ("watt", "watts"),
    "m": ("meter", "meters"),
    "s": ("second", "seconds"),
    "h": ("hour", "hours"),
    "l": ("liter", "liters"),
    "L": ("liter", "liters"),
}
_SIGNS = {"<=": "at most", ">=": "at least", "≤": "at most", "≥": "at least"}
_SIGNS |= {"<": "less than", ">": "greater than", "~": "about", "±": "plus or minus"}


def _alternatives(words) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?|\.\d+"
_NUMBER_START = r"(?<![\w.,])"  # not inside a word, a code or another number
_CODE = re.compile(r"(?<![\w.-])([A-Z]{1,4})-?(\d{1,6})([A-Z]{0,2})(?![\w-]|\.\d)")
_TIME = re.compile(r"(?<![\d:.])(\d{1,2}):(\d{1,2})(?::(\d{2}))?(?![\d:]|\.\d)")
_RANGE = re.compile(rf"{_NUMBER_START}({_NUM})\s?[-\u2013]\s?({_NUM})(?![\w.-]|\.\d)")
_MINUS = re.compile(r"(?<![\w.,)])-(?=\.?\d)")
_PLUS = re.compile(r"(?<![\w.,)])\+(?=\.?\d)")
_UNIT = re.compile(rf"{_NUMBER_START}({_NUM})\s?({_alternatives(_UNITS)})(?![\w/³])")
_LETTER_UNIT = re.compile(
    rf"{_NUMBER_START}({_NUM})\s?({_alternatives(_LETTER_UNITS)})(?=\s*(?:[,.;:!?)]|$))"
)
_LONE_UNIT = re.compile(r"°C|°F|%|°")
_SIGN = re.compile(rf"\s*({_alternatives(_SIGNS)})\s*(?=[-+]?\.?\d)")
_ORDINAL = re.compile(r"(?<![\w.,])(\d+)(?:st|nd|rd|th)\b")
_HASH = re.compile(r"#\s?(?=\d)")
_NUMBER = re.compile(rf"{_NUMBER_START}({_NUM})(?![\d])")
_LABEL_A = re.compile("(?<=[a-z0-9] )A(?![\\w'\u2019-])")
_LETTER_DIGIT = re.compile(r"(?<=[a-z])(?=\d)|(?<=\d)(?=[a-z]{2,})")
_SPACES = re.compile(r"[ \t\r\n]+")
_SPACE_BEFORE_PUNCT = re.compile(r" +(?=[,.;:!?])")


def _is_one(written: str) -> bool:
    return written.replace(",", "") == "1"


def _letters(written: str) -> list[str]:
    # A lone capital A is read as the article "a" by both engines; "eh" is read as the letter.
    return ["eh" if c == "A" else c for c in written]


def _code(m: re.Match[str]) -> str:
    letters, code_digits, suffix = m.groups()
    return " ".join([*_letters(letters), digits(code_digits, zero="oh"), *_letters(suffix)])


def _time(m: re.Match[str]) -> str:
    hours, minutes, seconds = m.groups()
    h, mi = int(hours), int(minutes)
    if len(minutes) != 2 or h > 24 or mi > 59 or (seconds and int(seconds) > 59):
        if seconds:
            return m.group(0)
        return f"{number(hours)} to {number(minutes)}"  # not a clock time: a ratio, 3:1
    spoken = ("oh " if hours.startswith("0") and len(hours) == 2 else "") + cardinal(h)
    if mi == 0:
        spoken += " hundred"
    elif mi < 10:
        spoken += f" oh {cardinal(mi)}"
    else:
        spoken += f" {cardinal(mi)}"
    if seconds:
        spoken += f" and {cardinal(int(seconds))} seconds"
    return spoken


def _with_unit(table: dict[str, tuple[str, str]]):
    def replace(m: re.Match[str]) -> str:
        written, unit = m.groups()
        singular, plural = table[unit]
        return f"{number(written)} {singular if _is_one(written) else plural}"

    return replace


def _lone_unit(m: re.Match[str]) -> str:
    return " " + _UNITS[m.group(0)][1] + " "


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\u2212", "-")
    text = _CODE.sub(_code, text)
    text = _TIME.sub(_time, text)
    text = _RANGE.sub(r"\1 to \2", text)
    text = _SIGN.sub(lambda m: f" {_SIGNS[m.group(1)]} ", text)
    text = _MINUS.sub("minus ", text)
    text = _PLUS.sub("plus ", text)
    text = _UNIT.sub(_with_unit(_UNITS), text)
    text = _LETTER_UNIT.sub(_with_unit(_LETTER_UNITS), text)
    text = _LONE_UNIT.sub(_lone_unit, text)
    text = _LABEL_A.sub("eh", text)
    text = _HASH.sub("number ", text)
    text = text.replace("&", " and ")
    text = _ORDINAL.sub(lambda m: ordinal(int(m.group(1))), text)
    text = _LETTER_DIGIT.sub(" ", text)
    text = _NUMBER.sub(lambda m: number(m.group(1)), text)
    text = _SPACES.sub(" ", text).strip()
    return _SPACE_BEFORE_PUNCT.sub("", text)
