"""The alarm desk's side of the other gateway (alarms/standby.py): a standby's view of its
primary, and a primary's of its standby at its restart. A part of AlarmDesk, under its lock,
on paho's network thread (the reports and statuses come through the session's taps)."""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from cosyedge.alarms import standby as peer
from cosyedge.alarms.commands import acted_on
from cosyedge.alarms.zones import Hold, Zones
from cosyedge.model import Command, Delivery, Effect, Item, ItemKind, on_clock

log = logging.getLogger(__name__)

# The primary's commands a standby carries out too, by the ids they reached: those that end
# or quiet what stands; and by the topic they named, its shelves (SHELVES).
MIRRORED = frozenset({"ack", "silence"})
SHELVES = frozenset({"shelve", "unshelve"})
IDS_MAX = 1000  # of one event: a command reaches at most what stands
TEXT_MAX = 200  # of its user and comment
TOPIC_MAX = 1000  # of a shelve's topic filter
# A primary's clock ticking later than this stood still (the process stopped, an I/O or swap
# stall): its beat stopped with it, and a standby may have taken it for silent. One beat:
# statuses then stay under 2 beats apart, within every standby's bound (takeover_s + 2 beats).
STALL_S = peer.BEAT_S


class PeerDesk:
    """The desk's calls about the other gateway; AlarmDesk has the state they use."""

    standby: peer.Watch | None
    handback: peer.Handback | None
    policy: Zones
    _cond: threading.Condition
    _emit: Callable[[list[Effect]], None]
    _ticked: float | None  # the clock's last tick, set by the clock
    _on_stall: Callable[[float], None] | None

    # -- a standby's primary (paho's network thread, alarms/standby.py) ----------------------
    def heard(self) -> None:
        """A message came through the subscription: a primary's status would have come."""
        self._primary(lambda w, now, wall: w.heard(now, wall), "first message")

    def subscription_heard(self) -> None:
        """A message came through the subscription (any): it is alive (Watch.lately)."""
        if self.standby is not None:
            self.standby.heard_any(time.monotonic())  # one float: no lock (Watch.lately)

    def primary_status(
        self, state: str, faults: Mapping[str, Any], beat_s: float = peer.BEAT_S, **told: Any
    ) -> bool:
        """The primary's status says `state` and `faults`, and that it comes every `beat_s`;
        `told`: what else it says (Watch.status). False if it was not taken (another run)."""
        return self._primary(
            lambda w, now, wall: w.status(state, faults, now, wall, beat_s, **told),
            f"status is {state}",
        )

    def primary_lost(self) -> None:
        """Our connection was lost: an `offline` heard just before is the broker's stop."""
        if self._primary(lambda w, now, wall: w.lost(now), "connection lost"):
            log.warning("primary's offline came as our connection closed: the broker stopped")

    def primary_ignored(self, what: str) -> None:
        """A message on the primary's topics was not its own (`what` it claimed to be)."""
        if self.standby is not None:
            with self._cond:
                self.standby.ignore(what)

    def primary_link(self, up: bool, what: str) -> None:
        """The bridge to the primary's broker is `up` or down, as the topic `what` says."""
        self._primary(lambda w, now, wall: w.link(up, what, now, wall), f"link ({what}) {up:d}")

    def _primary(self, tell: Callable[[peer.Watch, float, float], bool | None], told: str) -> bool:
        """What a standby learnt of its primary, `tell`ing its watch (with the monotonic and
        wall clocks); a change of role it makes at once is logged, naming what was `told`.
        What `tell` answered."""
        if self.standby is None:
            return False
        with self._cond:
            now = time.monotonic()
            was = self.standby.alive(now)
            answer = tell(self.standby, now, time.time())
            alive = self.standby.alive(now)
            self._cond.notify_all()
            if alive and not was and (phrase := self.standby.handed_back()) is not None:
                self._emit(self.policy.fault_cleared(peer.TAKEOVER, phrase.cleared, phrase.lang))
        if alive != was:  # its status changes with every alert: only a change of role is told
            log.warning("primary's %s: %s", told, "holding" if alive else "speaking for it")
        return bool(answer)

    def primary_report(self, report: dict[str, Any]) -> None:
        """The primary's outcome report of an alert: our copy of it, unsaid, ends `covered`;
        one the primary let be heard that is re-announced stands here as said, so that a
        takeover goes on re-announcing it until it is acknowledged."""
        if self.standby is None or report.get("outcome") in peer.NOT_ENDING:
            return
        if self.standby.state == peer.OFFLINE:  # its connection is gone: not its report
            self.primary_ignored("report-offline")
            return
        if not self.standby.names_run(report):  # another gateway's, on the same topic
            self.primary_ignored("report-another-run")
            return
        self._told(self.standby.ended, report, peer.PRIMARY_SAID)

    def primary_command(self, event: Mapping[str, Any]) -> None:
        """The primary's `command` event: an `ack` or `silence` it carried out (from its own
        page or HTTP API as well as the command topic) is carried out here for the ids it
        reached, with its user and comment; one carried out here already (from the command
        topic both take) changes nothing and tells nothing. A `shelve` or `unshelve` likewise,
        for the topic it named (`_shelf`)."""
        ids, cmd = event.get("ids"), event.get("cmd")
        by = {k: v[:TEXT_MAX] for k in ("user", "comment") if isinstance(v := event.get(k), str)}
        if self.standby is not None and self.standby.state == peer.OFFLINE:
            self.primary_ignored("command-offline")  # its connection is gone: not its event
            return
        if self.standby is not None and not self.standby.names_run(event):
            self.primary_ignored("command-another-run")  # another gateway's, on the same topic
            return
        if self.standby is not None and cmd in SHELVES:
            self._shelf(event, by)
        if self.standby is None or cmd not in MIRRORED or not isinstance(ids, list):
            return
        with self._cond:
            now = time.monotonic()
            for key in [i for i in ids if isinstance(i, str)][:IDS_MAX]:
                effects = self.policy.command(Command(str(cmd), id=key, **by), now)
                if acted_on(effects):
                    self._emit(effects)
            self._cond.notify_all()

    def _shelf(self, event: Mapping[str, Any], by: dict[str, str]) -> None:
        """The primary's shelve (for its `duration_s`) or unshelve of a topic, carried out here
        unless it is so already: a shelf in force is not lengthened, a missing one not
        removed, so one given on the command topic both take is carried out once here."""
        topic, cmd, duration = event.get("topic"), event.get("cmd"), event.get("duration_s")
        if not isinstance(topic, str) or not 0 < len(topic) <= TOPIC_MAX:
            return
        if cmd == "shelve" and not (isinstance(duration, int | float) and duration > 0):
            return
        with self._cond:
            now = time.monotonic()
            shelved = self.policy.lasting()[0].get(topic, now) > now
            if shelved == (cmd == "shelve"):
                return
            seconds = float(duration) if cmd == "shelve" else None
            self._emit(
                self.policy.command(Command(str(cmd), topic=topic, duration_s=seconds, **by), now)
            )
            self._cond.notify_all()

    def _ended_first(self, key: str, now: float) -> list[Effect]:
        """The other gateway's outcome of `key`, come before our copy: what it ends here."""
        if self.standby is not None and (ended := self.standby.ended.before(key, now)):
            return self._ended_there(key, ended, now, peer.PRIMARY_SAID)
        if self.handback is not None and (ended := self.handback.ended.before(key, now)):
            return self._ended_there(key, ended, now, peer.STANDBY_SAID)
        return []

    # -- a primary's standby (paho's network thread, alarms/standby.py Handback) --------------
    def standby_report(self, report: dict[str, Any]) -> None:
        """The standby's outcome report of an alert: if it was heard, our copy waiting to be
        said ends `covered`, and one re-announced stands here as said."""
        if self.handback is not None and report.get("outcome") in peer.HEARD:
            self._told(self.handback.ended, report, peer.STANDBY_SAID)

    def _told(self, ended: peer.Ended, report: dict[str, Any], whose: tuple[str, str]) -> None:
        """The other gateway's outcome `report` of an alert: kept in `ended` for our copy not
        yet here, and what it ends here now."""
        key = report.get("id")
        if not isinstance(key, str):
            return
        with self._cond:
            now = time.monotonic()
            ended.add(key, report, now)
            self._emit(self._ended_there(key, report, now, whose))
            self._cond.notify_all()

    def _ended_there(
        self, key: str, report: dict[str, Any], now: float, whose: tuple[str, str]
    ) -> list[Effect]:
        """What the other gateway's outcome `report` of `key` ends here: heard there, our
        copies waiting end `covered` and one re-announced stands as said, due a period after
        its audio ended (policy.said_elsewhere); else our copies not yet said end `covered`."""
        told = peer.covered(report, whose)
        if report.get("outcome") not in peer.HEARD:
            return self.policy.cover(key, told)
        end = report.get("end")  # the wall time its audio ended, when it tells one
        # by the other gateway's clock, which need not agree with ours: never later than now
        given = isinstance(end, int | float) and math.isfinite(end)
        said_at = min(on_clock(end), now) if given else now
        zones = report.get("heard_in")  # a standby covering some zones: heard there alone
        heard_in = [z for z in zones if isinstance(z, str)] if isinstance(zones, list) else None
        return self.policy.said_elsewhere(key, said_at, now, told, heard_in)

    def handback_again(self, wait_s: float) -> None:
        """Reconnected: hold again until what the broker kept meanwhile is in (Handback)."""
        if self.handback is not None:
            with self._cond:
                self.handback.again(time.monotonic(), wait_s)

    def when_stalled(self, then: Callable[[float], None]) -> None:
        """`then(seconds)` when this gateway's clock finds it stood still that long (a
        primary's handback: hold again, as at a reconnect, until its marker is back)."""
        self._on_stall = then

    def _stalled(self, now: float) -> bool:
        """A primary's clock has not ticked for STALL_S: it stood still, and its standby
        may have spoken meanwhile (held until the clock's tick has told the handback)."""
        ticked = self._ticked
        return self.handback is not None and ticked is not None and now - ticked > STALL_S

    def _stood_still(self, now: float) -> None:
        """The clock's tick, before it counts: if it comes that late, the handback is told
        (outside the lock: it publishes a marker), while `_stalled` still holds."""
        if self._stalled(now) and self._on_stall is not None and self._ticked is not None:
            self._on_stall(now - self._ticked)

    def backlog_in(self) -> None:
        """What the broker kept for this gateway is in (its marker came back): speak."""
        with self._cond:
            waited = self.handback.received(time.monotonic()) if self.handback else None
            self._cond.notify_all()
        if waited is not None:
            log.info("handback: what the broker kept is in after %.1f s; speaking", waited)

    def standby_loop(self) -> str | None:
        """The fault `standby-loop`: the primary stands by for this gateway too."""
        with self._cond:
            return self.standby.loop_fault() if self.standby else None

    def standby_fault(self) -> str | None:
        """The fault `standby` now: the primary is gone and this gateway speaks for it."""
        with self._cond:
            return self.standby.fault(time.monotonic()) if self.standby else None

    def _taking_over(self, now: float) -> None:
        """Before a standby takes an item while the primary is gone: at a takeover's start its
        phrase is queued, the fault `standby` (the self-watch's tick tells it as every fault,
        up to 0.5 s later, and leaves the saying to this); what is of a moment and came too
        long before the primary went is no longer said (a flood's end)."""
        if self.standby is None:
            return
        if (phrase := self.standby.takeover(now)) is not None:
            log.warning("standby: taking over; saying so before the alerts taken over")
            self._emit(self.policy.fault(peer.TAKEOVER, phrase.text, phrase.lang, phrase.every_s))
        if (since := self.standby.news_from(now)) is not None:
            self.policy.news_before(since)

    def _uncovered(self, now: float) -> list[Effect]:
        """A standby covering some zones: the alerts of the others that a takeover would say
        now end, saying why (alarms/covered.py)."""
        standby = self.standby
        if standby is None:
            return []
        return self.policy.uncovered_due(lambda offer: not standby.waits(offer.at, now), now)

    def _said(self, item: Item, delivery: Delivery) -> None:
        """An item finished: the takeover's phrase, once said in its zone (not cut short to be
        said again), holds nothing more there, its reminders included."""
        phrase = item.kind is ItemKind.FAULT and item.fault == peer.TAKEOVER
        if self.standby and phrase and delivery.kind not in ("stopped", "unplayed"):
            self.standby.said_in(item.zone)

    def _hold(self, now: float) -> Hold | None:
        """What keeps a due item waiting (under the lock): a standby's primary alive, or its
        takeover's phrase not yet said in the item's zone (a critical alert goes before it, as it
        goes before every fault); a start."""
        standby, handback = self.standby, self.handback
        if standby is not None:
            first = standby.first_in(self.policy.fault_waiting(peer.TAKEOVER))
            return lambda item: (
                standby.holds(item, now)
                or (
                    item.kind is not ItemKind.FAULT
                    and item.priority != "critical"
                    and item.zone in first
                )
            )
        if handback is not None and self._stalled(now):
            return lambda item: item.kind is not ItemKind.FAULT
        if handback is not None and handback.holding(now):
            return lambda item: handback.holds(item, now)
        return None
