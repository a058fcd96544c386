"""Alarm management: which accepted alert is spoken, when, and what became of each one.

The rules of ISA-18.2 / IEC 62682 as they apply to a voice: de-duplication of at-least-once
delivery, on-delay and off-delay against chattering, flood summaries, acknowledge / silence /
shelve, re-announcement of unacknowledged alarms, confirmation of those that returned to
normal unacknowledged, expiry, and preemption of a less urgent announcement. This is pure
state: no threads, no I/O, and time is an argument, so every rule can be tested with an
injected clock; desk.py puts it behind a lock. Every accepted message ends in exactly one
`Outcome`; whatever else is worth telling is an `Event`.
"""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from paho.mqtt.client import topic_matches_sub

from cosyedge.alarms.faults import Fault, FaultRules
from cosyedge.alarms.flood import FloodWatch, most_spoken, summary_text
from cosyedge.alarms.lasting import Active, Holds, OnBoard, Standing
from cosyedge.alarms.queue import AnnounceQueue
from cosyedge.config.alarms import AlarmsConfig
from cosyedge.model import (
    PRIORITIES,
    BadCommand,
    Command,
    Counted,
    Delivery,
    Effect,
    Event,
    Item,
    ItemKind,
    Offer,
    Outcome,
)


def ended_as(offer: Offer, kind: str, **detail: Any) -> Outcome:
    announcement = offer.announcement
    priority = announcement.priority if announcement else None
    notes = {"notes": list(announcement.notes)} if announcement and announcement.notes else {}
    if offer.note is not None:  # Hermes: said, but not as asked; the caller hears why
        notes["note"] = offer.note
    alarm = announcement.alarm if announcement else None
    detail = {"id": offer.key, "priority": priority, **notes, **detail}
    return Outcome(offer.ticket, kind, detail, alarm)


def _copy(offer: Offer, reason: str) -> Outcome:
    """A copy of an alert heard before: `deduplicated`, its id left to its own (Outcome.copy)."""
    return replace(ended_as(offer, "deduplicated", reason=reason), copy=True)


class AlarmPolicy(FaultRules):
    def __init__(self, config: AlarmsConfig, zone: str = "") -> None:
        self.config = config
        self.zone = zone  # the zone its items are said in (alarms/zones.py); "" without zones
        self.queue: AnnounceQueue[Item] = AnnounceQueue()
        self.playing: Item | None = None
        self.flood = FloodWatch(config.flood)
        self._order = itertools.count()
        self._seen: OrderedDict[str, tuple[float, str]] = OrderedDict()  # key -> (at, source)
        self._held: dict[int, Offer] = {}  # on-delay, by seq
        self._clearing: dict[str, float] = {}  # off-delay: source -> when its clear takes effect
        self._active: dict[str, Active] = {}
        self._shelved: dict[str, float] = {}  # topic filter -> until
        self.holds = Holds()  # no re-announcement yet (a source's at a start; zones share it)
        self._closed: set[str] = set()  # keys being spoken that must not be re-announced
        self._batch: Item | None = None  # the flood summary being gathered
        self._tally: list[Counted] = []  # alarms of the flood not yet counted by a summary
        self._next_summary = -math.inf
        self._summary_lang = "en"  # a flood's end is said in the language of its last summary
        self._flood_end: float | None = None  # when the flood ended whose end is not yet said
        self._stop: str | None = None  # why the item being spoken must stop now
        self._stop_by: dict[str, str] = {}  # and who said so (user, comment), if anyone
        self._faults: dict[str, Fault] = {}  # the alarm system's own, by name

    def _item(
        self, kind: ItemKind, priority: str, offers: list[Offer], text: str = "", **extra: Any
    ) -> Item:
        """An item to say, next in order, in this policy's zone."""
        return Item(kind, priority, next(self._order), offers, text, zone=self.zone, **extra)

    # -- what outlives a restart ----------------------------------------------------------
    def lasting(self) -> tuple[dict[str, float], dict[str, Standing]]:
        """Shelves (topic filter -> until) and the unacknowledged alarms not silenced: what
        the journal keeps so that a restart neither unshelves nor forgets them."""
        alarms = {
            k: Standing(a.offer, a.due, a.cleared)
            for k, a in self._active.items()
            if not a.silenced
        }
        return dict(self._shelved), alarms

    def restore(self, shelved: Mapping[str, float], alarms: Iterable[Standing]) -> None:
        """Take up the last run's shelves and unacknowledged alarms (times on our clock)."""
        self._shelved.update(shelved)
        for a in alarms:
            self._active[a.offer.key] = Active(a.offer, a.due, cleared=a.cleared)

    # -- intake ---------------------------------------------------------------------------
    def remember(self, key: str, at: float, source: str) -> None:
        """An id handled before a restart, so a redelivery of it is still a duplicate."""
        self._seen[key] = (at, source)

    def heard_before(self, offer: Offer) -> list[Effect]:
        """A retained message the broker replays (at a start, a new subscription) that was
        heard on its topic before: not said again, and told as every outcome of an alert is."""
        return [_copy(offer, "retained message already heard")]

    def seen(self, key: str, now: float) -> bool:
        """Whether an offer of `key` came within the de-duplication window."""
        self._forget_seen(now)
        return key in self._seen

    def end_unsaid(self, match: Callable[[Offer], bool], kind: str, **detail: Any) -> list[Effect]:
        """What `match`es and waits to be said is not said here: `kind` (zones.py)."""
        return self._withdraw(match, kind, **detail)

    def cover(self, key: str, **detail: Any) -> list[Effect]:
        """Another gateway told its outcome of `key`: copies waiting here end `covered`, and
        a flood summary here no longer counts it (the other one told it)."""
        self._told_elsewhere(key)
        return self._withdraw(lambda o: o.key == key, "covered", **detail)

    def _told_elsewhere(self, key: str) -> None:
        self._tally = [c for c in self._tally if c.key != key]

    def news_before(self, horizon: float) -> None:
        """A flood's end not yet said that came before `horizon` is no longer news: its
        summary does not say it (a standby's takeover, long after the primary said it)."""
        if self._flood_end is not None and self._flood_end < horizon:
            self._not_over()

    def _not_over(self) -> None:
        """The flood end waiting to be said is not said: stale, or no longer true."""
        self._flood_end = None
        if self._batch is not None:
            self._batch.final = False

    def said_elsewhere(self, key: str, said_at: float, now: float, **detail: Any) -> list[Effect]:
        """`key` said at `said_at` by another gateway: copies waiting here end `covered`, and
        flood summaries here no longer count it; one re-announced stands as said, due a
        period after `said_at`, or after now once past."""
        self._told_elsewhere(key)
        offers = self._take_out(lambda o: o.key == key)
        for offer in offers:
            period = offer.timing.reannounce_s
            if period > 0 and key not in self._active:
                due = said_at + period if said_at + period > now else now + period
                self._active[key] = Active(offer, due)
        return [ended_as(o, "covered", **detail) for o in offers]

    def offer(self, offer: Offer, now: float) -> list[Effect]:
        if self.seen(offer.key, now):
            return [_copy(offer, f"same id within {self.config.dedup_window_s:g} s")]
        self._seen[offer.key] = (offer.at, offer.source)
        if offer.announcement is None:
            return self._clear_message(offer, now)
        if now >= offer.expires:
            return [ended_as(offer, "expired", reason="its time to live had passed on arrival")]
        until = self._shelved_until(offer.source)
        if until is not None:
            return [ended_as(offer, "shelved", reason=f"source shelved for {until - now:.0f} s")]
        if self._clearing.pop(offer.source, None) is not None:
            reason = "returned within the off-delay of its clear: the alarm had not ended"
            return [ended_as(offer, "deduplicated", reason=reason)]
        if offer.timing.on_delay_s > 0:
            self._held[offer.ticket.seq] = offer
            return []
        return self._release(offer, now)

    def _forget_seen(self, now: float) -> None:
        horizon = now - self.config.dedup_window_s
        while self._seen:
            at, _ = next(iter(self._seen.values()))
            if at > horizon:
                break
            self._seen.popitem(last=False)

    def _release(self, offer: Offer, now: float) -> list[Effect]:
        assert offer.announcement is not None
        effects: list[Effect] = []
        if self.flood.arrive(now):
            count = self.flood.count(now)
            effects.append(Event("flood_started", {"alarms": count}))
            self._not_over()  # the last flood's end, if not said yet, is no longer true
            for item in self.queue:
                if item.kind is ItemKind.ALERT and item.priority != "critical":
                    self.queue.remove(item)
                    self._tally.append(Counted.of(item.offers[0]))
                    self._gather(item.offers[0], now)
        if self.flood.active:
            self._tally.append(Counted.of(offer))
            if offer.priority != "critical":
                self._gather(offer, now)
                return effects
        item = self._item(ItemKind.ALERT, offer.priority, [offer], offer.announcement.text)
        self.queue.push(item)
        return effects

    def _gather(self, offer: Offer, now: float) -> None:
        batch = self._batch
        if batch is None:
            batch = self._batch = self._item(ItemKind.SUMMARY, offer.priority, [])
        batch.offers.append(offer)
        if PRIORITIES.index(offer.priority) < batch.rank:
            batch.priority = offer.priority
            self.queue.reranked(batch)
        if batch not in self.queue and now >= self._next_summary:
            self.queue.push(batch)

    def _clear_message(self, offer: Offer, now: float) -> list[Effect]:
        source = offer.source
        effects: list[Effect] = [ended_as(offer, "return_to_normal", clears=source)]
        for seq, held in list(self._held.items()):
            if held.source == source:
                del self._held[seq]
                reason = "returned to normal in its on-delay"
                effects.append(ended_as(held, "cleared", reason=reason))
        if offer.timing.off_delay_s > 0:
            self._clearing[source] = now + offer.timing.off_delay_s
        else:
            effects += self._return_to_normal(source)
        return effects

    def _return_to_normal(self, source: str) -> list[Effect]:
        def match(o: Offer) -> bool:
            return o.source == source

        reason = "returned to normal before it was spoken"
        effects = self._withdraw(match, "cleared", reason=reason)
        cleared = self._clear_active(match)
        self._close_playing(match)
        if cleared:  # unacknowledged: they wait for `confirm`, or `ack`
            effects.append(Event("cleared", {"topic": source, "ids": cleared}))
        return effects

    def _clear_active(self, match: Callable[[Offer], bool]) -> list[str]:
        """Standing alarms whose condition ended: no longer re-announced, still unacknowledged."""
        cleared = []
        for key, active in self._active.items():
            if match(active.offer) and not active.cleared:
                active.cleared = True
                self._unqueue(key)
                cleared.append(key)
        return cleared

    # -- operator commands ----------------------------------------------------------------
    def command(self, cmd: Command, now: float) -> list[Effect]:
        """Carry out an operator command; BadCommand when it names nothing known. Who gave
        it and why (`user`, `comment`) go into its event and the outcomes it settles."""
        if cmd.cmd in ("shelve", "unshelve"):
            pattern = cmd.topic or self._source_of(cmd.id)
            if cmd.cmd == "unshelve":
                found = self._shelved.pop(pattern, None) is not None
                detail = {"cmd": "unshelve", "topic": pattern, "matched": found, **cmd.by}
                return [Event("command", detail)]
            return self._shelve(pattern, cmd, now)

        def match(o: Offer) -> bool:
            if cmd.id is None and cmd.topic is None:
                return True
            if cmd.id is not None and o.key == cmd.id:
                return True
            return cmd.topic is not None and topic_matches_sub(cmd.topic, o.source)

        effects: list[Effect] = []
        if cmd.cmd == "ack":
            effects, ids = self._acknowledge(match, cmd)
        elif cmd.cmd == "silence":
            ids = self._ack_fault(cmd.id) + self._silence(match, cmd)
        else:  # confirm: those that returned to normal unacknowledged are settled
            ids = self._end_active(lambda o: match(o) and self._active[o.key].cleared)
        target = {"id": cmd.id} if cmd.id is not None else {"topic": cmd.topic}
        detail = {"cmd": cmd.cmd, **target, "ids": sorted(set(ids)), **cmd.by}
        return [*effects, Event("command", detail)]

    def _acknowledge(
        self, match: Callable[[Offer], bool], cmd: Command
    ) -> tuple[list[Effect], list[str]]:
        """The operator knows: stop saying it, now and later. (outcomes, ids it reached)"""
        reason = "acknowledged before spoken"
        effects = self._withdraw(match, "acknowledged", reason=reason, **cmd.by)
        ids = self._ack_fault(cmd.id) + [e.detail["id"] for e in effects if isinstance(e, Outcome)]
        playing = self._close_playing(match)
        if playing:
            self._stopping("acknowledged", cmd)
        return effects, ids + self._end_active(match) + playing

    def _silence(self, match: Callable[[Offer], bool], cmd: Command) -> list[str]:
        """Stop speaking and re-announcing, but leave them unacknowledged; the ids reached."""
        ids = []
        if self.playing and any(match(o) for o in self.playing.offers):
            self._stopping("silenced", cmd)
            ids.append(self.playing.key)
        for key, active in self._active.items():
            if match(active.offer) and not active.silenced:
                active.silenced = True
                self._unqueue(key)
                ids.append(key)
        return ids

    def _unqueue(self, key: str) -> None:
        """Its re-announcement, if waiting to be said, is not said."""
        if (item := self._active[key].item) is not None and item in self.queue:
            self.queue.remove(item)
            self._active[key].item = None

    def _stopping(self, why: str, cmd: Command) -> None:
        """The item being spoken stops now, for `why`, by the command's user."""
        self._stop, self._stop_by = why, cmd.by

    def _shelve(self, pattern: str, cmd: Command, now: float) -> list[Effect]:
        longest = self.config.max_shelve_s
        duration = min(cmd.duration_s or longest, longest)  # intake gives every shelve one
        self._shelved[pattern] = now + duration

        def match(o: Offer) -> bool:
            return topic_matches_sub(pattern, o.source)

        reason = f"source shelved for {duration:g} s"
        effects = self._withdraw(match, "shelved", reason=reason, **cmd.by)
        ids = [e.detail["id"] for e in effects if isinstance(e, Outcome)] + self._end_active(match)
        if self.playing and any(match(o) for o in self.playing.offers):
            self._stopping("shelved", cmd)
            ids.append(self.playing.key)
        detail = {"cmd": "shelve", "topic": pattern, "duration_s": duration, "ids": sorted(ids)}
        return [*effects, Event("command", {**detail, **cmd.by})]

    def _source_of(self, key: str | None) -> str:
        seen = self._seen.get(key or "")
        if seen is None:
            raise BadCommand(f"id: no recent alert with id {key!r}")
        return seen[1]

    def _shelved_until(self, source: str) -> float | None:
        for pattern, until in self._shelved.items():
            if topic_matches_sub(pattern, source):
                return until
        return None

    def _withdraw(self, match: Callable[[Offer], bool], kind: str, **detail: Any) -> list[Effect]:
        """Take matching alerts that were not spoken yet out of the way, each with its outcome."""
        return [ended_as(o, kind, **detail) for o in self._take_out(match)]

    def _take_out(self, match: Callable[[Offer], bool]) -> list[Offer]:
        """Matching alerts not spoken yet, out of the queue, the flood's batch, their on-delay."""
        gone: list[Offer] = []
        for item in self.queue:
            if item.kind is ItemKind.ALERT and match(item.offers[0]):
                self.queue.remove(item)
                gone.append(item.offers[0])
        if self._batch is not None:
            gone += [o for o in self._batch.offers if match(o)]
            self._batch.offers[:] = [o for o in self._batch.offers if not match(o)]
        for seq, offer in list(self._held.items()):
            if match(offer):
                del self._held[seq]
                gone.append(offer)
        return gone

    def _end_active(self, match: Callable[[Offer], bool]) -> list[str]:
        ended = [key for key, active in self._active.items() if match(active.offer)]
        for key in ended:
            item = self._active.pop(key).item
            if item is not None:
                self.queue.remove(item)
        return ended

    def _close_playing(self, match: Callable[[Offer], bool]) -> list[str]:
        """The item being spoken finishes, but must not start re-announcing afterwards."""
        if self.playing is None or self.playing.kind is ItemKind.SUMMARY:
            return []
        keys = [o.key for o in self.playing.offers if match(o)]
        self._closed.update(keys)
        return keys

    # -- the announcer's side -------------------------------------------------------------
    def take(self, now: float) -> tuple[Item | None, list[Effect]]:
        """The most urgent item still worth saying; stale ones are reported on the way."""
        effects: list[Effect] = []
        while (item := self.queue.pop()) is not None:
            if item.kind is ItemKind.SUMMARY:
                if self._batch is item:
                    self._batch = None
                effects += self._expire_members(item, now)
                if not item.offers and not item.final:
                    continue  # only critical alarms came in, and each was spoken
                item.tally = list(self._tally)
                counted = item.tally or [Counted.of(o) for o in item.offers]
                top = min(counted, key=lambda c: (PRIORITIES.index(c.priority), c.at), default=None)
                highest = top.text if top else None
                if top is not None:
                    self._summary_lang = most_spoken(counted, top)
                item.summary_lang = self._summary_lang
                priorities = [o.priority for o in counted]
                item.text = summary_text(priorities, highest, item.final, item.summary_lang)
                # From its taking on: alarms that come while it is said wait the interval (a
                # first summary, or a standby's at a takeover, had none before it).
                self._next_summary = now + self.config.flood.summary_interval_s
            elif now >= item.expires:
                effects += self._expired(item)
                continue
            self.playing, self._stop, self._stop_by = item, None, {}
            return item, effects
        return None, effects

    def should_stop(self, item: Item) -> bool:
        """True when the item being spoken must give way: silenced, shelved, or outranked."""
        if self._stop is not None:
            return True
        top = self.queue.peek()
        return top is not None and top.rank < item.rank

    def finished(self, item: Item, delivery: Delivery, now: float) -> list[Effect]:
        self.playing = None
        stop, self._stop = self._stop, None
        by, self._stop_by = self._stop_by, {}
        keys = {o.key for o in item.offers}
        closed = keys & self._closed
        self._closed -= keys
        kind = stop if delivery.kind == "stopped" and stop else delivery.kind
        if item.kind is ItemKind.FAULT:
            return self._fault_finished(item, kind, delivery, now)
        if kind in ("stopped", "unplayed"):
            return self._requeue(item, now)
        if kind != "spoken":  # silenced, shelved, acknowledged, failed
            return self._settle(item, kind, {**delivery.detail, **by})
        if item.kind is ItemKind.ALERT:
            offer = item.offers[0]
            if offer.timing.reannounce_s > 0 and not closed and offer.key not in self._active:
                self._active[offer.key] = Active(offer, now + offer.timing.reannounce_s)
            return [ended_as(offer, "spoken", text=item.text, **delivery.detail)]
        if item.kind is ItemKind.REANNOUNCE:
            active = self._active.get(item.key)
            if active is not None and active.item is item:
                active.item, active.due = None, now + active.offer.timing.reannounce_s
                active.said += 1
            return [Event("reannounced", {"id": item.key, "text": item.text, **delivery.detail})]
        counted = {id(o) for o in item.tally}
        self._tally = [o for o in self._tally if id(o) not in counted]
        if item.final:
            self._flood_end = None
        self._next_summary = now + self.config.flood.summary_interval_s
        event = Event(
            "summary",
            {"text": item.text, "ids": [o.key for o in item.offers], "final": item.final},
        )
        return [*self._settle(item, "summarized", delivery.detail), event]

    def _settle(self, item: Item, kind: str, detail: Mapping[str, Any]) -> list[Effect]:
        if item.kind is ItemKind.REANNOUNCE:
            return [Event(f"reannouncement_{kind}", {"id": item.key, **detail})]
        extra = {"summary": item.text} if item.kind is ItemKind.SUMMARY else {"text": item.text}
        return [ended_as(o, kind, **extra, **detail) for o in item.offers]

    def _requeue(self, item: Item, now: float) -> list[Effect]:
        """An item cut short is said again from its start later, unless it went stale."""
        if item.kind is not ItemKind.SUMMARY:
            if now >= item.expires:
                return self._expired(item)
            self.queue.push(item)
            return []
        final = item.final and self._flood_end is not None  # no flood began since
        batch = self._batch
        if batch is None:
            self._batch = batch = item
            batch.final = final
        else:  # alarms that came in meanwhile join it
            batch.offers[:0] = item.offers
            batch.final = batch.final or final
            if item.rank < batch.rank:
                batch.priority = item.priority
                self.queue.reranked(batch)
        if batch not in self.queue:
            self.queue.push(batch)
        return []

    def _expired(self, item: Item) -> list[Effect]:
        if item.kind is ItemKind.REANNOUNCE:
            self._active.pop(item.key, None)
            return [Event("expired", {"id": item.key})]
        return [ended_as(item.offers[0], "expired", reason="its time to live passed in the queue")]

    def _expire_members(self, item: Item, now: float) -> list[Effect]:
        stale = [o for o in item.offers if now >= o.expires]
        item.offers[:] = [o for o in item.offers if now < o.expires]
        reason = "its time to live passed before the flood summary"
        return [ended_as(o, "expired", reason=reason) for o in stale]

    # -- the clock ------------------------------------------------------------------------
    def tick(self, now: float) -> list[Effect]:
        """Everything that is due by now: delays, shelve ends, expiry, re-announcements."""
        effects: list[Effect] = []
        for seq, offer in list(self._held.items()):
            if now >= offer.at + offer.timing.on_delay_s:
                del self._held[seq]
                if now >= offer.expires:
                    effects.append(ended_as(offer, "expired", reason="expired in its on-delay"))
                else:
                    effects += self._release(offer, now)
        for source, when in list(self._clearing.items()):
            if now >= when:
                del self._clearing[source]
                effects += self._return_to_normal(source)
        for pattern, until in list(self._shelved.items()):
            if now >= until:
                del self._shelved[pattern]
                effects.append(Event("unshelved", {"topic": pattern}))
        for item in self.queue:
            if item.kind is not ItemKind.SUMMARY and now >= item.expires:
                self.queue.remove(item)
                effects += self._expired(item)
        for key, active in list(self._active.items()):
            if now >= active.offer.expires:
                self._end_active(lambda o, key=key: o.key == key)
                effects.append(Event("expired", {"id": key}))
            elif (
                not (active.silenced or active.cleared) and active.item is None
                and now >= active.due and not self.holds.holding(active.offer.source, now)
            ):  # fmt: skip
                if self.flood.active and active.offer.priority != "critical":
                    active.due = now + active.offer.timing.reannounce_s
                    continue
                text = active.offer.announcement.text if active.offer.announcement else ""
                priority = active.offer.priority
                active.item = self._item(ItemKind.REANNOUNCE, priority, [active.offer], text)
                self.queue.push(active.item)
        for name, fault in self._faults.items():
            if not fault.acknowledged and fault.item is None and now >= fault.due:
                self._say_fault(name, fault)
        if self.flood.active and self.flood.ended(now):
            effects.append(Event("flood_ended", {"alarms": self.flood.count(now)}))
            self._flood_end = now
            if self._batch is None:  # news, not an alarm: it cuts into nothing
                self._batch = self._item(ItemKind.SUMMARY, "low", [])
            self._batch.final = True
            if self._batch not in self.queue:
                self.queue.push(self._batch)
        elif self._batch and self._batch not in self.queue and now >= self._next_summary:
            self.queue.push(self._batch)
        return effects

    def board(self) -> list[OnBoard]:  # the unacknowledged alarms, for the operator page
        return [OnBoard(a.offer, a.said, a.silenced, a.cleared) for a in self._active.values()]

    def active_keys(self) -> tuple[set[str], set[str]]:  # unacknowledged; of them returned
        return set(self._active), {k for k, a in self._active.items() if a.cleared}

    def status(self) -> dict[str, Any]:
        return {
            "queue": len(self.queue),
            "held": len(self._held),
            "speaking": self.playing.key if self.playing else None,
            "unacknowledged": len(self._active),
            "cleared_unacknowledged": sum(a.cleared for a in self._active.values()),
            "flood": self.flood.active,
            "shelved": sorted(self._shelved),
        }
