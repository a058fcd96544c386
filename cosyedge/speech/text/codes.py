"""Codes a general rule leaves half read (en-7): a device tag with a member after a dot, as
control systems name a tag's parameter, and a hexadecimal code of letters only after a word
that says a code follows.

- `TIC-2001.PV` → "TIC-2001 dot P V": the member spelled, the tag left for the device-tag
  rule ("T I C two oh oh one"); a member is capitals only (PV, SP, OUT), so a sentence that
  goes on after a tag's full stop (`P-101.Then`) is none.
- `Error FFh` → "Error hex F F": letters A to F with an h after them are a hexadecimal code
  only after error, code, fault, alarm or status (alone, `BEh` may be a word); with a digit
  among them (`1Fh`) the hexadecimal rule reads them anywhere.
- `9600 8N1` → "9600 eight N one" (en-12): a serial line's data bits, parity and stop bits,
  said as written; with no parity (N) anywhere, with E, O, M or S only after a baud rate,
  where `7E1` is no power of ten.
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text import hexforms, suffixes
from cosyedge.speech.text.hexforms import say_hex
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import cardinal, letters

# A device tag as english.py writes one (letters, digits, letters, hyphenated groups).
_TAG = r"[A-Z]{1,4}-?\d{1,6}[A-Z]{0,2}(?:-\d{1,6})*"
TAG_MEMBER = rx.compile(rf"(?<![\w.-])({_TAG})\.([A-Z]{{1,6}})(?!\w|\.\w)")
CUED_HEX = rx.compile(
    r"(?<![\w.])((?i:error|code|fault|alarm|status)(?::\s*|\s+))([A-F]{2,8})h(?!\w)"
)

SERIAL_FRAME = rx.compile(
    r"(?<![\w.+-])(?:([5-8])(N)|(?<=\d\d\d )([5-8])([EOMS]))([12])(?!\w|\.\d|[-/]\d)"
)


def _serial_frame(m: re.Match[str]) -> str:
    """`8N1` → "eight N one"; after a baud rate a comma first, for the numbers not to run
    together ("nine thousand six hundred eight")."""
    bits, parity = (m[1], m[2]) if m[1] else (m[3], m[4])
    said = f"{cardinal(int(bits))} {parity} {cardinal(int(m[5]))}"
    return ", " + said if re.search(r"\d\s$", m.string[: m.start()]) else said


def _tag_member(m: re.Match[str]) -> str:
    """`TIC-2001.PV` → "TIC-2001 dot P V" (the tag left for the device-tag rule)."""
    tag, member = m.groups()
    return f"{tag} dot {' '.join(letters(member))}"


RULES = (
    Rule("device tag", TAG_MEMBER, _tag_member),
    Rule("hexadecimal", CUED_HEX, lambda m: m[1] + say_hex(m[2])),
    Rule("serial frame", SERIAL_FRAME, _serial_frame),
    *suffixes.RULES,  # a letter after a number that is no unit (en-9)
    *hexforms.RULES,  # hexadecimal identifiers, not scientific notation (en-9)
)
"""Read before the device tags."""
