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
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

# Shown in the status, not said: near the memory ceiling alerts are still heard, without a
# sound device nothing can be said (once it is back, the fault is over), and the alarm
# history is a record for later reviews, not part of the alarm path.
QUIET_FAULTS = frozenset({"memory", "audio", "history"})
RESTART_WINDOW_S = 3600.0


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
