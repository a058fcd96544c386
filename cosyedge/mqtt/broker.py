"""A local Mosquitto for demos and gateways where no other broker is configured.

When `mqtt.local_broker` is on and nothing listens on the configured port, cosyedge starts
Mosquitto with persistence and stops it on exit; for a loopback host it binds every loopback
address (127.0.0.1 and ::1), so no other broker can take one of them later. If a broker
already listens on the configured host, it is used as it is. If one listens on another
loopback address only, cosyedge refuses to start: clients that connect to `localhost` would
reach that broker, be acknowledged, and cosyedge would never hear their alerts.
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cosyedge.observe import Observer

if TYPE_CHECKING:
    from cosyedge.config.schema import Config

log = logging.getLogger(__name__)


LOOPBACK = ("127.0.0.1", "::1")
PERSISTENCE = "the local broker's persistence"  # as the fault `state` names it


def is_listening(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def local_broker(
    config: Config, observer: Observer, refused: Callable[[str, str], None]
) -> LocalBroker | None:
    """The loopback Mosquitto, when configured and started. One that cannot start (not
    installed, another broker on a loopback address) is told to `refused` as the fault
    `local-broker`, said aloud, while the session keeps trying host:port: never a silent
    exit."""
    mqtt = config.mqtt
    if not mqtt.local_broker:
        return None
    broker = LocalBroker(mqtt.host, mqtt.port, config.state_dir / "mosquitto", observer)
    try:
        broker.start()
    except (RuntimeError, OSError) as exc:
        log.error("local broker: %s", exc)
        refused("local-broker", str(exc))
        return None
    return broker


class LocalBroker:
    def __init__(
        self, host: str, port: int, state_dir: Path, observer: Observer | None = None
    ) -> None:
        """`state_dir`: where Mosquitto keeps its persistence; `observer` is told when it
        cannot (a read-only or missing disk), and Mosquitto then runs without."""
        self.host, self.port, self.state_dir = host, port, state_dir
        self.observer = observer or Observer()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start Mosquitto unless a broker listens on host:port; RuntimeError when it cannot,
        or when another broker holds a loopback address the configured host is not."""
        if is_listening(self.host, self.port):
            log.info("an MQTT broker already listens on %s:%d; using it", self.host, self.port)
            return
        addresses = self._addresses()
        taken = [a for a in addresses if a != self.host and is_listening(a, self.port)]
        if taken:
            where = ", ".join(_shown(a, self.port) for a in taken)
            raise RuntimeError(
                f"another MQTT broker listens on {where} but not on "
                f"{_shown(self.host, self.port)}: clients connecting to localhost would reach "
                "it and cosyedge would never hear their alerts; stop that broker, or set "
                "mqtt.local_broker: false and point mqtt.host at it"
            )
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not Path(exe).exists():
            raise RuntimeError(
                "mqtt.local_broker is on but mosquitto is not installed "
                "(apt-get install mosquitto), and no broker listens on "
                f"{self.host}:{self.port}"
            )
        conf = Path(tempfile.mkstemp(prefix="cosyedge-mosquitto-", suffix=".conf")[1])
        try:  # read at Mosquitto's start only: removed once it listens, or failed
            conf.write_text(self._conf(addresses))
            shown = ", ".join(_shown(a, self.port) for a in addresses)
            log.info("starting local Mosquitto on %s", shown)
            self.process = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL)
            self._wait_listening()
        finally:
            conf.unlink(missing_ok=True)

    def _conf(self, addresses: list[str]) -> str:
        lines = [f"listener {self.port} {a}" for a in addresses]
        lines += ["allow_anonymous true", "log_dest stderr", "log_type error"]
        lines += [*self._persistence(), "max_queued_messages 100000"]
        return "\n".join([*lines, "user root"] if _is_root() else lines) + "\n"

    def _persistence(self) -> list[str]:
        """Mosquitto's persistence: saved after every change in `state_dir`, or, where that
        cannot be written (told), none: the broker then queues in memory only."""
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True)
            if not os.access(self.state_dir, os.W_OK):
                raise OSError(errno.EACCES, "not writable")
        except OSError as exc:
            log.error("local Mosquitto: cannot persist in %s (%s)", self.state_dir, exc)
            self.observer.unkept(PERSISTENCE, exc.strerror or str(exc))
            return ["persistence false"]
        self.observer.unkept(PERSISTENCE, None)
        return [
            "persistence true",
            f"persistence_location {self.state_dir}/",
            "autosave_on_changes true",
            "autosave_interval 1",
        ]

    def _wait_listening(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + 5
        while not is_listening(self.host, self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"local Mosquitto did not start on {self.host}:{self.port}")
            time.sleep(0.02)

    def _addresses(self) -> list[str]:
        """Where our own broker listens: every loopback address for a loopback host."""
        if self.host not in (*LOOPBACK, "localhost"):
            return [self.host]
        return [a for a in LOOPBACK if _can_bind(a)]

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()


def _can_bind(address: str) -> bool:
    """False for ::1 on a host without IPv6, where Mosquitto would fail to start."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.bind((address, 0))
    except OSError:
        return False
    return True


def _shown(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def _is_root() -> bool:
    return os.geteuid() == 0
