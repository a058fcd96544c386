"""The unit grammar's alternation written as a trie matches as the terms joined longest first."""

from __future__ import annotations

import random
import re
import sys

from cosyedge.speech.text import units
from cosyedge.speech.text.symbols import longest_first
from cosyedge.speech.zh import units as zh_units

# What the rules put after a unit: nothing more, a lookahead, a tail that makes a term
# give back letters (backtracking into a shorter one), a whole match.
CONTEXTS = ["(?:{})", "(?:{})(?![\\w/²³^])", "(?:{})h\\b", "(?:{})[a-z]\\d", "^(?:{})$"]


def joined(words) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def texts(terms: list[str], rng: random.Random) -> list[str]:
    """Every term, every term cut short, with letters after it, and terms run together."""
    out = list(terms)
    out += [t[:-1] for t in terms if len(t) > 1]
    out += [t + rng.choice("hHs2²/· x1") for t in terms]
    out += ["".join(rng.sample(terms, 2)) for _ in range(3000)]
    return out


def spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


def test_the_trie_matches_as_the_terms_longest_first() -> None:
    rng = random.Random(7)
    for grammar in (units.GRAMMAR, zh_units.GRAMMAR):
        for terms in (grammar.above, grammar.below):
            words = sorted(terms)
            samples = texts(words, rng)
            for context in CONTEXTS:
                plain = re.compile(context.format(joined(words)))
                trie = re.compile(context.format(longest_first(words)))
                for text in samples:
                    assert spans(trie, text) == spans(plain, text), (context, text)


def test_a_shorter_word_is_taken_when_the_longer_leaves_the_rest_unmatched() -> None:
    pattern = longest_first(["kW", "kWh", "kPa", "W"])
    assert pattern == "(?:W|k(?:Pa|W(?:h)?))"
    assert re.fullmatch(f"(?:{pattern})h", "kWh")  # kW, then h
    assert re.match(f"(?:{pattern})", "kWh")[0] == "kWh"
    assert re.match(f"(?:{pattern})", "kWs")[0] == "kW"


def test_the_grammars_program_is_smaller_as_a_trie() -> None:
    words = sorted(units.GRAMMAR.above)
    plain = sys.getsizeof(re.compile(f"(?:{joined(words)})"))
    trie = sys.getsizeof(re.compile(f"(?:{longest_first(words)})"))
    assert trie < plain * 0.8, (trie, plain)
