"""Which language says which part of a phrase: split mixed Chinese/English text into runs.

Chinese characters are Mandarin and English words are English, whatever the template says; what
neither script decides (numbers, device tags, units, punctuation) goes with the run before it, or
the run after it at the start; a number on its own written onto Chinese characters is theirs, and in
an English phrase what follows a Chinese name after a space is English again. A phrase with no
letters of either script is said in the language the template or alert asked for. Words of other
scripts (Cyrillic, Arabic, ...) are only given to a voice whose language is neither English nor
Mandarin: that voice is taken to read its own script, the English and Mandarin voices do not.

Given the languages that have a voice, a run none of them can say is kept but marked unsaid, and
the script-neutral text around it goes to a voice that can say it: with only an English voice,
`第三线: 21.5` still says "twenty one point five".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass

from cosyedge.speech import rx
from cosyedge.speech.text import fields
from cosyedge.speech.text.acronyms import WORD_ACRONYMS
from cosyedge.speech.zh import spellings, units

_HAN_CHARS = "\u3400-\u9fff\uf900-\ufaff"
_HAN = rx.compile(f"[{_HAN_CHARS}]")
_FULL_WIDTH = "，。！？；：、“”‘’（）《》【】"
# Fields written in Latin letters and digits that are read as one whatever the script around
# them (a MAC address, a duration, a number and its unit): their letters are no English words.
# A unit in capitals or mixed case (75KW, 1.6Mpa) is one too, not an English word.
# The spelling is tried first (l/mIn is one unit, not l) where no quotient goes on after it
# or product (mPa/ft, mPa·ft, mm-m are the unit's).
_SPELLED = rf"(?i:{spellings.SPELLING})(?![-/A-Za-z0-9·⋅*^²³])"
_QUANTITY = rf"\d+(?:[.,]\d+)*\s?(?:{_SPELLED}|{units.PATTERN})"
_FIELDS = "|".join([fields.MAC_FORM, fields.DURATION_FORM, _QUANTITY])
# A URL is English however its scheme is written (HTTP://, opc.tcp://) and whatever its host
# (an address of digits): it runs to a space, a Chinese character or full-width punctuation.
_URL = rf"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s{_HAN_CHARS}{_FULL_WIDTH}]*"
_TOKEN = rx.compile(
    rf"(?P<url>{_URL})"
    rf"|(?P<field>(?<![A-Za-z0-9])(?:{_FIELDS})(?![A-Za-z0-9]))"
    # Full-width punctuation is Mandarin next to Chinese characters; alone between English
    # words (`Tank T-101；85%`) it is neutral, as ASCII punctuation is. Tried only where a run
    # of punctuation starts: where it fails there it fails inside the run too, and trying it
    # at every mark of a long run scanned the rest each time (quadratic time).
    rf"|(?P<han>(?<![{_FULL_WIDTH}])[{_FULL_WIDTH}]*+[{_HAN_CHARS}][{_HAN_CHARS}{_FULL_WIDTH}]*)"
    r"|(?P<word>[A-Za-z][A-Za-z'’]*)"
    r"|(?P<number>\d+(?:[.,:]\d+)*)"
    r"|(?P<space>\s+)"
    rf"|(?P<letters>[^\W\d_A-Za-z{_HAN_CHARS}]+)"  # letters of other scripts
    r"|(?P<other>.)",
    re.S,
)
_ACRONYM = rx.compile(r"[A-Z]{1,4}\Z")
# Words that are a code's or a number's, not English: a number sign or a drive's code before a
# dot and digits (`No.3`, `Err.05`), and pH, which Mandarin text says letter by letter (P H值).
_CODE_WORD = rx.compile(r"(?:(?:No|NO|no|Err|ERR|Er|Alm|Al)\.\d|pH(?![A-Za-z]))")
_OWN_SCRIPT = ("en", "zh")  # languages whose voices read only Latin or Han letters
NO_SCRIPT = ""  # the language of an unsaid run in a script no configured language names


@dataclass(frozen=True)
class Run:
    lang: str  # "zh", "en", the phrase's own language, or NO_SCRIPT for an unread script
    text: str
    said: bool = True  # False: no configured voice reads it, so it is left out


def has_han(text: str) -> bool:
    return _HAN.search(text) is not None


def says_anything(runs: Collection[Run]) -> bool:
    """Whether the said runs hold a word or a number, not only symbols, emoji or spaces."""
    return any(r.said and any(c.isalnum() for c in r.text) for r in runs)


def why_unsaid(run: Run) -> str:
    return f"no {run.lang} voice" if run.lang else "no voice reads its script"


def _english_word(word: str, previous: str) -> bool:
    """A Latin word an English voice should say; tags (PT), units after a number (rpm,
    MPa) and single letters are spelled or read by the Mandarin front end instead. An
    acronym said as a word (LOTO, ATEX) is English."""
    if len(word) < 2 or (_ACRONYM.match(word) and word not in WORD_ACRONYMS):
        return False
    # am and pm after a time are the time's: read with it, in the phrase's language.
    after_number = units.is_unit(word) or word.lower() in ("am", "pm")
    return not (after_number and previous == "number")


def _foreign(letters: str) -> bool:
    """Two or more letters of a script other than Latin and Han; a lone one is neutral, as
    units and labels are (Ω, μ, Δ)."""
    count = sum(1 for c in letters if c.isalpha() and "LATIN" not in unicodedata.name(c, ""))
    return count >= 2


def _tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text): kind is zh, zh number, en, foreign, neutral or space. A combining mark,
    and letters after one, stay with the letters before them (Devanagari, Thai)."""
    tokens: list[tuple[str, str]] = []
    previous = ""
    for m in _TOKEN.finditer(text):
        kind, value = m.lastgroup or "other", m.group(0)
        if tokens and tokens[-1][0] == "letters" and _joins_letters(kind, value):
            tokens[-1] = ("letters", tokens[-1][1] + value)
            continue
        if kind == "url":
            kind = "en"
        elif kind == "word":
            code = _CODE_WORD.match(text, m.start()) is not None
            kind = "en" if not code and _english_word(value, previous) else "neutral"
        elif kind == "han":
            kind = "zh"
        elif kind not in ("space", "letters"):
            kind = "neutral"
        tokens.append((kind, value))
        if kind != "space":
            previous = "number" if m.lastgroup == "number" else kind
    tokens = [(_letters_kind(v) if k == "letters" else k, v) for k, v in tokens]
    return _numbers_of_han(tokens)


def _numbers_of_han(tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A form of numbers standing on its own (after a space, punctuation or nothing) and
    written onto Chinese characters is theirs: `Alarm 12月31日`, `Pump 2台`, `ALARM 2/3台` are
    read 十二月, 两台, 三台中的两台, not "twelve" then 月 (nor "two slash" then 三台). A number
    written onto letters or a hyphen (`PT-144读数`) stays with its tag, and one written onto
    full-width punctuation (`Pump 3` then a full-width bracket) with the words before it;
    `No.3炉` is theirs whole (三号炉); with no Mandarin voice it is neutral, said by a voice
    that can. An opening full-width bracket or quotation mark
    written onto Chinese is theirs too (`Alarm` then a full-width bracket, `1号泵` and its
    closing one: the bracket opens the Mandarin part)."""
    out = list(tokens)
    for i in range(len(tokens) - 1):
        # Written onto a bracket or a comma (`Pump 3（备用）`), the number is not theirs.
        if tokens[i + 1][0] != "zh" or not _HAN.match(tokens[i + 1][1]):
            continue
        start = _form_start(tokens, i)
        for j in range(start, i + 1) if start is not None else ():
            out[j] = ("zh number", tokens[j][1])
    for i, (kind, value) in enumerate(out[:-1]):
        if kind == "neutral" and value in _OPENING and out[i + 1][0] in ("zh", "zh number"):
            out[i] = ("zh number", value)
    return out


_OPENING = "（“‘《【"
# What a form of numbers is written with between its numbers (2/3, 1:3, 3-5, 1,2).
_FORM_MARKS = "/:.,-~"


def _form_start(tokens: list[tuple[str, str]], end: int) -> int | None:
    """Where the form of numbers and marks ending at `end`, a number, starts; None where it
    is no such form standing on its own (written onto letters, a hyphen or nothing numeric)."""
    if tokens[end][0] != "neutral" or not tokens[end][1][:1].isdigit():
        return None
    start = end
    while start >= 2 and tokens[start - 1][1] in _FORM_MARKS and tokens[start - 2][1][:1].isdigit():
        if tokens[start - 2][0] != "neutral":
            break
        start -= 2
    if start >= 2 and tokens[start - 1][1] == "." and _CODE_WORD.match(tokens[start - 2][1] + ".0"):
        start -= 2  # the number sign's: No.3炉 is 三号炉
    before = tokens[start - 1][1][-1:] if start else ""
    alone = not before or not (before.isalnum() or before in "-_.")
    return start if alone else None


def _joins_letters(kind: str, value: str) -> bool:
    return kind == "letters" or (kind == "other" and unicodedata.category(value)[0] == "M")


def _letters_kind(letters: str) -> str:
    return "foreign" if _foreign(letters) else "neutral"


def split_runs(text: str, lang: str, voices: Collection[str] | None = None) -> list[Run]:
    """Runs in order; adjacent runs never share both language and said-ness.

    `voices`: the languages that have a voice (None: every language). A word whose voice is
    missing becomes an unsaid run; a Latin word without an English voice goes to the phrase's
    own voice unless that is Mandarin (which would spell it letter by letter)."""
    tokens = _tokens(text)
    targets = _targets(tokens, lang, voices)
    runs: list[Run] = []
    for (_, value), (run_lang, said) in zip(tokens, targets, strict=True):
        if runs and (runs[-1].lang, runs[-1].said) == (run_lang, said):
            runs[-1] = Run(run_lang, runs[-1].text + value, said)
        else:
            runs.append(Run(run_lang, value, said))
    return [Run(r.lang, r.text.strip(), r.said) for r in runs if r.text.strip()]


def languages_at(text: str, lang: str, voices: Collection[str] | None = None) -> list[str]:
    """The language of the run each character of `text` falls in (as `split_runs` cuts it;
    a space counts with its run)."""
    tokens = _tokens(text)
    targets = _targets(tokens, lang, voices)
    return [
        run_lang for (_, value), (run_lang, _) in zip(tokens, targets, strict=True) for _ in value
    ]


def _targets(
    tokens: list[tuple[str, str]], lang: str, voices: Collection[str] | None
) -> list[tuple[str, bool]]:
    """(language, said) per token. Neutral tokens take the nearest said decided token before
    them (after them at the start), else the phrase's own language; spaces go with the token
    before them (after them at the start), so a space never splits a run."""
    decided = [_decided(kind, lang, voices) for kind, _ in tokens]
    said = [d for d in decided if d is not None and d[1]]
    current = said[0] if said else (lang, voices is None or lang in voices)
    out: list[tuple[str, bool]] = []
    for d in decided:
        if d is not None and d[1]:
            current = d
        out.append(d if d is not None else current)
    if lang == "en" and ("en", True) in said:
        out = _after_a_name(tokens, decided, out)
    return _spaces_follow(tokens, out)


def _after_a_name(
    tokens: list[tuple[str, str]],
    decided: list[tuple[str, bool] | None],
    targets: list[tuple[str, bool]],
) -> list[tuple[str, bool]]:
    """In an English phrase, Chinese characters between English words are a name or a place
    (`Operator 张伟 12.5 bar`, `Area 北区 TT-101 45 °C`): what follows them after a space,
    up to the next English word or the end, is English again, not read in Mandarin. Before
    more Chinese (`温度 85 ℃ 过高`) it stays Mandarin."""
    out = list(targets)
    ahead: tuple[str, bool] | None = None  # the next said decided token, from the end
    spaced = [False] * len(tokens)
    for i in range(1, len(tokens)):  # a space since the last decided token
        spaced[i] = decided[i - 1] is None and (spaced[i - 1] or tokens[i - 1][0] == "space")
    for i in range(len(tokens) - 1, -1, -1):
        d = decided[i]
        if d is not None and d[1]:
            ahead = d
        elif d is None and out[i][0] == "zh" and spaced[i] and ahead in (None, ("en", True)):
            out[i] = ("en", True)
    return out


def _spaces_follow(
    tokens: list[tuple[str, str]], targets: list[tuple[str, bool]]
) -> list[tuple[str, bool]]:
    out = list(targets)
    for i, (kind, _) in enumerate(tokens):
        if kind == "space":
            if i > 0:
                out[i] = out[i - 1]
            elif len(tokens) > 1:
                out[i] = targets[1]
    return out


def _decided(kind: str, lang: str, voices: Collection[str] | None) -> tuple[str, bool] | None:
    """Who says a token of this kind: (language, said), or None for neutral text."""

    def has(language: str) -> bool:
        return voices is None or language in voices

    if kind == "zh":
        return ("zh", has("zh"))
    if kind == "zh number":
        return ("zh", True) if has("zh") else None
    if kind == "en":
        if has("en"):
            return ("en", True)
        if lang != "zh" and has(lang):
            return (lang, True)  # a Latin-script voice of another language reads the word
        return ("en", False)
    if kind == "foreign":
        if lang not in _OWN_SCRIPT and has(lang):
            return (lang, True)
        return (NO_SCRIPT, False)
    return None
