"""Plant designations a general rule took for a decimal, a time, a ratio, a range or a count
(en-9). Each is an identifier or a named quantity, read as one:

- IEC 61131 addresses (`%I0.1`, `%QW4`, `%IX0.1`; `I0.1`, `Q4.7` without the sign, a bit
  number 0 to 7 after the dot) and S7 data block addresses (`DB1.DBD4`, `DB10.DBX2.3`): the
  letters spelled, the numbers digit by digit, "dot" between them, the `%` silent: "I zero
  dot one", never "zero point one".
- Allen-Bradley file addresses (`N7:0`, `B3:0/1`, `T4:0.ACC`, `I:0/1`): "N seven colon
  zero", "B three colon zero slash one", never a ratio or a count "of one".
- Modbus register numbers with their table (`4x0001`, `3x00010`, the number zero-padded, or
  whole, its first digit the table's: `4x40001`, `1x10001`): "four X zero zero zero one",
  not "four times one" (`0x` starts a hexadecimal number).
- Voting of redundant channels (`2oo3`, `1oo2D`): "two out of three", "one out of two D".
- A product code whose last group ends in letters (`S7-1214C`): as a device tag, "S seven
  dash one two one four C", not "one thousand two hundred fourteen C".
- Metric threads with their pitch (`M12x1.5`): "M twelve by one point five".
- A Roman numeral after a word that numbers a plant's parts (`Phase II`, `Unit IV`, `Class
  I Division 2`): its number, "Phase two"; a lone X is a letter (`Unit X offline`, en-11).
- Numbers joined by a hyphen after a word that names a place or a terminal (`Room 3-105`,
  `Contact 13-14`): the place, "Room three dash one oh five", never the range "three to one
  hundred five".
- A date inside an identifier after a word that names one (lot, batch, sample, serial,
  job, order): `Lot No. 2026-11-30-A` → "Lot number two zero two six dash one one dash three
  zero dash eh", not a date and a letter.
- A fraction after a word that names a proportion (`Gain 1/2`, `Level: 3/4`): "one half",
  not the count "one of two"; before a unit or an inch mark it is a size, left for the
  fraction rules.
- A standard's edition after a colon (`ISO 9001:2015`, `IEC 61508-2:2010`): "colon" and the
  year, the number left to the rules after (a hyphenated part as an identifier).
- A ratio with a decimal (`16.5:1`, `1:2.5`) or a second term of three digits or more
  (`1:1000`; not `5:30.5`, minutes and seconds): "to", as no time is written so.
- Nine to fifteen digits after a word that says a value follows (`Value 1000000000`,
  `Counter 4294967295`): a cardinal (an identifier of that length elsewhere stays digit by
  digit); a leading zero keeps the digits.
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text import units
from cosyedge.speech.text.fields import id_word
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import (
    cardinal,
    digits,
    fraction,
    letters,
    number,
    roman_value,
    year,
)

# Neither inside a word, a number or a path, nor after a dot or colon of a longer field.
_START = r"(?<![\w.:/%-])"
_END = r"(?!\w|[:./]\w)"  # a colon after is a heading's (N7:0: check it)
IEC_ADDRESS = rx.compile(rf"{_START}(%)?([IQM])([XBWDL]?)(\d{{1,5}})(?:\.([0-7]))?{_END}")
S7_ADDRESS = rx.compile(rf"{_START}%?DB(\d{{1,5}})\.DB([XBWD])(\d{{1,5}})(?:\.([0-7]))?{_END}")
AB_ADDRESS = rx.compile(
    rf"{_START}(?:([BNFTCRLS]|ST)(\d{{1,3}})|([IO])):(\d{{1,4}})(?:\.(\d{{1,3}}))?"
    rf"(?:/(\d{{1,2}}))?(?:\.([A-Z]{{2,3}}))?{_END}"
)
# The register zero-padded (`4x0001`) or written whole, its first digit the table's
# (`4x40001`, `1x10001`, `4x400001`, en-9); a unit after it makes it a count (`3x30000 W`).
MODBUS = rx.compile(rf"{_START}([134])x(0\d{{3,4}}|\1\d{{4,5}})(?!\w|\.\d)")
VOTING = rx.compile(rf"{_START}([1-9])oo([1-9])(D?)(?!\w)")
# A product code whose last group ends in letters (`S7-1214C`; `S7-1500` is a device tag);
# groups of three digits or more, as a MAC address's pairs are none.
PRODUCT = rx.compile(
    rf"{_START}([A-Z]{{1,4}})(\d{{1,3}})((?:-\d{{3,6}})+)([A-Z]{{1,3}})(?![\w-]|[:./]\w)"
)
THREAD = rx.compile(rf"{_START}M(\d{{1,3}}(?:\.\d)?)\s?[x\u00d7]\s?(\d(?:\.\d{{1,2}})?)(?!\w|\.\d)")
NUMBERING = (
    "Phase|Unit|Line|Train|Stage|Section|Class|Division|Zone|Type|Category|Block|Building"
    "|Area|Group|Tier|Mk|Mark|Grade|Bus|Feeder|Sector|Level|Plant|Reactor|Kiln|Mill|Boiler"
)
# A lone X is a letter there (`Unit X`, `Level X`: a placeholder or a label, en-11), as no
# plant numbers its parts to ten so; I and V alone are numerals (`Class I Division 2`).
ROMAN_AFTER_WORD = rx.compile(
    rf"\b({NUMBERING})(\s+)(?!X(?![\w'\u2019-]))([IVX]{{1,5}})(?![\w'\u2019-])"
)
PLACES = (
    "Room|Rm|Bed|Cell|Cabinet|Rack|Slot|Panel|Terminal|Contact|Door|Gate|Dock|Locker|Suite"
    "|Desk|Seat|Berth|Pier|Cubicle|Drawer|Shelf|Apt|Flat|Office|Lab|Ward"
)
PLACE_NUMBER = rx.compile(
    rf"\b((?i:{PLACES})\.?\s+)(\d{{1,4}})-(\d{{1,4}})(?![\w-]|\.\d|\s?(?:%|°))"
)
_PROPORTIONS = (
    "gain|level|load|yield|scale|factor|duty|fill|opening|position|stroke|output|share"
    "|portion|fraction|speed|capacity|setting"
)
PROPORTION = rx.compile(
    rf"\b((?i:{_PROPORTIONS})(?:\s*[:=]\s*|\s+))(\d{{1,2}})/(\d{{1,2}})(?![\w/]|[.,]\d)"
)
STANDARDS = "ISO|IEC|EN|DIN|IEEE|ANSI|BS|NFPA|API|ASME|UL|ISA|NEMA|VDE|GB|GB/T|JIS|IEC/EN"
EDITION = rx.compile(
    rf"\b((?:{STANDARDS})(?:[ /](?:ISO|IEC|EN|TR|TS))*\s)"
    rf"(\d{{2,6}}(?:-\d{{1,3}})*):(\d{{4}})(?!\d)"
)
_TERM = r"\d{1,7}(?:\.\d{1,4})?"
DECIMAL_RATIO = rx.compile(rf"{_START}({_TERM}):({_TERM})(?!\w|:\d|[.,]\d)")
_VALUE_WORDS = "value|reading|counter|total|totalizer|sum|quantity|qty|amount|result|pv"
LONG_VALUE = rx.compile(rf"\b((?i:{_VALUE_WORDS})(?:\s*[:=]\s*|\s+))([1-9]\d{{8,14}})(?!\w|[.,]\d)")
_SIZE_AHEAD = rx.compile(rf"\s?(?:in\b|inch|{units.GRAMMAR.pattern()})")
# A date inside an identifier after a word that names one (`Lot 2026-11-30-A`, `Sample
# S-2026-11-30`): the identifier, not a date and a letter.
_ID_WORDS = "lot|batch|sample|serial|sn|job|order|charge"
DATED_ID = rx.compile(
    rf"\b((?i:{_ID_WORDS})(?:\s+(?:No|Nr)\.?)?(?:\s*[:#]\s*|\s+))"
    r"((?:[A-Z]{1,4}-)?\d{4}-\d{2}-\d{2}(?:-[A-Z0-9]{1,6})*)(?![\w-]|[./]\w)"
)
_NUMERO = rx.compile(r"\b(?:No|Nr)\.?(?=\s*$)")
_RUNS = rx.compile(r"[A-Z]+|\d+")
# Proportions are halves to sixty-fourths, as a quantity is written (plant.py).
_DENOMINATORS = frozenset({2, 3, 4, 8, 16, 32, 64})


def _spelled(*parts: str) -> str:
    """Capitals one by one, digits digit by digit: `"DB", "10"` → "D B one zero", `"B2"` → "B
    two"."""
    runs = [run for p in parts for run in _RUNS.findall(p)]
    return " ".join(digits(r) if r.isdigit() else " ".join(letters(r)) for r in runs)


def _iec(m: re.Match[str]) -> str:
    """`%I0.1` → "I zero dot one", `%QW4` → "Q W four"; without the sign only a bit address
    (`I0.1`): `M12` alone is a tag, left for the tag rule."""
    sign, area, size, byte, bit = m.groups()
    if not sign and bit is None:
        return m.group(0)
    said = _spelled(area + size, byte)
    return said + (f" dot {digits(bit)}" if bit is not None else "")


def _s7(m: re.Match[str]) -> str:
    """`DB10.DBX2.3` → "D B one zero dot D B X two dot three"."""
    block, size, offset, bit = m.groups()
    said = f"{_spelled('DB', block)} dot {_spelled('DB' + size, offset)}"
    return said + (f" dot {digits(bit)}" if bit is not None else "")


def _ab(m: re.Match[str]) -> str:
    """`B3:0/1` → "B three colon zero slash one", `T4:0.ACC` → "... dot A C C"."""
    kind, file, io, element, word, bit, member = m.groups()
    said = f"{_spelled(kind or io, file or '')} colon {digits(element)}"
    if word:
        said += f" dot {digits(word)}"
    if bit:
        said += f" slash {digits(bit)}"
    return said + (f" dot {_spelled(member)}" if member else "")


def _modbus(m: re.Match[str]) -> str:
    """`4x40001` → "four X four zero zero zero one"; before a unit (`3x30000 W`) a count, left
    for the times rule."""
    if units.UNIT_AHEAD.match(m.string, m.end()):
        return m.group(0)
    return f"{_spelled(m[1])} X {digits(m[2])}"


def _voting(m: re.Match[str]) -> str:
    """`2oo3` → "two out of three", `1oo2D` → "one out of two D"."""
    said = f"{cardinal(int(m[1]))} out of {cardinal(int(m[2]))}"
    return said + (" D" if m[3] else "")


def _product(m: re.Match[str]) -> str:
    """`S7-1214C` → "S seven dash one two one four C", as a device tag is said."""
    head, first, groups, tail = m.groups()
    said = [*letters(head), digits(first, zero="oh")]
    said += [f"dash {digits(g, zero='oh')}" for g in groups.split("-")[1:]]
    return " ".join([*said, *letters(tail)])


def _roman(m: re.Match[str]) -> str:
    """`Phase II` → "Phase two"; letters that are no numeral (`Zone VX`) as written."""
    value = roman_value(m[3])
    return m.group(0) if value is None else f"{m[1]}{m[2]}{cardinal(value)}"


def _place_group(group: str) -> str:
    """One or two digits a cardinal (13), a leading zero or three digits or more one by one,
    zero "oh" (`105` → "one oh five"), as a room or a terminal is said."""
    if len(group) > 2 or (len(group) > 1 and group.startswith("0")):
        return digits(group, zero="oh")
    return cardinal(int(group))


def _is_size(m: re.Match[str]) -> bool:
    """A unit or an inch mark after the pair (a double quote that closes no quotation)."""
    if m.string.startswith('"', m.end()):
        return m.string.count('"', 0, m.start()) % 2 == 0
    return bool(_SIZE_AHEAD.match(m.string, m.end()))


def _proportion(m: re.Match[str]) -> str:
    """`Gain 1/2` → "Gain one half"; a pair that is no proper fraction is left."""
    n, d = int(m[2]), int(m[3])
    if not 0 < n < d or d not in _DENOMINATORS or _is_size(m):
        return m.group(0)  # `Level 1/2 m`, `Opening 3/4"`: a size, read by plant.py
    return m[1] + fraction(n, d)


def _dated_id(m: re.Match[str]) -> str:
    """`Lot No. 2026-11-30-A` → "Lot number two zero two six dash one one dash three zero
    dash eh": each group spelled, "dash" between."""
    cue = _NUMERO.sub("number", m[1].rstrip())
    word = cue.split()[0].rstrip(":#")
    rest = re.sub(r"\s*#", " number", cue[len(word) :])  # Lot #…, as a serial's # is said
    cue = id_word(word) + rest + " "  # SN as its letters, as a serial's is said
    return cue + " dash ".join(_spelled(group) for group in m[2].split("-"))


def _ratio(m: re.Match[str]) -> str:
    """`16.5:1` → "sixteen point five to one", `1:1000` → "one to one thousand"; two plain
    terms the second of one or two digits are a time or a plain ratio, left (`14:05`)."""
    first, second = m.groups()
    if "." not in first + second and len(second) < 3:
        return m.group(0)
    if "." in second and len(second.partition(".")[0]) == 2:
        return m.group(0)  # 5:30.5: minutes and seconds
    return f"{number(first)} to {number(second)}"


RULES = (
    Rule("PLC address", S7_ADDRESS, _s7),
    Rule("PLC address", AB_ADDRESS, _ab),
    Rule("PLC address", IEC_ADDRESS, _iec),
    Rule("Modbus register", MODBUS, _modbus),
    Rule("voting", VOTING, _voting),
    Rule("product code", PRODUCT, _product),
    Rule("thread", THREAD, lambda m: f"M {number(m[1])} by {number(m[2])}"),
    Rule("Roman numeral", ROMAN_AFTER_WORD, _roman),
    Rule(
        "place number",
        PLACE_NUMBER,
        lambda m: f"{m[1]}{_place_group(m[2])} dash {_place_group(m[3])}",
    ),
    Rule("identifier", DATED_ID, _dated_id),
    Rule("fraction", PROPORTION, _proportion),
    Rule("standard", EDITION, lambda m: f"{m[1]}{m[2]} colon {year(int(m[3]))}"),
    Rule("ratio", DECIMAL_RATIO, _ratio),
    Rule("number", LONG_VALUE, lambda m: m[1] + cardinal(int(m[2]))),
)
"""Read after the plant notations, before amounts, fields, times, ranges and slash pairs."""
