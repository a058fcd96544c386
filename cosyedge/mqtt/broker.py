"""A local Mosquitto for gateways (and demos) where no site broker is configured.

When `mqtt.local_broker` is on and nothing listens on the configured port, cosyedge starts
Mosquitto bound to loopback with persistence, and stops it on exit. If a broker already
listens there, it is used as it is.
"""

from __future__ import annotations

import logging
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

log = logging.getLogger(__name__)


def is_listening(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


class LocalBroker:
    def __init__(self, host: str, port: int, state_dir: Path) -> None:
        self.host, self.port, self.state_dir = host, port, state_dir
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        if is_listening(self.host, self.port):
            log.info("an MQTT broker already listens on %s:%d; using it", self.host, self.port)
            return
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not Path(exe).exists():
            raise RuntimeError(
                "mqtt.local_broker is on but mosquitto is not installed "
                "(apt-get install mosquitto), and no broker listens on "
                f"{self.host}:{self.port}"
            )
        self.state_dir.mkdir(parents=True, exist_ok=True)
        conf = Path(tempfile.mkstemp(prefix="cosyedge-mosquitto-", suffix=".conf")[1])
        conf.write_text(
            f"listener {self.port} {self.host}\n"
            "allow_anonymous true\n"
            "log_dest stderr\nlog_type error\n"
            "persistence true\n"
            f"persistence_location {self.state_dir}/\n"
            "autosave_on_changes true\nautosave_interval 1\n"
            "max_queued_messages 100000\n" + ("user root\n" if _is_root() else "")
        )
        log.info("starting local Mosquitto on %s:%d", self.host, self.port)
        self.process = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while not is_listening(self.host, self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"local Mosquitto did not start on {self.host}:{self.port}")
            time.sleep(0.02)
        conf.unlink()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()


def _is_root() -> bool:
    import os

    return os.geteuid() == 0
