"""Split a phrase into clauses, so the first one can be heard while the rest synthesize.

Clauses also bound memory: an engine's peak memory grows with the audio of one call (a Piper
call for 14 s of speech peaks near 440 MB), so a clause longer than MAX_CLAUSE_CHARS is cut at a
word boundary, before a conjunction when there is one.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from cosyedge.speech import rx

_BREAK = rx.compile(r"(?<=[.!?;:,])\s+")
_CONJUNCTION = rx.compile(r"\s+(?=(?:and|or|but|then|while|because|so)\s)")
MIN_CLAUSE_CHARS = 24
# The first clause may be shorter: its synthesis time is the wait before anything is heard, and
# a heading such as "Temperature alarm:" reads naturally on its own.
MIN_FIRST_CLAUSE_CHARS = 12
MAX_CLAUSE_CHARS = 120


def split_clauses(
    text: str, min_chars: int = MIN_CLAUSE_CHARS, max_chars: int = MAX_CLAUSE_CHARS
) -> list[str]:
    """Clauses at punctuation; short pieces join the next one so prosody does not turn choppy."""
    clauses: list[str] = []
    pending = ""
    for piece in _BREAK.split(text.strip()):
        pending = f"{pending} {piece}" if pending else piece
        if len(pending) >= (min_chars if clauses else MIN_FIRST_CLAUSE_CHARS):
            clauses.append(pending)
            pending = ""
    if pending:
        if clauses and len(pending) < min_chars // 2:
            clauses[-1] = f"{clauses[-1]} {pending}"
        else:
            clauses.append(pending)
    return [part for clause in clauses for part in _cut(clause, max_chars)]


def _cut(clause: str, max_chars: int) -> list[str]:
    parts = []
    while len(clause) > max_chars:
        window = clause[: max_chars + 1]
        at = max((m.start() for m in _CONJUNCTION.finditer(window)), default=-1)
        if at < max_chars // 3:
            at = window.rfind(" ")
        if at <= 0:
            break  # one enormous word: nothing sensible to cut at
        parts.append(clause[:at])
        clause = clause[at:].lstrip()
    parts.append(clause)
    return parts


def even_pieces(text: str, limit: int) -> list[str]:
    """`text` as it is if within `limit` characters, else in the fewest even pieces within it:
    for a word or a run with nothing to cut at, which must still be said in bounded steps."""
    count = -(-len(text) // limit)
    size = -(-len(text) // count)
    return [text[i : i + size] for i in range(0, len(text), size)]


@dataclass(frozen=True)
class ParagraphRules:
    """CosyVoice's frontend rules for cutting a paragraph into the clauses it speaks one at a
    time (its `split_paragraph`, Chinese profile, lengths in characters): cut after each of
    `marks` (not at commas), a closing quote staying with the clause it closes; then join
    pieces while a clause stays within `max_len`, or while it is not yet over `min_len`; a
    last clause under `merge_len` joins the one before. Text not ending in a mark gets
    `final_mark`, as the reference's does; clauses of punctuation alone are dropped."""

    marks: str = "。？！；：、.?!;"  # noqa: RUF001 (the full-width marks are the point)
    closing_quotes: str = '"”'
    final_mark: str = "。"
    max_len: int = 80
    min_len: int = 60
    merge_len: int = 20


def paragraph_clauses(text: str, rules: ParagraphRules = ParagraphRules()) -> list[str]:
    """`text` cut and joined by `rules` (see ParagraphRules)."""
    if not text:
        return []
    if text[-1] not in rules.marks:
        text += rules.final_mark
    clauses = _joined(_cut_after_marks(text, rules), rules)
    return [clause for clause in clauses if not _only_punctuation(clause)]


def _cut_after_marks(text: str, rules: ParagraphRules) -> list[str]:
    pieces: list[str] = []
    start = 0
    for i, char in enumerate(text):
        if char not in rules.marks:
            continue
        if i > start:
            pieces.append(text[start:i] + char)
        quoted = i + 1 < len(text) and text[i + 1] in rules.closing_quotes
        if quoted and pieces:  # the quote closes the piece just cut
            pieces[-1] += text[i + 1]
        start = i + 2 if quoted else i + 1
    return pieces


def _joined(pieces: list[str], rules: ParagraphRules) -> list[str]:
    clauses: list[str] = []
    current = ""
    for piece in pieces:
        if len(current + piece) > rules.max_len and len(current) > rules.min_len:
            clauses.append(current)
            current = ""
        current += piece
    if current and len(current) < rules.merge_len and clauses:
        clauses[-1] += current
    elif current:
        clauses.append(current)
    return clauses


def _only_punctuation(text: str) -> bool:
    """Empty, or only punctuation and symbols (Unicode categories P and S)."""
    return all(unicodedata.category(char)[0] in "PS" for char in text)
