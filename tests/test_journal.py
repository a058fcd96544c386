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
