"""English text's characters in one form before it is read: no control characters or escape
sequences, compatibility forms folded (NFKC), Roman numeral characters as digits, exponents
written with a caret, every dash that is a minus a hyphen-minus, and numbers grouped the
European way or by spaces grouped by commas (amounts.py)."""

from __future__ import annotations

import re
import unicodedata

from cosyedge.speech import rx
from cosyedge.speech.text import amounts, dashes, notations
from cosyedge.speech.text.words import roman_value

# A vulgar fraction character written onto a whole number (1½): NFKC makes it 1, 1, the
# fraction slash U+2044 and 2, which a space keeps apart from the whole (not eleven halves).
_VULGAR_AFTER_DIGIT = rx.compile(r"(?<=\d)(?=[\u00bc-\u00be\u2150-\u215e])")


# Superscript digits after a number are its exponent (10⁻⁶, 5²): written with a caret, as NFKC
# would make them plain digits (10-6, a range; 52, another number). After a unit (m²) they
# stay the unit's.
_SUPERSCRIPT = rx.compile("(?<=\\d)[\u207a\u207b]?[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+")
# A negative superscript power after a unit's letter (s⁻¹, m⁻³): with a caret, as NFKC would
# make it a hyphen and a digit (s-1, a code) (en-7).
_UNIT_MINUS_POWER = rx.compile("(?<=[A-Za-z\u00b5\u03bc\u03a9])\u207b[\u00b9\u00b2\u00b3]")
_SUPERSCRIPT_DIGITS = str.maketrans(
    "\u207a\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079", "+-0123456789"
)
# A dash other than the hyphen-minus (en dash, minus sign, hyphen characters) where a minus
# stands, before a number and not after a word or a number: the minus it is (U+2013 before 5 °C).
_FULL_WIDTH_MARK = rx.compile("[\uff0c\uff1b\uff1a\uff01\uff1f]")
_DASH_MINUS = rx.compile("(?<![\\w.)])[\u2010-\u2013\u2212\ufe63\uff0d](?=\\.?\\d)")


# A terminal's escape sequence (ANSI colours, `\x1b[31m`), then any other control or format
# character (BEL, a zero-width space, a byte order mark): none is text a voice can say.
_ESCAPE = rx.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])")
_ROMAN = rx.compile("[\u2160-\u2188]+")


def _printable(text: str) -> str:
    """`text` without escape sequences, control and format characters (a line break or a tab
    is a space) or lone surrogates (no character: what JSON's `\\ud800` decodes to, en-8); a
    Roman numeral character is its number (`Ⅲ` → 3)."""
    text = _ESCAPE.sub("", text)
    text = "".join(
        " " if c in "\t\n\r\v\f" else c
        for c in text
        if unicodedata.category(c) not in ("Cc", "Cf", "Cs") or c in "\t\n\r\v\f"
    )
    return _ROMAN.sub(_roman, text)


def _roman(m: re.Match[str]) -> str:
    """`Ⅲ` → "3", a run of them one numeral (small i then small v → "4", en-7), set apart from
    a letter or digit it is written onto (`PumpⅢ`); a run that is no numeral (V then X) each
    its number."""
    before = " " if m.start() and m.string[m.start() - 1].isalnum() else ""
    after = " " if m.string[m.end() : m.end() + 1].isalnum() else ""
    run = m.group(0)
    value = roman_value(unicodedata.normalize("NFKC", run)) if len(run) > 1 else None
    # Ↄ and ↄ (reversed C) are in the block but have no value: left as written.
    values = [str(value)] if value else [_numeral(c) for c in run]
    return f"{before}{' '.join(values)}{after}"


def _numeral(c: str) -> str:
    """One Roman numeral character's value as digits (`Ⅻ` → "12"); one without a value as
    written."""
    value = unicodedata.numeric(c, None)
    return c if value is None else str(int(value))


def folded(text: str) -> str:
    """`text` with its characters in one form: no control characters, compatibility forms
    folded (NFKC), exponents written with a caret, every dash that is a minus a hyphen-minus,
    numbers grouped the European way or by spaces grouped by commas (amounts.py)."""
    text = _VULGAR_AFTER_DIGIT.sub(" ", notations.fold_degrees(_printable(text)))
    text = _SUPERSCRIPT.sub(lambda m: "^" + m.group(0).translate(_SUPERSCRIPT_DIGITS), text)
    text = _UNIT_MINUS_POWER.sub(lambda m: "^" + m.group(0).translate(_SUPERSCRIPT_DIGITS), text)
    text = _DASH_MINUS.sub("-", dashes.fold(text))
    # A full-width mark has its space in its width: NFKC folds it to an ASCII one without.
    text = _FULL_WIDTH_MARK.sub(lambda m: m.group(0) + " ", text)
    # Before NFKC, which makes a no-break space between groups of digits a plain one.
    text = amounts.regroup(text)
    return unicodedata.normalize("NFKC", text).replace("\u2212", "-")
