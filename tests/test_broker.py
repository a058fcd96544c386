"""The embedded broker (`mqtt.local_broker`): one broker for every loopback address, never a
second one beside another that clients of `localhost` would reach instead."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from support import free_port, publish, wait_until

from cosyedge.mqtt.broker import is_listening

pytestmark = pytest.mark.system  # the daemon and Mosquitto as processes


def own_broker_config(port: int, tmp_path: Path) -> str:
    return f"""
mqtt:
  host: 127.0.0.1
  port: {port}
  local_broker: true
state_dir: {tmp_path / "state"}
cache: {{dir: {tmp_path / "cache"}}}
voices:
  en: {{engine: hibari}}
templates:
  - {{topic: cosyedge/say, text: "{{text}}"}}
"""


def test_the_own_broker_holds_both_loopback_addresses(make_daemon, tmp_path):
    port = free_port()
    daemon = make_daemon(own_broker_config(port, tmp_path))
    assert f"starting local Mosquitto on 127.0.0.1:{port}, [::1]:{port}" in daemon.log()
    # A client of localhost that lands on ::1 reaches cosyedge's broker, not another one.
    publish(port, "cosyedge/say", json.dumps({"text": "Gate one.", "id": "v6"}), host="::1")
    daemon.wait_for_log(r"spoke alert v6 ")


def test_a_broker_on_another_loopback_address_is_a_fault_said_aloud_not_an_exit(
    make_daemon, tmp_path
):
    """The local broker cannot start (another holds ::1, where localhost may lead): the
    daemon runs on with the fault `local-broker`, its reason in the log, rather than leaving
    the gateway silent in a restart loop."""
    port = free_port()
    conf = tmp_path / "other.conf"
    lines = [f"listener {port} ::1", "allow_anonymous true", "log_dest stderr"]
    conf.write_text("\n".join([*lines, *(["user root"] if os.geteuid() == 0 else [])]) + "\n")
    exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    other = subprocess.Popen([exe, "-c", str(conf)], stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: is_listening("::1", port), 10, "the other broker on ::1")
        daemon = make_daemon(own_broker_config(port, tmp_path), start=False)
        daemon.start(wait_ready=False)
        said = f"another MQTT broker listens on [::1]:{port} but not on 127.0.0.1:{port}"
        daemon.wait_for_log(r"fault: local-broker: " + re.escape(said), timeout=60)
        assert daemon.alive()
    finally:
        other.kill()
        other.wait()
