"""Telephone numbers beside the documented forms (en-9).

- The words that say a number is dialled, in any case, with a mark or a "number" after them:
  call, dial, phone, telephone, tel, fax, hotline, mobile, mob, cell phone (`Tel.:`,
  `Phone no.`, `Telephone number`, `Mob.`); after one, any national grouping is dialled,
  digit by digit in its groups (zero "oh"), a pause between: `Phone 0171 2345678`, `Tel
  01632 960123`, `Fax 0800 123 456`, `Phone 0171/2345678` (english.py's telephone rule).
- Groups parted by dots (`Phone: 555.123.4567`, `+1.555.123.4567`, `+44.20.7946.0958`):
  three groups or more after such a word or after a country code, and alone the North
  American shape, three, three and four digits (`555.123.4567`, no version or decimal has
  it): "five five five, one two three, four five six seven", never a decimal or an amount
  "five hundred fifty five point ...".
- A country code and a trunk prefix in brackets (`+49 (0)30 1234567`): a number dialled
  with two groups, "plus four nine, three oh, one two three four five six seven" (the
  trunk prefix not said), as with three groups or after a word.
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import digits

# A word that says a number is dialled, perhaps with its mark and a "number" after it. Not a
# cell alone: a load cell, a cell of a plant, is numbered (`Cell 12`).
DIAL_WORDS = (
    r"(?i:call|dial|telephone|phone|tel|fax|hotline|mobile|mob|cell\s?phone)\.?"
    r"(?:\s+(?i:no\.?|nr\.?|number|#))?"
)
DOTTED_PHONE = rx.compile(
    rf"(?<![\w.])(?:({DIAL_WORDS}:?\s+)(\+\d{{1,3}}[.\s])?|(\+\d{{1,3}})\."
    r"|(?<!\+)(?=\d{3}\.\d{3}\.\d{4}(?![\w-]|[.,]\d)))"
    r"(\d{1,5}(?:\.\d{1,8}){2,4})(?![\w-]|[.,]\d)"
)


_NUMBER_WORD = rx.compile(r"(?i)\b(?:no|nr)\.?(?=:?\s*\Z)|#(?=:?\s*\Z)")


def say_word(word: str | None) -> str:
    """The word before a number dialled as said: `Phone no. ` → "Phone number ", a mark
    after it kept (`Tel.: ` as written)."""
    return _NUMBER_WORD.sub("number", word or "")


def _dotted_phone(m: re.Match[str]) -> str:
    """`Phone: 555.123.4567` → "Phone: five five five, one two three, four five six seven",
    `+1.555.123.4567` → "plus one, five five five, ..."."""
    word, code_after_word, code, number = m.groups()
    code = (code or code_after_word or "").strip(" .+")
    groups = ([code] if code else []) + number.split(".")
    said = ", ".join(digits(g, zero="oh") for g in groups)
    return say_word(word) + ("plus " if code else "") + said


RULES = (Rule("telephone number", DOTTED_PHONE, _dotted_phone),)
"""Read before the amounts: dot groups of three would be taken for thousands."""
