"""Reloads under attack, on the real daemon and a real Mosquitto: a change of connection never
loses a report."""

from __future__ import annotations

import json
import signal
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from support import Listener, free_port, site_yaml, wait_until

REPORT = "cosyedge/report"
QUICK = "  reconnect_max_s: 2\n"  # a broker that comes back is found again within seconds


def config_text(port: int, tmp: Path, http_port: int, mqtt: str = QUICK, say: str = "") -> str:
    """The test's broker at `port` (`mqtt`: more keys of that section), the HTTP API on
    `http_port`, one template on cosyedge/say (`say`: its text's prefix)."""
    return (
        site_yaml(port, tmp).replace("  local_broker: false\n", f"  local_broker: false\n{mqtt}")
        + f'templates:\n  - topic: cosyedge/say\n    text: "{say}{{text}}"\n'
        + f"http:\n  enabled: true\n  listen: 127.0.0.1:{http_port}\n"
    )


def say(http_port: int, text: str, alert_id: str) -> int:
    """POST /v1/say: the seq of the accepted message (journaled, one outcome to come)."""
    body = json.dumps({"text": text, "id": alert_id}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{http_port}/v1/say", data=body, method="POST"
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status == 202
        return json.loads(answer.read())["seq"]


def sighup(daemon, count: int) -> None:
    """SIGHUP, as `kill -HUP` sends it; returns once it is the `count`th reload taken over."""
    daemon.process.send_signal(signal.SIGHUP)
    daemon.wait_for_log(r"configuration reloaded from ", count=count)


def unsent_seqs(state_dir: Path) -> list[int]:
    """Outcomes whose reports the broker never acknowledged: sent again at the next start."""
    from cosyedge.journal import Journal

    journal = Journal(state_dir / "journal.jsonl", keep_seen_s=60)
    try:
        return [u.seq for u in journal.open().unsent]
    finally:
        journal.stop()


def reported(listener: Listener, seqs: list[int], timeout: float = 60) -> None:
    """Every one of `seqs` has its outcome report on the broker."""
    wanted = set(seqs)
    listener.wait_for(
        REPORT,
        lambda r: wanted <= {x["seq"] for x in r},
        timeout,
        f"reports of {sorted(wanted)} (have {sorted({x['seq'] for x in listener.on(REPORT)})})",
    )


# --- 1. a change of connection carries the unacknowledged reports over ------------------------


def test_reports_made_while_reloaded_onto_a_dead_broker_reach_the_broker_once_back(
    broker, make_daemon, tmp_path
):
    """The attack as found: reloaded (twice, repeatedly) onto ports where no broker listens,
    alerts come in by HTTP and are spoken; reloaded back, their reports reach the broker and
    the journal keeps none unsent."""
    http_port = free_port()
    good = config_text(broker.port, tmp_path, http_port)
    daemon = make_daemon(good)
    listener = Listener(broker.port, REPORT)
    seqs = [say(http_port, "Before the reload.", "r-0")]
    reported(listener, seqs)
    for n, dead in enumerate((free_port(), free_port()), start=1):
        daemon.config.write_text(config_text(dead, tmp_path, http_port))
        sighup(daemon, count=n)
        seqs += [say(http_port, f"Dead broker {n}, alert {k}.", f"r-{n}-{k}") for k in (1, 2)]
        for k in (1, 2):
            daemon.wait_for_log(rf"spoke alert r-{n}-{k} ", timeout=60)
    daemon.config.write_text(good)
    sighup(daemon, count=3)
    reported(listener, seqs)
    seqs.append(say(http_port, "After the reload.", "r-4"))
    reported(listener, seqs)
    assert daemon.stop() == 0
    assert unsent_seqs(tmp_path / "state") == []
    listener.close()


@pytest.mark.parametrize(
    "change",
    ["  client_id: gw-renamed\n", "  host: localhost\n", "  username: gateway-7\n"],
    ids=["client_id", "host", "username"],
)
def test_a_connection_change_during_a_broker_outage_keeps_the_reports_waiting(
    broker, make_daemon, tmp_path, change
):
    """The broker goes away, alerts are spoken meanwhile (their reports queued in the
    session), then a reload changes the connection: when the broker is back, every report
    reaches it from the new session."""
    http_port = free_port()
    daemon = make_daemon(config_text(broker.port, tmp_path, http_port))
    listener = Listener(broker.port, REPORT, persistent=True)  # hears what was sent while away
    seqs = [say(http_port, "Before the outage.", "o-0")]
    reported(listener, seqs)
    broker.kill()
    daemon.wait_for_log(r"MQTT connection lost")
    seqs += [say(http_port, f"Outage alert {k}.", f"o-{k}") for k in (1, 2, 3)]
    for k in (1, 2, 3):
        daemon.wait_for_log(rf"spoke alert o-{k} ", timeout=60)
    daemon.config.write_text(config_text(broker.port, tmp_path, http_port, QUICK + change))
    sighup(daemon, count=1)
    broker.start()
    reported(listener, seqs)
    assert daemon.stop() == 0
    assert unsent_seqs(tmp_path / "state") == []
    listener.close()


# --- the class, in one process: many connection changes while reports are being made -------


def test_reports_made_while_the_connection_changes_again_and_again_all_reach_the_broker(
    broker, tmp_path
):
    """The link, the reports, the journal and the desk as the daemon wires them, on a real
    broker: one thread makes outcomes as fast as it can while the connection changes, over
    and over, to a port where nothing listens, to another client id, to a user name, and
    back. Every report reaches the broker in the end, and the journal keeps none unsent: an
    acknowledgement on one session is never taken for one on another."""
    from cosyedge.alarms.desk import AlarmDesk
    from cosyedge.alarms.policy import AlarmPolicy
    from cosyedge.config import parse_config
    from cosyedge.faults import Faults
    from cosyedge.intake.door import Door
    from cosyedge.journal import Journal
    from cosyedge.model import Outcome, Ticket
    from cosyedge.mqtt.link import Link
    from cosyedge.mqtt.reports import Reporter
    from cosyedge.observe import Observers

    def config(port: int, mqtt: str = ""):
        return parse_config(config_text(port, tmp_path, free_port(), QUICK + mqtt))

    good = config(broker.port)
    changes = [
        config(free_port()),
        config(broker.port, "  client_id: gw-other\n"),
        config(free_port(), "  username: gw\n"),
        config(broker.port, "  username: gw\n"),
        good,
    ]
    journal = Journal(good.state_dir / "journal.jsonl", 60)
    journal.open()
    observers = Observers()
    link: Link | None = None

    def publish_by_link(topic: str, payload: str, retain: bool = False) -> int:
        assert link is not None
        return link.publish(topic, payload, retain)

    reporter = Reporter(good.reports, publish_by_link, journal, observers)
    observers.add(reporter)
    desk = AlarmDesk(AlarmPolicy(good.alarms), reporter, journal)
    link = Link(good, Door(good, journal, desk, (), observers), observers, Faults())
    listener = Listener(broker.port, REPORT)
    link.start()
    made: list[int] = []
    changing = threading.Event()

    def make_outcomes() -> None:
        while changing.is_set():
            seq = journal.accept("cosyedge/say", b"x%d" % len(made), time.time())
            reporter.outcome(Outcome(Ticket(seq, "cosyedge/say", time.time()), "spoken", {}))
            made.append(seq)
            reporter.confirm()  # as the desk's clock does
            time.sleep(0.002)

    changing.set()
    maker = threading.Thread(target=make_outcomes)
    maker.start()
    for changed in changes * 4:  # 20 sessions, each closed whatever it was doing
        link.reconfigure(changed)
        time.sleep(0.05)
    changing.clear()
    maker.join()
    try:
        wait_until(lambda: reporter.drain(0.1), 60, "every report acknowledged")
        reported(listener, made)
    finally:
        link.stop()
        listener.close()
        journal.stop()
    assert unsent_seqs(good.state_dir) == []
