"""Hexadecimal identifiers that the number rules would take for scientific notation (en-9).

- A UUID (GUID), in its five groups: `123e4567-e89b-12d3-a456-426614174000` → "one two three
  E four five six seven dash E eight nine B dash ...", character by character, not "one
  hundred twenty three times ten to the four thousand ...".
- A run of eight or more small hexadecimal characters with digits and letters among them (a
  hash, a checksum, a commit): `9f86d081` → "nine F eight six D zero eight one".
- A number, an E and a number after a word that says a code follows (code, error, fault,
  alarm, id, model, part, type): `Code 1E3` → "Code one E three", not "one times ten to the
  three" (`Value 1E3` stays scientific notation).
- Capitals, a hyphen, six digits or more and hyphenated groups (`B-20261201-03`): an
  identifier in its groups, "B two zero two six one two zero one dash zero three", not an
  amount and a range.
"""

from __future__ import annotations

import re

from cosyedge.speech.text.fields import say_identifier
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import digits, letters

_H = "[0-9a-fA-F]"
UUID = re.compile(rf"(?<![\w.-])({_H}{{8}}-{_H}{{4}}-{_H}{{4}}-{_H}{{4}}-{_H}{{12}})(?![\w-]|\.\w)")
HEX_RUN = re.compile(r"(?<![\w.-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])([0-9a-f]{8,})(?![\w-]|\.\w)")
CUED_EXPONENT = re.compile(
    r"\b((?i:code|error|fault|alarm|id|model|part|type)(?:\s*[:#]\s*|\s+))"
    r"(\d+[eE]\d+)(?![\w-]|[.,]\d)"
)

LETTERED_ID = re.compile(r"(?<![\w.-])([A-Z]{1,4})-(\d{6,}(?:-\d{1,6})+)(?![\w-]|\.\w)")


def spelled(written: str) -> str:
    """`9f86` → "nine F eight six": digits as words, letters as capitals; a hyphen "dash"."""
    return " ".join(
        "dash" if c == "-" else digits(c) if c.isdigit() else letters(c.upper())[0] for c in written
    )


RULES = (
    Rule("identifier", UUID, lambda m: spelled(m[1])),
    Rule("identifier", HEX_RUN, lambda m: spelled(m[1])),
    Rule("identifier", CUED_EXPONENT, lambda m: m[1] + spelled(m[2])),
    Rule("identifier", LETTERED_ID, lambda m: " ".join([*letters(m[1]), say_identifier(m[2])])),
)
"""Read before any number."""
