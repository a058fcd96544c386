"""A letter after a number that is no unit (en-9).

- A decade: `the 1980s`, `in 1990s` → "the nineteen eighties", after the, in, since, from,
  of, early, late or mid (`Timer 1800s` stays eighteen hundred seconds).
- A hexadecimal code of digits with an h after them, after a word that says a code follows
  (code, error): `Fault code 8000h` → "Fault code hex eight zero zero zero", not hours
  (`Runtime 8000h` stays hours).
- The letters after a standard's number: `UL 508A` → "UL five hundred eight eh", `NFPA 70E`,
  not amps.
- An inch size after a word that names a fitting (`Pipe 3/4 in leaking`): the inch mark,
  so "three quarter inch leaking", not the count "three of four in"; a thread (`3/8-16
  UNC`): the size in inches, then the threads per inch, "three eighth inch sixteen U N C",
  not a range.
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.designations import STANDARDS
from cosyedge.speech.text.hexforms import say_hex
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import letters, year

DECADE = rx.compile(r"\b((?i:the|in|since|from|of|early|late|mid)[ -])((?:1[89]|20)\d0)s\b")
CUED_DIGIT_HEX = rx.compile(r"(?<![\w.])((?i:error|code)(?::\s*|\s+))(\d{2,8})h(?!\w)")
STANDARD_LETTERS = rx.compile(rf"\b((?:{STANDARDS})\s\d{{2,6}})([A-Z]{{1,2}})(?![\w.-]\w)")

_FITTINGS = "pipe|hose|tube|tubing|valve|bolt|screw|fitting|nipple|elbow|tee|coupling|flange|drill"
# Not "in" as a preposition: before an article or a place (`Valve 1/4 in the tank`).
_NOT_SIZE = r"the|a|an|this|that|its|their|our|service|use|stock|place|line|tank|area|zone"
FITTING_INCH = rx.compile(
    rf"\b((?i:{_FITTINGS})\s+)(\d{{1,2}}/\d{{1,2}})\s?in\b(?!\.\w|\s+(?i:{_NOT_SIZE})\b)"
)
THREAD = rx.compile(r"(?<![\w/.-])(\d{1,2}/\d{1,2}|\d{1,2})-(\d{1,3})\s?(UNC|UNF|UNEF|UN)\b")


def _thread(m: re.Match[str]) -> str:
    """`3/8-16 UNC` → `3/8" 16 U N C`: the inch mark for the fraction rules."""
    size = m[1] + ('"' if "/" in m[1] else "")
    return f"{size} {m[2]} {' '.join(letters(m[3]))}"


def _decade(m: re.Match[str]) -> str:
    """`the 1980s` → "the nineteen eighties": the year's last word made plural."""
    said = year(int(m[2]))
    said = said[:-1] + "ies" if said.endswith("y") else said + "s"
    return m[1] + said


RULES = (
    Rule("inch size", FITTING_INCH, lambda m: f'{m[1]}{m[2]}"'),
    Rule("thread", THREAD, _thread),
    Rule("decade", DECADE, _decade),
    Rule("hexadecimal", CUED_DIGIT_HEX, lambda m: m[1] + say_hex(m[2])),
    Rule("standard", STANDARD_LETTERS, lambda m: f"{m[1]} {' '.join(letters(m[2]))}"),
)
"""Read before the units and the numbers with letters."""
