"""Generators of the forms each reading class covers, for the property tests of both
languages: each draws a written form and the parts it was made of, from which a reference
verbalizer (reference_en.py, reference_zh.py) computes what should be heard."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from hypothesis import HealthCheck, assume, settings
from hypothesis import strategies as st

# 25 drawn instances a class in the suite, as it is sized for CI (its two files took 58 s of
# CPU at 50, most of it Hypothesis's own drawing); the rarer shapes of a class, which a few
# dozen draws may miss, are what `scripts/prove`'s 1,000 are for (its `readings` row);
# COSYEDGE_FUZZ_EXAMPLES any number.
EXAMPLES = int(os.environ.get("COSYEDGE_FUZZ_EXAMPLES", "25"))
CLASSES = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@dataclass(frozen=True)
class Form:
    """One generated instance: how it is written, and what it is (for the references)."""

    written: str
    parts: tuple


# --- compact durations -----------------------------------------------------------------------

_DURATION_UNITS = (("d", "day", 400), ("h", "hour", 100), ("m", "minute", 60), ("s", "second", 60))


@st.composite
def durations(draw) -> Form:
    """Two or more of days, hours, minutes, seconds, largest first: `3h40m`, `1h05m20s`,
    `2d 4h`, `5min 30.5s`; the last part may have decimals."""
    chosen = draw(st.lists(st.sampled_from(range(4)), min_size=2, max_size=4, unique=True))
    chosen.sort()
    space = draw(st.sampled_from(["", " "]))
    written, parts = [], []
    for i, index in enumerate(chosen):
        unit, word, limit = _DURATION_UNITS[index]
        amount = str(draw(st.integers(0, limit - 1 if i else min(limit, 999))))
        if i and draw(st.booleans()):
            amount = amount.zfill(2)
        if i == len(chosen) - 1 and draw(st.integers(0, 4)) == 0:
            amount += "." + str(draw(st.integers(0, 99)))
        symbol = "min" if unit == "m" and draw(st.booleans()) else unit
        written.append(amount + symbol)
        parts.append((amount, word))
    return Form(space.join(written), tuple(parts))


# --- MAC addresses -----------------------------------------------------------------------------


@st.composite
def macs(draw) -> Form:
    """Six pairs of hex digits with `:` or `-` throughout, in either case."""
    pairs = draw(st.lists(st.integers(0, 255), min_size=6, max_size=6))
    case = draw(st.sampled_from([str.upper, str.lower]))
    written = [case(f"{p:02X}") for p in pairs]
    return Form(draw(st.sampled_from(":-")).join(written), tuple(written))


# --- units after a number, with prefixes, exponents, product and quotient signs -------------

# (symbol, prefixes it takes, a length): the units both languages read; lone letters are left
# to the example tables, since English reads them as units only where a clause ends. Micro is
# written three ways: the micro sign µ, the Greek μ and an ASCII u.
UNIT_BASES = (
    *(("m", "nµμumck", True), ("ft", "", True), ("g", "µμumk", False), ("s", "pnµμum", False)),
    *(("min", "", False), ("h", "", False), ("A", "µμumk", False), ("V", "µμumkM", False)),
    *(("W", "mkMGT", False), ("Wh", "kMGT", False), ("VA", "kM", False), ("var", "kM", False)),
    *(("varh", "kM", False), ("Ah", "m", False), ("Pa", "mhkMG", False), ("Hz", "kMG", False)),
    *(("Ω", "mkM", False), ("J", "kM", False), ("N", "k", False), ("Nm", "", False)),
    *(("l", "µμumc", False), ("L", "µμumc", False), ("lb", "", False), ("lbf", "", False)),
)
# Units without prefixes or powers, which may stand only first above the line.
UNIT_SIGNS = ("bar", "°C", "°F", "dB", "barg", "bar(g)", "bara", "bar(a)", "Nm3", "Nm³")
_POWER_WRITTEN = {2: ["²", "2", "^2"], 3: ["³", "3", "^3"]}


@st.composite
def unit_terms(draw, below: bool) -> tuple[str, tuple[str, str, int]]:
    """One term: its written form and (prefix, base, power). A power on a length (`m²`), and
    below the line on a time too (`m/s2`); `A3` is a tag."""
    symbol, prefixes, length = draw(st.sampled_from(UNIT_BASES))
    prefix = draw(st.sampled_from(["", *prefixes]))
    powered = length or (below and symbol in ("s", "min", "h"))
    power = draw(st.sampled_from([1, 1, 2, 3])) if powered else 1
    written = prefix + symbol + (draw(st.sampled_from(_POWER_WRITTEN[power])) if power > 1 else "")
    return written, (prefix, symbol, power)


@st.composite
def units(draw) -> Form:
    """A number and a unit: `5 kvar·h`, `12ft·lbf`, `2.5 m/s²`, `3 kg/m³`, `40m/min`. Parts:
    (amount, terms above, terms below), each term (prefix, base, power)."""
    amount = draw(st.sampled_from(["1", "2", "0.5", "12", "250", "1.25", "3000", "45.6"]))
    first = draw(
        st.one_of(unit_terms(False), st.sampled_from(UNIT_SIGNS).map(lambda s: (s, ("", s, 1))))
    )
    above = [first, *draw(st.lists(unit_terms(False), max_size=2))]
    below = draw(st.lists(unit_terms(True), max_size=1))
    if len(above) == 1 and not below and len(first[0]) == 1:
        below = [draw(unit_terms(True))]  # a lone letter is read as a unit only at a clause end
    sign = draw(st.sampled_from("·⋅*-"))
    written = sign.join(w for w, _ in above) + "".join("/" + w for w, _ in below)
    space = draw(st.sampled_from(["", " "]))
    return Form(amount + space + written, (amount, [t for _, t in above], [t for _, t in below]))


# --- dates, IPv4 addresses, device tags: fields that keep their reading inside a token -------


@st.composite
def dates(draw, day_first: bool = True) -> Form:
    """A valid date, year first (`2026-11-15`, `2026/11/15`, `2026.11.15`) or, with
    `day_first`, year last and the day first (`15/11/2026`, `15.11.2026`). Parts: (year,
    month, day)."""
    year = draw(st.integers(1990, 2099))
    month = draw(st.integers(1, 12))
    day = draw(st.integers(1, 28 if month == 2 else 30))
    sep = draw(st.sampled_from("-/."))
    pad = draw(st.sampled_from([str, lambda n: f"{n:02d}"]))
    if day_first and draw(st.booleans()):
        return Form(f"{pad(day)}{sep}{pad(month)}{sep}{year}", (year, month, day))
    return Form(f"{year}{sep}{pad(month)}{sep}{pad(day)}", (year, month, day))


@st.composite
def addresses(draw) -> Form:
    """An IPv4 address, with a port or a prefix length or neither. Parts: (octets, port,
    prefix)."""
    octets = tuple(str(draw(st.integers(0, 255))) for _ in range(4))
    port = prefix = None
    tail = draw(st.sampled_from(["", "", "port", "prefix"]))
    if tail == "port":
        port = str(draw(st.integers(1, 65535)))
    elif tail == "prefix":
        prefix = draw(st.integers(0, 32))
    written = (
        ".".join(octets) + (f":{port}" if port else "") + (f"/{prefix}" if tail == "prefix" else "")
    )
    return Form(written, (octets, port, prefix))


@st.composite
def tags(draw) -> Form:
    """A device tag: two to four capitals, a hyphen, digits, perhaps a suffix letter:
    `PT-101A`. Parts: (letters, digits, suffix)."""
    letters = draw(st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=2, max_size=4))
    digits = draw(st.text("0123456789", min_size=1, max_size=4))
    suffix = draw(st.sampled_from(["", "", "A", "B", "C"]))
    return Form(f"{letters}-{digits}{suffix}", (letters, digits, suffix))


# The pieces a field is joined to inside a token (each language's tests know how it reads them).
TOKEN_PIECES = ("GW2", "PLC", "LOG", "HMI3", "CAB12")


@st.composite
def joined_fields(draw) -> Form:
    """A field inside a longer token: `GW2-10.20.30.40-a`, `CAB12/PT-101A`, `LOG_2026-11-15`.
    Parts: (piece before or None, joiner, (kind, field parts), joiner, piece after or None);
    a piece after is a word, or one letter of either case after an address."""
    kind, form = draw(
        st.sampled_from(["ip", "mac", "tag", "date"]).flatmap(
            lambda k: st.tuples(st.just(k), FIELD_STRATEGIES[k])
        )
    )
    before = draw(st.sampled_from([None, *TOKEN_PIECES]))
    # A letter after a tag is its suffix, however joined (`FV-12_A`): no piece of its own.
    letters = [] if kind == "tag" else ["a", "B", "x"]
    after = draw(st.sampled_from([None, *letters, *TOKEN_PIECES]))
    if before is None and after is None:
        after = "PLC"
    joiners = draw(st.lists(st.sampled_from("-_/"), min_size=2, max_size=2))
    if kind == "ip" and form.parts[2] is not None and joiners[1] == "/":
        joiners[1] = "-"  # 10.0.0.0/8/x: the prefix would take the slash
    written = (f"{before}{joiners[0]}" if before else "") + form.written
    written += f"{joiners[1]}{after}" if after else ""
    return Form(written, (before, joiners[0], (kind, form.parts), joiners[1], after))


FIELD_STRATEGIES = {
    "ip": addresses(),
    "mac": macs(),
    "tag": tags(),
    "date": dates(day_first=False),
}


@st.composite
def clock_times(draw, fractions: bool = True, utc: bool = True) -> Form:
    """A time on the 24-hour clock: `14:05`, `09:05:30`, `7:45`, `23:59:59.9`, `06:00Z`.
    Parts: ("24", hours as written, minutes, seconds or None, decimals or None, utc)."""
    h = draw(st.integers(0, 23))
    hours = f"{h:02d}" if draw(st.booleans()) or h == 0 else str(h)
    mi = draw(st.integers(0, 59))
    seconds = f"{draw(st.integers(0, 59)):02d}" if draw(st.booleans()) else None
    decimals = None
    if fractions and seconds and draw(st.integers(0, 3)) == 0:
        decimals = str(draw(st.integers(0, 999)))
    utc = utc and draw(st.booleans())
    written = f"{hours}:{mi:02d}" + (f":{seconds}" if seconds else "")
    written += (f".{decimals}" if decimals else "") + ("Z" if utc else "")
    return Form(written, ("24", hours, mi, seconds, decimals, utc))


@st.composite
def half_day_times(draw) -> Form:
    """A time on the 12-hour clock: `7:45am`, `11 pm`, `12:05 P.M.`. Parts: ("12", hour,
    minutes, seconds or None, am)."""
    h, mi = draw(st.integers(1, 12)), draw(st.integers(0, 59))
    seconds = draw(st.integers(0, 59)) if draw(st.integers(0, 3)) == 0 else None
    am = draw(st.booleans())
    mark = draw(st.sampled_from(["am", "AM", "a.m", "A.M"]))
    mark = mark if am else mark.replace("a", "p").replace("A", "P")
    clock = f"{h}" if not mi and seconds is None and draw(st.booleans()) else f"{h}:{mi:02d}"
    clock += f":{seconds:02d}" if seconds is not None and ":" in clock else ""
    if ":" not in clock:
        seconds = None
    return Form(clock + draw(st.sampled_from(["", " "])) + mark, ("12", h, mi, seconds, am))


@st.composite
def timestamps(draw) -> Form:
    """A date, a time, or a date and its time after a space or a `T`. Parts: (date parts or
    None, time parts or None)."""
    kind = draw(st.sampled_from(["date", "time", "both"]))
    date = draw(dates()) if kind != "time" else None
    time = draw(st.one_of(clock_times(), half_day_times())) if kind != "date" else None
    if date and time:
        joint = draw(st.sampled_from([" ", "T"])) if time.parts[0] == "24" else " "
        return Form(date.written + joint + time.written, (date.parts, time.parts))
    form = date or time
    return Form(form.written, (date.parts if date else None, time.parts if time else None))


@st.composite
def versions(draw) -> Form:
    """A version: `v4.0.2`, `V2.1`, `fw v1.12.3`, `firmware 4.12`, `v2.1.0-rc1`. Parts: (the
    word before it or None, its numbers as written, the pre-release tag, its number)."""
    parts = [str(draw(st.integers(0, 30)))]
    for _ in range(draw(st.integers(1, 3))):
        n = draw(st.integers(0, 99))
        parts.append(f"{n:02d}" if n < 10 and draw(st.integers(0, 3)) == 0 else str(n))
    word = draw(st.sampled_from([None, None, "firmware", "Firmware", "version", "fw", "release"]))
    tag = draw(st.sampled_from(["", "", "rc", "beta", "b", "alpha"]))
    tag_number = str(draw(st.integers(1, 9))) if tag and draw(st.booleans()) else ""
    written = (f"{word} " if word else draw(st.sampled_from(["v", "V", "fw v"]))) + ".".join(parts)
    written += f"-{tag}{tag_number}" if tag else ""
    if written.startswith("fw v"):
        word = "fw v"
    return Form(written, (word, tuple(parts), tag, tag_number))


# Words that say an identifier follows, as written and as said.
ID_WORDS = (
    *(("SN", "S N"), ("S/N", "S N"), ("sn", "S N"), ("P/N", "P N"), ("PO", "P O")),
    *(("serial", "serial"), ("serial number", "serial number"), ("order", "order")),
    *(("Order No.", "Order number"), ("order no", "order number"), ("batch", "batch")),
    ("Lot", "Lot"),
)
ID_SEPARATORS = ((" ", " "), (": ", ": "), (" #", " number "), ("#", " number "))
_DATE_SHAPE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}-\d{1,2}-\d{4}")


@st.composite
def identifiers(draw) -> Form:
    """A serial or order number: after a word that says one follows (`SN 8842-1190-07`,
    `order 20251130044`, `lot #20231`), hyphenated groups on their own (`8842-1190-07`), or
    nine digits or more. Parts: (the word and what follows it as said, or "", the groups)."""
    kind = draw(st.sampled_from(["word", "groups", "long"]))
    group = st.text("0123456789", min_size=1, max_size=6)
    if kind == "long":
        first = draw(st.sampled_from("123456789"))
        number = first + draw(st.text("0123456789", min_size=8, max_size=14))
        return Form(number, ("", (number,)))
    if kind == "groups":
        groups = draw(st.lists(group, min_size=3, max_size=5))
        written = "-".join(groups)
        assume(not _DATE_SHAPE.fullmatch(written))
        return Form(written, ("", tuple(groups)))
    word, said = draw(st.sampled_from(ID_WORDS))
    between, between_said = draw(st.sampled_from(ID_SEPARATORS))
    if draw(st.booleans()):
        groups = [draw(st.text("0123456789", min_size=4, max_size=12))]
    else:
        groups = draw(st.lists(group, min_size=2, max_size=4))
    return Form(word + between + "-".join(groups), (said + between_said, tuple(groups)))


@st.composite
def timestamps_zh(draw, utc: bool = False) -> Form:
    """What Mandarin alerts write: a date year first, a 24-hour time, or the date and its
    time after a space or a `T`; with `utc`, the time may end in Z (and only then have
    fractions of a second). Parts: (date parts or None, time parts or None)."""
    kind = draw(st.sampled_from(["date", "time", "both"]))
    time = draw(clock_times(fractions=utc, utc=utc)) if kind != "date" else None
    if time and time.parts[4] and not time.parts[5]:
        time = None
    date = draw(dates(day_first=False)) if kind != "time" or time is None else None
    joint = draw(st.sampled_from([" ", "T"])) if date and time else ""
    written = (date.written if date else "") + joint + (time.written if time else "")
    return Form(written, (date.parts if date else None, time.parts if time else None))


PHONE_WORDS = ("拨打", "电话", "电话号码", "手机", "手机号", "联系电话", "呼叫", "致电", "热线")
EMERGENCY = (("火警", "119"), ("匪警", "110"), ("急救", "120"), ("拨打", "122"), ("呼叫", "119"))
EMERGENCY += (("请拨", "120"), ("立即拨", "119"), ("拨", "110"), ("致电", "112"))


@st.composite
def phone_numbers(draw) -> Form:
    """A telephone number by kind: a mobile (`13812345678`, `138-1234-5678`), a landline with
    its area code and perhaps an extension (`021-60121234`, `(0755)2345678转3305`), one in
    hyphenated groups (`021-6012-1234`, `400-820-8820`), an
    extension (`分机3305`), an emergency number (`火警119`); after a word that says a number
    is dialled, or (mobiles and landlines) alone. Parts: (what precedes it as written, the
    groups it is said in, the extension)."""
    kind = draw(st.sampled_from(["mobile", "landline", "grouped", "extension", "emergency"]))
    digits = st.text("0123456789", min_size=1, max_size=1)
    if kind == "emergency":
        word, number = draw(st.sampled_from(EMERGENCY))
        return Form(word + number, (word, (number,), ""))
    if kind == "extension":
        number = draw(st.text("0123456789", min_size=3, max_size=6))
        return Form("分机" + number, ("分机", (number,), ""))
    word = draw(st.sampled_from(["", "", *PHONE_WORDS]))
    word += draw(st.sampled_from(["", "\uff1a", " "])) if word else ""  # a full-width colon
    extension = ""
    if kind == "grouped":  # 021-6012-1234, 0755-8888-6666, 400-820-8820: as written
        head = draw(
            st.sampled_from(
                ["400", "800", "0" + draw(st.text("0123456789", min_size=2, max_size=3))]
            )
        )
        middle = draw(st.text("0123456789", min_size=3, max_size=4))
        groups = (head, middle, draw(st.text("0123456789", min_size=4, max_size=4)))
        written = "-".join(groups)
    elif kind == "mobile":
        groups = (
            "1" + draw(st.sampled_from("3456789")) + draw(digits),
            *(draw(st.text("0123456789", min_size=4, max_size=4)) for _ in range(2)),
        )
        written = draw(st.sampled_from(["", "-", " "])).join(groups)
    else:
        area = "0" + draw(st.text("0123456789", min_size=2, max_size=3))
        local = draw(st.text("0123456789", min_size=7, max_size=8))
        groups = (area, local[:-4], local[-4:])
        written = draw(st.sampled_from([f"{area}-", f"({area})", f"{area} "])) + local
        if draw(st.booleans()):
            extension = draw(st.text("0123456789", min_size=1, max_size=6))
            written += draw(st.sampled_from(["转", "-"])) + extension
    return Form(word + written, (word, groups, extension))


ZONES = ("Asia/Shanghai", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "UTC")


@st.composite
def utc_timestamps(draw) -> Form:
    """A dated timestamp in UTC: `2024-05-01T23:30:00Z`, `2024-05-01 23:30Z`, with fractions
    of a second or none. Parts: (the UTC datetime, whether seconds are written, fraction)."""
    from datetime import UTC, datetime

    moment = draw(
        st.datetimes(datetime(1995, 1, 1), datetime(2060, 12, 31)).map(
            lambda d: d.replace(microsecond=0, tzinfo=UTC)
        )
    )
    seconds = draw(st.booleans())
    fraction = "." + str(draw(st.integers(0, 99))) if seconds and draw(st.booleans()) else ""
    joint = draw(st.sampled_from(["T", " "]))
    written = f"{moment:%Y-%m-%d}{joint}{moment:%H:%M}" + (
        f":{moment:%S}{fraction}" if seconds else ""
    )
    return Form(written + "Z", (moment, seconds, fraction))


def local_parts(parts: tuple, zone: str) -> tuple[tuple, tuple]:
    """The (date, time) parts the references read for a UTC timestamp said in `zone`."""
    from zoneinfo import ZoneInfo

    moment, seconds, fraction = parts
    local = moment.astimezone(ZoneInfo(zone))
    time = ("24", f"{local.hour:02d}", local.minute, f"{local.second:02d}" if seconds else None)
    return (local.year, local.month, local.day), (*time, fraction[1:] or None, False)


# --- digits joined by commas that do not group thousands --------------------------------------

_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_LIST_ITEMS = st.one_of(
    st.integers(0, 9999).map(str),
    st.tuples(st.integers(0, 99), st.integers(0, 999)).map(lambda p: f"{p[0]}.{p[1]}"),
)


@st.composite
def comma_lists(draw) -> Form:
    """Numbers joined by commas that are not a thousands grouping, a unit after them or not:
    `3,4`, `3,4,5`, `1,5 bar` (a decimal comma, en-9), `6,49 bar`, `1.234,5,6` (`1.234,5`, a
    European grouping, is one number). Parts: (the numbers as written, the unit's terms or None)."""
    items = draw(st.lists(_LIST_ITEMS, min_size=2, max_size=4))
    written = ",".join(items)
    assume(not _GROUPED.fullmatch(written))
    # 1.234,5 is a European grouping (en-7), not a list.
    assume(not re.fullmatch(r"[1-9]\d{0,2}(?:\.\d{3})+,\d+", written))
    unit = draw(st.sampled_from([None, ("", "bar", 1), ("k", "g", 1)]))
    if unit is None:
        return Form(written, (tuple(items), None))
    space = draw(st.sampled_from(["", " "]))
    return Form(written + space + unit[0] + unit[1], (tuple(items), unit))


# --- ranges of percentages ---------------------------------------------------------------------

_PERCENTS = st.one_of(
    st.integers(0, 100).map(str),
    st.tuples(st.integers(0, 99), st.integers(0, 99)).map(lambda p: f"{p[0]}.{p[1]}"),
)


@st.composite
def percent_ranges(draw, per_mille: bool = False) -> Form:
    """Two percentages joined by `-`, an en dash or `~`, each with its sign, spaced or not:
    `10%-20%`, `5 % \u2013 7.5 %`, `-5%~10%`; per mille too with `per_mille` (`3\u2030-5\u2030`).
    Parts: ((sign, number) low, (sign, number) high, the sign written after each)."""
    ends = [(draw(st.sampled_from(["", "", "-"])), draw(_PERCENTS)) for _ in range(2)]
    space = draw(st.sampled_from(["", " "]))
    joiner = space + draw(st.sampled_from(["-", "\u2013", "~"])) + space
    symbol = draw(st.sampled_from(["%", "\u2030"] if per_mille else ["%"]))
    written = joiner.join(f"{sign}{n}{space}{symbol}" for sign, n in ends)
    return Form(written, (*ends, symbol))


# --- powers of ten written with a caret --------------------------------------------------------


@st.composite
def caret_powers(draw, latin_x: bool = True) -> Form:
    """A power of ten with `^`, after a number and a times sign (`3.2*10^5 Pa`, `3.2x10^5`,
    `2.5*10^-3 m`; the Latin x with `latin_x`) or alone (`10^6`). Parts: (the number or None,
    the exponent's sign, the exponent, the unit's term or None)."""
    sign = draw(st.sampled_from(["", "", "-", "+"]))
    power = str(draw(st.integers(1, 24)))
    written = "10^" + sign + power
    if draw(st.integers(0, 3)) == 0:
        return Form(written, (None, sign, power, None))
    mantissa = draw(st.sampled_from(["2", "3.2", "1.5", "6.02", "12", "9.81"]))
    times = draw(st.sampled_from(["\u00d7", "*", *(["x"] if latin_x else [])]))
    unit = draw(st.sampled_from([None, ("", "Pa", 1), ("k", "Pa", 1), ("k", "g", 1)]))
    written = mantissa + times + written
    if unit:
        written += draw(st.sampled_from(["", " "])) + unit[0] + unit[1]
    return Form(written, (mantissa, sign, power, unit))


# --- ranges with the unit written on -----------------------------------------------------------

_RANGE_ENDS = ("0", "1", "4", "5", "10", "20", "0.5", "1.5", "250")
# Units of more than one letter: a lone letter is a unit only where a clause ends.
_RANGE_UNITS = (("m", "A", 1), ("k", "V", 1), ("", "bar", 1), ("m", "m", 1), ("k", "Pa", 1))


@st.composite
def unit_ranges(draw) -> Form:
    """Two numbers joined by `-`, an en dash or `~`, the unit written on the second, spaced or
    not: `4-20mA`, `0.5-1.5mm`, `5~10 bar`. Parts: (low, high, the unit's term)."""
    low, high = draw(st.sampled_from(_RANGE_ENDS)), draw(st.sampled_from(_RANGE_ENDS))
    unit = draw(st.sampled_from(_RANGE_UNITS))
    joiner = draw(st.sampled_from(["-", "-", "\u2013", "~"]))
    space = draw(st.sampled_from(["", "", " "]))
    return Form(low + joiner + high + space + unit[0] + unit[1], (low, high, unit))


# --- one small letter written onto a number, inside a clause ----------------------------------


@st.composite
def glued_letters(draw) -> Form:
    """A number with one small letter written on, then more of the clause: a unit (`5s then`,
    `3m high`, `2.5l left`), a times sign (`2x pumps`) or another letter (`2w`, `1d`). Parts:
    (the number, the letter, the word after it)."""
    amount = draw(st.sampled_from(["1", "2", "3", "5", "12", "0.5", "2.5"]))
    letter = draw(st.sampled_from("smhlxdwbqyz"))
    after = draw(st.sampled_from(["then", "high", "pumps", "left"]))
    return Form(f"{amount}{letter} {after}", (amount, letter, after))


# --- English telephone numbers -------------------------------------------------------------------

_DIGITS = "0123456789"


@st.composite
def phones_en(draw) -> Form:
    """A telephone number after a word that says one is dialled (`call 555-1234`, `Dial 911`,
    `tel: 555-123-4567`) or with a country code and a bracketed area code (`+1 (555)
    123-4567`), perhaps an extension (`ext. 204`). Parts: (the word as written, the groups,
    whether a country code leads them, the extension)."""
    word = draw(st.sampled_from(["call ", "Call ", "Dial ", "phone ", "tel: ", "Fax ", "Tel "]))
    sizes = draw(st.sampled_from([(3,), (3, 4), (3, 3, 4), (4, 4), (4, 3, 3), (3, 4, 4)]))
    groups = [draw(st.text(_DIGITS, min_size=n, max_size=n)) for n in sizes]
    joint = draw(st.sampled_from(["-", " "]))  # Dial 0800 123 456: parted by spaces too
    written, code = word + joint.join(groups), False
    if len(groups) > 1 and draw(st.integers(0, 2)) == 0:  # Tel +86 138 1234 5678
        country = draw(st.sampled_from(["1", "44", "86", "49"]))
        written, code = f"{word}+{country} " + joint.join(groups), True
        groups = [country, *groups]
    elif draw(st.integers(0, 2)) == 0:
        country, area = (
            draw(st.sampled_from(["1", "44", "86"])),
            draw(st.text(_DIGITS, min_size=3, max_size=3)),
        )
        word, code = draw(st.sampled_from(["", "call "])), True
        written = f"{word}+{country} ({area}) " + "-".join(groups)
        groups = [country, area, *groups]
    extension = draw(st.sampled_from(["", "204", "12"]))
    if extension:
        written += draw(st.sampled_from([" ext. ", " ext "])) + extension
    return Form(written, (word, tuple(groups), code, extension))


# --- a day and a month without a year ------------------------------------------------------------


# Words after which two digits each side are a day and a month (with the time after one,
# the other cue).
DATE_CUES = ("on ", "since ", "until ", "due ", "from ", "by ", "Fri ", "Monday ", "date: ")
DATE_CUES += ("scheduled for ", "ETA ", "Next PM ", "planned ", "deadline ", "expires ")
DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)  # February in a leap year


@st.composite
def day_months(draw) -> Form:
    """A day and a month, two digits each, `/` between, with a cue that a date is meant: a
    word before it (`on 01/05`, `Fri 12/31`) or a time after it (`01/05 14:00`); day first
    (`01/05`), or month first where the day cannot be a month (`12/31`). Parts: (month, day,
    the cue word or "", the time's parts or None, the year or None). With a cue, a two-digit
    year may follow (`on 10/20/26`)."""
    month = draw(st.integers(1, 12))
    day = draw(st.integers(1, DAYS_IN_MONTH[month - 1]))
    first, second = (month, day) if day > 12 and draw(st.booleans()) else (day, month)
    cue = draw(st.sampled_from(["", *DATE_CUES]))
    time = draw(clock_times(fractions=False, utc=False)) if not cue or draw(st.booleans()) else None
    short_year = draw(st.integers(0, 99)) if cue and draw(st.booleans()) else None
    if short_year is not None and month == 2 and day == 29 and short_year % 4:
        short_year = 24
    written = f"{cue}{first:02}/{second:02}" + (
        f"/{short_year:02}" if short_year is not None else ""
    )
    written += f" {time.written}" if time else ""
    full_year = None if short_year is None else 2000 + short_year
    return Form(written, (month, day, cue, time.parts if time else None, full_year))


@st.composite
def impossible_dates(draw) -> Form:
    """A date the calendar has not: a day past the month's last (`2026-04-31`, `31/04/2026`,
    `29/02/2025`). Parts: (the numbers as written, the separator)."""
    year = draw(st.integers(1990, 2099))
    month = draw(st.sampled_from([2, 4, 6, 9, 11]))  # the months of fewer than 31 days
    last = (29 if year % 4 == 0 else 28) if month == 2 else DAYS_IN_MONTH[month - 1]
    day = draw(st.integers(last + 1, 31))
    sep = draw(st.sampled_from(["-", "/", "."]))
    if draw(st.booleans()):
        parts = (str(year), f"{month:02}", f"{day:02}")
    else:
        parts = (f"{day:02}", f"{month:02}", str(year))
    return Form(sep.join(parts), (parts, sep))


@st.composite
def compact_dates(draw) -> Form:
    """An eight-digit date after a word that says a date follows: `Event 20261130`, `due
    20270105`. Parts: (the cue, year, month, day)."""
    cue = draw(st.sampled_from(["Event ", "due ", "on ", "logged ", "Backup: "]))
    year = draw(st.integers(1990, 2099))
    month = draw(st.integers(1, 12))
    day = draw(st.integers(1, 28))
    return Form(f"{cue}{year}{month:02}{day:02}", (cue, year, month, day))


# --- integer slash pairs and fractions ----------------------------------------------------------

VULGAR_FRACTIONS = {"½": (1, 2), "⅓": (1, 3), "⅔": (2, 3), "¼": (1, 4), "¾": (3, 4)}
VULGAR_FRACTIONS |= {"⅛": (1, 8), "⅜": (3, 8), "⅝": (5, 8), "⅞": (7, 8), "⅕": (1, 5)}
# What may follow a pair, as written, and its kind: a noun or a verb (nothing a quantity is
# said of), a word of extent or size, a unit (no lone letter: those are labels too), an inch
# mark (and what follows it: " in" is an inch where a size ends, as before "pipe").
PAIR_AFTER = (
    *(("", None, None), (" pumps", "noun", None), (" running", "noun", None)),
    *((" trains online", "noun", None), (" open", "extent", None), (" full", "extent", None)),
    *((" turn", "extent", None), (" of the tank", "extent", None), (" bolt", "extent", None)),
    *((" bar", "unit", ("", "bar", 1)), (" kg", "unit", ("k", "g", 1))),
    *((" mm", "unit", ("m", "m", 1)), ("kPa", "unit", ("k", "Pa", 1))),
    *(('"', "inch", ""), (" inch", "inch", ""), (" in pipe", "inch", " pipe")),
)


@st.composite
def slash_pairs(draw) -> Form:
    """Whole numbers either side of a slash (`2/3`, `10/20 pumps`, `12/24 kPa`, `3/4 open`,
    `1 1/2"`) or a vulgar fraction character (`½`, `1¾ in`), perhaps after a whole number,
    then what follows it. Parts: (the whole number or None, numerator, denominator, written
    as a character, (what follows as written, its kind, its unit's term or None))."""
    vulgar = draw(st.booleans()) and draw(st.integers(0, 2)) == 0
    if vulgar:
        char = draw(st.sampled_from(sorted(VULGAR_FRACTIONS)))
        (n, d), pair = VULGAR_FRACTIONS[char], char
    else:
        d = draw(st.one_of(st.sampled_from([2, 3, 4, 8, 16, 32, 64]), st.integers(0, 120)))
        n = draw(st.one_of(st.integers(0, d + 1), st.integers(0, 120)))
        pair = f"{n}/{d}"
    whole = draw(st.integers(1, 12)) if draw(st.integers(0, 3)) == 0 else None
    after = draw(st.sampled_from(PAIR_AFTER))
    joint = draw(st.sampled_from(["", " "])) if vulgar else " "
    written = (f"{whole}{joint}" if whole else "") + pair + after[0]
    return Form(written, (whole, n, d, vulgar, after))


# --- URLs, money, hexadecimal codes, ratios, time ranges, compact timestamps ---------------------

URL_SCHEMES = ("http", "https", "opc.tcp", "mqtt", "ws", "HTTP")
URL_PATHS = ("", "/", "/status", "/api/alarms")


@st.composite
def urls(draw) -> Form:
    """A URL whose host is an IPv4 address: `http://10.0.0.5:8080/status`,
    `opc.tcp://192.168.1.20:4840`. Parts: (scheme, octets, port or None, path)."""
    scheme = draw(st.sampled_from(URL_SCHEMES))
    octets = tuple(str(draw(st.integers(0, 255))) for _ in range(4))
    port = str(draw(st.integers(1, 65535))) if draw(st.booleans()) else None
    path = draw(st.sampled_from(URL_PATHS))
    written = f"{scheme}://{'.'.join(octets)}" + (f":{port}" if port else "") + path
    return Form(written, (scheme, octets, port, path))


# How an amount of money is written: a sign or a code before the amount, or a code (or the euro
# sign) after it.
MONEY_BEFORE = ("$", "€", "£", "¥", "￥", "$ ", "USD ", "EUR ", "CNY ", "RMB ", "GBP ")
MONEY_AFTER = (" EUR", " CNY", " USD", "€", " €")


@st.composite
def money(draw) -> Form:
    """An amount of money: `$1,200`, `€5.50`, `£30`, `￥300`, `CNY 300`, `300 EUR`. Parts:
    (the mark as written, without spaces, whole units, hundredths as written or None)."""
    before = draw(st.booleans())
    mark = draw(st.sampled_from(MONEY_BEFORE if before else MONEY_AFTER))
    whole = draw(st.one_of(st.integers(0, 99), st.integers(100, 99999)))
    cents = f"{draw(st.integers(0, 99)):02d}" if draw(st.booleans()) else None
    amount = f"{whole:,}" if whole >= 1000 and draw(st.booleans()) else str(whole)
    amount += f".{cents}" if cents else ""
    written = mark + amount if before else amount + mark
    return Form(written, (mark.strip(), whole, cents))


@st.composite
def hex_codes(draw) -> Form:
    """A hexadecimal code: `0x1F`, `0xff00`, or digits first with an `h` after (`1Fh`,
    `0FFh`). Parts: (the hex digits as written)."""
    if draw(st.booleans()):
        digits = draw(st.text("0123456789abcdefABCDEF", min_size=1, max_size=8))
        return Form("0x" + digits, (digits,))
    head = draw(st.text("0123456789", min_size=1, max_size=3))
    tail = draw(st.text("0123456789BCDEF", min_size=0, max_size=3))
    digits = head + draw(st.sampled_from("BCDEF")) + tail
    return Form(digits + "h", (digits,))


RATIO_WORDS = ("ratio", "Ratio", "scale", "mix", "dilution", "gear")


@st.composite
def ratios(draw) -> Form:
    """A ratio after a word that says one follows, directly or a bracket, a colon or a verb
    away: `ratio 1:50`, `Ratio (1:50)`, `ratio:1:50`, `mix ratio is 1:50`, `scale 1:25:100`.
    Parts: (the word, what joins it to the ratio, the terms)."""
    word = draw(st.sampled_from(RATIO_WORDS))
    joint, close = draw(
        st.sampled_from([(" ", ""), (" (", ")"), (":", ""), (" is ", ""), (" = ", "")])
    )
    terms = tuple(draw(st.lists(st.integers(1, 500), min_size=2, max_size=3)))
    return Form(word + joint + ":".join(map(str, terms)) + close, (word, joint, terms, close))


@st.composite
def time_ranges(draw) -> Form:
    """Two times on the 24-hour clock with a dash, an en dash or a tilde between them:
    `08:00-16:00`, `22:00 ~ 06:00`. Parts: (the first time's parts, the second's). Not a
    hyphen written onto seconds before a time of hours and minutes up to 14:59
    (`14:05:00-05:00`): that is an offset from UTC, as ISO 8601 writes one (en-9)."""
    first, second = (draw(clock_times(fractions=False, utc=False)) for _ in range(2))
    dash = draw(st.sampled_from(["-", "\u2013", "~", " - ", " \u2013 "]))
    offset = second.parts[3] is None and int(second.parts[1]) <= 14
    assume(not (dash == "-" and first.parts[3] is not None and offset))
    return Form(first.written + dash + second.written, (first.parts, second.parts))


@st.composite
def compact_timestamps(draw) -> Form:
    """An ISO 8601 timestamp without separators: `20261130T074500Z`, `20261130T0745`. Parts:
    (date parts, time parts as clock_times gives them)."""
    year, month = draw(st.integers(1990, 2099)), draw(st.integers(1, 12))
    day = draw(st.integers(1, 28))
    h, mi = draw(st.integers(0, 23)), draw(st.integers(0, 59))
    seconds = f"{draw(st.integers(0, 59)):02d}" if draw(st.booleans()) else None
    utc = draw(st.booleans())
    written = f"{year}{month:02d}{day:02d}T{h:02d}{mi:02d}{seconds or ''}" + "Z" * utc
    return Form(written, ((year, month, day), ("24", f"{h:02d}", mi, seconds, None, utc)))


@st.composite
def local_phones(draw) -> Form:
    """A local telephone number alone, three digits and four (`555-1234`, `555-1235`), not
    a round range (a multiple of five, then a multiple of a hundred above it: `100-1000`,
    `125-1500`). Parts: (the two groups)."""
    head = draw(st.text("0123456789", min_size=3, max_size=3))
    tail = draw(st.text("0123456789", min_size=4, max_size=4))
    assume(int(head) % 5 or int(tail) % 100 or int(head) >= int(tail))
    return Form(f"{head}-{tail}", (head, tail))


COUNTED = ("staff", "people", "operators", "electricians", "crew")


@st.composite
def counts_after_call(draw) -> Form:
    """A count after "call" (`call 100 staff`): people are counted, not dialled. Parts: (the
    count, the noun)."""
    n = draw(st.integers(100, 9999))
    assume(str(n) not in ("911", "999", "112", "110", "119", "120"))
    noun = draw(st.sampled_from(COUNTED))
    return Form(f"call {n} {noun}", (n, noun))


# --- Mandarin: slash pairs, a month and a day, ratios -------------------------------------------

ZH_MEASURE_WORDS = ("台", "套", "组", "路", "条")


@st.composite
def slash_pairs_zh(draw) -> Form:
    """What Mandarin alerts write: `2/3台泵运行`, `3/4开度`, `12/3`, `½寸`, `1 1/2寸`, `3/4"`.
    Parts: (the whole number or None, numerator, denominator, written as a character, the
    measure word or the inch mark after it, or "")."""
    vulgar = draw(st.integers(0, 3)) == 0
    if vulgar:
        char = draw(st.sampled_from(sorted(VULGAR_FRACTIONS)))
        (n, d), pair = VULGAR_FRACTIONS[char], char
    else:
        d = draw(st.one_of(st.integers(0, 12), st.integers(0, 9999)))
        n = draw(st.one_of(st.integers(0, d + 1), st.integers(0, 9999)))
        # A month over a year of today's alerts is a date's class (11/2026), not this one.
        d = d + 200 if 1 <= n <= 12 and 1970 <= d <= 2099 else d
        pair = f"{n}/{d}"
    whole = draw(st.integers(1, 12)) if draw(st.integers(0, 3)) == 0 else None
    measure = draw(st.sampled_from(["", "", '"', *ZH_MEASURE_WORDS]))
    joint = draw(st.sampled_from(["", " "])) if vulgar else " "
    written = (f"{whole}{joint}" if whole else "") + pair + measure
    return Form(written, (whole, n, d, vulgar, measure))


ZH_DATE_CUES = ("日期", "日期\uff1a", "于", "截至", "周五", "星期一")


@st.composite
def month_days_zh(draw) -> Form:
    """A month and a day, two digits each, after a word that says a date follows (`日期10/20`)
    or before a time (`10/20 14:00`); month first, or day first where the day cannot be a
    month (`31/12`). Parts: (month, day, the cue or "", the time's parts or None)."""
    month = draw(st.integers(1, 12))
    day = draw(st.integers(1, (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]))
    first, second = (day, month) if day > 12 and draw(st.booleans()) else (month, day)
    cue = draw(st.sampled_from(["", *ZH_DATE_CUES]))
    time = draw(clock_times(fractions=False, utc=False)) if not cue or draw(st.booleans()) else None
    written = f"{cue}{first:02}/{second:02}" + (f" {time.written}" if time else "")
    return Form(written, (month, day, cue, time.parts if time else None))


ZH_RATIO_WORDS = ("比例", "配比", "变比", "传动比")


@st.composite
def ratios_zh(draw) -> Form:
    """A ratio after a word that says one follows: `比例1:50`, `变比3:1`. Parts: (the word, the
    two numbers)."""
    word = draw(st.sampled_from(ZH_RATIO_WORDS))
    a, b = draw(st.integers(1, 500)), draw(st.integers(1, 500))
    return Form(f"{word}{a}:{b}", (word, a, b))


@st.composite
def order_numbers(draw) -> Form:
    """A Siemens order number or a part number written like one: `6ES7 214-1AG40-0XB0`,
    `3RT2026-1BB40`. Parts: (the groups, the joint before each group after the first)."""
    capitals, alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    first = draw(st.sampled_from("123456789")) + draw(st.text(capitals, min_size=2, max_size=3))
    first += draw(st.text("0123456789", min_size=1, max_size=4))
    groups, joints = [first], []
    if draw(st.booleans()):
        groups.append(draw(st.text("0123456789", min_size=3, max_size=3)))
        joints.append(" ")
    for _ in range(draw(st.integers(1, 3))):
        groups.append(draw(st.text(alnum, min_size=2, max_size=5)))
        joints.append("-")
    written = groups[0] + "".join(j + g for j, g in zip(joints, groups[1:], strict=True))
    return Form(written, (tuple(groups), tuple(joints)))


@st.composite
def timestamp_like(draw) -> str:
    """Text shaped like a dated UTC timestamp, any field possibly out of range: a leap second
    (`2024-05-01T23:59:60Z`), the last or first year a date holds (`99991231T235959Z`,
    `0001-01-01T00:00:00Z`), no such day or hour; compact or with separators, or offsets."""
    year = draw(
        st.sampled_from(["0000", "0001", "1970", "2024", "9999"])
        | st.from_regex(r"\d{4}", fullmatch=True)
    )
    month, day, hours, minutes, seconds = (
        draw(st.integers(0, 99).map(lambda n: f"{n:02d}")) for _ in range(5)
    )
    compact = draw(st.booleans())
    if compact:
        stamp = f"{year}{month}{day}T{hours}{minutes}{seconds}"
    else:
        joint = draw(st.sampled_from(["T", " "]))
        stamp = f"{year}-{month}-{day}{joint}{hours}:{minutes}:{seconds}"
    zone = draw(st.sampled_from(["Z", "", "+08:00", "-05:30", " UTC", "+00:00"]))
    before = draw(st.sampled_from(["", "Event ", "at "]))
    return before + stamp + zone + draw(st.sampled_from(["", ".", " on line 3"]))


def all_zones() -> st.SearchStrategy[str]:
    """Every time zone this machine's zone database knows."""
    from zoneinfo import available_timezones

    return st.sampled_from(sorted(available_timezones()))


# --- superscript exponents and dashes that are minus signs ---------------------------------------

_SUPERSCRIPTS = dict(
    zip(
        "+-0123456789",
        "\u207a\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079",
        strict=True,
    )
)


@st.composite
def superscript_powers(draw) -> Form:
    """A power written in superscript digits: of ten after a times sign or alone
    (`1\u00d710⁻⁶ mbar`, `10⁻³`), or of another number alone (`5²`, `2¹⁰`). Parts: (the number or
    None, the base, the exponent's sign, the exponent, the unit's term or None)."""
    sign = draw(st.sampled_from(["", "", "-", "+"]))
    power = str(draw(st.integers(1, 24)))
    raised = "".join(_SUPERSCRIPTS[c] for c in sign + power)
    if draw(st.booleans()):
        base = draw(st.sampled_from(["2", "3", "5", "12", "1.5"]))
        return Form(base + raised, (None, base, sign, power, None))
    mantissa = draw(st.sampled_from([None, "1", "3.2", "6.02"]))
    if mantissa is None:
        return Form("10" + raised, (None, "10", sign, power, None))
    unit = draw(st.sampled_from([None, ("m", "bar", 1), ("k", "Pa", 1)]))
    written = mantissa + draw(st.sampled_from(["\u00d7", "*"])) + "10" + raised
    if unit:
        written += draw(st.sampled_from(["", " "])) + unit[0] + unit[1]
    return Form(written, (mantissa, "10", sign, power, unit))


@st.composite
def dash_minus(draw) -> Form:
    """A negative number written with a dash other than the hyphen-minus (en dash, minus
    sign, hyphen characters): `\u20135 °C`, `\u22120.5 bar`. Parts: (the number,
    the unit's term)."""
    dash = draw(st.sampled_from(["\u2013", "\u2212", "\u2010", "\u2011", "\u2012", "\ufe63"]))
    amount = draw(st.sampled_from(["5", "0.5", "12", "40", "1.25"]))
    unit = draw(st.sampled_from([("m", "bar", 1), ("k", "Pa", 1), ("", "bar", 1)]))
    return Form(
        dash + amount + draw(st.sampled_from(["", " "])) + unit[0] + unit[1], (amount, unit)
    )


@st.composite
def impossible_times(draw) -> Form:
    """Two digits after a colon that cannot be a clock time: `13:70`, `25:00`. Parts: (the
    hours, the minutes as written)."""
    hours = draw(st.integers(0, 99))
    low = 60 if hours <= 24 else 0
    minutes = f"{draw(st.integers(low, 99)):02d}"
    return Form(f"{hours}:{minutes}", (hours, minutes))


# --- characters no voice says: control and format characters, escape sequences -----------------

_UNSAID = (
    "\x07",
    "\x00",
    "\x1b[31m",
    "\x1b[0m",
    "\x1b[1;32m",
    "\u200b",
    "\ufeff",
    "\u200d",
    "\x7f",
    "\ud800",  # a lone surrogate: what JSON's "\\ud800" decodes to (en-8)
    "\udfff",
)
_ROMAN_NUMERALS = {chr(0x2160 + i): i + 1 for i in range(12)} | {
    chr(0x2170 + i): i + 1 for i in range(12)
}


@st.composite
def unsaid_characters(draw) -> Form:
    """An alert with control characters, terminal colour codes or zero-width characters
    around its words and number: `\\x07Pump 3 bar\\x1b[31m`. Parts: (the word, the amount)."""
    word = draw(st.sampled_from(["Pump", "Alarm", "Tank"]))
    amount = draw(st.integers(2, 999))
    noise = [draw(st.sampled_from(["", *_UNSAID])) for _ in range(4)]
    written = f"{noise[0]}{word}{noise[1]} {amount}{noise[2]} bar{noise[3]}"
    return Form(written, (word, amount))


@st.composite
def roman_numerals(draw) -> Form:
    """A Roman numeral character as a label: `Pump Ⅲ`, `Line ⅻ`. Parts: (the word, the value)."""
    word = draw(st.sampled_from(["Pump", "Line", "Unit"]))
    numeral = draw(st.sampled_from(sorted(_ROMAN_NUMERALS)))
    return Form(f"{word} {numeral}", (word, _ROMAN_NUMERALS[numeral]))


@st.composite
def signed_money(draw) -> Form:
    """Money with a minus before or after the sign (`-$50`, `$-50`), a magnitude (`$1.5M`,
    `$2.3k`, `€4 million`) or a decimal comma after the euro sign (`€5,50`). Parts: (whether
    minus, the sign, the amount, the magnitude as the reference names it, the hundredths)."""
    mark = draw(st.sampled_from(["$", "€", "£"]))
    minus = draw(st.sampled_from(["", "-", "after"]))
    written_sign = ("-" + mark) if minus == "-" else (mark + "-") if minus else mark
    kind = draw(st.sampled_from(["magnitude", "comma", "plain"]))
    if kind == "magnitude":
        amount = draw(st.sampled_from(["1", "1.5", "2.3", "12", "250"]))
        magnitude = draw(st.sampled_from(["k", "M", "B", " million"]))
        return Form(written_sign + amount + magnitude, (bool(minus), mark, amount, magnitude, None))
    whole = draw(st.integers(0, 999))
    cents = f"{draw(st.integers(0, 99)):02d}"
    comma = "," if kind == "comma" and mark == "€" else "."
    return Form(f"{written_sign}{whole}{comma}{cents}", (bool(minus), mark, str(whole), "", cents))


# Units of other trades and spellings: (as written, terms above, terms below).
TRADE_UNITS = (
    ("Nm³/hr", [("", "Nm3", 1)], [("", "hr", 1)]),
    ("Sm³/h", [("", "Sm3", 1)], [("", "h", 1)]),
    ("t/d", [("", "t", 1)], [("", "d", 1)]),
    *((u, [("", u, 1)], []) for u in ("psig", "psia", "gpm", "scfm", "inHg", "inH2O", "mph")),
    ("pF", [("p", "F", 1)], []),
    ("µF", [("µ", "F", 1)], []),
    ("TB", [("T", "B", 1)], []),
    ("GB", [("G", "B", 1)], []),
    ("dBm", [("", "dBm", 1)], []),
)


@st.composite
def trade_units(draw) -> Form:
    """A number and a unit of another trade or spelling: `5 Nm³/hr`, `12 psig`, `47 pF`,
    `300 K` (kelvin only apart from its number), `24V DC` (a lone V before the current's
    kind). Parts: (amount, terms above, terms below, what follows the unit)."""
    amount = draw(st.sampled_from(["1", "2", "0.5", "12", "250", "1.25"]))
    if draw(st.integers(0, 3)) == 0:
        return Form(f"{amount} K", (amount, [("", "K", 1)], [], ""))
    if draw(st.integers(0, 3)) == 0:
        space, current = draw(st.sampled_from(["", " "])), draw(st.sampled_from(["DC", "AC"]))
        return Form(f"{amount}{space}V {current}", (amount, [("", "V", 1)], [], " " + current))
    written, above, below = draw(st.sampled_from(TRADE_UNITS))
    space = draw(st.sampled_from(["", " "]))
    return Form(amount + space + written, (amount, above, below, ""))


@st.composite
def radix_codes(draw) -> Form:
    """A number with its radix first, as IEC 61131-3 writes it: `16#FF00`, `2#1010_0001`,
    `8#777`. Parts: (the radix, the digits without underscores)."""
    radix = draw(st.sampled_from(["16", "8", "2"]))
    alphabet = {"16": "0123456789ABCDEF", "8": "01234567", "2": "01"}[radix]
    digits = draw(st.text(alphabet, min_size=1, max_size=8))
    written = digits
    if len(digits) > 4 and draw(st.booleans()):
        written = digits[:4] + "_" + digits[4:]
    return Form(f"{radix}#{written}", (radix, digits))


TIME_WORDS = {"hour": "hour", "hours": "hour", "h": "hour", "hr": "hour", "min": "minute"}
TIME_WORDS |= {"minute": "minute", "shift": "shift", "day": "day"}


@st.composite
def time_fractions(draw) -> Form:
    """A fraction of a time unit: `1/2 hour`, `3/4 h`, `1/3 shift`, `1 1/2 h`. Parts: (the
    whole number or None, numerator, denominator, the unit's name)."""
    d = draw(st.sampled_from([2, 3, 4, 8]))
    n = draw(st.integers(1, d - 1))
    written_unit = draw(st.sampled_from(sorted(TIME_WORDS)))
    whole = draw(st.sampled_from([None, None, 1, 2]))
    written = (f"{whole} " if whole else "") + f"{n}/{d}"
    written += draw(st.sampled_from(["", " "])) if len(written_unit) <= 2 else " "
    return Form(written + written_unit, (whole, n, d, TIME_WORDS[written_unit]))


@st.composite
def inch_marks(draw) -> Form:
    """A size with an inch mark (`Pipe 2"`, `2.5" valve`) or feet and inches (`5'10"`).
    Parts: (feet or None, inches as written)."""
    inches = draw(st.sampled_from(["1", "2", "4", "10", "2.5"]))
    if draw(st.booleans()):
        feet = draw(st.sampled_from(["1", "5", "6"]))
        return Form(f"{feet}'{inches}\"", (feet, inches))
    return Form(f'{inches}"', (None, inches))


@st.composite
def offset_timestamps(draw) -> Form:
    """A dated timestamp written with a numeric offset from UTC (`2024-05-01T08:30:00+08:00`,
    `...-0500`) or the word (`2024-05-01 08:30 UTC`). Parts: as `utc_timestamps`' (the moment
    in UTC, whether seconds are written, fraction)."""
    from datetime import timedelta

    utc = draw(utc_timestamps())
    moment, seconds, fraction = utc.parts
    hours, minutes = draw(st.sampled_from([(8, 0), (-5, 0), (5, 30), (0, 0), (-3, 30), (14, 0)]))
    offset = timedelta(hours=hours, minutes=minutes if hours >= 0 else -minutes)
    there = moment + offset
    joint = draw(st.sampled_from(["T", " "]))
    sign = "-" if offset < timedelta(0) else "+"
    colon = draw(st.sampled_from([":", ""]))
    if joint == " " and not seconds and sign == "-" and colon:
        joint = "T"  # after a space, `08:30-05:30` is a range of times (en-7)
    written = f"{there:%Y-%m-%d}{joint}{there:%H:%M}" + (
        f":{there:%S}{fraction}" if seconds else ""
    )
    zone = f"{sign}{abs(hours):02d}{colon}{minutes:02d}"
    if not (hours or minutes) and draw(st.booleans()):
        zone = draw(st.sampled_from([" UTC", "UTC"]))
    return Form(written + zone, (moment, seconds, fraction))


# --- addresses with host names, e-mail and IPv6 addresses ---------------------------------------

_LABELS = ("scada", "plant", "local", "broker", "gw", "example", "com", "net", "ops", "help")


@st.composite
def host_addresses(draw) -> Form:
    """An address dictated piece by piece: a URL with a host name or an IPv6 address
    (`mqtt://broker:1883`, `https://scada.plant.local/alarms?id=42`, `http://[fe80::1]:8080/`),
    a `www.` host, an e-mail address (`ops@plant.com`), an IPv6 address alone (`fe80::1`).
    Parts: (the kind, the scheme or None, the host's pieces, the port or None, the path)."""
    kind = draw(st.sampled_from(["url", "www", "mail", "ipv6", "url6"]))
    labels = draw(st.lists(st.sampled_from(_LABELS), min_size=2, max_size=3))
    ipv6 = draw(st.sampled_from(["fe80::1", "2001:db8::8a2e:370:7334", "::1", "fe80::a00:27ff"]))
    path = draw(st.sampled_from(["", "/", "/status", "/alarms?id=42", "/help/index"]))
    if kind == "mail":
        user = draw(st.sampled_from(["ops", "j.smith", "alarm-desk"]))
        return Form(
            f"{user}@{'.'.join(labels)}", (kind, None, user + "@" + ".".join(labels), None, "")
        )
    if kind == "www":
        return Form(
            "www." + ".".join(labels) + path, (kind, None, "www." + ".".join(labels), None, path)
        )
    if kind == "ipv6":
        return Form(ipv6, (kind, None, ipv6, None, ""))
    scheme = draw(st.sampled_from(["http", "https", "mqtt", "opc.tcp", "ftp"]))
    port = draw(st.sampled_from([None, "1883", "8080", "443"]))
    host = f"[{ipv6}]" if kind == "url6" else ".".join(labels[: draw(st.integers(1, len(labels)))])
    written = f"{scheme}://{host}" + (f":{port}" if port else "") + path
    return Form(written, (kind, scheme, host, port, path))


MONTH_SPELLINGS = ("Jan", "Feb", "Mar.", "April", "May", "Jun", "July", "Aug", "Sept", "Oct")
MONTH_SPELLINGS += ("Nov", "December")


@st.composite
def month_dates(draw) -> Form:
    """A date with its month written as a word (`Nov 30, 2026`, `30 Nov 2026`, `November
    2026`) or a quarter and its year (`Q3 2026`). Parts: (the kind, month or quarter, day or
    None, year)."""
    y = draw(st.integers(1990, 2099))
    if draw(st.integers(0, 3)) == 0:
        q = draw(st.integers(1, 4))
        return Form(f"Q{q} {y}", ("quarter", q, None, y))
    index = draw(st.integers(0, 11))
    month = MONTH_SPELLINGS[index]
    day = draw(st.sampled_from([None, *range(1, 29)]))
    if day is None:
        return Form(f"{month} {y}", ("month", index + 1, None, y))
    if draw(st.booleans()):
        return Form(f"{day} {month} {y}", ("month", index + 1, day, y))
    return Form(
        f"{month} {day}{draw(st.sampled_from([',', '']))} {y}", ("month", index + 1, day, y)
    )


# --- Mandarin, attacked again: signs and powers, decimals, dates, phones, money, codes, tags --
# (zh-front-6)

ZH_DASHES = ("-", "\u2212", "\u2013", "\u2010")  # hyphen, minus, en dash, Unicode hyphen


def _zh_decimal(draw, high: int = 999) -> str:
    whole = str(draw(st.integers(0, high)))
    return whole + (f".{draw(st.integers(0, 99))}" if draw(st.booleans()) else "")


@st.composite
def signed_temperatures_zh(draw) -> Form:
    """A temperature, perhaps below zero with any dash before it (ZH_DASHES): `-5℃`, `-12.5℃`.
    Parts: (negative, the amount as written)."""
    negative = draw(st.booleans())
    amount = _zh_decimal(draw, 200)
    sign = draw(st.sampled_from(ZH_DASHES)) if negative else ""
    return Form(sign + amount + draw(st.sampled_from(["℃", "°C"])), (negative, amount))


SUPERSCRIPTS = dict(zip("0123456789+-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", strict=True))
ZH_POWER_UNITS = (("", ""), ("mbar", "毫巴"), ("Pa", "帕"), ("kPa", "千帕"))


@st.composite
def superscript_powers_zh(draw) -> Form:
    """A power written with superscripts: `1*10⁻⁶mbar`, `10⁻⁶`, `5²`, `2.5*10³Pa`. Parts:
    (the base, the exponent's sign, the exponent, the mantissa or None, the unit's words)."""
    exponent = draw(st.integers(1, 15))
    sign = draw(st.sampled_from(["", "-", "+"]))
    raised = "".join(SUPERSCRIPTS[c] for c in sign + str(exponent))
    if draw(st.booleans()):
        times = _zh_decimal(draw, 9)
        unit, words = draw(st.sampled_from(ZH_POWER_UNITS))
        mark = draw(st.sampled_from(["\u00d7", "*"]))  # 0x10 would be a hexadecimal code
        written = f"{times}{mark}10{raised}{unit}"
        return Form(written, ("10", sign, exponent, times, words))
    base = str(draw(st.integers(2, 99)))
    return Form(base + raised, (base, sign, exponent, None, ""))


ZH_POINT_UNITS = (("MPa", "兆帕"), ("bar", "巴"), ("A", "安"), ("V", "伏"), ("", ""))


@st.composite
def leading_points_zh(draw) -> Form:
    """A decimal written without its zero: `.5MPa`, `.75`. Parts: (the digits after the point,
    the unit's words)."""
    fraction = str(draw(st.integers(0, 999)))
    unit, words = draw(st.sampled_from(ZH_POINT_UNITS))
    return Form(f".{fraction}{unit}", (fraction, words))


ZH_RATIO_BETWEEN = ("", "\uff1a", ":", "为", "是", "\uff08", "(")


@st.composite
def decimal_ratios_zh(draw) -> Form:
    """A ratio with decimal terms, or the ratio word not directly before it: `配比1:2.5`,
    `比例(1:50)`, `配比为1:0.5`, `比分3:1`. Parts: (word, between, the two terms as
    written)."""
    word = draw(st.sampled_from((*ZH_RATIO_WORDS, "混合比", "比分")))
    between = draw(st.sampled_from(ZH_RATIO_BETWEEN))
    a, b = _zh_decimal(draw, 500), _zh_decimal(draw, 500)
    closing = ")" if between in ("\uff08", "(") else ""
    return Form(f"{word}{between}{a}:{b}{closing}", (word, between, a, b))


@st.composite
def impossible_times_zh(draw) -> Form:
    """Hours and minutes that are no time: `13:70`, `25:00`. Parts: (hours, minutes as
    written)."""
    if draw(st.booleans()):
        hours, minutes = draw(st.integers(25, 99)), draw(st.integers(0, 59))
    else:
        hours, minutes = draw(st.integers(0, 23)), draw(st.integers(60, 99))
    return Form(f"{hours}:{minutes:02d}", (hours, f"{minutes:02d}"))


ZH_DAY_CUES_BEFORE = ("", "在", "计划", "预计", "日期", "于", "定于")
ZH_DAY_CUES_AFTER = ("", "检修", "前完成", "之前", "日检修", "日", "保养", "到期")


@st.composite
def cued_month_days_zh(draw) -> Form:
    """Two digits each side with a word before or after that says a day is meant:
    `10/20检修`, `请在10/20前完成`, `10/20日`; a pair that is no day of the year (`31/04`,
    `02/30`) too. Parts: (first, second, the word before, the word after)."""
    first, second = draw(st.integers(1, 31)), draw(st.integers(1, 31))
    before = draw(st.sampled_from(ZH_DAY_CUES_BEFORE))
    after = draw(st.sampled_from(ZH_DAY_CUES_AFTER))
    assume(before or after)
    return Form(f"{before}{first:02}/{second:02}{after}", (first, second, before, after))


ZH_PHONE_WORDS = ("电话", "电话\uff1a", "座机", "热线", "联系电话", "手机")


@st.composite
def grouped_phones_zh(draw) -> Form:
    """A telephone number after a word that says one follows, in the groups written, with
    spaces or hyphens, perhaps a country code and an extension: `电话555-1234`, `座机021 6012
    1234`, `电话+86 138 1234 5678`. Parts: (word, plus, the groups, the extension)."""
    word = draw(st.sampled_from(ZH_PHONE_WORDS))
    groups = draw(st.lists(st.text("0123456789", min_size=3, max_size=4), min_size=2, max_size=3))
    plus = draw(st.booleans())
    if plus:
        groups.insert(0, draw(st.text("123456789", min_size=1, max_size=2)))
    joint = draw(st.sampled_from(["-", " "]))
    extension = draw(st.text("0123456789", min_size=2, max_size=4)) if draw(st.booleans()) else ""
    written = word + "+" * plus + joint.join(groups) + (f"转{extension}" if extension else "")
    return Form(written, (word, plus, tuple(groups), extension))


@st.composite
def local_phones_zh(draw) -> Form:
    """A local number alone, three digits and four (`555-1234`): digit by digit, never 负.
    Parts: ("", False, the two groups, "")."""
    form = draw(local_phones())
    return Form(form.written, ("", False, form.parts, ""))


ZH_MONEY_MARKS = ("¥", "￥", "$", "€")


@st.composite
def signed_money_zh(draw) -> Form:
    """Money with a sign before or after its mark, a magnitude after it, or 元 written after
    a yuan sign: `￥1.5万`, `成本￥-50`, `-$50`, `$1.5M`, `¥300元`. Parts: (negative, mark,
    whole units, cents or None, magnitude)."""
    mark = draw(st.sampled_from(ZH_MONEY_MARKS))
    whole = draw(st.integers(0, 9999))
    cents = f"{draw(st.integers(0, 99)):02d}" if draw(st.booleans()) else None
    magnitude = draw(st.sampled_from(["", "", "万", "亿", "k", "M"]))
    negative = draw(st.booleans())
    sign = draw(st.sampled_from(["-", "\u2212"])) if negative else ""
    amount = str(whole) + (f".{cents}" if cents else "")
    written = f"{sign}{mark}{amount}" if draw(st.booleans()) else f"{mark}{sign}{amount}"
    written += magnitude + ("元" if mark in "¥￥" and draw(st.booleans()) else "")
    return Form(written, (negative, "¥" if mark == "￥" else mark, whole, cents, magnitude))


@st.composite
def serial_numbers_zh(draw) -> Form:
    """Three or four groups of digits joined by hyphens that are no date or telephone number:
    `8842-1190-07`. Parts: (the groups)."""
    groups = draw(st.lists(st.text("0123456789", min_size=2, max_size=5), min_size=3, max_size=4))
    written = "-".join(groups)
    # A date's shape anywhere in it is a date joined to the rest (a field inside a token).
    assume(not re.search(r"(?<!\d)\d{4}-\d{1,2}-\d{1,2}(?!\d)", written))
    assume(not re.fullmatch(r"(?:0\d{2,3}|[48]00)-\d{3,4}-\d{4}", written))
    assume(not re.fullmatch(r"1[3-9]\d-\d{4}-\d{4}", written))  # a mobile number
    assume(not re.fullmatch(r"(?:1[3-9]|[2-9]\d)-\d\d-\d\d", written))  # a yy-mm-dd date
    # China's international prefix before a mobile or an area code and number: dialled.
    phone = r"0086-(?:1[3-9]\d-\d{4}|(?:10|2\d|[3-9]\d\d)-\d{3,4})-\d{4}"
    assume(not re.fullmatch(phone, written))
    return Form(written, (tuple(groups),))


@st.composite
def numbered_pairs_zh(draw) -> Form:
    """Two numbered units before 号: a range `1-3号`, a pair `2/3号`, `第3/5号`. Parts: (the
    joint, whether 第 is written, the two numbers)."""
    kind = draw(st.sampled_from(["-", "/"]))
    ordinal = kind == "/" and draw(st.booleans())
    a, b = draw(st.integers(1, 99)), draw(st.integers(1, 99))
    written = ("第" if ordinal else "") + f"{a}{kind}{b}号"
    return Form(written, (kind, ordinal, a, b))


@st.composite
def utc_offsets_zh(draw) -> Form:
    """A time with its offset east of UTC: `07:45:00+08:00`, `08:30+0530` (a minus is one only
    after the T of an ISO timestamp, the example tables' case: after a time alone a dash makes
    a range). Parts: (the time's parts, the sign, hours, minutes)."""
    sign = "+"
    time = draw(clock_times(fractions=False, utc=False))
    hours, minutes = draw(st.integers(0, 14)), draw(st.sampled_from([0, 0, 30, 45]))
    colon = draw(st.sampled_from([":", ""]))
    return Form(
        f"{time.written}{sign}{hours:02d}{colon}{minutes:02d}", (time.parts, sign, hours, minutes)
    )


@st.composite
def shares_zh(draw) -> Form:
    """Parts per million or billion: `1200ppm`, `0.5ppb`. Parts: (amount, symbol)."""
    amount = _zh_decimal(draw, 99999)
    symbol = draw(st.sampled_from(["ppm", "ppb"]))
    return Form(amount + symbol, (amount, symbol))


@st.composite
def iec_hex_zh(draw) -> Form:
    """An IEC 61131-3 hexadecimal literal: `16#FF00`. Parts: (the hex digits)."""
    digits = draw(st.text("0123456789ABCDEF", min_size=2, max_size=8))
    return Form("16#" + digits, (digits,))


@st.composite
def roman_numbered_zh(draw) -> Form:
    """A Roman numeral character before 号 or 类: `Ⅲ号泵`, `Ⅱ类`. Parts: (the number, the word)."""
    n = draw(st.integers(1, 12))
    word = draw(st.sampled_from(["号泵", "类", "期"]))
    return Form(chr(0x215F + n) + word, (n, word))


# Mandarin, zh-front-7

ZH_OFFSET_MINUTES = (0, 0, 30, 45)


@st.composite
def utc_word_offsets_zh(draw) -> Form:
    """An offset touching UTC or GMT, perhaps after a time: `08:30 UTC+8`, `14:00 UTC-5`,
    `UTC+05:30`, `GMT-0330` (or a minus sign), `08:30 UTC+0`. Parts: (the time's parts or
    None, negative, hours, minutes)."""
    time = draw(clock_times(fractions=False, utc=False)) if draw(st.booleans()) else None
    negative = draw(st.booleans())
    sign = draw(st.sampled_from(["-", "\u2212"])) if negative else "+"
    hours, minutes = draw(st.integers(0, 14)), draw(st.sampled_from(ZH_OFFSET_MINUTES))
    padded = f"{hours:02d}" if draw(st.booleans()) else str(hours)
    if minutes or draw(st.booleans()):
        padded = f"{hours:02d}" + draw(st.sampled_from([":", ""])) + f"{minutes:02d}"
    head = time.written + draw(st.sampled_from(["", " "])) if time else ""
    written = head + draw(st.sampled_from(["UTC", "GMT"])) + sign + padded
    return Form(written, (time.parts if time else None, negative, hours, minutes))


@st.composite
def timestamp_ranges_zh(draw) -> Form:
    """Two times joined by a dash, perhaps after a date with a T or a space:
    `2026-11-30T08:00-09:30`, `2026-11-30 08:00-09:30`, `08:00-09:30` (the end is no offset
    from UTC). After a T the range ends later and the first time has no seconds (else the
    dash and two digits each side are an ISO offset: `T07:45-05:00`, `T07:45:00-09:30`).
    Parts: (the date's parts or None, the two times' parts)."""
    date = draw(dates(day_first=False)) if draw(st.booleans()) else None
    first = draw(clock_times(fractions=False, utc=False))
    second = draw(clock_times(fractions=False, utc=False))
    joint = draw(st.sampled_from(["T", " "])) if date else ""
    if joint == "T":
        later = (int(second.parts[1]), second.parts[2]) > (int(first.parts[1]), first.parts[2])
        assume(first.parts[3] is None and (later or second.parts[3] is not None))
    head = date.written + joint if date else ""
    return Form(f"{head}{first.written}-{second.written}", (date, first.parts, second.parts))


@st.composite
def european_numbers_zh(draw) -> Form:
    """A number grouped the European way where nothing else is meant: with the euro sign
    or EUR (`€1.234,56`, `1.234,56 €`, `€5,50`), two dot groups or more before a decimal
    comma (`1.234.567,8kg`), or groups parted by a no-break, narrow no-break or thin space
    (`1 234 567`, `1 234,5`). Parts: (the whole number, the decimals or "", the kind, the
    unit's words)."""
    kind = draw(st.sampled_from(["euro", "dots", "space"]))
    whole = draw(st.integers(1000 if kind != "euro" else 0, 10**9))
    if kind == "dots":
        whole = max(whole, 1_000_000)
    decimals = str(draw(st.integers(0, 999))) if kind != "space" or draw(st.booleans()) else ""
    if kind == "euro" and whole < 1000:
        decimals = f"{draw(st.integers(0, 99)):02d}"  # €5,50: two decimals after a comma
    space = draw(st.sampled_from(["\u00a0", "\u202f", "\u2009"]))
    grouped = f"{whole:,}".replace(",", space if kind == "space" else ".")
    written = grouped + (f",{decimals}" if decimals else "")
    unit, words = draw(st.sampled_from([("", ""), ("kg", "千克"), ("bar", "巴")]))
    if kind == "euro":
        unit, words = "", ""
        written = draw(st.sampled_from(["€{}", "€ {}", "{} €", "{}€", "EUR {}"])).format(written)
    return Form(written + unit, (whole, decimals, kind, words))


ZH_RANGE_UNITS = (("°C", "摄氏度"), ("℃", "摄氏度"), ("bar", "巴"), ("MPa", "兆帕"), ("A", "安"))


@st.composite
def signed_unit_ranges_zh(draw) -> Form:
    """A range with its unit at both ends or at the end only, either end perhaps below zero:
    `-5°C-10°C`, `-5°C--10°C`, `-1.5--2.5bar`, `5A~10A`. Parts: (first negative, first amount,
    second negative, second amount, the unit's words, whether the unit is written twice)."""
    unit, words = draw(st.sampled_from(ZH_RANGE_UNITS))
    ends = [(draw(st.booleans()), _zh_decimal(draw, 200)) for _ in range(2)]
    twice = draw(st.booleans())
    dash = draw(st.sampled_from(["-", "~", "\u2013"]))
    written = ""
    for i, (negative, amount) in enumerate(ends):
        sign = draw(st.sampled_from(ZH_DASHES[:3])) if negative else ""
        written += sign + amount + (unit if twice or i else "") + (dash if not i else "")
    return Form(written, (*ends[0], *ends[1], words, twice))


@st.composite
def money_ranges_zh(draw) -> Form:
    """An amount of money to another, the mark before both or the first only, each perhaps
    with a magnitude: `$5-$10`, `￥100~￥200`, `€5-10`, `$1.5M-$2M`. Parts: (mark, first,
    its magnitude, second, its magnitude, the mark written twice)."""
    mark = draw(st.sampled_from(ZH_MONEY_MARKS))
    low, high = draw(st.integers(0, 9999)), draw(st.integers(0, 9999))
    sizes = [draw(st.sampled_from(["", "", "万", "亿", "k", "M", "B"])) for _ in range(2)]
    twice = draw(st.booleans())
    dash = draw(st.sampled_from(["-", "~", "\u2013"]))
    written = f"{mark}{low}{sizes[0]}{dash}{mark if twice else ''}{high}{sizes[1]}"
    return Form(written, ("¥" if mark == "￥" else mark, low, sizes[0], high, sizes[1], twice))


ZH_FIRM_DATE_CUES = ("日期", "日期\uff1a", "于", "截至", "截止", "周五", "星期一", "定于", "预计")


@st.composite
def short_month_days_zh(draw) -> Form:
    """A month and a day with one digit on either side after a firm cue: `日期2/3`, `于9/30`,
    `截至12/5`; a pair that is no day of the year (`日期2/30`) is said as written. Parts:
    (the cue, first, second)."""
    first, second = draw(st.integers(1, 31)), draw(st.integers(1, 31))
    assume(first < 10 or second < 10)
    cue = draw(st.sampled_from(ZH_FIRM_DATE_CUES))
    return Form(f"{cue}{first}/{second}", (cue, first, second))


ZH_COMPACT_CUES = (("在", ""), ("于", ""), ("日期", ""), ("", "检修"), ("", "到期"), ("计划", "前"))


@st.composite
def compact_dates_zh(draw) -> Form:
    """Eight digits after or before a word that says a day is meant: `在20261130检修`,
    `20261130到期`; digits that are no day of the calendar stay a number. Parts: (year,
    month, day, the word before, the word after)."""
    year = draw(st.integers(1970, 2099))
    month, day = draw(st.integers(0, 13)), draw(st.integers(0, 32))
    before, after = draw(st.sampled_from(ZH_COMPACT_CUES))
    return Form(f"{before}{year}{month:02d}{day:02d}{after}", (year, month, day, before, after))


@st.composite
def trunk_zero_phones_zh(draw) -> Form:
    """An international number with the trunk zero in brackets, or in five groups or more:
    `+44 (0)20 7946 0958`, `+49 30 1234 5678 90`. Parts: (the groups as said, the first
    being the country code)."""
    country = str(draw(st.integers(1, 999)))
    groups = draw(st.lists(st.text("0123456789", min_size=2, max_size=4), min_size=2, max_size=5))
    if draw(st.booleans()):
        written = f"+{country} (0)" + " ".join(groups)
        return Form(written, (country, "0", *groups))
    assume(len(groups) >= 4)
    return Form(f"+{country} " + " ".join(groups), (country, *groups))


ZH_NEGATIVE_UNITS = (
    ("m⁻¹", (), (("", "m", 1),)),
    ("s⁻¹", (), (("", "s", 1),)),
    ("kg·m⁻³", (("k", "g", 1),), (("", "m", 3),)),
    ("W·m⁻²", (("", "W", 1),), (("", "m", 2),)),
    ("J·kg⁻¹", (("", "J", 1),), (("k", "g", 1),)),
    ("N·m⁻²", (("", "N", 1),), (("", "m", 2),)),
)


@st.composite
def negative_unit_powers_zh(draw) -> Form:
    """A unit raised to a negative power, perhaps after a number: `m⁻¹`, `0.5m⁻¹`,
    `1000kg·m⁻³`, `10⁻⁶mbar`. Parts: (the amount or None, terms above, terms below) as for
    `units`, or for a power of ten (None, the exponent, the unit's words)."""
    if draw(st.integers(0, 3)) == 0:
        exponent = draw(st.integers(1, 15))
        unit, words = draw(st.sampled_from(ZH_POWER_UNITS[1:]))
        raised = "".join(SUPERSCRIPTS[c] for c in f"-{exponent}")
        return Form(f"10{raised}{unit}", (None, exponent, words))
    written, above, below = draw(st.sampled_from(ZH_NEGATIVE_UNITS))
    amount = draw(st.sampled_from(["", "0.5", "12", "1000", "2.25"]))
    return Form(amount + written, (amount or None, list(above), list(below)))


@st.composite
def spaced_minus_zh(draw) -> Form:
    """A minus parted from its value by a space after a colon or an equals sign:
    `温度: - 5°C`, `= - 5 °C`, `偏差 : - 3%` (the colon full-width too). Parts: (the word
    before, the amount, the unit's words or "%")."""
    word = draw(st.sampled_from(["温度:", "温度\uff1a", "=", "设定值 =", "偏差:"]))
    amount = _zh_decimal(draw, 200)
    unit, words = draw(
        st.sampled_from([("°C", "摄氏度"), ("℃", "摄氏度"), ("bar", "巴"), ("%", "%")])
    )
    spaces = draw(st.sampled_from([" ", "  "])), draw(st.sampled_from(["", " "]))
    written = f"{word}{spaces[0]}-{spaces[0]}{amount}{spaces[1]}{unit}"
    return Form(written, (word, amount, words))


ZH_DILUTION_WORDS = ("稀释", "混合", "兑水", "稀释比")


@st.composite
def dilution_ratios_zh(draw) -> Form:
    """A ratio after a word of mixing: `稀释1:10`, `兑水1:50` (was a clock time). Parts: (the
    word, the two numbers)."""
    word = draw(st.sampled_from(ZH_DILUTION_WORDS))
    a, b = draw(st.integers(1, 99)), draw(st.integers(1, 999))
    return Form(f"{word}{a}:{b}", (word, a, b))


_ROMAN_STEPS = (
    *((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L")),
    *((40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")),
)
# Where each letter is among the Roman numeral characters (from U+2160, lower case U+2170).
_ROMAN_CODES = {"I": 0, "V": 4, "X": 9, "L": 12, "C": 13, "D": 14, "M": 15}


@st.composite
def roman_runs_zh(draw) -> Form:
    """A Roman numeral written with Roman numeral characters, upper or lower case, in the
    standard way (small one and small five for four; ten, four, 号机 for 十四号机). Parts: (the
    number, the word after)."""
    n = left = draw(st.integers(1, 3999))
    letters = ""
    for value, roman in _ROMAN_STEPS:
        count, left = divmod(left, value)
        letters += roman * count
    first = 0x2170 if draw(st.booleans()) else 0x2160
    written = "".join(chr(first + _ROMAN_CODES[c]) for c in letters)
    word = draw(st.sampled_from(["号机", "类", "期", ""]))
    return Form(written + word, (n, word))


@st.composite
def money_magnitudes_zh(draw) -> Form:
    """Millions and billions of money: `$1.5B`, `￥2M`, `€0.25B`. Parts: (negative, mark,
    whole units, cents or None, magnitude), as for `signed_money_zh`."""
    mark = draw(st.sampled_from(ZH_MONEY_MARKS))
    whole = draw(st.integers(0, 9999))
    cents = f"{draw(st.integers(0, 99)):02d}" if draw(st.booleans()) else None
    magnitude = draw(st.sampled_from(["M", "B"]))
    amount = str(whole) + (f".{cents}" if cents else "")
    return Form(
        f"{mark}{amount}{magnitude}",
        (False, "¥" if mark == "￥" else mark, whole, cents, magnitude),
    )


@st.composite
def inch_sizes_zh(draw) -> Form:
    """A size with an inch mark: `管道2"`, `1.5"阀门`. Parts: (the word before, the size, the
    word after)."""
    before = draw(st.sampled_from(["管道", "DN", "口径", ""]))
    size = _zh_decimal(draw, 60)
    after = draw(st.sampled_from(["", "阀门", "管道"]))
    assume(before != "DN")  # DN50 is a tag's way
    return Form(f'{before}{size}"{after}', (before, size, after))


@st.composite
def kelvin_zh(draw) -> Form:
    """Kelvin after a temperature word: `温度300K`, `低温: 77 K`. Parts: (the word as said,
    the amount)."""
    word = draw(st.sampled_from(["温度", "温升", "低温", "高温"]))
    between = draw(st.sampled_from(["", ":", "为"]))
    amount = _zh_decimal(draw, 999)
    space = draw(st.sampled_from(["", " "]))
    return Form(f"{word}{between}{amount}{space}K", (word + between.replace(":", "\uff1a"), amount))


@st.composite
def year_last_dates_zh(draw) -> Form:
    """A date with slashes and its year last, month first or day first where the day is over
    twelve: `11/30/2026`, `2/3/2026`, `30/11/2026`; a day the month has not (`31/04/2026`).
    Parts: (first, second, year, written with two digits each)."""
    first, second = draw(st.integers(1, 31)), draw(st.integers(1, 31))
    year = draw(st.integers(1970, 2099))
    pad = draw(st.booleans())
    written = f"{first:02d}/{second:02d}" if pad else f"{first}/{second}"
    return Form(f"{written}/{year}", (first, second, year, pad))


@st.composite
def impossible_cjk_dates_zh(draw) -> Form:
    """A date written with 年, 月 and 日 that the calendar has not: `2026年13月40日`,
    `2026年02月30日`, `2025年2月29日`. Parts: (year, month, day)."""
    year = draw(st.integers(1970, 2099))
    month, day = draw(st.integers(0, 99)), draw(st.integers(0, 99))
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    assume(not (1 <= month <= 12 and 1 <= day <= days[month - 1]))
    pad = draw(st.booleans())
    written = f"{year}年{month:02d}月{day:02d}日" if pad else f"{year}年{month}月{day}日"
    return Form(written, (year, month, day))


# English, en-7


@st.composite
def zone_word_offsets(draw) -> Form:
    """`UTC` or `GMT` with an offset after it, after a time or alone: `08:30 UTC+8`, `14:00
    UTC-5`, `UTC+05:30`, `GMT +1`, `09:00 UTC`. Parts: (the time's parts or None, the word,
    the sign or None, hours, minutes or None)."""
    time = draw(clock_times(fractions=False, utc=False)) if draw(st.booleans()) else None
    word = draw(st.sampled_from(["UTC", "GMT"]))
    sign = draw(st.sampled_from(["+", "-", None]))
    hours, minutes = draw(st.integers(0, 14)), draw(st.sampled_from([None, 0, 30, 45]))
    written = (time.written + " " if time else "") + word
    if sign:
        padded = f"{hours:02d}" if minutes is not None or draw(st.booleans()) else str(hours)
        written += draw(st.sampled_from(["", " "])) + sign + padded
        written += "" if minutes is None else draw(st.sampled_from([":", ""])) + f"{minutes:02d}"
    return Form(written, (time.parts if time else None, word, sign, hours, minutes))


@st.composite
def dated_time_ranges(draw) -> Form:
    """A date, a space and two times with a dash between, the first without seconds:
    `2026-11-30 08:00-09:30` (a range, not an offset from UTC). Parts: (the date's parts,
    the first time's, the second's)."""
    date = draw(dates())
    first = draw(clock_times(fractions=False, utc=False).filter(lambda t: t.parts[3] is None))
    second = draw(clock_times(fractions=False, utc=False))
    dash = draw(st.sampled_from(["-", "\u2013", " - ", "~"]))
    written = f"{date.written} {first.written}{dash}{second.written}"
    return Form(written, (date.parts, first.parts, second.parts))


LARGE_MAGNITUDES = ("M", "B", "bn", "T", "tn", " million", " billion", " trillion")


@st.composite
def large_money(draw) -> Form:
    """A sum of a hundred million or more, grouped by commas or not, with cents or none
    (`$120,000,000`, `€250000000.50`), or a decimal with a magnitude (`$1.5T`, `$250M`,
    `£3 billion`). Parts: (mark, whole, cents or None, the amount with a magnitude or None,
    the magnitude)."""
    mark = draw(st.sampled_from(["$", "€", "£", "USD ", "EUR "]))
    if draw(st.booleans()):
        amount = str(draw(st.integers(1, 999)))
        amount += f".{draw(st.integers(1, 9))}" if draw(st.booleans()) else ""
        magnitude = draw(st.sampled_from(LARGE_MAGNITUDES))
        return Form(mark + amount + magnitude, (mark.strip(), 0, None, amount, magnitude))
    whole = draw(st.integers(10**8, 10**13))
    cents = f"{draw(st.integers(0, 99)):02d}" if draw(st.booleans()) else None
    written = f"{whole:,}" if draw(st.booleans()) else str(whole)
    written += f".{cents}" if cents else ""
    return Form(mark + written, (mark.strip(), whole, cents, None, ""))


GROUP_SPACES = ("\u00a0", "\u202f", "\u2009")
GROUPED_UNITS = (
    ("kg", "kilogram", "kilograms"),
    ("bar", "bar", "bar"),
    ("kW", "kilowatt", "kilowatts"),
)


@st.composite
def european_numbers(draw) -> Form:
    """A number of a thousand or more grouped by dots with a decimal comma (`1.234,5 kg`,
    `€1.234,56`) or by no-break or thin spaces, a decimal dot or comma after or none (`12 345
    kg`, `1 234,5`). Parts: (the currency mark or None, whole, decimals or None, the unit or
    None)."""
    whole = draw(st.integers(1000, 10**9 - 1))
    spaces = draw(st.booleans())
    joint = draw(st.sampled_from(GROUP_SPACES)) if spaces else "."
    written = f"{whole:,}".replace(",", joint)
    if draw(st.booleans()):
        cents = f"{draw(st.integers(0, 99)):02d}"
        return Form(f"€{written},{cents}", ("€", whole, cents, None))
    decimals = None if spaces and draw(st.booleans()) else str(draw(st.integers(0, 999)))
    if decimals:
        written += ("," if not spaces else draw(st.sampled_from(".,"))) + decimals
    unit = draw(st.sampled_from([None, *GROUPED_UNITS]))
    written += f" {unit[0]}" if unit else ""
    return Form(written, (None, whole, decimals, unit))


_SIGNED_ENDS = st.one_of(
    st.integers(-999, 999).map(str),
    st.tuples(st.integers(-99, 99), st.integers(0, 9)).map(lambda p: f"{p[0]}.{p[1]}"),
).filter(lambda v: v not in ("0", "-0") and not v.startswith("-0"))
RANGE_UNITS = (
    ("°C", "degree Celsius", "degrees Celsius"),
    ("bar", "bar", "bar"),
    ("kPa", "kilopascal", "kilopascals"),
    ("mm", "millimeter", "millimeters"),
)


@st.composite
def signed_ranges(draw) -> Form:
    """A range whose ends carry a sign, a unit or a currency: a unit on both ends
    (`-5°C-10°C`, `-5 °C--10 °C`), a minus on the second end (`-1.5--2.5 bar`), money on both
    ends (`$5-$10`, `€5.50-€10`, `$1.5M-$2M`). Parts: (kind, low, high, the unit or the
    currency mark, the magnitude)."""
    kind = draw(st.sampled_from(["unit", "minus", "money"]))
    dash = draw(st.sampled_from(["-", "\u2013", "~", " - "]))
    if kind == "money":
        mark, magnitude = draw(st.sampled_from("$€£")), draw(st.sampled_from(["", "", "M", "k"]))
        low, high = sorted(draw(st.lists(st.integers(0, 999), min_size=2, max_size=2, unique=True)))
        ends = [str(low), str(high)]
        if not magnitude and draw(st.booleans()):
            ends[0] += f".{draw(st.integers(0, 99)):02d}"
        written = f"{mark}{ends[0]}{magnitude}{dash}{mark}{ends[1]}{magnitude}"
        return Form(written, (kind, ends[0], ends[1], mark, magnitude))
    low = draw(_SIGNED_ENDS)
    high = draw(_SIGNED_ENDS.filter(lambda v: v.startswith("-"))) if kind == "minus" else None
    high = high or draw(_SIGNED_ENDS)
    space = draw(st.sampled_from(["", " "]))
    unit = draw(st.sampled_from(RANGE_UNITS))
    if kind == "minus":
        after = f" {unit[0]}" if draw(st.booleans()) else ""
        return Form(f"{low}{dash}{high}{after}", (kind, low, high, unit if after else None, ""))
    written = f"{low}{space}{unit[0]}{dash}{high}{space}{unit[0]}"
    return Form(written, (kind, low, high, unit, ""))


ONLY_DATE_CUES = ("on ", "due ", "date ", "Date: ", "since ", "until ", "Fri ", "ETA ")


@st.composite
def short_day_months(draw) -> Form:
    """A day and a month, one of them a single digit, after a word only a date follows: `on
    9/30`, `due 3/4`, `date 2/3`; day first, or month first where the day cannot be a month.
    Parts: as `day_months`' (month, day, the cue, None, None)."""
    month = draw(st.integers(1, 12))
    day = draw(st.integers(1, DAYS_IN_MONTH[month - 1]))
    assume(month < 10 or day < 10)
    first, second = (month, day) if day > 12 and draw(st.booleans()) else (day, month)
    cue = draw(st.sampled_from(ONLY_DATE_CUES))
    # After "on" a pair that can be a share or a fraction is none of a date (en-9).
    share = first < second and second in (2, 3, 4, 8, 16, 32, 64)
    assume(not (cue.strip().lower() == "on" and share))
    return Form(f"{cue}{first}/{second}", (month, day, cue, None, None))


@st.composite
def long_phones(draw) -> Form:
    """A telephone number with a country code, the trunk prefix in brackets or more than
    four groups, with a word before it or none: `+44 (0)20 7946 0958`, `+49 30 1234 5678
    90`, `Tel +44 (0) 20 7946 0958 ext. 12`. Parts: as `phones_en`' (the `(0)` is not
    dialled from abroad, so not said)."""
    word = draw(st.sampled_from(["", "", "Tel ", "call ", "Dial "]))
    country = draw(st.sampled_from(["44", "49", "33", "31", "352"]))
    trunk = draw(st.sampled_from(["", "(0)", "(0) "]))
    sizes = draw(st.sampled_from([(2, 4, 4), (2, 4, 4, 2), (3, 3, 4), (2, 3, 3, 2, 2), (4, 6, 2)]))
    sizes = draw(st.sampled_from([sizes, (1, 2, 2, 2, 2)]))  # +33 1 23 45 67 89
    groups = [draw(st.text(_DIGITS, min_size=n, max_size=n)) for n in sizes]
    written = f"{word}+{country} {trunk}" + " ".join(groups)
    extension = draw(st.sampled_from(["", "", "12"]))
    written += f" ext. {extension}" if extension else ""
    return Form(written, (word, (country, *groups), True, extension))


NEGATIVE_ABOVE = ("", "", "kg", "N", "W", "J")
NEGATIVE_BELOW = ("m", "s", "min", "h")
_MINUS_SUPERSCRIPTS = {1: "\u207b\u00b9", 2: "\u207b\u00b2", 3: "\u207b\u00b3"}
POWER_UNITS = ("mbar", "Pa", "bar", "kPa")


@st.composite
def negative_powers(draw) -> Form:
    """A unit with a negative superscript power on its last term, a number before it or none
    (`5 s⁻¹`, `1000 kg·m⁻³`, `m⁻¹`), or a power of ten in superscripts before a unit
    (`10⁻⁶ mbar`). Parts: (kind, the amount or None, the term above or "", the term below or
    the unit, the power)."""
    if draw(st.integers(0, 3)) == 0:
        power, unit = draw(st.integers(1, 12)), draw(st.sampled_from(POWER_UNITS))
        written = "10" + "".join(_SUPERSCRIPTS[c] for c in f"-{power}")
        return Form(f"{written} {unit}", ("ten", None, "", unit, power))
    amount = draw(st.sampled_from([None, "1", "5", "1000", "2.5", "0.75"]))
    above = draw(st.sampled_from(NEGATIVE_ABOVE))
    below = draw(st.sampled_from(NEGATIVE_BELOW))
    power = draw(st.integers(1, 3)) if below in ("m", "s") else 1
    unit = (f"{above}\u00b7" if above else "") + below + _MINUS_SUPERSCRIPTS[power]
    written = f"{amount}{draw(st.sampled_from(['', ' ']))}{unit}" if amount else unit
    return Form(written, ("unit", amount, above, below, power))


SPACED_MINUS_WORDS = ("Temp", "Setpoint", "Value", "dP", "Offset")
SPACED_MINUS_UNITS = (("", "", ""), (" °C", "degree Celsius", "degrees Celsius"))
SPACED_MINUS_UNITS += (("bar", "bar", "bar"), (" kPa", "kilopascal", "kilopascals"))


@st.composite
def spaced_minus(draw) -> Form:
    """A minus parted from its number by a space right after a colon or an equals sign:
    `Temp: - 5 °C`, `Setpoint = - 2.5 bar`, `dP:\u2013 10 kPa`. Parts: (the word and its mark as
    written, the amount, the unit)."""
    word = draw(st.sampled_from(SPACED_MINUS_WORDS))
    mark = draw(st.sampled_from([": ", ":", " = ", "="]))
    minus = draw(st.sampled_from(["- ", "-  ", "\u2013 ", "\u2212 "]))
    amount = draw(st.sampled_from(["5", "1", "12", "2.5", "0.75", "130"]))
    unit = draw(st.sampled_from(SPACED_MINUS_UNITS))
    return Form(f"{word}{mark}{minus}{amount}{unit[0]}", (word + mark, amount, unit))


_ROMAN_DIGITS = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"))
_ROMAN_DIGITS += ((50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))
# The Roman numeral characters one letter each, capital (U+2160...) and small (U+2170...).
_ROMAN_CHARACTERS = {"I": 0, "V": 4, "X": 9, "L": 12, "C": 13, "D": 14, "M": 15}


@st.composite
def roman_runs(draw) -> Form:
    """A run of Roman numeral characters, one letter each, capitals or small, as one numeral:
    `Unit \u2170\u2174` (small i, v), `Line \u2169\u2163`. Parts: (the word, the value)."""
    n = draw(st.integers(1, 3999))
    letters = ""
    rest = n
    for value, symbol in _ROMAN_DIGITS:
        count, rest = divmod(rest, value)
        letters += symbol * count
    base = draw(st.sampled_from([0x2160, 0x2170]))
    run = "".join(chr(base + _ROMAN_CHARACTERS[c]) for c in letters)
    word = draw(st.sampled_from(["Pump", "Line", "Unit"]))
    return Form(f"{word} {run}", (word, n))


TAG_MEMBERS = ("PV", "SP", "OUT", "MV", "ALM", "HI")
HEX_CUES = ("Error ", "error ", "Fault code: ", "Alarm ", "Status: ", "CODE ")


@st.composite
def tag_members_and_cued_hex(draw) -> Form:
    """A device tag with a member after a dot (`TIC-2001.PV`), or letters A to F with an h
    after a word that says a code follows (`Error FFh`). Parts: (kind, the tag's parts or the
    cue, the member or the letters)."""
    if draw(st.booleans()):
        tag = draw(tags())
        member = draw(st.sampled_from(TAG_MEMBERS))
        return Form(f"{tag.written}.{member}", ("member", tag.parts, member))
    cue = draw(st.sampled_from(HEX_CUES))
    written = draw(st.text("ABCDEF", min_size=2, max_size=6))
    return Form(f"{cue}{written}h", ("hex", cue, written))


# English, en-8

GLUED_ID_WORDS = ("SN", "S/N", "PO", "Lot", "Batch", "Job", "Serial", "Ticket", "Invoice")


@st.composite
def glued_id_words(draw) -> Form:
    """A word that says an identifier follows, the digits written onto it or after a colon:
    `SN12345678`, `S/N10045`, `Lot:00123`, `PO 4500123456`. Parts: (the word, the digits, what
    parts them)."""
    word = draw(st.sampled_from(GLUED_ID_WORDS))
    digits = draw(st.text("0123456789", min_size=4, max_size=10))
    between = draw(st.sampled_from(["", "", ":", " ", ": "]))
    return Form(f"{word}{between}{digits}", (word, digits, between))


# A formula or a label ending in digits, as the voice is given it (tag() reads the rest).
NAMES_ENDING_IN_DIGITS = {
    "T1": "T one", "B2": "B two", "SF6": "S F six", "CH4": "C H four", "NH3": "N H three",
    "H2": "H two", "CO2": "C O two", "PM10": "P M ten", "PT101": "P T one oh one",
}  # fmt: skip
# (`%` leaves a space before a closing quote the frames add: see test_english.py)
VALUE_UNITS = ("bar", "ppm", "°C", "kPa")


@st.composite
def names_before_values(draw) -> Form:
    """A tag, formula or label ending in digits, a space, then a value with its unit: `Tank
    T1 85 °C`, `SF6 5.5 bar`, `PT-101 5 bar`. Parts: (the name as said, the value, the unit)."""
    if draw(st.booleans()):
        name = draw(st.sampled_from(sorted(NAMES_ENDING_IN_DIGITS)))
        said = NAMES_ENDING_IN_DIGITS[name]
    else:
        form = draw(tags().filter(lambda t: not t.parts[2] and t.parts[0] not in ("UTC", "GMT")))
        name, said = form.written, form.parts
    whole = draw(st.integers(2, 999))
    value = f"{whole}.{draw(st.integers(0, 9))}" if draw(st.booleans()) else str(whole)
    unit = draw(st.sampled_from(VALUE_UNITS))
    return Form(f"{name} {value} {unit}", (said, value, unit))


@st.composite
def offset_times(draw) -> Form:
    """A time without a date, then an offset from UTC with a plus, with a colon, as four
    digits or as its hours (`14:05+08:00`, `14:05:30+0530`, `14:05+08`); after seconds also
    parted by a space, four digits with either sign (`14:05:30 +0800`, `14:05:30 -0500`).
    Parts: (the time's parts, the sign, hours, minutes or None)."""
    time = draw(clock_times(fractions=False, utc=False))
    hours, minutes = draw(st.integers(0, 14)), draw(st.sampled_from([None, 0, 30, 45]))
    if time.parts[3] is not None and draw(st.booleans()):
        sign, minutes = draw(st.sampled_from("+-")), minutes or 0
        return Form(
            f"{time.written} {sign}{hours:02d}{minutes:02d}", (time.parts, sign, hours, minutes)
        )
    written = f"{time.written}+{hours:02d}"
    if minutes is not None:
        written += draw(st.sampled_from([":", ""])) + f"{minutes:02d}"
    return Form(written, (time.parts, "+", hours, minutes))


@st.composite
def long_fraction_stamps(draw) -> Form:
    """A dated timestamp whose seconds have seven to nine decimals (nanoseconds: OPC UA, Go,
    InfluxDB), `Z` or none: `2026-11-30T14:05:30.123456789Z`. Parts: (the date's parts, the
    time's parts)."""
    year, month = draw(st.integers(1990, 2099)), draw(st.integers(1, 12))
    day = draw(st.integers(1, 28))
    h, mi, s = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.integers(0, 59))
    decimals = draw(st.text("0123456789", min_size=7, max_size=9))
    utc = draw(st.booleans())
    written = f"{year}-{month:02d}-{day:02d}T{h:02d}:{mi:02d}:{s:02d}.{decimals}" + "Z" * utc
    return Form(written, ((year, month, day), ("24", f"{h:02d}", mi, f"{s:02d}", decimals, utc)))


@st.composite
def spaced_compact_stamps(draw) -> Form:
    """A compact date, a space and a compact time with seconds, `Z` or none: `20261130
    140530`. Parts: (the date's parts, the time's parts)."""
    year, month = draw(st.integers(1990, 2099)), draw(st.integers(1, 12))
    day = draw(st.integers(1, 28))
    h, mi, s = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.integers(0, 59))
    utc = draw(st.booleans())
    written = f"{year}{month:02d}{day:02d} {h:02d}{mi:02d}{s:02d}" + "Z" * utc
    return Form(written, ((year, month, day), ("24", f"{h:02d}", mi, f"{s:02d}", None, utc)))


@st.composite
def dot_grouped_numbers(draw) -> Form:
    """A number grouped by dots with two groups or more and no decimal (`1.234.567 kg`), or
    after the euro sign with one or more (`€1.000`). Parts: (the currency mark or None,
    whole, None, the unit or None), as european_numbers gives them."""
    if draw(st.booleans()):
        whole = draw(st.integers(1000, 10**9 - 1))
        return Form("€" + f"{whole:,}".replace(",", "."), ("€", whole, None, None))
    whole = draw(st.integers(10**6, 10**12 - 1))
    parts = f"{whole:,}".split(",")
    assume(not (len(parts) == 4 and all(int(p) <= 255 for p in parts)))  # an IPv4 address
    unit = draw(st.sampled_from([None, *GROUPED_UNITS]))
    written = ".".join(parts) + (f" {unit[0]}" if unit else "")
    return Form(written, (None, whole, None, unit))


@st.composite
def descending_hyphens(draw) -> Form:
    """Two whole numbers joined by a hyphen, the second the smaller, after a word or not:
    `CPU 1516-3`, `EN 60204-1`, `Model 2000-10`. Parts: (the word or None, the groups)."""
    first = draw(st.integers(1, 99999))
    second = draw(st.integers(0, first - 1))
    word = draw(st.sampled_from([None, "CPU", "Model", "Standard", "Part"]))
    written = (f"{word} " if word else "") + f"{first}-{second}"
    return Form(written, (word, (str(first), str(second))))


# (a lone V before a word is left a letter, a class of its own: volts are in test_english.py)
PHASE_VOLTAGES = (("50 Hz", "fifty hertz"), ("60Hz", "sixty hertz"))
COUNTDOWN_UNITS = (("seconds", "seconds", "second"), ("hours", "hours", "hour"))
COUNTDOWN_UNITS += (("min", "minutes", "minute"), ("minutes", "minutes", "minute"))
DEGREE_LOOK_ALIKES = ("\u2070", "\u00ba", "\u02da")


@st.composite
def plant_notations(draw) -> Form:
    """A notation a general rule misread: phases before a frequency (`3~ 50 Hz`, `1~60Hz`),
    a hyphenated pipe size (`1-1/2"`), a binary literal (`0b1011`), a countdown (`T-10
    seconds`), a degree look-alike (`5⁰C`, `5ºC`). Parts: (kind, what the kind needs)."""
    kind = draw(st.sampled_from(["phases", "pipe", "binary", "countdown", "degrees"]))
    if kind == "phases":
        phases, space = draw(st.sampled_from("13")), draw(st.sampled_from(["", " "]))
        value = draw(st.sampled_from(PHASE_VOLTAGES))
        return Form(f"{phases}~{space}{value[0]}", (kind, (phases, value[1])))
    if kind == "pipe":
        whole, d = draw(st.integers(1, 12)), draw(st.sampled_from([2, 4, 8]))
        n = draw(st.integers(1, d - 1))
        # (`"` in quotes closes them, `in` before a quote is a word: see test_english.py)
        mark = draw(st.sampled_from([" inch", " inches"]))
        return Form(f"{whole}-{n}/{d}{mark}", (kind, (whole, n, d)))
    if kind == "binary":
        bits = draw(st.text("01", min_size=1, max_size=16))
        return Form(f"0b{bits}", (kind, bits))
    if kind == "countdown":
        count, unit = draw(st.integers(2, 999)), draw(st.sampled_from(COUNTDOWN_UNITS))
        return Form(f"T-{count} {unit[0]}", (kind, (count, unit)))
    value, mark = draw(st.integers(2, 999)), draw(st.sampled_from(DEGREE_LOOK_ALIKES))
    scale = draw(st.sampled_from("CF"))
    return Form(f"{value}{mark}{scale}", (kind, (value, scale)))


@st.composite
def dot_ranges(draw) -> Form:
    """Two numbers joined by two or three dots (S7 and Codesys ranges), the unit written on
    the second, spaced or not: `4...20 mA`, `0.5..1.5mm`. Parts: as unit_ranges gives them."""
    low, high = draw(st.sampled_from(_RANGE_ENDS)), draw(st.sampled_from(_RANGE_ENDS))
    unit = draw(st.sampled_from(_RANGE_UNITS))
    dots, space = draw(st.sampled_from(["..", "..."])), draw(st.sampled_from(["", " "]))
    return Form(low + dots + high + space + unit[0] + unit[1], (low, high, unit))


# Mandarin, zh-front-8

UNSAID_ZH = ("\x1b[31m", "\x1b[0m", "\x1b[1;33m", "\x07", "\x00", "\u200b", "\ufeff", "\u202e")
UNSAID_ZH += ("\u00ad", "\ud800", "\udfff", "\x1b]0;title\x07", "\x7f", "\x85")
UNSAID_WORDS_ZH = ("报警", "温度过高", "泵", "停机", "请检查", "阀门")


@st.composite
def unsaid_characters_zh(draw) -> Form:
    """Chinese words with terminal escape sequences, control and format characters and lone
    surrogates between and around them: `\\x1b[31m报警\\x1b[0m`, `温度\\udfff过高`. Parts: (the
    words)."""
    words = draw(st.lists(st.sampled_from(UNSAID_WORDS_ZH), min_size=1, max_size=4))
    written = ""
    for word in words:
        written += "".join(draw(st.lists(st.sampled_from(UNSAID_ZH), max_size=2))) + word
    written += "".join(draw(st.lists(st.sampled_from(UNSAID_ZH), max_size=2)))
    return Form(written, ("".join(words),))


LABEL_WORDS_ZH = ("北区", "南区", "东站", "二期", "备用泵", "主线", "A区", "B线")
LABEL_TAILS_ZH = ("", "号", "号泵", "号阀门")


@st.composite
def label_hyphens_zh(draw) -> Form:
    """A place or machine word, a hyphen, a number, perhaps a numbered unit after it: `北区-3`,
    `A区-2`, `3号机-2号泵`, `二期-3号`. Parts: (the word, its number before it or None, the
    number, the tail)."""
    word = draw(st.sampled_from(LABEL_WORDS_ZH))
    before = draw(st.none() | st.integers(1, 12))
    if before is not None:
        word = draw(st.sampled_from(("机", "炉", "泵")))
    n = draw(st.integers(1, 99))
    tail = draw(st.sampled_from(LABEL_TAILS_ZH))
    head = f"{before}号{word}" if before is not None else word
    return Form(f"{head}-{n}{tail}", (word, before, n, tail))


LETTER_LABEL_NOUNS_ZH = ("泵", "区", "电机", "皮带", "风机", "线", "机组")


@st.composite
def letter_labels_zh(draw) -> Form:
    """A number with A written onto it before a machine or place word, perhaps with a second
    label before it in a list: `2A泵`, `1A区`, `1A、1B泵`. Parts: (the labels as (number,
    letter) pairs, the joint, the noun)."""
    n = draw(st.integers(1, 40))
    labels = [(n, "A")]
    joint = draw(st.sampled_from(["", "、", "/"]))
    if joint:
        labels.append((draw(st.integers(1, 40)), draw(st.sampled_from("AB"))))
    noun = draw(st.sampled_from(LETTER_LABEL_NOUNS_ZH))
    written = joint.join(f"{k}{letter}" for k, letter in labels) + noun
    return Form(written, (tuple(labels), joint, noun))


DURATION_WORDS_ZH = ("运行时长", "停机时长", "持续时间", "用时", "耗时", "历时")
# How long a machine has run or waited, so far or in total, and what is left (zh-front-9).
DURATION_WORDS_ZH += ("已运行", "剩余", "运行时间", "等待", "累计", "累计运行时间", "剩余时间")


@st.composite
def clock_durations_zh(draw) -> Form:
    """A duration word, perhaps a colon, then hh:mm:ss: `运行时长02:15:00`, `耗时:00:45:10`.
    Parts: (the word as said with its mark, hours, minutes, seconds)."""
    word = draw(st.sampled_from(DURATION_WORDS_ZH))
    colon = "\uff1a"  # the full-width colon the front end says a colon as
    marks = [("", ""), (":", colon), (colon, colon), ("为", "为")]
    mark, said_mark = draw(st.sampled_from(marks))
    h, m, s = draw(st.integers(0, 99)), draw(st.integers(0, 59)), draw(st.integers(0, 59))
    hours = f"{h:02d}" if draw(st.booleans()) else str(h)
    return Form(f"{word}{mark}{hours}:{m:02d}:{s:02d}", (word + said_mark, h, m, s))


@st.composite
def long_clock_durations_zh(draw) -> Form:
    """hh:mm:ss with more hours than a day has, no word before it: `100:00:00`,
    `1234:56:00`. Parts: (no word, hours, minutes, seconds)."""
    h, m, s = draw(st.integers(25, 99999)), draw(st.integers(0, 59)), draw(st.integers(0, 59))
    return Form(f"{h}:{m:02d}:{s:02d}", ("", h, m, s))


DASHED_DATE_CUES_ZH = (("日期", ""), ("计划", ""), ("", "检修"), ("", " 08:00"), ("截至", "前"))


@st.composite
def day_first_and_dashed_dates_zh(draw) -> Form:
    """A dotted date day first (`30.11.2026`, `5.1.2026`), or a month and a day of two digits
    each joined by a hyphen after a date word, before a day's word or before a time
    (`日期11-30`, `11-30检修`, `12-01 08:00`). Parts: (kind, year or None, month, day, the
    words before and after)."""
    month = draw(st.integers(1, 12))
    day = draw(st.integers(1, 28))
    if draw(st.booleans()):
        year = draw(st.integers(1990, 2099))
        pad = draw(st.booleans())
        written = f"{day:02d}.{month:02d}.{year}" if pad else f"{day}.{month}.{year}"
        return Form(written, ("dotted", year, month, day, "", ""))
    before, after = draw(st.sampled_from(DASHED_DATE_CUES_ZH))
    return Form(
        f"{before}{month:02d}-{day:02d}{after}", ("dashed", None, month, day, before, after)
    )


@st.composite
def zero_padded_versions_zh(draw) -> Form:
    """A version of three parts or more, some with leading zeros, perhaps after V or 版本:
    `V1.02.003`, `固件1.00.05`, `版本01.02.03`. Parts: (the word, the parts as written)."""
    word = draw(st.sampled_from(["", "V", "版本", "固件"]))
    count = 3  # four parts of 255 or less are an IPv4 address
    parts = tuple(
        draw(st.sampled_from(["0", "1", "2", "10", "01", "02", "00", "003", "05", "12"]))
        for _ in range(count)
    )
    if not any(len(p) > 1 and p.startswith("0") for p in parts):
        parts = (*parts[:-1], "05")
    if all(len(p) == 3 for p in parts[1:]):  # 1.003.003 groups thousands
        parts = (*parts[:-1], "05")
    return Form(word + ".".join(parts), (word, parts))


@st.composite
def dot_grouped_numbers_zh(draw) -> Form:
    """A number grouped by dots in threes, two groups or more, perhaps with a unit after it:
    `1.234.567`, `重量1.234.567kg`. Parts: (the number, the words before, the unit's words)."""
    n = draw(st.integers(1_000_000, 999_999_999))  # four groups may be an IPv4 address
    written = f"{n:,}".replace(",", ".")
    before = draw(st.sampled_from(["", "重量", "计数"]))
    unit, words = draw(st.sampled_from([("", ""), ("kg", "千克"), ("m", "米")]))
    return Form(before + written + unit, (n, before, words))


PLC_LETTERS_ZH = ("I", "Q", "IX", "QX", "AI", "DI", "DO", "AO", "PM", "DBX", "M")


@st.composite
def plc_addresses_zh(draw) -> Form:
    """Capitals with a decimal written onto them, perhaps `%` before or a data block and a
    dot: `AI1.5`, `%IX0.1`, `PM2.5`, `DB10.DBX2.3`. Parts: (percent, the block's number or
    None, the letters, the decimal)."""
    percent = draw(st.booleans())
    block = draw(st.none() | st.integers(1, 999))
    letters = draw(st.sampled_from(PLC_LETTERS_ZH))
    bit = f"{draw(st.integers(0, 99))}.{draw(st.integers(0, 7))}"
    head = f"DB{block}." if block is not None else ""
    return Form(("%" if percent else "") + head + letters + bit, (percent, block, letters, bit))


DIFFERENCE_WORDS_ZH = ("偏差", "温差", "误差", "温升", "漂移")


@st.composite
def zero_below_and_minus_zh(draw) -> Form:
    """A temperature with a minus after 零下 (`零下-5℃`), a difference of temperatures with a
    minus (`偏差-3℃`), or a range joined by 至 or 到 with a minus at its first end
    (`-5到-10℃`). Parts: (kind, the word, the amounts, whether the second is negative)."""
    kind = draw(st.sampled_from(["zero below", "difference", "range"]))
    a = draw(st.sampled_from(["5", "3", "12", "2.5", "0.5"]))
    degree = draw(st.sampled_from(["℃", "°C"]))
    if kind == "zero below":
        return Form(f"温度零下-{a}{degree}", (kind, "温度", (a,), False))
    if kind == "difference":
        word = draw(st.sampled_from(DIFFERENCE_WORDS_ZH))
        return Form(f"{word}-{a}{degree}", (kind, word, (a,), False))
    b = draw(st.sampled_from(["5", "10", "1.5"]))
    negative = draw(st.booleans())
    joint = draw(st.sampled_from(["至", "到"]))
    written = f"温度-{a}{joint}{'-' if negative else ''}{b}{degree}"
    return Form(written, (kind, "温度", (a, b), negative))


LETTER_ROMANS_ZH = {"I": 1, "II": 2, "III": 3, "IV": 4, "VI": 6, "VII": 7, "VIII": 8, "IX": 9}
LETTER_ROMANS_ZH |= {"XI": 11, "XII": 12}


@st.composite
def letter_romans_zh(draw) -> Form:
    """A Roman numeral in capitals before a counting word: `II段母线`, `IV号线`, `III期`.
    Parts: (the number, the words after)."""
    letters = draw(st.sampled_from(sorted(LETTER_ROMANS_ZH)))
    after = draw(st.sampled_from(["段母线", "号线", "期", "类", "级"]))
    return Form(letters + after, (LETTER_ROMANS_ZH[letters], after))


@st.composite
def binary_literals_zh(draw) -> Form:
    """A binary literal, perhaps after a word: `0b1011`, `错误0b11110000`. Parts: (the word, the
    digits)."""
    word = draw(st.sampled_from(["", "错误", "状态字", "掩码"]))
    digits = draw(st.text("01", min_size=1, max_size=16))
    return Form(f"{word}0{draw(st.sampled_from('bB'))}{digits}", (word, digits))


@st.composite
def roman_lists_zh(draw) -> Form:
    """Two Roman numeral characters, the second of several letters and no smaller than the
    first: sections I and II, `ⅠⅡ段`, `ⅡⅢ期`. Parts: (the numbers, the word)."""
    first = draw(st.integers(1, 11))
    second = draw(st.integers(max(first, 2), 12).filter(lambda n: n not in (5, 10)))
    word = draw(st.sampled_from(["段", "期", "号机"]))
    return Form(chr(0x215F + first) + chr(0x215F + second) + word, ((first, second), word))


@st.composite
def twelve_hour_times_zh(draw) -> Form:
    """A time of the twelve-hour clock with AM or PM: `2:05 PM`, `9:30am`, `12:00 P.M.`.
    Parts: (hour, minute, afternoon)."""
    hour, minute = draw(st.integers(1, 12)), draw(st.integers(0, 59))
    afternoon = draw(st.booleans())
    mark = draw(st.sampled_from(["PM", "pm", "P.M."] if afternoon else ["AM", "am", "A.M."]))
    space = draw(st.sampled_from(["", " "]))
    return Form(f"{hour}:{minute:02d}{space}{mark}", (hour, minute, afternoon))


TWO_MEASURES_ZH = ("个人", "倍", "次", "台泵", "千克", "千米", "小时", "天")


@st.composite
def twos_and_mixed_inches_zh(draw) -> Form:
    """Two before a measure word (`2个人`, `2倍`, `2千克`), or a whole number, a hyphen and a
    fraction before an inch mark (`1-1/2"`, `2-3/4寸`). Parts: (kind, the numbers, the word)."""
    if draw(st.booleans()):
        word = draw(st.sampled_from(TWO_MEASURES_ZH))
        return Form(f"2{word}", ("two", (), word))
    whole = draw(st.integers(1, 12))
    den = draw(st.sampled_from([2, 4, 8, 16]))
    num = draw(st.integers(1, den - 1))
    mark, word = draw(st.sampled_from([('"', "英寸"), ("寸", "寸"), ("英寸", "英寸")]))
    return Form(f"{whole}-{num}/{den}{mark}", ("inches", (whole, num, den), word))


@st.composite
def named_values_zh(draw) -> Form:
    """A tag written with or without its hyphen, a space, then a percentage: `PT101 5%`,
    `FT-12 80%`. Parts: (letters, hyphen, digits, amount)."""
    # ISA-5.1 tag letters (a currency code before digits is money: USD5)
    letters = draw(st.sampled_from(["PT", "TT", "FT", "LT", "AT", "PIC", "TIC", "FIC", "LIT"]))
    hyphen = draw(st.sampled_from(["", "-"]))
    numbers = draw(st.text("0123456789", min_size=1, max_size=4))
    amount = draw(st.integers(0, 999))
    return Form(f"{letters}{hyphen}{numbers} {amount}%", (letters, hyphen, numbers, amount))


@st.composite
def descending_pairs_zh(draw) -> Form:
    """Two whole numbers a hyphen joins, the second the smaller, perhaps after a model's or a
    standard's letters: `CPU 1516-3`, `EN 60204-1`, `型号2000-10`; or any pair after a
    standard's letters: `GB 2626-2019`. Parts: (the words before, the two numbers)."""
    before = draw(st.sampled_from(["", "CPU ", "EN ", "型号", "GB ", "IEC ", "GB/T "]))
    first = draw(st.integers(10, 99999))
    if before.strip() in ("GB", "IEC", "GB/T", "EN"):
        second = draw(st.integers(0, 99999))
    else:
        second = draw(st.integers(0, first - 1))
    return Form(f"{before}{first}-{second}", (before, str(first), str(second)))


@st.composite
def countdowns_zh(draw) -> Form:
    """A countdown: `T-5分钟`, `T-10s`, `倒计时T-30`. Parts: (the word before, the number, the
    unit's words)."""
    n = draw(st.integers(0, 9999))
    word = draw(st.sampled_from(["", "倒计时", "倒数"]))
    unit, words = draw(
        st.sampled_from([("秒", "秒"), ("分钟", "分钟"), ("小时", "小时"), ("s", "秒")])
        | st.sampled_from([("min", "分钟"), ("h", "小时")] + ([("", "")] if word else []))
    )
    return Form(f"{word}T-{n}{unit}", (word, n, words))


@st.composite
def fault_codes_zh(draw) -> Form:
    """A code after a fault, alarm or error word, letters before its digits (`故障F30001`,
    `报警A1234`), or after a code word with or without letters (`错误代码E05`, `报警代码1001`,
    `寄存器40001`). Parts: (the word, the letters, the digits)."""
    word = draw(st.sampled_from(["故障", "报警", "告警", "错误", "异常", "错误代码", "故障码"]))
    code_word = word.endswith(("码", "代码"))
    letters = draw(st.text("ABCDEFGHJKLMNPQRSUVWXYZ", min_size=0 if code_word else 1, max_size=3))
    number = draw(st.text("0123456789", min_size=1, max_size=6))
    return Form(f"{word}{letters}{number}", (word, letters, number))


@st.composite
def spaced_phones_zh(draw) -> Form:
    """A landline with its area code, or a 400 or 800 number, in groups parted by spaces (or a
    hyphen after the area code, then a space) and no word before: `0571 8888 6666`,
    `010 8888 6666`, `400 820 8820`, `0512-6789 1234`. Parts: (the groups)."""
    head = draw(st.sampled_from(["400", "800"]) | st.text("0123456789", min_size=2, max_size=3))
    head = head if head in ("400", "800") else "0" + head
    middle = draw(st.text("0123456789", min_size=3, max_size=4))
    tail = draw(st.text("0123456789", min_size=4, max_size=4))
    joint = draw(st.sampled_from([" ", "-"]))
    return Form(f"{head}{joint}{middle} {tail}", ((head, middle, tail),))


@st.composite
def short_year_dates_zh(draw) -> Form:
    """A date with a two-digit year: year first where the first part cannot be a month
    (`26-11-30`, `26/11/30`), month first with slashes where the day cannot be a month
    (`11/30/26`). Parts: (year, month, day)."""
    year, month = draw(st.integers(13, 99)), draw(st.integers(1, 12))
    days = (31, 29 if year % 4 == 0 else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]
    if draw(st.booleans()):
        day = draw(st.integers(1, days))
        joint = draw(st.sampled_from(["-", "/"]))
        return Form(f"{year}{joint}{month:02d}{joint}{day:02d}", (year, month, day))
    day = draw(st.integers(13, days))
    return Form(f"{month:02d}/{day}/{year}", (year, month, day))


ZH_ZONE_WORDS = {"CST": "北京时间", "BJT": "北京时间", "JST": "日本标准时间", "CET": "欧洲中部时间"}


@st.composite
def zone_abbreviations_zh(draw) -> Form:
    """A time and a zone's abbreviation after it: `14:05 CST`, `08:30:15CET`. Parts: (the
    zone's words, hours, minutes, seconds or None)."""
    hours, minutes = draw(st.integers(0, 23)), draw(st.integers(0, 59))
    seconds = draw(st.none() | st.integers(0, 59))
    zone = draw(st.sampled_from(sorted(ZH_ZONE_WORDS)))
    space = draw(st.sampled_from(["", " "]))
    clock = f"{hours:02d}:{minutes:02d}" + ("" if seconds is None else f":{seconds:02d}")
    return Form(clock + space + zone, (ZH_ZONE_WORDS[zone], hours, minutes, seconds))


@st.composite
def dots_ranges_zh(draw) -> Form:
    """Two or three dots between numbers, a range as S7 and Codesys write it: `12..5米`,
    `4...20mA`. Parts: (low, high, the unit's words)."""
    low, high = draw(st.integers(0, 999)), draw(st.integers(0, 999))
    dots = draw(st.sampled_from(["..", "..."]))
    unit, words = draw(st.sampled_from([("米", "米"), ("mA", "毫安"), ("bar", "巴"), ("", "")]))
    return Form(f"{low}{dots}{high}{unit}", (low, high, words))


@st.composite
def place_numbers_zh(draw) -> Form:
    """A room's, a bed's or a storage place's number, a word before or after it: `房间3-105`,
    `3-105室`, `库位12-3`. Parts: (the word before, the two numbers, the word after)."""
    first = draw(st.text("0123456789", min_size=1, max_size=4))
    second = draw(st.text("0123456789", min_size=1, max_size=5))
    before = draw(st.sampled_from(["", "房间", "床位", "库位"]))
    after = draw(st.sampled_from(["室", "床"] if not before else ["", "室"]))
    return Form(f"{before}{first}-{second}{after}", (before, first, second, after))


@st.composite
def plus_86_phones_zh(draw) -> Form:
    """A Chinese number with +86 written onto it, unspaced or with hyphens: `+8613812345678`,
    `+86-10-88886666`. Parts: (the groups after 86)."""
    joint = draw(st.sampled_from(["", "-"]))
    if draw(st.booleans()):
        head = "1" + draw(st.text("3456789", min_size=1, max_size=1))
        head += draw(st.text("0123456789", min_size=1, max_size=1))
        middle = draw(st.text("0123456789", min_size=4, max_size=4))
    else:
        head = draw(st.sampled_from(["10", "21", "571", "755"]))
        middle = draw(st.text("0123456789", min_size=4, max_size=4))
    tail = draw(st.text("0123456789", min_size=4, max_size=4))
    return Form(f"+86{joint}{head}{joint}{middle}{joint}{tail}", ((head, middle, tail),))


@st.composite
def plates_and_long_values_zh(draw) -> Form:
    """A licence plate (`京A12345`, `粤BD1234`) or nine digits or more after a word that says a
    value (`数值1000000000`). Parts: (kind, the written pieces)."""
    if draw(st.booleans()):
        province = draw(st.sampled_from("京沪粤苏浙川鲁"))
        letter = draw(st.sampled_from("ABCDEFGHJK"))
        body = draw(st.text("ABCDEFGHJK0123456789", min_size=4, max_size=5))
        body += draw(st.text("0123456789", min_size=1, max_size=1))
        return Form(f"{province}{letter}{body}", ("plate", province, letter + body))
    word = draw(st.sampled_from(["数值", "计数器", "累计", "读数", "产量"]))
    n = draw(st.integers(10**8, 10**16 - 1))
    return Form(f"{word}{n}", ("value", word, n))


# English, en-9: units of water, radiation, noise, light, heat and data; values in a row

# (as written, singular, plural): prefixes as plants write them with these units.
PLANT_UNITS = (
    ("µS/cm", "microsiemens per centimeter", "microsiemens per centimeter"),
    ("mS/cm", "millisiemens per centimeter", "millisiemens per centimeter"),
    ("kPag", "kilopascal gauge", "kilopascals gauge"),
    ("kPa(g)", "kilopascal gauge", "kilopascals gauge"),
    ("kPa(a)", "kilopascal absolute", "kilopascals absolute"),
    ("mmHg", "millimeter of mercury", "millimeters of mercury"),
    ("dB(A)", "decibel A-weighted", "decibels A-weighted"),
    ("dBA", "decibel A-weighted", "decibels A-weighted"),
    ("mSv", "millisievert", "millisieverts"),
    ("µSv/h", "microsievert per hour", "microsieverts per hour"),
    ("GPM", "gallon per minute", "gallons per minute"),
    ("gal/min", "gallon per minute", "gallons per minute"),
    ("SCFM", "standard cubic foot per minute", "standard cubic feet per minute"),
    ("BTU", "B T U", "B T U"),
    ("BTU/h", "B T U per hour", "B T U per hour"),
    ("lx", "lux", "lux"),
    ("Mb/s", "megabit per second", "megabits per second"),
    ("Mbps", "megabit per second", "megabits per second"),
    ("hp", "horsepower", "horsepower"),
    ("kVAr", "kilovar", "kilovars"),
    ("GJ", "gigajoule", "gigajoules"),
    ("atm", "atmosphere", "atmospheres"),
    ("cSt", "centistoke", "centistokes"),
    ("hrs", "hour", "hours"),
    ("mins", "minute", "minutes"),
    ("secs", "second", "seconds"),
    ("%vol", "percent by volume", "percent by volume"),
    ("min-1", "per minute", "per minute"),
    ("1/min", "per minute", "per minute"),
    ("min\u207b\u00b9", "per minute", "per minute"),
)
# Lone letters in a row of values, as a motor's plate gives them.
ROW_UNITS = (("V", "volt", "volts"), ("A", "amp", "amps"), ("W", "watt", "watts"))
ROW_UNITS += (
    ("Hz", "hertz", "hertz"),
    ("kW", "kilowatt", "kilowatts"),
    ("Ah", "amp hour", "amp hours"),
)


@st.composite
def plant_units(draw) -> Form:
    """A number and a plant unit the table lacked (`5 µS/cm`, `85 dB(A)`, `1480 min-1`), or
    two to three values in a row whose units may be lone letters, glued or spaced, parted by
    spaces or slashes (`400V 50Hz`, `5.5 kW / 400 V / 11 A`). Parts: ((amount, singular,
    plural), ...) and what parts them."""
    amount = draw(st.sampled_from(["1", "2", "0.5", "12", "250", "1480"]))
    if draw(st.booleans()):
        written, one, many = draw(st.sampled_from(PLANT_UNITS))
        space = " " if written[0] in "1%" else draw(st.sampled_from(["", " "]))
        return Form(amount + space + written, (((amount, one, many),), " "))
    row = draw(st.lists(st.sampled_from(ROW_UNITS), min_size=2, max_size=3))
    amounts = draw(
        st.lists(
            st.sampled_from(["2", "11", "50", "400", "5.5"]), min_size=len(row), max_size=len(row)
        )
    )
    space, joint = draw(st.sampled_from(["", " "])), draw(st.sampled_from([" ", " / "]))
    written = joint.join(f"{a}{space}{u[0]}" for a, u in zip(amounts, row, strict=True))
    return Form(written, (tuple((a, u[1], u[2]) for a, u in zip(amounts, row, strict=True)), joint))


# English, en-9: plant designations taken for decimals, times, ratios, ranges or counts

NUMBERING_WORDS = ("Phase", "Unit", "Line", "Train", "Stage", "Class", "Zone")
ROMANS = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "IX": 9, "XII": 12}
PLACE_WORDS = ("Room", "Bed", "Cell", "Cabinet", "Terminal", "Contact", "Locker")
PROPORTION_WORDS = ("Gain", "Level", "Load", "Yield", "Duty", "Opening")
STANDARD_WORDS = ("ISO", "IEC", "EN", "DIN", "IEC/EN")
VALUE_WORDS = ("Value", "Reading", "Counter", "Total", "PV")


@st.composite
def plc_addresses(draw) -> Form:
    """An IEC 61131 address (`%I0.1`, `%QW4`, `I0.1`), an S7 data block address (`DB1.DBD4`,
    `DB10.DBX2.3`), an Allen-Bradley file address (`N7:0`, `B3:0/1`, `T4:0.ACC`) or a Modbus
    register with its table (`4x0001`). Parts: (kind, the pieces as said)."""
    kind = draw(st.sampled_from(["iec", "s7", "ab", "modbus"]))
    number = st.integers(0, 999).map(str)
    bit = str(draw(st.integers(0, 7)))
    if kind == "iec":
        area, size = draw(st.sampled_from("IQM")), draw(st.sampled_from(["", "X", "B", "W", "D"]))
        byte, with_bit = draw(number), draw(st.booleans())
        sign = "%" if not with_bit or draw(st.booleans()) else ""
        written = f"{sign}{area}{size}{byte}" + (f".{bit}" if with_bit else "")
        return Form(written, (kind, (area + size, byte, bit if with_bit else None)))
    if kind == "s7":
        block, size, offset = draw(number), draw(st.sampled_from("XBWD")), draw(number)
        with_bit = size == "X"
        written = f"DB{block}.DB{size}{offset}" + (f".{bit}" if with_bit else "")
        return Form(written, (kind, (block, size, offset, bit if with_bit else None)))
    if kind == "ab":
        file_kind, file = draw(st.sampled_from("BNFTC")), str(draw(st.integers(3, 255)))
        element, with_bit = draw(number), draw(st.booleans())
        written = f"{file_kind}{file}:{element}" + (f"/{bit}" if with_bit else "")
        return Form(written, (kind, (file_kind, file, element, bit if with_bit else None)))
    table, register = draw(st.sampled_from("134")), f"0{draw(st.integers(1, 9999)):03d}"
    return Form(f"{table}x{register}", (kind, (table, register)))


@st.composite
def designations(draw) -> Form:
    """Voting (`2oo3`), a metric thread (`M12x1.5`), a Roman numeral after a numbering word
    (`Phase II`), a place number (`Room 3-105`), a proportion (`Gain 1/2`), a standard's
    edition (`ISO 9001:2015`), a ratio with a decimal (`1:2.5`), a long value after its word
    (`Value 1000000000`), a date inside an identifier after its word (`Lot 2026-11-30-A`).
    Parts: (kind, what the kind needs)."""
    kind = draw(st.sampled_from(["voting", "thread", "roman", "place", "proportion"]))
    kind = draw(st.sampled_from([kind, "edition", "ratio", "value", "dated id"]))
    if kind == "dated id":
        word, y = (
            draw(st.sampled_from(["Lot", "Batch", "Sample", "Lot No."])),
            draw(st.integers(1990, 2099)),
        )
        mo, d = draw(st.integers(1, 12)), draw(st.integers(1, 28))
        tail = draw(st.sampled_from(["", "-A", "-B2", "-01"]))
        groups = (str(y), f"{mo:02d}", f"{d:02d}", *([tail[1:]] if tail else []))
        return Form(f"{word} {'-'.join(groups)}", (kind, (word, groups)))
    if kind == "voting":
        n, d = draw(st.integers(1, 9)), draw(st.integers(1, 9))
        diagnostic = draw(st.sampled_from(["", "D"]))
        return Form(f"{n}oo{d}{diagnostic}", (kind, (n, d, diagnostic)))
    if kind == "thread":
        size = draw(st.sampled_from(["6", "8", "10", "12", "16", "20", "24"]))
        pitch = draw(st.sampled_from(["1", "1.25", "1.5", "2", "0.75"]))
        times = draw(st.sampled_from(["x", " x ", "\u00d7"]))
        return Form(f"M{size}{times}{pitch}", (kind, (size, pitch)))
    if kind == "roman":
        word, numeral = (
            draw(st.sampled_from(NUMBERING_WORDS)),
            draw(st.sampled_from(sorted(ROMANS))),
        )
        return Form(f"{word} {numeral}", (kind, (word, ROMANS[numeral])))
    if kind == "place":
        word = draw(st.sampled_from(PLACE_WORDS))
        first, second = str(draw(st.integers(1, 99))), str(draw(st.integers(1, 9999)))
        return Form(f"{word} {first}-{second}", (kind, (word, first, second)))
    if kind == "proportion":
        word, d = draw(st.sampled_from(PROPORTION_WORDS)), draw(st.sampled_from([2, 3, 4, 8, 16]))
        n, colon = draw(st.integers(1, d - 1)), draw(st.sampled_from([" ", ": ", " = "]))
        return Form(f"{word}{colon}{n}/{d}", (kind, (word + colon, n, d)))
    if kind == "edition":
        word, edition = draw(st.sampled_from(STANDARD_WORDS)), draw(st.integers(1990, 2030))
        number = str(draw(st.integers(1000, 99999)))
        return Form(f"{word} {number}:{edition}", (kind, (word, number, edition)))
    if kind == "ratio":
        first = draw(st.sampled_from(["1", "16.5", "2.5", "3"]))
        second = draw(st.sampled_from(["1", "2.5", "0.75", "1000", "250000"]))
        assume("." in first + second or len(second) > 2)
        return Form(f"{first}:{second}", (kind, (first, second)))
    word, value = draw(st.sampled_from(VALUE_WORDS)), draw(st.integers(10**8, 10**15 - 1))
    return Form(f"{word} {value}", (kind, (word, value)))


# English, en-9: date and time forms beside the documented ones

MONTH_ABBREVIATIONS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct")
MONTH_ABBREVIATIONS += ("Nov", "Dec")
WEEKDAY_ABBREVIATIONS = {"Mon": "Monday", "Tue": "Tuesday", "Wed": "Wednesday"}
WEEKDAY_ABBREVIATIONS |= {"Thu": "Thursday", "Fri": "Friday", "Sat": "Saturday", "Sun": "Sunday"}


@st.composite
def date_forms(draw) -> Form:
    """A day, month abbreviation and year joined by hyphens or slashes (`30-Nov-2026`), the
    Unix `date` form (`Mon Nov 30 14:05:30 UTC 2026`), an ISO week (`2026-W48`, `2026-W48-3`)
    or the military clock after `at` (`at 1405 hrs`, `0800 hours`). Parts: (kind, what the
    kind needs)."""
    kind = draw(st.sampled_from(["joined", "unix", "week", "military"]))
    full_year, month = draw(st.integers(1990, 2099)), draw(st.integers(1, 12))
    day = draw(st.integers(1, 28))
    abbreviation = MONTH_ABBREVIATIONS[month - 1]
    if kind == "joined":
        joint = draw(st.sampled_from("-/"))
        return Form(
            f"{day}{joint}{abbreviation}{joint}{full_year}", (kind, (full_year, month, day))
        )
    h, mi, s = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.integers(0, 59))
    if kind == "unix":
        weekday = draw(st.sampled_from(sorted(WEEKDAY_ABBREVIATIONS)))
        written = f"{weekday} {abbreviation} {day} {h:02d}:{mi:02d}:{s:02d} UTC {full_year}"
        time = ("24", f"{h:02d}", mi, f"{s:02d}", None, False)
        return Form(
            written, (kind, (WEEKDAY_ABBREVIATIONS[weekday], (full_year, month, day), time))
        )
    if kind == "week":
        week, weekday = draw(st.integers(1, 53)), draw(st.sampled_from([None, 1, 3, 7]))
        written = f"{full_year}-W{week:02d}" + (f"-{weekday}" if weekday else "")
        return Form(written, (kind, (full_year, week, weekday)))
    word = draw(st.sampled_from(["hrs", "hours"]))
    return Form(f"at {h:02d}{mi:02d} {word}", (kind, ("24", f"{h:02d}", mi, None, None, False)))


# English, en-9: hyphenated international numbers, OPC UA node ids, zone abbreviations

ZONE_ABBREVIATIONS = {"CET": "Central European Time", "EST": "Eastern Standard Time"}
ZONE_ABBREVIATIONS |= {"PDT": "Pacific Daylight Time", "BJT": "Beijing Time", "CST": "C S T"}


@st.composite
def connections(draw) -> Form:
    """An international number with hyphens (`+1-555-010-9999`), an OPC UA node id
    (`ns=2;s=Line1.Pump3`, `ns=3;i=1001`), a time and a zone's abbreviation (`14:05 CET`), a
    host name (`plc.plant.local`) or a semantic version (`2.0.0-rc.1`, `1.2.3+build.5`).
    Parts: (kind, what the kind needs)."""
    kind = draw(st.sampled_from(["phone", "node", "zone", "host", "semver"]))
    if kind == "host":
        labels = draw(st.lists(st.sampled_from(["plc", "plant", "hmi", "scada", "gw"]), min_size=1))
        domain = draw(st.sampled_from(["local", "lan", "corp"]))
        return Form(".".join([*labels[:3], domain]), (kind, (*labels[:3], domain)))
    if kind == "semver":
        core = draw(st.tuples(*[st.integers(0, 20)] * 3))
        pre = draw(st.sampled_from([None, ("rc", 1), ("beta", 4), ("alpha", 2)]))
        build = draw(st.sampled_from([None, ("build", 5), ("build", 17)]))
        assume(pre or build)
        written = "v" * draw(st.booleans()) + ".".join(map(str, core))
        written += f"-{pre[0]}.{pre[1]}" if pre else ""
        written += f"+{build[0]}.{build[1]}" if build else ""
        return Form(written, (kind, (core, pre, build)))
    if kind == "phone":
        code = str(draw(st.integers(1, 999)))
        groups = draw(
            st.lists(st.text("0123456789", min_size=3, max_size=4), min_size=2, max_size=4)
        )
        return Form(f"+{code}-" + "-".join(groups), (kind, (code, *groups)))
    if kind == "node":
        namespace, numeric = draw(st.integers(0, 99)), draw(st.booleans())
        if numeric:
            node = str(draw(st.integers(1, 99999)))
            return Form(f"ns={namespace};i={node}", (kind, (namespace, "i", node)))
        words = draw(
            st.lists(st.sampled_from(["Line", "Pump", "Tank", "Temp"]), min_size=1, max_size=3)
        )
        return Form(f"ns={namespace};s=" + ".".join(words), (kind, (namespace, "s", words)))
    h, mi = draw(st.integers(0, 23)), draw(st.integers(0, 59))
    zone = draw(st.sampled_from(sorted(ZONE_ABBREVIATIONS)))
    time = ("24", f"{h:02d}", mi, None, None, False)
    return Form(f"{h:02d}:{mi:02d} {zone}", (kind, (time, ZONE_ABBREVIATIONS[zone])))


# --- units in capitals or small letters (en-9) --------------------------------------------------

# Terms whose spelling in capitals and in small letters is no other unit's as written, or
# stands for them first (MPA is megapascals, MA milliamps, NM3 normal cubic meters).
CASED_ABOVE = (
    *(("k", "Pa", 1), ("M", "Pa", 1), ("", "Pa", 1), ("m", "A", 1), ("k", "A", 1)),
    *(("k", "V", 1), ("k", "W", 1), ("M", "W", 1), ("k", "Wh", 1), ("M", "Wh", 1)),
    *(("", "Hz", 1), ("k", "Hz", 1), ("m", "m", 1), ("c", "m", 1), ("k", "m", 1)),
    *(("", "m", 3), ("m", "m", 2), ("k", "g", 1), ("m", "g", 1), ("", "min", 1)),
    *(("", "bar", 1), ("m", "bar", 1), ("", "barg", 1), ("", "bara", 1), ("k", "J", 1)),
    *(("k", "N", 1), ("m", "s", 1), ("k", "var", 1)),
)
# Only in capitals: in small letters these are another unit as written (nm3, nanometers).
CASED_UPPER_ONLY = (("", "Nm3", 1),)
CASED_BELOW = (("", "h", 1), ("", "min", 1), ("", "s", 1), ("", "l", 1))


@st.composite
def cased_units(draw) -> Form:
    """A number and a unit spelled all in capitals or all in small letters, written on or
    after a space: `12.5BARG`, `0.8 MPA`, `4.2 M3/H`, `5.5 kw`, `120 NM3/H`. Parts: (amount,
    terms above, terms below)."""
    upper = draw(st.booleans())
    term = draw(st.sampled_from(CASED_ABOVE + (CASED_UPPER_ONLY if upper else ())))
    below = draw(st.lists(st.sampled_from(CASED_BELOW), max_size=1))
    written = "".join([term[0], term[1], str(term[2]) if term[2] > 1 else ""])
    written += "".join(f"/{p}{b}" for p, b, _ in below)
    amount = draw(st.sampled_from(["1", "2", "0.8", "12.5", "45", "1500", "101.3"]))
    space = draw(st.sampled_from(["", " "]))
    spelled = written.upper() if upper else written.lower()
    return Form(amount + space + spelled, (amount, [term], below))
