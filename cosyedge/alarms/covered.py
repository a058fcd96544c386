"""A standby covering some of its primary's zones (`standby.zones`): the alerts for the
primary's other zones, which this gateway has no speakers for and never says.

Such an alert is kept here, not queued. While the primary lives, its report ends our copy
`covered`, as any copy's. Once the primary is gone, it ends `failed` when a takeover would
have said it, saying why: no gateway says it (the primary is gone; this one does not cover
its zones). A restarted primary that knows its standby says it then, since a `failed` is not
an alert heard (alarms/standby.py `HEARD`). An alert naming covered zones and others is said
in the covered ones, its outcome noting the rest. Pure state: the desk holds its lock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from paho.mqtt.client import topic_matches_sub

from cosyedge.alarms.policy import ended_as
from cosyedge.alarms.standby import HEARD
from cosyedge.config.zones import ALL
from cosyedge.model import Command, Effect, Event, Offer, Outcome

# The commands that end a copy waiting here as they end one in a queue: (outcome, reason).
ENDING = {"ack": ("acknowledged", "acknowledged before spoken"), "shelve": ("shelved", "")}


class Uncovered:
    """The alerts of the primary's zones this standby does not cover, by id, until ended."""

    def __init__(self, covers: tuple[str, ...]) -> None:
        """`covers`: the primary's zones this gateway covers; empty: all of them."""
        self.covers = covers
        self._kept: dict[str, Offer] = {}

    def covered(self, asked: tuple[str, ...]) -> bool:
        """Whether an alert for the zones `asked` is said here (in one of them at least)."""
        return not self.covers or any(name in self.covers for name in asked)

    def keep(self, offer: Offer) -> None:
        self._kept[offer.key] = offer

    def noted(self, offer: Offer) -> Offer:
        """`offer`, its outcome to note the zones it names that are not said here."""
        said = offer.announcement
        if not self.covers or said is None or ALL in said.zones:
            return offer
        left = [name for name in said.zones if name not in self.covers]
        if not left:
            return offer
        note = f"zone: {', '.join(left)} {self._why()}"
        return replace(offer, announcement=replace(said, notes=(*said.notes, note)))

    def heard_in(self, effects: list[Effect]) -> list[Effect]:
        """Each outcome of an alert heard here names, as `heard_in`, the primary's zones it
        was heard in: its zones here that heard it (a zoned standby's `zones`), or every
        covered zone (said on one device). A restarted primary covers its copy in those
        zones alone, and says it in its others (peers.py)."""
        if not self.covers:
            return effects
        return [self._heard_in(e) if isinstance(e, Outcome) else e for e in effects]

    def _heard_in(self, outcome: Outcome) -> Outcome:
        if outcome.kind not in HEARD:
            return outcome
        zones = outcome.detail.get("zones")
        if isinstance(zones, dict):
            heard = [name for name, told in zones.items() if told.get("outcome") in HEARD]
        else:
            heard = list(self.covers)
        return replace(outcome, detail={**outcome.detail, "heard_in": heard})

    def _why(self) -> str:
        return f"not covered by this standby (standby.zones: {', '.join(self.covers)})"

    def end(self, key: str, kind: str, detail: Mapping[str, Any]) -> list[Effect]:
        """The copy of `key` kept here, if any, ends `kind` (the primary's report covers it)."""
        offer = self._kept.pop(key, None)
        return [] if offer is None else [ended_as(offer, kind, **detail)]

    def cleared(self, source: str) -> list[Effect]:
        """Its source returned to normal: the copies kept of it end `cleared`."""
        ended = [key for key, offer in self._kept.items() if offer.source == source]
        reason = "returned to normal before it was spoken"
        return [ended_as(self._kept.pop(key), "cleared", reason=reason) for key in ended]

    def due(self, due: Callable[[Offer], bool], now: float) -> list[Effect]:
        """Those a takeover would say now (`due`) end `failed`, saying why; those whose time
        to live passed meanwhile, `expired`."""
        told: list[Effect] = []
        for key, offer in list(self._kept.items()):
            if now >= offer.expires:
                reason = "its time to live passed while the primary had it"
                told.append(ended_as(self._kept.pop(key), "expired", reason=reason))
            elif due(offer):
                zones = ", ".join(offer.announcement.zones) if offer.announcement else ""
                reason = f"not said: zone {zones} {self._why()}, and the primary is gone"
                told.append(ended_as(self._kept.pop(key), "failed", reason=reason))
        return told

    def command(self, cmd: Command, effects: list[Effect]) -> list[Effect]:
        """An `ack` or `shelve` the zones carried out (`effects`) ends what it matches here
        too, as it ends a queued copy; the ids join its `command` event."""
        if cmd.cmd not in ENDING or not self._kept:
            return effects
        event = next((e for e in effects if isinstance(e, Event) and e.kind == "command"), None)
        pattern = event.detail.get("topic") if cmd.cmd == "shelve" and event else cmd.topic
        kind, reason = ENDING[cmd.cmd]

        def match(o: Offer) -> bool:
            if cmd.cmd == "ack" and cmd.id is None and cmd.topic is None:
                return True
            if cmd.cmd == "ack" and o.key == cmd.id:
                return True
            return isinstance(pattern, str) and topic_matches_sub(pattern, o.source)

        ended = [self._kept.pop(key) for key, o in list(self._kept.items()) if match(o)]
        if event is None or not ended:
            return effects
        shelved = f"source shelved for {event.detail.get('duration_s', 0):g} s"
        told = [ended_as(o, kind, reason=reason or shelved, **cmd.by) for o in ended]
        ids = sorted({*event.detail.get("ids", ()), *(o.key for o in ended)})
        joined = Event(event.kind, {**event.detail, "ids": ids})
        return [joined if e is event else e for e in effects] + told
