"""A standby gateway's view of its primary: alive or gone, what it ended, and what to hold.

A standby takes in, journals and decides every alert as any gateway does; what it would say
waits in its queue (`holds`) while the primary is alive. The evidence, and only it, is the
primary's status, which a running primary publishes again every `beat_s` (BEAT_S: its beat)
(docs/standby.md, "The evidence"):

- alive: its last status is any state but `offline` (`online`, `degraded`, `starting`) and
  came less than `takeover_s` + 2 x its `beat_s` ago (`silent_s`); or no status has been heard
  yet and the first message of our subscription came less than `takeover_s` ago (the broker
  hands retained messages over at a subscription, so a status that exists comes with the first
  messages). Each new subscription (a reconnect) starts both clocks again;
- gone: its status is `offline` (its Last Will, which the broker publishes when its
  connection drops or its keepalive lapses, or what it publishes itself at a stop) and our
  own connection stayed up OFFLINE_GRACE_S after it (a broker stopping publishes every Will,
  then closes the connections; one handed over retained at our subscription, after a
  broker's restart perhaps the Will it kept, waits `takeover_s` for the primary); or none
  (never started) `takeover_s` after our first message; or its status silent for `silent_s`
  (a Last Will lost with a broker restarted meanwhile, a retained `online` left stale): a
  running primary's beat would have come;
- unreachable, which counts as gone: the bridge from our broker to the primary's is down
  (`link`: a Mosquitto bridge's notification topic says `0`) for `takeover_s`. The primary's
  status on our broker is then the last one the bridge carried, however dead the primary or
  its broker is since; the alerts published on our broker reach no one else;
- mute, which counts as gone: its status has carried a fault that keeps it from being heard
  (`MUTE`: its sound device, a stuck announcer or player) for `takeover_s`. Alive, connected
  and queueing, it says nothing meanwhile; when it is heard again it may say some of what the
  standby said (between twice and never, twice).

A status naming another run than the primary's current one is taken only once that run is
over (its `offline`, or its silence) or as a new subscription's first (`of_run`). A primary
whose status says it stands by for us too is gone if our client id sorts first (as with
`mutual`), and the fault LOOP names the misconfiguration on both.

While it is gone, an item is said at once if every alert in it came after the primary went
(no primary could have said it), else once each has waited `takeover_s` since its receipt
without the primary's outcome. The primary's outcome of an alert, matched by id, ends the
standby's copy as `covered` (desk.py); one that comes before the copy is kept for it.

A primary that knows its standby (`standby.reports_of`) sees the other side (`Handback`): at
its start it holds what it would say until what the broker kept for it is in, and the
standby's report that it said an alert ends the primary's copy (docs/standby.md, "Handback").

Pure state with time as an argument; the desk holds its lock around every call.
"""

from __future__ import annotations

import datetime
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cosyedge.model import Item, ItemKind

OFFLINE = "offline"
STATES = frozenset({"starting", "online", "degraded", OFFLINE})  # what a gateway's status says
# How often a gateway publishes its retained status again when nothing changed (its beat), in
# seconds: told in the status as `beat_s`, so that its standby knows when one is overdue.
BEAT_S = 2.0
BEAT_RANGE = (0.1, 60.0)  # a `beat_s` told outside it is taken as BEAT_S
LATE_BEATS = 2  # beats a status may be late, beyond `takeover_s`, before silence is gone
# How long our connection must stay up after the primary's `offline` before it counts, in
# seconds: a broker shutting down (SIGTERM, `systemctl restart mosquitto`) publishes every
# client's Last Will, then closes the connections; Mosquitto 2.0.11 left 0.6 to 9.4 ms
# between the two over 20 restarts (docs/standby.md, "Measured"). A Will followed by our own
# connection's loss within it is the broker's going down, not the primary's.
OFFLINE_GRACE_S = 0.5
LOOP = "standby-loop"  # the fault of two gateways each standing by for the other
# The primary's faults that keep it from being heard: no device, or a stage that stopped
# (alarms.md). A zoned primary's `audio:<output>` is not one: its other zones still speak.
MUTE = frozenset({"audio", "announcer-stuck", "player-stuck"})
REASON_MAX = 200  # of a primary's fault, told in ours
ENDED_MAX = 10_000  # primary outcomes kept for copies not yet here: a flood's worth
# The primary's outcomes that do not end a standby's copy: a duplicate's is not its alert's
# (that one is told apart), and a standby's own never comes from a primary.
NOT_ENDING = frozenset({"deduplicated", "covered"})
# The standby's outcomes that end a primary's copy at its restart: those heard, if only in
# part. The rest the primary decides itself (its own commands, expiry, clears), or the
# standby could not say (`failed`): then the primary does, between twice and never.
HEARD = frozenset({"spoken", "summarized", "silenced"})


TAKEOVER = "standby"  # the fault a takeover is, said by the desk as it happens


@dataclass(frozen=True)
class Phrase:
    """What a takeover says before the alerts it takes over, as the fault `TAKEOVER`
    (`standby.takeover_phrase`): its text, language, how often it is said again until
    acknowledged (0: once), and what the primary's return says (None: nothing)."""

    text: str
    lang: str = "en"
    every_s: float = 0.0
    cleared: str | None = None


class Watch:
    """The primary as a standby sees it. `now` is the rules' monotonic clock, `wall` the
    wall clock at the same moment (for what is told)."""

    def __init__(
        self,
        takeover_s: float,
        window_s: float,
        phrase: Phrase | None = None,
        ids: tuple[str, str] = ("", ""),
    ) -> None:
        """`window_s`: how long a primary outcome waits for our copy of its alert (the
        de-duplication window: a copy later than that is another alert); `phrase`, said at
        each takeover before its alerts (None: the fault is shown, not said); `ids`: our
        client id and the primary's, which decide who speaks if it stands by for us too."""
        self.takeover_s = takeover_s
        self.ids = ids
        self.run: str | None = None  # the run the primary's statuses name; None: none yet
        # The run before it: a restarted primary sends again what its journal kept of its
        # last run's reports unacknowledged, naming that run.
        self._earlier_run: str | None = None
        self._fresh = True  # no status yet on this subscription: the first names the run
        self._loop: tuple[float, float] | None = None  # since when it says it is a standby
        self._prior: tuple[str | None, tuple[float, float] | None] = (None, None)
        self._grace = OFFLINE_GRACE_S  # how long the `offline` heard waits for our connection
        self.phrase = phrase
        self.raised = False  # this takeover's phrase is queued (desk.py), until the primary is back
        self.told: set[str] = set()  # the zones it was said in (a zone's alerts wait for it)
        self.state: str | None = None  # the primary's status `state`; None: none heard
        self.beat_s = BEAT_S  # how often the primary said it publishes its status
        self.ignored: dict[str, int] = {}  # the primary's messages not taken, by what they were
        self._heard: tuple[float, float] | None = None  # our subscription's first message
        self._listening = 0.0  # since when our subscription has heard without a gap (monotonic)
        self.deaf_s = LATE_BEATS * BEAT_S  # a gap that long: our own beat missed twice
        # The last message of any kind through our subscription (monotonic): written by paho's
        # network thread alone, as one float, read under the desk's lock.
        self.lately: float | None = None
        self._status_at: tuple[float, float] | None = None  # its last status: (now, wall)
        self._offline: tuple[float, float] | None = None  # when its `offline` came
        self._mute: tuple[float, float, str] | None = None  # since when, and which fault
        self._unlinked: tuple[float, float, str] | None = None  # the bridge down: since, where
        self._spoke = False  # an item was said since the primary went
        self.ended = Ended(window_s)  # the primary's outcomes, for copies not yet here

    # -- the evidence -------------------------------------------------------------------------
    def heard(self, now: float, wall: float) -> None:
        """The first message of a subscription (at the start, and at each reconnect) came:
        the primary's status, if it has one, comes with it; the silence counts from here."""
        self._heard = (now, wall)
        self._fresh = True

    def lost(self, now: float) -> bool:
        """Our connection, or the bridge to the primary's broker, was lost: an `offline`
        heard less than its grace before is the broker's going down (it publishes every Will
        as it stops), not the primary's, and is dropped (counted as `offline-at-close`): the
        statuses heard after the reconnect, or the bridge's state, decide. True if one was."""
        if self.state != OFFLINE or self._offline is None or now >= self._offline[0] + self._grace:
            return False
        (self.state, self._status_at), self._offline = self._prior, None
        self.ignore("offline-at-close")
        return True

    def of_run(self, state: str, run: object, now: float) -> bool:
        """Whether a status naming `run` is taken: one naming the primary's current run; the
        first of each subscription (the broker's retained one decides after a reconnect);
        another run's once the current one is over (its `offline` heard, or silent)."""
        over = self._fresh or self.state == OFFLINE or self._silent(now) is not None
        if self.run is not None and run != self.run and not over:
            return False
        self._fresh = False
        new = run if isinstance(run, str) else (self.run if state == OFFLINE else None)
        if new != self.run:
            self._earlier_run, self.run = self.run, new
        return True

    def heard_any(self, now: float) -> None:
        """A message of any kind came through our subscription: it works. After a gap longer
        than `deaf_s` (our own beat missed twice: this process stood still, or its connection
        was cut) it begins a new stretch of listening, from which alone silence counts: what
        came first after it is the backlog, the primary's statuses perhaps still behind it."""
        if self.lately is None or now - self.lately > self.deaf_s:
            self._listening = now
        self.lately = now

    def status(
        self,
        state: str,
        faults: Mapping[str, Any],
        now: float,
        wall: float,
        beat_s: float = BEAT_S,
        retained: bool = False,
        role: object = None,
        run: object = None,
    ) -> bool:
        """The primary's status said `state` (one of STATES) with `faults` (name -> reason),
        and that it is published again every `beat_s`; `retained`: handed over at our
        subscription (kept by the broker: after a broker's restart, perhaps the Will it
        published as it stopped, which waits `takeover_s` for the primary to reconnect);
        `role`: its status's `standby.role` (`standby`: it stands by for us too); `run`, the
        run it names (`of_run`): False, counted as `another-run`, for a status not taken."""
        if not self.of_run(state, run, now):
            self.ignore("another-run")
            return False
        if state == OFFLINE and self._closing(now):  # its broker's Wills as it stops
            self.ignore("offline-at-close")
            return False
        if state == OFFLINE and self.state != OFFLINE:
            self._offline, self._prior = (now, wall), (self.state, self._status_at)
            self._grace = self.takeover_s if retained else OFFLINE_GRACE_S
        elif state != OFFLINE:
            self._offline = None
            self._carried(now, retained)
        looped = role == "standby" and state != OFFLINE
        self._loop = (self._loop or (now, wall)) if looped else None
        self.state, self._status_at = state, (now, wall)
        low, high = BEAT_RANGE
        self.beat_s = beat_s if low <= beat_s <= high else BEAT_S
        mute = sorted(MUTE & faults.keys()) if state != OFFLINE else []
        if not mute:
            self._mute = None
        elif self._mute is None:
            reason = str(faults[mute[0]])[:REASON_MAX]  # the primary's words, as it sent them
            self._mute = (now, wall, f"{mute[0]}: {reason}")
        if self.alive(now):
            self._spoke = False  # back: the next takeover is told again
        return True

    def _carried(self, now: float, retained: bool) -> None:
        """A status of the primary's, sent now (not retained), came after the bridge said it
        was down, past the moment's grace for what was already on its way: the bridge carries
        it, and the `0` is none of the bridge's (a client may publish on `$SYS` topics)."""
        if not retained and self._unlinked and now >= self._unlinked[0] + OFFLINE_GRACE_S:
            self.ignore("link-contradicted")
            self._unlinked = None

    def _closing(self, now: float) -> bool:
        """Whether the bridge to the primary's broker went down less than OFFLINE_GRACE_S ago:
        an `offline` then is that broker's publishing every Will as it stops (it closes the
        bridge as it closes every connection), not the primary's death; the bridge's own
        state decides, after `takeover_s`."""
        return self._unlinked is not None and now < self._unlinked[0] + OFFLINE_GRACE_S

    def ignore(self, what: str) -> None:
        """A message on the primary's topics was not taken (not its shape, too big, or not
        one it could have sent): counted, as `what`, in the status."""
        self.ignored[what] = self.ignored.get(what, 0) + 1

    def link(self, up: bool, what: str, now: float, wall: float) -> None:
        """The bridge to the primary's broker is `up` or down, as `what` (the topic) says.
        Back up after down, silence counts again from now: what the bridge kept while it was
        down (alerts the primary has said) comes first, its status perhaps still behind it."""
        if up:
            if self._unlinked is not None:
                self._unlinked, self._listening = None, now
        elif self._unlinked is None:
            self._unlinked = (now, wall, what)
            self.lost(now)  # an `offline` just before: the primary's broker stopping
        if self.alive(now):
            self._spoke = False

    @property
    def silent_s(self) -> float:
        """How long a primary's status may go unrepeated before the primary counts as gone:
        `takeover_s`, and LATE_BEATS of its beats late beyond it."""
        return self.takeover_s + LATE_BEATS * self.beat_s

    def _silent(self, now: float) -> tuple[float, float] | None:
        """When its silence made the primary gone, (now, wall): no status `takeover_s` after
        our subscription's first message; or none repeated `silent_s` after the last one (or
        after the subscription's first message, or after our listening began again, if later)
        while a message came through our subscription since (this gateway's own beat among
        them: silence heard while we were cut off from the broker, or stood still, is no
        evidence). None while not so."""
        if self._heard is None:
            return None
        if self.state is None:
            since, bound = self._heard, self.takeover_s
        else:
            since = max(self._heard, self._status_at or self._heard)
            if self._listening > since[0]:  # silence heard only while we listened
                since = (self._listening, since[1] + self._listening - since[0])
            bound = self.silent_s
            if self.lately is None or self.lately < since[0] + bound:
                return None
        if now < since[0] + bound:
            return None
        return since[0] + bound, since[1] + bound

    def _evidence(self, now: float) -> list[tuple[tuple[float, float], str]]:
        """What makes the primary gone now, each with when it did, (now, wall): `offline` (by
        its status, or none at all), `silent` (no status again for its bound), `unreachable` (the
        bridge to it down past takeover_s) or `mute` (its fault past takeover_s)."""
        if self.state == OFFLINE:
            counted = self._offline and now >= self._offline[0] + self._grace
            return [(self._offline, OFFLINE)] if counted and self._offline else []
        if self._loop and self.ids[0] < self.ids[1]:  # both apply it: ours sorts first
            return [(self._loop, "standby")]
        lasted = ((self._unlinked, "unreachable"), (self._mute, "mute"))
        evidence = [
            ((s[0] + self.takeover_s, s[1] + self.takeover_s), why)
            for s, why in lasted
            if s and now >= s[0] + self.takeover_s
        ]
        silence = "silent" if self.state else OFFLINE  # no status at all: none to be silent
        return evidence + ([(silent, silence)] if (silent := self._silent(now)) else [])

    def _earliest(self, now: float) -> tuple[tuple[float, float], str] | None:
        """The earliest evidence that the primary is gone (`_evidence`); None while alive."""
        return min(self._evidence(now), default=None)

    def _gone_at(self, now: float) -> tuple[float, float] | None:
        """Since when the primary is gone, (now, wall); None while it is alive."""
        earliest = self._earliest(now)
        return earliest[0] if earliest else None

    def alive(self, now: float) -> bool:
        return self._gone_at(now) is None

    def names_run(self, message: Mapping[str, Any]) -> bool:
        """Whether a report or event names the run the primary's status names, or the one
        before it (a restarted primary sends again its last run's reports the broker had not
        acknowledged); one whose status names none: one naming none. Another publisher on the
        primary's topics (a gateway of another pair on the default topics) never ends or
        commands anything here."""
        run = message.get("run")
        return run == self.run or (run is not None and run == self._earlier_run)

    # -- what is said -------------------------------------------------------------------------
    def holds(self, item: Item, now: float) -> bool:
        """Whether `item` waits: the standby's own faults never do; the rest while the
        primary is alive, and an alert received before it went until `takeover_s` after."""
        if item.kind is ItemKind.FAULT:
            return False
        gone = self._gone_at(now)
        if gone is None:
            return True
        if item.kind is ItemKind.REANNOUNCE:  # only what this gateway said is re-announced
            return False
        return any(self.waits(o.at, now) for o in item.offers)

    def waits(self, at: float, now: float) -> bool:
        """Whether an alert received at `at` waits now: the primary alive, or it came while
        the primary was and has not waited `takeover_s` since."""
        gone = self._gone_at(now)
        return gone is None or (at < gone[0] and now < at + self.takeover_s)

    def takeover(self, now: float) -> Phrase | None:
        """The phrase to queue now: once per takeover, as it begins. None while this gateway
        speaks because the primary stands by for it too: no gateway failed, and the fault LOOP
        says what is wrong."""
        if self.phrase is None or self.raised:
            return None
        earliest = self._earliest(now)
        if earliest is None or earliest[1] == "standby":
            return None
        self.raised = True
        return self.phrase

    def handed_back(self) -> Phrase | None:
        """The primary is back: the phrase queued at the takeover, if one was, whose fault
        ends; the next takeover says its own."""
        raised, self.raised = self.raised, False
        self.told.clear()
        return self.phrase if raised else None

    def said_in(self, zone: str) -> None:
        """This takeover's phrase was said in `zone`: its alerts wait no more."""
        self.told.add(zone)

    def first_in(self, zones: set[str]) -> set[str]:
        """Of the zones where the takeover's phrase is to be said, those whose alerts wait
        for it: the zones it was not yet said in at this takeover (its reminders hold none)."""
        return zones - self.told if self.raised else set()

    def news_from(self, now: float) -> float | None:
        """While the primary is gone, since when what is of a moment (a flood's end) is still
        news at this takeover: `takeover_s` before it went. Earlier, the primary, alive and
        heard, had time to say it (docs/standby.md, "What is of its moment")."""
        gone = self._gone_at(now)
        return None if gone is None else gone[0] - self.takeover_s

    def first_said(self, item: Item, now: float) -> bool:
        """True for the first item other than a fault said since the primary went."""
        if item.kind is ItemKind.FAULT or self._spoke or self.alive(now):
            return False
        self._spoke = True
        return True

    # -- what is shown ------------------------------------------------------------------------
    def fault(self, now: float) -> str | None:
        """The fault `standby` while the primary is gone: since when (the time its evidence
        made it gone), and by which evidence."""
        earliest = self._earliest(now)
        if earliest is None:
            return None
        (_, wall), reason = earliest
        since = _when(wall)
        if reason == OFFLINE and self.state is None:
            return f"primary offline since {since} (it has no status); speaking for it"
        if reason == OFFLINE:
            return f"primary offline since {since} (its status is offline); speaking for it"
        if reason == "silent":
            why = f"no status from it for {self.silent_s:g} s; it tells one every {self.beat_s:g} s"
            return f"primary silent since {since} ({why}); speaking for it"
        if reason == "standby":
            return f"primary is a standby too since {since} ({self.loop_fault()}); speaking for it"
        if reason == "unreachable" and self._unlinked:
            where = f"the bridge to its broker is down: {self._unlinked[2]} says 0"
            return f"primary unreachable since {since} ({where}); speaking for it"
        fault = self._mute[2] if self._mute else ""
        return f"primary cannot be heard since {since} (its fault {fault}); speaking for it"

    def loop_fault(self) -> str | None:
        """The fault LOOP while the primary's status says it stands by for us too: neither
        would speak; the one whose client id sorts first does (as with `mutual`)."""
        if self._loop is None:
            return None
        own, other = self.ids
        first = own if own < other else other
        return (
            f"{other} (standby.client_id) stands by for this gateway ({own}) too: give one "
            f"of them `mutual: true` on both, or no `standby.enabled`; {first} speaks meanwhile"
        )

    def shown(self, now: float) -> dict[str, Any]:
        """The standby's part of the status: the primary's state as the evidence has it (its
        own while alive: `unknown` before any), and the messages of its not taken."""
        earliest = self._earliest(now)
        primary = (self.state or "unknown") if earliest is None else earliest[1]
        shown: dict[str, Any] = {"role": "standby", "primary": primary}
        if earliest is not None:
            shown["since"] = round(earliest[0][1], 3)
        if self.ignored:
            shown["ignored"] = dict(self.ignored)
        return shown


class Ended:
    """The other gateway's outcomes of alerts, by id, each kept for the de-duplication window
    for our copy of its alert not yet here (the other one had it first)."""

    def __init__(self, window_s: float) -> None:
        self.window_s = window_s
        self._kept: OrderedDict[str, tuple[float, dict[str, Any]]] = OrderedDict()

    def add(self, key: str, report: Mapping[str, Any], now: float) -> None:
        """The other gateway told its outcome of the alert `key`."""
        self._kept[key] = (now, dict(report))
        self._kept.move_to_end(key)
        while len(self._kept) > ENDED_MAX:
            self._kept.popitem(last=False)

    def before(self, key: str, now: float) -> dict[str, Any] | None:
        """Its outcome of `key`, if it came within the window."""
        kept = self._kept.get(key)
        return kept[1] if kept and now - kept[0] < self.window_s else None


class Handback:
    """A primary's view of its standby, from its start: `now` is the rules' monotonic clock.

    At a start the broker hands over what it kept for this gateway's session while it was
    gone: alerts, commands, and the standby's reports of what it said meanwhile. Until that
    is in (`received`: our own marker, published once subscribed, came back behind it) or
    `wait_s` has passed since the start, nothing but the gateway's own faults is said, so
    that a report still on its way cannot come too late to keep an alert from being said
    twice. Mosquitto delivers a session's messages in the order it queued them, the marker
    last; MQTT itself orders only one publisher's messages on one topic, hence the bound.
    """

    def __init__(self, wait_s: float, window_s: float, now: float) -> None:
        self.until = now + wait_s
        self.started = now
        self.received_at: float | None = None
        self.ended = Ended(window_s)  # the standby's reports of what it said

    def again(self, now: float, wait_s: float) -> None:
        """A new connection: hold again, until what the broker kept meanwhile is in (the
        marker of this connection) or `wait_s` has passed."""
        self.started, self.until, self.received_at = now, now + wait_s, None

    def received(self, now: float) -> float | None:
        """Our marker came back: what the broker kept is in. The seconds it took since the
        start (or the reconnect), the first time; None after."""
        if self.received_at is not None:
            return None
        self.received_at = now
        return now - self.started

    def holding(self, now: float) -> bool:
        return self.received_at is None and now < self.until

    def holds(self, item: Item, now: float) -> bool:
        """Whether `item` waits: all but this gateway's own faults, while holding."""
        return item.kind is not ItemKind.FAULT and self.holding(now)


PRIMARY_SAID = ("primary", "ended by the gateway this one stands by for")
STANDBY_SAID = ("standby", "ended by this gateway's standby while it was gone")


def covered(report: dict[str, Any], whose: tuple[str, str]) -> dict[str, Any]:
    """What a `covered` outcome tells of the other gateway's: its outcome, seq and reason,
    under its role's name."""
    other = {k: report[k] for k in ("outcome", "seq", "reason", "by") if k in report}
    role, ended = whose
    return {"reason": f"{ended}: {report.get('outcome')}", role: other}


def _when(wall: float) -> str:
    """A wall-clock time as the fault says it: local, to the second, with its offset."""
    return datetime.datetime.fromtimestamp(wall).astimezone().isoformat(timespec="seconds")
