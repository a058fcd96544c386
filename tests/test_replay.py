"""An accepted message is said after a crash, whatever configuration the restart runs: the
door, the journal, the desk and the reporter wired as the daemon wires them, a run cut off
(the journal stopped with the alerts still open, as `kill -9` leaves it), then a start on
another configuration, with the announcer's part played by the test."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.policy import AlarmPolicy
from cosyedge.config import parse_config
from cosyedge.config.lastgood import SAFE_CORE, StartPlan
from cosyedge.config.schema import Config
from cosyedge.intake.door import Door
from cosyedge.journal import Journal, check_record
from cosyedge.model import Announcement, Item
from cosyedge.mqtt.reports import Reporter

SITE = """
state_dir: {dir}/state
templates:
  - topic: "plant/{{line}}/temperature"
    text: "Temperature alarm on line {{line}}: {{value}} degrees."
    payload: json
    priority: high
"""


class Run:
    """One run of the alert path on `config`, taking up what the last run left."""

    def __init__(self, config: Config) -> None:
        self.config, self.published = config, []
        self.journal = Journal(config.state_dir / "journal.jsonl", 60)
        self.reporter = Reporter(config.reports, self.publish, self.journal)
        self.desk = AlarmDesk(AlarmPolicy(config.alarms), self.reporter, self.journal)
        self.door = Door(config, self.journal, self.desk)
        self.desk.recover(self.journal.open(), self.door.intake.read_journaled)

    def publish(self, topic: str, payload: str, retain: bool = False) -> int:
        self.published.append((topic, json.loads(payload)))
        self.reporter.published(len(self.published))
        return len(self.published)

    def receive(self, topic: str, payload: dict) -> None:
        """As paho hands a message over; returns once the broker would have its ack."""
        acked = threading.Event()
        self.door.on_message(topic, json.dumps(payload).encode(), acked.set)
        assert acked.wait(5)

    def receive_as(self, how: str, topic: str, payload: dict) -> None:
        """`sent`: as `receive`; `retained`: replayed by the broker from its retained store."""
        acked = threading.Event()
        data = json.dumps(payload).encode()
        self.door.on_message(topic, data, acked.set, retained=how == "retained")
        assert acked.wait(5)

    def outcomes(self) -> list[dict]:
        """The outcome reports, once every outcome decided so far is on disk (and so told;
        a stopped journal wrote them before it stopped)."""
        self.journal.flush(5)
        return [p for t, p in self.published if t == self.config.reports.outcome_topic]

    def take(self) -> Item | None:
        return self.desk.take(0.2)


def said_by(item: Item | None) -> Announcement:
    assert item is not None and item.offers[0].announcement is not None
    return item.offers[0].announcement


def accepted_then_crashed(directory: Path) -> None:
    """Three critical alerts accepted and acknowledged, none said yet, then the run ends
    with them open."""
    first = Run(parse_config(SITE.format(dir=directory)))
    for n in (1, 2, 3):
        first.receive(f"plant/{n}/temperature", {"value": 90 + n, "priority": "critical"})
    assert first.outcomes() == []  # queued: nothing said, nothing decided
    first.journal.stop()


def safe_core(directory: Path) -> Config:
    """What a start on a refused file runs, with no last good configuration to fall back to."""
    path = directory / "cosyedge.yaml"
    path.write_text(SITE.format(dir=directory).replace("templates:", "templatez:"))
    choice = list(StartPlan.read(path).choices())[-1]
    assert choice.origin == SAFE_CORE
    return choice.config


RESTARTS = {
    "safe core": safe_core,
    "its template removed": lambda d: parse_config(f"state_dir: {d}/state\n"),
    "its template's fields changed": lambda d: parse_config(
        SITE.format(dir=d).replace("{value} degrees", "{reading} degrees")
    ),
}


@pytest.mark.parametrize("restart", RESTARTS)
def test_an_accepted_alert_is_said_under_any_later_configuration(tmp_path, restart):
    accepted_then_crashed(tmp_path)
    second = Run(RESTARTS[restart](tmp_path))
    said = [said_by(second.take()) for _ in range(3)]
    assert second.take() is None
    assert [(a.text, a.priority) for a in said] == [
        (f"Temperature alarm on line {n}: {90 + n} degrees.", "critical") for n in (1, 2, 3)
    ]
    assert [o["outcome"] for o in second.outcomes()] == []  # none rejected
    assert all("said as accepted" in " ".join(a.notes) for a in said)
    second.journal.stop()


def test_what_is_read_now_still_wins_when_it_reads(tmp_path):
    """A restart on a configuration that still reads the message says it as it reads now."""
    accepted_then_crashed(tmp_path)
    site = SITE.format(dir=tmp_path).replace("Temperature alarm", "Heat")
    second = Run(parse_config(site))
    said = said_by(second.take())
    assert (said.text, said.notes) == ("Heat on line 1: 91 degrees.", ())
    second.journal.stop()


def test_a_message_refused_at_acceptance_stays_refused(tmp_path):
    first = Run(parse_config(SITE.format(dir=tmp_path)))
    first.receive("plant/1/temperature", {"temp": 70})  # no `value`: rejected
    (report,) = first.outcomes()
    assert report["outcome"] == "rejected"
    first.journal.stop()
    second = Run(parse_config(f"state_dir: {tmp_path}/state\n"))
    assert second.take() is None
    # Its report, unconfirmed by the broker, is sent again; nothing else is.
    assert [o["outcome"] for o in second.outcomes()] == ["rejected"]
    second.journal.stop()


@pytest.mark.parametrize(
    "said",
    [
        {"key": "k", "text": "t", "lang": "en", "priority": "urgent", "ttl": 0, "reannounce": 0},
        {"key": "k", "text": "t", "lang": "en", "priority": "high", "ttl": -1, "reannounce": 0},
        {"key": "k", "text": "t", "lang": "en", "priority": "high"},  # no timing
        {"key": "k", "clear": True, "text": "t"},
        {"key": 1, "clear": True},
        ["k"],
    ],
)
def test_a_damaged_decision_is_not_trusted(said):
    record = {"in": 1, "at": 1.0, "topic": "t", "payload": "", "said": said}
    with pytest.raises(ValueError, match="bad 'said'"):
        check_record(record)
    check_record({**record, "said": {"key": "k", "clear": True}})


# How one alert (id `x`) reaches two runs: each copy sent plainly or replayed retained by
# the broker; the first run ends (a stop, a crash, a voice's fallback) before it is said.
ORDERINGS = {
    "sent twice": (["sent", "sent"], []),
    "sent three times": (["sent", "sent", "sent"], []),
    "sent, then replayed retained at each start": (["sent", "retained"], ["retained"]),
    "replayed retained first, then sent": (["retained", "sent"], ["retained"]),
    "sent, then delivered again at the next start": (["sent"], ["sent"]),
    "sent twice, then again at the next start": (["sent", "sent"], ["sent", "retained"]),
}


@pytest.mark.parametrize("ordering", ORDERINGS)
def test_an_alert_left_unsaid_is_said_once_whatever_copies_came(tmp_path, ordering):
    """The journal hands the alert back unsaid: the next run says it once, and each copy,
    before or after, is one `deduplicated` report; a copy's outcome never makes the alert
    a duplicate of it."""
    before, after = ORDERINGS[ordering]
    config = parse_config(SITE.format(dir=tmp_path))
    payload = {"value": 97, "id": "x", "priority": "critical"}
    first = Run(config)
    for how in before:
        first.receive_as(how, "plant/7/temperature", payload)
    first.journal.stop()
    second = Run(config)
    for how in after:
        second.receive_as(how, "plant/7/temperature", payload)
    said = said_by(second.take())
    assert said.text == "Temperature alarm on line 7: 97 degrees."
    assert second.take() is None
    # By seq: a report the broker was not known to have is sent again by the next run.
    told = {o["seq"]: o["outcome"] for o in first.outcomes() + second.outcomes()}
    assert list(told.values()) == ["deduplicated"] * (len(before) + len(after) - 1)
    second.journal.stop()
