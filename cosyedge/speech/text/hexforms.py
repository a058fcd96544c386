"""Hexadecimal codes (`0x1F`, `0X4302`, `1Fh`, a radix first as IEC 61131-3 writes it:
`16#FF00`, `2#1010_0001`), and hexadecimal identifiers that the number rules would take for
scientific notation (en-9):

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

from cosyedge.speech import rx
from cosyedge.speech.text.fields import say_identifier
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import digits, letters

_H = "[0-9a-fA-F]"
UUID = rx.compile(rf"(?<![\w.-])({_H}{{8}}-{_H}{{4}}-{_H}{{4}}-{_H}{{4}}-{_H}{{12}})(?![\w-]|\.\w)")
HEX_RUN = rx.compile(r"(?<![\w.-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])([0-9a-f]{8,})(?![\w-]|\.\w)")
CUED_EXPONENT = rx.compile(
    r"\b((?i:code|error|fault|alarm|id|model|part|type)(?:\s*[:#]\s*|\s+))"
    r"(\d+[eE]\d+)(?![\w-]|[.,]\d)"
)

LETTERED_ID = rx.compile(r"(?<![\w.-])([A-Z]{1,4})-(\d{6,}(?:-\d{1,6})+)(?![\w-]|\.\w)")


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


# --- hexadecimal codes: 0x1F, 0XFF00, 1Fh -----------------------------------------------------

# The prefix in either case: all-capital SCADA text writes `0X4302` (en-9).
HEX = rx.compile(
    r"(?<![\w.])(?:0[xX]([0-9A-Fa-f]+)|(?!\d+Ah)([0-9][0-9A-F]*[A-F][0-9A-F]*)h)(?!\w|\.\w)"
)


# A number with its radix first, as IEC 61131-3 writes it: 16#FF00, 2#1010_0001, 8#777.
RADIX = rx.compile(r"(?<![\w.#])(16|8|2)#([0-9A-Fa-f](?:_?[0-9A-Fa-f])*)(?![\w#])")
_RADIX_WORDS = {"16": "hex", "8": "octal", "2": "binary"}
_RADIX_DIGITS = {"16": "0123456789ABCDEFabcdef", "8": "01234567", "2": "01"}


def radix(m: re.Match[str]) -> str:
    """`16#FF00` → "hex F F zero zero", `2#1010` → "binary one zero one zero" (the underscores
    that group the digits are silent); a digit the radix has not: left as written."""
    radix, written = m.groups()
    plain = written.replace("_", "")
    if any(c not in _RADIX_DIGITS[radix] for c in plain):
        return m.group(0)
    return _RADIX_WORDS[radix] + say_hex(plain).removeprefix("hex")


def say_hex(written: str) -> str:
    """`1F` → "hex one F": "hex", then each character, digits as words, letters as capitals."""
    chars = [digits(c) if c.isdigit() else letters(c.upper())[0] for c in written]
    return "hex " + " ".join(chars)
