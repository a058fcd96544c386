"""What the OPC UA server answers an operator's acknowledgement, and what a restarted server
forgot, against asyncua's own server: a refusal leaves the alarm standing (said again) and is
told; an ack the server took but did not answer is told as sent, not as lost; one that could
not be sent is sent once after the reconnect's ConditionRefresh; a condition the server no
longer has after a restart returns to normal here, saying why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from opcua_support import asyncua_server
from support import Listener, free_port, publish, site_yaml, wait_until

from cosyedge.sources.conditions import FORGOTTEN
from cosyedge.sources.opcua_client import KNOWN_ACKED

pytestmark = pytest.mark.system


def config(broker_port: int, tmp: Path, port: int) -> str:
    return f"""{site_yaml(broker_port, tmp)}sources:
  - opcua:
      endpoint: opc.tcp://127.0.0.1:{port}/test
      name: tank
      security: {{policy: None, mode: None}}
      reconnect_max_s: 2
      keepalive_s: 3
"""


class Heard:
    """The daemon's reports and events, as the plant's operators see them."""

    def __init__(self, port: int) -> None:
        self.listener = Listener(port, "cosyedge/report", "cosyedge/event")

    def spoken(self, condition: str = "") -> list[dict]:
        reports = self.listener.on("cosyedge/report")
        return [r for r in reports if r.get("outcome") == "spoken" and condition in r["topic"]]

    def answers(self, **matching: object) -> list[dict]:
        found = [e for e in self.listener.on("cosyedge/event") if e["event"] == "command_answer"]
        return [e for e in found if all(e.get(k) == v for k, v in matching.items())]

    def ack(self, broker_port: int, **named: str) -> None:
        publish(broker_port, "cosyedge/command", json.dumps({"cmd": "ack", "user": "ana", **named}))


def test_a_refused_ack_leaves_the_alarm_standing_and_an_unanswered_one_is_sent(
    broker, alsa_sink, make_daemon, tmp_path
):
    port = free_port()
    server = asyncua_server(port, None, tmp_path / "server.log")
    heard = Heard(broker.port)
    try:
        daemon = make_daemon(config(broker.port, tmp_path, port))
        server.do(do="raise", severity=700, message="Level high")
        wait_until(heard.spoken, 30, "the alarm spoken")
        (first,) = heard.spoken()

        # Refused: told as refused, and the alarm stands: said again under a new id.
        server.do(do="answer", status="BadUserAccessDenied")
        heard.ack(broker.port, id=first["id"])
        wait_until(heard.answers, 30, "the server's refusal told")
        (refused,) = heard.answers()
        assert refused["status"] == "BadUserAccessDenied" and refused["result"] == "refused"
        wait_until(lambda: len(heard.spoken()) == 2, 30, "the standing alarm said again")
        again = heard.spoken()[1]
        assert again["id"] == refused["standing"] != first["id"]
        assert again["text"] == first["text"] and again["priority"] == first["priority"]
        daemon.wait_for_log(r"answered BadUserAccessDenied: the alarm stands")

        # Acknowledged before, at the server: done, not said again.
        server.do(do="answer", status="BadConditionBranchAlreadyAcked")
        heard.ack(broker.port, id=again["id"])
        wait_until(lambda: len(heard.answers()) == 2, 30, "the already-acked answer")
        assert heard.answers()[1]["result"] == "done" and "standing" not in heard.answers()[1]

        # A server that hangs on the call past the timeout, then does it: sent, not lost.
        server.do(do="answer", status=None, delay=8)
        server.do(do="change", severity=900, message="Level very high")
        wait_until(lambda: len(heard.spoken()) == 3, 30, "the change spoken")
        heard.ack(broker.port, id=heard.spoken()[2]["id"])
        wait_until(lambda: len(heard.answers()) == 3, 30, "the unanswered call told")
        hung = heard.answers()[2]
        assert hung["status"].startswith("sent, no answer") and hung["result"] == "no_answer"
        wait_until(lambda: server.do(do="calls")["AckedState/Id"], 30, "acked at the server")
        assert len(heard.spoken()) == 3

        # Lost before it was done: no answer, and the refresh after the reconnect shows the
        # condition unacknowledged: the alarm stands again here, said again.
        server.do(do="answer", status=None, delay=0, drop="undone")
        server.do(do="change", severity=950, message="Level overflow")
        wait_until(lambda: len(heard.spoken()) == 4, 30, "the change spoken")
        heard.ack(broker.port, id=heard.spoken()[3]["id"])
        wait_until(lambda: len(heard.answers()) == 4, 30, "the dropped call told")
        assert heard.answers()[3]["result"] == "no_answer", heard.answers()[3]
        wait_until(lambda: len(heard.spoken()) == 5, 60, "the alarm said again after the refresh")
        daemon.wait_for_log(r"was not done: the alarm stands")
    finally:
        heard.listener.close()
        server.kill()


def test_an_ack_not_sent_is_sent_after_the_reconnect_and_a_forgotten_condition_returns(
    broker, alsa_sink, make_daemon, tmp_path
):
    port = free_port()
    server = asyncua_server(port, None, tmp_path / "server.log")
    heard = Heard(broker.port)
    try:
        daemon = make_daemon(config(broker.port, tmp_path, port))
        high = server.do(do="raise", severity=700, message="Level high")["condition"]
        low = server.do(do="raise", severity=700, message="Level low", condition="LowLevel")
        wait_until(lambda: len(heard.spoken()) == 2, 30, "both alarms spoken")

        # The server does the first ack and drops the connection before answering: the
        # first is sent without an answer, the second cannot be sent, and is sent once
        # the session is back, with the EventId it was for.
        server.do(do="answer", drop=True)
        heard.ack(broker.port, topic="cosyedge/source/opcua/tank/#")
        wait_until(lambda: len(heard.answers()) >= 2, 30, "both calls told")
        (sent,) = heard.answers(condition=high)
        assert sent["result"] == "no_answer", sent
        (unsent, *_) = heard.answers(condition=low["condition"])
        assert unsent["result"] == "not_sent" and unsent["status"].startswith("not sent")
        retried = lambda: heard.answers(condition=low["condition"], again=True)  # noqa: E731
        wait_until(retried, 30, "the unsent ack sent after the reconnect")
        (retry,) = retried()
        assert retry["result"] == "done" and retry["event_id"] == low["event_id"]

        # A condition standing here that a restarted server no longer has: returned to
        # normal after its ConditionRefresh, with the reason.
        overflow = server.do(do="raise", severity=700, message="Overflow", condition="Overflow")
        wait_until(lambda: heard.spoken("Overflow"), 30, "the third alarm spoken")
        server.kill()
        daemon.wait_for_log(r"fault: opcua:tank")

        # Acks while the server is down are answered at once: not sent (and sent after the
        # next refresh, if the condition is still there), or already acknowledged there.
        told = len(heard.answers())
        heard.ack(broker.port, id=heard.spoken("Overflow")[0]["id"])
        (acked_high,) = [r for r in heard.spoken() if "Level high" in r["text"]]
        heard.ack(broker.port, id=acked_high["id"])
        wait_until(lambda: len(heard.answers()) == told + 2, 30, "both acks answered")
        (offline,) = heard.answers(condition=overflow["condition"])
        assert offline["result"] == "not_sent" and "again" not in offline, offline
        (known,) = heard.answers(condition=high, status=KNOWN_ACKED)
        assert known["result"] == "done", known
        server = asyncua_server(port, None, tmp_path / "server2.log")
        back = lambda: [  # noqa: E731
            r for r in heard.listener.on("cosyedge/report")
            if r.get("outcome") == "return_to_normal" and "Overflow" in r["topic"]
        ]  # fmt: skip
        wait_until(back, 60, "the forgotten condition returned to normal")
        assert back()[0]["note"] == FORGOTTEN
        # The ack not sent is sent after the refresh, if still due: the refresh had it gone.
        retried = lambda: heard.answers(condition=overflow["condition"], again=True)  # noqa: E731
        wait_until(retried, 30, "the ack not sent told again after the refresh")
        assert "no longer has the condition" in retried()[0]["status"]
    finally:
        heard.listener.close()
        server.kill()
