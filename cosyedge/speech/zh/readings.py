"""pypinyin's readings of Chinese characters, from tables on disk instead of its dictionaries
in memory (about 55 MB of Python objects once pypinyin is imported).

What the front end asks of pypinyin is one thing: the tone-numbered reading (`Style.TONE3`,
the neutral tone as 5, the first reading of each character) of a run of characters between
U+4E00 and U+9FFF. pypinyin answers it by cutting the run into the longest words of its
phrase dictionary, left to right, and reading each word from that dictionary, or each
character left over from its character dictionary. The tables hold what pypinyin itself says
for each of those words and characters; `TableReadings` cuts the run as pypinyin does and
reads the pieces from them, so a run reads exactly as pypinyin reads it.

The Debian package ships the tables, made when it is built; elsewhere (a checkout, a shipped
file that does not verify) they are made once, in a process of their own (importing pypinyin
there costs this process nothing), under the saved-models directory. Either is checked at
every load (`KeptFile`). Where they can be neither read nor made, pypinyin's own dictionaries
are used, with a warning: the same readings, in more memory.

`python -m cosyedge.speech.zh.readings make PATH` writes the tables to PATH.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path

from cosyedge.speech.kept import KeptFile, SavedDir, file_digest, made_apart, mended, open_table

log = logging.getLogger(__name__)

# Bump when the tables' layout or what is stored in them changes: older files are then remade.
FORMAT = "1"
# The characters the front end reads (`pinyin._TOKEN`); words with others are never asked for.
FIRST, LAST = 0x4E00, 0x9FFF

# Tone-numbered readings of a run of characters, one per character read.
Readings = Callable[[str], list[str]]


def pypinyin_readings(run: str) -> list[str]:
    """pypinyin's own readings of `run`, its dictionaries loaded with its first call."""
    from pypinyin import Style, pinyin

    said = pinyin(run, style=Style.TONE3, neutral_tone_with_five=True, errors="ignore")
    return [r[0] for r in said]


def sources() -> dict[str, Path]:
    """pypinyin's files that the tables are made from."""
    spec = find_spec("pypinyin")
    assert spec is not None and spec.origin is not None, "pypinyin is not installed"
    package = Path(spec.origin).parent
    return {name: package / f"{name}.json" for name in ("phrases_dict", "pinyin_dict")}


# --- the tables, made in a process of their own ---------------------------------------------


def _in_range(word: str) -> bool:
    return all(FIRST <= ord(c) <= LAST for c in word)


def _converter() -> type:
    """pypinyin's converter, each character's reading put in the style asked for once: the
    same reading of the same character in the same style comes out the same (pypinyin's style
    functions are pure), and the 68,000 words and characters read hold 165,000 readings of
    22,000 kinds, whose conversion was half the making's time (5.1 s of CPU, 2.7 without;
    the same file, byte for byte)."""
    from pypinyin.converter import UltimateConverter

    class Remembering(UltimateConverter):
        def __init__(self, **kwargs: object) -> None:
            super().__init__(**kwargs)
            self.styled: dict[tuple, str] = {}

        def convert_style(
            self, han: str, orig_pinyin: str, style: object, strict: bool, **kwargs: object
        ) -> str:
            key = (han, orig_pinyin, style, strict, tuple(sorted(kwargs.items())))
            if key not in self.styled:
                self.styled[key] = super().convert_style(han, orig_pinyin, style, strict, **kwargs)
            return self.styled[key]

    return Remembering


def make_tables(path: Path) -> None:
    """Write what pypinyin says for each word of its phrase dictionary and each character of
    its character dictionary in the front end's range: JSON lists of readings."""
    from pypinyin.constants import PHRASES_DICT, PINYIN_DICT, Style

    # What `pypinyin.pinyin(..., Style.TONE3, neutral_tone_with_five=True, errors="ignore")`
    # uses for each word it has cut.
    converter = _converter()(neutral_tone_with_five=True)

    def rows(words: Iterator[str]) -> Iterator[tuple[str, str]]:
        for word in filter(_in_range, words):
            said = converter.convert(word, Style.TONE3, False, "ignore", True)
            yield word, json.dumps([r[0] for r in said], ensure_ascii=False)

    with contextlib.closing(sqlite3.connect(path)) as db, db:
        for name, words in (("phrases", iter(PHRASES_DICT)), ("chars", map(chr, PINYIN_DICT))):
            db.execute(
                f"CREATE TABLE {name} (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID"
            )
            db.executemany(f"INSERT INTO {name} VALUES (?, ?)", rows(words))


# --- read a run from the tables --------------------------------------------------------------


@dataclass(frozen=True)
class TableReadings:
    """The tables, open read-only, read under a lock: the connection is shared by the threads
    that read Mandarin."""

    db: sqlite3.Connection
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def open(cls, path: Path) -> TableReadings:
        return cls(open_table(path))

    def close(self) -> None:
        self.db.close()

    def __call__(self, run: str) -> list[str]:
        """The readings of `run` (characters in U+4E00..U+9FFF), as pypinyin gives them."""
        with self.lock:
            return [r for word in self._words(run) for r in self._read(word)]

    def _first_from(self, word: str) -> tuple[str, str] | None:
        """The first phrase, in pypinyin's order, at or after `word`: a phrase starts with
        `word` if and only if this one does."""
        query = "SELECT key, value FROM phrases WHERE key >= ? ORDER BY key LIMIT 1"
        return self.db.execute(query, (word,)).fetchone()

    def _longest(self, remain: str) -> tuple[int, bool]:
        """The length of the longest phrase `remain` starts with (0 for none), found the way
        pypinyin's segmenter finds it: by growing a prefix while some phrase starts with it;
        and whether every prefix of `remain` starts a phrase."""
        longest = 0
        for size in range(1, len(remain) + 1):
            first = self._first_from(remain[:size])
            if first is None or not first[0].startswith(remain[:size]):
                return longest, False
            longest = size if first[0] == remain[:size] else longest
        return longest, True

    def _words(self, run: str) -> Iterator[str]:
        """`run` cut as `pypinyin.seg.mmseg.seg` (no_non_phrases) cuts it."""
        while run:
            longest, whole = self._longest(run)
            if longest:
                yield run[:longest]
                run = run[longest:]
            elif whole:  # every prefix starts a phrase, none is one: pypinyin reads it by char
                yield from run
                return
            else:
                yield run[0]
                run = run[1:]

    def _read(self, word: str) -> list[str]:
        """A word's readings from the phrases, as pypinyin looks there first; a character's
        from the characters; none for a character pypinyin cannot read."""
        for table in ("phrases", "chars"):
            query = f"SELECT value FROM {table} WHERE key = ?"
            row = self.db.execute(query, (word,)).fetchone()
            if row:
                return _readings(json.loads(row[0]), word)
        return []


def _readings(value: object, word: str) -> list[str]:
    """`value` as the list of readings the tables hold for `word`; ValueError for any other
    shape (a damaged file: a string would be read letter by letter), so the file is checked
    and made anew (`Mended`)."""
    if not isinstance(value, list) or not all(isinstance(r, str) for r in value):
        raise ValueError(f"the readings of {word!r} in the tables are damaged: {value!r:.40}")
    return value


# --- kept under the saved-models directory ---------------------------------------------------


def made_from() -> dict[str, object]:
    """What the tables must have been made from to be used now."""
    from importlib.metadata import version  # not imported by a phrase said from the cache

    digests = {name: file_digest(path) for name, path in sources().items()}
    return {"format": FORMAT, "pypinyin": version("pypinyin"), "sources": digests}


def kept(saved: SavedDir) -> KeptFile:
    return KeptFile(
        saved=saved,
        family="pypinyin-readings",
        what="pypinyin's reading tables",
        detail="tone-numbered",
        made_from=made_from(),
        make=made_apart(__name__),
    )


def load_readings(saved_dir: SavedDir | None) -> Readings:
    """Readings from the package's tables, or from tables kept in `saved_dir`, made now if
    needed (and opened again if damaged underneath: `Mended`); else (none given, or they
    cannot be kept there) pypinyin's own, which holds its dictionaries in memory."""
    if saved_dir:
        tables = kept(saved_dir)
        readings = mended(lambda: tables.opened(_read_once))
        if readings is not None:
            return readings
        log.warning("pypinyin holds its dictionaries in memory instead (about 55 MB more)")
    return pypinyin_readings


def _read_once(path: Path) -> TableReadings:
    readings = TableReadings.open(path)
    readings.db.execute("SELECT 1 FROM phrases LIMIT 1")
    return readings


@dataclass
class ReadingsOnFirstUse:
    """`load_readings(saved_dir)`, loaded when first asked for a reading (or `prepare`d)."""

    saved_dir: SavedDir | None
    lock: threading.Lock = field(default_factory=threading.Lock)
    loaded: Readings | None = None

    def prepare(self) -> Readings:
        with self.lock:
            if self.loaded is None:
                self.loaded = load_readings(self.saved_dir)
            return self.loaded

    def __call__(self, run: str) -> list[str]:
        return self.prepare()(run)


def main(args: list[str]) -> None:
    if args[:1] != ["make"] or len(args) != 2:
        raise SystemExit("usage: python -m cosyedge.speech.zh.readings make PATH")
    make_tables(Path(args[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
