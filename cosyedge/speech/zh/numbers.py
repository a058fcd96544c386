"""Numbers read the way a Mandarin speaker says them in an alert."""

from __future__ import annotations

DIGITS = "零一二三四五六七八九"
_SMALL_UNITS = ("", "十", "百", "千")
_BIG_UNITS = ("", "万", "亿", "万亿")


def read_digits(digits: str, one: str = "一") -> str:
    """Digit by digit: codes, years, long serial numbers. `one="幺"` as in device tags."""
    return "".join(one if d == "1" else DIGITS[int(d)] for d in digits if d.isdigit())


def _read_group(n: int) -> str:
    """0 < n < 10000, with 零 for inner gaps; the leading 两 is left to the caller."""
    out = []
    zero = False
    for position in range(3, -1, -1):
        d = n // 10**position % 10
        if d == 0:
            zero = bool(out)
            continue
        if zero:
            out.append("零")
            zero = False
        out.append(DIGITS[d] + _SMALL_UNITS[position])
    return "".join(out)


def read_integer(n: int) -> str:
    """Cardinal reading: 2307 → 两千三百零七, 10 → 十, 110 → 一百一十, 100010 → 十万零一十."""
    if n < 0:
        return "负" + read_integer(-n)
    if n == 0:
        return "零"
    if n >= 10**16:
        return read_digits(str(n))
    groups = []
    while n:
        groups.append(n % 10000)
        n //= 10000
    out = []
    need_zero = False
    for index in range(len(groups) - 1, -1, -1):
        group = groups[index]
        if group == 0:
            need_zero = bool(out)
            continue
        if out and (need_zero or group < 1000):
            out.append("零")
        out.append(_read_group(group) + _BIG_UNITS[index])
        need_zero = False
    text = "".join(out)
    if text.startswith("一十"):
        text = text[1:]  # 十二, not 一十二
    if text.startswith("二") and len(text) > 1 and text[1] in "百千万亿":
        text = "两" + text[1:]  # 两千, 两百, 两万
    return text


# Python refuses int() on a string of more than 4,300 digits (a guard against slow
# conversions), and read_integer says 17 digits or more one by one anyway: a run is only
# converted where it is short enough to be said as a cardinal.
_LONGEST_CARDINAL = 16


def read_cardinal(digits: str) -> str:
    """A run of ASCII digits as `read_integer` says its value, whatever its length: more than
    16 significant digits digit by digit (as `read_integer` says them), without converting
    the run to an int."""
    significant = digits.lstrip("0")
    if len(significant) > _LONGEST_CARDINAL:
        return read_digits(significant)
    return read_integer(int(significant or "0"))


def read_signed(written: str) -> str:
    """A whole number with an optional sign (`-3`, `+5`, or a minus sign), as a power is
    written: 负 for a minus, the digits as `read_cardinal` says them."""
    sign, digits = (written[0], written[1:]) if written[:1] in "+-−" else ("", written)
    return ("负" if sign in ("-", "−") else "") + read_cardinal(digits)


def digit_order(digits: str) -> tuple[int, str]:
    """A key that orders runs of digits as their values are ordered, without converting them
    (a run may be longer than int() takes)."""
    significant = digits.lstrip("0")
    return len(significant), significant


def read_number(text: str) -> str:
    """A plain decimal string ("12.5", "-0.75", "007"): integer part cardinal, decimals digit by
    digit. Leading zeros are kept as digits, so an identifier like 007 is not turned into 七."""
    sign = ""
    if text[:1] in "-−":
        sign, text = "负", text[1:]
    whole, _, fraction = text.partition(".")
    leading_zero = len(whole) > 1 and whole.startswith("0")
    head = read_digits(whole) if leading_zero else read_cardinal(whole)
    if fraction:
        head += "点" + read_digits(fraction)
    return sign + head
