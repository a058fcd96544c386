"""`cosyedge withdraw`: take back what the daemon keeps retained on the broker.

The daemon leaves two kinds of retained message there, on purpose, for as long as it serves:
Home Assistant's discovery configs (homeassistant/discovery.py), which make the gateway a
device, and its status, whose Last Will says `offline`. Once the gateway is taken out of
service they would outlive it, and Home Assistant would keep a device that never comes back.
This empties each one (an empty retained message removes a retained message, MQTT 3.1.1
§3.3.1.3), once the daemon has stopped: a running daemon would publish them again at its next
connection. The package's prerm runs it when the package is removed.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import paho.mqtt.client as mqtt

from cosyedge.config.mqtt import MqttConfig
from cosyedge.config.schema import Config
from cosyedge.homeassistant.discovery import STATE_FILE, remembered_topics, wanted
from cosyedge.mqtt.session import new_client

log = logging.getLogger(__name__)

TIMEOUT_S = 10.0  # to connect, and again for the broker to acknowledge every removal


@dataclass
class Withdrawal:
    """The retained topics to empty, and those the broker acknowledged emptied."""

    discovery: list[str]
    status: str
    done: set[str] = field(default_factory=set)

    @property
    def topics(self) -> list[str]:
        return [*self.discovery, self.status]


def withdraw(config: Config) -> int:
    """Empties the gateway's retained messages; exit status 0 when the broker acknowledged
    every one, 1 (said on stderr) when the daemon still runs or the broker cannot be had."""
    if daemon_running(config.state_dir):
        print(
            f"cosyedge withdraw: a daemon is running on {config.state_dir} and would publish "
            "them again: stop it first (systemctl stop cosyedge)",
            file=sys.stderr,
        )
        return 1
    topics = sorted(remembered_topics(config) | wanted(config).keys())
    withdrawal = Withdrawal(topics, config.reports.status_topic)
    problem = _empty(config.mqtt, withdrawal)
    where = f"{config.mqtt.host}:{config.mqtt.port}"
    if problem is not None:
        print(f"cosyedge withdraw: {where}: {problem}: nothing withdrawn", file=sys.stderr)
        return 1
    if set(withdrawal.discovery) <= withdrawal.done:  # none of them is left to remember
        with contextlib.suppress(OSError):  # remembered, a start only empties them again
            (config.state_dir / STATE_FILE).unlink(missing_ok=True)
    return _said(withdrawal, where)


def _said(withdrawal: Withdrawal, where: str) -> int:
    left = [t for t in withdrawal.topics if t not in withdrawal.done]
    configs = len(set(withdrawal.discovery) & withdrawal.done)
    print(
        f"withdrew from {where}: {configs} Home Assistant discovery configs"
        f"{'' if withdrawal.status in left else ' and the status'}"
    )
    if left:
        print(f"cosyedge withdraw: not acknowledged: {', '.join(left)}", file=sys.stderr)
    return 1 if left else 0


def daemon_running(state_dir: Path) -> bool:
    """Whether a daemon holds `state_dir`: it keeps the lock of its journal (journal/store.py)
    for as long as it runs."""
    try:
        fd = os.open(state_dir / "journal.lock", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:  # no lock file: no daemon ever ran there
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _empty(config: MqttConfig, withdrawal: Withdrawal) -> str | None:
    """Publishes an empty retained message on each topic, QoS 1, and records in
    `withdrawal.done` those acknowledged; the reason when the broker cannot be had."""
    client = _client(config)
    answer: list[str] = []
    answered = threading.Event()

    def connected(client, userdata, flags, reason_code, properties) -> None:
        answer.append("" if not reason_code.is_failure else f"refused: {reason_code}")
        answered.set()

    client.on_connect = connected
    try:
        client.connect(config.host, config.port, config.keepalive_s)
    except OSError as exc:
        return f"cannot reach the broker ({exc.strerror or exc})"
    client.loop_start()
    try:
        if not answered.wait(TIMEOUT_S):
            return f"no answer from the broker in {TIMEOUT_S:g} s"
        if answer[0]:
            return answer[0]
        _publish(client, withdrawal)
    finally:
        client.disconnect()
        client.loop_stop()
    return None


def _publish(client: mqtt.Client, withdrawal: Withdrawal) -> None:
    """All at once, then each acknowledgement waited for until one shared deadline."""
    sent = {topic: client.publish(topic, b"", qos=1, retain=True) for topic in withdrawal.topics}
    deadline = time.monotonic() + TIMEOUT_S
    for topic, info in sent.items():
        try:
            info.wait_for_publish(max(0.0, deadline - time.monotonic()))
        except (RuntimeError, ValueError) as exc:  # paho did not take it
            log.warning("cannot withdraw %s: %s", topic, exc)
        if info.is_published():
            withdrawal.done.add(topic)


def _client(config: MqttConfig) -> mqtt.Client:
    """A client of its own, with the daemon's credentials and TLS: a client id apart from
    the daemon's, and a clean session, so that the daemon's session and the alerts the broker
    keeps queued in it are left as they are."""
    client = new_client(config, f"{config.client_id}-withdraw", clean_session=True)
    client.connect_timeout = TIMEOUT_S
    return client
