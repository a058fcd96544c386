"""An unacknowledged alarm as it outlives a restart: what the alarm rules hand the desk to
journal (alarms/policy.py, alarms/zones.py) and are given back at the next start."""

from __future__ import annotations

from dataclasses import dataclass

from cosyedge.model import Offer


@dataclass(frozen=True)
class Standing:
    """An unacknowledged alarm as it outlives a restart."""

    offer: Offer
    due: float  # its next re-announcement, on the policy's clock
    cleared: bool = False  # returned to normal: awaits confirmation, not re-announced
