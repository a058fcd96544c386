"""The sound device goes away and comes back: alerts wait for it, nothing restarts."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest
from support import publish, wait_until


class SwappableSink:
    """ALSA's default device as a `file` PCM under a config file the test can break."""

    def __init__(self, directory: Path) -> None:
        self.out = directory / "out"
        self.out.mkdir(parents=True)
        self.conf = directory / "asoundrc"
        self.good = (
            'pcm.!default {\n  type file\n  slave.pcm "null"\n'
            f'  file "{self.out}/play.raw"\n  format "raw"\n  truncate false\n}}\n'
        )
        self._write(self.good)
        self.env = {"ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{self.conf}"}

    def _write(self, text: str) -> None:
        # A new file, not an edit in place: alsa-lib notices a changed config by inode and mtime.
        tmp = self.conf.with_suffix(".tmp")
        tmp.write_text(text)
        os.replace(tmp, self.conf)

    def break_it(self, how: str) -> None:
        if how == "card unplugged":
            self._write("pcm.!default { type hw card 63 }\n")  # no such card
        else:  # the file PCM cannot create its output
            self.out.rename(self.out.with_name("out.gone"))

    def restore(self, how: str) -> None:
        if how == "card unplugged":
            self._write(self.good)
        else:
            self.out.with_name("out.gone").rename(self.out)

    def streams(self) -> list[np.ndarray]:
        files = sorted(self.out.glob("play.raw*"), key=lambda p: p.stat().st_mtime_ns)
        return [np.frombuffer(p.read_bytes(), dtype="<i2") for p in files]


@pytest.mark.parametrize("how", ["card unplugged", "output path gone"])
def test_alerts_wait_for_the_device_and_play_when_it_returns(
    how, broker, make_daemon, notify_socket, tmp_path
):
    sink = SwappableSink(tmp_path / "sound")
    config = f"""
mqtt:
  port: {broker.port}
  local_broker: false
cache:
  dir: {tmp_path}/cache
state_dir: {tmp_path}/state
templates:
  - topic: "cosyedge/{{priority}}"
    text: "{{text}}"
"""
    daemon = make_daemon(config, env={**sink.env, **notify_socket.env()})
    pid = daemon.process.pid
    publish(broker.port, "cosyedge/low", json.dumps({"text": "Sound check.", "id": "before"}))
    daemon.wait_for_log(r"spoke alert before ")
    assert len(sink.streams()) == 1

    sink.break_it(how)
    since = time.monotonic()
    publish(broker.port, "cosyedge/say", json.dumps({"text": "Door four is open.", "id": "d-1"}))
    daemon.wait_for_log(r"audio output device unavailable \(.+\): alerts stay queued")
    publish(
        broker.port,
        "cosyedge/say",
        json.dumps({"text": "Gas alarm in hall two.", "id": "d-2", "priority": "critical"}),
    )
    notify_socket.wait_for("STATUS", r"audio: unavailable for \d+ s", since=since)
    notify_socket.wait_for("STATUS", r"queue: 2;", since=since, timeout=10)
    time.sleep(3)  # several retries, all failing
    assert "spoke alert d-" not in daemon.log()

    sink.restore(how)
    daemon.wait_for_log(r"audio output device is back after \d+ s", timeout=20)
    daemon.wait_for_log(r"spoke alert d-1 ", timeout=30)
    log = daemon.log()
    assert log.index("spoke alert d-2 ") < log.index("spoke alert d-1 ")  # most urgent first
    # Three streams in all: nothing was opened, even in part, while the device was away.
    streams = wait_until(lambda: len(sink.streams()) == 3 and sink.streams(), 5, "3 streams")
    assert all(len(s) > 0.8 * 22050 and np.abs(s.astype(np.float32)).mean() > 300 for s in streams)
    notify_socket.wait_for("STATUS", r"audio: ok; queue: 0;", since=since, timeout=5)
    assert daemon.process.pid == pid and daemon.alive()
    assert log.count("audio output device unavailable") == 1  # said once, not per retry
