"""Sparkplug B in process, the hostile cases: what a restart reads back (every record checked,
a damaged file set aside), deaths of nodes not born here, births that give an alias twice,
values of a type the rule cannot read (and PLC bits as integers), numbers that are not finite,
texts too long to say, new texts and new raises as occurrences of their own, and one alarm
for a node's death whatever its devices. End to end: test_sparkplug_daemon.py."""

from __future__ import annotations

import json
import math

import pytest

from cosyedge.config.source_sparkplug import DeathAlarms, SparkplugConfig, SparkplugRule
from cosyedge.sources import spb_store
from cosyedge.sources.spb_nodes import Nodes, Topic, Value
from cosyedge.sources.spb_payload import DOUBLE, INT32, Metric, Payload, decode, message_classes
from cosyedge.sources.spb_rules import Rules, alarm_id
from cosyedge.sources.spb_store import Kept, NodeRecord, base_id


def m(name: str | None, value, alias: int | None = None, datatype: int = 0) -> Metric:
    return Metric(name, alias, datatype, value)


def birth(bd: int, *metrics: Metric) -> Payload:
    return Payload(0, 0, (*metrics, m("bdSeq", bd)))


def death(bd: int) -> Payload:
    return Payload(0, None, (m("bdSeq", bd),))


def value(name: str, v, datatype: int = 0, device: str = "") -> Value:
    return Value("N", device, name, m(name, v, datatype=datatype), False)


def rules(*made: SparkplugRule, deaths: DeathAlarms | None = None) -> Rules:
    return Rules(SparkplugConfig("G", made, deaths or DeathAlarms()))


# -- what a restart reads back -------------------------------------------------------------
def test_the_kept_state_reads_back_as_written(tmp_path):
    path = tmp_path / "sparkplug" / "G.json"
    key = alarm_id("G", "N", "", "Fault", "fault")
    kept = Kept(
        {
            "N": NodeRecord(3, True, ("D1",), {"": {1: "Fault"}, "D1": {(1 << 64) - 1: "T"}}),
            "M": NodeRecord(None, False),
        },
        {key: f"{key}-5"},
    )
    spb_store.keep(path, kept)
    assert spb_store.load(path) == kept
    assert spb_store.load(tmp_path / "none.json") == Kept()


@pytest.mark.parametrize(
    "text",
    ["", "{", "\x00\xff", "[]", "null", '"nodes"', "1e999999", '{"nodes": [1, 2]}'],
)
def test_a_file_that_is_not_the_state_is_set_aside_and_never_raises(tmp_path, text):
    path = tmp_path / "G.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    kept = spb_store.load(path)
    assert kept.nodes == {} and kept.alarms == {}
    aside = list(tmp_path.glob("G.json.damaged-*"))
    if text.startswith("{") and text != "{":  # a JSON object: its good records are read
        return
    assert aside and aside[0].read_bytes() == text.encode("utf-8", "surrogateescape")
    assert not path.exists()  # the next write does not overwrite what was set aside


def test_each_damaged_record_is_left_out_and_the_file_copied_aside(tmp_path):
    path = tmp_path / "G.json"
    key = alarm_id("G", "N", "", "Fault", "fault")
    nodes = {
        "good": {"bdSeq": 4, "alive": True, "devices": ["D"]},
        "no-bdseq": {"bdSeq": None, "alive": False, "devices": []},
        "bad-bd": {"bdSeq": "4", "alive": True, "devices": []},
        "neg-bd": {"bdSeq": -1, "alive": True, "devices": []},
        "bool-bd": {"bdSeq": True, "alive": True, "devices": []},
        "bad-alive": {"bdSeq": 1, "alive": 1, "devices": []},
        "bad-devices": {"bdSeq": 1, "alive": True, "devices": [7]},
        "empty-device": {"bdSeq": 1, "alive": True, "devices": [""]},
        "not-a-dict": [1],
        "aliased": {"bdSeq": 1, "alive": True, "devices": [], "aliases": {"": {"7": "F"}}},
        "bad-alias": {"bdSeq": 1, "alive": True, "devices": [], "aliases": {"": {"-1": "F"}}},
        "bad-name": {"bdSeq": 1, "alive": True, "devices": [], "aliases": {"": {"1": 2}}},
        "bad-map": {"bdSeq": 1, "alive": True, "devices": [], "aliases": [1]},
        "huge": {"bdSeq": 1, "alive": True, "devices": [], "aliases": {"": {"1": "x" * 2000}}},
    }
    alarms = {key: f"{key}-9", "spb-x-000000000000": "spb-y-000000000000-1", key + "x": 5}
    path.write_text(json.dumps({"nodes": nodes, "alarms": alarms}))
    kept = spb_store.load(path)
    assert kept.nodes == {
        "good": NodeRecord(4, True, ("D",)),
        "no-bdseq": NodeRecord(None, False),
        "aliased": NodeRecord(1, True, (), {"": {7: "F"}}),
    }
    assert kept.alarms == {key: f"{key}-9"}
    (aside,) = tmp_path.glob("G.json.damaged-*")
    assert json.loads(aside.read_text())["nodes"] == nodes and path.exists()


def test_an_occurrence_names_its_alarm():
    key = alarm_id("G", "N", "D", "Motor/Fault", "fault.1")
    assert base_id(f"{key}-1796292757519") == key
    for other in (key, f"{key}-", f"{key}-x", "mqtt-alert-1", f"{key}-1:return"):
        assert base_id(other) is None


# -- deaths of nodes not born here -----------------------------------------------------------
def test_a_death_held_while_down_ends_the_life_its_kept_birth_names():
    nodes = Nodes({"N": NodeRecord(3, True, ("D",)), "Old": NodeRecord(5, False)})
    stale = nodes.take(Topic("G", "NDEATH", "N"), death(2))  # an earlier connection's will
    assert stale.dead == [] and stale.ignored
    seen = nodes.take(Topic("G", "NDEATH", "N"), death(3))
    assert seen.dead == [("N", "")] and seen.implied == [("N", "D")] and seen.changed
    assert nodes.take(Topic("G", "NDEATH", "N"), death(3)).dead == []  # said once
    refused = Nodes({"N": NodeRecord(3, True)})  # no aliases: a birth refused, not alive
    assert not refused.alive("N") and refused.take(Topic("G", "NDEATH", "N"), death(3)).dead
    assert nodes.take(Topic("G", "NDEATH", "Old"), death(5)).dead == []  # dead already
    missed = nodes.take(Topic("G", "NDEATH", "Old"), death(6))  # a life whose birth was lost
    assert missed.dead == [("Old", "")] and "its birth not heard" in str(missed.told)
    assert nodes.records()["N"] == NodeRecord(3, False)


def test_a_death_of_a_node_never_heard_is_a_death_its_bdseq_unchecked():
    nodes = Nodes()
    seen = nodes.take(Topic("G", "NDEATH", "New"), death(9))
    assert seen.dead == [("New", "")] and "bdSeq 9 cannot be checked" in str(seen.told)
    assert nodes.records() == {"New": NodeRecord(9, False)}
    nodes.take(Topic("G", "NBIRTH", "New"), birth(10, m("T", 1.0, 1)))
    assert nodes.records() == {"New": NodeRecord(10, True, (), {"": {1: "T"}})}


# -- aliases given twice ---------------------------------------------------------------------
def test_a_birth_giving_one_alias_to_two_metrics_is_refused():
    nodes = Nodes()
    seen = nodes.take(Topic("G", "NBIRTH", "N"), birth(1, m("A", True, 1), m("B", False, 1)))
    assert seen.refused == "NBIRTH of node N refused: alias 1 given to both 'A' and 'B'"
    assert seen.values == [] and not nodes.alive("N")
    data = nodes.take(Topic("G", "NDATA", "N"), Payload(0, 1, (m(None, True, 1),)))
    assert data.rebirth and data.values == []  # not born: its data asks for a rebirth
    nodes.take(Topic("G", "NBIRTH", "N"), birth(1, m("A", True, 1), m("B", False, 2)))
    assert nodes.alive("N")
    device = nodes.take(Topic("G", "DBIRTH", "N", "D"), Payload(0, 1, (m("C", 1.0, 2),)))
    assert device.refused == "DBIRTH of device N/D refused: alias 2 given to both 'B' and 'C'"
    assert not nodes.alive("N", "D")
    assert nodes.take(Topic("G", "DBIRTH", "N", "D"), Payload(0, 2, (m("C", 1.0, 3),))).alive
    # A device's rebirth may give its own aliases again.
    again = nodes.take(Topic("G", "DBIRTH", "N", "D"), Payload(0, 3, (m("C", 2.0, 3),)))
    assert again.refused is None and nodes.alive("N", "D")


# -- types ------------------------------------------------------------------------------------
def test_a_boolean_rule_reads_integer_bits_and_tells_other_types_as_a_problem():
    r = rules(SparkplugRule("bit", "Run", "boolean"))
    key = alarm_id("G", "N", "", "Run", "bit")
    (begun,) = r.judge(value("Run", 1, INT32), 0)
    assert begun.text and r.problems == {}
    assert r.judge(value("Run", 2, INT32), 1) == []
    assert r.problems[key] == (
        "N Run: a value of type Int32, which a `when: boolean` rule cannot read (rule bit)"
    )
    assert r.judge(value("Run", 1.0, DOUBLE), 2) == [] and "Double" in r.problems[key]
    (ended,) = r.judge(value("Run", 0, INT32), 3)
    assert ended.text is None and r.problems == {}  # a readable value: the problem is over


def test_number_and_text_rules_given_another_type_tell_it():
    r = rules(
        SparkplugRule("hot", "T", "above", threshold=80),
        SparkplugRule("msg", "M", "text"),
    )
    assert r.judge(value("T", "hot", 12), 0) == [] and r.judge(value("T", True, 11), 0) == []
    assert r.judge(value("M", 5, INT32), 0) == []
    assert sorted(p.split(": ", 1)[1] for p in r.problems.values()) == [
        "a value of type Boolean, which a `when: above` rule cannot read (rule hot)",
        "a value of type Int32, which a `when: text` rule cannot read (rule msg)",
    ]


def test_numbers_that_are_not_finite_never_raise_nor_end_an_alarm_nor_are_a_problem():
    payload = message_classes()["Payload"](seq=1)
    for number in (math.nan, math.inf, -math.inf):
        payload.metrics.add(name="T", datatype=DOUBLE, double_value=number)
    r = rules(SparkplugRule("hot", "T", "above", threshold=80))
    for metric in decode(payload.SerializeToString()).metrics:  # as received
        assert r.judge(Value("N", "", "T", metric, False), 0) == []
    assert r.judge(value("T", 81.0), 1)[0].text
    for number in (math.nan, -math.inf):
        assert r.judge(value("T", number, DOUBLE), 2) == []  # the alarm stands
    assert r.problems == {} and r.judge(value("T", 10.0), 3)[0].text is None


# -- occurrences -------------------------------------------------------------------------------
def test_each_raise_after_a_return_is_an_occurrence_of_its_own():
    r = rules(SparkplugRule("fault", "Fault", "boolean"))
    key = alarm_id("G", "N", "", "Fault", "fault")
    ids = []
    for at in range(3):
        (begun,) = r.judge(value("Fault", True), at)
        assert r.standing() == {key: begun.id}
        (ended,) = r.judge(value("Fault", False), at + 0.5)
        assert ended.id == begun.id and r.standing() == {}
        ids.append(begun.id)
    assert len(set(ids)) == 3 and {base_id(i) for i in ids} == {key}


def test_a_new_text_ends_the_old_one_and_is_said_a_repeat_is_not():
    r = rules(SparkplugRule("msg", "M", "text", text="{value}"))
    (first,) = r.judge(value("M", "jam at the infeed"), 0)
    assert r.judge(value("M", "jam at the infeed"), 1) == []  # a rebirth, or delivered twice
    ended, said = r.judge(value("M", "jam at the outfeed"), 2)
    assert (ended.id, ended.text) == (first.id, None)
    assert said.text == "jam at the outfeed" and said.id != first.id


def test_after_a_restart_a_standing_text_is_not_said_again():
    key = alarm_id("G", "N", "", "M", "msg")
    r = Rules(SparkplugConfig("G", (SparkplugRule("msg", "M", "text"),)), {key: f"{key}-1"})
    assert r.judge(value("M", "jam"), 0) == []  # its text then is not known: taken as said
    assert r.judge(value("M", "jam"), 1) == []
    ended, said = r.judge(value("M", "jam cleared, now a trip"), 2)  # a text after it is new
    assert ended.id == f"{key}-1" and said.text == "N M: jam cleared, now a trip"


def test_a_text_too_long_is_shortened_as_a_templates_alert_is():
    r = rules(SparkplugRule("msg", "M", "text", text="{node}: {value}"))
    (said,) = r.judge(value("M", "word " * 20_000 + "\x07\u200b"), 0)
    assert said.text is not None and 900 < len(said.text) <= 1000
    assert said.text.startswith("N: word word") and len(said.fields["value"]) <= 1000


# -- deaths ------------------------------------------------------------------------------------
def test_a_nodes_death_is_one_alarm_its_devices_implied():
    deaths = DeathAlarms(nodes=True, devices=True)
    r = rules(deaths=deaths)
    nodes = Nodes()
    nodes.take(Topic("G", "NBIRTH", "N"), birth(1))
    for device in ("D1", "D2"):
        nodes.take(Topic("G", "DBIRTH", "N", device), Payload(0, None, ()))
    seen = nodes.take(Topic("G", "NDEATH", "N"), death(1))
    said = [c for n, d in seen.dead for c in r.died(n, d)]
    said += [c for n, d in seen.implied for c in r.died(n, d, implied=True)]
    assert [c.text for c in said] == ["N offline"]
    nodes.take(Topic("G", "NBIRTH", "N"), birth(2))
    (alone,) = r.died("N", "D1")  # a DDEATH of its own is an alarm
    assert alone.text == "N D1 offline"


def test_a_devices_alarms_end_when_its_nodes_new_birth_does_not_bring_it_back():
    fault = SparkplugRule("fault", "Fault", "boolean", device="+")
    r = Rules(SparkplugConfig("G", (fault,)))
    r.born("N", "", 0)
    r.born("N", "D1", 0)
    r.born("N", "D2", 0)
    (d1,) = r.judge(Value("N", "D1", "Fault", m("Fault", True), False), 1)
    (d2,) = r.judge(Value("N", "D2", "Fault", m("Fault", True), False), 1)
    r.died("N", "D1", implied=True)
    r.died("N", "D2", implied=True)
    r.born("N", "", 100)  # a rebirth: D1 comes back, D2 does not
    r.born("N", "D1", 101)
    assert r.judge(Value("N", "D1", "Fault", m("Fault", True), True), 101) == []  # stands
    assert r.due(159) == []
    (ended,) = r.due(160)
    assert (ended.id, ended.text) == (d2.id, None)
    assert r.due(500) == [] and d1.id in r.standing().values()
