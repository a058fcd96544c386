"""Sparkplug B in process: payloads made by pysparkplug (an independent implementation, in its
own venv) decoded by ours; the births, deaths, sequence and aliases of the nodes; the rules
that make alarms of metric values; the configuration; and how a source's alarm is read from the
journal (intake/sourced.py). With the daemon, a broker and an edge node: test_sparkplug_daemon.py.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support import config_problems, cosyedge

from cosyedge.config.loader import parse_config
from cosyedge.config.source_sparkplug import DeathAlarms, SparkplugConfig, SparkplugRule
from cosyedge.intake.alert import Message
from cosyedge.intake.intake import Intake
from cosyedge.intake.sourced import SourceAlert
from cosyedge.model import Offer
from cosyedge.sources.spb_nodes import Nodes, Topic, Value, parse_topic
from cosyedge.sources.spb_payload import (
    Metric,
    Payload,
    decode,
    message_classes,
    rebirth_request,
    typed,
)
from cosyedge.sources.spb_rules import Rules, alarm_id
from cosyedge.sources.spb_store import base_id

REPO = Path(__file__).resolve().parent.parent
EDGE_PYTHON = REPO / ".venv-sparkplug" / "bin" / "python"


def independent_payloads() -> dict[str, bytes]:
    if not EDGE_PYTHON.exists():
        pytest.skip(".venv-sparkplug is missing: run scripts/setup test")
    done = subprocess.run(
        [str(EDGE_PYTHON), str(REPO / "tests" / "sparkplug_edge.py"), "encode"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return {k: bytes.fromhex(v) for k, v in json.loads(done.stdout).items()}


def test_payloads_encoded_by_pysparkplug_decode_with_their_values_and_signs():
    payloads = independent_payloads()
    birth = decode(payloads["nbirth"])
    assert (birth.timestamp, birth.seq) == (1700000000000, 0)
    by_name = {m.name: m for m in birth.metrics}
    assert by_name["Fault"].value is True and by_name["Fault"].alias == 1
    assert by_name["Temperature"].value == -12.5
    assert by_name["Message"].value == "Pump 2 tripped"
    assert by_name["Level"].value == -300  # an Int16 carried as two's complement in a uint32
    assert by_name["bdSeq"].value == 7
    data = decode(payloads["ndata"])
    assert data.seq == 1
    null, level = data.metrics
    assert null.is_null and null.value is None and null.alias == 1
    assert (level.name, level.alias, level.value) == (None, 4, 65534)  # no datatype: as sent


def test_signed_values_and_garbage():
    assert typed(1, 0xFF) == -1 and typed(2, 0x8000) == -32768 and typed(3, 5) == 5
    assert typed(4, (1 << 64) - 2) == -2 and typed(8, (1 << 64) - 2) == (1 << 64) - 2
    with pytest.raises(Exception, match="not a Sparkplug B payload"):
        decode(b"\xff\xff\xff")


def test_a_rebirth_request_is_the_node_control_metric_and_properties_are_read():
    request = message_classes()["Payload"]()
    request.ParseFromString(rebirth_request(123))
    (metric,) = request.metrics
    assert (metric.name, metric.datatype, metric.boolean_value) == (
        "Node Control/Rebirth",
        11,
        True,
    )
    made = message_classes()["Payload"](seq=3)
    m = made.metrics.add(name="T", datatype=10, double_value=81.0)
    m.properties.keys.extend(["engUnit", "Quality"])
    m.properties.values.add(type=12, string_value="°C")
    m.properties.values.add(type=3, int_value=(1 << 32) - 1)  # Int32 -1
    (read,) = decode(made.SerializeToString()).metrics
    assert read.properties == {"engUnit": "°C", "Quality": -1}


def m(name: str | None, value, alias: int | None = None, **kw) -> Metric:
    return Metric(name, alias, kw.pop("datatype", 0), value, **kw)


def birth(seq: int = 0, bd: int = 1, *metrics: Metric) -> Payload:
    return Payload(0, seq, (*metrics, m("bdSeq", bd)))


def test_topics():
    assert parse_topic("spBv1.0/G/NDATA/N") == Topic("G", "NDATA", "N")
    assert parse_topic("spBv1.0/G/DDATA/N/D") == Topic("G", "DDATA", "N", "D")
    for other in ("spBv1.0/STATE/host", "spBv1.0/G/NCMD/N", "spBv1.0/G/NDATA/N/D", "x/G/NDATA/N"):
        assert parse_topic(other) is None


def test_births_sequence_aliases_and_deaths():
    nodes = Nodes()
    unborn = nodes.take(Topic("G", "NDATA", "N"), Payload(0, 5, (m("Fault", True),)))
    assert unborn.rebirth and unborn.values == []
    seen = nodes.take(Topic("G", "NBIRTH", "N"), birth(0, 1, m("Fault", False, 1)))
    assert seen.alive == [("N", "")] and [v.name for v in seen.values] == ["Fault"]
    seen = nodes.take(Topic("G", "NDATA", "N"), Payload(0, 1, (m(None, True, 1),)))
    assert seen.rebirth is None and seen.values[0].name == "Fault"
    gap = nodes.take(Topic("G", "NDATA", "N"), Payload(0, 3, (m(None, False, 1),)))
    assert gap.rebirth == "seq 3, expected 2" and gap.values  # the value still counts
    assert nodes.take(Topic("G", "NDATA", "N"), Payload(0, 4, ())).rebirth is None  # one gap
    alias = nodes.take(Topic("G", "NDATA", "N"), Payload(0, 5, (m(None, True, 9),)))
    assert alias.rebirth == "alias 9 unknown on N" and alias.values == []
    device = nodes.take(Topic("G", "DDATA", "N", "D"), Payload(0, 6, ()))
    assert device.rebirth and device.ignored == "unborn"
    nodes.take(Topic("G", "DBIRTH", "N", "D"), Payload(0, 7, (m("Temp", 3.0, 2),)))
    assert nodes.alive("N", "D")
    stale = nodes.take(Topic("G", "NDEATH", "N"), Payload(0, None, (m("bdSeq", 0),)))
    assert stale.dead == [] and nodes.alive("N")  # an earlier connection's will
    dead = nodes.take(Topic("G", "NDEATH", "N"), Payload(0, None, (m("bdSeq", 1),)))
    assert dead.dead == [("N", "")] and dead.implied == [("N", "D")]  # one death: the node's
    assert not nodes.alive("N")


def value(name: str, v, device: str = "", birth: bool = False, **kw) -> Value:
    return Value("N", device, name, m(name, v, **kw), birth)


def rules(*rules: SparkplugRule, deaths: DeathAlarms | None = None) -> Rules:
    return Rules(SparkplugConfig("G", rules, deaths or DeathAlarms()))


def test_a_boolean_alarm_begins_once_and_ends_once_whatever_births_repeat():
    r = rules(SparkplugRule("fault", "Fault", "boolean", text="{node} {metric} is {value}"))
    assert r.judge(value("Fault", False, birth=True), 0) == []
    (begun,) = r.judge(value("Fault", True), 1)
    assert begun.text == "N Fault is true"
    assert base_id(begun.id) == alarm_id("G", "N", "", "Fault", "fault")  # an occurrence of it
    assert r.judge(value("Fault", True, birth=True), 2) == []  # a rebirth: the alarm stands
    assert r.judge(value("Fault", True), 3) == []  # delivered again
    (ended,) = r.judge(value("Fault", False), 4)
    assert ended.text is None and (ended.id, ended.topic) == (begun.id, begun.topic)
    assert r.judge(value("Other", True), 5) == [] and r.judge(value("Fault", 1.0), 6) == []


def test_a_threshold_with_deadband_and_delay():
    rule = SparkplugRule("hot", "T", "above", threshold=80, deadband=5, delay_s=10,
                         text="{metric} {value} {units}")  # fmt: skip
    r = rules(rule)
    r.judge(value("T", 20.0, birth=True, properties={"engUnit": "degrees"}), 0)
    assert r.judge(value("T", 85.0), 1) == [] and r.due(10.9) == []
    assert r.judge(value("T", 79.0), 5) == []  # within the deadband: still waiting
    (begun,) = r.due(11)
    assert begun.text == "T 79 degrees"
    assert r.judge(value("T", 76.0), 12) == []  # within the deadband: stands
    (ended,) = r.judge(value("T", 75.0), 13)
    assert ended.text is None
    r.judge(value("T", 90.0), 20)
    assert r.judge(value("T", 70.0), 25) == [] and r.due(40) == []  # back before its delay


def test_below_and_text_rules():
    r = rules(
        SparkplugRule("low", "P", "below", threshold=2.5),
        SparkplugRule("msg", "Message", "text", device="+", text="{device}: {value}"),
    )
    assert r.judge(value("P", 2.5), 0) == []
    (low,) = r.judge(value("P", 2), 1)
    assert low.text and "2" in low.text
    assert r.judge(value("Message", "Jam", device=""), 2) == []  # `+`: any device, not the node
    (said,) = r.judge(value("Message", "Conveyor jam", device="D1"), 3)
    assert said.text == "D1: Conveyor jam"
    (back,) = r.judge(value("Message", " ", device="D1"), 4)
    assert back.text is None


@pytest.mark.parametrize(
    "untrusted",
    [
        {"is_null": True},
        {"is_historical": True},
        {"properties": {"Quality": 0}},
        {"properties": {"Quality": 500}},
    ],
)
def test_a_value_not_to_be_trusted_never_raises_nor_ends_an_alarm(untrusted):
    r = rules(SparkplugRule("fault", "Fault", "boolean", delay_s=5))
    assert r.judge(value("Fault", True, **untrusted), 0) == [] and r.due(100) == []
    r.judge(value("Fault", True), 100)
    assert r.judge(value("Fault", True, **untrusted), 101) == [] and r.due(105) == []  # cancelled
    r.judge(value("Fault", True), 106)
    assert [c.text for c in r.due(111)] == ["N Fault: true"]
    r2 = rules(SparkplugRule("fault", "Fault", "boolean"))
    r2.judge(value("Fault", True), 0)
    assert r2.judge(value("Fault", False, **untrusted), 1) == []  # not a return to normal
    assert r2.judge(value("Fault", True, properties={"Quality": 192}), 2) == []
    (back,) = r2.judge(value("Fault", False, properties={"Quality": " 192"}), 3)  # a String
    assert back.text is None
    assert r2.judge(value("Fault", True, properties={"Quality": "500"}), 4) == []


def test_a_death_cancels_what_waits_is_an_alarm_if_asked_and_the_birth_ends_it():
    deaths = DeathAlarms(nodes=True, text="line {node} offline")
    r = rules(SparkplugRule("fault", "Fault", "boolean", delay_s=5), deaths=deaths)
    r.judge(value("Fault", True), 0)
    (death,) = r.died("N", "")
    assert death.text == "line N offline"
    assert r.due(10) == [] and r.died("N", "") == []  # cancelled; not twice
    assert r.died("N", "D") == []  # device deaths: not asked for
    (back,) = r.born("N", "")
    assert back.text is None and back.id == death.id
    assert r.born("N", "") == []


def test_alarms_standing_from_the_last_run_are_not_said_again_by_a_birth():
    rule = SparkplugRule("fault", "Fault", "boolean")
    key = alarm_id("G", "N", "", "Fault", "fault")
    r = Rules(SparkplugConfig("G", (rule,)), standing={key: f"{key}-17"})
    assert r.judge(value("Fault", True, birth=True), 0) == []
    (ended,) = r.judge(value("Fault", False), 1)
    assert ended.id == f"{key}-17"  # the occurrence said before the restart returns


def test_the_configuration_names_the_key_path():
    good = "sources:\n  - sparkplug:\n      group: Plant\n      rules:\n"
    rule = "        - {name: hot, metric: T, when: above, threshold: 80}\n"
    assert parse_config(good + rule).sources[0].sparkplug.rules[0].threshold == 80
    assert config_problems(good + "        - {name: hot, metric: T, when: above}\n") == [
        "site.yaml: sources[0].sparkplug.rules[0].threshold: needed with when: above"
    ]
    wrong = config_problems("sources:\n  - sparkplug: {group: a/b}\n  - {}\n")
    assert wrong == [
        'site.yaml: sources[0].sparkplug.group: "a/b": a group id (no / + # NUL, not STATE)',
        "site.yaml: sources[1].kind: expected exactly one key naming the source's kind "
        "(sparkplug, opcua)",
    ]
    text = "        - {name: f, metric: F, when: boolean, text: '{nod} down'}\n"
    assert "unknown field {nod}" in config_problems(good + text)[0]


def test_check_refuses_a_group_heard_twice_or_read_by_a_template_and_names_the_key():
    group = "  - sparkplug: {group: G1}\n"
    assert config_problems(f"sources:\n{group}{group}") == [
        'site.yaml: sources[1].sparkplug.group: "G1" is heard by sources[0] already'
    ]
    for j, topic in enumerate(("spBv1.0/#", "spBv1.0/+/NDATA/#", "spBv1.0/{g}/DDATA/N/D")):
        said = "  - {topic: a/+, text: x}\n" * j + f"  - {{topic: '{topic}', text: x}}\n"
        (problem,) = config_problems(f"templates:\n{said}sources:\n{group}")
        assert problem.startswith(f"site.yaml: templates[{j}].topic: {json.dumps(topic)} would ")
    other = "templates:\n  - {topic: '#', text: x}\n  - {topic: spBv1.0/G2/#, text: y}\n"
    assert parse_config(f"{other}sources:\n{group}").sources  # a catch-all, another group
    twice = "      rules:\n" + "        - {name: a, metric: M, when: boolean}\n" * 2
    assert config_problems(f"sources:\n  - sparkplug:\n      group: G\n{twice}") == [
        'site.yaml: sources[0].sparkplug.rules[1].name: "a" is rules[0]\'s already'
    ]
    # A language asked of no voice is named where it is written, not where a default is.
    zh = "voices:\n  zh: {engine: espeak-pinyin}\ntemplates:\n  - {topic: a/+, text: x, lang: zh}\n"
    rule = "      rules:\n        - {name: a, metric: M, when: boolean, lang: zh}\n"
    assert parse_config(f"{zh}sources:\n  - sparkplug:\n      group: G\n{rule}").sources
    deaths = "      deaths: {nodes: true}\n"
    assert config_problems(f"{zh}sources:\n  - sparkplug:\n      group: G\n{deaths}") == [
        "site.yaml: sources[0].sparkplug.deaths.lang: no voice for 'en'"
    ]


def test_a_sourced_alarm_reads_from_its_journaled_message_and_no_broker_may_forge_one():
    intake = Intake(parse_config("sources:\n  - sparkplug: {group: G}\n"))
    topic = "cosyedge/source/sparkplug/G/N//fault/Fault"
    alert = SourceAlert("spb-fault-1", "Line 3 fault", "critical", "en", {"node": "N"})
    offer = intake.read(Message(topic, alert.payload), 1, 0.0, 0.0)
    assert isinstance(offer, Offer) and offer.key == "spb-fault-1"
    assert offer.announcement is not None and offer.announcement.text == "Line 3 fault"
    assert offer.announcement.priority == "critical" and offer.announcement.alarm == topic
    back = intake.read(Message(topic, SourceAlert("spb-fault-1", None).payload), 2, 0.0, 0.0)
    assert isinstance(back, Offer) and back.announcement is None
    assert back.key == "spb-fault-1:return"
    deep = b"[" * 8000 + b"]" * 8000  # a journal line no source wrote: rejected, not raised
    assert not isinstance(intake.read(Message(topic, deep), 3, 0.0, 0.0), Offer)
    assert intake.message(topic, alert.payload) is None  # published on the broker: not ours
    # The group's messages before the source runs (a persistent session's): never a template's.
    assert intake.message("spBv1.0/G/NDATA/N", b"\x08\x01") is None
    assert intake.message("spBv1.0/Other/NDATA/N", b"\x08\x01") is not None


def test_without_protobuf_the_source_is_a_named_fault_and_the_rest_runs(tmp_path):
    """A `google` package without protobuf ahead on the path: as on a machine lacking it."""
    (tmp_path / "google").mkdir()
    (tmp_path / "google" / "__init__.py").write_text("")
    config = tmp_path / "c.yaml"
    config.write_text("sources:\n  - sparkplug: {group: G}\n")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}:{REPO}"}
    done = cosyedge("check", "--config", str(config), env=env)
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "would start without sparkplug: sources[0].sparkplug: Sparkplug B needs the " in said
    assert "protobuf package" in said


def test_a_duplicate_or_late_message_changes_nothing_and_a_bad_seq_is_refused():
    nodes = Nodes()
    nodes.take(Topic("G", "NBIRTH", "N"), birth(0, 1, m("Fault", False, 1)))
    raised = nodes.take(Topic("G", "NDATA", "N"), Payload(0, 1, (m(None, True, 1),)))
    cleared = nodes.take(Topic("G", "NDATA", "N"), Payload(0, 2, (m(None, False, 1),)))
    assert raised.values and cleared.values
    again = nodes.take(Topic("G", "NDATA", "N"), Payload(0, 1, (m(None, True, 1),)))
    assert again.values == [] and again.ignored  # late: an old value, never applied
    assert again.rebirth == "seq 1 behind the expected 3"  # out of order: asked (if allowed)
    twice = nodes.take(Topic("G", "NDATA", "N"), Payload(0, 2, (m(None, False, 1),)))
    assert twice.values == [] and twice.rebirth is None  # the same message again
    ahead = nodes.take(Topic("G", "NDATA", "N"), Payload(0, 5, (m(None, True, 1),)))
    assert ahead.values and ahead.rebirth == "seq 5, expected 3"  # lost ones: a gap
    for seq in (256, 1 << 40):
        bad = nodes.take(Topic("G", "NDATA", "N"), Payload(0, seq, (m(None, False, 1),)))
        assert bad.values == [] and bad.told and "refused" in bad.told
    wrapped = nodes.take(Topic("G", "NDATA", "N"), Payload(0, 6, (m(None, False, 1),)))
    assert wrapped.values and wrapped.rebirth is None
    late_birth = nodes.take(Topic("G", "DBIRTH", "N", "D"), Payload(0, 4, (m("T", 1.0, 7),)))
    assert late_birth.alive == [] and not nodes.alive("N", "D") and not late_birth.unreadable
    lost = [nodes.take(Topic("G", "NDATA", "N"), Payload(0, s, ())) for s in (1, 2)]
    assert lost[-1].unreadable == "3 messages in a row behind seq 7"  # a birth not heard?
    odd = nodes.take(Topic("G", "NBIRTH", "N"), birth(9, 2))
    assert nodes.alive("N") and odd.told and "seq 9" in odd.told  # tolerated, told


def test_a_death_without_bdseq_ends_nothing_and_a_birth_without_one_is_refused():
    nodes = Nodes()
    nodes.take(Topic("G", "NBIRTH", "N"), birth(0, 1, m("Fault", False, 1)))
    empty = nodes.take(Topic("G", "NDEATH", "N"), Payload(None, None, ()))
    assert empty.dead == [] and nodes.alive("N") and empty.told
    refused = nodes.take(Topic("G", "NBIRTH", "N"), Payload(None, None, ()))
    assert refused.refused and "bdSeq" in refused.refused and refused.alive == []
    assert nodes.alive("N")  # the life that was is not ended by a birth refused
    assert nodes.take(Topic("G", "NDEATH", "M"), Payload(None, None, ())).dead == []


def test_a_birth_giving_one_metric_two_aliases_is_refused():
    nodes = Nodes()
    two = nodes.take(Topic("G", "NBIRTH", "N"), birth(0, 1, m("T", 1.0, 1), m("T", 2.0, 2)))
    assert two.refused and "'T' given both alias 1 and 2" in two.refused
    assert not nodes.alive("N")
    nodes.take(Topic("G", "NBIRTH", "N"), birth(0, 2, m("T", 1.0, 1)))
    same = nodes.take(Topic("G", "DBIRTH", "N", "D"), Payload(0, 1, (m("T", 1.0, 2),)))
    assert same.refused is None and nodes.alive("N", "D")  # a device's own metric of that name
