"""Unit symbols as plants write them, for both front ends: a prefix (`k`, `m`, `μ`), a base
unit (`W`, `Pa`, `var`), an exponent (`m²`, `m3`), and terms joined by a product sign
(`kvar·h`, `N*m`, `ft-lbf`) or a quotient sign (`m/s²`, `L/min`).

Each front end says a parsed `Unit` in its own words (text/units.py, zh/units.py); this
module only knows how units are written. Only combinations plants write are symbols here:
prefixes that would make a unit of another word (`pm` is the afternoon, `Mg` magnesium,
`kt` knots) are left out.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

# A prefix symbol and the power of ten it stands for (for the record: the words are the
# front ends'). Micro is the micro sign `µ`, the Greek `μ` (NFKC folds the one into the
# other before the rules see it, but not before a phrase is split into languages) or `u`.
PREFIXES = {"p": -12, "n": -9, "µ": -6, "μ": -6, "u": -6, "m": -3, "c": -2, "h": 2, "k": 3, "M": 6}
PREFIXES |= {"G": 9, "T": 12}


@dataclass(frozen=True)
class Base:
    """A base unit as written and the prefixes it is written with. An exponent on a length is
    an area or a volume (`m²`, `ft3`: square, cubic); on other units a power (`s²`); signs
    and symbols of their own (`%`, `°C`, `psi`) take none."""

    symbol: str
    prefixes: str = ""
    powers: str = "power"  # "length", "power" or "none"


_NONE = "none"
BASES = (
    *(
        Base("m", "nµμumck", "length"),
        Base("ft", "", "length"),
        Base("in", "", "length"),
        Base("g", "µμumk"),
    ),
    *(Base("t"), Base("s", "pnµμum"), Base("min"), Base("h"), Base("A", "nµμumk")),
    *(Base("V", "µμumkM"), Base("W", "mkMGT"), Base("Wh", "kMGT"), Base("VA", "kM")),
    *(Base("var", "kM"), Base("varh", "kM"), Base("Ah", "m"), Base("Pa", "mhkMG")),
    *(Base("bar", "m", _NONE), Base("barg", "", _NONE), Base("Hz", "kMG"), Base("Ω", "mkMG")),
    *(Base("J", "kMG"), Base("N", "k"), Base("Nm"), Base("l", "µμumc"), Base("L", "µμumc")),
    *(Base("lb"), Base("lbf"), Base("°C", "", _NONE), Base("°F", "", _NONE)),
    *(Base("°", "", _NONE), Base("dB", "", _NONE), Base("psi", "", _NONE)),
    *(Base("rpm", "", _NONE), Base("ppm", "", _NONE), Base("ppb", "", _NONE)),
    *(Base("%", "", _NONE), Base("%RH", "", _NONE), Base("r/min", "", _NONE)),
    Base("\u2030", "", _NONE),  # per mille
    Base("Nm3", "", _NONE),  # normal cubic metres, of a gas at 0 °C and one atmosphere
    # Gauge and absolute pressure, as plants mark them.
    *(Base("bar(g)", "", _NONE), Base("bara", "", _NONE), Base("bar(a)", "", _NONE)),
    # Other spellings and other trades' units: hours and days below a quotient sign (Nm³/hr,
    # t/d), standard cubic metres, US pressure and flow units, kelvin, farads, bytes.
    *(Base("hr"), Base("d"), Base("Sm3", "", _NONE), Base("psig", "", _NONE)),
    *(Base("psia", "", _NONE), Base("gpm", "", _NONE), Base("scfm", "", _NONE)),
    *(Base("inHg", "", _NONE), Base("inH2O", "", _NONE), Base("mph", "", _NONE)),
    *(Base("K", "", _NONE), Base("F", "pnµμum", _NONE), Base("B", "kMGT", _NONE)),
    Base("dBm", "", _NONE),
    # Water, radiation, noise, light, heat and data units (en-9): siemens for conductivity
    # (µS/cm), sieverts for a dose, A-weighted decibels, lux, British thermal units, bits.
    *(Base("S", "µμumk"), Base("Sv", "nµμum"), Base("dBA", "", _NONE), Base("dB(A)", "", _NONE)),
    *(Base("lx", "k", _NONE), Base("BTU", "", _NONE), Base("b", "kMG", _NONE), Base("bps", "kMG")),
    *(Base("Pag", "kM", _NONE), Base("Pa(g)", "kM", _NONE), Base("Paa", "kM", _NONE)),
    *(Base("Pa(a)", "kM", _NONE), Base("mmHg", "", _NONE), Base("mmH2O", "", _NONE)),
    *(Base("GPM", "", _NONE), Base("SCFM", "", _NONE), Base("gal"), Base("atm", "", _NONE)),
    *(Base("hp", "", _NONE), Base("HP", "", _NONE), Base("VAr", "kM"), Base("cSt", "", _NONE)),
    *(Base("hrs"), Base("mins"), Base("sec"), Base("secs"), Base("%vol", "", _NONE)),
    Base("\u03b5", "µμu", _NONE),  # strain, only with its prefix (µε, en-9)
    Base("%FS", "", _NONE),  # percent of full scale, an instrument's accuracy (en-9)
    Base("rad"),  # radians, of an angle or below a second's line (rad/s, en-12)
)
_BASE = {b.symbol: b for b in BASES}
# Exponents: superscripts on any unit that takes one (NFKC makes them digits before the rules
# see them); digits and a caret on lengths, and on other units only below the line (`m/s2`):
# above it, `A3` is a tag.
_POWERS = {
    "none": {"": 1},
    "power": {"": 1, "²": 2, "³": 3},
    "length": {"": 1, "²": 2, "³": 3, "2": 2, "3": 3, "^2": 2, "^3": 3},
}
PRODUCT_SIGNS = "·⋅*-"


@dataclass(frozen=True)
class Term:
    """One unit of a product: `km²` is Term("k", "m", 2)."""

    prefix: str
    base: str
    power: int = 1

    @property
    def is_length(self) -> bool:
        return _BASE[self.base].powers == "length"


@dataclass(frozen=True)
class Unit:
    """A unit as written: the terms multiplied above the line, and those below it."""

    above: tuple[Term, ...]
    below: tuple[Term, ...] = ()

    @property
    def lone_letter(self) -> bool:
        """One letter alone (`A`, `m`): in English a unit only where a clause ends."""
        if self.below or len(self.above) != 1:
            return False
        term = self.above[0]
        return not term.prefix and term.power == 1 and len(term.base) == 1


def _terms(bases: Iterable[str], below: bool) -> dict[str, Term]:
    """Every term written with these bases: each prefix it takes, each exponent it takes
    above the line, or `below` it."""
    terms = {}
    for symbol in bases:
        base = _BASE[symbol]
        powers = "length" if below and base.powers == "power" else base.powers
        for prefix in ("", *base.prefixes):
            for written, power in _POWERS[powers].items():
                terms[prefix + symbol + written] = Term(prefix, symbol, power)
    return terms


@dataclass(frozen=True)
class Grammar:
    """The units one front end has words for: a pattern for a whole unit (its terms, joined by
    product and quotient signs) and the parse of what it matched."""

    above: dict[str, Term]
    below: dict[str, Term]

    @classmethod
    def of(cls, bases: Iterable[str]) -> Grammar:
        bases = tuple(bases)
        return cls(_terms(bases, below=False), _terms(bases, below=True))

    def pattern(self) -> str:
        """A regular expression (no groups) for one unit, longest terms tried first."""
        return self._pattern

    @functools.cached_property
    def _pattern(self) -> str:
        # Built once a grammar: the reading rules embed it in some twenty patterns, and
        # escaping its thousands of terms each time took 20 ms of every process that reads.
        return rf"{_product(self.above)}(?:/{_product(self.below)})?"

    def parse(self, written: str) -> Unit | None:
        """The unit `written` is (as `pattern` matched it), or None if it is no unit."""
        if written in self.above:  # a symbol of its own, such as r/min
            return Unit((self.above[written],))
        above, _, below = written.partition("/")
        top = _split(above, self.above)
        bottom = _split(below, self.below) if below else []
        if top is None or bottom is None:
            return None
        return Unit(tuple(top), tuple(bottom))


def _product(terms: dict[str, Term]) -> str:
    term = f"(?:{longest_first(terms)})"
    return rf"{term}(?:[{re.escape(PRODUCT_SIGNS)}]{term})*"


def longest_first(words: Iterable[str]) -> str:
    """A pattern (no groups) of any of `words`, the longest that matches tried first, written
    as a trie: `k(?:W(?:h)?|Pa)` for kWh, kW and kPa. It matches as the words joined by `|`
    longest first would (every word that matches at a place is a prefix of the longest one
    there, and the trie tries the longer before the shorter, backtracking the same way), but
    its compiled program is a third smaller: the grammar's thousands of terms, in some twenty
    reading rules, took 4.5 MB of every process's memory written out. Only for patterns read
    case-sensitively: ignoring case, two branches (`M…`, `m…`) can both match, and the one
    tried first wins over a longer word down the other."""
    trie: dict = {}
    for word in sorted(words):
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _branches(trie)


def _branches(node: dict) -> str:
    """The pattern of the words below `node` of a trie (`""` marks a word's end there)."""
    kids = [re.escape(char) + _branches(rest) for char, rest in node.items() if char]
    if not kids:
        return ""
    joined = "|".join(kids)
    if "" in node:  # a word ends here: the longer ones first, then this one
        return f"(?:{joined})?"
    return joined if len(kids) == 1 else f"(?:{joined})"


def _split(written: str, terms: dict[str, Term]) -> list[Term] | None:
    """`written` cut into terms at product signs (a sign may also be part of a term: `°`)."""
    if written in terms:
        return [terms[written]]
    for at, sign in enumerate(written):
        if sign in PRODUCT_SIGNS and written[:at] in terms:
            rest = _split(written[at + 1 :], terms)
            if rest is not None:
                return [terms[written[:at]], *rest]
    return None
