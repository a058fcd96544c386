"""The site pronunciation lexicon at work: written forms found in a phrase, said the site's way.

Entries apply in two places (docs/voices.md, "Site pronunciations"): `say` entries rewrite
the whole phrase before it is split into languages (`say_phrase`), so a Mandarin entry can
say a Latin unit inside Chinese text, and the built-in reading rules then read the spoken
form like any text; `phonemes` and `pinyin` entries take a word out of the
grapheme-to-phoneme step, in the text the rules leave. In both, all entries are tried at
each place in one pass, the first entry in the list that matches winning, so the result
never depends on what an earlier entry produced.

A lexicon's digest is part of the identity of every voice using it, so audio cached under
one lexicon is never served under another.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass

from cosyedge.config.pronunciation import PronunciationConfig, at_word_edges
from cosyedge.speech import rx


@dataclass(frozen=True)
class Applied:
    """One place an entry applied: which entry, what it matched, what is said instead."""

    index: int  # its position in the language's list, as `pronunciations.<lang>[index]`
    written: str
    spoken: str  # a text, phonemes or tone-numbered pinyin, after `form`
    form: str  # "say", "phonemes" or "pinyin"


class _Matcher:
    """Entries of some forms as one regular expression: leftmost place, then first entry."""

    def __init__(self, entries: Iterable[tuple[int, PronunciationConfig]]) -> None:
        self._entries = dict(entries)
        self._own = {
            i: re.compile(e.pattern) for i, e in self._entries.items() if e.pattern is not None
        }
        alternatives = [
            f"(?P<e{i}>{at_word_edges(e.pattern or re.escape(e.written))})"
            for i, e in self._entries.items()
        ]
        # A site's own words, with `re`: nothing of them is kept beside the package (rx.py).
        self._regex = re.compile("|".join(alternatives)) if alternatives else None

    def find(self, text: str) -> Iterator[tuple[re.Match[str], Applied]]:
        if self._regex is None:
            return
        for m in self._regex.finditer(text):
            if m.end() == m.start():
                continue  # a pattern that can match nothing says nothing instead of nothing
            yield m, self._applied(m)

    def _applied(self, m: re.Match[str]) -> Applied:
        # The outermost group closes last, so it is the entry's own `e<index>`.
        index = int(str(m.lastgroup)[1:])
        entry, written = self._entries[index], m.group(0)
        if entry.say is None:
            form = "phonemes" if entry.phonemes is not None else "pinyin"
            return Applied(index, written, str(entry.phonemes or entry.pinyin), form)
        own = self._own.get(index)
        # Patterns have no lookarounds or anchors (config/pronunciation.py), so the entry's
        # own pattern matches its match again, with its own group numbers.
        spoken = own.fullmatch(written).expand(entry.say) if own else entry.say  # type: ignore[union-attr]
        return Applied(index, written, spoken, "say")


class Lexicon:
    """One language's entries, compiled; immutable, so voices can share one."""

    def __init__(self, entries: Iterable[PronunciationConfig] = ()) -> None:
        self.entries = tuple(entries)
        material = json.dumps([dataclasses.asdict(e) for e in self.entries], ensure_ascii=False)
        self.digest = hashlib.sha256(material.encode()).hexdigest() if self.entries else ""
        numbered = list(enumerate(self.entries))
        self._say = _Matcher((i, e) for i, e in numbered if e.say is not None)
        self._sounds = _Matcher((i, e) for i, e in numbered if e.say is None)

    def __bool__(self) -> bool:
        return bool(self.entries)

    @property
    def sounded(self) -> frozenset[str]:
        """The words given `phonemes` or `pinyin`: the reading rules leave them as written,
        for these entries to find (an acronym the rules would respell, LOTO)."""
        return frozenset(e.word for e in self.entries if e.say is None and e.word is not None)

    def says(self, text: str) -> Iterator[tuple[re.Match[str], Applied]]:
        """Each place a `say` entry matches, leftmost first."""
        return self._say.find(text)

    def rewrite(self, text: str, applied: list[Applied]) -> str:
        """`text` with every `say` entry's written form replaced by its spoken form. The
        separator of a tag whose prefix was replaced (`FV-101`) becomes a space: the number is
        then read after the spoken form instead of being run into its last word."""
        return self._replace(self._say, text, applied, lambda a: a.spoken, _TAG_SEPARATOR)

    def mark(self, text: str, markup: Callable[[Applied], str], applied: list[Applied]) -> str:
        """`text` with every `phonemes` or `pinyin` word replaced by `markup` of it: the
        engine's own way of being handed a word's phonemes."""
        return self._replace(self._sounds, text, applied, markup)

    def split(self, text: str, applied: list[Applied]) -> list[str | Applied]:
        """`text` cut into plain stretches and the `phonemes` or `pinyin` words found in it."""
        pieces: list[str | Applied] = []
        at = 0
        for m, found in self._sounds.find(text):
            pieces += [text[at : m.start()], found] if m.start() > at else [found]
            applied.append(found)
            at = m.end()
        if at < len(text):
            pieces.append(text[at:])
        return pieces

    @staticmethod
    def _replace(
        matcher: _Matcher,
        text: str,
        applied: list[Applied],
        spoken: Callable[[Applied], str],
        separator: re.Pattern[str] | None = None,
    ) -> str:
        """Each match replaced by `spoken` of it; a `separator` right after a match, by a space."""
        out, at = [], 0
        for m, found in matcher.find(text):
            out += [text[at : m.start()], spoken(found)]
            applied.append(found)
            at = m.end()
            if separator is not None and separator.match(text, at):
                out.append(" ")
                at += 1
        return "".join([*out, text[at:]])


_TAG_SEPARATOR = rx.compile(r"[-_](?=\d)")


NO_LEXICON = Lexicon()


@dataclass(frozen=True)
class Said:
    """One `say` entry applied to a phrase: its language, the entry, and where its spoken
    form stands in the rewritten phrase."""

    lang: str
    applied: Applied
    start: int
    end: int


def say_phrase(
    text: str, lang: str, lexicons: Mapping[str, Lexicon], voices: Collection[str] | None = None
) -> tuple[str, list[Said]]:
    """`text` (a phrase in `lang`) with every language's `say` entries applied where that
    language is spoken: where the match, or a character next to it, falls in a run of that
    language as the phrase is split without them. So a Mandarin entry applies to a Latin unit
    inside Chinese text (1.5L/min), not to the same letters in an English sentence. At one
    place the phrase's own language is tried first; then, in each language, the first entry
    in its list that matches."""
    from cosyedge.speech.lang import languages_at  # its rules compiled only when text is read

    heard = languages_at(text, lang, voices)
    order = sorted(lexicons, key=lambda code: code != lang)
    found = []
    for rank, code in enumerate(order):
        for m, applied in lexicons[code].says(text):
            if code in heard[max(m.start() - 1, 0) : m.end() + 1]:
                found.append((m.start(), rank, m.end(), code, applied))
    out, said, at = [], [], 0
    for start, _, end, code, applied in sorted(found):
        if start < at:
            continue  # overlaps a place already said
        out.append(text[at:start])
        begin = sum(map(len, out))
        out.append(applied.spoken)
        said.append(Said(code, applied, begin, begin + len(applied.spoken)))
        at = end
        if _TAG_SEPARATOR.match(text, at):
            out.append(" ")
            at += 1
    out.append(text[at:])
    return "".join(out), said
