"""Split a phrase into clauses, so the first one can be heard while the rest synthesize."""

from __future__ import annotations

import re

_BREAK = re.compile(r"(?<=[.!?;:,])\s+")
MIN_CLAUSE_CHARS = 24
# Synthesis memory grows with clause length (Piper: about 20 MB per second of audio), so the
# longest clause bounds the peak; 120 characters is about six seconds of speech.
MAX_CLAUSE_CHARS = 120


def split_clauses(text: str, min_chars: int = MIN_CLAUSE_CHARS) -> list[str]:
    """Clauses at punctuation; short pieces join the next one so prosody does not turn choppy."""
    clauses: list[str] = []
    pending = ""
    for piece in _BREAK.split(text.strip()):
        pending = f"{pending} {piece}" if pending else piece
        if len(pending) >= min_chars:
            clauses.append(pending)
            pending = ""
    if pending:
        if clauses and len(pending) < min_chars // 2:
            clauses[-1] = f"{clauses[-1]} {pending}"
        else:
            clauses.append(pending)
    return [piece for clause in clauses for piece in _cap(clause, MAX_CLAUSE_CHARS)]


def _cap(clause: str, max_chars: int) -> list[str]:
    """Break an over-long clause at word boundaries."""
    pieces = []
    while len(clause) > max_chars:
        cut = clause.rfind(" ", 0, max_chars + 1)
        cut = cut if cut > 0 else max_chars
        pieces.append(clause[:cut].rstrip())
        clause = clause[cut:].lstrip()
    return [*pieces, clause] if clause else pieces
