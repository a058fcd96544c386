"""The daemon with an OPC UA source against asyncua's own server, a separate process, over
Basic256Sha256 SignAndEncrypt with certificates made here: an alarm condition raised, its
severity and message changed, acknowledged at the server and returned to normal; each heard
or told as a controls engineer expects, through the same outcomes and events as MQTT alerts."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from opcua_support import asyncua_server, make_pair
from support import Listener, free_port, site_yaml, wait_until

pytestmark = pytest.mark.system


def opcua_config(broker_port: int, tmp: Path, endpoint: str, pair) -> str:
    return f"""{site_yaml(broker_port, tmp)}sources:
  - opcua:
      endpoint: {endpoint}
      name: tank
      security: {{certificate: {pair.certificate}, private_key: {pair.key}}}
      templates: {{en: "{{SourceName}}: {{Message}}"}}
      reconnect_max_s: 2
      keepalive_s: 3
"""


def outcomes(listener: Listener, kind: str) -> list[dict]:
    return [r for r in listener.on("cosyedge/report") if r.get("outcome") == kind]


def events_of(listener: Listener, kind: str, **matching: object) -> list[dict]:
    found = [e for e in listener.on("cosyedge/event") if e.get("event") == kind]
    return [e for e in found if all(e.get(k) == v for k, v in matching.items())]


def test_an_asyncua_alarm_raised_changed_acknowledged_and_returned(
    broker, alsa_sink, make_daemon, tmp_path
):
    pki = tmp_path / "pki"
    server_pair = make_pair(pki, "server", "urn:cosyedge:test-server")
    gateway = make_pair(pki, "gateway", "urn:cosyedge:gateway")
    port = free_port()
    server = asyncua_server(port, server_pair, tmp_path / "server.log")
    listener = Listener(broker.port, "cosyedge/report", "cosyedge/event")
    try:
        # Standing before the gateway starts: ConditionRefresh at its connect makes it known.
        server.do(do="raise", severity=700, message="Level high")
        endpoint = f"opc.tcp://127.0.0.1:{port}/test"
        make_daemon(opcua_config(broker.port, tmp_path, endpoint, gateway))
        wait_until(lambda: outcomes(listener, "spoken"), 30, "the standing alarm spoken")
        (first,) = outcomes(listener, "spoken")
        assert first["priority"] == "high" and first["text"] == "Tank 3: Level high"
        assert first["topic"] == f"cosyedge/source/opcua/tank/{server.ready['condition']}"

        # A new severity and message while it stands: said again, at the new priority.
        sent = time.time()
        server.do(do="change", severity=900, message="Level very high")
        wait_until(lambda: len(outcomes(listener, "spoken")) == 2, 30, "the change spoken")
        second = outcomes(listener, "spoken")[1]
        print(
            f"OPC UA event to first audio {(second['start'] - sent) * 1000:.0f} ms "
            f"(from the door: {second['latency_ms']} ms, source {second['source']})"
        )
        assert second["priority"] == "critical" and second["text"] == "Tank 3: Level very high"
        assert second["id"] != first["id"]

        # Acknowledged at the HMI: the desk is told, by whom and why.
        server.do(do="ack", user="ana", comment="valve closed by hand")
        wait_until(lambda: events_of(listener, "command", cmd="ack"), 30, "the server's ack")
        (ack,) = events_of(listener, "command", cmd="ack")
        assert ack["id"] == second["id"] and ack["user"] == "ana"
        assert "valve closed by hand" in ack["comment"]
        # Acknowledged at the server already: nothing is called back.
        assert server.do(do="calls")["calls"] == []

        server.do(do="clear")
        wait_until(lambda: outcomes(listener, "return_to_normal"), 30, "the return to normal")
        (back,) = outcomes(listener, "return_to_normal")
        assert back["topic"] == first["topic"]
        assert len(alsa_sink.streams()) == 2  # heard twice: the raise and the change
    finally:
        listener.close()
        server.kill()


def test_the_server_down_or_lost_is_a_named_fault_said_aloud(
    broker, alsa_sink, make_daemon, tmp_path
):
    pki = tmp_path / "pki"
    server_pair = make_pair(pki, "server", "urn:cosyedge:test-server")
    gateway = make_pair(pki, "gateway", "urn:cosyedge:gateway")
    port = free_port()
    listener = Listener(broker.port, "cosyedge/event")
    endpoint = f"opc.tcp://127.0.0.1:{port}/test"
    daemon = make_daemon(opcua_config(broker.port, tmp_path, endpoint, gateway))
    try:
        wait_until(lambda: events_of(listener, "fault", fault="opcua:tank"), 30, "the fault")
        (down,) = events_of(listener, "fault", fault="opcua:tank")
        assert down["reason"].startswith(f"server down: {endpoint}")
        daemon.wait_for_log(r"spoke fault fault:opcua:tank ")
        server = asyncua_server(port, server_pair, tmp_path / "server.log")
        try:
            cleared = lambda n: len(events_of(listener, "fault_cleared", fault="opcua:tank")) == n  # noqa: E731
            wait_until(lambda: cleared(1), 30, "the fault cleared once the server is up")
            # Frozen (its process stopped): the connection stands, nothing comes.
            os.kill(server.process.pid, signal.SIGSTOP)
            faults = lambda: events_of(listener, "fault", fault="opcua:tank")  # noqa: E731
            wait_until(lambda: len(faults()) == 2, 30, "the keep-alive missed")
            assert faults()[1]["reason"].startswith("keep-alive missed: nothing from the server")
            os.kill(server.process.pid, signal.SIGCONT)
            wait_until(lambda: cleared(2), 30, "subscribed again once it answers")
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
            server.kill()
        # Killed under the session: a fault again, and the session is sought again.
        wait_until(lambda: len(faults()) == 3, 30, "the session lost")
        assert faults()[2]["reason"].startswith(("session lost", "server down"))
        daemon.wait_for_log(r"OPC UA tank: connecting again in 2\.0 s")
    finally:
        listener.close()
