"""Plant notations a general rule misreads (en-8).

- `3~` (three-phase alternating current, IEC 60617) before a mains voltage (volts in three
  digits or more), the mains frequency (50 or 60 Hz) or a word: "three phase", not a range
  (`3~ 400 V` was "three to four hundred volts"); `1~` "single phase". `3~10kV` is a range.
- A pipe size written as a mixed number with a hyphen (`1-1/2"`, `1-1/2 in`): "one and one
  half inches", not the range "one to one/two".
- A binary literal (`0b1011`): "binary one zero one one", not "zero b one thousand eleven".
- A countdown (`T-10 seconds`, `T-5 min`) before a time unit: "T minus ten seconds", not the
  tag "T one oh".
- Two or three dots between numbers (`4...20 mA`, `-1..+1 bar`, S7 and Codesys ranges): a
  range, "four to twenty milliamps".
- A degree sign's look-alikes before C or F (`5⁰C`, `5ºC`, `5˚C`): the degree sign (the
  superscript zero was read as a power, "five to the zero").
- (en-10) A multiplier written onto a number: a small k a thousand anywhere (`5k rpm`,
  `1.5k`: "five thousand rpm", "one point five thousand"); a capital K or M a thousand or a
  million before a word in small letters (`5K parts`, `2M cycles`), elsewhere left to the
  unit and letter rules (`T 300K`, `LEVEL 2M` in capitals may be meters); a range of them
  (`10k-20k` → "ten to twenty thousand").
- (en-10) Particulate matter (`PM2.5`, `PM10`, `PM1`): "P M two point five", "P M ten", a
  pause before a value after it, as after a name (pauses.py).
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.daydates import VERSION_WORDS
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import digits, number

# Not an amount's number (`$1~$2` is a range of money, "one to two dollars"): no currency
# sign before the number or after the tilde.
PHASES = rx.compile(
    r"(?<![\w.~$€£¥])([13])~"
    r"(?=\s?(?:\d{3,}\s?V|(?:50|60)\s?Hz)(?![\w/])|\s*(?:$|[^\d\s~.,+\-$€£¥]))"
)
MIXED_INCHES = rx.compile(r"(?<![\w.\-/])(\d{1,2})-(\d{1,2})/(\d{1,2})(?=\s?(?:\"|in\b|inch))")
BINARY = rx.compile(r"(?<![\w.])0b([01]{1,64})(?!\w|\.\d)")
_TIME_UNIT = r"s|secs?|seconds?|min|mins|minutes?|h|hrs?|hours?|days?"
COUNTDOWN = rx.compile(rf"(?<![\w.\-])T-(\d{{1,4}})(?=\s?(?:{_TIME_UNIT})\b)")
_END = r"[-+]?\d+(?:\.\d+)?"
DOTS_RANGE = rx.compile(rf"(?<![\w.])({_END})\.{{2,3}}({_END})(?!\d|[.,]\d)")
MULTIPLIED = rx.compile(
    r"(?<![\w.$€£¥-])(\d+(?:\.\d+)?)(?:(k)|([KM])(?=\s+[a-z]{2,}))(?![\w'°/²³^-]|\.\d)"
)
_MULTIPLIERS = {"k": "thousand", "K": "thousand", "M": "million"}
# A range of thousands, the k on its second end or both (`10k-20k`, `3.2-3.5k rpm`).
MULTIPLIED_RANGE = rx.compile(
    r"(?<![\w.$€£¥-])(\d+(?:\.\d+)?)k?[-\u2013](\d+(?:\.\d+)?)k(?![\w'°/²³^-]|\.\d)"
)
PARTICULATE = rx.compile(r"(?<![\w.%])(?:PM|pm)(1|2\.5|4|10)(?!\w|\.\d)(\s+(?=[-+]?\.?\d))?")
_DEGREE_LIKE = rx.compile("(?<=\\d)(\\s?)[\u2070\u00ba\u02da](?=\\s?[CF](?!\\w))")


# Circled, parenthesized and full-stop numbers (①, ⑴, ⒈, ❶) side by side are a list (en-9):
# NFKC would make `①②③` the one number 123.
_ENCLOSED = "\u2460-\u24ff\u2776-\u2793"
_BETWEEN_ENCLOSED = rx.compile(f"(?<=[{_ENCLOSED}])(?=[{_ENCLOSED}])")


def fold_degrees(text: str) -> str:
    """`5⁰C`, `5ºC`, `5 ˚C` → `5°C`, `5 °C`: the degree sign meant; enclosed numbers side by
    side parted by a comma (`①②` → `①, ②`), each its own number."""
    text = _BETWEEN_ENCLOSED.sub(", ", text)
    return _DEGREE_LIKE.sub(lambda m: m.group(1) + "\u00b0", text)


# After a version's word the letter is the version's (`firmware 1.2k`).
_VERSION_BEFORE = rx.compile(rf"\b(?i:{VERSION_WORDS})\s+$")


def _multiplied(m: re.Match[str]) -> str:
    """`5k` → "5 thousand", `2M` → "2 million"; after a version's word as written."""
    if _VERSION_BEFORE.search(m.string, max(0, m.start() - 12), m.start()):
        return m.group(0)
    return f"{m[1]} {_MULTIPLIERS[m[2] or m[3]]}"


def _particulate(m: re.Match[str]) -> str:
    """`PM2.5` → "P M two point five", a comma before a value after it (`PM10 150`)."""
    return f"P M {number(m[1])}" + (", " if m[2] else "")


def _binary(m: re.Match[str]) -> str:
    return "binary " + digits(m.group(1))


RULES = (
    Rule("phases", PHASES, lambda m: ("three" if m[1] == "3" else "single") + " phase "),
    Rule("mixed number", MIXED_INCHES, lambda m: f"{m[1]} {m[2]}/{m[3]}"),
    Rule("binary", BINARY, _binary),
    Rule("multiplier", MULTIPLIED_RANGE, lambda m: f"{m[1]} to {m[2]} thousand"),
    Rule("multiplier", MULTIPLIED, _multiplied),
    Rule("particulate matter", PARTICULATE, _particulate),
    Rule("countdown", COUNTDOWN, lambda m: f"T minus {m[1]}"),
    Rule("range", DOTS_RANGE, lambda m: f"{m[1]} to {m[2]}"),
)
"""Read first, before ranges, tags and numbers take their pieces."""
