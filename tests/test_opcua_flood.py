"""A flood of OPC UA conditions (a PLC's alarms after a power failure) against asyncua's own
server: a few hundred conditions are handled and their state kept in one write per burst, not
one each (the figure is printed; docs/measurements.md has the full-size one), and a kill -9 in
the middle of a burst loses none and says none twice."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from opcua_support import asyncua_server
from support import Listener, free_port, site_yaml, wait_until

pytestmark = pytest.mark.system

COUNT = 150  # the old per-event writes: about 84 x the state at this count, 168 x at 300
# The flood the kill cuts into: each of its alarms is said on its own after the restart,
# which is most of what the test costs.
KILLED_COUNT = 50


def config(broker_port: int, tmp: Path, port: int) -> str:
    return f"""{site_yaml(broker_port, tmp)}sources:
  - opcua:
      endpoint: opc.tcp://127.0.0.1:{port}/test
      name: tank
      security: {{policy: None, mode: None}}
      reconnect_max_s: 2
"""


def kept(path: Path, severity: int) -> dict[str, dict]:
    """The flood's conditions the state file holds at `severity`."""
    try:
        conditions = json.loads(path.read_text())["conditions"]
    except (OSError, ValueError):
        return {}
    return {c: k for c, k in conditions.items() if "Flood" in c and k["severity"] == severity}


def bytes_written(pid: int) -> int:
    """What a process has written so far (files, sockets, pipes: /proc/<pid>/io `wchar`)."""
    io = Path(f"/proc/{pid}/io").read_text()
    return int(re.search(r"^wchar: (\d+)", io, re.M).group(1))  # type: ignore[union-attr]


def test_a_flood_of_conditions_is_kept_in_bursts_and_survives_a_kill(
    broker, alsa_sink, make_daemon, tmp_path
):
    port = free_port()
    server = asyncua_server(port, None, tmp_path / "server.log")
    listener = Listener(broker.port, "cosyedge/report")
    state = tmp_path / "state" / "opcua" / "tank.json"
    try:
        daemon = make_daemon(config(broker.port, tmp_path, port))
        daemon.wait_for_log(r"OPC UA tank: subscribed at")
        sent, written = time.monotonic(), bytes_written(daemon.process.pid)
        server.do(do="flood", count=COUNT, severity=700)
        wait_until(lambda: len(kept(state, 700)) == COUNT, 120, "the flood kept")
        took = time.monotonic() - sent
        # The daemon's writes during the flood (journal, log, reports and the state file):
        # the state rewritten whole for each event is quadratic, some hundred times the file.
        ratio = (bytes_written(daemon.process.pid) - written) / state.stat().st_size
        print(f"FLOOD {COUNT} conditions handled and kept in {took:.2f} s, {ratio:.1f} x the state")
        assert ratio < 40

        # Again at a new Severity (each a new alert), the daemon killed in the middle of it.
        # Critical, so each is said on its own (a flood summary would say none twice
        # trivially); in one message, so each is said from the phrase cache after the first
        # instead of synthesized: what is said twice is told by its alert id, not its text.
        server.do(do="flood", count=KILLED_COUNT, severity=900, message="flood alarm")
        daemon.process.kill()
        daemon.process.wait()
        daemon.start()
        wait_until(lambda: len(kept(state, 900)) == KILLED_COUNT, 120, "the second flood kept")
        ids = {k["said"] for k in kept(state, 900).values()}
        reported = lambda: {r.get("id") for r in listener.on("cosyedge/report")}  # noqa: E731
        wait_until(lambda: ids <= reported(), 180, "an outcome for each alarm of the flood")
        spoken = re.findall(r"spoke alert (\S+) ", daemon.log())
        assert len(spoken) == len(set(spoken)), "an alarm said twice"
    finally:
        listener.close()
        server.kill()
