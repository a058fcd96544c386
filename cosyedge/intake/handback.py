"""A primary's ear on its standby (`standby.reports_of`): the standby's outcome reports, and the
marker that tells a start that what the broker kept for this gateway is in, taken from the
session before the intake sees them and handed to the desk (alarms/standby.py `Handback`).

A tap of the door (door.py `Tap`). Its topics are subscribed in the gateway's persistent QoS 1
session, so the broker keeps the standby's reports while this gateway is gone and hands them
over at its start with the rest it kept. As the session connects and asks for its
subscriptions, the tap publishes a marker of this run to this gateway's own marker topic; the
broker queues it behind what it kept (Mosquitto keeps one queue a session, first in, first
out), so its coming back says that all of that is in. A marker of another run (published by
a start that died before it came back) is taken and ignored.

The same at every reconnect: a gateway cut off from the broker but running (its network) is
gone to the standby, which says what it holds while the broker keeps the alerts and the
standby's reports for this gateway's session. So each later connection holds again, with a
new marker, until what the broker kept meanwhile is in (or `handback_s`): from the connection
on (an Observer's `connected`, on paho's network thread before it hands over any message of
that connection), not from the next tick, by which the first of them would be said.

And after this gateway stood still, connected (its process stopped, an I/O or swap stall):
its beat stopped with it, so its standby may have taken it for silent and spoken, while the
broker kept the alerts and the standby's reports in the session the connection kept. The
desk's clock, ticking that late, tells `stalled` (alarms/peers.py `STALL_S`), which holds
as a reconnect does.

And after the bridge to the standby's broker was down (`standby.link_topic` on a primary: its
own broker's notice of that bridge, `0` down, `1` up): the standby took over and said what was
published on its broker meanwhile, and the bridge, back, delivers those alerts here ahead of
the standby's reports of them. No marker goes round through the bridge, so the hold at its
return lasts `handback_s` whole.

The standby's reports are taken as the standby's watch takes the primary's (primary.py
`Refusal`): none retained (it publishes none so), none over `mqtt.max_payload_bytes`.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.component import Component
from cosyedge.config.schema import Config
from cosyedge.intake.intake import Intake
from cosyedge.intake.primary import Refusal, json_object
from cosyedge.observe import Observer

log = logging.getLogger(__name__)

MARKER_KEY = "cosyedge_handback"  # a marker's payload: a JSON object with this one key


class StandbyTap(Component, Observer):
    """The standby's reports and this run's marker, for the desk; `claim` and `connected` run
    on paho's network thread, `tick` on the monitor's."""

    def __init__(
        self,
        config: Config,
        desk: AlarmDesk,
        publish: Callable[[str, str], object],
    ) -> None:
        """`publish`: QoS 1 through the session."""
        self.desk, self._publish = desk, publish
        self.reports_of = config.standby.reports_of
        self.marker_topic = f"{config.monitor.canary_topic}/{config.mqtt.client_id}/handback"
        self.link_topic = config.standby.link_topic
        self.topics = [self.reports_of, self.marker_topic, *filter(None, [self.link_topic])]
        self._bridge_down = False  # the bridge to the standby's broker said `0` (paho's thread)
        self.refuse = Refusal(config.mqtt.max_payload_bytes, "standby's")
        self.wait_s = config.standby.handback_s
        self._connections = 0  # made so far (paho's network thread)
        self._unsent = False  # a marker the session refused: again at the next tick
        self._lock = threading.Lock()  # sending: from either thread
        self._hold(time.monotonic())
        desk.when_stalled(self.stalled)

    def _hold(self, now: float) -> None:
        """A new wait, for a marker of its own (one of an earlier wait is another's)."""
        self._marker = json.dumps({MARKER_KEY: secrets.token_hex(8)})
        self._back = False  # the marker came back (paho's network thread sets it)
        self._over = False  # the wait ended, by the marker or by its bound (told once)
        self._until = now + self.wait_s

    def use(self, intake: Intake) -> None:
        """The intake in force changes nothing here: the standby is named by `standby`."""

    def claim(self, topic: str, payload: bytes, retained: bool) -> bool:
        if topic == self.marker_topic:
            if payload.decode("utf-8", "replace") == self._marker:
                self._back = True
                self.desk.backlog_in()
            else:
                log.debug("a handback marker of another run: ignored")
            return True
        if topic == self.link_topic:
            self._bridge(payload.strip(), retained)
            return True
        if topic == self.reports_of:  # none retained or too big: not the standby's (primary.py)
            if self.refuse.why(topic, payload, retained) is None:
                report = self.refuse.shaped(json_object(payload, quiet=True), "report")
                if report is not None:
                    self.desk.standby_report(report)
            return True
        return False

    def connected(self) -> None:
        """A connection made, its subscriptions asked for: its marker goes out now; after a
        reconnect, what this gateway would say is held again until it is back; the bridge's next
        `1` holds again (`_bridge`)."""
        again = self._connections > 0
        self._connections += 1
        # What the bridge did while we were away is unknown (our broker restarted, perhaps,
        # and the bridge with it): its next `1` may come with what the standby said meanwhile.
        self._bridge_down = bool(self.link_topic)
        if again:
            log.info("handback: reconnected; holding until what the broker kept is in")
            self._again()
        else:
            self._send()

    def stalled(self, seconds: float) -> None:
        """This gateway stood still for `seconds` (its clock's tick that late: the process
        stopped, an I/O or swap stall), connected all along: its beat stopped with it, and
        its standby may have taken over and said what came meanwhile, which the broker kept
        for this session with the standby's reports. So it holds as at a reconnect."""
        log.warning(
            "handback: this gateway stood still for %.1f s, which its standby may have taken "
            "for silence; holding until what the broker kept is in",
            seconds,
        )
        self._again()

    def _bridge(self, state: bytes, retained: bool) -> None:
        """The bridge to the standby's broker `0` (down) or `1` (up): up after down, hold for
        `handback_s` (what it delivers first may be alerts the standby said meanwhile, their
        reports behind them). A retained state tells what was, not a change."""
        if retained or state not in (b"0", b"1"):
            return
        if state == b"0":
            self._bridge_down = True
            return
        if self._bridge_down:
            self._bridge_down = False
            log.warning(
                "handback: the bridge to the standby's broker is back; holding for %g s for "
                "the standby's reports of what it said meanwhile",
                self.wait_s,
            )
            self._hold(time.monotonic())
            self._back = True  # no marker goes round through the bridge: the bound decides
            self.desk.handback_again(self.wait_s)

    def _again(self) -> None:
        """Hold again, with a new marker, until it is back (or `handback_s`)."""
        self._hold(time.monotonic())
        self.desk.handback_again(self.wait_s)
        self._send()

    def tick(self, now: float) -> Mapping[str, str | None]:
        """Send a marker the session refused; tell once if a wait ran out first."""
        if self._unsent:
            self._send()
        if not self._over and (self._back or now >= self._until):
            self._over = True
            if not self._back:  # the desk logs the marker's coming back itself
                log.warning(
                    "handback: what the broker kept did not come in within standby.handback_s; "
                    "speaking, so an alert the standby said meanwhile may be said again"
                )
        return {}

    def _send(self) -> None:
        with self._lock:
            try:
                self._publish(self.marker_topic, self._marker)
            except OSError as exc:  # the session did not take it: again at the next tick
                log.warning("handback marker not published: %s", exc)
                self._unsent = True
                return
            self._unsent = False
