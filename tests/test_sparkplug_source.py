"""A Sparkplug source in process: the door, the journal and the desk as the daemon wires them,
the group's messages handed to the door as paho hands them over (payloads made with the
protobuf runtime from the specification's field numbers), and what the source journaled read
back. What its parts do alone: test_sparkplug.py; with a broker and the daemon:
test_sparkplug_daemon.py."""

from __future__ import annotations

import base64
import json
import threading
import time
from pathlib import Path

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.policy import AlarmPolicy
from cosyedge.config import parse_config
from cosyedge.intake.door import Door
from cosyedge.journal import Journal
from cosyedge.mqtt.reports import Reporter
from cosyedge.sources.sparkplug import SparkplugSource
from cosyedge.sources.spb_payload import message_classes

RULES = """      rules:
        - {name: fault, metric: Fault, when: boolean, text: "{node} fault"}
        - {name: dfault, metric: Fault, device: "+", when: boolean, text: "{node} {device} fault"}
"""


def payload(seq: int | None, *metrics: tuple, bd: int | None = None) -> bytes:
    """A Sparkplug B payload: metrics as (name or None, alias or None, value)."""
    made = message_classes()["Payload"]()
    if seq is not None:
        made.seq = seq
    for name, alias, value in metrics:
        metric = made.metrics.add()
        if name is not None:
            metric.name = name
        if alias is not None:
            metric.alias = alias
        if isinstance(value, bool):
            metric.datatype, metric.boolean_value = 11, value
        elif isinstance(value, str):
            metric.datatype, metric.string_value = 12, value
        else:
            metric.datatype, metric.double_value = 10, value
    if bd is not None:
        made.metrics.add(name="bdSeq", datatype=8, long_value=bd)
    return made.SerializeToString()


class Group:
    """Group G's source on a door of its own; `asked`: the rebirth requests it published."""

    def __init__(self, state: Path, extra: str = "", rules: str = RULES) -> None:
        text = f"state_dir: {state}\nsources:\n  - sparkplug:\n      group: G\n{extra}{rules}"
        self.config = parse_config(text)
        self.journal = Journal(state / "journal.jsonl", 60)
        reporter = Reporter(self.config.reports, lambda *_a, **_k: 1, self.journal)
        self.desk = AlarmDesk(AlarmPolicy(self.config.alarms), reporter, self.journal)
        self.door = Door(self.config, self.journal, self.desk)
        self.desk.recover(self.journal.open(), self.door.intake.read_journaled)
        self.asked: list[str] = []
        self.source = SparkplugSource(
            self.config.sources[0].sparkplug, self.door, self._publish,
            lambda: [], lambda: None, state,
        )  # fmt: skip

    def _publish(self, topic: str, _payload: bytes) -> int:
        self.asked.append(topic)
        return len(self.asked)

    def send(self, kind: str, node: str, data: bytes, device: str = "", retained=False) -> None:
        topic = f"spBv1.0/G/{kind}/{node}" + (f"/{device}" if device else "")
        acked = threading.Event()
        self.door.on_message(topic, data, acked.set, retained=retained)
        assert acked.wait(5)

    def said(self) -> list[str | None]:
        """Each alarm's text journaled by the source, None for a return to normal."""
        self.journal.flush(5)
        found = []
        for line in self.journal.path.read_text().splitlines():
            record = json.loads(line)
            if "in" in record and record.get("topic", "").startswith("cosyedge/source/"):
                found.append(json.loads(base64.b64decode(record["payload"])).get("text"))
        return found

    def fault(self) -> str | None:
        return self.source.tick(time.monotonic())[self.source.fault_name]

    def stop(self) -> None:
        self.source.stop()
        self.journal.stop()


def test_a_value_delivered_again_after_a_newer_one_raises_nothing(tmp_path):
    group = Group(tmp_path)
    group.source.start()
    group.send("NBIRTH", "N", payload(0, ("Fault", 1, False), bd=1))
    group.send("NDATA", "N", payload(1, (None, 1, True)))
    group.send("NDATA", "N", payload(2, (None, 1, False)))
    group.send("NDATA", "N", payload(1, (None, 1, True)))  # a QoS 1 redelivery, late
    group.send("NDATA", "N", payload(2, (None, 1, False)))  # the last one again
    assert group.said() == ["N fault", None]
    assert group.fault() is None
    group.stop()


def test_an_oversized_message_is_refused_unread_and_is_the_fault_naming_node_and_size(tmp_path):
    group = Group(tmp_path, "      max_payload_bytes: 2048\n      max_metrics: 100\n")
    group.source.start()
    big = payload(0, *[(f"Tag {i:05}", i, 1.0) for i in range(150)], ("Fault", 999, True), bd=1)
    assert len(big) > 2048
    group.send("NBIRTH", "N", big)
    fault = group.fault()
    assert fault is not None and "NBIRTH of N refused unread" in fault
    assert f"{len(big)} bytes, over max_payload_bytes 2048" in fault
    assert group.said() == []  # the birth was not read: its Fault is unknown
    group.send("NBIRTH", "N", payload(0, ("Fault", 1, True), bd=3))
    assert group.said() == ["N fault"]
    assert group.fault() is None  # its birth taken: over for N
    many = payload(0, *[(f"T{i}", i, 1.0) for i in range(101)], bd=2)
    assert len(many) < 2048
    group.send("NBIRTH", "M", many)
    assert "NBIRTH of M refused unread: 102 metrics, over max_metrics 100" in group.fault()
    group.stop()


def test_after_a_restart_data_is_read_by_the_aliases_kept_and_an_unknown_node_is_the_fault(
    tmp_path,
):
    group = Group(tmp_path)
    group.source.start()
    group.send("NBIRTH", "N", payload(0, ("Fault", 1, False), bd=1))
    group.send("DBIRTH", "N", payload(1, ("Fault", 2, False)), device="D")
    group.fault()  # the tick keeps what changed
    group.stop()
    again = Group(tmp_path)  # rebirth off (the default): no birth is asked for
    again.source.start()
    again.send("DDATA", "N", payload(2, (None, 2, True)), device="D")
    again.send("NDATA", "N", payload(3, (None, 1, True)))
    assert again.said() == ["N D fault", "N fault"]
    assert again.fault() is None
    again.send("NDATA", "M", payload(7, (None, 1, True)))  # a node never heard
    fault = again.fault()
    assert fault is not None and "data of node M cannot be read: no birth of it heard" in fault
    again.send("NBIRTH", "M", payload(0, ("Fault", 1, False), bd=1))
    assert again.fault() is None and again.asked == []
    again.stop()


def test_a_retained_birth_or_data_is_no_current_value(tmp_path):
    group = Group(tmp_path, "      rebirth: true\n")
    group.source.start()
    group.send("NBIRTH", "N", payload(0, ("Fault", 1, True), bd=1), retained=True)
    group.send("NDATA", "N", payload(1, ("Fault", 1, True)), retained=True)
    assert group.said() == []
    assert group.asked == ["spBv1.0/G/NCMD/N"]  # once an interval
    group.send("NBIRTH", "N", payload(0, ("Fault", 1, True), bd=2))
    assert group.said() == ["N fault"]
    group.stop()


def test_the_group_is_subscribed_from_the_connect_and_drops_before_the_start_are_the_fault(
    tmp_path, monkeypatch
):
    group = Group(tmp_path)
    assert "spBv1.0/G/#" in group.door.filters  # before its source starts
    monkeypatch.setattr("cosyedge.intake.door.HELD", 5)
    for seq in range(8):
        group.send("NDATA", "N", payload(seq, ("Fault", 1, False)))
    group.send("NBIRTH", "N", payload(0, ("Fault", 1, True), bd=1))
    group.source.start()
    assert group.said() == ["N fault"]  # held for it, the birth among the last kept
    fault = group.fault()
    assert fault is not None and "4 of its messages dropped before it started" in fault
    group.stop()


def test_a_text_alarm_with_no_words_is_said_as_its_rule_and_node(tmp_path):
    rules = '      rules:\n        - {name: msg, metric: Message, when: text, text: "{value}"}\n'
    group = Group(tmp_path, rules=rules)
    group.source.start()
    group.send("NBIRTH", "N", payload(0, ("Message", 1, ""), bd=1))
    group.send("NDATA", "N", payload(1, (None, 1, "\u200b\u0007\u200b")))
    item = group.desk.take(0.5)  # not refused: the desk holds what the source holds standing
    assert item is not None and item.offers[0].announcement.text == "msg N"
    group.send("NDATA", "N", payload(2, (None, 1, "")))
    group.send("NDATA", "N", payload(3, (None, 1, "Jam")))
    assert group.said() == ["msg N", None, "Jam"]
    group.stop()
