"""Register bits and addresses written after a word and a slash (en-9).

- A register's bit after a word that names a register (register, reg, holding or input
  register, HR, IR, coil): `Register 40001.3` → "Register four zero zero zero one, bit
  three", never the decimal "forty thousand one point three". A bit is 0 to 15 (a 16-bit
  register); a larger number after the dot is said "dot" and digit by digit, still no
  decimal.
- A PLC address, a Modbus register, a compact duration, a number after a word that names
  an identifier or a designation (voting, a thread, a product code), written after a word
  and a slash (`Valve/B3:0/1`, `Valve/I0.1`, `Line3/3h40m`, `Valve/register 30001`,
  `Trip/2oo3`): "slash", then the address read as it is alone
  ("Valve slash B three colon zero slash one"), as a device tag after a slash is
  (`line3/PT-101A`); a count "of one", a decimal or a ratio is never made of it. The word
  before the slash must hold a letter and not be part of a URL (`http://host/N7:0`).
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.fields import DURATION_FORM, ID_WORDS
from cosyedge.speech.text.serials import say_cue
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import cardinal, digits

_REGISTER_WORDS = r"holding\s+register|input\s+register|register|reg|HR|IR|coil"
REGISTER_BIT = rx.compile(
    rf"(?<![\w./-])((?i:{_REGISTER_WORDS}))(\s*[:#]\s*|\s+)(\d{{1,6}})\.(\d{{1,2}})"
    r"(?!\w|[.,]\d)"
)
# What each address form starts with (its own rule checks the rest): an Allen-Bradley file
# (B3:0, O:0), an IEC bit or signed address (I0.1, %QW4), an S7 data block (DB1.DBX0.1), a
# Modbus register with its table (4x40001), a compact duration (3h40m), an identifier's word
# and its digits (register 30001), another designation.
_AB = r"(?:[BNFTCRLS]|ST)\d{1,3}:\d|[IO]:\d"
_IEC = r"%[IQM][XBWDL]?\d|[IQM][XBWDL]?\d{1,5}\.[0-7](?!\d)|%?DB\d{1,5}\.DB"
_CUED = rf"(?i:{ID_WORDS}|{_REGISTER_WORDS})(?:\s*[:#]\s*|\s+)\d"
# Voting (2oo3), a metric thread (M12x1.5) and a product code (S7-1214C) are designations
# read alone too.
_DESIGNATION = r"[1-9]oo[1-9]|M\d{1,3}(?:\.\d)?\s?[x\u00d7]\d|[A-Z]{1,4}\d{1,3}(?:-\d{3,6})+[A-Z]"
_ADDRESS_AHEAD = rf"(?:{_AB}|{_IEC}|[134]x\d{{4,6}}(?!\w)|{DURATION_FORM}|{_CUED}|{_DESIGNATION})"
SLASHED_ADDRESS = rx.compile(rf"(?<=[A-Za-z0-9_])/(?={_ADDRESS_AHEAD})")
# How far back a word before the slash is looked at: a path's word is short, and a bound
# keeps a reading linear in the length of the text.
_WORD_REACH = 64


def _bit(m: re.Match[str]) -> str:
    """`Register 40001.3` → "Register four zero zero zero one, bit three"; a number after the
    dot that no 16-bit register has is said "dot" and its digits."""
    cue, between, address, bit = m.groups()
    said = say_cue(cue, between) + digits(address)
    if int(bit) <= 15 and not (len(bit) > 1 and bit.startswith("0")):
        return f"{said}, bit {cardinal(int(bit))}"
    return f"{said} dot {digits(bit)}"


def _slashed(m: re.Match[str]) -> str:
    """ " slash " where the word before the slash holds a letter and is no URL's; otherwise
    the slash as written."""
    start = max(0, m.start() - _WORD_REACH)
    before = m.string[start : m.start()]
    word = re.split(r"[\s/]", before)[-1]
    if "://" in before.rpartition(" ")[2] or "@" in word or not re.search("[A-Za-z]", word):
        return m.group(0)
    return " slash "


RULES = (
    Rule("field inside a token", SLASHED_ADDRESS, _slashed),
    Rule("register bit", REGISTER_BIT, _bit),
)
"""Read before the designations (the PLC addresses) and every number."""
