"""One snapshot of the daemon's state, and what is shown of it.

The daemon makes a `Snapshot` in one place, from the part each stage and component gives it
(component.py `Component.state`); systemd's status line, the retained MQTT status, the HTTP
API's `/v1/status`, `/healthz` and `/metrics` (http/metrics.py) are renderings of it. What
costs more than reading a few fields (the phrase cache's totals, the ISA-18.2 figures) is in
it only when the rendering shows it (component.py `Detail`).

Whether all is well is said by one field alone, `faults` (alarms/health.py): the status is
`degraded`, `/healthz` answers 503 and STATUS begins `degraded:` exactly while it names any,
and each rendering names every fault in it. No rendering judges the daemon's health from a
field of its own (a raw connection state, a part's last error), since that field would say
otherwise than the fault set for as long as the fault's grace period (docs/operations.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cosyedge.alarms.health import STARTING, state_of
from cosyedge.alarms.kpi import Figures
from cosyedge.speech.cache.index import hit_rate


@dataclass(frozen=True)
class Alarms:
    """The ISA-18.2 figures: the last day's, from the alarm history, and what stands and is
    shelved now."""

    day: Figures  # the last 24 hours
    last_10_min: int
    last_hour: int
    complete: bool  # False: more alarms came in the last day than are held to count them
    stale: int
    shelved: int


@dataclass(frozen=True)
class Snapshot:
    """The daemon's state at one moment."""

    queue: int  # items waiting to be said, or held in their on-delay
    # The parts that need the voices give the cache's and memory's fields once they are
    # loaded; while starting they are these defaults.
    cache_entries: int | None = None  # None: the index cannot be read, or was not asked for
    cache_bytes: int | None = None
    cache_lookups: int | None = None  # since the cache was made, kept across restarts
    cache_hits: int | None = None
    rss_mb: float = 0.0
    ceiling_mb: float = 0.0
    audio_up: bool = False
    broker_connected: bool = False
    reports_unconfirmed: int = 0  # outcomes whose reports the broker has not acknowledged
    cache_evictions: int = 0  # since start
    sheds: Mapping[str, int] = field(default_factory=dict)  # the memory guard's, since start
    faults: Mapping[str, str] = field(default_factory=dict)
    alarms: Alarms | None = None  # None: not asked for, or no metrics to show them
    premium: Mapping[str, int] | None = None  # phrases premium, pending, failed; None: no tier
    status: Mapping[str, Any] = field(default_factory=dict)  # the alarm desk's, `state` first
    restarts: int = 0  # other starts within the last hour
    intake: Mapping[str, Any] = field(default_factory=dict)  # the canaries' watch
    broker: Mapping[str, Any] = field(default_factory=dict)  # the broker's drop count
    audio: str = ""  # the sound device, in words
    memory: str = ""  # the memory guard, in words
    last: str = ""  # what was spoken last, and when
    # Seconds since each provable filter's last canary came back (None: none yet); only the
    # operator page shows them, so the retained status does not change with every second.
    canaries: Mapping[str, float | None] = field(default_factory=dict)

    @property
    def starting(self) -> str:
        """What the start still waits for (the phase `starting` in the fault set); empty
        once the voices are loaded and the broker has the subscriptions."""
        return self.faults.get(STARTING, "")


def state(s: Snapshot) -> str:
    """The status's `state`: `degraded` while any fault lasts, `starting` while only that
    phase does, else `online` (health.py `state_of`)."""
    return state_of(s.faults)


def status_line(s: Snapshot) -> str:
    """systemd's STATUS: `degraded: ` and every fault first while any lasts; then what the
    start waits for, or once ready how each part does."""
    faults = "; ".join(p for p in problems(s) if not p.startswith(f"{STARTING}: "))
    degraded = f"degraded: {faults}; " if faults else ""
    if s.starting:
        return f"{degraded}starting: {s.starting}"
    mqtt = "connected" if s.broker_connected else "disconnected, reconnecting"
    parts = f"audio: {s.audio}; queue: {s.queue}; memory: {s.memory}; last: {s.last}"
    return f"{degraded}mqtt: {mqtt}; {parts}"


def status_detail(s: Snapshot) -> dict[str, Any]:
    """What the retained status adds to the desk's: the restarts, the phrase cache's hit rate,
    the share of its lookups that found the phrase from 0 to 1 (counted across restarts; null
    before the first or when the cache cannot be read), the self-watch's figures and, with a
    premium tier, its counts."""
    rate = None
    if s.cache_lookups is not None and s.cache_hits is not None:
        rate = hit_rate(s.cache_lookups, s.cache_hits)
    detail: dict[str, Any] = {
        "restarts_last_hour": s.restarts,
        "cache_hit_rate": None if rate is None else round(rate, 3),
        "intake": dict(s.intake),
        "broker": dict(s.broker),
    }
    if s.premium is not None:
        detail["premium"] = dict(s.premium)
    return detail


def status_report(s: Snapshot) -> dict[str, Any]:
    """The status as the retained status topic has it, for `/v1/status`: the desk's, with
    its state and faults those of this snapshot."""
    return {**s.status, "state": state(s), "faults": dict(s.faults), **status_detail(s)}


def problems(s: Snapshot) -> list[str]:
    """Why the daemon is not healthy (`/healthz`): each fault, as `name: reason`, the phase
    `starting` among them; none while the status is `online`."""
    return [f"{name}: {reason}" for name, reason in s.faults.items()]
