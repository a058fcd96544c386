"""Split a phrase into clauses, so the first one can be heard while the rest synthesize.

Clauses also bound memory: an engine's peak memory grows with the audio of one call (a Piper
call for 14 s of speech peaks near 440 MB), so a clause longer than MAX_CLAUSE_CHARS is cut at a
word boundary, before a conjunction when there is one.
"""

from __future__ import annotations

import re

_BREAK = re.compile(r"(?<=[.!?;:,])\s+")
_CONJUNCTION = re.compile(r"\s+(?=(?:and|or|but|then|while|because|so)\s)")
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
