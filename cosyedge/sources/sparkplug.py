"""A Sparkplug B group as a source of alerts (`sources: - sparkplug: {...}`, docs/sparkplug.md).

It listens as a Sparkplug host application on the daemon's own broker connection: a tap of
the door (intake/door.py `Tap`) whose topic, `spBv1.0/<group>/#`, the link subscribes beside
the templates' filters, so the session, its credentials, TLS and reconnects are the ones every
alert already depends on, and a broker gone is the fault `connection` it already is. Each
message of the group is taken aside on paho's network thread (acknowledged, never read as a
template's alert), decoded (spb_payload.py), followed through the nodes' births and deaths
(spb_nodes.py), and judged by the rules (spb_rules.py); an alarm begun or ended goes in
through the door's `accept`, like an MQTT or HTTP alert (intake/sourced.py: how it is
journaled), so the journal, the desk, the reports and the status treat it alike.

A node whose data comes unborn, out of sequence or with an alias no birth gave is asked to
publish its births again (an NCMD `Node Control/Rebirth`) only with `rebirth: true`: that
command writes to the plant. Otherwise it is logged, at most once a `rebirth_interval_s`.

What the nodes' births said (their aliases too) and the alarms standing are kept in
`state_dir/sparkplug/` (spb_store.py), written by the tick when they changed, so a restart
reads the nodes it heard before. A message over `max_payload_bytes` or `max_metrics` is
refused before it is read (paho's thread is every alert's); a retained birth or data message
is no current value. A birth refused, a message refused for its size, data that cannot be
read with rebirth off, messages dropped before the start and a value of a type its rule
cannot read are the fault `sparkplug:<group>` while they last.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Collection, Mapping
from pathlib import Path

from cosyedge.component import Component
from cosyedge.config.source_sparkplug import SparkplugConfig
from cosyedge.intake.alert import Message
from cosyedge.intake.door import HELD, Door
from cosyedge.intake.intake import Intake
from cosyedge.intake.sourced import SourceAlert
from cosyedge.intake.templates import plain_text
from cosyedge.model import RejectedAlert
from cosyedge.sources import spb_store
from cosyedge.sources.phrase import MAX_CHARS
from cosyedge.sources.spb_nodes import Nodes, Seen, Topic, parse_topic
from cosyedge.sources.spb_payload import BadPayload, TooBig, decode, rebirth_request
from cosyedge.sources.spb_rules import Change, Rules

log = logging.getLogger(__name__)

VIA = "sparkplug"  # how the observer names where its alerts came in
LOST_SHOWN_S = 600.0  # how long messages dropped before the start are the source's fault


class SparkplugSource(Component):
    """One group's host application; a tap of the door from its start to its stop."""

    def __init__(
        self,
        config: SparkplugConfig,
        door: Door,
        publish: Callable[[str, bytes], int],
        standing: Callable[[], Collection[str]],
        subscribe: Callable[[], None],
        state_dir: Path,
    ) -> None:
        """`publish`: QoS 1 on the daemon's session (rebirth requests); `standing`: the ids
        of the alarms the desk holds unacknowledged, asked at start; `subscribe`: has the
        link follow the door's filters once this tap is among them; `state_dir`: where the
        nodes and the alarms standing are kept across restarts."""
        self.config, self.door = config, door
        self._publish, self._standing, self._subscribe = publish, standing, subscribe
        self.topics = [config.topic]
        self._prefix = config.topic[:-1]  # spBv1.0/<group>/
        self._path = state_dir / "sparkplug" / f"{config.group}.json"
        self._lock = threading.Lock()
        self._nodes = Nodes()
        self._rules = Rules(config)
        self._asked: dict[str, float] = {}  # node -> monotonic time of its last rebirth ask
        self._refused: dict[str, str] = {}  # node -> why its last birth was refused
        self._told: set[str] = set()  # the problems logged already, by node or alarm id
        self._dirty = False  # the kept state changed since it was written
        self._unkept: str | None = None  # why it could not be written, while it cannot
        self._running = False
        self._lost: tuple[str, float] | None = None  # messages dropped before the start; until
        self.fault_name = f"sparkplug:{config.group}"

    # -- the lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        """Take up the nodes and the alarms standing from the last run, then listen."""
        kept = spb_store.load(self._path)
        held = {spb_store.base_id(i): i for i in self._standing()}  # the desk's, of any source
        standing = {k: v for k, v in held.items() if k is not None} | kept.alarms
        with self._lock:
            self._nodes = Nodes(kept.nodes)
            self._rules = Rules(self.config, standing)
            self._running = True
        self.door.add_tap(self)
        self._subscribe()
        log.info("sparkplug: listening to %s (%d nodes known)", self.config.topic, len(kept.nodes))
        dropped = self.door.dropped(self._prefix)
        if dropped:
            lost = f"{dropped} of its messages dropped before it started (over {HELD} held)"
            self._lost = (lost, time.monotonic() + LOST_SHOWN_S)
            log.warning("sparkplug: %s: the oldest first, whatever their kind", lost)

    def stop(self) -> None:
        self._running = False  # its messages are still taken aside, and no more judged
        self._keep()

    def tick(self, now: float) -> Mapping[str, str | None]:
        """Alarms whose on-delay has passed go in now; what changed is kept; the problems
        standing are the source's fault."""
        with self._lock:  # delivered under it: an alarm and its return reach the door in order
            self._deliver(self._rules.due(now))
            found = {**self._refused, **self._rules.problems}
        self._keep()
        for key, problem in found.items():
            if key not in self._told:  # once a run: the fault says it while it lasts
                self._told.add(key)
                log.warning("sparkplug: %s", problem)
        problems = list(found.values())
        if self._lost is not None and now < self._lost[1]:
            problems.append(self._lost[0])
        if self._unkept is not None:
            problems.append(f"cannot keep its state: {self._unkept}")
        return {self.fault_name: _summary(problems)}

    def _keep(self) -> None:
        """Write what the births, deaths and alarms changed (on the tick's thread, not
        paho's: two fsyncs each time)."""
        with self._lock:
            if not self._dirty:
                return
            kept = spb_store.Kept(self._nodes.records(), self._rules.standing())
            self._dirty = False
        try:
            spb_store.keep(self._path, kept)
        except OSError as exc:
            with self._lock:
                self._dirty = True  # tried again at the next tick
            if self._unkept is None:
                log.error("sparkplug: cannot keep %s: %s", self._path, exc)
            self._unkept = exc.strerror or str(exc)
            return
        self._unkept = None

    # -- the tap -----------------------------------------------------------------------------
    def use(self, intake: Intake) -> None:
        """Nothing of the intake is needed: its alarms carry their phrase."""

    def claim(self, topic: str, payload: bytes, retained: bool) -> bool:
        """Every message of the group is ours (a command or an unreadable one included, so a
        site's `#` template never reads it); a node's or device's is judged."""
        if not topic.startswith(self._prefix):
            return False
        parsed = parse_topic(topic)
        if parsed is None or not self._running:
            return True
        if retained and parsed.kind not in ("NDEATH", "DDEATH"):
            self._retained(parsed)
            return True
        limit = self.config.max_payload_bytes
        try:
            if len(payload) > limit:
                raise TooBig(f"{len(payload)} bytes, over max_payload_bytes {limit}")
            decoded = decode(payload, self.config.max_metrics)
        except TooBig as exc:
            self._too_big(parsed, str(exc))
            return True
        except BadPayload as exc:
            log.warning("sparkplug: %s: %s", topic, exc)
            return True
        now = time.monotonic()
        with self._lock:
            seen = self._nodes.take(parsed, decoded)
            self._refusal(parsed.node, parsed.kind, seen.refused)
            if seen.unreadable is not None and not self.config.rebirth:
                self._refused[parsed.node] = (
                    f"data of node {parsed.node} cannot be read: {seen.unreadable} "
                    "(rebirth is off: until its next birth)"
                )
            self._deliver(self._judged(seen, now))
            self._dirty = self._dirty or seen.changed
        self._tell(topic, seen, retained)
        if seen.rebirth:
            self._rebirth(parsed.node, seen.rebirth, now)
        return True

    def _retained(self, parsed: Topic) -> None:
        """A retained birth or data message (the spec forbids retaining them): not what the
        node says now, so never an alarm nor its return; its rebirth asked if allowed."""
        key = f"retained {parsed.node}"
        if key not in self._told:
            self._told.add(key)
            log.warning("sparkplug: a retained %s of node %s ignored: a retained message is no "
                        "current value", parsed.kind, parsed.node)  # fmt: skip
        if self.config.rebirth:
            self._rebirth(parsed.node, f"a retained {parsed.kind}", time.monotonic())

    def _too_big(self, parsed: Topic, why: str) -> None:
        """A message refused unread: the node's problem until one of its births is taken
        (logged once while it lasts: a flood of them is one line)."""
        where = f"{parsed.node}/{parsed.device}" if parsed.device else parsed.node
        refused = f"{parsed.kind} of {where} refused unread: {why}"
        with self._lock:
            new = self._refused.get(parsed.node) != refused
            self._refused[parsed.node] = refused
            self._told.add(parsed.node)  # said here, not again by the tick
        if new:
            log.error("sparkplug: %s", refused)

    def _tell(self, topic: str, seen: Seen, retained: bool) -> None:
        """The log's account of a message that changed nothing or needs saying; an ignored
        one at debug, since its rebirth is asked, or its need told, once an interval."""
        again = " (retained)" if retained else ""
        if seen.refused:
            log.error("sparkplug: %s%s", seen.refused, again)
        if seen.told:
            log.warning("sparkplug: %s%s", seen.told, again)
        if seen.ignored:
            log.debug("sparkplug: %s%s ignored: %s", topic, again, seen.ignored)

    def _refusal(self, node: str, kind: str, refused: str | None) -> None:
        """A refused birth is the node's problem until one of its births is taken."""
        if refused is not None:
            self._refused[node] = refused
        elif kind in ("NBIRTH", "DBIRTH") and self._nodes.alive(node):
            self._refused.pop(node, None)

    def _judged(self, seen: Seen, now: float) -> list[Change]:
        rules, changes = self._rules, []
        for node, device in seen.dead:
            changes += rules.died(node, device)
        for node, device in seen.implied:
            changes += rules.died(node, device, implied=True)
        for node, device in seen.alive:
            changes += rules.born(node, device, now)
        for value in seen.values:
            changes += rules.judge(value, now)
        return changes

    def _deliver(self, changes: list[Change]) -> None:
        """Each alarm begun or ended, in through the door; journaled at once (the broker's
        acknowledgement of what it came in was given already: Sparkplug's data is QoS 0)."""
        self._dirty = self._dirty or bool(changes)
        for change in map(self._sayable, changes):
            alert = SourceAlert(change.id, change.text, change.priority, change.lang, change.fields)
            log.info("sparkplug: %s %s", "alarm" if change.text else "return to normal", change.id)
            self.door.accept(Message(change.topic, alert.payload), _nothing, VIA)

    def _sayable(self, change: Change) -> Change:
        """The alarm with words its voice can say: a phrase with none (a text metric of
        control or invisible characters, a script no voice reads) would be refused by the
        desk while the source holds it standing; said instead as its rule, node and device,
        else as the group."""
        if change.text is None:
            return change
        f, group = change.fields, self.config.group
        where = f"{f.get('rule', '')} {f.get('node', '')} {f.get('device', '')}"
        for text in (change.text, where, f"Sparkplug {group}", "Sparkplug"):
            text = plain_text(text, MAX_CHARS)[0]
            try:
                self.door.intake.sayable(text, change.lang, change.lang)
            except RejectedAlert:
                continue
            if text != change.text:
                log.warning("sparkplug: alarm %s has no words to say: said as %r", change.id, text)
            return dataclasses.replace(change, text=text)
        return change

    def _rebirth(self, node: str, why: str, now: float) -> None:
        """Ask the node for its births, at most once a `rebirth_interval_s`, if allowed."""
        last = self._asked.get(node)
        if last is not None and now - last < self.config.rebirth_interval_s:
            return
        self._asked[node] = now
        if not self.config.rebirth:
            log.warning("sparkplug: node %s needs a rebirth (%s); not asked: rebirth is off",
                        node, why)  # fmt: skip
            return
        topic = f"spBv1.0/{self.config.group}/NCMD/{node}"
        try:
            self._publish(topic, rebirth_request(int(time.time() * 1000)))
        except OSError as exc:
            log.warning("sparkplug: cannot ask node %s for a rebirth: %s", node, exc)
            return
        log.warning("sparkplug: asked node %s for a rebirth (%s)", node, why)


def _summary(problems: list[str]) -> str | None:
    """The fault's reason: the first problem, and how many more."""
    if not problems:
        return None
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{problems[0]}{more}"


def _nothing() -> None:
    """Nothing waits for it to be on disk: no broker acknowledgement is held for it."""
