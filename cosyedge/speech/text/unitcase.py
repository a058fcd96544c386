"""Unit symbols written all in capitals or all in small letters, after a number (en-9).

SCADA systems print units in capitals (`12.5BARG`, `101.3KPA`, `45 DEGC`, `4.2 M3/H`, `20
MA`, `24 VDC`, `1500RPM`, the micro sign too: `2500 µS/CM` with a capital mu) and lower-cased
alerts carry them in small letters (`5.5 kw`, `400 v`, `32.9 a`): after a number, a token
that is wholly such a spelling of a unit, written onto the number or parted by a space, is
written as the unit (`12.5 barg`, `45 °C`, `4.2 m3/h`, `5.5 kW`), for the unit rules to say.
Only a whole token: `DEGC` in `45 DEGC` is degrees Celsius, in `45 DEGCX` nothing.

Capitals or small letters that are a unit as written keep it (`3 MW`, `11 MV`, `2 nm`, `5
ms`), but for a capital S below the line. Otherwise, where one spelling stands for two units,
the one a plant measures is meant: a capital M is mega for pressure and resistance (`MPA`:
a plant has megapascals, hardly millipascals) and milli elsewhere (`MA` → mA, `MBAR` →
mbar, `MG/L` → mg/L); `NM3` is normal cubic meters, `KB` kilobytes; an S is a second (a
plant divides by time: `MW/S`), but a second per centimeter is no unit: `µs/cm`, `MS/CM`
are siemens, the conductivity.

A small a, v or w is the article or a word's letter as often as a unit: it is amps, volts or
watts only where the capital letter would be (at the end of a clause, or before another
value: `load 5.5 kw, 400 v, 11 a`). A capital C, F or K written onto a number is a
temperature after a word that says one is measured (`T=45.2C`, `Temp 98.6F`), a K kelvin
after one that says a difference of temperatures is (`dT=3.5K`, said in kelvin); elsewhere
it is a label's letter (`3F`) or a thousand (`5K`, `T 300K`: kelvin is written apart). What
a plant takes the temperature of is such a word too (`Oil 60C`, `COOLANT 95C`, en-12).

A lone capital M or T is meters after a word of length (`LEVEL 2.5 M`, `Depth 3M`) and
tonnes after one of weight (`WEIGHT 5 T`, `Load 12T`, en-12), as the small letters are;
elsewhere a label's letter (`Tank 12 M`) or a million (`1.2M USD`).

A supply written with its kind before its value (`DC24V`, `AC380V`, `dc 24 V`, en-11) is
the value, then its kind: "twenty four volts DC", as `24V DC` is read.

Degrees written with a word or a small o (`85 degC`, `85 deg F`, `85 oC`, `85 degrees C`)
are degrees Celsius or Fahrenheit in any case (en-10).
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text import units
from cosyedge.speech.text.plant import ORDER_NUMBER
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.symbols import Term

# Capital M is mega for these bases (see the docstring), milli for the others.
_MEGA = frozenset({"W", "Pa", "Ω"})
# Second choices where a folded spelling stands for two bases: siemens, bits, nanometers.
_SECOND = frozenset({("", "S"), ("k", "S"), ("m", "S"), ("µ", "S"), ("μ", "S"), ("n", "m")})
_SECOND |= {(p, "b") for p in ("", "k", "M", "G")}
# Spellings plants print that are no symbol's case: degrees, the kind of current.
_ALIASES = {"DEGC": "°C", "DEG C": "°C", "DEGF": "°F", "DEG F": "°F", "DEG": "°"}
_ALIASES |= {"VDC": "V DC", "VAC": "V AC", "KVDC": "kV DC", "KVAC": "kV AC", "MVDC": "mV DC"}
# Microsiemens per centimeter in capitals with a U for the micro sign: below a centimeter's
# line no country is meant (en-12).
_ALIASES |= {"US/CM": "µS/cm"}
# A micro sign's capital is the Greek capital mu (U+039C); `u` for micro is left out in
# capitals (`5 US` may be a country).
_LONE_SMALL = frozenset("avw")


def _rank(written: str, term: Term) -> tuple[bool, bool, str]:
    """Earlier is preferred among the units one folded spelling stands for."""
    wrong_scale = term.prefix in "Mm" and (term.prefix == "M") != (term.base in _MEGA)
    return wrong_scale, (term.prefix, term.base) in _SECOND, written


def _folded(terms: dict[str, Term]) -> dict[str, str]:
    """Each term's spelling in capitals → the term as written, the preferred one for a
    spelling that stands for several."""
    chosen: dict[str, str] = {}
    for written, term in sorted(terms.items(), key=lambda item: _rank(*item), reverse=True):
        if not term.prefix.startswith("u"):
            chosen[written.upper()] = written
    return chosen


_ABOVE = _folded(units.GRAMMAR.above)
_BELOW = _folded(units.GRAMMAR.below)
# A number as the unit rules read one: grouped thousands, a decimal point or comma.
_NUM = r"[-+]?(?:\d+(?:,\d{3})*(?:\.\d+)?|\d+,\d{1,2}(?!\d)|\.\d+)"
# After a number that is no tag's (P-20 MA), clock's (14:00 HRS) or longer number's part.
_UNIT_CASE = rx.compile(
    rf"(?<![\w.:#])(?<!\d,)(?<![A-Za-z]-)({_NUM})(\s?)"
    "((?:DEG [CF])|[A-Z\u039c][A-Z0-9\u039c]*(?:/[A-Z][A-Z0-9]*)?"
    "|[a-z\u00b5\u03bc][a-z0-9\u00b5\u03bc]*(?:/[a-z][a-z0-9]*)?)"
    r"(?![\w/²³^'-]|\.\w)"
)
# What a plant takes the temperature of, in any case (`Oil 60C`, en-12).
_HEATED = "(?i:oil|coolant|water|ambient|exhaust|flue|steam)"
# A lone capital M or T after a word of length or of weight (en-12): meters, tonnes, as
# their small letters would be (`LEVEL 2.5 M`, `WEIGHT 5 T`); elsewhere a label's letter.
_CUED_LETTER = rx.compile(
    r"(\b(?i:(level|height|depth|distance|length|elevation)|weight|load|mass)(?:\s*[:=]\s*|\s+))"
    r"([-+]?\d+(?:\.\d+)?)(\s?)([MT])(?![\w°/])"
)
_TEMPERATURE = rx.compile(
    rf"(\b(?:[Tt]emp(?:erature)?|TEMP(?:ERATURE)?|T|TT|TI|TE|{_HEATED})(?:\s*[:=]\s*|\s+))"
    r"([-+]?\d+(?:\.\d+)?)([CF])(?![\w°])"
    r"|(\b(?:dT|ΔT|delta T)(?:\s*[:=]\s*|\s+))([-+]?\d+(?:\.\d+)?)(K)(?![\w°])"
)
# A third group or later of a token joined by hyphens or colons (a field: MAC address, date,
# serial), or a group after a code's letters, looked for in the few characters before a
# number; `4-20 MA` is a range's end. After a radix (16#0DB) the digits are the number's.
_FIELD_GROUP = rx.compile(r"\w[-:]\w+[-:]$|[A-Za-z]\w*-$")  # or a code's (1AA0-0HR)
_BEHIND = 24
# After a lone small letter: the end of its clause, or another value with its unit.
_CLAUSE_END_OR_VALUE = rx.compile(rf"\s*(?:[,.;:!?)]|$)|\s*/?\s*{_NUM}\s?[A-Za-z%°]")
_DEGREES = {"C": "°C", "F": "°F", "K": " K"}


def written_unit(token: str) -> str | None:
    """The unit `token` spells in capitals or small letters (`"KPAG"` → `"kPag"`, `"M3/H"` →
    `"m3/h"`, `"\u039cS/CM"` → `"µS/cm"`), or None where it spells none or is one as written."""
    if token in _ALIASES:
        return _ALIASES[token]
    top, _, bottom = token.partition("/")
    # A unit as written is its own (5 mm, 3 MW, 11 MV, g/nm), but a capital S below the line
    # is a second: a plant divides by time, not siemens (MW/S: megawatts per second).
    above = top if top in units.GRAMMAR.above else _ABOVE.get(top.upper())
    below = _BELOW.get(bottom.upper()) if bottom else ""
    if bottom in units.GRAMMAR.below and bottom != "S":
        below = bottom
    if above is None or below is None:
        return None
    if below == "cm" and above.endswith("s"):
        return above[:-1] + "S/cm"  # conductivity: a second per centimeter is no unit
    written = above + (f"/{below}" if below else "")
    return None if written == token else written


def _cued_letter(m: re.Match[str]) -> str:
    """Meters after a word of length, tonnes after one of weight; the other letter left."""
    cue, length, amount, _, letter = m.groups()
    if (letter == "M") != bool(length):
        return m.group(0)
    return f"{cue}{amount}{letter.lower()}"  # written onto it: a unit mid-clause too


def _temperature(m: re.Match[str]) -> str:
    """The cue, the number and the degrees (or kelvin) its letter stands for."""
    cue, amount, letter = m.group(1, 2, 3) if m[1] is not None else m.group(4, 5, 6)
    return f"{cue}{amount}{_DEGREES[letter]}"


def _unit_case(m: re.Match[str]) -> str:
    """The number and the unit its token spells; a small a, v or w only where its capital
    would be a unit; anything else as written."""
    amount, space, token = m.groups()
    if _FIELD_GROUP.search(m.string, max(0, m.start() - _BEHIND), m.start()):
        return m.group(0)  # 00-11-22-33-44-db: a MAC address's or a date's group, no value
    if _in_order_number(m):
        return m.group(0)  # 1AA0 000-0HR: an order number's last group, not hours
    if token in _LONE_SMALL:
        return f"{amount} {token.upper()}" if space and _unit_ahead(m) else m.group(0)
    if len(token) == 1:
        return m.group(0)  # 3F, 12 B: a label's letter, read by the letter rules
    written = written_unit(token)
    return m.group(0) if written is None else f"{amount} {written}"


def _in_order_number(m: re.Match[str]) -> bool:
    """Whether the match lies inside an order number (`6ES7 214-1AG40-0XB0`)."""
    start = max(0, m.start() - _BEHIND)
    found = ORDER_NUMBER.search(m.string, start, min(len(m.string), m.end() + _BEHIND))
    return found is not None and found.start() <= m.start() and found.end() >= m.end()


def _unit_ahead(m: re.Match[str]) -> bool:
    """Whether a lone letter here ends its clause or stands before another value."""
    return bool(_CLAUSE_END_OR_VALUE.match(m.string, m.end()))


# Degrees written with a word or a small o for the sign, in any case (`85 degC`, `85 deg F`,
# `85 oC`, `85 degrees C`, en-10): the degree sign, for the unit rules. The scale's letter
# is a capital, so `5 of` stays a word.
_DEGREE_WORD = rx.compile(
    rf"(?<![\w.:#])(?<!\d,)({_NUM})\s?(?:(?i:deg(?:rees?)?)\.?\s?|o)([CF])(?![\w°])"
)

# A diameter sign before a number (`Ø50 mm`, the sign U+2300 too): said (en-9).
_DIAMETER = rx.compile("(?<!\\w)[\u00d8\u00f8\u2300]\\s?(?=\\.?\\d)")

SUPPLY = rx.compile(r"(?<![\w.-])(AC|DC|ac|dc)\s?(\d+(?:\.\d+)?)\s?([kKmM]?[Vv])(?![\w/])")


def _supply(m: re.Match[str]) -> str:
    volts = m[3][:-1].replace("K", "k") + "V"
    return f"{m[2]}{volts} {m[1].upper()}"


RULES = (
    Rule("unit", SUPPLY, _supply),
    Rule("diameter", _DIAMETER, lambda m: "diameter "),
    Rule("unit", _TEMPERATURE, _temperature),
    Rule("unit", _CUED_LETTER, _cued_letter),
    Rule("unit", _DEGREE_WORD, lambda m: f"{m[1]} °{m[2]}"),
    Rule("unit", _UNIT_CASE, _unit_case),
)
"""Read first: every later rule sees the unit as written in its own case."""
