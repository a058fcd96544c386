"""A standby's rules in one process: the intake, the journal, the desk with the primary's
watch, the reporter and the tap that reads the primary's status and reports, wired as the
daemon wires them; the announcer's part (take an item, say what became of it) is the test's."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.standby import OFFLINE_GRACE_S
from cosyedge.alarms.zones import Zones
from cosyedge.build import peers
from cosyedge.config import ConfigError, parse_config
from cosyedge.config.zones import DEFAULT_ZONE
from cosyedge.intake import hermes
from cosyedge.intake.intake import Intake
from cosyedge.intake.primary import PrimaryTap
from cosyedge.journal import Journal
from cosyedge.model import Delivery, Item, ItemKind
from cosyedge.mqtt.reports import Reporter

CONFIG = """
state_dir: {dir}/state
mqtt: {{client_id: {own}}}
reports:
  outcome_topic: standby/report
  event_topic: standby/event
  error_topic: standby/error
  status_topic: standby/status
standby: {{enabled: true, client_id: gw-primary, takeover_s: {takeover_s},
  link_topic: "{link}"{standby}}}
hermes: {{enabled: true}}
templates:
  - {{topic: "plant/{{line}}/alarm", text: "Line {{line}}: {{what}}", payload: json,
      priority: high}}
  - {{topic: "plant/{{line}}/standing", text: "Line {{line}}: {{what}}", payload: json,
      priority: high, reannounce_s: {reannounce_s}}}
"""
REANNOUNCE_S = 0.5
LINK = "$SYS/broker/connection/gw.to-primary/state"  # Mosquitto's bridge notifications


class Standby:
    """The alert path of a standby up to the announcer; what it publishes is kept."""

    def __init__(
        self,
        directory: Path,
        takeover_s: float,
        standby: str = "",
        more: str = "",
        own: str = "gw-standby",
    ) -> None:
        """`standby`: keys added to the `standby` section (`, key: value`); `more`: sections;
        `own`: its client id (the primary's is gw-primary)."""
        text = CONFIG.format(
            own=own,
            dir=directory,
            takeover_s=takeover_s,
            link=LINK,
            reannounce_s=REANNOUNCE_S,
            standby=standby,
        )
        self.config = parse_config(text + more)
        self.published: list[tuple[str, dict]] = []
        self._lock = threading.Lock()
        self.journal = Journal(self.config.state_dir / "journal.jsonl", 60)
        self.reporter = Reporter(self.config.reports, self.publish, self.journal, by="standby")
        watch, _ = peers(self.config)
        names = tuple(self.config.zones) or (DEFAULT_ZONE,)
        policy = Zones(self.config.alarms, names, self.config.standby.zones)
        self.desk = AlarmDesk(policy, self.reporter, self.journal, standby=watch)
        self.tap = PrimaryTap(self.config.standby, self.desk, self.config.mqtt.max_payload_bytes)
        self.intake = Intake(self.config)
        self.desk.recover(self.journal.open(), self.intake.read_journaled)

    def publish(self, topic: str, payload: str, retain: bool = False) -> int:
        with self._lock:
            self.published.append((topic, json.loads(payload)))
            mid = len(self.published)
        self.reporter.published(mid)
        return mid

    def primary(self, topic: str, message: dict | bytes) -> None:
        """A message of the primary's (or the bridge's), as the session hands it to the taps."""
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        assert self.tap.claim(topic, body, retained=False)

    def offline(self, run: str | None = None) -> None:
        """The primary's Last Will (naming `run`), taken once our connection has stayed up
        for its grace after it (alarms/standby.py OFFLINE_GRACE_S)."""
        self.primary("cosyedge/status", {"state": "offline", **({"run": run} if run else {})})
        time.sleep(OFFLINE_GRACE_S + 0.02)

    def send(self, ident: str, priority: str = "high", topic: str = "plant/1/alarm") -> None:
        body = json.dumps({"id": ident, "what": ident, "priority": priority}).encode()
        self.deliver(topic, body)

    def deliver(self, topic: str, body: bytes) -> None:
        """As the door takes an alert: journaled, read, handed to the rules."""
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
            self.desk.finished(item, Delivery("spoken"))
        return item

    def reports(self, topic: str = "standby/report") -> list[dict]:
        assert self.journal.flush(5)
        with self._lock:
            return [p for t, p in self.published if t == topic]


@pytest.fixture
def standby(tmp_path):
    made = Standby(tmp_path, takeover_s=0.6, standby=', takeover_phrase: ""')  # the rules alone
    yield made
    made.journal.stop()


def test_while_the_primary_is_alive_nothing_is_said_and_its_outcome_covers_the_copy(standby):
    standby.primary("cosyedge/status", {"state": "online"})
    standby.send("A")
    time.sleep(0.7)  # past takeover_s: alive is alive, however long
    assert standby.take() is None
    standby.primary("cosyedge/report", {"seq": 7, "id": "A", "outcome": "spoken"})
    (report,) = standby.reports()
    assert (report["id"], report["outcome"], report["by"]) == ("A", "covered", "standby")
    assert report["primary"] == {"outcome": "spoken", "seq": 7}
    assert report["reason"] == "ended by the gateway this one stands by for: spoken"
    assert standby.desk.waiting() == 0
    assert standby.desk.standby_fault() is None


def test_an_outcome_before_the_copy_covers_it_on_arrival_but_a_duplicates_does_not(standby):
    standby.primary("cosyedge/status", {"state": "degraded"})
    standby.primary("cosyedge/report", {"seq": 1, "id": "B", "outcome": "acknowledged"})
    standby.primary("cosyedge/report", {"seq": 2, "id": "C", "outcome": "deduplicated"})
    standby.send("B")
    standby.send("C")
    (report,) = standby.reports()
    assert (report["id"], report["outcome"]) == ("B", "covered")
    assert report["primary"]["outcome"] == "acknowledged"
    assert standby.desk.waiting() == 1  # C: the primary's own copy of it is still to come


def test_with_the_primary_offline_held_alerts_wait_takeover_s_and_new_ones_go_at_once(tmp_path):
    standby = Standby(tmp_path, takeover_s=1.5, standby=', takeover_phrase: ""')
    standby.primary("cosyedge/status", {"state": "online"})
    standby.send("old", "critical")
    standby.offline()
    fault = standby.desk.standby_fault()
    assert fault is not None and fault.startswith("primary offline since ")
    assert fault.endswith("(its status is offline); speaking for it")
    standby.send("new", "low")
    took = standby.take()
    assert took is not None and took.key == "new"  # after the primary went: at once
    assert standby.take(0.1) is None  # received while it lived: waits takeover_s
    took = standby.take(1.5)
    assert took is not None and took.key == "old"
    said = {r["id"]: r["outcome"] for r in standby.reports()}
    assert said == {"new": "spoken", "old": "spoken"}
    standby.primary("cosyedge/status", {"state": "starting"})  # back: held again
    assert standby.desk.standby_fault() is None
    standby.send("later")
    time.sleep(0.7)
    assert standby.take() is None
    standby.journal.stop()


def test_a_primary_with_no_status_is_gone_takeover_s_after_the_first_message(standby):
    standby.send("first")  # the subscription works: a retained status would have come
    assert standby.desk.standby_fault() is None
    assert standby.take(0.1) is None
    time.sleep(0.6)
    assert "(it has no status)" in str(standby.desk.standby_fault())
    took = standby.take()
    assert took is not None and took.key == "first"


def test_the_standbys_own_faults_are_said_while_it_holds_and_a_held_alert_cuts_none(standby):
    standby.primary("cosyedge/status", {"state": "online"})
    standby.desk.fault("audio", "Alarm system fault.", "en", 0)
    standby.send("held", "critical")
    item = standby.desk.take(0.2)
    assert item is not None and item.kind is ItemKind.FAULT
    assert not standby.desk.should_stop(item)  # the critical alert waits: it outranks nothing
    standby.desk.finished(item, Delivery("spoken"))
    assert standby.take() is None


OWN_TOPICS = {
    "outcome_topic": "s/report",
    "event_topic": "s/event",
    "error_topic": "s/error",
    "status_topic": "s/status",
}


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("mqtt.client_id", "gw-primary"),
        ("reports.status_topic", "cosyedge/status"),
        ("reports.outcome_topic", "cosyedge/report"),
        ("reports.error_topic", "cosyedge/error"),
        ("reports.event_topic", "cosyedge/report"),
    ],
)
def test_a_standby_sharing_the_primarys_client_id_or_topics_is_refused_naming_the_key(key, value):
    def text(mqtt: dict, reports: dict) -> str:
        section = {"enabled": True, "client_id": "gw-primary"}
        return json.dumps({"standby": section, "mqtt": mqtt, "reports": reports})

    parse_config(text({"client_id": "gw-standby"}, OWN_TOPICS))  # each its own: taken
    section, name = key.split(".")
    mqtt = {"client_id": value if section == "mqtt" else "gw-standby"}
    reports = {**OWN_TOPICS, **({name: value} if section == "reports" else {})}
    with pytest.raises(ConfigError, match=key.replace(".", r"\.") + ": .* is the primary's"):
        parse_config(text(mqtt, reports))
    with pytest.raises(ConfigError, match=r"standby\.client_id: the primary's client id"):
        parse_config("standby: {enabled: true}\n")


def test_an_operators_ack_ends_a_held_copy_as_the_primary_would(standby):
    standby.primary("cosyedge/status", {"state": "online"})
    standby.send("D")
    assert standby.take(0.1) is None  # held, and still where a command finds it
    standby.desk.command(standby.intake.command(b'{"cmd": "ack", "id": "D"}'), "ack D")
    (report,) = standby.reports()
    assert (report["id"], report["outcome"]) == ("D", "acknowledged")
    assert standby.desk.waiting() == 0


def test_a_covered_hermes_request_is_answered_by_the_primary_alone(standby):
    """The primary that said it answers Rhasspy; a second sayFinished would be a lie about
    a request the standby never said."""
    standby.primary("cosyedge/status", {"state": "online"})
    request = {"text": "Dinner is ready.", "siteId": "default", "id": "r-1", "sessionId": "s"}
    body = json.dumps(request).encode()
    standby.deliver(hermes.SAY, body)
    key = hermes.dedup_key(body, "r-1")
    standby.primary("cosyedge/report", {"seq": 3, "id": key, "outcome": "spoken"})
    (report,) = standby.reports()
    assert (report["id"], report["outcome"]) == (key, "covered")
    assert standby.reports(hermes.FINISHED) == standby.reports(hermes.ERROR) == []


def test_a_primary_that_cannot_be_heard_is_spoken_for_after_takeover_s(standby):
    """Connected and queueing but mute (its card gone, a stuck announcer): its status's fault
    counts as its absence once it has lasted `takeover_s`; heard again, it is held for."""
    degraded = {"state": "degraded", "faults": {"audio": "the sound device is gone"}}
    standby.primary("cosyedge/status", degraded)
    standby.send("E", "critical")
    assert standby.take(0.3) is None  # the fault may pass: it must last takeover_s
    assert standby.desk.standby_fault() is None
    took = standby.take(1.0)
    assert took is not None and took.key == "E"
    fault = str(standby.desk.standby_fault())
    assert fault.startswith("primary cannot be heard since ")
    assert fault.endswith("(its fault audio: the sound device is gone); speaking for it")
    assert standby.desk.standby.shown(time.monotonic())["primary"] == "mute"
    standby.primary("cosyedge/status", {"state": "online", "faults": {}})  # heard again
    assert standby.desk.standby_fault() is None
    standby.send("F")
    time.sleep(0.7)
    assert standby.take() is None


@pytest.mark.parametrize(
    "faults",
    [
        {"audio:hall": "gone"},  # one output of a zoned primary: its other zones still speak
        {"voice": "failed"},  # heard, as the generic phrase
        {"journal": "disk full"},
        ["audio"],  # not an object: no fault read from it
        "audio",
    ],
)
def test_faults_that_leave_the_primary_heard_keep_the_copies_held(standby, faults):
    standby.primary("cosyedge/status", {"state": "degraded", "faults": faults})
    standby.send("G")
    time.sleep(0.7)
    assert standby.take() is None
    assert standby.desk.standby_fault() is None


def test_a_mute_primarys_long_fault_reason_is_told_cut(standby):
    standby.primary(
        "cosyedge/status", {"state": "degraded", "faults": {"player-stuck": "x" * 10**4}}
    )
    time.sleep(0.7)
    fault = str(standby.desk.standby_fault())
    assert "(its fault player-stuck: " in fault and len(fault) < 400


def test_the_other_gateways_named_topics_are_never_alerts_even_under_a_hash_template():
    """A `#` template hears everything on the broker: the topics a gateway names for the
    other one (a standby's `standby.*_topic`, a primary's `reports_of`) are that gateway's
    reports, read by the watch or the handback, never said. Under a narrower filter a
    standby's status, report or link topic is an alert topic named by mistake: refused."""
    hash_template = "templates:\n  - {topic: '#', text: '{text}'}\n"
    own = (
        "mqtt: {client_id: gw-2}\nreports: {outcome_topic: s/report, status_topic: s/status,"
        " error_topic: s/error, event_topic: s/event}\n"
    )
    standby = parse_config(own + "standby: {enabled: true, client_id: gw-1}\n" + hash_template)
    primary = parse_config("standby: {reports_of: s/report}\n" + hash_template)
    body = json.dumps({"text": "Pump three tripped."}).encode()
    for config, theirs in (
        (standby, ["cosyedge/report", "cosyedge/status", "cosyedge/error"]),
        (primary, ["s/report"]),
    ):
        intake = Intake(config)
        assert [intake.message(topic, body) for topic in theirs] == [None] * len(theirs)
        assert intake.message("plant/line3", body) is not None
    with pytest.raises(ConfigError, match=r"standby\.status_topic: .* falls under templates\[0\]"):
        parse_config(
            own + "standby: {enabled: true, client_id: gw-1, status_topic: plant/1/alarm}\n"
            "templates:\n  - {topic: 'plant/+/alarm', text: '{text}'}\n"
        )


def test_a_bridge_to_the_primarys_broker_down_for_takeover_s_counts_as_the_primary_gone(standby):
    """On bridged brokers the primary's last status stays `online` on ours however dead it or
    its broker is since: the bridge's own state says it is out of reach."""
    standby.primary("cosyedge/status", {"state": "online", "faults": {}})
    standby.primary(LINK, b"1")
    standby.send("H", "critical")
    standby.primary(LINK, b"0")
    assert standby.take(0.3) is None  # the bridge may come back: down must last takeover_s
    took = standby.take(1.0)
    assert took is not None and took.key == "H"
    fault = str(standby.desk.standby_fault())
    assert fault.startswith("primary unreachable since ")
    assert f"(the bridge to its broker is down: {LINK} says 0); speaking for it" in fault
    assert standby.desk.standby.shown(time.monotonic())["primary"] == "unreachable"
    standby.primary(LINK, b"1")  # back: what the primary reports covers again
    assert standby.desk.standby_fault() is None
    standby.send("I")
    time.sleep(0.7)
    assert standby.take() is None


@pytest.mark.parametrize("will_first", [True, False])
def test_the_primarys_broker_stopping_across_the_bridge_is_no_death(standby, will_first):
    """A broker stopped normally publishes every client's Will, then closes its connections,
    the bridge's too: the primary's `offline` and the bridge's `0` come together. That is the
    broker, not the primary: it is dropped; the bridge down for takeover_s still counts."""
    standby.primary("cosyedge/status", {"state": "online", "faults": {}, "run": "r1"})
    standby.primary(LINK, b"1")
    standby.send("H", "critical")
    time.sleep(0.7)  # past takeover_s: an offline taken would say it at once
    will = {"state": "offline", "run": "r1"}
    for topic, body in (("cosyedge/status", will), (LINK, b"0"))[:: 1 if will_first else -1]:
        standby.primary(topic, body)
    assert standby.take(0.3) is None  # the broker's closing: no takeover yet
    assert standby.desk.standby.ignored.get("offline-at-close") == 1
    took = standby.take(1.0)  # the bridge still down past takeover_s: unreachable
    assert took is not None and took.key == "H"
    assert "the bridge to its broker is down" in str(standby.desk.standby_fault())


def test_a_bridge_said_down_while_the_primarys_status_keeps_coming_is_up(standby):
    """Any client may publish on `$SYS` topics: a `0` on the link topic while the primary's
    beat goes on arriving (through that bridge) is no bridge's, and no takeover follows."""
    online = {"state": "online", "faults": {}, "run": "r1"}
    standby.primary("cosyedge/status", online)
    standby.primary(LINK, b"1")
    standby.send("F", "critical")
    standby.primary(LINK, b"0")  # forged
    time.sleep(OFFLINE_GRACE_S + 0.05)
    standby.primary("cosyedge/status", online)  # its next beat, through the bridge
    assert standby.take(0.8) is None  # past takeover_s: still held
    assert standby.desk.standby_fault() is None
    assert standby.desk.standby.ignored.get("link-contradicted") == 1


@pytest.mark.parametrize("state", [b"", b"2", b"down", b"\xff" * 100])
def test_a_bridge_state_other_than_0_is_no_sign_of_the_primary_gone(standby, state):
    standby.primary("cosyedge/status", {"state": "online", "faults": {}})
    standby.primary(LINK, state)
    standby.send("J")
    time.sleep(0.7)
    assert standby.take() is None and standby.desk.standby_fault() is None


def test_a_bridge_down_for_less_than_takeover_s_says_nothing(standby):
    standby.primary("cosyedge/status", {"state": "online", "faults": {}})
    standby.send("K")
    standby.primary(LINK, b"0")
    time.sleep(0.3)
    standby.primary(LINK, b"1")
    time.sleep(0.5)
    assert standby.take() is None and standby.desk.standby_fault() is None


def said_by_primary(standby: Standby, ident: str, outcome: str = "spoken") -> None:
    report = {"id": ident, "outcome": outcome, "seq": 7, "end": time.time()}
    standby.primary("cosyedge/report", report)


def test_an_alarm_the_primary_said_that_stands_is_re_announced_by_the_standby_once_it_is_gone(
    standby,
):
    """The primary's `spoken` of an alarm re-announced until acknowledged leaves it standing
    here as said: held while the primary lives (its re-announcements are its own), said by
    the standby at a takeover, until an operator's ack on the shared command topic."""
    standby.primary("cosyedge/status", {"state": "online", "faults": {}})
    standby.send("S", topic="plant/1/standing")
    said_by_primary(standby, "S")
    assert [r["outcome"] for r in standby.reports() if r["id"] == "S"] == ["covered"]
    assert standby.take(3 * REANNOUNCE_S) is None  # the primary alive: nothing said here
    standby.offline()
    took = standby.take(REANNOUNCE_S + 1.0)
    assert took is not None and (took.kind, took.key) == (ItemKind.REANNOUNCE, "S"), took
    assert standby.take(0.1) is None  # one, not one for each period the primary lived
    ack = standby.intake.command(b'{"cmd": "ack", "id": "S"}')
    assert standby.desk.command(ack, "ack S").ids == ("S",)
    time.sleep(REANNOUNCE_S + 0.3)
    assert standby.take() is None


@pytest.mark.parametrize("outcome", ["acknowledged", "rejected", "expired", "failed"])
def test_an_alarm_the_primary_did_not_let_be_heard_does_not_stand_here(standby, outcome):
    standby.primary("cosyedge/status", {"state": "online", "faults": {}})
    standby.send("T", topic="plant/1/standing")
    said_by_primary(standby, "T", outcome)
    standby.offline()
    time.sleep(REANNOUNCE_S + 0.5)
    assert standby.take() is None
    assert [r["outcome"] for r in standby.reports() if r["id"] == "T"] == ["covered"]


def test_an_ack_the_primary_carried_out_is_carried_out_here_once(standby):
    """An ack given at the primary's own page reaches the standby only as the primary's
    `command` event; the same ack from the shared command topic too changes nothing more."""
    standby.primary("cosyedge/status", {"state": "online", "faults": {}})
    for ident in ("P", "Q"):
        standby.send(ident, topic="plant/1/standing")
        said_by_primary(standby, ident)
    ack_p = {"event": "command", "cmd": "ack", "id": "P", "ids": ["P"], "user": "ana"}
    standby.primary("cosyedge/event", ack_p)
    standby.primary("cosyedge/event", ack_p)  # again: nothing standing, nothing told
    ack_q = standby.intake.command(b'{"cmd": "ack", "id": "Q"}')
    assert standby.desk.command(ack_q, "ack Q").ids == ("Q",)
    standby.primary("cosyedge/event", {**ack_p, "id": "Q", "ids": ["Q"]})
    events = [e for e in standby.reports("standby/event") if e.get("event") == "command"]
    assert [(e["ids"], e.get("user")) for e in events] == [(["P"], "ana"), (["Q"], None)]
    standby.offline()
    assert standby.take(3 * REANNOUNCE_S) is None  # neither re-announced at the takeover


@pytest.mark.parametrize(
    "event",
    [
        {"event": "command", "cmd": "shelve", "ids": ["R"]},  # a shelve names its topic
        {"event": "command", "cmd": "ack", "ids": "R"},
        {"event": "command", "cmd": "ack", "ids": [7, None]},
        {"event": "cleared", "cmd": "ack", "ids": ["R"]},
        {"event": "command"},
    ],
)
def test_other_primary_events_change_nothing_here(standby, event):
    standby.primary("cosyedge/status", {"state": "online", "faults": {}})
    standby.send("R", topic="plant/1/standing")
    said_by_primary(standby, "R")
    standby.primary("cosyedge/event", event)
    standby.offline()
    took = standby.take(REANNOUNCE_S + 1.0)
    assert took is not None and took.key == "R"


def test_an_alert_the_bridge_kept_while_down_waits_for_the_primarys_status_behind_it(standby):
    """A partition between bridged brokers: the primary beat on its side and said what was
    sent there. The bridge back, what it kept comes first, the primary's status behind it:
    the primary's silence counts from the bridge's return, so those alerts wait, and the
    primary's report ends them `covered`."""
    standby.primary("cosyedge/status", {"state": "online", "faults": {}, "beat_s": 0.1})
    standby.primary(LINK, b"1")
    standby.primary(LINK, b"0")
    time.sleep(1.0)  # past takeover_s and the status's silence bound (0.6 + 2 x 0.1 s)
    assert standby.desk.standby_fault() is not None
    standby.primary(LINK, b"1")
    standby.send("P")  # published on the primary's side during the cut, and said there
    assert standby.take(0.3) is None
    standby.primary("cosyedge/status", {"state": "online", "faults": {}, "beat_s": 0.1})
    said_by_primary(standby, "P")
    assert standby.take(0.3) is None
    assert [r["outcome"] for r in standby.reports() if r.get("id") == "P"] == ["covered"]


@pytest.mark.parametrize("depth", [1000, 8000])
def test_json_nested_past_the_parser_on_the_primarys_topics_is_counted_not_raised(standby, depth):
    deep = b"[" * depth + b"]" * depth  # 16 KB at most: within mqtt.max_payload_bytes
    for topic in ("cosyedge/status", "cosyedge/report", "cosyedge/event"):
        standby.primary(topic, deep)
    assert standby.desk.standby.ignored == {"status": 1, "report": 1, "event": 1}
