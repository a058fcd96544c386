"""A standby covering some of its primary's zones (`standby.zones`), in one process (the
harness of test_standby_rules.py); and two active gateways naming each other (`mutual`), one
chosen to speak by their client ids."""

from __future__ import annotations

import json
import time

import pytest
from test_handback_rules import Primary
from test_standby_rules import Standby, said_by_primary
from test_standby_takeover import said

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.build import peers
from cosyedge.config import ConfigError, parse_config
from cosyedge.model import Delivery, Item

HALL = """outputs:
  hall-amp: {device: "hall"}
zones:
  hall: {outputs: [hall-amp]}
"""
WHY = "not covered by this standby (standby.zones: hall)"


def send(rig: Standby, ident: str, zone: str | None = None, priority: str = "high") -> None:
    fields = {"id": ident, "what": ident, "priority": priority}
    body = {**fields, **({"zone": zone} if zone is not None else {})}
    rig.deliver("plant/1/alarm", json.dumps(body).encode())


def outcomes(rig: Standby) -> dict[str, dict]:
    return {r["id"]: r for r in rig.reports()}


@pytest.mark.parametrize("own", [HALL, ""], ids=["its-hall-zone", "one-device"])
def test_a_standby_covering_the_hall_says_its_alerts_and_ends_the_yards_saying_why(
    tmp_path, rigs, own
):
    """The hall's said (in its own zone `hall`, or on its one device); the yard's, covered
    by the primary while it lives, end `failed` with why once a takeover would say them."""
    rigs.append(rig := Standby(tmp_path, 0.6, ', zones: [hall], takeover_phrase: ""', own))
    rig.primary("cosyedge/status", {"state": "online"})
    for ident, zone in (("Y1", "yard"), ("Y2", "Yard"), ("H", "hall"), ("HY", "hall,yard")):
        send(rig, ident, zone)
    send(rig, "N")  # no zone: every zone, the hall among them
    said_by_primary(rig, "Y2")
    time.sleep(0.7)
    rig.offline()
    assert said(rig) == [("alert", "H"), ("alert", "HY"), ("alert", "N")]
    send(rig, "Y3", "yard")  # after the primary went: ended at once
    assert said(rig) == []
    told = outcomes(rig)
    assert {k: r["outcome"] for k, r in told.items()} == {
        "Y1": "failed",
        "Y2": "covered",
        "H": "spoken",
        "HY": "spoken",
        "N": "spoken",
        "Y3": "failed",
    }
    assert told["Y1"]["reason"] == f"not said: zone yard {WHY}, and the primary is gone"
    assert told["Y2"]["primary"]["outcome"] == "spoken"
    assert f"zone: yard {WHY}" in told["HY"]["notes"]
    assert "notes" not in told["H"] and "notes" not in told["N"]


def test_an_ack_reaches_a_copy_of_the_primarys_other_zone(tmp_path, rigs):
    """Acknowledged meanwhile, it ends so here too, and the command is no refusal."""
    rigs.append(rig := Standby(tmp_path, 0.6, ", zones: [hall]", HALL))
    rig.primary("cosyedge/status", {"state": "online"})
    send(rig, "Y", "yard")
    answer = rig.desk.command(rig.intake.command(b'{"cmd": "ack", "id": "Y"}'), "ack Y")
    assert answer.refused is None and answer.ids == ("Y",)
    (report,) = rig.reports()
    assert (report["id"], report["outcome"]) == ("Y", "acknowledged")


STANDBY = """mqtt: {{client_id: gw-2}}
reports: {{outcome_topic: s/report, status_topic: s/status, error_topic: s/error,
  event_topic: s/event}}
standby: {{enabled: true, client_id: gw-1{standby}}}
templates:
  - {{topic: plant/alarm, text: "{{text}}", zones: [{zones}]}}
"""


def standby(standby: str = "", zones: str = "hall", more: str = HALL):
    return parse_config(STANDBY.format(standby=standby, zones=zones) + more)


def test_a_covering_standbys_zones_are_its_own_by_name_and_its_templates_name_the_primarys():
    assert standby(", zones: [hall]", "yard").standby.zones == ("hall",)  # the primary's yard
    assert standby(", zones: [hall, yard]", "yard", "").standby.zones == ("hall", "yard")
    refusals = {
        (", zones: [yard]", HALL): r'standby\.zones: no zone "yard" here \(zones: hall\)',
        (
            ", zones: [hall]",
            HALL.replace(
                "  hall: {outputs: [hall-amp]}\n",
                "  hall: {outputs: [hall-amp]}\n  office: {outputs: [office-amp]}\n",
            ).replace("outputs:\n", 'outputs:\n  office-amp: {device: "office"}\n'),
        ): r"zones\.office: not among standby\.zones \(hall\)",
        (", zones: [all]", HALL): r"standby\.zones: \"all\" is not a zone's name",
    }
    for (section, more), refused in refusals.items():
        with pytest.raises(ConfigError, match=refused):
            standby(section, "hall", more)
    with pytest.raises(ConfigError, match=r'templates\[0\]\.zones: no zone "yard"'):
        standby("", "yard")  # a standby covering every zone has them all
    with pytest.raises(ConfigError, match=r"standby\.zones: a standby's key"):
        parse_config("standby: {zones: [hall]}\n")


PAIR = """mqtt: {{client_id: {own}}}
reports: {{outcome_topic: {own}/report, status_topic: {own}/status, error_topic: {own}/error,
  event_topic: {own}/event}}
standby: {{enabled: true, mutual: true, client_id: {other}, status_topic: {other}/status,
  report_topic: {other}/report, error_topic: {other}/error, event_topic: {other}/event}}
"""


def test_two_gateways_naming_each_other_one_speaks_the_other_stands_by_by_client_id():
    """The same rule on both: the id that sorts first is the primary, taking up the other's
    reports at its restart; the other stands by for it."""
    first = parse_config(PAIR.format(own="gw-a", other="gw-b"))
    second = parse_config(PAIR.format(own="gw-b", other="gw-a"))
    assert (first.standby.enabled, first.standby.reports_of) == (False, "gw-b/report")
    assert (second.standby.enabled, second.standby.client_id) == (True, "gw-a")
    watch, handback = peers(first)
    assert watch is None and handback is not None
    watch, handback = peers(second)
    assert watch is not None and handback is None
    with pytest.raises(ConfigError, match=r"standby\.mutual: with `enabled`"):
        parse_config("standby: {mutual: true}\n")


def test_a_copy_of_the_primarys_other_zone_returned_to_normal_ends_cleared(tmp_path, rigs):
    rigs.append(rig := Standby(tmp_path, 0.6, ", zones: [hall]", HALL))
    rig.primary("cosyedge/status", {"state": "online"})
    rig.deliver("plant/2/alarm", json.dumps({"id": "Y", "what": "Y", "zone": "yard"}).encode())
    rig.deliver("plant/2/alarm", json.dumps({"id": "Y-clear", "clear": True}).encode())
    told = outcomes(rig)
    assert (told["Y"]["outcome"], told["Y"]["reason"]) == (
        "cleared",
        "returned to normal before it was spoken",
    )
    rig.offline()
    assert said(rig) == [("fault", "fault:standby")]  # the takeover's phrase alone
    assert [r["id"] for r in rig.reports() if r["outcome"] == "failed"] == []


PRIMARY_ZONES = """outputs:
  hall-amp: {device: "hall"}
  office-amp: {device: "office"}
  yard-amp: {device: "yard"}
zones:
  hall: {outputs: [hall-amp]}
  office: {outputs: [office-amp]}
  yard: {outputs: [yard-amp]}
"""
HALL_AND_OFFICE = """outputs:
  hall-amp: {device: "hall"}
  office-amp: {device: "office"}
zones:
  hall: {outputs: [hall-amp]}
  office: {outputs: [office-amp]}
"""
COVERING = [(HALL, ["hall"]), ("", ["hall"]), (HALL_AND_OFFICE, ["hall", "office"])]


@pytest.mark.parametrize(("own", "covers"), COVERING, ids=["hall", "one-device", "two-zones"])
def test_the_restarted_primary_says_in_its_other_zones_what_the_standby_said_in_its_own(
    tmp_path, rigs, own, covers
):
    """The standby's reports name the primary's zones that heard each alert; the primary's
    copies are covered there alone, and said in its other zones."""
    keys = f', zones: [{", ".join(covers)}], takeover_phrase: ""'
    rigs.append(rig := Standby(tmp_path, 0.6, keys, own))
    rig.offline()
    sent = (("H", "hall"), ("HY", "hall,yard"), ("N", None), ("Y", "yard"))
    for ident, zone in sent:
        send(rig, ident, zone)
    names = rig.desk.policy.names  # hall (and office), or the one device's zone
    expected = {names[0]: ["H", "HY", "N"], **({"office": ["N"]} if "office" in names else {})}
    assert said_in(rig.desk, names) == expected
    reports = outcomes(rig)
    assert [reports[k].get("heard_in") for k in ("H", "HY", "N")] == [["hall"], ["hall"], covers]
    primary = Primary(tmp_path / "primary", 30, PRIMARY_ZONES)
    try:
        for ident, zone in sent:
            primary.send(ident, zone=zone)
        for report in reports.values():  # as the broker hands them over, before the marker
            body = json.dumps({**report, "by": "standby"}).encode()
            assert primary.tap.claim("standby/report", body, retained=False)
        primary.marker_back()
        office = [] if "office" in covers else ["N"]
        heard = said_in(primary.desk, ("hall", "office", "yard"))
        assert heard == {"hall": [], "office": office, "yard": ["HY", "N", "Y"]}
        told = {r["id"]: r for r in primary.reports()}
        assert {k: r["outcome"] for k, r in told.items()} == {
            "H": "covered", "HY": "spoken", "N": "spoken", "Y": "spoken"
        }  # fmt: skip
        assert told["N"]["zones"]["hall"]["outcome"] == "covered"
        assert told["N"]["zones"]["yard"]["outcome"] == "spoken"
    finally:
        primary.journal.stop()


def said_in(desk: AlarmDesk, zones: tuple[str, ...]) -> dict[str, list[str]]:
    """The keys of the items said in each of `zones`, each until none comes within 0.3 s."""
    return {zone: [item.key for item in iter(lambda z=zone: take(desk, z), None)] for zone in zones}


def take(desk: AlarmDesk, zone: str) -> Item | None:
    """The next item said in `zone` within 0.3 s, the clock ticking as the daemon's does."""
    deadline = time.monotonic() + 0.3
    while (item := desk.take(0.05, zone)) is None and time.monotonic() < deadline:
        desk.tick()
    if item is not None:
        desk.finished(item, Delivery("spoken", {"end": time.time()}))
    return item
