"""Split a phrase into clauses, so the first one can be heard while the rest synthesize."""

from __future__ import annotations

import re

_BREAK = re.compile(r"(?<=[.!?;:,])\s+")
MIN_CLAUSE_CHARS = 24


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
    return clauses
