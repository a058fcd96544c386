"""A real systemd 252 as PID 1 in namespaces (`systemd-box`), with the host's package database,
for installing the .deb and running the unit as a gateway would."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path

from support import REPO

BOX_SCRIPTS = (REPO.parent / "shared/tools/systemd-box", Path("/work/shared/tools/systemd-box"))

# ALSA's default device in the box: no sound card there, so every stream the service opens is
# written to a file under its own state directory (the only place the unit lets it write).
ASOUND_CONF = (
    'pcm.!default {\n  type file\n  slave.pcm "null"\n'
    '  file "/var/lib/cosyedge/play.raw"\n  format "raw"\n  truncate false\n}\n'
)


def box_script() -> Path | None:
    """The systemd-box launcher beside this checkout, if this machine has one."""
    return next((p for p in BOX_SCRIPTS if p.is_file()), None)


class Box:
    """One booted box in `directory`; `run` executes a command inside it."""

    def __init__(self, script: Path, directory: Path) -> None:
        self.script = script
        # The box's own commands read its /etc/cosyedge as a gateway's do (conftest.py).
        host = {k: v for k, v in os.environ.items() if k != "COSYEDGE_CONFIG"}
        self.env = {**host, "SYSBOX_DIR": str(directory)}
        self.directory = directory
        self.deb = ""  # the package copied in, as a path inside the box

    def _launch(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", str(self.script), *args],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=timeout,
        )

    def up(self) -> subprocess.CompletedProcess[str]:
        return self._launch("up")

    def down(self) -> None:
        """Powers the box off and deletes it; the host keeps nothing of it."""
        self._launch("purge")

    def run(self, *command: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return self._launch("run", *command, timeout=timeout)

    def sh(self, script: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """A shell command line inside the box; raises when it fails."""
        done = self.run("sh", "-c", script, timeout=timeout)
        if done.returncode != 0:
            raise AssertionError(f"in the box, {script!r} failed: {done.stdout}{done.stderr}")
        return done

    def copy(self, source: Path, destination: str) -> None:
        done = self._launch("copy", str(source), destination)
        assert done.returncode == 0, done.stderr

    def write(self, path: str, text: str) -> None:
        """Writes a file inside the box (through a pipe: the box has its own /etc and /var)."""
        done = subprocess.run(
            ["bash", str(self.script), "run", "sh", "-c", 'cat > "$1"', "sh", path],
            input=text,
            capture_output=True,
            text=True,
            env=self.env,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr

    def read(self, path: str) -> str:
        return self.sh(f"cat {path}").stdout

    def show(self, unit: str, prop: str) -> str:
        """One property of a unit, as `systemctl show` gives it."""
        return self.sh(f"systemctl show -P {prop} {unit}").stdout.strip()

    def main_process(self, unit: str) -> tuple[str, str]:
        """The unit's MainPID and ActiveState, read together: one command in the box, where a
        poll reading each in turn ran two (each 30 ms of CPU, the launcher's start most of it)."""
        shown = self.sh(f"systemctl show -p MainPID -p ActiveState {unit}").stdout
        props = dict(line.split("=", 1) for line in shown.splitlines() if "=" in line)
        return props["MainPID"], props["ActiveState"]

    def running_pid(self, unit: str, timeout: float = 120) -> str:
        """The unit's main process once it is active: a test before may have left it
        restarting, when MainPID is 0, and `kill -STOP 0` inside the box would stop the
        test's own process group, the whole run with it."""

        def running() -> bool:
            pid, state = self.main_process(unit)
            return pid.isdigit() and int(pid) > 1 and state == "active"

        self.wait_until(running, f"{unit} active with a main process", timeout)
        return self.show(unit, "MainPID")

    def wait_until(self, check, what: str, timeout: float) -> float:
        """Polls `check()` every half second until true; returns the seconds it took (to the
        half second), fails naming `what`. Each check runs commands in the box: polled every
        0.2 s, the 37 s of the watchdog's restart cost 5 s of CPU."""
        started = time.monotonic()
        while not check():
            if time.monotonic() - started > timeout:
                raise AssertionError(f"box: {what} not within {timeout:.0f} s")
            time.sleep(0.5)
        return time.monotonic() - started

    def publish(self, topic: str, payload: dict) -> None:
        self.sh(f"mosquitto_pub -q 1 -t '{topic}' -m '{json.dumps(payload)}'")


class Subscription:
    """`mosquitto_sub` inside the box on one topic; every JSON message it receives, in order."""

    PROBE = "cosyedge-test/probe"

    def __init__(self, box: Box, topic: str) -> None:
        command = ["bash", str(box.script), "run", "mosquitto_sub", "-q", "1", "-t", topic]
        self.process = subprocess.Popen(
            [*command, "-t", self.PROBE],
            stdout=subprocess.PIPE,
            text=True,
            env=box.env,
            start_new_session=True,
        )
        self.messages: queue.Queue[dict] = queue.Queue()
        self.seen: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()
        self._wait_subscribed(box)

    def _wait_subscribed(self, box: Box) -> None:
        """Probes until one comes back: from then on nothing published is missed."""
        for n in range(100):
            box.publish(self.PROBE, {"probe": n})
            try:
                self.until(lambda m: "probe" in m, timeout=1)
                return
            except AssertionError:
                continue
        raise AssertionError("mosquitto_sub in the box never subscribed")

    def _read(self) -> None:
        for line in self.process.stdout:
            self.messages.put(json.loads(line))

    def until(self, match, timeout: float = 60) -> dict:
        """The first message (seen before or arriving) for which `match` is true."""
        deadline = time.monotonic() + timeout
        while True:
            found = next((m for m in self.seen if match(m)), None)
            if found is not None:
                return found
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no matching message within {timeout} s: {self.seen}")
            try:
                self.seen.append(self.messages.get(timeout=left))
            except queue.Empty:
                continue

    def close(self) -> None:
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=10)
