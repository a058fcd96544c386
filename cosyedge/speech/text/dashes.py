"""Hyphens and dashes other than the hyphen-minus, folded where they stand for one (en-9).

Text pasted from documents carries typographic dashes the rules do not read: the hyphen
(U+2010) and the no-break hyphen (U+2011) are hyphens wherever they stand, so `PT-101`,
`2026-12-02` and `5-10 bar` written with them read as their ASCII forms do; the figure dash
(U+2012), the em dash (U+2014) and the horizontal bar (U+2015) between two numbers, spaced or
not, are a range's dash (`5`, em dash, `10 bar` → "five to ten bar"), written as the en dash
the range rules read (never a hyphen: a hyphen between a larger and a smaller number is an
identifier's); any of them, or an en dash, between a tag's capitals and its digits is the
tag's hyphen. Elsewhere an em dash is the writer's pause and is left. The minus sign (U+2212)
is a minus everywhere (english.py folds it).
"""

from __future__ import annotations

from cosyedge.speech import rx

_HYPHENS = rx.compile("[\u2010\u2011]")
_DASHES = "\u2012\u2014\u2015"
# Between numbers, spaced or not, a sign allowed before the second (`-5—-10 °C`).
_RANGE_DASH = rx.compile(f"(?<=\\d)(\\s?)[{_DASHES}](\\s?)(?=[-+]?\\.?\\d)")
# Between a tag's capitals and its digits (PT, an em or en dash, 101).
_TAG_DASH = rx.compile(f"(?<![\\w-])([A-Z]{{1,4}})[\u2013{_DASHES}](?=\\d)")


def fold(text: str) -> str:
    """`text` with its hyphens written `-` and its range dashes as en dashes (see above)."""
    text = _HYPHENS.sub("-", text)
    text = _TAG_DASH.sub(r"\1-", text)
    return _RANGE_DASH.sub("\\1\u2013\\2", text)
