"""The alarm system watching itself: canaries through the broker, its drops, stuck stages,
restarts, and telling each of its own faults.

An annunciator that stopped hearing looks exactly like a quiet plant, so the daemon proves
its own intake: every `monitor.canary_interval_s` it publishes a canary to itself through
the broker (QoS 1, not retained, on `monitor.canary_topic/<client id>`), which must come back
through the same session and message handler as the alerts. No canary for
`monitor.canary_timeout_s` is the fault `intake`: the broker no longer delivers to us
(in-flight window full, ACL changed, subscription lost, session taken by another client).

Each fault is said with a fault tone and a short phrase rendered at start and held in
memory, so it is heard even when synthesis or the disk is what failed. `SelfWatch` is all of
it as one component: it holds the fault set (alarms/health.py), hears every part's trouble and
every fault's start and end through the observer interface, and keeps the retained status up
to date.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import secrets
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.health import STARTING, Health
from cosyedge.alarms.history import History
from cosyedge.component import Component, Detail
from cosyedge.config.alarms import MonitorConfig
from cosyedge.config.schema import Config
from cosyedge.config.templates import looks_like_canary
from cosyedge.faults import Faults
from cosyedge.intake.intake import Intake
from cosyedge.model import Event, Heartbeat
from cosyedge.mqtt.reports import Reporter
from cosyedge.observe import Fault, Observer
from cosyedge.regular import load_record, read_record, regular_only
from cosyedge.service.canary import (
    KEY_BYTES,
    BadCanary,
    Signer,
    canary_topic,
    load_key,
    unproven,
)
from cosyedge.service.notify import Notifier
from cosyedge.speech.fallback import fault_text

log = logging.getLogger(__name__)

# Shown in the status, not said: near the memory ceiling alerts are still heard, without a
# sound device nothing can be said (once it is back, the fault is over), and the alarm
# history is a record for later reviews, not part of the alarm path; keys that wait for a
# restart are the operator's own change, told by the reload's answer, nothing to re-announce.
QUIET_FAULTS = frozenset({"memory", "audio", "history", "restart"})
# Said by the desk as it happens, not at the monitor's next tick: a standby's takeover, whose
# phrase goes before the alerts taken over (alarms/peers.py), and the primary's return.
SAID_BY_DESK = frozenset({"standby"})
RESTART_WINDOW_S = 3600.0
MONITOR_GAP_S = 5.0  # the monitor ticks every 0.5 s: a longer pause means all were stopped
SILENT_NAMED = 3  # a fault names this many silent filters, then counts the rest
DROPPED_TOPIC = "$SYS/broker/publish/messages/dropped"  # Mosquitto's; see DropWatch
CANARY_KEY = "canary.key"  # in state_dir: signs the canaries (service/canary.py)
# What the fault `state` names when they cannot be kept there.
CANARY, START_COUNT, DROP_COUNT = "the canary key", "the start count", "the broker's drop count"
DROP_HOLD_S = 600.0
UNREAD_S = 60.0  # Mosquitto's sys_interval is 10 s by default, and the value is retained
UNREADABLE = "not readable: the broker does not publish it, or its ACL denies it to us"


@dataclass
class Watched:
    """One filter under watch: its canary topic, and when a canary last came back."""

    topic_filter: str
    topic: str | None  # None: none can be derived, so it is unverifiable
    heard: float  # a canary came back, or the grace period began (start, subscription)
    proven: float | None = None  # a canary came back in this run (the watch's clock)


@dataclass
class Rejected:
    """Messages on canary topics that proved nothing, by kind; each kind is logged once."""

    counts: Counter[str] = field(default_factory=Counter)

    def add(self, exc: BadCanary) -> None:
        if not self.counts[exc.kind]:
            log.warning("canary ignored, it proves nothing (%s); further ones are counted", exc)
        self.counts[exc.kind] += 1


def round_s(filters: int, monitor: MonitorConfig) -> float:
    """How long a round of canaries through `filters` filters takes: `canary_interval_s`, or
    longer when `canary_max_rate` cannot send them all within it."""
    return max(monitor.canary_interval_s, max(1, filters) / monitor.canary_max_rate)


def watch_warnings(filters: list[str], own: Collection[str], monitor: MonitorConfig) -> list[str]:
    """What canaries cannot do for these filters: those none may prove, and why
    (service/canary.py), and a round longer than the timeout, which would make filters seem
    silent that are not. Logged by the watch at start and reload; `check` warns of them."""
    found = [
        f"topic filter {f!r}: not proven by canaries: {unproven(f)}"
        for f in filters
        if canary_topic(f, own) is None
    ]
    took = round_s(len(filters), monitor)
    if monitor.canary_interval_s and took >= monitor.canary_timeout_s:
        found.append(
            f"monitor.canary_max_rate: {len(filters)} topic filters take {took:g} s a round, "
            f"not below canary_timeout_s ({monitor.canary_timeout_s:g} s); raise one of them"
        )
    return found


class FilterWatch:
    """Proves every subscribed filter with signed canaries and names those gone silent.

    The filters' canaries go out in turn, one every `interval_s / len(filters)` seconds but
    never more than `max_rate` a second, so each filter gets one every `interval_s` (or
    `len(filters) / max_rate`, whichever is longer) and the broker a bounded rate however many
    filters there are (`round_s`). The bound holds in any second by the clock the canaries go
    out by, also when a tick comes late: those due meanwhile follow at `max_rate`, not in one
    burst (`_room`). A filter whose canaries have not come back for `timeout_s`
    is silent: the broker no longer delivers what it matches to us. Only a canary of this run,
    signed with our key, that we sent and that has not come back before, proves its filter.
    `heard` runs on paho's network thread, the rest on the monitor's: one lock between them.
    """

    def __init__(
        self,
        filters: list[str],
        own: Collection[str],
        signer: Signer,
        publish: Callable[[str, str], object],
        monitor: MonitorConfig,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.signer, self._publish = signer, publish
        self._clock = clock  # when a canary came back, and when one goes out (the pace)
        self.monitor = monitor
        self.rejected = Rejected()
        self._lock = threading.Lock()
        self._sent: dict[int, float] = {}  # seq: when; those not back yet
        self._recent: deque[float] = deque()  # when each canary of the last window went out
        self._seq = 0
        self._turn = 0
        self._next = 0.0
        self.use(filters, own, clock())

    def use(self, filters: list[str], own: Collection[str], now: float) -> None:
        """Watch these filters from now on (at start and reload); each has a grace period of
        `timeout_s` from now, and those no canary may prove are logged as unverifiable, with
        why (`own`: the exact topics that are cosyedge's, see service/canary.py)."""
        with self._lock:
            self._watched = {f: Watched(f, canary_topic(f, own), now) for f in filters}
        for warning in watch_warnings(filters, own, self.monitor):
            log.warning("%s", warning)

    def restart(self, now: float) -> None:
        """The timeouts run from now (the broker just acknowledged the subscriptions)."""
        with self._lock:
            for watched in self._watched.values():
                watched.heard = now

    @property
    def round_s(self) -> float:
        """How long a round of canaries through every filter takes."""
        return round_s(len(self._watched), self.monitor)

    def tick(self, now: float) -> str | None:
        """Send the canaries due by now; the fault while any filter is silent."""
        if not self.monitor.canary_interval_s:
            return None
        self._send_due(now)
        return self._silence(now)

    def _send_due(self, now: float) -> None:
        verifiable = [w for w in self._watched.values() if w.topic is not None]
        if not verifiable:
            return
        spacing = self.round_s / len(verifiable)
        if now - self._next > self.round_s:  # the monitor was stopped: no burst to catch up
            self._next = now
        while now >= self._next and (at := self._room()) is not None:
            self._next += spacing
            self._send(verifiable[self._turn % len(verifiable)], now, at)
            self._turn += 1

    def _room(self) -> float | None:
        """When one more canary goes out now, if that keeps the pace within `max_rate` (None
        when it would not): at most n of them in any n / `max_rate` seconds, n the rate rounded
        up (a whole rate: at most that many in any second). Timed by the clock at each send,
        not by the tick: a tick that comes late (a loaded machine, a slow part ticked before)
        or a batch the scheduler stretches must not put more than the rate into any second."""
        most = math.ceil(self.monitor.canary_max_rate)
        window_s, at = most / self.monitor.canary_max_rate, self._clock()
        while self._recent and at - self._recent[0] >= window_s:
            self._recent.popleft()
        if len(self._recent) >= most:
            return None
        self._recent.append(at)
        return at

    def _send(self, watched: Watched, now: float, at: float) -> None:
        """Publish `watched`'s next canary, stamped `at` (the pace's clock)."""
        assert watched.topic is not None
        with self._lock:
            self._seq += 1
            seq = self._seq
            self._sent[seq] = now
            # A canary not back after twice the timeout never will be; forget it.
            self._sent = {s: t for s, t in self._sent.items() if now - t <= 2 * self.timeout_s}
        try:
            payload = self.signer.payload(seq, watched.topic_filter, watched.topic, at)
            self._publish(watched.topic, payload)
        except Exception as exc:  # the reports fault says why; the silence says the rest
            log.debug("canary not published on %r: %s", watched.topic, exc)

    @property
    def timeout_s(self) -> float:
        return self.monitor.canary_timeout_s

    def _silence(self, now: float) -> str | None:
        with self._lock:
            # Sorted: the reason is a function of the set alone, so it changes with the set
            # and never with the order filters were configured or went silent in.
            silent = sorted(
                w.topic_filter
                for w in self._watched.values()
                if w.topic is not None and now - w.heard > self.timeout_s
            )
        if not silent:
            return None
        named = ", ".join(repr(f) for f in silent[:SILENT_NAMED])
        more = f" and {len(silent) - SILENT_NAMED} more" if len(silent) > SILENT_NAMED else ""
        return f"no message on {named}{more} for {self.timeout_s:g} s"

    def heard(self, topic: str, payload: bytes, retained: bool) -> None:
        """A message on a canary topic came back: the filter it names is proven if it is a
        genuine canary we are waiting for, else it is counted as rejected."""
        try:
            proof = self.signer.check(topic, payload, retained)
        except BadCanary as exc:
            self.rejected.add(exc)
            return
        with self._lock:
            sent = self._sent.pop(proof.seq, None)
            watched = self._watched.get(proof.topic_filter)
            if sent is not None and watched is not None:
                watched.heard = watched.proven = self._clock()
                return
        # Also a copy a broker delivers once per matching filter where filters overlap.
        self.rejected.add(BadCanary("replayed", f"canary {proof.seq} on {topic!r} seen before"))

    def unverifiable(self) -> list[str]:
        """The filters no canary can prove."""
        return [w.topic_filter for w in self._watched.values() if w.topic is None]

    def ages(self) -> dict[str, float | None]:
        """Each provable filter's seconds since its last canary came back (None: none yet
        in this run), for the operator page's health; a filter is silent past `timeout_s`."""
        now = self._clock()
        with self._lock:
            watched = [w for w in self._watched.values() if w.topic is not None]
            return {
                w.topic_filter: None if w.proven is None else round(now - w.proven, 1)
                for w in watched
            }

    def describe(self) -> dict[str, object]:
        """For the status: how many filters are watched, those that cannot be proven, and
        the messages on canary topics that proved nothing, by kind."""
        return {
            "filters": len(self._watched),
            "unverifiable": self.unverifiable(),
            "canaries_rejected": dict(self.rejected.counts),
        }


class DropWatch:
    """The broker's own count of the messages it dropped, watched across restarts.

    Mosquitto publishes `DROPPED_TOPIC` (retained, every `sys_interval`): the publishes it
    dropped since it started, for any client, because a client's queue
    (`max_queued_messages`, `max_queued_bytes`) or in-flight window was full. Alerts dropped
    while the daemon was away never arrive, so a rise is the fault `broker`; it is held for
    `DROP_HOLD_S` after the last rise. The last count seen is kept in `path` with the broker's
    address, so a rise while the daemon was stopped shows at its next start; a count below
    the kept one means the broker restarted, and all it counts are new. A broker that never
    publishes it within `UNREAD_S` is said in the status and the log to be unreadable."""

    def __init__(
        self,
        path: Path,
        broker: str,
        clock: Callable[[], float] = time.monotonic,
        observer: Observer | None = None,
        faults: Faults | None = None,
    ) -> None:
        """`observer` is told when the count cannot be kept (`faults`: site `state.write`)."""
        self._path, self._broker, self._clock = path, broker, clock
        self._observer, self._faults = observer or Observer(), faults or Faults()
        self._last = self._kept()
        self._since = clock()  # readable: unknown until UNREAD_S from here
        self._risen = 0
        self._rose_at: float | None = None
        self.read = False

    def heard(self, payload: bytes) -> bool:
        """The counter's value (on paho's network thread); a rise is held as the fault.
        Whether what the status shows changed: the first count, or another one."""
        try:
            count = int(payload)
        except ValueError:
            log.warning("%s: not a count: %r", DROPPED_TOPIC, payload[:40])
            return False
        changed = not self.read or count != self._last
        last, self._last, self.read = self._last, count, True
        rise = 0 if last is None else count - last if count >= last else count
        if rise:
            self._risen += rise
            self._rose_at = self._clock()
            log.error("the broker dropped %d messages (its count: %d)", rise, count)
        if count != last:
            self._keep(count)
        return changed

    def tick(self, now: float) -> str | None:
        """The fault while a rise is recent; says once when the counter cannot be read."""
        if not self.read and now - self._since > UNREAD_S:
            log.warning("%s: %s", DROPPED_TOPIC, UNREADABLE)
            self._since = float("inf")  # said once
        if self._rose_at is None or now - self._rose_at > DROP_HOLD_S:
            self._risen, self._rose_at = 0, None
            return None
        return f"broker dropped {self._risen} messages"

    def describe(self) -> dict[str, object]:
        """For the status: the broker's count, or why there is none."""
        if self.read:
            return {"dropped": self._last}
        return {"dropped": None, "reason": UNREADABLE}

    def _kept(self) -> int | None:
        try:
            kept = load_record(self._path)
            return int(kept["dropped"]) if kept["broker"] == self._broker else None
        except (OSError, ValueError, KeyError, TypeError):
            return None  # none yet, or another broker's: this run's first count is the base

    def _keep(self, count: int) -> None:
        tmp = self._path.with_suffix(".tmp")
        try:
            self._faults.check("state.write", str(self._path))
            tmp.write_text(json.dumps({"broker": self._broker, "dropped": count}))
            tmp.replace(self._path)
        except OSError as exc:  # then only this run's rises are seen
            log.warning("cannot keep the broker's drop count in %s: %s", self._path, exc)
            with contextlib.suppress(OSError):
                tmp.unlink()
            self._observer.unkept(DROP_COUNT, exc.strerror or str(exc))
        else:
            self._observer.unkept(DROP_COUNT, None)


class StuckWatch:
    """Which busy stages made no progress for `stuck_s` of time the process was running.

    A heartbeat's silence counts only since the monitor last saw its own clock jump (more
    than MONITOR_GAP_S between two checks): the whole process stopped (SIGSTOP, a suspended
    machine) or starved stops every stage alike, so a silence across it is no stage's fault.
    A stage resting (waiting for work) is never stuck (`Heartbeat.silent_for`)."""

    def __init__(self) -> None:
        self._checked: float | None = None
        self._resumed = float("-inf")  # monotonic: the end of the last gap seen

    def check(self, beats: Iterable[Heartbeat], stuck_s: float, now: float) -> dict[str, bool]:
        """`<name>-stuck` of each heartbeat: whether it is busy without progress."""
        self._note_gap(now)
        running = now - self._resumed
        return {f"{b.name}-stuck": min(b.silent_for(now), running) > stuck_s for b in beats}

    def _note_gap(self, now: float) -> None:
        if self._checked is not None and now - self._checked > MONITOR_GAP_S:
            log.warning(
                "monitor: %.0f s between two checks (the process was stopped or starved); "
                "silence before it is not counted as stuck",
                now - self._checked,
            )
            self._resumed = now
        self._checked = now


def count_restarts(
    path: Path, observer: Observer | None = None, faults: Faults | None = None
) -> int:
    """Record this start in `path` and return how many other starts the last hour saw;
    the file is rewritten small, and a failure to read or write it counts as none (what
    cannot be read, a file cut short, is read as far as it goes). `observer` is told when
    it cannot be written (`faults`: site `state.write`)."""
    now = time.time()
    try:
        starts = [float(x) for x in read_record(path).split()]
    except (OSError, ValueError):
        starts = []
    starts = [t for t in starts if now - t < RESTART_WINDOW_S] + [now]
    told = observer or Observer()
    try:
        (faults or Faults()).check("state.write", str(path))
        with open(path, "w", opener=regular_only) as f:  # a FIFO there would block the start
            f.write("\n".join(f"{t:.3f}" for t in starts) + "\n")
    except OSError as exc:
        log.warning("cannot record this start in %s: %s", path, exc)
        told.unkept(START_COUNT, exc.strerror or str(exc))
    else:
        told.unkept(START_COUNT, None)
    return len(starts) - 1


@dataclass(frozen=True)
class Telling:
    """Where the self-watch tells a fault: the reports, the history, the desk (which says it
    and publishes the status) and systemd, in `lang`, with the phrase `config-defaults` for
    the fault `config` when the safe core runs (`safe_core`)."""

    reporter: Reporter
    history: History
    desk: AlarmDesk
    notifier: Notifier
    status_line: Callable[[], str]
    lang: str
    safe_core: bool = False


class SelfWatch(Component, Observer):
    """The self-watch as one component: the fault set, the canaries through every subscribed
    filter, the broker's drop count, the stuck stages and the restarts; it tells each fault
    as it starts and ends, and publishes the status again when a figure in it moved."""

    def __init__(
        self,
        config: Config,
        health: Health,
        telling: Telling,
        publish: Callable[[str, str], object],
        beats: Iterable[Heartbeat],
        observer: Observer | None = None,
        faults: Faults | None = None,
    ) -> None:
        """`publish`: the session's, for the canaries; `beats`: the heartbeats watched;
        `observer` is told what cannot be kept in `state_dir` (`faults`: site `state.write`)."""
        self.config, self.health, self.telling = config, health, telling
        self.monitor = config.monitor
        self.observer, self.faults = observer or Observer(), faults or Faults()
        signer = Signer(self._canary_key(), gateway=config.mqtt.client_id)
        self.watch = FilterWatch([], (), signer, publish, self.monitor)
        broker = f"{config.mqtt.host}:{config.mqtt.port}"
        drops = config.state_dir / "broker-dropped.json"
        self.drops = DropWatch(drops, broker, observer=self.observer, faults=self.faults)
        self.stuck = StuckWatch()
        self.beats = list(beats)
        self.restarts = 0
        self._own: Collection[str] = ()
        self._status_due = threading.Event()

    def _canary_key(self) -> bytes:
        """The key kept in `state_dir`; where it can be neither read nor made there, one for
        this run alone (told): canaries of an earlier run then count as forged, not stale."""
        path = self.config.state_dir / CANARY_KEY
        try:
            return load_key(path, self.faults)
        except OSError as exc:
            log.error("canary key %s: %s; signing with a key of this run only", path, exc)
            self.observer.unkept(CANARY, exc.strerror or str(exc))
            return secrets.token_bytes(KEY_BYTES)

    # -- what the door gives it ---------------------------------------------------------------
    def use(self, intake: Intake) -> None:
        """Prove the filters `intake` subscribes to, from now on (at start and reload)."""
        self._own = intake.own_topics
        self.watch.use(intake.filters, intake.own_topics, time.monotonic())

    @property
    def topics(self) -> list[str]:
        """What it subscribes to beside the intake's filters."""
        return [DROPPED_TOPIC]

    def claim(self, topic: str, payload: bytes, retained: bool) -> bool:
        """Take the broker's drop count, the canaries signed with this daemon's key and
        another gateway's (on paho's network thread): never alerts. False for everything
        else, also for what only looks like a canary (forged): it is counted in the status, and
        the intake gives it the outcome every message gets (rejected, saying why)."""
        if topic == DROPPED_TOPIC:
            if self.drops.heard(payload):
                self._status_due.set()  # published at the monitor's next tick
            return True
        if not looks_like_canary(topic, payload, self._own):
            return False
        if payload or not retained:  # an empty retained one clears a retained canary
            self.watch.heard(topic, payload, retained)
        signer = self.watch.signer
        return signer.signed(topic, payload) or signer.foreign(payload)

    # -- the component -------------------------------------------------------------------------
    def start(self) -> None:
        starts = self.config.state_dir / "starts"
        self.restarts = count_restarts(starts, self.observer, self.faults)

    def subscribed(self, now: float) -> None:
        """The broker acknowledged the subscriptions: canary timeouts run from now."""
        self.watch.restart(now)

    def tick(self, now: float) -> Mapping[str, str | None]:
        if self._status_due.is_set():
            self._status_due.clear()
            self.telling.desk.publish_status()
        stuck_s = self.monitor.stuck_s
        faults = {"intake": self.watch.tick(now), "broker": self.drops.tick(now)}
        for name, stuck in self.stuck.check(self.beats, stuck_s, now).items():
            faults[name] = f"no progress for over {stuck_s:g} s" if stuck else None
        return faults

    def state(self, detail: Detail) -> Mapping[str, Any]:
        return {
            "faults": self.health.faults(),
            "restarts": self.restarts,
            "intake": self.watch.describe(),
            "canaries": self.watch.ages(),
            "broker": self.drops.describe(),
        }

    # -- what it hears -------------------------------------------------------------------------
    def trouble(self, part: str, reason: str | None) -> None:
        self.health.set(part, reason)

    def changed(self) -> None:
        self._status_due.set()

    def connected(self) -> None:
        """At each connection (paho's network thread): the status again, before Home
        Assistant's discovery configs (a listener added after this one)."""
        self.telling.desk.publish_status()

    def reported(self, report: Mapping[str, Any]) -> None:
        """A phrase said was looked up in the cache: the status shows the new hit rate, at
        the next tick rather than here, under the desk's lock."""
        if report.get("outcome") == "spoken":
            self._status_due.set()

    def fault(self, name: str, fault: Fault | None) -> None:
        """A fault's start goes to the event and error topics, its end to the event topic;
        the retained status and systemd's STATUS follow at once, and the fault is said (with
        its tone, until acknowledged) or its end is said once."""
        t = self.telling
        if name == STARTING:  # a phase, not a trouble: shown, neither reported nor said
            t.desk.publish_status()
            t.notifier.status(t.status_line())
            return
        if fault is None:
            t.reporter.event(Event("fault_cleared", {"fault": name}))
            t.history.record("fault_cleared", fault=name)
        else:
            t.reporter.event(Event("fault", {"fault": name, "reason": fault.reason}))
            t.reporter.error(f"{name}: {fault.reason}", fault=name)
            t.history.record("fault", fault=name, reason=fault.reason)
        t.desk.publish_status()
        kind = name.partition(":")[0]  # `audio:<output>` as `audio`
        if kind not in QUIET_FAULTS and kind not in SAID_BY_DESK:
            self._say(name, fault is not None)
        t.notifier.status(t.status_line())

    def _say(self, name: str, started: bool) -> None:
        t, monitor = self.telling, self.monitor
        # Which configuration runs instead of a refused file is part of what is said.
        phrase = "config-defaults" if name == "config" and t.safe_core else name
        if started:
            t.desk.fault(name, fault_text(phrase, t.lang), t.lang, monitor.reannounce_s)
        else:
            cleared = fault_text("cleared", t.lang) if monitor.say_cleared else None
            t.desk.fault_cleared(name, cleared, t.lang)
