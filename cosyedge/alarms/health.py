"""The daemon's own faults: what has stopped or is failing, and since when.

Each stage that can fail without stopping the daemon (the journal's disk, the broker session,
report publishing, the announcer) names its fault here while it lasts and clears it when it
is over. The status is `degraded` while any fault is active, never `online`; every start and
end of a fault goes to `on_change`, which tells the broker, the log and systemd.

One entry is no trouble but a phase: `starting`, held from the process's start until the
voices are loaded and the broker has the subscriptions. It is in the same set so that every
rendering (STATUS, the retained status, /healthz, /metrics) says the daemon is not yet well
from the one source; `state_of` names it `starting` rather than `degraded`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping

from cosyedge.observe import Fault

log = logging.getLogger(__name__)

# While a fault lasts, a new reason (a count that grows, another filter named) is told at most
# this often: kept in the status at once, but not an event, a report and a log line each time.
RETELL_S = 60.0
STARTING = "starting"  # the phase before the daemon can speak: no trouble, not yet well


def state_of(faults: Mapping[str, str]) -> str:
    """The status's `state` for a fault set: `degraded` while a fault other than `starting`
    lasts, `starting` while only that phase does, else `online`."""
    if faults.keys() - {STARTING}:
        return "degraded"
    return STARTING if faults else "online"


Change = Callable[[str, Fault | None], None]  # (name, the fault, or None once it cleared)


class Health:
    def __init__(self, on_change: Change | None = None) -> None:
        self.on_change = on_change
        self._lock = threading.Lock()
        self._faults: dict[str, Fault] = {}

    def fault(self, name: str, reason: str) -> None:
        """`name` is failing for `reason`: told when it starts, and when its reason changes
        at most every RETELL_S while it lasts (the status has the newest reason at once)."""
        now = time.monotonic()
        with self._lock:
            old = self._faults.get(name)
            if old is not None and old.reason == reason:
                return
            quiet = old is not None and now - old.told < RETELL_S
            since, told = (old.since, old.told) if old is not None else (time.time(), now)
            fault = self._faults[name] = Fault(name, reason, since, told if quiet else now)
        if quiet:  # the status has it at its next tick; the log says it in passing
            log.info("fault: %s: %s", name, reason)
            return
        log.log(logging.INFO if name == STARTING else logging.ERROR, "fault: %s: %s", name, reason)
        self._changed(name, fault)

    def clear(self, name: str) -> None:
        with self._lock:
            fault = self._faults.pop(name, None)
        if fault is not None:
            lasted = time.time() - fault.since
            level = logging.INFO if name == STARTING else logging.WARNING
            log.log(level, "fault cleared: %s (lasted %.0f s)", name, lasted)
            self._changed(name, None)

    def set(self, name: str, reason: str | None) -> None:
        """`fault` with a reason, `clear` with None: for callbacks that report both."""
        if reason is None:
            self.clear(name)
        else:
            self.fault(name, reason)

    def faults(self) -> dict[str, str]:
        with self._lock:
            return {name: f.reason for name, f in sorted(self._faults.items())}

    def describe(self) -> str:
        """One line for sd_notify STATUS: empty while all is well."""
        faults = self.faults()
        return "; ".join(f"{name}: {reason}" for name, reason in faults.items())

    def _changed(self, name: str, fault: Fault | None) -> None:
        if self.on_change is None:
            return
        try:
            self.on_change(name, fault)
        except Exception:  # telling about a fault must never become a second one
            log.exception("cannot report the change of fault %s", name)
