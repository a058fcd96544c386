"""hibari's G2P on tables kept on disk: the same phonemes as hibari's own G2P, word for word and
for every English alert of the shared set; damaged or stale tables are made again, and where
they cannot be kept hibari's own G2P is used."""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import shutil
import sqlite3
import tracemalloc
from pathlib import Path

import pytest
from hibari.g2p import G2P
from hibari.g2p.oov import OOV
from sizes import sized
from support import kept_copy_removed_after_its_check, shared_alerts

from cosyedge.speech.kept import TABLE_CACHE_KIB, Mended, SavedDir, problem_with
from cosyedge.speech.lexicon import NO_LEXICON
from cosyedge.speech.text import normalizer_for
from cosyedge.speech.voices.hibari import HibariG2P, _assets
from cosyedge.speech.voices.hibari_tables import SavedTables, TablesG2P, load_g2p

# Beyond the lexicons: plant words and codes hibari reads with its suffix rules, its number
# reader or its OOV net.
PLANT_WORDS = [
    "PT-173", "TT-180", "M8153", "B6", "H2S", "CO2", "XV-101", "3rd", "1990s", "6.49", "-12.5",
    "kPa", "rpm", "ppm", "°C", "overpressurized", "recalibrating", "deaerators", "Zwickau",
    "gasketing", "unlatched", "setpoints", "NH3", "PLC's", "valves'", "$12.50", "£3", "50%",
]  # fmt: skip


def oov(british: bool) -> OOV:
    return OOV(str(_assets() / ("oov_gb.onnx" if british else "oov.onnx")))


@pytest.fixture(scope="module")
def made(front_end_tables) -> Path:
    """A saved-models directory with the US tables made in it, by the load a start does (the
    run's one making of them, beside pypinyin's): read, never written."""
    assert SavedTables(SavedDir(front_end_tables)).open(False) is not None
    return front_end_tables


@pytest.fixture(scope="module")
def us(made) -> tuple[G2P, TablesG2P]:
    """hibari's own G2P and ours on tables, sharing one OOV net."""
    net = oov(False)
    tables = SavedTables(SavedDir(made)).open(False)
    return G2P(oov=net, british=False), TablesG2P(tables, net, False)


def words_of(g2p: G2P, count: int) -> list[str]:
    """`count` words spread evenly over hibari's lexicons, then forms of some of them that
    are not in them (plurals, past tenses, capitals, reversed letters for the OOV net)."""
    known = sorted({*g2p.lexicon.golds.d, *g2p.lexicon.silvers.d})
    chosen = known[:: max(1, len(known) // count)][:count]
    formed = [
        form
        for word in chosen[::40]
        for form in (word + "s", word + "ed", word + "ing", word.upper(), word.title(), word[::-1])
    ]
    return chosen + formed + PLANT_WORDS


def differences(words: list[str], theirs: G2P, ours: G2P) -> list[tuple[str, str, str]]:
    said = ((word, theirs(word), ours(word)) for word in words)
    return [(word, a, b) for word, a, b in said if a != b]


def test_every_word_reads_as_hibaris_own_g2p_reads_it(us):
    """A sample spread evenly over the lexicons: 5,000 of their 184,000 words (20,000 at
    full size)."""
    theirs, ours = us
    count = sized(5_000, 20_000)
    words = words_of(theirs, count)
    assert len(set(words)) > count
    assert differences(words, theirs, ours) == []


def test_words_in_runs_read_as_hibaris_own_g2p_reads_them(us):
    """In context the tagger's answers matter more (a word alone is mostly told by the tag
    dictionary)."""
    theirs, ours = us
    words = words_of(theirs, sized(2_000, 5_000))
    runs = [" ".join(words[i : i + 10]) for i in range(0, len(words), 10)]
    assert differences(runs, theirs, ours) == []


def test_british_words_read_as_hibaris_own_british_g2p_reads_them(tmp_path):
    net = oov(True)
    tables = SavedTables(SavedDir(tmp_path)).open(True)
    assert tables is not None
    theirs, ours = G2P(oov=net, british=True), TablesG2P(tables, net, True)
    words = words_of(theirs, sized(1_000, 3_000))
    assert theirs("tomato") != G2P(oov=False)("tomato")  # the British lexicon, not the US one
    assert differences(words, theirs, ours) == []


def test_every_english_alert_is_given_to_the_model_as_hibaris_own_g2p_gives_it(us):
    theirs, ours = (HibariG2P(g2p) for g2p in us)
    normalize = normalizer_for("en").normalize
    alerts = [text for lang, text in shared_alerts() if lang == "en"]
    assert len(alerts) >= 40
    for text in alerts:
        for words in (text, normalize(text)):
            expected = list(theirs.units(words, NO_LEXICON, []))
            assert list(ours.units(words, NO_LEXICON, [])) == expected, words
            assert expected


def test_the_tables_hold_no_lexicon_in_memory(made):
    tracemalloc.start()
    try:
        kept = load_g2p(False, False, SavedDir(made))
        ours = tracemalloc.get_traced_memory()[0]
        own = G2P(oov=False)
        theirs = tracemalloc.get_traced_memory()[0] - ours
    finally:
        tracemalloc.stop()
    assert kept("valve") == own("valve")
    assert ours * 50 < theirs


def sqlite_memory_used() -> int:
    """What SQLite holds in this process, from the library Python's sqlite3 module loaded."""
    import sqlite3  # noqa: F401  (loads the library)

    maps = Path("/proc/self/maps").read_text().split()
    library = next(word for word in maps if "/libsqlite3.so" in word)
    used = ctypes.CDLL(library).sqlite3_memory_used
    used.restype = ctypes.c_int64
    return used()


def test_the_tables_page_cache_stays_small(us):
    """SQLite's own page cache (2 MiB a connection by default) is bounded: the file is in the
    kernel's page cache anyway."""
    _, ours = us
    before = sqlite_memory_used()
    for word in words_of(us[0], 5000):
        ours(word)
    assert sqlite_memory_used() - before < (TABLE_CACHE_KIB + 256) * 1024


def damage(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def restate_source(path: Path) -> None:
    sidecar = path.with_name(path.name + ".json")
    record = json.loads(sidecar.read_text())
    record["made_from"]["sources"]["gold"] = "0" * 64
    sidecar.write_text(json.dumps(record))


@pytest.mark.parametrize("spoil", [damage, restate_source], ids=["damaged", "stale"])
def test_spoiled_tables_are_found_unusable(made, tmp_path, spoil):
    """What a load checks before it reads them (`problem_with`): each spoiled copy is told
    from the intact one. What a load does with one found unusable is the same for each (the
    next test: removed, made again, said so once)."""
    for kept in made.iterdir():
        shutil.copy(kept, tmp_path)
    (path,) = tmp_path.glob("hibari-g2p-us-*.sqlite")
    assert problem_with(path, SavedTables(SavedDir(made)).made_from(False)) is None
    spoil(path)
    assert problem_with(path, SavedTables(SavedDir(made)).made_from(False)) is not None


def test_unusable_tables_are_made_again_and_said_so_once(made, tmp_path, caplog):
    for kept in made.iterdir():
        shutil.copy(kept, tmp_path)
    (path,) = tmp_path.glob("hibari-g2p-us-*.sqlite")
    older = path.with_name("hibari-g2p-us-0000000000000000.sqlite")  # an earlier version's
    shutil.copy(path, older)
    damage(path)
    with caplog.at_level(logging.INFO):
        g2p = load_g2p(False, False, SavedDir(tmp_path))
        load_g2p(False, False, SavedDir(tmp_path))
    assert isinstance(g2p.reader, TablesG2P)
    assert caplog.text.count(f"hibari's G2P tables {path} are not usable") == 1
    assert caplog.text.count("made hibari's G2P tables (us)") == 1
    assert sorted(tmp_path.glob("hibari-g2p-*.sqlite")) == [path]  # the earlier version's removed
    assert g2p("The pressure is rising.") == G2P(oov=False)("The pressure is rising.")


def test_where_tables_cannot_be_kept_hibaris_own_g2p_reads(tmp_path, caplog):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    with caplog.at_level(logging.WARNING):
        g2p = load_g2p(False, False, SavedDir(blocked / "models"))
    assert type(g2p) is G2P
    assert "cannot keep hibari's G2P tables" in caplog.text
    assert "holds its lexicons in memory instead" in caplog.text
    assert g2p("Valve open.")


def test_tables_removed_before_they_are_open_leave_hibaris_own_g2p(
    made, tmp_path, caplog, monkeypatch
):
    """A state directory removed underneath (another process, an operator) between the check
    and the open: warned, and hibari's own G2P reads, instead of an exception out of the load."""
    kept_copy_removed_after_its_check(made, tmp_path, monkeypatch)
    with caplog.at_level(logging.WARNING):
        g2p = load_g2p(False, False, SavedDir(tmp_path))
    assert type(g2p) is G2P
    assert "unable to open database file" in caplog.text
    assert g2p("Valve open.")


def test_tables_damaged_underneath_are_read_again_from_a_mended_file(made, tmp_path, caplog):
    """The kept file truncated in place while open (a disk's fault, an operator's mistake):
    the words are read from the file checked and made anew, not failed until a restart; a
    file damaged again soon after is not remade at every phrase (the error is raised)."""
    for kept in made.iterdir():
        shutil.copy(kept, tmp_path)
    (path,) = tmp_path.glob("hibari-g2p-us-*.sqlite")
    g2p = load_g2p(False, False, SavedDir(tmp_path))
    assert isinstance(g2p.reader, TablesG2P) and g2p("Valve open.")
    own, damaged = G2P(oov=False), g2p.reader
    with open(path, "r+b") as f:  # the same file, cut short
        f.truncate(8192)
    text = "The condensate recirculation pump tripped on overtemperature."
    with caplog.at_level(logging.INFO):
        assert g2p(text) == own(text)
    assert "opening the file again" in caplog.text
    with pytest.raises(sqlite3.ProgrammingError):  # closed: the removed file freed
        damaged.tables.db.execute("SELECT 1")
    assert "made hibari's G2P tables (us)" in caplog.text
    assert problem_with(path, json.loads(path.with_name(path.name + ".json").read_text())[
        "made_from"]) is None  # fmt: skip
    with open(path, "r+b") as f:
        f.truncate(8192)
    with pytest.raises(sqlite3.DatabaseError):
        g2p("Feedwater heater drain valve stuck open in unit seven.")


def same_length(value: bytes, shape: str) -> bytes:
    """`value` damaged in place, its length kept: its closing quote changed (JSON that does not
    parse), or a list in its place (JSON of another shape, padded with spaces)."""
    if shape == "unparsable":
        return value[:-1] + b"x"
    return b"[1]".ljust(len(value))


@pytest.mark.parametrize("shape", ["unparsable", "a list"])
def test_a_value_damaged_where_sqlite_cannot_tell_is_mended_too(made, tmp_path, caplog, shape):
    """One stored value changed in place (bytes flipped on disk): SQLite reads the page, the
    value is not what was written, and whatever hibari's code raises on it, the file is
    checked, found damaged by its sha256, made anew, and the word read as it was."""
    for kept in made.iterdir():
        shutil.copy(kept, tmp_path)
    (path,) = tmp_path.glob("hibari-g2p-us-*.sqlite")
    g2p = load_g2p(False, False, SavedDir(tmp_path))
    with contextlib.closing(sqlite3.connect(path)) as db:
        (value,) = db.execute("SELECT value FROM gold WHERE key = 'turbine'").fetchone()
    data = path.read_bytes()
    assert data.count(value.encode()) == 1
    with open(path, "r+b") as f:  # in place: the open file sees it
        f.write(data.replace(value.encode(), same_length(value.encode(), shape)))
    text = "Turbine stopped on line four."
    with caplog.at_level(logging.INFO):
        assert g2p(text) == G2P(oov=False)(text)
    assert "opening the file again" in caplog.text
    assert "made hibari's G2P tables (us)" in caplog.text


def test_a_reader_that_failed_is_closed_when_none_can_be_opened(made, tmp_path):
    """Where the file cannot be made anew (a full disk), the failed reader is closed all the
    same: a removed damaged file it held open would keep its space, and no remaking could
    ever succeed; the error is raised, the phrase said as the generic one."""
    for kept in made.iterdir():
        shutil.copy(kept, tmp_path)
    (path,) = tmp_path.glob("hibari-g2p-us-*.sqlite")
    reader = load_g2p(False, False, SavedDir(tmp_path)).reader
    mended = Mended(reader, lambda: None)
    with open(path, "r+b") as f:
        f.truncate(8192)
    with pytest.raises(sqlite3.DatabaseError):
        mended("The condensate recirculation pump tripped on overtemperature.")
    with pytest.raises(sqlite3.ProgrammingError):
        reader.tables.db.execute("SELECT 1")
    with pytest.raises(RuntimeError, match=r"cannot be read: .*malformed"):  # to the next try
        mended("Valve open.")
