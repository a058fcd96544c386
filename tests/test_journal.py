"""The journal on a real file: what a run leaves is what the next run takes up."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from support import wait_until

from cosyedge.alerts.journal import Journal


def accept_and_wait(journal: Journal, topic: str, payload: bytes) -> tuple[int, bytes]:
    """Returns the seq and the file's bytes as they were when the ack callback ran."""
    seen: list[bytes] = []
    done = threading.Event()

    def acked() -> None:
        seen.append(journal.path.read_bytes())
        done.set()

    seq = journal.accept(topic, payload, time.time(), then=acked)
    assert done.wait(5)
    return seq, seen[0]


def test_open_alerts_and_unconfirmed_reports_survive_a_crash(tmp_path: Path):
    path = tmp_path / "journal.jsonl"
    first = Journal(path, keep_seen_s=60)
    assert first.open().pending == []
    s1, on_disk = accept_and_wait(first, "plant/1/temp", b'{"id": "a"}')
    assert b'"in":%d' % s1 in on_disk  # acknowledged only once it was written
    s2, _ = accept_and_wait(first, "plant/2/temp", b'{"id": "b"}')
    s3, _ = accept_and_wait(first, "plant/3/temp", b"\xff not utf-8")
    first.close(s1, "a", "plant/1/temp", time.time(), [("r", '{"seq":1}')])
    first.sent(s1)
    first.close(s2, "b", "plant/2/temp", time.time(), [("r", '{"seq":2}'), ("h", "{}")])
    wait_until(lambda: path.read_bytes().count(b"\n") >= 7, 5, "records on disk")
    first.stop()  # releases the lock; all it was given is on disk, as after a kill -9
    # and a torn line at the end, as a crash mid-write leaves it
    with path.open("ab") as f:
        f.write(b'{"in":99,"at":1')

    second = Journal(path, keep_seen_s=60)
    recovered = second.open()
    assert [(p.seq, p.topic, p.payload) for p in recovered.pending] == [
        (s3, "plant/3/temp", b"\xff not utf-8")
    ]
    assert [(u.seq, u.messages) for u in recovered.unsent] == [
        (s2, [("r", '{"seq":2}'), ("h", "{}")])
    ]
    assert sorted((s.key, s.topic) for s in recovered.seen) == [
        ("a", "plant/1/temp"),
        ("b", "plant/2/temp"),
    ]
    s4, _ = accept_and_wait(second, "plant/4/temp", b"x")
    assert s4 > s3  # sequence numbers are never reused, also after compaction
    with pytest.raises(RuntimeError, match="another cosyedge is using it"):
        Journal(path, keep_seen_s=60).open()
    second.stop()


def test_grows_no_further_than_what_is_open(tmp_path: Path):
    path = tmp_path / "journal.jsonl"
    journal = Journal(path, keep_seen_s=0, compact_bytes=4096)
    journal.open()
    for i in range(300):
        seq, _ = accept_and_wait(journal, "plant/x", b"y" * 100)
        journal.close(seq, f"k{i}", "plant/x", time.time(), [("r", "{}")])
        journal.sent(seq)
    last, _ = accept_and_wait(journal, "plant/open", b"still queued")
    journal.stop()
    assert path.stat().st_size < 8192
    recovered = Journal(path, keep_seen_s=0).open()
    assert [p.seq for p in recovered.pending] == [last]
    assert recovered.unsent == []


def test_shelves_and_unacknowledged_alarms_survive_until_they_end(tmp_path: Path):
    path = tmp_path / "journal.jsonl"
    first = Journal(path, keep_seen_s=60, compact_bytes=2048)
    first.open()
    now = time.time()
    first.shelf("plant/9/#", now + 600)
    first.shelf("plant/8/#", now + 0.2)  # over by the time the journal is read again
    first.shelf("plant/7/#", now + 600)
    first.shelf("plant/7/#", None)  # unshelved
    first.alarm("gas-1", 4, "plant/1/alarm", b'{"id":"gas-1"}', now - 5, now + 30)
    first.alarm("gas-1", 4, "plant/1/alarm", b'{"id":"gas-1"}', now - 5, now + 60)  # rescheduled
    first.alarm("gas-2", 5, "plant/2/alarm", b"\xff raw", now - 4, now + 30)
    first.alarm_ended("gas-2")  # acknowledged
    for _ in range(60):  # enough to make it compact at least once
        seq, _ = accept_and_wait(first, "plant/x", b"y" * 100)
        first.close(seq, None, "plant/x", time.time(), [("r", "{}")])
        first.sent(seq)
    first.stop()
    assert path.stat().st_size < 4096, "it compacted"
    time.sleep(0.3)

    recovered = Journal(path, keep_seen_s=60).open()
    assert recovered.shelved == {"plant/9/#": pytest.approx(now + 600, abs=0.01)}
    (alarm,) = recovered.unacknowledged
    assert (alarm.key, alarm.seq, alarm.topic, alarm.payload) == (
        "gas-1",
        4,
        "plant/1/alarm",
        b'{"id":"gas-1"}',
    )
    assert alarm.due == pytest.approx(now + 60, abs=0.01)


def test_a_commands_ack_waits_for_what_it_changed(tmp_path: Path):
    journal = Journal(tmp_path / "journal.jsonl", keep_seen_s=60)
    journal.open()
    seen: list[bytes] = []
    done = threading.Event()

    def acked() -> None:
        seen.append(journal.path.read_bytes())
        done.set()

    journal.shelf("plant/9/#", time.time() + 600)
    journal.when_written(acked)
    assert done.wait(5)
    assert b'"shelf":"plant/9/#"' in seen[0]
    journal.stop()
