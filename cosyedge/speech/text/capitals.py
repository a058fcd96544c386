"""Words of alerts written in capitals, as SCADA and PLC text is (en-9).

An English voice spells a word of capitals it does not know and says one it takes for a word
(hibari says `HI` "aitch-eye", `AT` "A T", but `PAH` "pah", `SIS` "sis"), so such words are
given to it the way an operator says them:
- alarm levels, in any text: `HI` → "high", `HI HI`, `HIHI`, `HI-HI` → "high high", `LO` →
  "low", `LO LO`, `LOLO` → "low low" (an alert greets no one); the ISA short forms `HH`, `LL`
  (en-11) after a tag's digits or Level, or before a colon or a word of alarm (`LIC43 HH: 73 %`,
  `Level LL alarm`, `TE78 LL:`) → "high high", "low low" (elsewhere, `400 V LL`, they are
  letters);
- in an all-capital sentence, short function words as words: `PRESSURE 12.5 BAR AT 07:45` →
  "... at ...", and so AT, ON, IN, OF, TO, FOR, AND, OR, THE, BY, FROM, WITH, not spelled.
  A sentence is taken for all capitals where no small letter is written within 40
  characters either side and another word of three capitals or more is (`Meet AT 5` is no
  such sentence, and its AT is left to the voice);
- ISA alarm and switch mnemonics (a measured variable, A or S, then H, L, HH or LL: `PAH`,
  `TAL`, `LAHH`, `PSL`; not analysis, whose `ASH` is a word) and `SIS`, `UPS`: spelled
  letter by letter, "P eh H", "S I S", as said on a plant floor, not "pah" or "sis".
Words a site's lexicon gives phonemes for are left as written (english.py passes them).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import letters

# A word alone: not a tag's member (`PT-101.HI`), a path's piece or a field's.
_START = r"(?<![\w.:/-])"
_END = r"(?![\w-]|[.:/]\w)"
LEVELS = rx.compile(rf"{_START}(?:(HI)(?:[ -]?HI)?|(LO)(?:[ -]?LO)?){_END}")
ISA_LEVELS = rx.compile(
    r"(?:(?<=\d )|(?<=\d[A-Z] )|(?<=[Ll]evel )|(?<=LEVEL )"
    r"|(?<![\w.:/-])(?=..\s*(?::|\s(?i:alarm|alm|trip)\b)))"
    rf"(?:(HH)|LL){_END}"
)
_FUNCTION_WORDS = "AT|ON|IN|OF|TO|FOR|AND|OR|THE|BY|FROM|WITH"
FUNCTION_WORD = rx.compile(rf"{_START}(?:{_FUNCTION_WORDS}){_END}")
SPELLED = rx.compile(rf"{_START}(?:[DEFJLPSTVWZ][AS](?:HH|LL|H|L)|SIS|UPS){_END}")
# How far either side a small letter makes a sentence no all-capital one; a bound keeps a
# reading linear in the length of the text.
_REACH = 40
_CAPITAL_WORD = rx.compile(rf"\b(?!(?:{_FUNCTION_WORDS})\b)[A-Z]{{3,}}\b")


def _level(m: re.Match[str]) -> str:
    """`HI HI` → "high high", `LO` → "low": one word per level written."""
    word = "high" if m[1] else "low"
    return f"{word} {word}" if len(m.group(0)) > 2 else word


def _all_capitals(m: re.Match[str]) -> bool:
    """Whether the match stands in an all-capital sentence (see the module's docstring)."""
    before = m.string[max(0, m.start() - _REACH) : m.start()]
    after = m.string[m.end() : m.end() + _REACH]
    if re.search("[a-z]", before + after):
        return False
    return bool(_CAPITAL_WORD.search(before) or _CAPITAL_WORD.search(after))


def _function_word(m: re.Match[str]) -> str:
    return m.group(0).lower() if _all_capitals(m) else m.group(0)


RULES = (
    Rule("word in capitals", FUNCTION_WORD, _function_word),
    Rule("alarm level", LEVELS, _level),
    Rule("alarm level", ISA_LEVELS, lambda m: "high high" if m[1] else "low low"),
    Rule("letters", SPELLED, lambda m: " ".join(letters(m.group(0)))),
)
"""Read first, before a lower-case word is written anywhere near (function words before the
levels, which would make a sentence look lower-case)."""


def kept(line: Rule, keep: Collection[str]) -> Rule:
    """`line`, one of RULES leaving a match with a word in `keep` as written; any other
    line as it is."""
    if line not in RULES or not keep:
        return line

    def say(m: re.Match[str]) -> str:
        return m.group(0) if set(re.split("[ -]", m.group(0))) & set(keep) else line.say(m)

    return Rule(line.reading, line.pattern, say)
