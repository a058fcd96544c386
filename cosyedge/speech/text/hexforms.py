"""Hexadecimal identifiers that the number rules would take for scientific notation (en-9).

- A UUID (GUID), in its five groups: `123e4567-e89b-12d3-a456-426614174000` → "one two three
  E four five six seven dash E eight nine B dash ...", character by character, not "one
  hundred twenty three times ten to the four thousand ...".
- A run of eight or more small hexadecimal characters with digits and letters among them (a
  hash, a checksum, a commit): `9f86d081` → "nine F eight six D zero eight one".
- A number, an E and a number after a word that says a code follows (code, error, fault,
  alarm, id, model, part, type): `Code 1E3` → "Code one E three", not "one times ten to the
  three" (`Value 1E3` stays scientific notation).
"""

from __future__ import annotations

import re

from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import digits, letters

_H = "[0-9a-fA-F]"
UUID = re.compile(rf"(?<![\w.-])({_H}{{8}}-{_H}{{4}}-{_H}{{4}}-{_H}{{4}}-{_H}{{12}})(?![\w-]|\.\w)")
HEX_RUN = re.compile(r"(?<![\w.-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])([0-9a-f]{8,})(?![\w-]|\.\w)")
CUED_EXPONENT = re.compile(
    r"\b((?i:code|error|fault|alarm|id|model|part|type)(?:\s*[:#]\s*|\s+))"
    r"(\d+[eE]\d+)(?![\w-]|[.,]\d)"
)


def spelled(written: str) -> str:
    """`9f86` → "nine F eight six": digits as words, letters as capitals; a hyphen "dash"."""
    return " ".join(
        "dash" if c == "-" else digits(c) if c.isdigit() else letters(c.upper())[0] for c in written
    )


RULES = (
    Rule("identifier", UUID, lambda m: spelled(m[1])),
    Rule("identifier", HEX_RUN, lambda m: spelled(m[1])),
    Rule("identifier", CUED_EXPONENT, lambda m: m[1] + spelled(m[2])),
)
"""Read before any number."""
