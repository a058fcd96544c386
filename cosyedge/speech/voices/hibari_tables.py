"""hibari's G2P with its tables on disk: the lexicons and the part-of-speech tagger of one
dialect in one SQLite file, read a word at a time, instead of parsed into Python dicts at every
load (about 100 MB of objects and half a second).

The Debian package ships the US tables, made when it is built; elsewhere (a checkout, a
British model, a shipped file that does not verify) the file is made once from the installed
hibari package, in a process of its own (parsing hibari's files in the daemon raised its peak
at a first start by about 15 MB), and kept under the saved-models directory
(`state_dir/models`). Either is checked at every load (`speech/kept.py`): a kept one that is
damaged or stale (torn write, disk error, edits, another hibari) is deleted and made again.
Where it can be neither read nor made, hibari's own G2P is used, with a warning: the same
speech, in more memory.

The tables answer what hibari's lexicon and tagger ask of their dicts (`get`, `in`), so
hibari's own code reads them and says every word as it would from its dicts.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import logging
import sqlite3
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hibari
from hibari.g2p import G2P
from hibari.g2p.lexicon import Lexicon
from hibari.g2p.tagger import Tagger
from hibari.g2p.tokenize import Tokenizer

from cosyedge.speech.kept import KeptFile, SavedDir, file_digest, made_apart, mended, open_table

log = logging.getLogger(__name__)

# Bump when the file's layout or what is stored in it changes: older files are then remade.
FORMAT = "1"
_LEXICONS = ("gold", "silver")
_TAGGER_TABLES = ("tagdict", "weights")
# The tagger reads the same few hundred features (bias, previous tags, word shapes) for most
# words: decoding them anew each time made sentences 2.5 times slower than hibari's own G2P;
# keeping the last 1024 decoded brings that to 1.3 times, for well under 1 MB.
WEIGHTS_KEPT = 1024


def _assets() -> Path:
    return Path(hibari.__file__).parent / "assets"


def _dialect(british: bool) -> str:
    return "gb" if british else "us"


def sources(british: bool) -> dict[str, Path]:
    """hibari's files that the tables of one dialect are made from."""
    dialect = _dialect(british)
    lexicons = {name: _assets() / f"lexicon_{dialect}_{name}.json.gz" for name in _LEXICONS}
    return lexicons | {"tagger": _assets() / "tagger.json.gz"}


def _read_json(path: Path) -> Any:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


# --- the tables -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """One table of the file, read like the dict it was made from: a key's value as JSON
    gave it, or the default when the key is absent."""

    db: sqlite3.Connection
    name: str

    def get(self, key: str, default: Any = None) -> Any:
        row = self.db.execute(f"SELECT value FROM {self.name} WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def __contains__(self, key: object) -> bool:
        query = f"SELECT 1 FROM {self.name} WHERE key = ?"
        return isinstance(key, str) and self.db.execute(query, (key,)).fetchone() is not None


class RecentTable:
    """A table whose last `size` values read stay decoded. The values are shared between
    readers: for readers that do not change them (the tagger's weights)."""

    def __init__(self, table: Table, size: int) -> None:
        self.get = functools.lru_cache(maxsize=size)(table.get)


@dataclass(frozen=True)
class G2PTables:
    """The tables of one dialect, open read-only. The connection is shared by the threads that
    use them; hibari's G2P is called under a lock (`HibariG2P`), so one at a time."""

    db: sqlite3.Connection

    @classmethod
    def open(cls, path: Path) -> G2PTables:
        return cls(open_table(path))

    def table(self, name: str) -> Table:
        return Table(self.db, name)

    def tags(self) -> list[str]:
        return list(self.table("meta").get("tags"))


def _fill(db: sqlite3.Connection, name: str, items: Iterable[tuple[str, Any]]) -> None:
    db.execute(f"CREATE TABLE {name} (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
    rows = ((key, json.dumps(value, ensure_ascii=False)) for key, value in items)
    db.executemany(f"INSERT INTO {name} VALUES (?, ?)", rows)


def make_tables(path: Path, british: bool) -> None:
    """Write one dialect's tables to `path` from hibari's files, one file in memory at a time
    (the tagger, the largest, parses to about 55 MB)."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        for name, source in sources(british).items():
            if name in _LEXICONS:
                _fill(db, name, _read_json(source).items())
                continue
            tagger = _read_json(source)
            for table in _TAGGER_TABLES:
                _fill(db, table, tagger[table].items())
            _fill(db, "vocab", ((word, 1) for word in tagger["vocab"]))
            _fill(db, "meta", [("tags", tagger["tags"])])


# --- hibari's G2P on the tables -------------------------------------------------------------


class TablesG2P(G2P):
    """hibari's G2P, its lexicons and tagger reading `G2PTables` instead of parsed JSON: the
    rest (tokenizer, rules, OOV net, stress) is hibari's own code."""

    def __init__(self, tables: G2PTables, oov: Any, british: bool) -> None:
        # The attributes G2P.__init__ sets, the tables standing in for its dicts.
        gold, silver = (tables.table(name) for name in _LEXICONS)
        self.lexicon = Lexicon(gold, silver, british)
        self.tokenizer = Tokenizer(_read_json(_assets() / "tokenizer_exceptions.json"))
        self.tagger = _tagger(tables)
        self._oov, self.unk, self.british = oov, "", british
        self.tables = tables

    def close(self) -> None:
        self.tables.db.close()


def _tagger(tables: G2PTables) -> Tagger:
    weights = RecentTable(tables.table("weights"), WEIGHTS_KEPT)
    model = {"tagdict": tables.table("tagdict"), "weights": weights, "tags": tables.tags()}
    tagger = Tagger(model)
    tagger.vocab = tables.table("vocab")  # given to Tagger, it would be copied into a set
    return tagger


# --- kept under the saved-models directory ---------------------------------------------------


class SavedTables:
    """Tables of each dialect and source: the package's, or made once and kept in `saved`
    beside the optimized graphs; checked at every load (`KeptFile`)."""

    def __init__(self, saved: SavedDir) -> None:
        self.saved = saved

    def made_from(self, british: bool) -> dict[str, Any]:
        """What a file must have been made from to be used now."""
        digests = {name: file_digest(path) for name, path in sources(british).items()}
        return {"format": FORMAT, "hibari": hibari.__version__, "sources": digests}

    def kept(self, british: bool) -> KeptFile:
        return KeptFile(
            saved=self.saved,
            family=f"hibari-g2p-{_dialect(british)}",
            what="hibari's G2P tables",
            detail=_dialect(british),
            made_from=self.made_from(british),
            make=made_apart(__name__, _dialect(british)),
        )

    def open(self, british: bool) -> G2PTables | None:
        """The dialect's tables, the package's or made now if there are none usable; None
        (warned) if they can be neither read nor made here, or are gone before they are open
        (a state directory removed underneath: the open file then stays readable)."""
        return self.kept(british).opened(_read_once)


def _read_once(path: Path) -> G2PTables:
    tables = G2PTables.open(path)
    tables.tags()
    return tables


def load_g2p(british: bool, oov: Any, saved_dir: SavedDir | None) -> Callable[[str], Any]:
    """hibari's G2P for one dialect: on the package's tables or tables kept in `saved_dir`
    (opened again if damaged underneath: `Mended`), else (none given, or they cannot be kept
    there) hibari's own, which holds them all in memory."""
    if saved_dir:
        saved = SavedTables(saved_dir)

        def on_tables() -> TablesG2P | None:
            tables = saved.open(british)
            return None if tables is None else TablesG2P(tables, oov, british)

        found = mended(on_tables)
        if found is not None:
            return found
        log.warning("hibari's G2P holds its lexicons in memory instead (about 100 MB more)")
    return G2P(oov=oov, british=british)


def main(args: list[str]) -> None:
    if args[:1] != ["make"] or len(args) != 3 or args[2] not in ("us", "gb"):
        raise SystemExit("usage: python -m cosyedge.speech.voices.hibari_tables make PATH us|gb")
    make_tables(Path(args[1]), british=args[2] == "gb")


if __name__ == "__main__":
    main(sys.argv[1:])
