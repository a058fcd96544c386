"""Which language says which part of a phrase: split mixed Chinese/English text into runs.

Chinese characters are Mandarin and English words are English, whatever the template says;
what neither script decides (numbers, device tags, units, punctuation) goes with the run
before it, or the run after it at the start. A phrase with no letters of either script is
said in the language the template or alert asked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cosyedge.speech.zh.alertforms import UNITS

_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_TOKEN = re.compile(
    r"(?P<han>[\u3400-\u9fff\uf900-\ufaff，。！？；：、“”‘’（）《》【】]+)"
    r"|(?P<word>[A-Za-z][A-Za-z'’]*)"
    r"|(?P<number>\d+(?:[.,:]\d+)*)"
    r"|(?P<space>\s+)"
    r"|(?P<other>.)",
    re.S,
)
_ACRONYM = re.compile(r"[A-Z]{1,4}\Z")


@dataclass(frozen=True)
class Run:
    lang: str  # "zh", "en" or the phrase's own language for script-neutral text
    text: str


def has_han(text: str) -> bool:
    return _HAN.search(text) is not None


def _english_word(word: str, previous: str) -> bool:
    """A Latin word an English voice should say; tags (PT), units after a number (rpm,
    MPa) and single letters are spelled or read by the Mandarin front end instead."""
    if len(word) < 2 or _ACRONYM.match(word):
        return False
    return not (word in UNITS and previous == "number")


def split_runs(text: str, lang: str) -> list[Run]:
    """Runs of one language each, in order; adjacent runs never share a language."""
    tokens: list[tuple[str, str]] = []
    previous = ""
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "other"
        value = m.group(0)
        if kind == "word":
            kind = "en" if _english_word(value, previous) else "neutral"
        elif kind == "han":
            kind = "zh"
        elif kind != "space":
            kind = "neutral"
        tokens.append((kind, value))
        if kind != "space":
            previous = "number" if m.lastgroup == "number" else kind
    langs = _assign(tokens, lang)
    runs: list[Run] = []
    for (_, value), run_lang in zip(tokens, langs, strict=True):
        if runs and runs[-1].lang == run_lang:
            runs[-1] = Run(run_lang, runs[-1].text + value)
        else:
            runs.append(Run(run_lang, value))
    return [Run(r.lang, r.text.strip()) for r in runs if r.text.strip()]


def _assign(tokens: list[tuple[str, str]], lang: str) -> list[str]:
    """Neutral and space tokens take the language of the nearest decided token before them
    (after them at the start); all neutral means the phrase's own language."""
    decided = [kind if kind in ("zh", "en") else None for kind, _ in tokens]
    first = next((d for d in decided if d), lang)
    out, current = [], first
    for d in decided:
        current = d or current
        out.append(current)
    return out
