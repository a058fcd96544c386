"""An unacknowledged alarm as it outlives a restart: what the alarm rules hand the desk to
journal (alarms/policy.py, alarms/zones.py) and are given back at the next start; and as the
operator page shows it (`OnBoard`)."""

from __future__ import annotations

from dataclasses import dataclass

from cosyedge.model import Offer


@dataclass(frozen=True)
class Standing:
    """An unacknowledged alarm as it outlives a restart."""

    offer: Offer
    due: float  # its next re-announcement, on the policy's clock
    cleared: bool = False  # returned to normal: awaits confirmation, not re-announced


@dataclass(frozen=True)
class OnBoard:
    """An unacknowledged alarm as the operator page shows it: how often it was said in this
    run (a restart counts again from 1), and the zones it stands in (none without zones)."""

    offer: Offer
    said: int
    silenced: bool = False  # not re-announced, still unacknowledged
    cleared: bool = False  # returned to normal: awaits confirmation
    zones: tuple[str, ...] = ()
