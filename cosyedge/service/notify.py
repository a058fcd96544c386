"""Talking to systemd: readiness, status lines, and a watchdog that only pets while work moves.

The notification protocol is sd_notify(3): one datagram of `KEY=value` lines to the socket
named in NOTIFY_SOCKET. Outside systemd there is no socket and every call is a no-op.

The watchdog is not a timer that pets on its own. Each worker keeps a `Heartbeat`; WATCHDOG=1
is sent only while every heartbeat is fresh, so a hung synthesis or an audio write that never
returns stops the petting and systemd restarts the service.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Iterable, MutableMapping

from cosyedge.model import Heartbeat

log = logging.getLogger(__name__)


class Notifier:
    """systemd's ear for this process: made once, for every configuration a start runs.
    It takes NOTIFY_SOCKET and the watchdog's WATCHDOG_USEC/WATCHDOG_PID from `environ`
    (children, e.g. Mosquitto, must not speak for the service), so each configuration
    the process runs in turn is watched as the first was (`watchdog_s`)."""

    def __init__(self, environ: MutableMapping[str, str] = os.environ) -> None:
        address = environ.pop("NOTIFY_SOCKET", "")
        self.watchdog_s = _watchdog_interval(environ)  # None: not watched
        self._socket: socket.socket | None = None
        self._address = "\0" + address[1:] if address.startswith("@") else address
        self._last_status = ""
        self._ready = False  # READY=1 sent: the start is over
        self._lock = threading.Lock()
        if address:
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)

    @property
    def enabled(self) -> bool:
        return self._socket is not None

    @property
    def is_ready(self) -> bool:
        """Whether READY=1 was sent: the start is over for systemd."""
        return self._ready

    def send(self, *lines: str) -> None:
        if self._socket is None:
            return
        try:
            with self._lock:
                self._socket.sendto("\n".join(lines).encode(), self._address)
        except OSError as exc:
            # The service manager went away (or never listened): say it once, then stay quiet.
            log.warning("cannot notify systemd (%s); notifications stop", exc)
            self._socket.close()
            self._socket = None

    def status(self, text: str) -> None:
        if text != self._last_status:
            self._last_status = text
            self.send(f"STATUS={text}")

    def ready(self, status: str) -> None:
        self._last_status, self._ready = status, True
        self.send("READY=1", f"STATUS={status}")

    def extend_start(self, seconds: float) -> None:
        """Before READY=1: the start is working and needs `seconds` more than systemd's
        TimeoutStartSec gives it (EXTEND_TIMEOUT_USEC, systemd 236 on); after it, nothing."""
        if not self._ready:
            self.send(f"EXTEND_TIMEOUT_USEC={int(seconds * 1e6)}")

    def reloading(self) -> None:
        """RELOADING=1, once the start is over: a reload before READY=1 is part of the
        start for systemd (Type=notify), whose READY=1 still ends it."""
        if not self._ready:
            return
        self.send(
            "RELOADING=1", f"MONOTONIC_USEC={time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000}"
        )

    def stopping(self, status: str) -> None:
        self._last_status = status
        self.send("STOPPING=1", f"STATUS={status}")


class Watchdog:
    """Pets systemd's watchdog at half its interval, but only while all heartbeats are fresh.

    A heartbeat is fresh when it moved within one whole interval: one clause of synthesis or
    one audio block never takes that long unless something hangs.
    """

    def __init__(self, notifier: Notifier, heartbeats: Iterable[Heartbeat]) -> None:
        self.notifier = notifier
        self.heartbeats = list(heartbeats)
        self.interval = notifier.watchdog_s  # the same for every configuration run
        self._next = 0.0
        self._withheld: set[str] = set()

    def tick(self, now: float | None = None) -> None:
        if self.interval is None or not self.notifier.enabled:
            return
        now = time.monotonic() if now is None else now
        if now < self._next:
            return
        self._next = now + self.interval / 2
        stuck = {h.name: h.silent_for(now) for h in self.heartbeats}
        stuck = {name: silent for name, silent in stuck.items() if silent > self.interval}
        if stuck.keys() != self._withheld:
            if stuck:
                names = ", ".join(f"{name} ({silent:.0f} s)" for name, silent in stuck.items())
                log.error("no progress from %s: withholding the watchdog", names)
            else:
                log.warning("%s moving again: watchdog resumed", ", ".join(self._withheld))
            self._withheld = set(stuck)
        if not stuck:
            self.notifier.send("WATCHDOG=1")

    @property
    def tick_seconds(self) -> float:
        """How often `tick` should be called to keep its rhythm."""
        return 0.5 if self.interval is None else min(0.5, self.interval / 4)


def _watchdog_interval(environ: MutableMapping[str, str]) -> float | None:
    usec = environ.pop("WATCHDOG_USEC", "")
    pid = environ.pop("WATCHDOG_PID", "")
    if pid and pid != str(os.getpid()):
        return None  # meant for another process
    try:
        seconds = int(usec) / 1e6
    except ValueError:
        return None
    return seconds if seconds > 0 else None
