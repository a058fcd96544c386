"""Life under systemd, on real datagrams: readiness, status, watchdog, SIGTERM and SIGHUP.

The daemon runs as a subprocess with NOTIFY_SOCKET naming a datagram socket bound here, so
every READY=1, STATUS=, WATCHDOG=1 and STOPPING=1 checked below was really sent.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from support import AlsaSink, Broker, Listener, cosyedge_here, publish, site_yaml, wait_until

LONG_TEXT = (  # under the 200 characters a template value may have; ten seconds of speech
    "Attention in hall two. The steam pressure is rising, the relief valve on boiler one "
    "did not open, operators must check it now, and everyone else must keep away."
)


def config_text(port: int, tmp: Path, say_text: str = "{text}", extra: str = "") -> str:
    return f"""
{site_yaml(port, tmp)}templates:
  - topic: cosyedge/say
    text: "{say_text}"
{extra}"""


def unsaid_ids(state_dir: Path) -> list[str]:
    """The alerts the journal holds without an outcome: what the next start takes up."""
    from cosyedge.journal import Journal

    journal = Journal(state_dir / "journal.jsonl", keep_seen_s=60)
    try:
        return [json.loads(p.payload)["id"] for p in journal.open().pending]
    finally:
        journal.stop()


def unsent_seqs(state_dir: Path) -> list[int]:
    """Outcomes whose reports the broker never acknowledged: sent again at the next start."""
    from cosyedge.journal import Journal

    journal = Journal(state_dir / "journal.jsonl", keep_seen_s=60)
    try:
        return [u.seq for u in journal.open().unsent]
    finally:
        journal.stop()


def sigterm_and_wait(daemon, notify_socket) -> float:
    """SIGTERM, STOPPING=1 at once, a clean exit: how long the exit took."""
    stop_sent = time.monotonic()
    daemon.process.send_signal(signal.SIGTERM)
    notify_socket.wait_for("STOPPING", "1", since=stop_sent, timeout=5)
    daemon.process.wait(timeout=15)
    assert daemon.process.returncode == 0, daemon.log()
    return time.monotonic() - stop_sent


def test_ready_with_the_voices_while_the_broker_is_down_then_status_and_watchdog(
    make_daemon, notify_socket, tmp_path
):
    broker = Broker(tmp_path / "broker")  # not started yet: a broker down at boot
    daemon = make_daemon(
        config_text(broker.port, tmp_path), env=notify_socket.env(watchdog_s=2), start=False
    )
    daemon.start(wait_ready=False)
    try:
        ready_at, _ = notify_socket.wait_for("READY", "1", timeout=60)
        assert re.search(r"voice \S+ loaded", daemon.log()), "READY=1 before the voices loaded"
        assert (tmp_path / "cache").is_dir()
        # On a slow start the broker's absence is past its grace by READY, and the status
        # names the fault `connection` before the start's own state.
        waiting = r"(^|; )starting: waiting for the MQTT broker"
        assert re.search(waiting, notify_socket.statuses(since=ready_at)[0])
        time.sleep(1.0)
        assert all(re.search(waiting, s) for s in notify_socket.statuses(since=ready_at))
        assert len(notify_socket.with_key("READY")) == 1

        broker.start()
        connected_at, _ = notify_socket.wait_for("STATUS", r"^mqtt: connected;", timeout=30)
        assert "subscribed to 4 topic filters" in daemon.log()  # template, commands, canary, $SYS
        # The broker's absence, past its grace, was said aloud as the fault `connection`.
        assert "starting" not in notify_socket.statuses(since=connected_at)[0]
        assert len(notify_socket.with_key("READY")) == 1  # the broker's return is no second start

        # WATCHDOG_USEC=2 s: petted about every second while nothing is stuck.
        time.sleep(3.2)
        pets = [t for t, _ in notify_socket.with_key("WATCHDOG", since=connected_at)]
        assert 2 <= len(pets) <= 5, pets

        publish(broker.port, "cosyedge/say", json.dumps({"text": "Forklift in aisle four."}))
        notify_socket.wait_for("STATUS", r"; last: spoke \w+ at ", timeout=30)
    finally:
        daemon.stop()
        broker.kill()


class Fifo:
    """An ALSA `file` sink writing into a named pipe that the test drains only when told.

    With nobody reading, the pipe fills and the player's next write blocks: an audio write
    that never returns, as with a wedged driver.
    """

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / "pcm.fifo"
        os.mkfifo(self.path)
        conf = directory / "asoundrc"
        conf.write_text(
            'pcm.!default {\n  type file\n  slave.pcm "null"\n'
            f'  file "{self.path}"\n  format "raw"\n  truncate true\n}}\n'
        )
        self.env = {"ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{conf}"}
        self.fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)  # held open, so opens succeed
        self.draining = threading.Event()
        self.received = 0
        self._closed = False
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        while not self._closed:
            if not self.draining.wait(0.05):
                continue
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                with contextlib.suppress(OSError):
                    self.received += len(os.read(self.fd, 1 << 16))

    def close(self) -> None:
        self._closed = True
        time.sleep(0.1)
        os.close(self.fd)


def test_watchdog_stops_while_an_audio_write_hangs_and_sigterm_still_exits(
    broker, make_daemon, notify_socket, tmp_path
):
    fifo = Fifo(tmp_path / "fifo")
    daemon = make_daemon(
        config_text(broker.port, tmp_path), env={**fifo.env, **notify_socket.env(watchdog_s=1.5)}
    )
    try:
        notify_socket.wait_for("READY", "1")
        publish(broker.port, "cosyedge/say", json.dumps({"text": LONG_TEXT, "id": "stuck-1"}))
        daemon.wait_for_log(r"no progress from .*player \(\d+ s\)", timeout=30)
        withheld_at = time.monotonic()
        time.sleep(2.5)
        pets = [t for t, _ in notify_socket.with_key("WATCHDOG", since=withheld_at)]
        assert pets == [], "WATCHDOG=1 sent while the audio write was stuck"

        fifo.draining.set()  # the device takes data again
        daemon.wait_for_log(r"spoke alert stuck-1 ", timeout=30)
        notify_socket.wait_for("WATCHDOG", "1", since=time.monotonic(), timeout=5)
        assert "moving again: watchdog resumed" in daemon.log()
        assert fifo.received > 5 * 22050 * 2  # several seconds of speech went through

        fifo.draining.clear()  # wedge it again, then ask the daemon to stop
        time.sleep(0.2)
        publish(broker.port, "cosyedge/say", json.dumps({"text": LONG_TEXT, "id": "stuck-2"}))
        wait_until(lambda: "accepted alert stuck-2" in daemon.log(), 10, "stuck-2 accepted")
        time.sleep(1.0)
        took = sigterm_and_wait(daemon, notify_socket)
        assert took < 5 + 3, f"exit took {took:.1f} s"
        assert "announcer did not stop within 5 s; exiting without it" in daemon.log()
        assert unsaid_ids(tmp_path / "state") == ["stuck-2"]
    finally:
        fifo.close()


def test_sigterm_finishes_the_clause_saves_the_queue_and_the_next_start_speaks_it(
    broker, alsa_sink: AlsaSink, make_daemon, notify_socket, tmp_path
):
    text = config_text(broker.port, tmp_path)
    daemon = make_daemon(text, env=notify_socket.env())
    publish(broker.port, "cosyedge/say", json.dumps({"text": LONG_TEXT, "id": "long-1"}))
    publish(broker.port, "cosyedge/say", json.dumps({"text": "Second alert.", "id": "q-2"}))
    publish(broker.port, "cosyedge/say", json.dumps({"text": "Third alert.", "id": "q-3"}))
    # Once the first clause reached the device, stop while the rest is still being made;
    # and once the other two are in the journal (on a loaded machine the broker's delivery
    # of the third came after the first clause: it waited in the broker for the next start).
    wait_until(lambda: any(p.stat().st_size for p in alsa_sink.files()), 30, "first clause")
    journal = tmp_path / "state" / "journal.jsonl"
    wait_until(lambda: '"q-3"' in journal.read_text(errors="replace"), 30, "q-3 journaled")
    took = sigterm_and_wait(daemon, notify_socket)
    assert took < 5, f"exit took {took:.1f} s"
    assert "cut alert long-1 after a clause; kept" in daemon.log()
    assert "3 unsaid alerts saved for the next start" in daemon.log()
    heard = alsa_sink.streams()[0]

    again = make_daemon(text, env=notify_socket.env())
    again.wait_for_log(r"3 alerts left unsaid by the last run are queued")
    for alert_id in ("long-1", "q-2", "q-3"):
        again.wait_for_log(rf"spoke alert {alert_id} ", timeout=60)
    whole = alsa_sink.streams()[1]
    assert len(whole) > 7 * 22050  # the cut phrase was spoken again, in full
    assert 0 < len(heard) < 0.6 * len(whole)  # where before only its first clauses were


def test_sighup_rejects_a_bad_config_and_applies_a_good_one_keeping_the_queue(
    broker, make_daemon, notify_socket, tmp_path
):
    daemon = make_daemon(
        config_text(broker.port, tmp_path, "Old words: {text}"), env=notify_socket.env()
    )
    pid = daemon.process.pid

    daemon.config.write_text("mqtt:\n  port: seventy\naudio:\n  blok_ms: 50\n")
    since = time.monotonic()
    daemon.process.send_signal(signal.SIGHUP)
    notify_socket.wait_for("RELOADING", "1", since=since)
    notify_socket.wait_for("READY", "1", since=since)
    daemon.wait_for_log(r"reload rejected: the running configuration stays in force")
    log = daemon.log()
    assert f"reload rejected: {daemon.config}: mqtt.port: expected an integer" in log
    assert (
        f'reload rejected: {daemon.config}: audio.blok_ms: unknown key; did you mean "block' in log
    )
    publish(broker.port, "cosyedge/say", json.dumps({"text": "one", "id": "a-1"}))
    daemon.wait_for_log(r"spoke alert a-1 .* text='Old words: one'")

    # Three alerts queued behind a long one, then a valid new config: none is dropped.
    publish(broker.port, "cosyedge/say", json.dumps({"text": LONG_TEXT, "id": "b-0"}))
    for n in (1, 2, 3):
        publish(broker.port, "cosyedge/say", json.dumps({"text": f"alert {n}", "id": f"b-{n}"}))
    extra = """  - topic: "plant/{line}/new"
    text: "New template for line {line}."
"""
    daemon.config.write_text(config_text(broker.port, tmp_path, "New words: {text}", extra))
    since = time.monotonic()
    daemon.process.send_signal(signal.SIGHUP)
    daemon.wait_for_log(r"configuration reloaded from ")
    notify_socket.wait_for("READY", "1", since=since)
    for n in (0, 1, 2, 3):
        daemon.wait_for_log(rf"spoke alert b-{n} ", timeout=60)
    publish(broker.port, "cosyedge/say", json.dumps({"text": "two", "id": "c-1"}))
    daemon.wait_for_log(r"spoke alert c-1 .* text='New words: two'")
    publish(broker.port, "plant/7/new", json.dumps({"id": "c-2"}))
    daemon.wait_for_log(r"spoke alert c-2 .* text='New template for line 7.'")
    assert daemon.process.pid == pid and daemon.alive()


ABSURD_CONFIGS = {
    "nested thousands deep": "mqtt: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n",
    "a list nested thousands deep": "templates: " + "[" * 5000 + "]" * 5000 + "\n",
    "a 5000-digit port": "mqtt:\n  port: 1" + "0" * 5000 + "\n",
    "nan": "audio:\n  block_ms: 50\nmemory:\n  ceiling_mb: .nan\n",
}


def test_sighup_with_an_absurd_config_is_rejected_and_the_daemon_speaks_on(
    broker, make_daemon, notify_socket, tmp_path
):
    daemon = make_daemon(
        config_text(broker.port, tmp_path, "Still here: {text}"), env=notify_socket.env()
    )
    pid = daemon.process.pid
    for n, (what, text) in enumerate(ABSURD_CONFIGS.items(), start=1):
        daemon.config.write_text(text)
        since = time.monotonic()
        daemon.process.send_signal(signal.SIGHUP)
        notify_socket.wait_for("READY", "1", since=since)
        daemon.wait_for_log(r"reload rejected: the running configuration stays in force", count=n)
        publish(broker.port, "cosyedge/say", json.dumps({"text": what, "id": f"x-{n}"}))
        daemon.wait_for_log(rf"spoke alert x-{n} .* text='Still here: {what}'")
    log = daemon.log()
    assert f"reload rejected: {daemon.config}: line 1, column 128: nested deeper than 32" in log
    assert f"reload rejected: {daemon.config}: line 1, column 43: nested deeper than 32" in log
    assert f"reload rejected: {daemon.config}: line 2, column 9: an integer of 5001 char" in log
    assert f"reload rejected: {daemon.config}: memory.ceiling_mb: expected an integer" in log
    assert "Traceback" not in log
    assert daemon.process.pid == pid and daemon.alive()


@pytest.mark.parametrize("key", ["voices", "mqtt.local_broker"])
def test_reload_keeps_start_only_settings_until_restart(key):
    from cosyedge.config import parse_config
    from cosyedge.service.reload import effective_config

    running = parse_config("audio:\n  block_ms: 100\n")
    changed = {
        "voices": "voices:\n  en:\n    engine: piper\naudio:\n  block_ms: 50\n",
        "mqtt.local_broker": "mqtt:\n  local_broker: false\n  port: 1884\naudio:\n  block_ms: 50\n",
    }[key]
    effective, waiting = effective_config(running, parse_config(changed))
    assert waiting == [key]
    assert effective.audio.block_ms == 50
    assert effective.voices == running.voices
    assert effective.mqtt.local_broker == running.mqtt.local_broker


def test_reload_returns_once_the_new_config_is_in_force_and_fails_on_a_broken_one(
    broker, make_daemon, tmp_path, capfd
):
    """`cosyedge reload` (systemd's ExecReload; run in this process): an alert for a template
    added by the reload, sent the instant it returns, is spoken; a broken file fails it and
    changes nothing."""
    daemon = make_daemon(config_text(broker.port, tmp_path))
    reload = ["reload", "--config", str(daemon.config), "--pid", str(daemon.process.pid)]
    report = Listener(broker.port, "cosyedge/report")
    for n in range(3):  # each time a template the running daemon has never had
        extra = f'  - {{topic: "plant/new{n}", text: "New template {n}: {{text}}"}}\n'
        daemon.config.write_text(config_text(broker.port, tmp_path, extra=extra))
        done = cosyedge_here(capfd, *reload)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("cosyedge reload: applied"), done.stdout
        publish(broker.port, f"plant/new{n}", json.dumps({"text": "go", "id": f"new-{n}"}))
        daemon.wait_for_log(rf"spoke alert new-{n} .* text='New template {n}: go'")
    assert not [r for r in report.on("cosyedge/report") if r["outcome"] == "rejected"]

    daemon.config.write_text("mqtt:\n  port: seventy\n")
    done = cosyedge_here(capfd, *reload)
    assert done.returncode == 2 and "mqtt.port: expected an integer" in done.stderr
    assert daemon.log().count("configuration reloaded from") == 3  # not signalled at all
    report.close()


@pytest.mark.system
def test_reload_of_a_process_that_is_gone_fails_with_the_reason(tmp_path, capfd):
    config = tmp_path / "c.yaml"
    config.write_text(f"state_dir: {tmp_path / 'state'}\n")
    gone = subprocess.Popen(["true"])
    gone.wait()
    done = cosyedge_here(capfd, "reload", "--config", str(config), "--pid", str(gone.pid))
    assert done.returncode == 1 and f"cannot signal process {gone.pid}" in done.stderr


def test_a_routine_stop_right_after_an_outcome_warns_of_nothing_and_leaves_no_report_to_send_again(
    broker, make_daemon, notify_socket, tmp_path
):
    """Stopped the instant its last report went out, the daemon waits for the broker's
    acknowledgement: the next start sends no report a second time. And `journalctl -p
    warning` after the stop shows no lost connection: the disconnect is ours."""
    daemon = make_daemon(config_text(broker.port, tmp_path), env=notify_socket.env())
    report = Listener(broker.port, "cosyedge/report")
    for n in range(3):
        publish(broker.port, "cosyedge/say", json.dumps({"text": f"Short {n}.", "id": f"s-{n}"}))
    report.wait_for("cosyedge/report", lambda r: len(r) == 3, what="three reports")
    sigterm_and_wait(daemon, notify_socket)
    report.close()
    assert unsent_seqs(tmp_path / "state") == []
    log = daemon.log()
    assert "MQTT session closed" in log
    assert not [line for line in log.splitlines() if " WARNING " in line], log
