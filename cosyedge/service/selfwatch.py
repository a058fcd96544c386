"""The alarm system watching itself: a canary through the broker, its fault phrases, restarts.

An annunciator that stopped hearing looks exactly like a quiet plant, so the daemon proves
its own intake: every `monitor.canary_interval_s` it publishes a canary to itself through
the broker (QoS 1, not retained, on `monitor.canary_topic/<client id>`), which must come back
through the same session and message handler as the alerts. No canary for
`monitor.canary_timeout_s` is the fault `intake`: the broker no longer delivers to us
(in-flight window full, ACL changed, subscription lost, session taken by another client).

Each fault is said with a fault tone and a short phrase rendered at start and held in
memory, so it is heard even when synthesis or the disk is what failed.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from cosyedge.model import Heartbeat

log = logging.getLogger(__name__)

# Shown in the status, not said: near the memory ceiling alerts are still heard, without a
# sound device nothing can be said (once it is back, the fault is over), and the alarm
# history is a record for later reviews, not part of the alarm path.
QUIET_FAULTS = frozenset({"memory", "audio", "history"})
RESTART_WINDOW_S = 3600.0
MONITOR_GAP_S = 5.0  # the monitor ticks every 0.5 s: a longer pause means all were stopped


class Canary:
    """Publishes a canary now and then and says whether one came back in time."""

    def __init__(
        self,
        topic: str,
        interval_s: float,
        timeout_s: float,
        publish: Callable[[str, str], object],
    ) -> None:
        self.topic, self.interval_s, self.timeout_s = topic, interval_s, timeout_s
        self._publish = publish
        self._heard = time.monotonic()  # a grace period from start
        self._next = 0.0
        self._count = 0

    def tick(self, now: float) -> str | None:
        """Publish if due; the fault while no canary came back within the timeout."""
        if not self.interval_s:
            return None
        if now >= self._next:
            self._next = now + self.interval_s
            self._count += 1
            try:
                self._publish(self.topic, json.dumps({"canary": self._count}))
            except Exception as exc:  # the reports fault says why; the timeout says the rest
                log.debug("canary not published: %s", exc)
        if now - self._heard > self.timeout_s:
            return f"no message through the broker for over {self.timeout_s:g} s"
        return None

    def heard(self) -> None:
        """A canary came back (on paho's network thread)."""
        self._heard = time.monotonic()


class StuckWatch:
    """Which busy stages made no progress for `stuck_s` of time the process was running.

    A heartbeat's silence counts only since the monitor last saw its own clock jump (more
    than MONITOR_GAP_S between two checks): the whole process stopped (SIGSTOP, a suspended
    machine) or starved stops every stage alike, so a silence across it is no stage's fault.
    A stage resting (waiting for work) is never stuck (`Heartbeat.silent_for`)."""

    def __init__(self) -> None:
        self._checked: float | None = None
        self._resumed = float("-inf")  # monotonic: the end of the last gap seen

    def check(self, beats: Iterable[Heartbeat], stuck_s: float, now: float) -> dict[str, bool]:
        """`<name>-stuck` of each heartbeat: whether it is busy without progress."""
        self._note_gap(now)
        running = now - self._resumed
        return {f"{b.name}-stuck": min(b.silent_for(now), running) > stuck_s for b in beats}

    def _note_gap(self, now: float) -> None:
        if self._checked is not None and now - self._checked > MONITOR_GAP_S:
            log.warning(
                "monitor: %.0f s between two checks (the process was stopped or starved); "
                "silence before it is not counted as stuck",
                now - self._checked,
            )
            self._resumed = now
        self._checked = now


def count_restarts(path: Path) -> int:
    """Record this start in `path` and return how many other starts the last hour saw;
    the file is rewritten small, and a failure to read or write it counts as none."""
    now = time.time()
    try:
        starts = [float(x) for x in path.read_text().split()]
    except (OSError, ValueError):
        starts = []
    starts = [t for t in starts if now - t < RESTART_WINDOW_S] + [now]
    try:
        path.write_text("\n".join(f"{t:.3f}" for t in starts) + "\n")
    except OSError as exc:
        log.warning("cannot record this start in %s: %s", path, exc)
    return len(starts) - 1
