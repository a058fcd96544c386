"""Every outcome report has the same common fields, whatever its outcome: the intake, the
journal, the desk and the reporter wired as the daemon wires them, in one process, with the
announcer's part (take an item, say what became of it) played by the test."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from support import wait_until

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.policy import AlarmPolicy
from cosyedge.alarms.standby import OFFLINE_GRACE_S, Watch
from cosyedge.config import parse_config
from cosyedge.config.mqtt import ReportsConfig
from cosyedge.faults import Faults, write_plan
from cosyedge.intake.intake import Intake
from cosyedge.journal import Journal
from cosyedge.model import OUTCOMES, CommandAnswer, Delivery, Item, Outcome, Ticket
from cosyedge.mqtt.reports import Reporter

CONFIG = """
state_dir: {dir}/state
alarms:
  flood: {{threshold: 20, window_s: 600, end_at: 1, summary_interval_s: 0}}
templates:
  - {{topic: "plant/{{line}}/alarm", text: "Line {{line}}: {{what}}", payload: json,
      priority: high}}
"""
COMMON = ("seq", "outcome", "topic", "received", "id", "priority")


class Wired:
    """The alert path up to the announcer; what is published is kept and acknowledged."""

    def __init__(self, directory: Path, standby: Watch | None = None) -> None:
        """`standby`: a standby's desk, with this watch of its primary."""
        self.config = parse_config(CONFIG.format(dir=directory))
        self.published: list[tuple[str, dict]] = []
        self._lock = threading.Lock()
        self.journal = Journal(self.config.state_dir / "journal.jsonl", 60)
        self.reporter = Reporter(self.config.reports, self.publish, self.journal)
        policy = AlarmPolicy(self.config.alarms)
        self.desk = AlarmDesk(policy, self.reporter, self.journal, standby=standby)
        self.intake = Intake(self.config)
        self.desk.recover(self.journal.open(), self.intake.read_journaled)

    def publish(self, topic: str, payload: str, retain: bool = False) -> int:
        with self._lock:
            self.published.append((topic, json.loads(payload)))
            mid = len(self.published)
        self.reporter.published(mid)
        return mid

    def send(self, line: int, payload: dict | bytes, again: bool = False) -> None:
        """As the door takes a message: journaled, read, handed to the rules (`again`: a
        retained message heard before, replayed by the broker)."""
        topic = f"plant/{line}/alarm"
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        message = self.intake.message(topic, body)
        assert message is not None
        received, at = time.time(), time.monotonic()
        seq = self.journal.accept(topic, body, received, then=lambda: None, again=again)
        self.desk.submit(self.intake.read(message, seq, received, at), again)

    def command(self, **command: object) -> CommandAnswer:
        payload = json.dumps(command).encode()
        return self.desk.command(self.intake.command(payload), payload.decode())

    def say(self, kind: str = "spoken") -> Item:
        """The announcer's part: the next item, and what became of it."""
        item = self.desk.take(1)
        assert item is not None
        self.desk.finished(item, Delivery(kind))
        return item

    def reports(self) -> list[dict]:
        """What was published, once every outcome decided so far is on disk (and so told)."""
        assert self.journal.flush(5)
        with self._lock:
            return [p for t, p in self.published if t == self.config.reports.outcome_topic]


@pytest.fixture
def wired(tmp_path):
    made = Wired(tmp_path)
    yield made
    made.journal.stop()


@pytest.fixture
def standby(tmp_path):
    """A standby's alert path, its primary gone: it says what it takes in."""
    made = Wired(tmp_path, Watch(takeover_s=5, window_s=60))
    made.desk.primary_status("offline", {})
    time.sleep(OFFLINE_GRACE_S + 0.02)  # an offline counts once our connection stayed up
    yield made
    made.journal.stop()


def test_every_outcome_report_carries_the_common_fields(standby):
    wired = standby
    alert = {"what": "pump tripped", "priority": "critical"}
    wired.send(1, {"id": "S", **alert})
    wired.say()  # spoken
    wired.send(1, {"id": "S", **alert})  # the same id again: deduplicated by the rules
    wired.send(1, {"id": "R", **alert}, again=True)  # a retained message heard before
    wired.send(1, {"id": "M"})  # no `what`: rejected
    wired.send(1, b'{"id": "B", "what": ')  # not JSON: rejected, nothing known of it
    wired.send(1, {"id": "F", **alert})
    wired.say("failed")  # the voice gave nothing audible
    wired.send(1, {"id": "E", "what": "short-lived", "ttl": 0.01})
    time.sleep(0.05)
    wired.desk.tick()  # expired
    wired.command(cmd="shelve", topic="plant/2/#")
    wired.send(2, {"id": "Sh", **alert})  # shelved
    wired.send(1, {"id": "A", **alert})
    wired.command(cmd="ack", id="A")  # acknowledged before it was said
    wired.send(1, {"id": "Si", "what": "fan"})
    item = wired.desk.take(1)
    wired.command(cmd="silence")
    wired.desk.finished(item, Delivery("stopped"))  # silenced while it was said
    wired.send(3, {"id": "C", "what": "valve"})
    wired.send(3, {"clear": True})  # cleared before it was said, and the return to normal
    for n in range(21):  # a flood: summarized
        wired.send(4, {"id": f"fl{n}", "what": f"alarm {n}", "priority": "low"})
    while wired.desk.waiting():
        wired.say()
    wired.desk.primary_status("online", {})  # the primary back: it says what comes
    wired.send(1, {"id": "Cv", **alert})
    wired.desk.primary_report({"seq": 1, "id": "Cv", "outcome": "spoken"})  # covered

    reports = wired.reports()
    assert {r["outcome"] for r in reports} == set(OUTCOMES)
    for report in reports:
        assert set(COMMON) <= set(report), report
    by_id = {(r["id"], r["outcome"]): r for r in reports}
    retained = by_id["R", "deduplicated"]
    assert retained["priority"] == "critical" and retained["reason"], retained
    assert by_id["M", "rejected"]["priority"] == "high"  # the template's: the payload has none
    unreadable = [r for r in reports if r["outcome"] == "rejected" and r["id"] != "M"]
    assert [(r["id"] is not None, r["priority"]) for r in unreadable] == [(True, "high")]
    said = [r for r in reports if r["outcome"] != "return_to_normal"]
    assert all(r["id"] and r["priority"] for r in said), said


def test_an_outcome_is_told_only_once_the_journal_has_it_on_disk(tmp_path):
    """Told before, a crash could lose the outcome's record: the next start would decide the
    message again, perhaps otherwise (summarized with the others taken up, expired), and one
    message would have two outcomes. The disk is slow here, as under load, so a report sent
    ahead of its record shows."""
    plan, path = tmp_path / "faults.json", tmp_path / "journal.jsonl"
    write_plan(plan, {"journal.write": {"hang": 0.2}})
    journal = Journal(path, 60, faults=Faults(plan))
    journal.open()
    told: list[tuple[int, bool]] = []  # (seq, its outcome on disk as it was published)

    def publish(topic: str, payload: str, retain: bool = False) -> None:
        seq = json.loads(payload)["seq"]
        records = [json.loads(line) for line in path.read_bytes().splitlines()]
        told.append((seq, any(r.get("out") == seq for r in records)))

    reporter = Reporter(ReportsConfig(), publish, journal)
    try:
        for n in range(3):
            seq = journal.accept("plant/1/alarm", b"{}", time.time())
            ticket = Ticket(seq, "plant/1/alarm", time.time())
            reporter.outcome(Outcome(ticket, "spoken", {"id": f"a{n}"}))
        assert journal.flush(10)
        assert told == [(1, True), (2, True), (3, True)]
    finally:
        journal.stop()


def test_while_the_journal_cannot_write_an_outcome_is_told_at_once(tmp_path):
    """Nothing reaches the disk then: held for it, the reports would hide that alerts are
    still spoken (the fault `journal` is told beside them)."""
    plan = tmp_path / "faults.json"
    write_plan(plan, {s: {"errno": "EROFS"} for s in ("journal.write", "journal.compact")})
    journal = Journal(tmp_path / "journal.jsonl", 60, faults=Faults(plan))
    journal.open()
    told: list[int] = []
    reporter = Reporter(
        ReportsConfig(), lambda _, p, *r: told.append(json.loads(p)["seq"]), journal
    )
    try:
        seq = journal.accept("plant/1/alarm", b"{}", time.time())
        wait_until(lambda: journal.trouble is not None, 10, "the journal to fail")
        reporter.outcome(Outcome(Ticket(seq, "plant/1/alarm", time.time()), "spoken", {}))
        assert told == [seq]
    finally:
        journal.stop()


def test_a_command_that_matches_nothing_is_refused_and_of_two_at_once_one_is(wired):
    """An ack, silence or confirm of an id unknown or settled already was told `done` with
    `ids: []`; two operators acking one alarm at once were both told it was done."""
    errors = wired.config.reports.error_topic
    for cmd in ("ack", "silence", "confirm"):
        answer = wired.command(cmd=cmd, id="never-seen", user="bob")
        assert answer.unmatched and "'never-seen' is not standing" in answer.refused, answer
    assert wired.command(cmd="confirm", topic="plant/9/#").unmatched
    assert wired.command(cmd="silence").refused is None  # all, with nothing to silence: done
    told = [p for t, p in wired.published if t == errors]
    assert len(told) == 4 and all(
        "not standing" in p["error"] or "nothing" in p["error"] for p in told
    )
    commands = [p for t, p in wired.published if p.get("event") == "command"]
    assert commands == [{"event": "command", "cmd": "silence", "topic": None, "ids": []}]

    wired.send(1, {"id": "A", "what": "pump tripped"})
    go = threading.Barrier(2)

    def ack(user: str) -> CommandAnswer:
        go.wait()
        return wired.command(cmd="ack", id="A", user=user)

    answers: list[CommandAnswer] = []
    threads = [threading.Thread(target=lambda u=u: answers.append(ack(u))) for u in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a.ids for a in answers) == [(), ("A",)], answers
    (refused,) = [a for a in answers if a.refused]
    assert refused.unmatched and "settled already" in refused.refused


def test_an_unshelve_is_carried_out_whatever_it_matched(wired):
    """Its event names no ids: reading them failed the command (a KeyError)."""
    wired.command(cmd="shelve", topic="plant/9/#", duration_s=60)
    assert wired.command(cmd="unshelve", topic="plant/9/#").refused is None
    assert wired.command(cmd="unshelve", topic="plant/8/#").refused is None  # nothing shelved
