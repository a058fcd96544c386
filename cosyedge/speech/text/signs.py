"""A minus parted from its value, and a delta before one (en-9).

A minus written with a space before its number is the value's sign where nothing before it
can be a range's first end: at the start of the text or of a bracket (`[- 5 bar]`, `- 12.5
kPa, limit exceeded`) or after a word naming the value (`reading - 5 bar now`, `Value - 5 °C`)
→ "minus five bar". After a number (`Line 3 - 5`) it is left for the range and dash rules,
and after other words (`Pump stopped - 5 min ago`) it is the writer's dash, a pause.

A delta sign before a number is "delta" (`Δ-3 mbar` → "delta minus three millibar"), the
minus after it the value's.

An arrow written with ASCII, `->`, `-->`, `=>` or `==>`, is a change, "to" (en-11), as `→` is
read: `45%->80%` → "forty five percent to eighty percent", `RUN->STOP` → "RUN to STOP" (it was
a dash and "greater than"). Not a double arrow (`<->`, `<=>`) nor `>=`/`>>`.
"""

from __future__ import annotations

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule

# Words that name the value after them; with or without a colon or an equals sign the English
# rules already read (`Temp: - 5 °C`, english.py).
_VALUE_WORDS = (
    "reading|value|temp|temperature|pressure|level|flow|offset|deviation|delta|setpoint"
    "|actual|measured|PV|SP"
)
DETACHED_MINUS = rx.compile(
    rf"(^|(?<=[\[(])|\b(?i:{_VALUE_WORDS}) )(\s*)[-\u2013\u2212]\s+(?=\.?\d)"
)
DELTA = rx.compile("(?<!\\w)\u0394(?=\\s?[-+\u2212]?\\.?\\d)")

ARROW = rx.compile(r"\s*(?<![<=-])(?:--?|==?)>(?![>=])\s*")
ARROWS = (Rule("arrow", ARROW, lambda m: " to "),)
"""Read before the ranges, minus signs and comparison signs that would take its parts."""

RULES = (
    Rule("sign", DELTA, lambda m: "delta "),
    Rule("sign", DETACHED_MINUS, lambda m: f"{m[1]}{m[2]}minus "),
)
"""Read with the signs, after the ranges."""
