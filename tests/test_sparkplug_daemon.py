"""Sparkplug B end to end: a real Mosquitto, the daemon as a process, and an edge node made with
pysparkplug (tests/sparkplug_edge.py, in .venv-sparkplug: independent of cosyedge's decoding)
publishing births and data; its alarms said and returned to normal through the same desk and
reports as any alert, a rebirth saying nothing again, a sequence gap answered with a rebirth
request, and its death certificate, left with the broker as its will, said when it is killed.
Across a restart: a death and data the broker held for the daemon's session while it was down
(a death said by the bdSeq kept, data answered with a rebirth request). Each raise after a
return a new occurrence, said, and a text rule's new text said in place of the old."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from support import Listener, site_yaml, wait_until

from cosyedge.intake.sourced import RETURN
from cosyedge.sources.spb_rules import alarm_id
from cosyedge.sources.spb_store import base_id

pytestmark = pytest.mark.system

REPO = Path(__file__).resolve().parent.parent
EDGE_PYTHON = REPO / ".venv-sparkplug" / "bin" / "python"
REPORTS = "cosyedge/report"


def config(port: int, tmp: Path) -> str:
    return f"""{site_yaml(port, tmp)}sources:
  - sparkplug:
      group: Plant
      rebirth: true
      rebirth_interval_s: 1
      deaths: {{nodes: true, text: "line {{node}} controller offline", priority: critical}}
      rules:
        - {{name: fault, metric: Fault, when: boolean, priority: critical, text: "{{node}} fault"}}
        - {{name: msg, metric: Message, when: text, text: "{{node}} says {{value}}"}}
        - {{name: bit, metric: Level, when: boolean, text: "{{node}} level bit set"}}
        - name: hot
          device: "+"
          metric: Temperature
          when: above
          threshold: 80
          deadband: 5
          text: "{{device}} temperature {{value}} degrees"
"""


class Edge:
    """The edge node process; `lines` is what it printed (`ok <op>`, `ncmd <names>`)."""

    def __init__(self, port: int, node: str) -> None:
        if not EDGE_PYTHON.exists():
            pytest.skip(".venv-sparkplug is missing: run scripts/setup test")
        script = str(REPO / "tests" / "sparkplug_edge.py")
        self.process = subprocess.Popen(
            [str(EDGE_PYTHON), script, str(port), "Plant", node, "D1"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.wait("ok start")

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.strip())

    def wait(self, line: str, count: int = 1) -> None:
        wait_until(lambda: self.lines.count(line) >= count, 60, f"{line!r} from the edge node")

    def send(self, **command: object) -> None:
        assert self.process.stdin is not None
        done = self.lines.count(f"ok {command['op']}") + 1
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        self.wait(f"ok {command['op']}", done)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()


@pytest.fixture
def edges():
    made: list[Edge] = []
    yield lambda port, node: made.append(Edge(port, node)) or made[-1]
    for edge in made:
        edge.kill()


def alarm_of(report: dict) -> str:
    """The alarm a report's id is an occurrence of (`<alarm>-<ms>`), `:return` kept."""
    said = str(report.get("id", ""))
    returned = said.endswith(RETURN)
    base = base_id(said.removesuffix(RETURN)) or said
    return base + RETURN if returned else base


def outcomes(listener: Listener, alarm: str) -> list[str]:
    return [r["outcome"] for r in listener.on(REPORTS) if alarm_of(r) == alarm]


def reports(listener: Listener, alarm: str) -> list[dict]:
    return [r for r in listener.on(REPORTS) if alarm_of(r) == alarm]


def listening(broker, make_daemon, tmp_path):
    daemon = make_daemon(config(broker.port, tmp_path))
    daemon.wait_for_log(r"sparkplug: listening to spBv1\.0/Plant/#")
    # The group is subscribed from the connect on, with the other filters: what comes before
    # the source starts is held for it.
    daemon.wait_for_log(r"subscribing to .*spBv1\.0/Plant/#")
    daemon.wait_for_log(r"subscribed to \d+ topic filters")
    return daemon, Listener(broker.port, REPORTS)


def test_an_alarm_is_said_once_through_a_rebirth_and_returns_to_normal(
    broker, make_daemon, tmp_path, edges
):
    daemon, listener = listening(broker, make_daemon, tmp_path)
    edge = edges(broker.port, "N1")
    fault = alarm_id("Plant", "N1", "", "Fault", "fault")
    hot = alarm_id("Plant", "N1", "D1", "Temperature", "hot")

    edge.send(op="data", metrics={"Fault": True})
    listener.wait_for(REPORTS, lambda _: "spoken" in outcomes(listener, fault), 60)
    daemon.wait_for_log(rf"spoke alert {fault}-\d+ ")
    edge.send(op="rebirth")  # Fault is still true in the births: the same alarm, standing
    edge.send(op="data", device="D1", metrics={"Temperature": 83.5})  # after the rebirth
    listener.wait_for(REPORTS, lambda _: "spoken" in outcomes(listener, hot), 60)
    edge.send(op="data", device="D1", metrics={"Temperature": 77.0})  # within the deadband
    edge.send(op="data", metrics={"Fault": False})
    listener.wait_for(REPORTS, lambda _: outcomes(listener, fault + ":return"), 30)
    assert outcomes(listener, fault) == ["spoken"]
    assert outcomes(listener, hot + ":return") == []
    edge.send(op="data", device="D1", metrics={"Temperature": 74.5})
    listener.wait_for(REPORTS, lambda _: outcomes(listener, hot + ":return"), 30)
    (said,) = reports(listener, hot)
    assert said["text"] == "D1 temperature 83.5 degrees" and said["priority"] == "high"
    assert "ncmd" not in " ".join(edge.lines)  # nothing out of order: no rebirth asked
    (first,) = reports(listener, fault)
    print(f"NDATA to first audio: {first['latency_ms']} ms, {said['latency_ms']} ms")
    listener.close()


def test_a_gap_asks_for_a_rebirth_and_the_will_is_said_as_the_node_offline(
    broker, make_daemon, tmp_path, edges
):
    daemon, listener = listening(broker, make_daemon, tmp_path)
    edge = edges(broker.port, "N2")
    edge.send(op="data", metrics={"Fault": False})
    edge.send(op="skip")
    edge.send(op="data", metrics={"Fault": False})  # seq one further than expected
    edge.wait("ncmd Node Control/Rebirth")
    daemon.wait_for_log(r"asked node N2 for a rebirth \(seq \d+, expected \d+\)")
    time.sleep(1.2)  # past rebirth_interval_s: a node is asked at most once a second here
    edge.send(op="alias", alias=99)  # after the rebirth: an alias no birth gave
    daemon.wait_for_log(r"asked node N2 for a rebirth \(alias 99 unknown on N2\)")
    edge.wait("ncmd Node Control/Rebirth", 2)

    edge.kill()  # the broker publishes its will: the NDEATH with the birth's bdSeq
    offline = alarm_id("Plant", "N2", "", "", "offline")
    listener.wait_for(REPORTS, lambda _: "spoken" in outcomes(listener, offline), 60)
    (said,) = reports(listener, offline)
    assert said["text"] == "line N2 controller offline" and said["priority"] == "critical"
    edges(broker.port, "N2")  # born again: the death's alarm is over
    listener.wait_for(REPORTS, lambda _: outcomes(listener, offline + ":return"), 30)
    listener.close()


def test_after_a_restart_a_held_death_is_said_and_held_data_is_read_by_the_kept_aliases(
    broker, make_daemon, tmp_path, edges
):
    daemon, listener = listening(broker, make_daemon, tmp_path)
    dying, quiet = edges(broker.port, "N5"), edges(broker.port, "N6")
    kept = tmp_path / "state" / "sparkplug" / "Plant.json"
    wait_until(lambda: kept.exists() and '"N6"' in kept.read_text(), 30, "both nodes kept")
    daemon.stop()  # its session persists: the broker holds its QoS 1 messages meanwhile
    dying.send(op="ndeath")
    quiet.send(op="data", metrics={"Fault": True}, qos=1)  # a fault while the daemon is down
    daemon.start()
    offline = alarm_id("Plant", "N5", "", "", "offline")
    listener.wait_for(REPORTS, lambda _: "spoken" in outcomes(listener, offline), 90)
    # Both nodes are known again, alive with their births' aliases (the kept state): the
    # data held meanwhile is read by them, with no rebirth to wait for.
    daemon.wait_for_log(r"listening to spBv1\.0/Plant/# \(2 nodes known\)")
    fault = alarm_id("Plant", "N6", "", "Fault", "fault")
    listener.wait_for(REPORTS, lambda _: "spoken" in outcomes(listener, fault), 60)
    assert outcomes(listener, alarm_id("Plant", "N6", "", "", "offline")) == []
    listener.close()


def test_each_raise_after_a_return_and_each_new_text_is_said(broker, make_daemon, tmp_path, edges):
    _, listener = listening(broker, make_daemon, tmp_path)
    edge = edges(broker.port, "N7")
    fault = alarm_id("Plant", "N7", "", "Fault", "fault")
    for n in (1, 2):  # within the de-duplication window: each a new occurrence
        edge.send(op="data", metrics={"Fault": True})
        listener.wait_for(
            REPORTS, lambda _, n=n: outcomes(listener, fault).count("spoken") == n, 60
        )
        edge.send(op="data", metrics={"Fault": False})
        listener.wait_for(REPORTS, lambda _, n=n: len(outcomes(listener, fault + RETURN)) == n, 30)
    ids = {r["id"] for r in reports(listener, fault)}
    assert len(ids) == 2 and "deduplicated" not in outcomes(listener, fault)

    msg = alarm_id("Plant", "N7", "", "Message", "msg")
    edge.send(op="data", metrics={"Message": "jam at the infeed"})
    listener.wait_for(REPORTS, lambda _: "spoken" in outcomes(listener, msg), 60)
    edge.send(op="data", metrics={"Message": "jam at the outfeed"})  # while the first stands
    listener.wait_for(REPORTS, lambda _: outcomes(listener, msg).count("spoken") == 2, 60)
    said = [r["text"] for r in reports(listener, msg) if r["outcome"] == "spoken"]
    assert said == ["N7 says jam at the infeed", "N7 says jam at the outfeed"]
    assert outcomes(listener, msg + RETURN)  # the first one's return

    bit = alarm_id("Plant", "N7", "", "Level", "bit")
    edge.send(op="data", metrics={"Level": 1})  # an Int16 1 for a boolean rule: a bit set
    listener.wait_for(REPORTS, lambda _: "spoken" in outcomes(listener, bit), 60)
    listener.close()
