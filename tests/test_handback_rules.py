"""A restarted primary's handback in one process: the intake, the journal, the desk with the
standby's view, the reporter and the tap that reads the standby's reports and this run's
marker, wired as the daemon wires them; the announcer's part (take an item, say what became
of it) and the broker's (handing the marker back) are the test's."""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from pathlib import Path

import pytest

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.peers import STALL_S
from cosyedge.alarms.standby import Handback
from cosyedge.alarms.zones import Zones
from cosyedge.config import ConfigError, parse_config
from cosyedge.config.zones import DEFAULT_ZONE
from cosyedge.intake.handback import StandbyTap
from cosyedge.intake.intake import Intake
from cosyedge.journal import Journal
from cosyedge.model import Delivery, Item, ItemKind
from cosyedge.mqtt.reports import Reporter

CONFIG = """
state_dir: {dir}/state
mqtt: {{client_id: gw-primary}}
standby: {{reports_of: standby/report, handback_s: {wait_s}{link}}}
templates:
  - {{topic: "plant/{{line}}/alarm", text: "Line {{line}}: {{what}}", payload: json,
      priority: high}}
  - {{topic: "plant/{{line}}/standing", text: "Line {{line}} stands: {{what}}", payload: json,
      priority: high, reannounce_s: {period_s}}}
"""
PERIOD_S = 1.0  # the standing alarms' re-announcement period
LINK = "$SYS/broker/connection/gw.to-standby/state"  # Mosquitto's bridge notifications


class Primary:
    """The alert path of a primary that knows its standby, up to the announcer; what it
    publishes is kept."""

    def __init__(
        self, directory: Path, wait_s: float, more: str = "", bridged: bool = False
    ) -> None:
        """`more`: sections added to its configuration (its zones); `bridged`: the standby on
        another broker, the bridge's state on LINK."""
        link = f", link_topic: {LINK!r}" if bridged else ""
        text = CONFIG.format(dir=directory, wait_s=wait_s, period_s=PERIOD_S, link=link) + more
        self.config = parse_config(text)
        self.published: list[tuple[str, dict]] = []
        self._lock = threading.Lock()
        self.journal = Journal(self.config.state_dir / "journal.jsonl", 60)
        self.reporter = Reporter(self.config.reports, self.publish, self.journal)
        window_s = self.config.alarms.dedup_window_s
        handback = Handback(wait_s, window_s, time.monotonic())
        policy = Zones(self.config.alarms, tuple(self.config.zones) or (DEFAULT_ZONE,))
        self.desk = AlarmDesk(policy, self.reporter, self.journal, handback=handback)
        self.tap = StandbyTap(self.config, self.desk, self.publish)
        self.intake = Intake(self.config)
        self.desk.recover(self.journal.open(), self.intake.read_journaled)

    def publish(self, topic: str, payload: str, retain: bool = False) -> int:
        with self._lock:
            self.published.append((topic, json.loads(payload)))
            mid = len(self.published)
        self.reporter.published(mid)
        return mid

    def standby(self, ident: str, outcome: str = "spoken", ended_ago: float = 0.5) -> None:
        """The standby's report of `ident`, as the session hands it to the door's taps."""
        report = {"seq": 9, "id": ident, "outcome": outcome, "by": "standby"}
        if outcome == "spoken":
            report["end"] = time.time() - ended_ago
        assert self.tap.claim("standby/report", json.dumps(report).encode(), retained=False)

    def connect(self) -> dict:
        """A connection made, as the session tells it: the tap's marker for it."""
        self.tap.connected()
        return self.markers()[-1]

    def markers(self) -> list[dict]:
        return [p for t, p in self.published if t == "cosyedge/canary/gw-primary/handback"]

    def marker_back(self, marker: dict | None = None) -> None:
        """The broker's part: what it kept is handed over, then our marker (the first
        connection's, unless given), sent once the subscriptions were asked for."""
        marker = marker or (self.markers() or [self.connect()])[-1]
        assert self.tap.claim(self.tap.marker_topic, json.dumps(marker).encode(), False)

    def send(self, ident: str, kind: str = "alarm", zone: str | None = None) -> None:
        """As the door takes an alert (for `zone`, if given): journaled, read, handed to the
        rules."""
        fields = {"id": ident, "what": ident, **({"zone": zone} if zone else {})}
        topic, body = f"plant/1/{kind}", json.dumps(fields).encode()
        message = self.intake.message(topic, body)
        assert message is not None and not self.tap.claim(topic, body, retained=False)
        received, at = time.time(), time.monotonic()
        seq = self.journal.accept(topic, body, received, then=lambda: None)
        self.desk.submit(self.intake.read(message, seq, received, at))

    def take(self, timeout: float = 0.2) -> Item | None:
        """The next item said within `timeout`, the rules' clock ticking as the daemon's does."""
        deadline = time.monotonic() + timeout
        while (item := self.desk.take(0.05)) is None and time.monotonic() < deadline:
            self.desk.tick()
        if item is not None:
            self.desk.finished(item, Delivery("spoken", {"end": time.time()}))
        return item

    def reports(self, topic: str = "cosyedge/report") -> list[dict]:
        assert self.journal.flush(5)
        with self._lock:
            return [p for t, p in self.published if t == topic]


@pytest.fixture
def primary(tmp_path):
    made = Primary(tmp_path, wait_s=30)
    yield made
    made.journal.stop()


def test_a_start_holds_until_its_marker_is_back_then_says_only_what_the_standby_did_not(primary):
    primary.send("A")
    primary.send("B")
    primary.desk.fault("audio", "Alarm system fault.", "en", 0)
    took = primary.take()  # its own faults are said at once
    assert took is not None and took.kind is ItemKind.FAULT
    assert primary.take() is None  # what the broker kept is not in yet: held
    primary.standby("A")
    assert primary.take() is None
    primary.marker_back()
    took = primary.take()
    assert took is not None and took.key == "B"
    assert primary.take() is None
    said = {r["id"]: r for r in primary.reports()}
    assert said.keys() == {"A", "B"} and said["B"]["outcome"] == "spoken"
    covered = said["A"]
    assert covered["outcome"] == "covered" and "by" not in covered
    assert covered["reason"] == "ended by this gateway's standby while it was gone: spoken"
    assert covered["standby"] == {"outcome": "spoken", "seq": 9, "by": "standby"}


def test_a_report_before_the_copy_covers_it_as_it_arrives_but_not_what_was_not_heard(primary):
    primary.standby("early")  # the standby's report came before the broker's copy of it
    for ident, outcome in [("f", "failed"), ("x", "expired"), ("k", "acknowledged")]:
        primary.standby(ident, outcome)
    primary.standby("c", "covered")  # our own outcome, as the standby told it
    for ident in ("early", "f", "x", "k", "c"):
        primary.send(ident)
    primary.marker_back()
    said = [item.key for item in iter(primary.take, None)]
    assert said == ["f", "x", "k", "c"]  # said here: the standby did not let them be heard
    outcomes = {r["id"]: r["outcome"] for r in primary.reports()}
    assert outcomes == {"early": "covered", "f": "spoken", "x": "spoken", "k": "spoken",
                        "c": "spoken"}  # fmt: skip


def test_a_standing_alarm_the_standby_said_stands_here_due_a_period_after_its_saying(primary):
    primary.send("S", "standing")
    primary.standby("S", ended_ago=0.4)  # due here 0.6 s from now: a period after its saying
    primary.marker_back()
    assert primary.take(0.3) is None  # not said again now
    assert primary.desk.unacknowledged() == {"S"}
    started = time.monotonic()
    took = primary.take(2.0)
    assert took is not None and (took.kind, took.key) == (ItemKind.REANNOUNCE, "S")
    assert 0.2 <= time.monotonic() - started <= 1.0
    (on_board,) = primary.desk.board()["alarms"]
    assert (on_board["id"], on_board["said"]) == ("S", 2)
    answer = primary.desk.command(primary.intake.command(b'{"cmd": "ack", "id": "S"}'), "ack S")
    assert answer.ids == ("S",) and answer.refused is None  # the operator's ack applies here
    assert primary.take(1.5) is None
    assert primary.desk.unacknowledged() == set()


def test_one_said_more_than_a_period_ago_is_due_a_period_from_now_not_at_once(primary):
    """The standby may have re-announced it meanwhile, at a time this gateway does not know:
    saying it at once could be saying it twice within a period."""
    primary.send("T", "standing")
    primary.standby("T", ended_ago=5 * PERIOD_S)
    primary.marker_back()
    assert primary.take(0.7 * PERIOD_S) is None
    took = primary.take(PERIOD_S)
    assert took is not None and (took.kind, took.key) == (ItemKind.REANNOUNCE, "T")


def test_an_ack_before_the_standbys_report_leaves_nothing_standing(primary):
    primary.send("U", "standing")
    answer = primary.desk.command(primary.intake.command(b'{"cmd": "ack", "id": "U"}'), "ack")
    assert answer.ids == ("U",)
    primary.standby("U")  # said by the standby before the ack reached it: nothing here now
    primary.marker_back()
    assert primary.take(0.3) is None
    assert primary.desk.unacknowledged() == set()
    (report,) = primary.reports()
    assert (report["id"], report["outcome"]) == ("U", "acknowledged")


def test_without_its_marker_a_start_speaks_once_handback_s_has_passed(tmp_path, caplog):
    primary = Primary(tmp_path, wait_s=0.6)
    try:
        primary.send("V")
        primary.connect()  # the marker goes out, and is lost
        other = json.dumps({"cosyedge_handback": "another run"}).encode()
        assert primary.tap.claim(primary.tap.marker_topic, other, retained=False)
        assert primary.take(0.3) is None  # another run's marker tells nothing
        took = primary.take(1.0)
        assert took is not None and took.key == "V"
        with caplog.at_level(logging.WARNING):
            primary.tap.tick(time.monotonic())
        assert "did not come in within standby.handback_s" in caplog.text
    finally:
        primary.journal.stop()


def test_a_primary_naming_its_own_topic_or_a_standby_naming_one_is_refused():
    parse_config("standby: {reports_of: cosyedge/standby/report}\n")
    with pytest.raises(ConfigError, match=r"standby\.reports_of: .* own reports\.outcome_topic"):
        parse_config("standby: {reports_of: cosyedge/report}\n")
    enabled = "standby: {enabled: true, client_id: gw-1, reports_of: s/report}\n"
    with pytest.raises(ConfigError, match=r"reports_of: a primary's key"):
        parse_config(f"mqtt: {{client_id: gw-2}}\nreports: {{outcome_topic: s2/r}}\n{enabled}")


def test_each_reconnect_holds_again_until_its_own_marker_is_back(primary):
    """Cut off from the broker but running, this gateway was gone to the standby, which said
    what it held; the broker kept those alerts and the standby's reports for this session.
    Each reconnect holds again, on a marker of its own, so the reports come first."""
    first = primary.connect()
    primary.marker_back(first)
    primary.send("A")
    assert (took := primary.take(0.5)) is not None and took.key == "A"
    again = primary.connect()  # reconnected: a new marker, a new hold
    assert again != first and len(primary.markers()) == 2
    primary.send("B")  # what the broker kept: the alert, then the standby's report of it
    assert primary.take(0.3) is None
    primary.marker_back(first)  # an earlier connection's marker, late: not this one's
    assert primary.take(0.3) is None
    primary.standby("B")
    primary.marker_back(again)
    assert primary.take(0.3) is None  # covered, not said again
    assert [r["outcome"] for r in primary.reports() if r["id"] == "B"] == ["covered"]
    primary.send("C")  # after the hold: said at once
    assert (took := primary.take(0.5)) is not None and took.key == "C"
    primary.tap.tick(time.monotonic())
    assert len(primary.markers()) == 2  # no new connection: no new marker


def test_a_reconnect_whose_marker_never_comes_speaks_after_handback_s(tmp_path):
    made = Primary(tmp_path, wait_s=0.5)
    try:
        made.marker_back()
        made.connect()
        made.send("D")
        assert made.take(0.2) is None
        assert (took := made.take(1.0)) is not None and took.key == "D"
    finally:
        made.journal.stop()


def test_one_that_stood_still_past_a_beat_holds_again_until_its_marker_is_back(primary, caplog):
    """Stopped (SIGSTOP, an I/O or swap stall) past its standby's silence bound and within the
    broker's keepalive: connected all along, its beat stopped, its standby took over and said
    what came meanwhile. Its clock's tick that late, it holds as at a reconnect."""
    first = primary.connect()
    primary.marker_back(first)
    primary.send("A")
    assert (took := primary.take(0.5)) is not None and took.key == "A"
    primary.desk.tick()  # the clock's last tick before the stall
    time.sleep(STALL_S + 0.2)  # no tick meanwhile: the process stood still
    primary.send("F2")  # what the broker kept meanwhile, then the standby's report of it
    with caplog.at_level(logging.WARNING):
        assert primary.take(0.3) is None  # held from the late tick on, not said at once
    assert "stood still for 2." in caplog.text and len(primary.markers()) == 2
    primary.standby("F2")
    primary.marker_back(first)  # the marker of before the stall is not this hold's
    assert primary.take(0.3) is None
    primary.marker_back(primary.markers()[-1])
    assert primary.take(0.3) is None  # covered, not said again
    assert [r["outcome"] for r in primary.reports() if r["id"] == "F2"] == ["covered"]
    primary.send("G")
    assert (took := primary.take(0.5)) is not None and took.key == "G"


def test_the_bridge_back_holds_for_the_standbys_reports_of_what_it_said_meanwhile(tmp_path):
    """The bridge to the standby's broker down, the standby took over and said what was
    published on its broker; back, the bridge delivers those alerts here ahead of the
    standby's reports of them. The primary holds for handback_s: covered, not said again."""
    made = Primary(tmp_path, wait_s=0.8, bridged=True)
    try:
        made.marker_back(made.connect())
        assert made.tap.claim(LINK, b"0", retained=False)  # the bridge down: it speaks on
        made.send("A")
        assert (took := made.take(0.3)) is not None and took.key == "A"
        assert made.tap.claim(LINK, b"1", retained=False)  # back: what it queued comes
        made.send("F")
        assert made.take(0.3) is None  # held
        made.standby("F")  # the standby's report, behind its alert
        assert made.take(0.8) is None  # covered, not said again
        made.send("G")  # after the hold, at once
        assert (took := made.take(0.3)) is not None and took.key == "G"
    finally:
        made.journal.stop()


def test_json_nested_past_the_parser_on_the_standbys_reports_is_ignored_not_raised(primary):
    deep = b"[" * 8000 + b"]" * 8000
    assert primary.tap.claim("standby/report", deep, retained=False)
    primary.send("D")
    primary.standby("D")  # what the standby really reports is still taken
    assert [r["outcome"] for r in primary.reports() if r.get("id") == "D"] == ["covered"]


@pytest.mark.parametrize(
    "standby, key",
    [
        ("{reports_of: s/report, link_topic: cosyedge/report}", "link_topic"),
        ("{reports_of: s/report, link_topic: cosyedge/status}", "link_topic"),
        ("{reports_of: s/report, link_topic: cosyedge/command}", "link_topic"),
        ("{reports_of: s/report, link_topic: s/report}", "link_topic"),
        ("{reports_of: s/report, link_topic: plant/x/alarm}", "link_topic"),
        ("{reports_of: s/report, link_topic: cosyedge/canary/x/state}", "link_topic"),
        ("{reports_of: cosyedge/canary/gw-s}", "reports_of"),
        ("{reports_of: cosyedge/canary}", "reports_of"),
    ],
)
def test_a_primarys_link_or_reports_of_crossing_its_own_topics_is_refused(standby, key):
    templates = "templates:\n  - {topic: 'plant/+/alarm', text: '{text}'}\n"
    with pytest.raises(ConfigError, match=rf"standby\.{key}: "):
        parse_config(f"standby: {standby}\n{templates}")
    parse_config(f"standby: {{reports_of: s/report, link_topic: $SYS/b/s/state}}\n{templates}")


def test_a_primarys_link_topic_refusal_names_what_it_crosses_and_sys_is_under_no_wildcard():
    templates = "templates:\n  - {topic: 'plant/+/alarm', text: '{text}'}\n"
    crossings = {
        "cosyedge/report": "is this gateway's reports.outcome_topic",
        "s/report": "is this gateway's standby.reports_of",
        "plant/x/alarm": 'falls under this gateway\'s templates[0].topic ("plant/+/alarm")',
    }
    for link, said in crossings.items():
        with pytest.raises(ConfigError, match=re.escape(f'link_topic: "{link}" {said};')):
            parse_config(f"standby: {{reports_of: s/report, link_topic: {link}}}\n{templates}")
    # A filter's leading wildcard matches no `$` topic (MQTT 3.1.1, 4.7.2): no crossing.
    sys_link = "$SYS/broker/connection/b/state"
    wide = "templates:\n  - {topic: '+/broker/connection/{n}/state', text: '{n}'}\n"
    parse_config(f"standby: {{reports_of: s/report, link_topic: {sys_link!r}}}\n{wide}")
    own = "reports: {outcome_topic: s/r, status_topic: s/s, error_topic: s/e, event_topic: s/v}\n"
    parse_config(f"{own}standby: {{enabled: true, client_id: p, link_topic: {sys_link!r}}}\n{wide}")
