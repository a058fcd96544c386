"""CosyVoice-300M's text tokenizer: whisper's multilingual byte-level BPE, without tiktoken.

The ranks file (`multilingual.tiktoken`, one base64 token and its rank a line) comes with
the pack. Text is cut into pieces as whisper's pattern cuts it:

    's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+

(the standard `re` module has no \\p classes, so the pattern is followed by hand with
Unicode categories); each piece's UTF-8 bytes are then merged pair by pair, lowest rank
first, as tiktoken does. The conversion tests compare the ids with whisper's own tokenizer.
"""

from __future__ import annotations

import base64
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CONTRACTIONS = ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d")


def _is_letter(c: str) -> bool:
    return unicodedata.category(c)[0] == "L"


def _is_number(c: str) -> bool:
    return unicodedata.category(c)[0] == "N"


def _is_other(c: str) -> bool:
    return not (c.isspace() or _is_letter(c) or _is_number(c))


def _run(text: str, start: int, accepts: Callable[[str], bool]) -> int:
    end = start
    while end < len(text) and accepts(text[end]):
        end += 1
    return end


def _piece_end(text: str, i: int) -> int:
    """Where the pattern's match starting at `i` ends."""
    for contraction in CONTRACTIONS:
        if text.startswith(contraction, i):
            return i + len(contraction)
    start = i + 1 if text[i] == " " else i  # the optional leading space
    for accepts in (_is_letter, _is_number, _is_other):
        end = _run(text, start, accepts)
        if end > start:
            return end
    end = _run(text, i, str.isspace)
    # \s+(?!\S): a run of spaces before a word leaves its last space to that word.
    return end - 1 if end < len(text) and end - 1 > i else end


def pieces(text: str) -> list[str]:
    out, i = [], 0
    while i < len(text):
        end = _piece_end(text, i)
        out.append(text[i:end])
        i = end
    return out


@dataclass(frozen=True)
class BpeTokenizer:
    ranks: dict[bytes, int]

    @classmethod
    def load(cls, path: Path) -> BpeTokenizer:
        ranks = {}
        for line in path.read_text(encoding="ascii").splitlines():
            if line:
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
        return cls(ranks)

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        for piece in pieces(text):
            data = piece.encode("utf-8")
            rank = self.ranks.get(data)
            ids += [rank] if rank is not None else self._merge(data)
        return ids

    def _merge(self, data: bytes) -> list[int]:
        """Merge adjacent parts, the pair with the lowest rank first (leftmost on ties)."""
        parts = [data[i : i + 1] for i in range(len(data))]
        while len(parts) > 1:
            best, at = None, -1
            for i in range(len(parts) - 1):
                rank = self.ranks.get(parts[i] + parts[i + 1])
                if rank is not None and (best is None or rank < best):
                    best, at = rank, i
            if best is None:
                break
            parts[at : at + 2] = [parts[at] + parts[at + 1]]
        return [self.ranks[p] for p in parts]
