"""Units after a number, said in English: `32.9 A` → "thirty two point nine amps", `1 bar` →
"one bar", `5 kvar·h` → "five kilovar hours", `2.5 m/s²` → "two point five meters per second
squared".

A unit is read from its parts (text/symbols.py): the prefix's word joined to the base's
(kilo + watt), square and cubic before a length, squared and cubed after other units; in a
product every term but the last is singular, the last one plural unless the number is one
(`ft·lbf` → "foot pounds force"); below a quotient sign, "per" and the singular. A lone
letter (A, V, W, m, s, h, l) is a unit only at the end of a clause, so `pump 3 A failed`
keeps its letter; an A, V or W is one anywhere after a measured value (a decimal, or after a
word of current, voltage or power) and none after an equipment's number (`Tank 12 A`, en-9).
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.equipment import EQUIPMENT_NOUNS
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.symbols import Grammar, Term, Unit
from cosyedge.speech.text.words import cardinal, count, is_one, number

PREFIX_WORDS = {"p": "pico", "n": "nano", "µ": "micro", "μ": "micro", "u": "micro", "m": "milli"}
PREFIX_WORDS |= {"c": "centi", "h": "hecto", "k": "kilo", "M": "mega", "G": "giga", "T": "tera"}
# Base symbol → (singular, plural).
WORDS = {
    "m": ("meter", "meters"),
    "ft": ("foot", "feet"),
    "in": ("inch", "inches"),  # said after a fraction only (plant.py): `in` is a word
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
    "bar": ("bar", "bar"),
    "barg": ("bar gauge", "bar gauge"),
    "Hz": ("hertz", "hertz"),
    "Ω": ("ohm", "ohms"),
    "J": ("joule", "joules"),
    "N": ("newton", "newtons"),
    "Nm": ("newton meter", "newton meters"),
    "l": ("liter", "liters"),
    "L": ("liter", "liters"),
    "lb": ("pound", "pounds"),
    "lbf": ("pound force", "pounds force"),
    "°C": ("degree Celsius", "degrees Celsius"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
    "°": ("degree", "degrees"),
    "dB": ("decibel", "decibels"),
    "psi": ("P S I", "P S I"),
    "rpm": ("R P M", "R P M"),
    "ppm": ("part per million", "parts per million"),
    "ppb": ("part per billion", "parts per billion"),
    "Nm3": ("normal cubic meter", "normal cubic meters"),
    "t": ("tonne", "tonnes"),
    "bar(g)": ("bar gauge", "bar gauge"),
    "bara": ("bar absolute", "bar absolute"),
    "bar(a)": ("bar absolute", "bar absolute"),
    # Plant units in other spellings and of other trades (en-6).
    "hr": ("hour", "hours"),
    "d": ("day", "days"),  # below a quotient sign (t/d); alone a letter
    "Sm3": ("standard cubic meter", "standard cubic meters"),
    "psig": ("P S I gauge", "P S I gauge"),
    "psia": ("P S I absolute", "P S I absolute"),
    "gpm": ("gallon per minute", "gallons per minute"),
    "scfm": ("standard cubic foot per minute", "standard cubic feet per minute"),
    "inHg": ("inch of mercury", "inches of mercury"),
    "inH2O": ("inch of water", "inches of water"),
    "mph": ("mile per hour", "miles per hour"),
    "K": ("kelvin", "kelvin"),  # with a space after its number (5K is five thousand)
    "F": ("farad", "farads"),  # with a prefix (47 pF); alone a letter
    "B": ("byte", "bytes"),  # with a prefix (2 TB); alone a letter
    "dBm": ("D B M", "D B M"),
    "%": ("percent", "percent"),
    "%RH": ("percent relative humidity", "percent relative humidity"),
    "\u2030": ("per mille", "per mille"),
    # Water, radiation, noise, light, heat, data and other trades' units (en-9).
    "S": ("siemens", "siemens"),  # with a prefix (µS/cm); alone a letter
    "Sv": ("sievert", "sieverts"),
    "dBA": ("decibel A-weighted", "decibels A-weighted"),
    "dB(A)": ("decibel A-weighted", "decibels A-weighted"),
    "lx": ("lux", "lux"),
    "BTU": ("B T U", "B T U"),
    "b": ("bit", "bits"),  # with a prefix (Mb/s); alone a letter
    "bps": ("bit per second", "bits per second"),
    "Pag": ("pascal gauge", "pascals gauge"),
    "Pa(g)": ("pascal gauge", "pascals gauge"),
    "Paa": ("pascal absolute", "pascals absolute"),
    "Pa(a)": ("pascal absolute", "pascals absolute"),
    "mmHg": ("millimeter of mercury", "millimeters of mercury"),
    "mmH2O": ("millimeter of water", "millimeters of water"),
    "GPM": ("gallon per minute", "gallons per minute"),
    "SCFM": ("standard cubic foot per minute", "standard cubic feet per minute"),
    "gal": ("gallon", "gallons"),
    "atm": ("atmosphere", "atmospheres"),
    "hp": ("horsepower", "horsepower"),
    "HP": ("horsepower", "horsepower"),
    "VAr": ("var", "vars"),
    "cSt": ("centistoke", "centistokes"),
    "hrs": ("hour", "hours"),
    "mins": ("minute", "minutes"),
    "sec": ("second", "seconds"),
    "secs": ("second", "seconds"),
    "%vol": ("percent by volume", "percent by volume"),
    "\u03b5": ("strain", "strain"),  # with a prefix (µε, en-9); alone a letter
    "%FS": ("percent of full scale", "percent of full scale"),
    "rad": ("radian", "radians"),
}
# Where the prefix and the unit run together as one word.
_JOINED = {("k", "Ω"): "kil", ("M", "Ω"): "meg", ("G", "Ω"): "gig"}
# The lone letters that are units at the end of a clause; g, N, J, written alone, are not
# (but N and J written onto a decimal are, en-11: `126.6N`, `220.5J`). A kelvin is one
# anywhere, but only apart from its number (300 K; 5K is five thousand) or written onto a
# decimal that counts no thousands (0.665K, en-12); an ohm anywhere (no plant labels a thing
# Ω); a tonne at the end of a clause (`Weight 5 t`, en-11).
LETTERS = frozenset("AVWmshlLKtΩ")
_ON_A_DECIMAL = frozenset("NJ")
# A lone V, A or W before the kind of current is a unit anywhere (24V DC, 230 V AC).
_CURRENT_AHEAD = rx.compile(r"\s?(?:AC|DC)\b")
GRAMMAR = Grammar.of(w for w in WORDS if w != "in")
_NUM = r"(?:\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?"
# A slash after a unit before another value parts two values, said (`5 mm/10 mm` → "five
# millimeters slash ten millimeters", `8 A/10 A`, en-9); before a unit it is the quotient's.
UNIT = rx.compile(
    rf"(?<![\w.])(?<!\d,)({_NUM})\s?({GRAMMAR.pattern()})"
    r"(?:(/)(?=\s?[-+]?\.?\d)|(?![\w/²³^]))"
)
# A unit right after a number (or after a range, a pair): "a unit follows here".
UNIT_AHEAD = rx.compile(rf"\s?(?:{GRAMMAR.pattern()})(?![\w/²³^])")
# A bracket or a comparison sign after a value ends its clause as a comma does (en-11): `Level
# 1.2 m (45 %)`, `57.1 m > 67 Hz`.
# The comparison signs are words by then (english.py reads them first).
_CLAUSE_END = rx.compile(
    r"\s*(?:[,.;:!?()\[\]<>=]|$)|\s+(?:(?:greater|less) than|at (?:most|least)|not equal to)\b"
)
# Another value with its unit after a lone letter (`400 V 50 Hz`, `5.5kW / 400 V / 11 A`,
# `400V three phase 50Hz`): values in a row, so the letter is their unit (en-9).
_VALUE_AHEAD = rx.compile(
    rf"\s*/?\s*(?:(?:three|single) phase\s+)?[-+]?{_NUM}\s?(?:{GRAMMAR.pattern()})(?![\w/²³^])"
)
# ... or before it (`400 V 50 Hz 2 A`), looked for in the few characters a value takes.
_VALUE_BEHIND = rx.compile(rf"(?<![\w.]){_NUM}\s?(?:{GRAMMAR.pattern()})(?:\s*/\s*|\s+)$")
_BEHIND = 24


def _in_a_row(m: re.Match[str]) -> bool:
    """Whether a value with its unit stands right after or right before the match."""
    if _VALUE_AHEAD.match(m.string, m.end()):
        return True
    return bool(_VALUE_BEHIND.search(m.string, max(0, m.start() - _BEHIND), m.start()))


# A capital A written onto a whole number at the end of a clause is amps only after a word
# of electric current (`Current 4A.`, `fuse 10A.`) or among values; else it is a label's
# letter, as a gate, a cabinet or a standard is numbered (`gate 4A.`, `UL 508A.`, en-9). A
# decimal is a measurement (`12.5A.`).
_CURRENT_BEHIND = rx.compile(
    r"\b(?i:current|amps?|amperage|load|draw|fuses?|breaker|mcb|rated|rating|overcurrent|"
    r"overload|trip|phase|I[123]?|L[123])\b[^.;!?\d]{0,12}$"
)
# ... or among current values: an amps value earlier in the sentence (`Current 18.4A, limit
# 15A`, en-11).
_AMPS_BEHIND = rx.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?A\b[^.;!?]*$")
_LONE = rx.compile("°C|°F|%|°|\u2030")
# (en-9) A measured value before a lone A, V or W makes it the unit anywhere in a sentence
# (`Current 18.4 A on phase L1`, `Battery 11.2 V low`): a decimal, or a number a few
# characters after a word of current, voltage or power (not a fuse's or a breaker's: `Fuse
# 5A blown` may name the fuse).
_MEASURED_BEHIND = rx.compile(
    r"\b(?i:current|amps?|amperage|draw(?:ing)?|load|overcurrent|overload|voltage|volts?|"
    r"supply|battery|power|watts?|consumption)\b[^.;!?\d]{0,12}$"
)
# ... and an integer right after a word naming a plant's equipment, or after a designation's
# capitals (`P 101 A`), is that equipment's number: the letter is its label, at the end of a
# clause too (`Tank 12 A` → "tank twelve A", not twelve amps). A value's cue (PV, SP) or a
# short word of a text in capitals (AT, ON) is no designation.
_EQUIPMENT_BEHIND = rx.compile(
    rf"(?:\b(?i:{EQUIPMENT_NOUNS})"
    r"|(?<![\w-])(?!(?:PV|SP|OP|CV|MV|AT|ON|IN|OF|TO|IS|BY|OR|AND|THE)\s)[A-Z]{1,3})\s+$"
)


def term_words(term: Term, plural: bool) -> str:
    """`km²` → "square kilometer(s)", `s²` → "second(s) squared"."""
    word = WORDS[term.base][1 if plural else 0]
    prefix = _JOINED.get((term.prefix, term.base)) or PREFIX_WORDS.get(term.prefix, "")
    word = prefix + word
    if term.power == 1:
        return word
    if term.is_length:
        return ("square " if term.power == 2 else "cubic ") + word
    return word + (" squared" if term.power == 2 else " cubed")


def unit_words(unit: Unit, plural: bool) -> str:
    """The unit's words after a number: every term above the line singular but the last."""
    last = len(unit.above) - 1
    words = [term_words(t, plural and i == last) for i, t in enumerate(unit.above)]
    words += ["per " + term_words(t, False) for t in unit.below]
    return " ".join(words)


def _with_unit(m: re.Match[str]) -> str:
    written, symbol, slash = m.groups()
    unit = GRAMMAR.parse(symbol)
    onto_decimal = "." in written and m.group(0) == written + symbol and symbol in _ON_A_DECIMAL
    if unit is None or (unit.lone_letter and symbol not in LETTERS and not onto_decimal):
        return m.group(0)
    # A small letter written onto its number is its unit anywhere (3m high, 5s then).
    glued = symbol.islower() and m.group(0) == written + symbol
    if symbol == "K" and m.group(0) == written + symbol and not _kelvin_onto(written):
        return m.group(0)  # 5K: a number and a letter (thousand), not kelvin
    # Kelvin apart from its number (300 K), a lone V, A or W before AC or DC: units anywhere.
    kelvin = symbol in ("K", "Ω") or onto_decimal
    current = symbol in "VAW" and _CURRENT_AHEAD.match(m.string, m.end())
    ends = _CLAUSE_END.match(m.string, m.end())
    # A volt or watt written onto its number is a unit anywhere (12V, 100W lamp): no plant
    # labels a thing that way; an A may (Pump 2A), so it needs a value after it.
    rating = symbol in "VW" and m.group(0) == written + symbol
    values = unit.lone_letter and _in_a_row(m)
    if ends and symbol == "A" and written.isdigit() and m.group(0) == written + symbol:
        ends = _CURRENT_BEHIND.search(m.string, max(0, m.start() - _BEHIND), m.start()) or (
            _AMPS_BEHIND.search(m.string, max(0, m.start() - 3 * _BEHIND), m.start())
        )
    if symbol in "AVW" and unit.lone_letter and not (current or values or rating):
        measured = _measured(m, written)
        if measured is not None:
            return _said(written, unit) + (" slash " if slash else "") if measured else m.group(0)
    if unit.lone_letter and not (glued or kelvin or current or ends or rating or values):
        return m.group(0)  # pump 3 A failed: a letter, not amps; 3m high is meters
    return _said(written, unit) + (" slash " if slash else "")


def _kelvin_onto(written: str) -> bool:
    """Whether a K written onto `written` is kelvin (en-12): a decimal below one or with three
    decimals or more (`0.665K`, `1.234K`) counts no thousands; `1.5K`, `5K` do."""
    whole, _, decimals = written.lstrip("+-").partition(".")
    return bool(decimals) and (int(whole or "0") == 0 or len(decimals) >= 3)


def _said(written: str, unit: Unit) -> str:
    """The number and its unit's words, plural unless the number is one."""
    return f"{number(written)} {unit_words(unit, not is_one(written))}"


def _measured(m: re.Match[str], written: str) -> bool | None:
    """Whether a lone A, V or W after `written` is its unit because the number is a measured
    value (True: a decimal, or after a word of current, voltage or power) or a label because
    it numbers a piece of equipment (False: `Tank 12 A`); None where neither says."""
    before = max(0, m.start() - _BEHIND)
    if "." in written or _MEASURED_BEHIND.search(m.string, before, m.start()):
        return True
    if written.isdigit() and _EQUIPMENT_BEHIND.search(m.string, before, m.start()):
        return False
    return None


def _lone(m: re.Match[str]) -> str:
    return " " + WORDS[m.group(0)][1] + " "


# A unit after a slash written onto a value or after "per", no unit above it (`3520 /m³`,
# `10,000 per ft³`, en-9): "per cubic meter". A lone letter without a power stays a letter.
PER_ALONE = rx.compile(rf"(?:(?<=\d)\s?/\s?|(?<![\w/])per\s+)({GRAMMAR.pattern()})(?![\w/²³^])")


def _per_alone(m: re.Match[str]) -> str:
    unit = GRAMMAR.parse(m[1])
    if unit is None or unit.below or (unit.lone_letter and unit.above[0].power == 1):
        return m.group(0)
    return " per " + unit_words(unit, False)


# A unit after a bracket closing a value's tolerance (`12.5 (+0.1/-0.2) mm`, en-9) is the
# value's: said after the bracket. A lone letter there may be a label, left.
AFTER_TOLERANCE = rx.compile(rf"(?<=\d\))(\s?)({GRAMMAR.pattern()})(?![\w/²³^])")


def _after_tolerance(m: re.Match[str]) -> str:
    unit = GRAMMAR.parse(m[2])
    if unit is None or unit.lone_letter:
        return m.group(0)
    return f" {unit_words(unit, True)}"


# What an HMI writes for a missing value (`--`, `###`, `NaN`, `N/A`), before a unit or after a
# colon or an equals sign: "no value", its unit not said (en-11; `Level ### %` was "hashtag
# hashtag hashtag percent", `-- bar` "bar"). Elsewhere (`Alarm -- pump 3`) a dash, a word.
PLACEHOLDER = rx.compile(
    r"(?<![\w#/-])(?:-{2,}|#{2,}|NaN|nan|NAN|N/A|n/a)"
    rf"(\s?(?:{GRAMMAR.pattern()})(?![\w/²³^]))?(?![\w#/-])"
)
_VALUE_SIGN_BEFORE = rx.compile(r"[:=]\s*$")


def _placeholder(m: re.Match[str]) -> str:
    """ "no value" after a colon or an equals sign, or before a unit that is no lone letter (`--
    A side`: a dash and a letter)."""
    if _VALUE_SIGN_BEFORE.search(m.string[max(0, m.start() - 4) : m.start()]):
        return "no value"
    unit = GRAMMAR.parse(m[1].strip()) if m[1] else None
    letter = unit is not None and unit.lone_letter and m[1].strip().isalpha()
    return m.group(0) if unit is None or letter else "no value"


PLACEHOLDERS = (Rule("no value", PLACEHOLDER, _placeholder),)
"""Read before the dashes, hashes and units that would take its parts."""

RULES = (
    Rule("unit", UNIT, _with_unit),
    Rule("unit", AFTER_TOLERANCE, _after_tolerance),
    Rule("unit", PER_ALONE, _per_alone),
    Rule("unit", _LONE, _lone),
)


# --- negative powers (en-7): s⁻¹, kg·m⁻³, 10⁻⁶ mbar -------------------------------------------

# One term written with a power of minus one to three (a caret, as english.py folds the
# superscripts after a unit), the terms above it joined by a product sign, a number before
# them or none: the term is below the line (`kg·m^-3` is `kg/m³`).
_PLAIN_TERMS = sorted((k for k, t in GRAMMAR.above.items() if t.power == 1), key=len, reverse=True)
_TERM = "|".join(re.escape(k) for k in _PLAIN_TERMS)
NEGATIVE_POWER = rx.compile(
    rf"(?<![\w.])(?<!\d,)(?:({_NUM})\s?)?((?:(?:{_TERM})[·⋅*])*)({_TERM})\^-([123])(?![\w^])"
)
_SUPERSCRIPTS = {"1": "", "2": "²", "3": "³"}


def _negative_power(m: re.Match[str]) -> str:
    """`5 s^-1` → "five per second", `1.2 kg·m^-3` → "... kilograms per cubic meter", `m^-1`
    → "per meter"; a term that takes no such power (`bar^-2`) is left as written."""
    written, above, term, power = m.groups()
    below = GRAMMAR.below.get(term + _SUPERSCRIPTS[power])
    top = GRAMMAR.parse(above[:-1]) if above else None
    if below is None or (above and top is None):
        return m.group(0)
    said = f"{number(written)} " if written else ""
    if top is not None:
        said += unit_words(top, written is None or not is_one(written)) + " "
    return said + "per " + term_words(below, False)


# A power of ten and a unit after it: `10^-6 mbar` → "ten to the minus six millibar".
# Not after a times sign (1.2*10^-3 Pa is scientific notation, read with its mantissa).
_TIMES_SIGNS = "\u00d7*\u00b7\u22c5"
POWER_WITH_UNIT = rx.compile(
    rf"(?<![\w.^{_TIMES_SIGNS}])(?<![{_TIMES_SIGNS}] )10\^([-+]?\d+)\s?({GRAMMAR.pattern()})"
    r"(?![\w/²³^])"
)


def _power_with_unit(m: re.Match[str]) -> str:
    """`10^-6 mbar` → "ten to the minus six millibar": the unit plural, as after any power."""
    power, symbol = m.groups()
    unit = GRAMMAR.parse(symbol)
    if unit is None or unit.lone_letter:
        return m.group(0)  # 10^6 A: the letter may be a label, left for the power rule
    sign = "minus " if power.startswith("-") else ""
    return f"ten to the {sign}{count(power.lstrip('+-'))} {unit_words(unit, True)}"


# A negative power left after a letter that is no unit (k⁻¹): said, not dropped.
_LEFT_POWER = rx.compile(r"(?<=[^\W\d_])\^-([123])(?![\d^])")

# A reciprocal time unit after a number written without a superscript (`1480 min-1`, `1480
# 1/min`, `50 s-1`): the negative power it stands for, read by the rule after (en-9).
RECIPROCAL = rx.compile(r"(?<=\d)(\s?)(?:(min|s|h)-1|1/(min|s|h))(?![\w/^-]|\.\d)")

POWERS = (
    Rule("unit", RECIPROCAL, lambda m: f"{m[1]}{m[2] or m[3]}^-1"),
    Rule("unit", NEGATIVE_POWER, _negative_power),
    Rule("scientific notation", POWER_WITH_UNIT, _power_with_unit),
    Rule("power", _LEFT_POWER, lambda m: f" to the minus {cardinal(int(m[1]))}"),
)
"""Read before the signs and the powers: their minus is the power's."""
