"""English number words: cardinals, ordinals, digits, years, fractions and written numbers, as
an operator says them."""

from __future__ import annotations

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
MONTHS = (
    *("January", "February", "March", "April", "May", "June", "July", "August"),
    *("September", "October", "November", "December"),
)
# The most digits a whole number written without separators is read as an amount: longer ones
# are identifiers (order and batch numbers), read digit by digit, as Mandarin reads them.
AMOUNT_DIGITS = 8
# The most digits a whole number is said as an amount with anywhere (the trillions): a longer
# run is never converted to an int (Python refuses one of more than 4,300 digits, and the
# words of a larger amount would only repeat "trillion"); it is said digit by digit.
QUANTITY_DIGITS = 15
# Denominators with a name of their own; every other denominator is its ordinal.
_FRACTION_NAMES = {2: ("half", "halves"), 4: ("quarter", "quarters")}


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


def whole_value(written: str) -> int | None:
    """The value of a run of digits (`"0042"` → 42), or None for one of more than
    QUANTITY_DIGITS digits after its leading zeros: a run no rule reads as a quantity."""
    significant = written.lstrip("0")
    return int(significant or "0") if len(significant) <= QUANTITY_DIGITS else None


def ordered(written: str) -> tuple[int, str]:
    """A key that orders runs of digits of any length as their values (`"0099"` before
    `"100"`), without converting them."""
    significant = written.lstrip("0")
    return len(significant), significant


def count(written: str) -> str:
    """A run of digits as a cardinal (`"12"` → "twelve"), digit by digit when it is too long
    for a quantity (see `whole_value`)."""
    value = whole_value(written)
    return digits(written) if value is None else cardinal(value)


def ordinal(n: int) -> str:
    """`3` → "third", `21` → "twenty first", `40` → "fortieth"."""
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
    """`"807"` → "eight zero seven": one word per digit, for codes and addresses."""
    return " ".join(zero if d == "0" else _ONES[int(d)] for d in text)


def year(n: int) -> str:
    """`2024` → "twenty twenty four", `1905` → "nineteen oh five", `2005` → "two thousand five":
    in pairs, except where the pairs would say "twenty oh five" or "twenty hundred"."""
    high, low = divmod(n, 100)
    if n < 1000 or (high % 10 == 0 and low < 10):
        return cardinal(n)
    if low == 0:
        return f"{cardinal(high)} hundred"
    return f"{cardinal(high)} {'oh ' if low < 10 else ''}{cardinal(low)}"


def fraction(numerator: int, denominator: int, plural: bool = True) -> str:
    """`1, 2` → "one half", `3, 4` → "three quarters", `5, 8` → "five eighths"; not `plural`,
    as a size is said before its unit: "three quarter", "five eighth"."""
    singular, many = _FRACTION_NAMES.get(denominator) or (ordinal(denominator),) * 2
    if numerator == 1 or not plural:
        return f"{cardinal(numerator)} {singular}"
    if denominator not in _FRACTION_NAMES:
        many += "s"
    return f"{cardinal(numerator)} {many}"


def exponent(written: str) -> str:
    """`-3` → " times ten to the minus three": an exponent of ten, as said after a number."""
    sign = "minus " if written.startswith("-") else ""
    return f" times ten to the {sign}{count(written.lstrip('+-'))}"


def number(text: str) -> str:
    """A written number without sign: `1,250` → cardinal, `6.49` → "six point four nine",
    `007` → digit by digit (a leading zero means the digits are a label, not an amount), and
    so are nine digits or more written without separators (`20251130044`: an identifier),
    `1.5e-3` → "one point five times ten to the minus three"."""
    grouped = "," in text
    mantissa, _, power = text.replace(",", "").lower().partition("e")
    whole, _, decimals = mantissa.partition(".")
    if not whole:
        spoken = "zero"
    elif (len(whole) > 1 and whole.startswith("0")) or len(whole) > (
        QUANTITY_DIGITS if grouped else AMOUNT_DIGITS
    ):
        spoken = digits(whole)
    else:
        spoken = cardinal(int(whole))
    if decimals:
        spoken += f" point {digits(decimals)}"
    return spoken + (exponent(power) if power else "")


def letters(written: str) -> list[str]:
    """Capitals one by one. A lone capital A is read as the article "a" by both engines; "eh"
    is read as the letter."""
    return ["eh" if c == "A" else c for c in written]


def is_one(written: str) -> bool:
    return written.replace(",", "") == "1"


_ROMAN_VALUES = (
    *((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L")),
    *((40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")),
)


def roman(n: int) -> str:
    """`14` → "XIV": the canonical Roman numeral of 1 to 3999."""
    out = ""
    for value, written in _ROMAN_VALUES:
        count, n = divmod(n, value)
        out += written * count
    return out


def roman_value(written: str) -> int | None:
    """`"IV"`, `"iv"` → 4; None for letters that are no canonical numeral (`"IIII"`, `"VX"`)."""
    letters_ = written.upper()
    total, rest = 0, letters_
    for value, symbol in _ROMAN_VALUES:
        while rest.startswith(symbol):
            total, rest = total + value, rest[len(symbol) :]
    return total if not rest and total and roman(total) == letters_ else None
