"""Reloads under attack, on the real daemon, a real Mosquitto and `cosyedge reload`: a change
of connection never loses a report, the command names the file the daemon actually read, and
a reload to a broker that does not answer is told as such while the daemon keeps watching
itself."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from support import Listener, cosyedge, free_port, publish, site_yaml, wait_until

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
        f"http://127.0.0.1:{http_port}/v1/say",
        data=body,
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status == 202
        return json.loads(answer.read())["seq"]


def reload_command(daemon, config: Path, *extra: str) -> list[str]:
    """`cosyedge reload` as systemd's ExecReload runs it, naming `config`."""
    command = [sys.executable, "-m", "cosyedge", "reload", "--config", str(config)]
    return [*command, "--pid", str(daemon.process.pid), *extra]


def reload(daemon, *extra: str, config: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = reload_command(daemon, config or daemon.config, *extra)
    return subprocess.run(command, capture_output=True, text=True, env=daemon.env, timeout=120)


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


def test_a_connection_change_during_a_broker_outage_keeps_the_reports_waiting(
    broker, make_daemon, tmp_path
):
    """The broker goes away, alerts are spoken meanwhile (their reports queued in the
    session), then a reload changes the connection: when the broker is back, every report
    reaches it from the new session. One outage after another on one daemon, each reload
    changing one thing more: the client id, then the host, then the user name."""
    http_port = free_port()
    daemon = make_daemon(config_text(broker.port, tmp_path, http_port))
    listener = Listener(broker.port, REPORT, persistent=True)  # hears what was sent while away
    seqs = [say(http_port, "Before the outage.", "o-0")]
    reported(listener, seqs)
    changes = ["  client_id: gw-renamed\n", "  host: localhost\n", "  username: gateway-7\n"]
    for n in range(1, len(changes) + 1):
        broker.kill()
        daemon.wait_for_log(r"MQTT connection lost", count=n)
        ids = [f"o-{n}-{k}" for k in (1, 2, 3)]
        seqs += [say(http_port, f"Outage {n} alert {k}.", i) for k, i in enumerate(ids, 1)]
        for alert_id in ids:
            daemon.wait_for_log(rf"spoke alert {alert_id} ", timeout=60)
        changed = QUICK + "".join(changes[:n])
        daemon.config.write_text(config_text(broker.port, tmp_path, http_port, changed))
        sighup(daemon, count=n)
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


# --- 2. the file the daemon read is the file the operator named --------------------------------


def test_reload_naming_a_file_the_daemon_does_not_run_fails_naming_both(
    broker, make_daemon, tmp_path
):
    """`cosyedge reload --config OTHER`: a running daemon rereads the file it was started
    with, so naming another one fails (exit 4, both files named) and the daemon is not even
    signalled; its own file under another name (a symlink, a relative path) is its file."""
    http_port = free_port()
    daemon = make_daemon(config_text(broker.port, tmp_path, http_port, say="Own: "))
    other = tmp_path / "other.yaml"  # same state_dir: the daemon's answers are where it looks
    other.write_text(config_text(broker.port, tmp_path, http_port, say="Other: "))
    done = reload(daemon, config=other)
    assert done.returncode == 4, (done.stdout, done.stderr)
    assert str(other) in done.stderr and str(daemon.config) in done.stderr, done.stderr
    elsewhere = tmp_path / "elsewhere.yaml"  # another state_dir: the daemon answers elsewhere
    elsewhere.write_text(config_text(broker.port, tmp_path / "elsewhere", http_port))
    done = reload(daemon, "--timeout", "20", config=elsewhere)
    assert done.returncode == 4, (done.stdout, done.stderr)
    assert str(elsewhere) in done.stderr and str(daemon.config) in done.stderr, done.stderr
    assert "configuration reloaded from" not in daemon.log()  # never signalled

    link = tmp_path / "link.yaml"
    link.symlink_to(daemon.config)
    for named in (link, Path(daemon.config.name)):
        command = reload_command(daemon, named)
        done = subprocess.run(
            command, capture_output=True, text=True, env=daemon.env, cwd=daemon.directory
        )
        assert done.returncode == 0, (done.stdout, done.stderr)
        assert done.stdout.startswith("cosyedge reload: applied"), done.stdout
    publish(broker.port, "cosyedge/say", json.dumps({"text": "mine", "id": "own-1"}))
    daemon.wait_for_log(r"spoke alert own-1 .* text='Own: mine'")


# --- 3. a broker that does not acknowledge: told, and the daemon keeps watching itself -------


def test_a_reload_onto_a_broker_that_does_not_answer_is_told_and_never_stalls_the_daemon(
    broker, make_daemon, notify_socket, tmp_path
):
    """Reloaded onto a port where no broker listens, the configuration is in force at once
    (the status says the broker is not connected), the watchdog is petted on, and `cosyedge
    reload` says that the broker has not acknowledged the subscriptions, with exit 3; a
    reload back is acknowledged (exit 0)."""
    http_port = free_port()
    good = config_text(broker.port, tmp_path, http_port)
    daemon = make_daemon(good, env=notify_socket.env(watchdog_s=2))
    dead = free_port()
    daemon.config.write_text(config_text(dead, tmp_path, http_port))
    since = time.monotonic()
    done = reload(daemon)
    reloading, _ = notify_socket.wait_for("RELOADING", "1", since=since)
    answered, _ = notify_socket.wait_for("READY", "1", since=reloading)
    pets = [t for t, _ in notify_socket.with_key("WATCHDOG", since=reloading) if t < answered]
    assert len(pets) >= 3, f"{len(pets)} watchdog pets in the {answered - reloading:.1f} s wait"
    told, _ = notify_socket.wait_for("STATUS", r"mqtt: disconnected", since=reloading)
    assert told < answered, "the status did not follow while the reload waited"
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert f"127.0.0.1:{dead}" in done.stderr, done.stderr
    assert "in force" in done.stderr and "not acknowledged" in done.stderr, done.stderr
    say(http_port, "Still speaking.", "d-1")  # the HTTP API answers meanwhile, alerts are said
    daemon.wait_for_log(r"spoke alert d-1 ", timeout=60)

    daemon.config.write_text(good)
    done = reload(daemon)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert done.stdout.startswith("cosyedge reload: applied"), done.stdout


def test_reloads_during_a_broker_outage_and_one_upon_another_are_each_answered(
    broker, make_daemon, tmp_path
):
    """A template added while the broker is away cannot be acknowledged (exit 3) and is heard
    once the broker is back; a second reload while the first waits answers the first, and
    the daemon ends on the configuration of the last."""
    http_port = free_port()
    daemon = make_daemon(config_text(broker.port, tmp_path, http_port))
    broker.kill()
    daemon.wait_for_log(r"MQTT connection lost")
    added = '  - {topic: "plant/added", text: "Added: {text}"}\n'
    with_added = config_text(broker.port, tmp_path, http_port).replace("http:", added + "http:")
    daemon.config.write_text(with_added)
    done = reload(daemon)
    assert done.returncode == 3, (done.stdout, done.stderr)
    broker.start()
    daemon.wait_for_log(r"subscribed to \d+ topic filters", count=2)
    publish(broker.port, "plant/added", json.dumps({"text": "back", "id": "a-1"}))
    daemon.wait_for_log(r"spoke alert a-1 .* text='Added: back'", timeout=60)

    daemon.config.write_text(config_text(free_port(), tmp_path, http_port))
    waiting = subprocess.Popen(
        reload_command(daemon, daemon.config),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=daemon.env,
    )
    daemon.wait_for_log(r"configuration reloaded from ", count=2)
    daemon.config.write_text(config_text(broker.port, tmp_path, http_port, say="Last: "))
    done = reload(daemon)
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 3, (out, err)
    assert done.returncode == 0, (done.stdout, done.stderr)
    wait_until(lambda: daemon.log().count("configuration reloaded from ") == 3, 10, "3 reloads")
    publish(broker.port, "cosyedge/say", json.dumps({"text": "end", "id": "a-2"}))
    daemon.wait_for_log(r"spoke alert a-2 .* text='Last: end'", timeout=60)


def test_a_failed_reload_under_systemd_is_logged_at_error_priority(tmp_path):
    """ExecReload's stderr reaches the journal at priority info unless the line says
    otherwise (sd-daemon(3)): a failed reload's reason carries `<3>`, so that
    `journalctl -u cosyedge -p warning` shows it; on a terminal the line is plain."""
    config = tmp_path / "cosyedge.yaml"
    config.write_text(f"state_dir: {tmp_path / 'state'}\n")
    gone = 2**22 + 1  # above the kernel's default pid_max: no such process
    args = ("reload", "--pid", str(gone), "--config", str(config))
    journald = cosyedge(*args, env={**os.environ, "JOURNAL_STREAM": "8:12345"})
    assert journald.returncode == 1, journald.stderr
    assert journald.stderr.startswith("<3>cosyedge reload: "), journald.stderr
    terminal = cosyedge(*args, env={k: v for k, v in os.environ.items() if k != "JOURNAL_STREAM"})
    assert terminal.stderr.startswith("cosyedge reload: "), terminal.stderr
