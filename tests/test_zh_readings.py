"""pypinyin's readings from tables kept on disk: exactly what pypinyin itself reads, word for
word, for every form of the Mandarin reading tables and every Mandarin alert of the shared
set; damaged or stale tables are made again, and where they cannot be kept pypinyin's own
dictionaries are read."""

from __future__ import annotations

import json
import logging
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pypinyin.constants import PHRASES_DICT, PINYIN_DICT
from sizes import sized
from support import kept_copy_removed_after_its_check, shared_alerts
from test_zh_normalize import ALERTS, FORMS
from test_zh_normalize import PLANT_FORMS as WRITTEN_FORMS
from test_zh_pinyin import PLANT_FORMS, READINGS

from cosyedge.speech.kept import SavedDir, problem_with
from cosyedge.speech.lexicon import NO_LEXICON
from cosyedge.speech.voices.zhfront import PinyinUnits
from cosyedge.speech.zh.normalize import MandarinNormalizer
from cosyedge.speech.zh.readings import (
    FIRST,
    LAST,
    TableReadings,
    kept,
    load_readings,
    made_from,
    pypinyin_readings,
)

REPO = Path(__file__).resolve().parent.parent
SEED = 15
# Words of pypinyin's phrase dictionary read, of the 47,000 in the front end's range
# (scripts/prove: 20,000).
SAMPLE = sized(5_000, 20_000)


@pytest.fixture(scope="module")
def made(front_end_tables) -> Path:
    """A saved-models directory with the tables made in it, by the load a start does (the
    run's one making of them, beside hibari's): read, never written."""
    assert isinstance(load_readings(SavedDir(front_end_tables)).reader, TableReadings)
    return front_end_tables


@pytest.fixture(scope="module")
def tables(made) -> TableReadings:
    readings = load_readings(SavedDir(made))
    assert isinstance(readings.reader, TableReadings)
    return readings


def in_range(word: str) -> bool:
    return all(FIRST <= ord(c) <= LAST for c in word)


def phrases(count: int) -> list[str]:
    """`count` words of pypinyin's phrase dictionary, a seeded sample."""
    words = sorted(filter(in_range, PHRASES_DICT))
    return random.Random(SEED).sample(words, count)


def differences(runs: list[str], ours: TableReadings) -> list[tuple[str, list, list]]:
    said = ((run, pypinyin_readings(run), ours(run)) for run in runs)
    return [(run, theirs, mine) for run, theirs, mine in said if theirs != mine]


def test_every_sampled_phrase_reads_as_pypinyin_reads_it(tables):
    words = phrases(SAMPLE)
    assert len(set(words)) == SAMPLE
    assert differences(words, tables) == []


def test_phrases_run_together_are_cut_and_read_as_pypinyin_does(tables):
    """Run together, words overlap other phrases: the cut decides what is read."""
    words, pick = phrases(sized(2_000, 6_000)), random.Random(SEED + 1)
    runs = ["".join(pick.sample(words, pick.randint(2, 4))) for _ in range(sized(1_000, 3_000))]
    # Runs that end inside a phrase: pypinyin reads what is left character by character
    # when every prefix of it starts a phrase and none is one (its segmenter's last branch).
    runs += [w[:cut] for w in phrases(SAMPLE) if len(w) >= 3 for cut in range(2, len(w))]
    assert differences(runs, tables) == []


def test_every_character_reads_as_pypinyin_reads_it(tables):
    chars = [chr(n) for n in range(FIRST, LAST + 1)]
    assert sum(ord(c) in PINYIN_DICT for c in chars) > 20_000
    assert differences(chars, tables) == []


def zh_alerts() -> list[str]:
    """Every Mandarin alert of the shared set, as published."""
    return [text for lang, text in shared_alerts() if lang == "zh"]


def forms() -> list[str]:
    """Every written form of the Mandarin reading tables."""
    tables = (READINGS, PLANT_FORMS, ALERTS, FORMS, WRITTEN_FORMS)
    return [written for table in tables for written, _ in table]


def test_every_form_and_alert_reaches_the_voice_as_with_pypinyins_own(tables):
    normalize = MandarinNormalizer().normalize
    ours, theirs = PinyinUnits(tables), PinyinUnits(pypinyin_readings)
    texts = forms() + zh_alerts()
    assert len(texts) >= 220
    for text in texts:
        words = normalize(text)
        expected = list(theirs(words, NO_LEXICON, []))
        assert list(ours(words, NO_LEXICON, [])) == expected, text
        assert expected or not words


def test_the_daemon_reads_mandarin_without_pypinyin_or_wetext_in_memory(made):
    """Neither package is imported by reading every form and alert from the tables."""
    code = f"""
import sys
from pathlib import Path
from cosyedge.speech.lexicon import NO_LEXICON
from cosyedge.speech.voices.zhfront import PinyinUnits
from cosyedge.speech.zh.normalize import MandarinNormalizer
from cosyedge.speech.kept import SavedDir
from cosyedge.speech.zh.readings import load_readings
readings = load_readings(SavedDir(Path({str(made)!r})))
units, normalize = PinyinUnits(readings), MandarinNormalizer().normalize
said = [u for text in sys.stdin.read().splitlines() for u in units(normalize(text), NO_LEXICON, [])]
assert said
print(sorted(m for m in sys.modules if m.split(".")[0] in ("pypinyin", "wetext", "kaldifst")))
"""
    texts = "\n".join(forms() + zh_alerts())
    done = subprocess.run(
        [sys.executable, "-c", code], input=texts, capture_output=True, text=True, cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def damage(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def restate_source(path: Path) -> None:
    sidecar = path.with_name(path.name + ".json")
    record = json.loads(sidecar.read_text())
    record["made_from"]["sources"]["phrases_dict"] = "0" * 64
    sidecar.write_text(json.dumps(record))


def lose_record(path: Path) -> None:
    path.with_name(path.name + ".json").unlink()


@pytest.mark.parametrize(
    "spoil", [damage, restate_source, lose_record], ids=["damaged", "stale", "unrecorded"]
)
def test_spoiled_tables_are_found_unusable(made, tmp_path, spoil):
    """What a load checks before it reads them (`problem_with`): each spoiled copy is told
    from the intact one. What a load does with one found unusable is the same for each (the
    next test: removed, made again, said so once)."""
    for path in made.iterdir():
        shutil.copy(path, tmp_path)
    (path,) = tmp_path.glob("pypinyin-readings-*.sqlite")
    assert problem_with(path, made_from()) is None
    spoil(path)
    assert problem_with(path, made_from()) is not None


def test_unusable_tables_are_made_again_and_said_so_once(made, tmp_path, caplog):
    for path in made.iterdir():
        shutil.copy(path, tmp_path)
    (path,) = tmp_path.glob("pypinyin-readings-*.sqlite")
    older = path.with_name("pypinyin-readings-0000000000000000.sqlite")  # an earlier version's
    shutil.copy(path, older)
    damage(path)
    with caplog.at_level(logging.INFO):
        readings = load_readings(SavedDir(tmp_path))
        load_readings(SavedDir(tmp_path))
    assert isinstance(readings.reader, TableReadings)
    assert caplog.text.count(f"pypinyin's reading tables {path} are not usable") == 1
    assert caplog.text.count("made pypinyin's reading tables") == 1
    assert sorted(tmp_path.glob("pypinyin-readings-*.sqlite")) == [path]  # the earlier one's gone
    assert path == kept(SavedDir(tmp_path)).path
    assert readings("锅炉房压力过高") == pypinyin_readings("锅炉房压力过高")


def test_where_tables_cannot_be_kept_pypinyins_own_dictionaries_are_read(tmp_path, caplog):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    with caplog.at_level(logging.WARNING):
        readings = load_readings(SavedDir(blocked / "models"))
    assert readings is pypinyin_readings
    assert "cannot keep pypinyin's reading tables" in caplog.text
    assert "holds its dictionaries in memory instead" in caplog.text


def test_tables_removed_before_they_are_open_leave_pypinyins_own(
    made, tmp_path, caplog, monkeypatch
):
    """A state directory removed underneath between the check and the open: warned, and
    pypinyin's own dictionaries read, instead of an exception out of the load."""
    kept_copy_removed_after_its_check(made, tmp_path, monkeypatch)
    with caplog.at_level(logging.WARNING):
        readings = load_readings(SavedDir(tmp_path))
    assert readings is pypinyin_readings
    assert "unable to open database file" in caplog.text
    assert readings("温度") == pypinyin_readings("温度")


def test_tables_damaged_underneath_are_read_again_from_a_mended_file(made, tmp_path, caplog):
    """The kept file truncated in place while open: the characters are read from the file
    checked and made anew, as pypinyin reads them, not failed until a restart."""
    for path in made.iterdir():
        shutil.copy(path, tmp_path)
    (path,) = tmp_path.glob("pypinyin-readings-*.sqlite")
    readings = load_readings(SavedDir(tmp_path))
    assert readings("压力")
    with open(path, "r+b") as f:
        f.truncate(8192)
    run = "冷凝水再循环泵超温跳闸"
    with caplog.at_level(logging.INFO):
        assert readings(run) == pypinyin_readings(run)
    assert "opening the file again" in caplog.text
    assert problem_with(path, made_from()) is None


def test_readings_of_another_shape_are_mended_not_read_letter_by_letter(made, tmp_path, caplog):
    """A character's readings (a JSON list) changed in place into a string of the same length:
    read as it is, each letter would be a reading; the file is checked and made anew."""
    import contextlib
    import sqlite3

    for path in made.iterdir():
        shutil.copy(path, tmp_path)
    (path,) = tmp_path.glob("pypinyin-readings-*.sqlite")
    readings = load_readings(SavedDir(tmp_path))
    with contextlib.closing(sqlite3.connect(path)) as db:
        (value,) = db.execute("SELECT value FROM chars WHERE key = '塔'").fetchone()
    data = path.read_bytes()
    stored = "塔".encode() + value.encode()  # a row: its key, then its value
    assert data.count(stored) == 1
    damaged = "塔".encode() + json.dumps("ta333").encode().ljust(len(value.encode()))
    with open(path, "r+b") as f:
        f.write(data.replace(stored, damaged))
    with caplog.at_level(logging.INFO):
        assert readings("塔") == pypinyin_readings("塔")
    assert "opening the file again" in caplog.text
