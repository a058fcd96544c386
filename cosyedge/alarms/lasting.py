"""An unacknowledged alarm as it outlives a restart: what the alarm rules hand the desk to
journal (alarms/policy.py, alarms/zones.py) and are given back at the next start; and as the
operator page shows it (`OnBoard`); and as the rules hold it while it lasts (`Active`)."""

from __future__ import annotations

from dataclasses import dataclass

from cosyedge.model import Item, Offer


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


@dataclass
class Active:
    """A spoken alarm that is re-announced until acknowledged or expired. One that returns
    to normal unacknowledged (`cleared`) is no longer re-announced, since its condition is
    over, but stays unacknowledged until `ack` or `confirm` names it (ISA-18.2)."""

    offer: Offer
    due: float
    item: Item | None = None  # its re-announcement, while queued or spoken
    silenced: bool = False
    cleared: bool = False
    said: int = 1  # times said in this run: its first time and each re-announcement
