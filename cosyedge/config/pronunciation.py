"""The site pronunciation lexicon's patterns: checked when the configuration is loaded.

A pattern is matched against every phrase a voice says, so one that can take exponential or
high polynomial time would stall the alarm system on a crafted or unlucky alert. Python's
`re` has no time limit, so a pattern is refused unless its shape bounds the work: short, no
quantifier or alternation inside a repeated part, few quantifiers of which at most one is
open-ended, no backreferences. Matched at word edges only (below), the worst allowed
pattern stays near quadratic in the length of a run of letters or digits: measured in
tests/test_lexicon.py on a phrase longer than any template may say. Lookarounds and anchors
are refused too: they are not needed, and a pattern without them matches its own match
again on its own (`fullmatch`), which is how its `\\1` are filled in.
"""

from __future__ import annotations

import re
import re._parser as sre  # the parser of `re` itself: the only exact reading of a pattern
from collections.abc import Iterable, Iterator

MAX_PATTERN_CHARS = 100
MAX_QUANTIFIERS = 4  # even `?` counts: a run of them backtracks exponentially
MAX_UNBOUNDED = 1  # open-ended quantifiers per pattern
MAX_BOUND = 10  # a quantifier allowing more repeats than this counts as open-ended
_REPEATS = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})
_REFUSED = {
    "ASSERT": "lookarounds are not allowed (entries are matched at word edges already)",
    "ASSERT_NOT": "lookarounds are not allowed (entries are matched at word edges already)",
    "AT": "anchors such as ^, $ and \\b are not allowed (entries are matched at word edges)",
    "GROUPREF": "backreferences are not allowed",
    "GROUPREF_EXISTS": "conditional groups are not allowed",
}
# A letter or digit of Latin script: a word entry does not match inside a longer Latin word,
# while Chinese, which has no spaces, is matched anywhere.
WORD_EDGE = "0-9A-Za-z\u00c0-\u024f"


def at_word_edges(body: str) -> str:
    """`body` matched only where no Latin letter or digit continues it on either side."""
    return f"(?<![{WORD_EDGE}])(?:{body})(?![{WORD_EDGE}])"


def check_pattern(pattern: str) -> re.Pattern[str]:
    """The compiled pattern, or ValueError("pattern: reason")."""
    if not pattern:
        raise ValueError("pattern: must not be empty")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"pattern: longer than {MAX_PATTERN_CHARS} characters")
    try:
        parsed = sre.parse(pattern)
        compiled = re.compile(pattern)
        re.compile(at_word_edges(pattern))  # as the lexicon uses it
    except re.error as exc:
        hint = "; scope flags to a group, as (?i:...)" if "global flags" in str(exc) else ""
        raise ValueError(f"pattern: not a valid regular expression: {exc}{hint}") from None
    if parsed.state.groupdict:
        raise ValueError("pattern: named groups are not allowed; use numbered ones (\\1)")
    problem = _shape_problem(parsed.data, repeated=False) or _count_problem(parsed.data)
    if problem:
        raise ValueError(f"pattern: {problem}")
    return compiled


def check_replacement(compiled: re.Pattern[str], say: str) -> None:
    """Refuse a `say` whose group references (\\1, \\g<1>) the pattern does not have."""
    try:
        compiled.sub(say, "")  # parses the replacement whether or not anything matches
    except (re.error, IndexError) as exc:
        raise ValueError(f"say: {exc}") from None


def _children(op: str, av: object) -> Iterable[list]:
    if op in _REPEATS:
        yield av[2]  # type: ignore[index]
    elif op == "SUBPATTERN":
        yield av[3]  # type: ignore[index]
    elif op == "BRANCH":
        yield from av[1]  # type: ignore[index]
    elif op == "ATOMIC_GROUP":
        yield av  # type: ignore[misc]


def _shape_problem(items: list, repeated: bool) -> str | None:
    for op_code, av in items:
        op = str(op_code)
        if op in _REFUSED:
            return _REFUSED[op]
        if repeated and (op in _REPEATS or op == "BRANCH"):
            what = "a quantifier" if op in _REPEATS else "alternatives (|)"
            return f"{what} inside a repeated part can take exponential time"
        for child in _children(op, av):
            problem = _shape_problem(child, repeated or op in _REPEATS)
            if problem:
                return problem
    return None


def _count_problem(items: list) -> str | None:
    bounds = list(_upper_bounds(items))
    if len(bounds) > MAX_QUANTIFIERS:
        return f"more than {MAX_QUANTIFIERS} quantifiers"
    if sum(1 for hi in bounds if hi > MAX_BOUND) > MAX_UNBOUNDED:
        kinds = f"+, *, {{n,}}, {{,{MAX_BOUND + 1}}}"
        return f"more than {MAX_UNBOUNDED} open-ended quantifier ({kinds})"
    return None


def _upper_bounds(items: list) -> Iterator[int]:
    for op_code, av in items:
        op = str(op_code)
        if op in _REPEATS:
            yield av[1]
        for child in _children(op, av):
            yield from _upper_bounds(child)
