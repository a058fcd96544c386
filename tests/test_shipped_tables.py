"""The tables the package ships, made when it is built (`devtools/tables.py`): a start reads
them where they verify and makes none; an upgrade's start removes the ones earlier starts made;
a shipped file that is damaged, missing or made from other files is said, left as it is, and
the tables are made in the saved-models directory as without a package."""

from __future__ import annotations

import dataclasses
import logging
import shutil
from pathlib import Path

import pytest

from cosyedge.speech.kept import KeptFile, SavedDir
from cosyedge.speech.zh.readings import TableReadings, kept, pypinyin_readings
from devtools import tables

RUN = "锅炉房压力过高"
NOT_USABLE = "pypinyin's reading tables shipped with the package are not usable"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The package's tables, as scripts/package makes them."""
    out = tmp_path_factory.mktemp("shipped")
    tables.main([str(out)])
    return out


@pytest.fixture
def shipped(built, tmp_path) -> Path:
    """A copy of the package's tables this test may spoil."""
    return Path(shutil.copytree(built, tmp_path / "share"))


def readings_in(models: Path, shipped: Path, built: Path) -> KeptFile:
    """pypinyin's reading tables as a start keeps them in `models`, the package's in
    `shipped`, made by copying the tables `built` made. What these tests judge is where the
    tables are read or made and what is said; the making itself (2.5 s of CPU a time, in a
    process of its own) runs for real in `built` and in conftest's `front_end_tables`."""
    (made,) = built.glob("pypinyin-readings-*.sqlite")

    def make(path: Path) -> None:
        shutil.copyfile(made, path)

    return dataclasses.replace(kept(SavedDir(models)), shipped=shipped, make=make)


def family(directory: Path) -> list[Path]:
    return sorted(directory.glob("pypinyin-readings-*"))


def test_the_build_ships_hibaris_us_and_pypinyins_tables_each_with_its_record(built):
    names = sorted(path.name.rsplit("-", 1)[0] for path in built.iterdir())
    assert names == ["hibari-g2p-us"] * 2 + ["pypinyin-readings"] * 2


def test_a_start_reads_the_shipped_tables_makes_none_and_removes_earlier_ones(
    built, shipped, tmp_path, caplog
):
    models = tmp_path / "models"
    models.mkdir()
    earlier = models / "pypinyin-readings-0000000000000000.sqlite"  # before an upgrade
    earlier.write_bytes(b"an earlier version's tables")
    with caplog.at_level(logging.INFO):
        path = readings_in(models, shipped, built).ensure()
    assert path is not None and path.parent == shipped
    assert TableReadings.open(path)(RUN) == pypinyin_readings(RUN)
    assert family(models) == []
    assert "made pypinyin's reading tables" not in caplog.text
    assert "WARNING" not in caplog.text


def flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def remove(path: Path) -> None:
    path.unlink()


@pytest.mark.parametrize("spoil", [flip_a_byte, remove], ids=["damaged", "missing"])
def test_a_shipped_file_that_does_not_verify_is_said_kept_and_made_in_state_dir(
    built, shipped, tmp_path, caplog, spoil
):
    (path,) = shipped.glob("pypinyin-readings-*.sqlite")
    spoil(path)
    left = sorted((p.name, p.read_bytes()) for p in shipped.iterdir())
    models = tmp_path / "models"
    with caplog.at_level(logging.INFO):
        made = readings_in(models, shipped, built).ensure()
        again = readings_in(models, shipped, built).ensure()
    assert made == again == kept(SavedDir(models)).path
    assert TableReadings.open(made)(RUN) == pypinyin_readings(RUN)
    assert caplog.text.count(NOT_USABLE) == 2  # at each start, until the package is mended
    assert caplog.text.count("made pypinyin's reading tables") == 1
    assert sorted((p.name, p.read_bytes()) for p in shipped.iterdir()) == left


def test_shipped_tables_made_from_other_files_are_said_and_made_in_state_dir(
    built, shipped, tmp_path, caplog
):
    models = tmp_path / "models"
    other = readings_in(models, shipped, built)
    other = dataclasses.replace(other, made_from={**other.made_from, "pypinyin": "0.1"})
    with caplog.at_level(logging.WARNING):
        assert other.ensure() == other.path
    assert "none made from the files installed now is there" in caplog.text


def test_without_shipped_tables_they_are_made_in_state_dir_unsaid(built, tmp_path, caplog):
    models = tmp_path / "models"
    with caplog.at_level(logging.WARNING):
        path = readings_in(models, tmp_path / "no-package", built).ensure()
    assert path == kept(SavedDir(models)).path
    assert caplog.text == ""
