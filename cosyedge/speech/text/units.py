"""Units after a number, said in English: `32.9 A` → "thirty two point nine amps", `1 bar` →
"one bar", `5 kvar·h` → "five kilovar hours", `2.5 m/s²` → "two point five meters per second
squared".

A unit is read from its parts (text/symbols.py): the prefix's word joined to the base's
(kilo + watt), square and cubic before a length, squared and cubed after other units; in a
product every term but the last is singular, the last one plural unless the number is one
(`ft·lbf` → "foot pounds force"); below a quotient sign, "per" and the singular. A lone
letter (A, V, W, m, s, h, l) is a unit only at the end of a clause, so `pump 3 A failed`
keeps its letter.
"""

from __future__ import annotations

import re

from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.symbols import Grammar, Term, Unit
from cosyedge.speech.text.words import is_one, number

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
}
# Where the prefix and the unit run together as one word.
_JOINED = {("k", "Ω"): "kil", ("M", "Ω"): "meg"}
# The lone letters that are units at the end of a clause; g, N, J, written alone, are not.
# A kelvin is one anywhere, but only apart from its number (300 K; 5K is five thousand).
LETTERS = frozenset("AVWmshlLK")
# A lone V, A or W before the kind of current is a unit anywhere (24V DC, 230 V AC).
_CURRENT_AHEAD = re.compile(r"\s?(?:AC|DC)\b")
GRAMMAR = Grammar.of(w for w in WORDS if w != "in")
_NUM = r"(?:\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?"
UNIT = re.compile(rf"(?<![\w.])(?<!\d,)({_NUM})\s?({GRAMMAR.pattern()})(?![\w/²³^])")
# A unit right after a number (or after a range, a pair): "a unit follows here".
UNIT_AHEAD = re.compile(rf"\s?(?:{GRAMMAR.pattern()})(?![\w/²³^])")
_CLAUSE_END = re.compile(r"\s*(?:[,.;:!?)]|$)")
_LONE = re.compile("°C|°F|%|°|\u2030")


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
    written, symbol = m.groups()
    unit = GRAMMAR.parse(symbol)
    if unit is None or (unit.lone_letter and symbol not in LETTERS):
        return m.group(0)
    # A small letter written onto its number is its unit anywhere (3m high, 5s then).
    glued = symbol.islower() and m.group(0) == written + symbol
    if symbol == "K" and m.group(0) == written + symbol:
        return m.group(0)  # 5K: a number and a letter (thousand), not kelvin
    # Kelvin apart from its number (300 K), a lone V, A or W before AC or DC: units anywhere.
    kelvin = symbol == "K"
    current = symbol in "VAW" and _CURRENT_AHEAD.match(m.string, m.end())
    ends = _CLAUSE_END.match(m.string, m.end())
    if unit.lone_letter and not (glued or kelvin or current or ends):
        return m.group(0)  # pump 3 A failed: a letter, not amps; 3m high is meters
    return f"{number(written)} {unit_words(unit, not is_one(written))}"


def _lone(m: re.Match[str]) -> str:
    return " " + WORDS[m.group(0)][1] + " "


RULES = (
    Rule("unit", UNIT, _with_unit),
    Rule("unit", _LONE, _lone),
)
