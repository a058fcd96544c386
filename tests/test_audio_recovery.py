"""The sound device goes away and comes back: alerts wait for it, nothing restarts."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from support import SwappableSink, publish, wait_until


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
