"""Reloads that change what the connection to the broker is made of, on the real daemon, real
Mosquittos and `cosyedge reload`: a rotated password file is a new connection, a broker that
refuses the credentials is never told as subscribed, and a gateway moved to another broker
leaves `offline` on the old one. And `cosyedge reload` where the daemon can keep no answer
(a full state_dir), or pointed at a process that is no cosyedge daemon."""

from __future__ import annotations

import json
import subprocess
import sys

from support import Broker, Daemon, Listener, fill, publish, site_yaml

SAY = 'templates:\n  - topic: cosyedge/say\n    text: "{text}"\n'
QUICK = "  reconnect_min_s: 1\n  reconnect_max_s: 2\n"


def reload(daemon) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "cosyedge", "reload", "--config", str(daemon.config)]
    command += ["--pid", str(daemon.process.pid)]
    return subprocess.run(command, capture_output=True, text=True, env=daemon.env, timeout=120)


def with_password(broker: Broker, user: str, password: str) -> None:
    """`broker` takes `user` only with `password` (anonymous clients, the tests', still in):
    restarted on it, as an operator rotating the password does."""
    passwords = broker.directory / "passwords"
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(passwords), user, password], check=True)
    conf = broker.conf.read_text()
    if "password_file" not in conf:
        broker.conf.write_text(conf + f"password_file {passwords}\n")
    broker.stop()
    broker.start()


def test_a_rotated_password_is_taken_by_a_reload_and_a_refused_one_never_told_subscribed(
    broker, make_daemon, tmp_path
):
    """The broker's password changes and it restarts: the daemon, refused, is not subscribed,
    so a reload says so (exit 3), not "applied" (0); the new password written into the
    password file is taken by the next reload (a new connection), which is subscribed."""
    secret = tmp_path / "pw"
    secret.write_text("old\n")
    secret.chmod(0o600)
    with_password(broker, "u", "old")
    mqtt = f"  username: u\n  password_file: {secret}\n{QUICK}"
    text = site_yaml(broker.port, tmp_path).replace(
        "  local_broker: false\n", f"  local_broker: false\n{mqtt}"
    )
    daemon = make_daemon(text + SAY)
    daemon.wait_for_log(r"INFO cosyedge.daemon: ready")  # reloads are taken from then on

    with_password(broker, "u", "new")
    daemon.wait_for_log(r"MQTT broker refused the connection: Not authorized")
    done = reload(daemon)
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert "not acknowledged" in done.stderr, done.stderr

    secret.write_text("new\n")
    done = reload(daemon)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert done.stdout.startswith("cosyedge reload: applied"), done.stdout
    publish(broker.port, "cosyedge/say", json.dumps({"text": "rotated", "id": "r-1"}))
    daemon.wait_for_log(r"spoke alert r-1 ")


def retained_status(port: int) -> object:
    """What a client subscribing now to the status topic of the broker at `port` is given."""
    listener = Listener(port, "cosyedge/status")
    try:
        status = listener.wait_for("cosyedge/status", lambda s: True, timeout=10)[
            0
        ]  # retained first
        return status
    finally:
        listener.close()


def test_a_gateway_moved_to_another_broker_leaves_offline_on_the_old_one(
    broker, make_daemon, tmp_path
):
    """Reloaded onto a second broker, the daemon says `offline` (retained) on the first
    before it closes that connection; so it stays once the daemon stops."""
    other = Broker(tmp_path / "other").start()
    try:
        daemon = make_daemon(site_yaml(broker.port, tmp_path) + SAY)
        daemon.wait_for_log(r"INFO cosyedge.daemon: ready")
        status = retained_status(broker.port)
        assert status["state"] != "offline"
        run = status["run"]  # this start's: in its statuses and its offline alike
        daemon.config.write_text(site_yaml(other.port, tmp_path) + SAY)
        done = reload(daemon)
        assert done.returncode == 0, (done.stdout, done.stderr)
        assert retained_status(broker.port) == {"state": "offline", "run": run}
        daemon.stop()
        assert retained_status(broker.port) == {"state": "offline", "run": run}
        assert retained_status(other.port)["state"] == "offline"
    finally:
        other.stop()


def test_a_reload_where_the_daemon_can_keep_no_answer_is_sent_and_says_so(
    broker, tiny_fs, tmp_path, alsa_sink
):
    """state_dir on a full disk: the daemon runs the very file named (its command line says
    so), so it is signalled and takes the file over, and the command says at once that no
    answer can be read (exit 5) instead of refusing (4) or waiting for one (1)."""
    fill(tiny_fs, 4096)
    base = (
        f"mqtt:\n  port: {broker.port}\n  local_broker: false\n"
        f"cache:\n  dir: {tiny_fs}/cache\nstate_dir: {tiny_fs}/state\n"
    )
    daemon = Daemon(tmp_path / "daemon", base + SAY, dict(alsa_sink.env)).start()
    try:
        daemon.wait_for_log(r"INFO cosyedge.daemon: ready")
        plant = 'templates:\n  - topic: "plant/{line}/temperature"\n    text: "Plant {line}."\n'
        daemon.config.write_text(base + plant)
        done = reload(daemon)
        assert done.returncode == 5, (done.stdout, done.stderr)
        assert "signalled, but" in done.stderr and "read-only or full" in done.stderr, done.stderr
        daemon.wait_for_log(r"configuration reloaded from ")
        daemon.wait_for_log(r"subscribed to \d+ topic filters", count=2)
        publish(broker.port, "plant/3/temperature", json.dumps({"value": 1, "id": "p-3"}))
        daemon.wait_for_log(r"spoke alert p-3 .* text='Plant 3.'", timeout=60)
    finally:
        daemon.stop()


def test_a_reload_of_a_process_that_is_no_cosyedge_daemon_says_so(tmp_path):
    config = tmp_path / "site.yaml"
    config.write_text(f"state_dir: {tmp_path}/state\n")
    other = subprocess.Popen(["sleep", "60"])
    try:
        command = [sys.executable, "-m", "cosyedge", "reload", "--config", str(config)]
        done = subprocess.run([*command, "--pid", str(other.pid)], capture_output=True, text=True)
        assert done.returncode == 4, (done.stdout, done.stderr)
        assert f"process {other.pid} is not a cosyedge daemon" in done.stderr, done.stderr
        assert other.poll() is None  # not signalled
    finally:
        other.kill()
        other.wait()
