"""The one shape of a part of the daemon beside the alert path: a component.

The daemon builds the stages an alert passes through, then a list of components (the self-watch,
the cache's upkeep, the premium tier, the speech's memory, the player, and the optional ones:
the alarm figures and the HTTP API, the Wyoming server, Home Assistant's discovery): it starts
them in the list's order once the alert path is taken up, ticks them from its monitor, reconfigures
them at a reload and stops them in reverse order before the alert path winds down. What they
need from each other they are given when they are made, or hear through the one observer
interface (observe.py); what they show is their part of the daemon's snapshot
(alarms/snapshot.py), and what goes wrong in them, faults.

An optional feature is one component and one configuration section (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cosyedge.config.schema import Config


@dataclass(frozen=True)
class Detail:
    """What a snapshot is made with beyond what is cheap: the phrase cache's totals (an index
    query, and usage counts written first) and the ISA-18.2 figures (computed over the last
    day's alarms). The status line made at every tick asks for neither."""

    cache: bool = False
    alarms: bool = False


class Component:
    """A part with one lifecycle. Every method does nothing here; a part overrides those it
    has. None may raise but `start`, whose failure stops the daemon's start."""

    def start(self) -> None:
        """Begin working (threads, sockets); once, after the alert path is taken up. A part
        that cannot start says so as a fault and leaves the rest running."""

    def tick(self, now: float) -> Mapping[str, str | None]:
        """The monitor's tick (the main thread, twice a second, `now` monotonic): do what is
        due, and say its faults now: name → reason, or None for one that is over."""
        return {}

    def state(self, detail: Detail) -> Mapping[str, Any]:
        """Its fields of the daemon's snapshot (alarms/snapshot.py `Snapshot`)."""
        return {}

    def reconfigure(self, config: Config) -> None:
        """At every reload: take over its sections of `config`, the configuration now in
        force (those that wait for a restart are the running ones: service/reload.py)."""

    def stop(self) -> None:
        """Stop working: new work is refused, its threads end; before the alert path winds
        down, in the reverse order of the list."""
