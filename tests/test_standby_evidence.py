"""What a standby takes as evidence of its primary, and what it takes from it, in one process
(the alert path of test_standby_rules.py): the primary's beat and its silence, its own shape
of status and report only, the other gateway's clock kept to ours, its shelves carried, and
the refusals of topics that would cross."""

from __future__ import annotations

import json
import time

import pytest
from test_handback_rules import Primary
from test_standby_rules import REANNOUNCE_S, Standby

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.policy import AlarmPolicy
from cosyedge.alarms.standby import BEAT_S
from cosyedge.config import ConfigError, parse_config
from cosyedge.model import Delivery, ItemKind

TAKEOVER_S = 0.6
BEAT = 0.1  # the primary's told `beat_s` here: silent past TAKEOVER_S + 2 beats = 0.8 s
ONLINE = {"state": "online", "faults": {}, "beat_s": BEAT}


@pytest.fixture
def standby(tmp_path):
    made = Standby(
        tmp_path, takeover_s=TAKEOVER_S, standby=', takeover_phrase: ""'
    )  # the rules alone
    yield made
    made.journal.stop()


def fault(standby: Standby) -> str | None:
    standby.desk.tick()
    return standby.desk.standby_fault()


def test_a_primary_whose_status_stops_beating_is_gone_once_its_silence_outlasts_the_bound(standby):
    """A stale retained `online` (a Last Will lost with a broker restarted meanwhile) is not
    a primary alive: its beat stops, and `takeover_s` + 2 beats later it is gone."""
    standby.primary("cosyedge/status", ONLINE)
    standby.send("A", "critical")
    for _ in range(3):  # beating: held however long
        time.sleep(0.5)
        standby.primary("cosyedge/status", ONLINE)
        assert fault(standby) is None and standby.take(0.05) is None
    time.sleep(0.9)  # silent past 0.8 s, but nothing has come through our subscription since
    assert fault(standby) is None, "silence heard while cut off from the broker is no evidence"
    standby.send("B", "low")  # the subscription works (in the daemon: our own beat comes back)
    told = str(fault(standby))
    assert told.startswith("primary silent since ") and "(no status from it for 0.8 s" in told
    assert standby.desk.status()["standby"]["primary"] == "silent"
    took = standby.take()
    assert took is not None and took.key == "A"
    standby.primary("cosyedge/status", ONLINE)  # beating again: held again
    assert fault(standby) is None


def test_a_standby_that_stood_still_reads_its_backlog_before_it_judges_silence(standby):
    """Stopped (SIGSTOP, a swap stall) while the primary beat, a standby resumes with the
    broker's backlog to read: the first message of it is no proof that the primary's statuses
    behind it are missing. Silence counts from when it listens again."""
    standby.desk.standby.deaf_s = 0.3  # its own beat missed twice (2 s apart in a daemon)
    standby.primary("cosyedge/status", ONLINE)
    standby.send("A", "critical")
    time.sleep(1.0)  # it stood still: nothing read, the primary's statuses queued meanwhile
    standby.send("B", "low")  # the backlog's first message
    assert fault(standby) is None and standby.take(0.05) is None
    standby.primary("cosyedge/status", ONLINE)  # the backlog's next: the primary beats on
    assert fault(standby) is None
    for i in range(6):  # now it dies: silence, heard while listening, outlasts the bound
        time.sleep(0.2)
        standby.send(f"C{i}", "low")
    assert str(fault(standby)).startswith("primary silent since ")


def test_each_new_subscription_starts_the_silence_clock_again(standby):
    """A standby that reconnects keeps what it knew (`online`), but the primary's status must
    come again within the bound of the new subscription's first message."""
    standby.primary("cosyedge/status", ONLINE)
    standby.send("A")
    time.sleep(1.0)
    standby.tap.connected()  # a reconnect: the primary's retained status did not come back
    standby.send("B")  # the first message of the new subscription
    assert fault(standby) is None
    time.sleep(0.9)
    standby.send("C")
    assert str(fault(standby)).startswith("primary silent since ")


@pytest.mark.parametrize(
    "payload",
    [
        b"not json",
        b"{}",
        b'{"state": null}',
        b'{"state": "gone"}',
        b"[1, 2]",
        b"",  # a retained status cleared
        json.dumps({"state": "offline", "pad": "x" * 200_000}).encode(),  # over the limit
    ],
)
def test_a_message_on_the_primarys_status_topic_not_of_its_shape_is_ignored(standby, payload):
    standby.primary("cosyedge/status", ONLINE)
    standby.send("A")
    time.sleep(TAKEOVER_S + 0.1)  # a status counted as none would be gone at once
    standby.primary("cosyedge/status", payload)
    standby.send("B")
    assert fault(standby) is None and standby.take(0.1) is None
    shown = standby.desk.status()["standby"]
    assert shown["primary"] == "online" and sum(shown["ignored"].values()) == 1, shown


@pytest.mark.parametrize("run", [None, "r0"])
def test_an_offline_not_naming_the_run_of_the_primarys_status_is_ignored(standby, run):
    """MQTT 3.1.1 hands the Last Will over without its retain flag, as any stray message: the
    run it names tells them apart (the primary's statuses and its Last Will name its run)."""
    standby.primary("cosyedge/status", {**ONLINE, "run": "r1"})
    standby.send("A")
    standby.offline(run)
    assert fault(standby) is None
    assert standby.desk.status()["standby"]["ignored"] == {"another-run": 1}
    standby.offline("r1")
    assert str(fault(standby)).endswith("(its status is offline); speaking for it")


def test_reports_the_primary_could_not_have_sent_cover_nothing(standby):
    """Retained (it publishes none so), over the payload limit, or heard while its status is
    offline (its connection is gone): ignored, counted."""
    standby.primary("cosyedge/status", ONLINE)
    standby.send("A", "critical")
    report = {"seq": 7, "id": "A", "outcome": "spoken"}
    assert standby.tap.claim("cosyedge/report", json.dumps(report).encode(), retained=True)
    standby.primary("cosyedge/report", {**report, "pad": "x" * 70_000})
    standby.offline()
    standby.primary("cosyedge/report", report)
    assert standby.reports() == []
    ignored = standby.desk.status()["standby"]["ignored"]
    assert ignored == {"retained": 1, "too-big": 1, "report-offline": 1}
    took = standby.take(TAKEOVER_S + 0.5)
    assert took is not None and took.key == "A"


def test_the_standbys_retained_or_oversized_reports_cover_nothing_on_the_primary(tmp_path):
    primary = Primary(tmp_path, wait_s=30)
    try:
        primary.send("A")
        report = {"seq": 9, "id": "A", "outcome": "spoken", "by": "standby"}
        assert primary.tap.claim("standby/report", json.dumps(report).encode(), retained=True)
        big = json.dumps({**report, "pad": "x" * 70_000}).encode()
        assert primary.tap.claim("standby/report", big, retained=False)
        primary.marker_back()
        took = primary.take()
        assert took is not None and took.key == "A"
    finally:
        primary.journal.stop()


def test_a_primary_clock_an_hour_ahead_does_not_delay_the_standbys_re_announcements(standby):
    standby.primary("cosyedge/status", ONLINE)
    standby.send("S", topic="plant/1/standing")
    report = {"id": "S", "outcome": "spoken", "seq": 7, "end": time.time() + 3600}
    standby.primary("cosyedge/report", report)
    standby.offline()
    took = standby.take(REANNOUNCE_S + 1.0)
    assert took is not None and (took.kind, took.key) == (ItemKind.REANNOUNCE, "S")


def test_a_standby_clock_an_hour_ahead_does_not_delay_the_primarys_re_announcements(tmp_path):
    primary = Primary(tmp_path, wait_s=30)
    try:
        primary.send("S", "standing")
        primary.standby("S", ended_ago=-3600)  # its `end` an hour after our now
        primary.marker_back()
        took = primary.take(3.0)  # a period (1 s) from now at the latest
        assert took is not None and (took.kind, took.key) == (ItemKind.REANNOUNCE, "S")
    finally:
        primary.journal.stop()


def test_a_shelve_and_unshelve_given_at_the_primary_only_are_carried_out_here_once(standby):
    standby.primary("cosyedge/status", ONLINE)
    shelve = {"event": "command", "cmd": "shelve", "topic": "plant/1/alarm", "duration_s": 60}
    standby.primary("cosyedge/event", {**shelve, "ids": [], "user": "ana"})
    standby.primary("cosyedge/event", {**shelve, "ids": []})  # shelved already: once
    standby.send("A")
    (report,) = standby.reports()
    assert (report["id"], report["outcome"]) == ("A", "shelved")
    assert [s["topic"] for s in standby.desk.board()["shelved"]] == ["plant/1/alarm"]
    unshelve = {"event": "command", "cmd": "unshelve", "topic": "plant/1/alarm"}
    standby.primary("cosyedge/event", unshelve)
    standby.primary("cosyedge/event", unshelve)  # not shelved: nothing
    standby.send("B")
    assert standby.desk.board()["shelved"] == []
    assert [r["outcome"] for r in standby.reports() if r["id"] == "B"] == []  # held
    told = [e for e in standby.reports("standby/event") if e.get("event") == "command"]
    assert [(e["cmd"], e.get("user")) for e in told] == [("shelve", "ana"), ("unshelve", None)]


def test_the_status_counts_what_the_standby_holds_and_shows_the_primarys_own_state(standby):
    standby.primary("cosyedge/status", {**ONLINE, "state": "starting"})
    standby.send("A")
    standby.send("B")
    shown = standby.desk.status()["standby"]
    assert (shown["primary"], shown["held"]) == ("starting", 2), shown


def test_a_primary_with_no_status_is_gone_since_takeover_s_after_the_first_message(standby):
    """The takeover's `since` is when the evidence made the primary gone, not our start."""
    first = time.time()
    standby.send("A")
    time.sleep(TAKEOVER_S + 0.1)
    shown = standby.desk.status()["standby"]
    assert shown["primary"] == "offline" and shown["since"] >= first + TAKEOVER_S - 0.01


def test_a_gateways_status_is_told_again_every_beat_when_nothing_changes(standby):
    """The beat a standby watches: the status published again, retained, every BEAT_S."""
    standby.reporter.connected()
    deadline = time.monotonic() + BEAT_S + 0.5
    while time.monotonic() < deadline:
        standby.desk.tick()
        time.sleep(0.05)
    statuses = standby.reports("standby/status")
    assert len(statuses) >= 2 and {s["beat_s"] for s in statuses} == {BEAT_S}
    assert len(statuses) <= 3  # not at every tick


def test_a_fault_cleared_before_it_was_said_is_not_said_to_be_cleared(standby):
    policy = AlarmPolicy(standby.config.alarms)
    desk = AlarmDesk(policy, standby.reporter, standby.journal)
    desk.fault("standby", "The standby has taken over.", "en", 0)
    desk.fault_cleared("standby", "Alarm system fault cleared.", "en")
    assert desk.take(0.1) is None
    desk.fault("standby", "The standby has taken over.", "en", 0)
    said = desk.take(0.1)
    assert said is not None and said.kind is ItemKind.FAULT
    desk.finished(said, Delivery("spoken"))
    desk.fault_cleared("standby", "Alarm system fault cleared.", "en")
    cleared = desk.take(0.1)
    assert cleared is not None and cleared.text == "Alarm system fault cleared."


TEMPLATE = "templates: [{topic: 'plant/{x}/alarm', text: hi}]\n"
STANDBY = (
    "mqtt: {client_id: s}\n"
    "reports: {outcome_topic: s/r, status_topic: s/s, error_topic: s/e, event_topic: s/v}\n"
    "standby: {enabled: true, client_id: p, %s}\n" + TEMPLATE
)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("standby: {reports_of: 'plant/{x}/alarm'}\n" + TEMPLATE, "standby.reports_of"),
        ("standby: {reports_of: cosyedge/command}\n", "standby.reports_of"),
        (
            "mqtt: {client_id: p}\nstandby: {reports_of: cosyedge/canary/p/handback}",
            "standby.reports_of",
        ),
        (STANDBY % "status_topic: x/a, report_topic: x/a", "standby.report_topic"),
        (STANDBY % "error_topic: cosyedge/status", "standby.error_topic"),
        (STANDBY % "status_topic: plant/1/alarm", "standby.status_topic"),
        (STANDBY % "report_topic: plant/2/alarm", "standby.report_topic"),
        (STANDBY % "link_topic: plant/3/alarm", "standby.link_topic"),
        (STANDBY % "event_topic: cosyedge/command", "standby.event_topic"),
        (STANDBY % "error_topic: cosyedge/command", "standby.error_topic"),
        (STANDBY % "status_topic: cosyedge/command", "standby.status_topic"),
        (STANDBY % "report_topic: cosyedge/command", "standby.report_topic"),
        (STANDBY % "link_topic: cosyedge/command", "standby.link_topic"),
        (STANDBY % "link_topic: s/s", "reports.status_topic"),
        (STANDBY % "report_topic: cosyedge/canary/s", "standby.report_topic"),
        (STANDBY % "status_topic: cosyedge/canary/s/handback", "standby.status_topic"),
        (STANDBY % "zones: [hall, hall]", "standby.zones"),
        (STANDBY % "status_topic: cosyedge/canary/p", "standby.status_topic"),
        (STANDBY % "event_topic: cosyedge/canary", "standby.event_topic"),
        ("reports: {outcome_topic: cosyedge/command}\n", "reports.outcome_topic"),
        ("reports: {error_topic: cosyedge/command}\n", "reports.error_topic"),
        ("reports: {event_topic: cosyedge/report}\n", "reports.event_topic"),
        ("reports: {status_topic: cosyedge/canary/x}\n", "reports.status_topic"),
        (
            "standby: {reports_of: s/r}\ntemplates: [{topic: 'cosyedge/+', text: hi}]\n",
            "reports.status_topic",
        ),
        (STANDBY.replace("s/r,", "plant/9/alarm,") % "takeover_s: 5", "reports.outcome_topic"),
    ],
)
def test_topics_that_would_cross_the_other_gateways_or_our_own_are_refused(text, key):
    parse_config(STANDBY % "takeover_s: 5")  # each its own: taken
    with pytest.raises(ConfigError, match=key.replace(".", r"\.") + ": "):
        parse_config(text)
