"""The journal's file taken away under it while it runs (`rm -rf state_dir/*`, a backup
restored over it): noticed, the fault told, the file made again with all that is open, and
the sequence numbers going on, so nothing accepted is lost at the next crash."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from support import wait_until
from test_journal import Troubles, accept_and_wait

from cosyedge.alarms.history import History
from cosyedge.journal import Journal


def emptied(state: Path) -> None:
    for path in state.iterdir():
        shutil.rmtree(path) if path.is_dir() else path.unlink()


def replaced(state: Path) -> None:
    """An older copy put in its place, as a restore from a backup does."""
    stale = state / "stale.jsonl"
    stale.write_bytes(b'{"next":1}\n')
    os.replace(stale, state / "journal.jsonl")


@pytest.mark.parametrize("take_away", [emptied, replaced])
def test_a_journal_taken_away_while_idle_is_made_again_with_all_that_is_open(
    tmp_path: Path, take_away
):
    state = tmp_path / "state"
    state.mkdir()
    troubles: list = []
    journal = Journal(state / "journal.jsonl", keep_seen_s=60, observer=Troubles(troubles))
    journal.open()
    first = [accept_and_wait(journal, f"plant/{n}/t", b"alert %d" % n)[0] for n in (1, 2)]
    take_away(state)
    # Nothing is written meanwhile, yet the file is whole again before a crash could lose it.
    wait_until(lambda: len(troubles) >= 2, 10, "the fault told and over")
    assert "removed" in troubles[0] and troubles[-1] is None
    assert b'"in":%d' % first[1] in (state / "journal.jsonl").read_bytes()
    later, _ = accept_and_wait(journal, "plant/3/t", b"alert 3")
    journal.stop()  # as after a kill -9: all it acknowledged is on disk
    assert int((state / "journal.seq").read_text()) > later

    recovered = Journal(state / "journal.jsonl", keep_seen_s=60).open()
    assert [p.seq for p in recovered.pending] == [*first, later]
    assert later == first[-1] + 1  # the numbering went on, never from 1 again


def test_a_journal_taken_away_under_a_write_loses_not_that_write(tmp_path: Path):
    state = tmp_path / "state"
    state.mkdir()
    troubles: list = []
    journal = Journal(state / "journal.jsonl", keep_seen_s=60, observer=Troubles(troubles))
    journal.open()
    emptied(state)
    seq, on_disk = accept_and_wait(journal, "plant/1/t", b"alert")  # acked once on disk
    assert b'"in":%d' % seq in on_disk
    assert troubles and troubles[-1] is None
    journal.stop()


def test_the_history_makes_its_day_file_again(tmp_path: Path):
    history = History(tmp_path / "history", keep_days=30, max_bytes=10_000_000)
    history.start()
    history.record("alert", id="a")
    wait_until(lambda: list((tmp_path / "history").glob("*.jsonl")), 5, "the day file")
    shutil.rmtree(tmp_path / "history")
    history.record("alert", id="b")
    history.stop()
    (day,) = (tmp_path / "history").glob("*.jsonl")
    assert b'"b"' in day.read_bytes()
