"""Reading classes applied in turn to a text, each place one of them read kept for `cosyedge
read --explain`.

A front end reads a text with an ordered list of rules, one or more per reading class (a date,
a MAC address, a unit, a device tag, ...). Each rule rewrites the places its pattern matches;
later rules read what earlier ones left (a range leaves its two numbers for the units and
numbers after it). Every rewrite is recorded as a `Span` of the text as written: which class
read it, what was written there and what the class made of it. Each character of the text
being read remembers the stretch of the written text it came from, so a later rule's match
is traced back to the characters an operator wrote even when an earlier rule has rewritten
them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from cosyedge.speech import rx


@dataclass(frozen=True)
class Rule:
    """One reading class, or one step of one: where it applies and what it says there. `say`
    returns the match's own text where the class turns out not to apply (a date of month 13);
    such a place is not recorded."""

    reading: str  # the class, as `read --explain` names it
    pattern: re.Pattern[str]
    say: Callable[[re.Match[str]], str]


def rule(
    reading: str, pattern: str | re.Pattern[str], say: Callable[[re.Match[str]], str] | str
) -> Rule:
    """A rule; `say` may be a replacement template such as `r"\\1 to \\2"`."""
    compiled = rx.compile(pattern)
    if isinstance(say, str):
        template = say
        return Rule(reading, compiled, lambda m: m.expand(template))
    return Rule(reading, compiled, say)


@dataclass(frozen=True)
class Span:
    """A place a class read: `written[start:end]` of the text as written, and what it said."""

    reading: str
    start: int
    end: int
    written: str
    said: str


@dataclass(frozen=True)
class Explained:
    """A text read: what is said, the text as written (after Unicode folding), and the places
    each class read, in the order of the written text."""

    said: str
    written: str
    spans: tuple[Span, ...]

    def unread(self) -> list[tuple[int, int]]:
        """The stretches of the written text no class read (spaces between them left out)."""
        covered = [False] * len(self.written)
        for span in self.spans:
            covered[span.start : span.end] = [True] * (span.end - span.start)
        stretches = []
        for m in re.finditer(r"\S+", self.written):
            start = m.start()
            for i in range(m.start(), m.end() + 1):
                if i == m.end() or covered[i]:
                    if i > start:
                        stretches.append((start, i))
                    start = i + 1
        return stretches


@dataclass
class _Tracing:
    """The text being read, each character with the (start, end) of the written text it came
    from."""

    written: str
    text: str = ""
    origins: list[tuple[int, int]] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.text = self.written
        self.origins = [(i, i + 1) for i in range(len(self.written))]

    def apply(self, step: Rule) -> None:
        pieces: list[str] = []
        origins: list[tuple[int, int]] = []
        at = 0
        for m in step.pattern.finditer(self.text):
            said = step.say(m)
            pieces.append(self.text[at : m.start()])
            origins += self.origins[at : m.start()]
            origins += self._origins_of(m, said)
            pieces.append(said)
            at = m.end()
            if said != m.group(0) and m.end() > m.start():
                start, end = self._stretch(m.start(), m.end())
                self.spans.append(Span(step.reading, start, end, self.written[start:end], said))
        pieces.append(self.text[at:])
        origins += self.origins[at:]
        self.text, self.origins = "".join(pieces), origins

    def _stretch(self, start: int, end: int) -> tuple[int, int]:
        if start == end:  # an insertion: it stands where the character before it came from
            point = self.origins[start - 1][1] if start else 0
            return point, point
        inside = self.origins[start:end]
        return min(o[0] for o in inside), max(o[1] for o in inside)

    def _origins_of(self, m: re.Match[str], said: str) -> list[tuple[int, int]]:
        """Where each character of `said` came from: a group's text found said as it was
        written keeps that group's origins (a range's numbers, left for the units after
        them); the rest comes from the whole match. Only what is shown depends on it, never
        what is said."""
        whole = self._stretch(m.start(), m.end())
        out = [whole] * len(said)
        at = 0
        for g in range(1, (m.re.groups or 0) + 1):
            text = m.group(g)
            if not text:
                continue
            found = said.find(text, at)
            if found < 0:
                continue
            out[found : found + len(text)] = self.origins[m.start(g) : m.end(g)]
            at = found + len(text)
        return out


def alternatives(words: Iterable[str]) -> str:
    """A pattern of any of `words`, longest first (a regex takes the first that matches),
    then by name: the same text in every process whatever order `words` come in (a set's
    differs), so its compiled program is found kept (speech/rx.py)."""
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


def explain(rules: Iterable[Rule], written: str) -> Explained:
    """`written` read by `rules` in turn, with every place a rule read."""
    tracing = _Tracing(written)
    for step in rules:
        tracing.apply(step)
    spans = sorted(tracing.spans, key=lambda s: (s.start, -s.end))
    return Explained(tracing.text, written, tuple(spans))


def read(rules: Iterable[Rule], text: str) -> str:
    """`text` read by `rules` in turn: what `explain` says, without keeping where."""
    for step in rules:
        text = step.pattern.sub(step.say, text)
    return text
