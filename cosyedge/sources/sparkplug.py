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
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Mapping

from cosyedge.component import Component
from cosyedge.config.source_sparkplug import SparkplugConfig
from cosyedge.intake.alert import Message
from cosyedge.intake.door import Door
from cosyedge.intake.intake import Intake
from cosyedge.intake.sourced import SourceAlert
from cosyedge.sources.spb_nodes import Nodes, Seen, parse_topic
from cosyedge.sources.spb_payload import BadPayload, decode, rebirth_request
from cosyedge.sources.spb_rules import Change, Rules

log = logging.getLogger(__name__)

VIA = "sparkplug"  # how the observer names where its alerts came in


class SparkplugSource(Component):
    """One group's host application; a tap of the door from its start to its stop."""

    def __init__(
        self,
        config: SparkplugConfig,
        door: Door,
        publish: Callable[[str, bytes], int],
        standing: Callable[[], Collection[str]],
        subscribe: Callable[[], None],
    ) -> None:
        """`publish`: QoS 1 on the daemon's session (rebirth requests); `standing`: the ids
        of the alarms the desk holds unacknowledged, asked at start; `subscribe`: has the
        link follow the door's filters once this tap is among them."""
        self.config, self.door = config, door
        self._publish, self._standing, self._subscribe = publish, standing, subscribe
        self.topics = [config.topic]
        self._prefix = config.topic[:-1]  # spBv1.0/<group>/
        self._lock = threading.Lock()
        self._nodes = Nodes()
        self._rules = Rules(config)
        self._asked: dict[str, float] = {}  # node -> monotonic time of its last rebirth ask
        self._running = False

    # -- the lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        """Take up the alarms standing from the last run, then listen."""
        self._rules = Rules(self.config, self._standing())
        self._running = True
        self.door.add_tap(self)
        self._subscribe()
        log.info("sparkplug: listening to %s", self.config.topic)

    def stop(self) -> None:
        self._running = False  # its messages are still taken aside, and no more judged

    def tick(self, now: float) -> Mapping[str, str | None]:
        """Alarms whose on-delay has passed go in now."""
        with self._lock:  # delivered under it: an alarm and its return reach the door in order
            self._deliver(self._rules.due(now))
        return {}

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
        try:
            decoded = decode(payload)
        except BadPayload as exc:
            log.warning("sparkplug: %s: %s", topic, exc)
            return True
        now = time.monotonic()
        with self._lock:
            seen = self._nodes.take(parsed, decoded)
            self._deliver(self._judged(seen, now))
        if seen.ignored:  # at debug: its rebirth is asked, or its need told, once an interval
            log.debug("sparkplug: %s ignored: %s", topic, seen.ignored)
        if seen.rebirth:
            self._rebirth(parsed.node, seen.rebirth, now)
        return True

    def _judged(self, seen: Seen, now: float) -> list[Change]:
        rules, changes = self._rules, []
        for node, device in seen.dead:
            changes += rules.died(node, device)
        for node, device in seen.alive:
            changes += rules.born(node, device)
        for value in seen.values:
            changes += rules.judge(value, now)
        return changes

    def _deliver(self, changes: list[Change]) -> None:
        """Each alarm begun or ended, in through the door; journaled at once (the broker's
        acknowledgement of what it came in was given already: Sparkplug's data is QoS 0)."""
        for change in changes:
            alert = SourceAlert(change.id, change.text, change.priority, change.lang, change.fields)
            log.info("sparkplug: %s %s", "alarm" if change.text else "return to normal", change.id)
            self.door.accept(Message(change.topic, alert.payload), _nothing, VIA)

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


def _nothing() -> None:
    """Nothing waits for it to be on disk: no broker acknowledgement is held for it."""
