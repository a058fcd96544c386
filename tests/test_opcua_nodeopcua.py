"""The daemon with OPC UA sources against node-opcua, an independent implementation, started
here as a process (tests/opcua/server.js): a real ExclusiveLimitAlarm on a tank level the test
drives. The alarm is raised and said; cosyedge is killed and started again while it stands,
and knows it again (ConditionRefresh) without saying it twice; the operator's ack here reaches
the server (AckedState true, the comment and who), and so does a confirm (ConfirmedState
true), each answer an event and in the audit;
a gateway certificate the server does not trust is a fault that names it."""

from __future__ import annotations

import json
import shutil

import pytest
from opcua_support import NODE_OPCUA, make_pair, node_opcua_server
from support import Listener, free_port, publish, site_yaml, wait_until

from cosyedge.sources.opcua_client import fingerprint

pytestmark = [
    pytest.mark.system,
    pytest.mark.skipif(
        not (NODE_OPCUA / "node-opcua").is_dir() or shutil.which("node") is None,
        reason=f"node-opcua is not installed at {NODE_OPCUA} (scripts/setup test installs it)",
    ),
]


def config(broker_port: int, tmp, endpoint: str, gateway, stranger) -> str:
    def source(name: str, pair, notifier: str = "i=2253") -> str:
        return f"""  - opcua:
      endpoint: {endpoint}
      name: {name}
      notifier: "{notifier}"
      security: {{certificate: {pair.certificate}, private_key: {pair.key}}}
      templates: {{en: "Tank 3 level alarm: {{Message}}"}}
      priorities: {{critical: 700, high: 400, medium: 100, low: 1}}
      reconnect_max_s: 2
"""

    # The stranger watches the Objects folder: two sources on one endpoint and notifier would
    # say each alarm twice (check refuses that), and its certificate is refused before it
    # subscribes anything.
    sources = source("tank", gateway) + source("stranger", stranger, "i=85")
    return f"{site_yaml(broker_port, tmp)}sources:\n{sources}"


def test_node_opcua_alarm_said_once_across_a_restart_and_acknowledged_from_here(
    broker, alsa_sink, make_daemon, tmp_path
):
    pki = tmp_path / "certificates"
    server_pair = make_pair(pki, "server", "urn:cosyedge:node-opcua-test")
    gateway = make_pair(pki, "gateway", "urn:cosyedge:gateway")
    stranger = make_pair(pki, "stranger", "urn:cosyedge:stranger")
    port = free_port()
    server = node_opcua_server(port, server_pair, tmp_path / "pki", gateway, tmp_path / "node.log")
    condition = server.ready["condition"]
    listener = Listener(broker.port, "cosyedge/report", "cosyedge/event")
    endpoint = f"opc.tcp://127.0.0.1:{port}/test"
    try:
        daemon = make_daemon(config(broker.port, tmp_path, endpoint, gateway, stranger))
        daemon.wait_for_log(r"OPC UA tank: subscribed at")

        # The certificate the server does not trust: a fault naming it, said aloud.
        def rejected() -> list:
            return [
                e for e in listener.on("cosyedge/event")
                if e.get("event") == "fault" and e.get("fault") == "opcua:stranger"
            ]  # fmt: skip

        wait_until(rejected, 30, "the stranger's certificate rejected")
        reason = rejected()[0]["reason"]
        assert reason.startswith("certificate rejected by the server")
        assert str(stranger.certificate) in reason and fingerprint(stranger.certificate) in reason

        server.do(do="level", value=85)  # above the high limit: the alarm is active

        def spoken() -> list:
            reports = listener.on("cosyedge/report")
            return [r for r in reports if r.get("outcome") == "spoken" and condition in r["topic"]]

        wait_until(spoken, 30, "the alarm spoken")
        (said,) = spoken()
        # node-opcua gives its limit alarm's High state Severity 150: `medium` in these bands.
        assert said["text"].startswith("Tank 3 level alarm: ") and said["priority"] == "medium"
        assert server.do(do="state")["acked"] is False

        # Killed while the alarm stands, and started again: known, not said twice.
        daemon.process.kill()
        daemon.process.wait()
        daemon.start()
        daemon.wait_for_log(rf"OPC UA tank: {condition} known again \(active")
        publish(broker.port, "cosyedge/say", "after the restart")  # said after it, if at all
        reports = lambda: listener.on("cosyedge/report")  # noqa: E731
        later = lambda: any(r.get("text") == "after the restart" for r in reports())  # noqa: E731
        wait_until(later, 60, "the later alert spoken")
        # Reports are at least once: the killed run's may come again, with the same seq.
        assert {r["seq"] for r in spoken()} == {said["seq"]}
        assert daemon.log().count(f"spoke alert {said['id']} ") == 1

        # The operator acknowledges it here: the server's condition is acknowledged.
        ack = {"cmd": "ack", "id": said["id"], "user": "ana", "comment": "valve closed"}
        publish(broker.port, "cosyedge/command", json.dumps(ack))
        wait_until(lambda: server.do(do="state")["acked"], 30, "AckedState true at the server")
        assert server.do(do="state")["comment"] == "ana: valve closed"

        def answers() -> list:
            events = listener.on("cosyedge/event")
            return [e for e in events if e.get("event") == "command_answer"]

        wait_until(answers, 30, "the server's answer told")
        (answer,) = answers()
        assert answer["status"] == "Good" and answer["condition"] == condition
        assert answer["user"] == "ana" and answer["source"] == "opcua:tank"

        # Back to normal, then confirmed here: the server's ConfirmedState follows.
        server.do(do="level", value=50)
        returned = lambda: [r for r in reports() if r.get("outcome") == "return_to_normal"]  # noqa: E731
        wait_until(returned, 30, "the return to normal heard")
        confirm = {"cmd": "confirm", "id": said["id"], "user": "ana", "comment": "checked"}
        publish(broker.port, "cosyedge/command", json.dumps(confirm))
        wait_until(lambda: server.do(do="state")["confirmed"], 30, "ConfirmedState true")
        wait_until(lambda: len(answers()) == 2, 30, "the confirm's answer told")
        assert answers()[1]["cmd"] == "confirm" and answers()[1]["status"] == "Good"
    finally:
        listener.close()
        server.kill()
