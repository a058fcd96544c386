"""Zones: the alarm rules once for each place the gateway speaks to, and one outcome per message.

Each zone has an `AlarmPolicy` of its own, so each has its own queue, its own item being
spoken, its own preemption and its own flood summaries: an alert for the hall does not wait
behind one for the yard. An offer goes to the policy of every zone it names (all of them when
it names none, or none the configuration knows); operator commands, shelves, clears and the
alarm system's own faults go to every zone. The zones then tell one outcome each for a message
it went to, and `Zones` keeps them until every zone has told its own: the message ends in
exactly one outcome, whose `zones` field says what became of it in each, heard in at least
one zone being `spoken`.

A zone's outcome told while others still owe theirs is journaled (`told_apart`), and a start
takes it up (`told_before`): a message heard in the hall and still waiting in the yard when the
daemon stopped is said in the yard only, and its one outcome tells both.

With one zone (no `zones:` in the configuration) nothing is merged and nothing is added to
what the rules tell: the daemon behaves as it did before zones existed.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cosyedge.alarms.covered import Uncovered
from cosyedge.alarms.lasting import Holds, OnBoard, Standing
from cosyedge.alarms.policy import AlarmPolicy, ended_as
from cosyedge.config.alarms import AlarmsConfig
from cosyedge.config.zones import ALL, DEFAULT_ZONE
from cosyedge.model import BadCommand, Command, Delivery, Effect, Event, Item, Offer, Outcome

# What a message became in one zone, from heard to not: the message's own outcome is the
# first of these any of its zones told (a zone that has not heard it shows in `zones`).
HEARD_FIRST = ("spoken", "summarized")
# Events every zone tells alike (the same command, the same clear): told once, their ids joined.
SHARED_EVENTS = ("command", "cleared", "unshelved")
# What each zone's outcome adds to the message's `zones` field.
ZONE_FIELDS = ("start", "end", "latency_ms", "speech_latency_ms", "source", "reason", "summary")
TOLD_TEXT_MAX = 2000  # characters of a zone's reason or summary the journal keeps
Hold = Callable[[Item], bool]  # whether a due item waits all the same (alarms/standby.py)


@dataclass
class _Open:
    """A message sent to several zones, until each has told its outcome."""

    zones: tuple[str, ...]
    told: dict[str, Outcome] = field(default_factory=dict)
    earlier: frozenset[str] = frozenset()  # zones whose outcome an earlier run told


class Zones:
    """Every zone's alarm rules behind the interface of one (`AlarmPolicy`'s), for the desk.

    `take`, `should_stop` and `finished` are per zone (an item is said in its `zone`); the rest
    reach every zone concerned, and what they tell is merged (see the module's docstring).
    Pure state, as the policies are: the desk holds its lock around every call.
    """

    def __init__(
        self, config: AlarmsConfig, names: Sequence[str], covers: Collection[str] = ()
    ) -> None:
        """`covers`: on a standby covering some of its primary's zones (`standby.zones`),
        those zones, said here in the zone of the same name (or, without zones, in the one);
        an alert naming none of them is the primary's alone (`Uncovered`)."""
        if not names:
            raise ValueError("zones: at least one zone")
        self.names = tuple(names)
        self.uncovered = Uncovered(tuple(covers))
        self.lanes = {name: AlarmPolicy(config, zone=name) for name in self.names}
        self.holds = Holds()  # one for all zones: a source's holds all its alarms
        for lane in self.lanes.values():
            lane.holds = self.holds
        self._open: dict[int, _Open] = {}  # by ticket seq: messages some zones still owe
        self._deaf: dict[str, str] = {}  # zones none of whose outputs could play, and why
        self._earlier: dict[int, dict[str, Mapping[str, Any]]] = {}  # by seq: told_before
        self._apart: list[tuple[int, str, dict[str, Any]]] = []  # told, not yet journaled
        self.critical_everywhere = config.critical_in_all_zones

    @classmethod
    def around(cls, policy: AlarmPolicy) -> Zones:
        """One zone, whose rules are `policy`."""
        zones = cls(policy.config, (policy.zone or DEFAULT_ZONE,))
        zones.lanes = {zones.names[0]: policy}
        zones.holds = policy.holds
        return zones

    @property
    def zoned(self) -> bool:
        """More than one zone: outcomes merged, zones named in what is told."""
        return len(self.names) > 1

    # -- routing --------------------------------------------------------------------------
    def zones_of(self, offer: Offer) -> tuple[str, ...]:
        """The zones an offer is said in: those its announcement names that exist, every
        zone when it names none or `all`, or is critical and `critical_in_all_zones` holds.
        On a standby covering some zones, none when it names none of those."""
        said = offer.announcement
        asked = said.zones if said is not None else ()
        if not asked or ALL in asked or (self.critical_everywhere and offer.priority == "critical"):
            return self.names
        if self.uncovered.covers and not self.uncovered.covered(asked):
            return ()
        known = tuple(name for name in self.names if name in asked)
        return known or self.names

    def _everywhere(self, call) -> list[Effect]:
        """`call(policy)` in every zone, what they tell merged."""
        return self._merged({name: call(lane) for name, lane in self.lanes.items()})

    # -- the policy's interface -----------------------------------------------------------
    def lasting(self) -> tuple[dict[str, float], dict[str, Standing]]:
        """Shelves (alike in every zone) and the standing alarms of all zones, each once,
        with the earliest re-announcement any zone has due."""
        shelved: dict[str, float] = {}
        alarms: dict[str, Standing] = {}
        for lane in self.lanes.values():
            lane_shelved, lane_alarms = lane.lasting()
            shelved.update(lane_shelved)
            for key, standing in lane_alarms.items():
                known = alarms.get(key)
                if known is None or standing.due < known.due:
                    alarms[key] = standing
        return shelved, alarms

    def restore(self, shelved: Mapping[str, float], alarms: Iterable[Standing]) -> None:
        by_zone: dict[str, list[Standing]] = {name: [] for name in self.names}
        for standing in alarms:
            for name in self.zones_of(standing.offer):
                by_zone[name].append(standing)
        for name, lane in self.lanes.items():
            lane.restore(shelved, by_zone[name])

    def remember(self, key: str, at: float, source: str) -> None:
        for lane in self.lanes.values():
            lane.remember(key, at, source)

    def heard_before(self, offer: Offer) -> list[Effect]:
        return self._sent(offer, lambda lane: lane.heard_before(offer))

    def offer(self, offer: Offer, now: float) -> list[Effect]:
        # An id heard within the window is a copy wherever it goes (it may name other zones
        # than the first time): told as a copy by the zones that had it.
        seen = tuple(name for name, lane in self.lanes.items() if lane.seen(offer.key, now))
        if not seen and offer.announcement is not None and not self.zones_of(offer):
            self.remember(offer.key, offer.at, offer.source)  # its copies are copies here too
            self.uncovered.keep(offer)
            return []
        told = self.uncovered.cleared(offer.source) if offer.announcement is None else []
        noted = self.uncovered.noted(offer)  # the zones it names not said here, if any
        return told + self._sent(noted, lambda lane: lane.offer(noted, now), seen)

    def told_before(self, seq: int, told: Mapping[str, Mapping[str, Any]]) -> None:
        """What zones told of journaled message `seq` before the last run ended (zone ->
        the `told_apart` detail); its offer, which comes next, goes only to the others."""
        known = {zone: detail for zone, detail in told.items() if zone in self.names}
        if self.zoned and known:
            self._earlier[seq] = known

    def told_apart(self) -> list[tuple[int, str, dict[str, Any]]]:
        """(seq, zone, its outcome's kind and times) of each zone that told its outcome of a
        message other zones still owe, since the last call: for the journal."""
        apart, self._apart = self._apart, []
        return apart

    def _sent(self, offer: Offer, call, names: tuple[str, ...] = ()) -> list[Effect]:
        """`call` in `names`, else each zone of `offer` (every zone for a return to normal),
        but those that told theirs in an earlier run."""
        if not names:
            names = self.zones_of(offer) if offer.announcement is not None else self.names
            names = names or self.names[:1]  # a copy of one covered by none: told here
        if self.zoned:
            earlier = self._earlier.pop(offer.ticket.seq, {})
            names = tuple(name for name in names if name not in earlier)
            pending = self._open.setdefault(offer.ticket.seq, _Open(names))
            if earlier:
                pending.zones = tuple(n for n in self.names if n in earlier or n in names)
                pending.told.update({z: _restored(offer, t) for z, t in earlier.items()})
                pending.earlier = frozenset(earlier)
                if not names:  # every zone it still owed has left the configuration
                    del self._open[offer.ticket.seq]
                    return self.uncovered.heard_in([_together(pending)])
        return self._merged({name: call(self.lanes[name]) for name in names})

    def fault(self, name: str, text: str, lang: str, every_s: float) -> list[Effect]:
        return self._everywhere(lambda lane: lane.fault(name, text, lang, every_s))

    def fault_cleared(self, name: str, text: str | None, lang: str) -> list[Effect]:
        return self._everywhere(lambda lane: lane.fault_cleared(name, text, lang))

    def command(self, cmd: Command, now: float) -> list[Effect]:
        """In every zone, or in the one it names (BadCommand when there is no such zone)."""
        if cmd.zone is None:
            effects = self._everywhere(lambda lane: lane.command(cmd, now))
            return self.uncovered.command(cmd, effects)
        if cmd.zone not in self.names or not self.zoned:
            known = ", ".join(self.names) if self.zoned else "none: `zones` is not configured"
            raise BadCommand(f"zone: no zone {cmd.zone!r} (zones: {known})")
        effects = self._merged({cmd.zone: self.lanes[cmd.zone].command(cmd, now)})
        return [_in_zone(e, cmd.zone) for e in effects]

    def take(
        self, zone: str, now: float, hold: Hold | None = None
    ) -> tuple[Item | None, list[Effect]]:
        """The next item of `zone` that `hold` does not keep waiting (a standby's)."""
        lane = self.lanes[zone]
        with _aside(lane, hold):
            item, effects = lane.take(now)
        return item, self._merged({zone: effects})

    def should_stop(self, item: Item, hold: Hold | None = None) -> bool:
        """Whether `item` gives way: a held item outranks nothing."""
        lane = self.lanes[item.zone or self.names[0]]
        with _aside(lane, hold):
            return lane.should_stop(item)

    def cover(self, key: str, detail: Mapping[str, Any]) -> list[Effect]:
        """The standby's copies of `key` not yet said end `covered`, in every zone."""
        told = self.uncovered.end(key, "covered", detail)
        return told + self._everywhere(lambda lane: lane.cover(key, **detail))

    def fault_waiting(self, name: str) -> set[str]:
        """The zones (as their items name them) where fault `name` is queued or being said."""
        return {lane.zone for lane in self.lanes.values() if lane.fault_waiting(name)}

    def uncovered_due(self, due: Callable[[Offer], bool], now: float) -> list[Effect]:
        """The copies of the primary's zones not covered here that a takeover would say now
        (`due`) end, saying why (covered.py)."""
        return self.uncovered.due(due, now)

    def news_before(self, horizon: float) -> None:
        """A flood's end before `horizon` is not said, in any zone (AlarmPolicy.news_before)."""
        for lane in self.lanes.values():
            lane.news_before(horizon)

    def said_elsewhere(
        self,
        key: str,
        said_at: float,
        now: float,
        detail: Mapping[str, Any],
        heard_in: Collection[str] | None = None,
    ) -> list[Effect]:
        """`key` said by another gateway (AlarmPolicy.said_elsewhere), in every zone, or in
        those of `heard_in` alone (a standby covering some zones: the others still say it)."""
        told = self.uncovered.end(key, "covered", detail)
        lanes = {n: lane for n, lane in self.lanes.items() if heard_in is None or n in heard_in}
        return told + self._merged(
            {n: lane.said_elsewhere(key, said_at, now, **detail) for n, lane in lanes.items()}
        )

    def finished(self, item: Item, delivery: Delivery, now: float) -> list[Effect]:
        zone = item.zone or self.names[0]
        if delivery.kind == "unplayed":
            self._deaf[zone] = delivery.detail.get("reason") or "no output could play"
        elif delivery.kind == "spoken":
            self._deaf.pop(zone, None)
        told = self._merged({zone: self.lanes[zone].finished(item, delivery, now)})
        return told + self._not_waited_for()

    def _not_waited_for(self) -> list[Effect]:
        """A message heard in one zone is not kept from its report by a zone that cannot play:
        there it ends `failed`, with why (it is not said when the zone's outputs are back)."""
        if not self.zoned or not self._deaf:
            return []
        told: list[Effect] = []
        for seq, pending in list(self._open.items()):
            if not any(o.kind in HEARD_FIRST for o in pending.told.values()):
                continue
            for zone in [z for z in pending.zones if z in self._deaf and z not in pending.told]:
                why = f"not said in zone {zone}: its outputs cannot play ({self._deaf[zone]})"
                told += self._merged(
                    {zone: self.lanes[zone].end_unsaid(_seq(seq), "failed", reason=why)}
                )
        return told

    def tick(self, now: float) -> list[Effect]:
        return self._everywhere(lambda lane: lane.tick(now))

    def kept(self, hold: Hold) -> int:
        """The items queued, in every zone, that `hold` keeps waiting (a standby's)."""
        return sum(sum(map(hold, lane.queue)) for lane in self.lanes.values())

    def waiting(self, zone: str) -> int:
        """Items queued in `zone`."""
        return len(self.lanes[zone].queue)

    def status(self) -> dict[str, Any]:
        """One zone's status as it was; with zones, the sums, and each zone's own."""
        if not self.zoned:
            return self.lanes[self.names[0]].status()
        each = {name: lane.status() for name, lane in self.lanes.items()}
        speaking = [s["speaking"] for s in each.values() if s["speaking"]]
        unacknowledged: set[str] = set()
        cleared: set[str] = set()
        for lane in self.lanes.values():
            active, returned = lane.active_keys()
            unacknowledged |= active
            cleared |= returned
        return {
            "queue": sum(s["queue"] for s in each.values()),
            "held": max(s["held"] for s in each.values()),
            "speaking": speaking[0] if speaking else None,
            "unacknowledged": len(unacknowledged),
            "cleared_unacknowledged": len(cleared),
            "flood": any(s["flood"] for s in each.values()),
            "shelved": sorted({p for s in each.values() for p in s["shelved"]}),
            "zones": {name: _zone_status(s) for name, s in each.items()},
        }

    def board(self) -> list[OnBoard]:
        """The unacknowledged alarms of every zone, each once: with the zones it stands in,
        said as often as the zone that said it most, silenced or returned to normal where
        every zone has it so."""
        if not self.zoned:
            return self.lanes[self.names[0]].board()
        found: dict[str, list[tuple[str, OnBoard]]] = {}
        for name, lane in self.lanes.items():
            for alarm in lane.board():
                found.setdefault(alarm.offer.key, []).append((name, alarm))
        return [_merged_board(each) for each in found.values()]

    # -- one outcome per message ------------------------------------------------------------
    def _merged(self, told: Mapping[str, list[Effect]]) -> list[Effect]:
        """What the zones told in one call, as the desk reports it: with one zone as it is;
        with zones, each message's outcome once all its zones told theirs, the events that
        every zone tells alike once, the others with their zone."""
        if not self.zoned:
            out = [effect for effects in told.values() for effect in effects]
            return self.uncovered.heard_in(out)
        out = []
        shared: dict[str, Event] = {}
        for zone, effects in told.items():
            for effect in effects:
                if isinstance(effect, Outcome):
                    out += self._outcome(zone, effect)
                elif effect.kind in SHARED_EVENTS:
                    _join(shared, effect)
                else:
                    out.append(Event(effect.kind, {**effect.detail, "zone": zone}))
        return self.uncovered.heard_in(out) + list(shared.values())

    def _outcome(self, zone: str, outcome: Outcome) -> list[Outcome]:
        """The message's one outcome, once `zone`'s is the last it owed; nothing before."""
        seq = outcome.ticket.seq
        pending = self._open.get(seq)
        if pending is None:  # sent before it was tracked (cannot happen): told as it is
            return [outcome]
        pending.told[zone] = outcome
        if set(pending.told) < set(pending.zones):
            self._apart.append((seq, zone, _kept(outcome)))
            return []
        del self._open[seq]
        return [_together(pending)]


@contextlib.contextmanager
def _aside(lane: AlarmPolicy, hold: Hold | None) -> Iterator[None]:
    """The items `hold` keeps waiting out of `lane`'s queue meanwhile, then back in their
    places (their rank and order unchanged)."""
    held = [item for item in lane.queue if hold(item)] if hold is not None else []
    for item in held:
        lane.queue.remove(item)
    try:
        yield
    finally:
        for item in held:
            lane.queue.push(item)


def _seq(seq: int) -> Callable[[Offer], bool]:
    return lambda offer: offer.ticket.seq == seq


def _together(pending: _Open) -> Outcome:
    """The outcome that stands for a message's outcomes in its zones, and what each says;
    its times span the zones it was heard in (the first audio, the last)."""
    told = [pending.told[zone] for zone in pending.zones]
    heard = [o for kind in HEARD_FIRST for o in told if o.kind == kind]
    first = heard[0] if heard else told[-1]
    zones = {zone: _zone_detail(pending.told[zone]) for zone in pending.zones}
    return replace(first, detail={**first.detail, **_span(heard), "zones": zones})


def _restored(offer: Offer, told: Mapping[str, Any]) -> Outcome:
    """A zone's outcome an earlier run journaled, as that zone told it."""
    detail = {key: value for key, value in told.items() if key != "outcome"}
    if offer.announcement is not None and "summary" not in detail:
        detail.setdefault("text", offer.announcement.text)
    return ended_as(offer, str(told["outcome"]), **detail)


def _kept(outcome: Outcome) -> dict[str, Any]:
    """What the journal keeps of one zone's outcome (journal/records.py `told_valid`)."""
    kept: dict[str, Any] = {}
    for key, value in _zone_detail(outcome).items():
        if isinstance(value, str):
            kept[key] = value[:TOLD_TEXT_MAX]
        elif _finite(value):
            kept[key] = value
    return kept


def _finite(value: Any) -> bool:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return number and math.isfinite(value) and abs(value) < 1e11


def _span(heard: list[Outcome]) -> dict[str, Any]:
    """From the earliest start and first audio to the latest end, of the zones that heard it."""
    span: dict[str, Any] = {}
    for key, pick in (
        ("start", min),
        ("end", max),
        ("latency_ms", min),
        ("speech_latency_ms", min),
    ):
        values = [o.detail[key] for o in heard if key in o.detail]
        if values:
            span[key] = pick(values)
    return span


def _zone_detail(outcome: Outcome) -> dict[str, Any]:
    detail = {key: outcome.detail[key] for key in ZONE_FIELDS if key in outcome.detail}
    return {"outcome": outcome.kind, **detail}


def _join(shared: dict[str, Event], event: Event) -> None:
    """An event every zone tells alike, once: the ids each zone reached, joined."""
    key = f"{event.kind}:{sorted((k, str(v)) for k, v in event.detail.items() if k != 'ids')}"
    known = shared.get(key)
    if known is None:
        shared[key] = event
        return
    ids = sorted(set(known.detail.get("ids", [])) | set(event.detail.get("ids", [])))
    shared[key] = Event(event.kind, {**known.detail, "ids": ids})


def _in_zone(effect: Effect, zone: str) -> Effect:
    """A command's event, told with the zone it was limited to."""
    if isinstance(effect, Event) and effect.kind == "command":
        return Event(effect.kind, {**effect.detail, "zone": zone})
    return effect


def _zone_status(status: Mapping[str, Any]) -> dict[str, Any]:
    return {key: status[key] for key in ("queue", "speaking", "flood")}


def _merged_board(each: list[tuple[str, OnBoard]]) -> OnBoard:
    """One alarm as the zones that hold it (name, their view) show it together."""
    alarms = [alarm for _, alarm in each]
    return OnBoard(
        alarms[0].offer,
        max(a.said for a in alarms),
        all(a.silenced for a in alarms),
        all(a.cleared for a in alarms),
        tuple(name for name, _ in each),
    )
