"""The journal on a real file: what a run leaves is what the next run takes up."""

from __future__ import annotations

import base64
import errno
import json
import logging
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import wait_until

from cosyedge.faults import Faults, write_plan
from cosyedge.journal import Journal, check_record
from cosyedge.observe import Observer


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


# -- nothing read back is trusted -------------------------------------------------------------

VALID = {
    "in": {"in": 7, "at": 1700000000.0, "topic": "plant/1", "payload": "eyJpZCI6ImEifQ=="},
    "out": {"out": 7, "key": "a", "topic": "plant/1", "at": 1700000000.0, "send": [["r", "{}"]]},
    "sent": {"sent": 7},
    "seen": {"seen": "a", "at": 1700000000.0, "topic": "plant/1"},
    "heard": {"heard": "plant/1", "hashes": ["00ff"]},
    "try": {"try": [7]},
    "shelf": {"shelf": "plant/#", "until": 1700000000.0},
    "alarm": {
        "alarm": "a",
        "seq": 7,
        "topic": "plant/1",
        "payload": "eyJpZCI6ImEifQ==",
        "at": 1700000000.0,
        "due": 1700000000.0,
    },
    "next": {"next": 8},
    "zoned": {"zoned": 7, "zone": "hall", "told": {"outcome": "spoken", "start": 1.7e9}},
}
WRONG = [None, "x", "", [], {}, True, -1, 0, 10**30, 1e300, 1.5, ["a", 1], [[1, 2]], "%%%"]


def damaged_variants() -> list[bytes]:
    """Every record type with each key missing and each key holding each wrong value, and
    lines that are not records at all."""
    lines = []
    for record in VALID.values():
        for key in record:
            lines.append(json.dumps({k: v for k, v in record.items() if k != key}).encode())
            for wrong in WRONG:
                lines.append(json.dumps({**record, key: wrong}).encode())
    lines += [b"[]", b"42", b'"in"', b"{}", b'{"unknown": 1}', b"\xff\xfe{}", b"null"]
    lines += [b'{"in": 1' + b"1" * 5000 + b"}", b"[" * 100_000 + b"]" * 100_000]
    lines += [b'{"in":3,"at":NaN,"topic":"t","payload":""}', b'{"next":Infinity}']
    return lines


def test_every_damaged_line_is_kept_aside_and_the_rest_taken_up(tmp_path: Path):
    path = tmp_path / "journal.jsonl"
    variants = damaged_variants()
    sentinel = {"in": 5000, "at": time.time(), "topic": "plant/ok", "payload": "b2s="}
    path.write_bytes(b"\n".join([*variants, json.dumps(sentinel).encode(), b""]))
    invalid = []
    for number, raw in enumerate(variants, 1):
        try:
            check_record(json.loads(raw))
        except (ValueError, RecursionError):
            invalid.append(number)
    assert len(invalid) > 300  # most variants really are damage, not valid records

    journal = Journal(path, keep_seen_s=60)
    recovered = journal.open()  # never raises on what it reads
    journal.stop()
    assert [d.line for d in recovered.damaged] == invalid
    assert 5000 in [p.seq for p in recovered.pending]
    assert all(p.topic == "plant/ok" or p.seq < 5000 for p in recovered.pending)
    kept = [json.loads(line) for line in (tmp_path / "quarantine.jsonl").read_bytes().splitlines()]
    assert [k["journal_line"] for k in kept] == invalid
    assert base64.b64decode(kept[0]["raw"]) == variants[invalid[0] - 1][:65536]


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from([*VALID, "at", "topic", "payload", "key", "send", "until", "end"]),
            st.none()
            | st.booleans()
            | st.integers()
            | st.floats()
            | st.text(max_size=8)
            | st.lists(st.integers(1, 10), max_size=3),
            max_size=6,
        ),
        max_size=20,
    )
)
def test_no_journal_content_stops_a_start(tmp_path_factory, records):
    path = tmp_path_factory.mktemp("j") / "journal.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    journal = Journal(path, keep_seen_s=60)
    recovered = journal.open()
    journal.stop()
    assert len(recovered.damaged) <= len(records)


def test_losing_the_journal_never_numbers_from_one_again(tmp_path: Path):
    path = tmp_path / "journal.jsonl"
    first = Journal(path, keep_seen_s=60)
    first.open()
    seqs = [accept_and_wait(first, "plant/1", b"x")[0] for _ in range(3)]
    first.stop()
    for loss in ("empty", "missing"):
        if loss == "empty":
            path.write_bytes(b"")
        else:
            path.unlink()
        journal = Journal(path, keep_seen_s=60)
        recovered = journal.open()
        assert recovered.lost and "lost" in recovered.lost
        seq, _ = accept_and_wait(journal, "plant/1", b"y")
        journal.stop()
        assert seq > max(seqs)
        seqs.append(seq)


# -- a disk that fails: nothing acknowledged that is not on disk, and recovery by itself -------


class Troubles(Observer):
    """Keeps each trouble the journal tells (a reason, or None once it writes again)."""

    def __init__(self, told: list) -> None:
        self.told = told

    def trouble(self, part: str, reason: str | None) -> None:
        self.told.append(reason)


def failing_journal(tmp_path: Path, **kwargs) -> tuple[Journal, Path, list]:
    plan = tmp_path / "faults.json"
    troubles: list = []
    journal = Journal(
        tmp_path / "journal.jsonl",
        keep_seen_s=60,
        faults=Faults(plan),
        observer=Troubles(troubles),
        **kwargs,
    )
    journal.open()
    return journal, plan, troubles


@pytest.mark.parametrize(
    "sites",
    [["journal.write", "journal.compact"], ["journal.fsync", "journal.compact"]],
)
def test_acks_wait_while_the_disk_fails_and_follow_when_it_recovers(tmp_path: Path, sites):
    journal, plan, troubles = failing_journal(tmp_path)
    write_plan(plan, {site: {"errno": "ENOSPC"} for site in sites})
    acked: list[int] = []
    seqs = [
        journal.accept("plant/1", b"alert %d" % i, time.time(), then=lambda i=i: acked.append(i))
        for i in range(5)
    ]
    wait_until(lambda: troubles, 5, "the trouble to be told")
    assert "No space left on device" in troubles[0] and journal.trouble
    time.sleep(1.0)
    assert acked == []  # nothing acknowledged to the broker that is not on disk
    write_plan(plan, {})
    wait_until(lambda: len(acked) == 5, 10, "the acks once the disk works")
    assert troubles[-1] is None and journal.trouble is None
    journal.close(seqs[0], "a", "plant/1", time.time(), [("r", "{}")])
    journal.stop()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".journal")]
    assert leftovers == []
    recovered = Journal(tmp_path / "journal.jsonl", keep_seen_s=60).open()
    assert [p.seq for p in recovered.pending] == seqs[1:]


def test_one_failed_append_is_rewritten_at_once(tmp_path: Path):
    journal, plan, troubles = failing_journal(tmp_path)
    write_plan(plan, {"journal.write": {"times": 1}})
    seq, on_disk = accept_and_wait(journal, "plant/1", b"once")
    assert b'"in":%d' % seq in on_disk
    journal.stop()
    assert troubles[0] and troubles[-1] is None


def test_tries_count_the_starts_that_died_speaking(tmp_path: Path):
    path = tmp_path / "journal.jsonl"
    for start in range(1, 4):
        journal = Journal(path, keep_seen_s=60)
        recovered = journal.open()
        if start == 1:
            seq, _ = accept_and_wait(journal, "plant/1", b"poison")
            other, _ = accept_and_wait(journal, "plant/2", b"never taken")
        else:
            assert [(p.seq, p.tries) for p in recovered.pending] == [
                (seq, start - 1),
                (other, 0),
            ]
        journal.tried([seq])
        journal.when_written(lambda: None)
        journal.stop()


def test_a_damaged_record_of_an_open_message_names_its_seq_once(tmp_path: Path):
    path = tmp_path / "journal.jsonl"
    lines = [
        {"in": 3, "at": 1.0, "topic": "plant/3", "payload": "%%not base64%%"},
        {"in": 3, "at": 1.0, "topic": "plant/3", "payload": 12},  # the same message again
        {"in": 4, "at": 1.0, "topic": "plant/4", "payload": "%%"},
        {"out": 4, "key": None, "topic": "plant/4", "at": 1.0, "send": []},  # it was closed
        {"in": 5, "at": 1.0, "topic": "plant/5", "payload": "b2s="},
    ]
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in lines))
    journal = Journal(path, keep_seen_s=60)
    recovered = journal.open()
    seq, _ = accept_and_wait(journal, "plant/6", b"x")
    journal.stop()
    assert [(d.line, d.seq, d.topic) for d in recovered.damaged] == [
        (1, 3, "plant/3"),
        (2, None, ""),
        (3, None, ""),
    ]
    assert [p.seq for p in recovered.pending] == [5] and seq == 6


def test_a_torn_last_line_is_told_and_its_acknowledged_message_fails(tmp_path: Path, caplog):
    path = tmp_path / "journal.jsonl"
    first = Journal(path, keep_seen_s=60)
    first.open()
    accept_and_wait(first, "plant/1", b"said")
    seq, on_disk = accept_and_wait(first, "plant/2", b"acknowledged, then torn by a power cut")
    first.stop()
    path.write_bytes(on_disk[: on_disk.rindex(b'"payload"') + 14])  # cut inside the payload

    journal = Journal(path, keep_seen_s=60)
    with caplog.at_level(logging.WARNING, "cosyedge.journal"):
        recovered = journal.open()
    journal.stop()
    assert [(d.seq, d.topic) for d in recovered.damaged] == [(seq, "plant/2")]
    assert "torn by a crash" in recovered.damaged[0].reason
    assert [p.topic for p in recovered.pending] == ["plant/1"]
    assert any("torn by a crash" in r.getMessage() for r in caplog.records)
    assert (tmp_path / "quarantine.jsonl").exists()


@pytest.mark.parametrize("cut", [b'{"in":12', b"{", b'{"out":3,"key":'])
def test_a_torn_line_without_a_whole_seq_is_told_but_names_none(tmp_path: Path, cut):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(b'{"next":5}\n' + cut)
    journal = Journal(path, keep_seen_s=60)
    recovered = journal.open()
    journal.stop()
    assert [(d.line, d.seq) for d in recovered.damaged] == [(2, None)]


class FailingDisk(Faults):
    """Every journal write fails while `failing` is set, each time with another message (as
    an OSError naming a temporary file does); the sequence file always fails."""

    def __init__(self) -> None:
        super().__init__()
        self.failing = True
        self.calls = 0

    def check(self, site: str, subject: str = "") -> None:
        if site == "journal.seq" or (self.failing and site.startswith("journal.")):
            self.calls += 1
            raise OSError(errno.EIO, "Input/output error", f"/state/.journal-{self.calls}")


def test_a_lasting_write_fault_is_told_once_and_cleared_once(tmp_path: Path, caplog):
    disk = FailingDisk()
    troubles: list = []
    journal = Journal(
        tmp_path / "journal.jsonl", keep_seen_s=60, faults=disk, observer=Troubles(troubles)
    )
    with caplog.at_level(logging.DEBUG, "cosyedge.journal"):
        journal.open()
        acked = threading.Event()
        for i in range(20):
            journal.accept("plant/1", b"alert %d" % i, time.time(), then=acked.set)
        wait_until(lambda: disk.calls > 25, 10, "the writer to retry many times")
        disk.failing = False
        assert acked.wait(10)
        journal.stop()
    assert len(troubles) == 2 and "Input/output error" in troubles[0] and troubles[1] is None
    assert ".journal-" not in troubles[0]  # one trouble reads the same at every retry
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 2  # the write fault and the sequence file, once each


def test_what_each_zone_told_of_an_open_message_survives_restarts_and_compaction(tmp_path: Path):
    path = tmp_path / "journal.jsonl"
    journal = Journal(path, keep_seen_s=60)
    journal.open()
    seq, _ = accept_and_wait(journal, "plant/all/alarm", b'{"id": "z"}')
    told = {"outcome": "spoken", "start": 1.7e9, "end": 1.7e9 + 2, "latency_ms": -3}
    journal.zone_told(seq, "hall", told)
    journal.zone_told(seq + 1000, "hall", told)  # of no open message: nothing to take up
    journal.when_written(lambda: None)
    journal.stop()
    # A record another version wrote, or the disk changed: kept aside, the message stays owed.
    with path.open("ab") as f:
        f.write(b'{"zoned":%d,"zone":"yard","told":{"outcome":"spoken","start":"soon"}}\n' % seq)
    again = Journal(path, keep_seen_s=60, compact_bytes=1)  # compacts at its first write
    recovered = again.open()
    assert [(p.seq, p.zones) for p in recovered.pending] == [(seq, {"hall": told})]
    (damaged,) = recovered.damaged
    assert damaged.reason.startswith("zoned record: bad 'told'") and damaged.seq is None
    other, _ = accept_and_wait(again, "plant/x", b"y")
    again.stop()
    third = Journal(path, keep_seen_s=60).open().pending
    assert [(p.seq, p.zones) for p in third] == [(seq, {"hall": told}), (other, None)]


@pytest.mark.parametrize(
    "told",
    [
        {"start": 1.0},
        {"outcome": 3},
        {"outcome": "spoken", "start": float("nan")},
        {"outcome": "spoken", "start": True},
        {"outcome": "spoken", "reason": "x" * 2001},
        {"outcome": "spoken", "speaker": "x"},
        [],
    ],
)
def test_a_zones_record_that_is_not_what_a_zone_tells_is_damaged(told):
    with pytest.raises(ValueError, match="zoned record: bad 'told'"):
        check_record({"zoned": 1, "zone": "hall", "told": told})
