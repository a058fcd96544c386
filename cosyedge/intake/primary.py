"""A standby's ear on its primary: the primary's retained status and outcome reports, taken
from the session before the intake sees them and handed to the desk (alarms/standby.py).

A tap of the door (door.py `Tap`): its topics are subscribed beside the intake's, and every
message passes it first, so the first one of each connection tells the desk that the
subscription works (a primary's retained status would have come with it). Its fault is the
desk's `standby`.

Only what the primary could have sent is taken: a status of its own shape (a JSON object with
a known `state`), reports not retained (it publishes none so), each within
`mqtt.max_payload_bytes`. Anything else on its topics (a test message, a cleared retained
status, a forged one) is ignored: counted in the standby's status (`standby.ignored`), logged
at most once a minute (LOG_EVERY_S).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.standby import BEAT_S, LOOP, STATES
from cosyedge.component import Component
from cosyedge.config.standby import StandbyConfig
from cosyedge.intake.alert import InvalidJson, load_json
from cosyedge.intake.intake import Intake
from cosyedge.observe import Observer

log = logging.getLogger(__name__)

LOG_EVERY_S = 60.0  # a message of the other gateway's not taken is logged at most this often


class PrimaryTap(Component, Observer):
    """The primary's status and reports, for the desk; on paho's network thread."""

    def __init__(
        self,
        config: StandbyConfig,
        desk: AlarmDesk,
        max_bytes: int,
        own_status: str = "",
    ) -> None:
        """`max_bytes`: the largest message of the primary's taken (mqtt.max_payload_bytes);
        `own_status`: this gateway's status topic, whose beat coming back proves that our
        subscription works while the primary's is silent (alarms/standby.py `lately`)."""
        self.config, self.desk, self.own_status = config, desk, own_status
        self.topics = [config.status_topic, config.report_topic, config.event_topic]
        self.topics += [t for t in (config.link_topic, own_status) if t]
        self.refuse = Refusal(max_bytes)
        self._heard = False  # only paho's network thread sets it

    def use(self, intake: Intake) -> None:
        """The intake in force changes nothing here: the primary is named by `standby`."""

    def connected(self) -> None:
        """A new connection (paho's network thread): its first message starts the clock of
        the primary's silence again (its retained status comes with the subscription)."""
        self._heard = False

    def lost(self) -> None:
        """Our connection was lost (paho's network thread): an `offline` just heard was the
        broker's stop (alarms/standby.py `Watch.lost`)."""
        self.desk.primary_lost()

    def claim(self, topic: str, payload: bytes, retained: bool) -> bool:
        if not self._heard:
            self._heard = True
            self.desk.heard()
        self.desk.subscription_heard()
        if topic == self.own_status:
            return True
        if topic not in (self.config.status_topic, self.config.report_topic):
            return self._other(topic, payload, retained)
        why = self.refuse.why(topic, payload, retained and topic == self.config.report_topic)
        if why is None and topic == self.config.status_topic:
            why = self._status(payload, retained)
        elif why is None:
            why = self._report(payload)
        if why is not None:
            self.desk.primary_ignored(why)
        return True

    def _status(self, payload: bytes, retained: bool) -> str | None:
        """The primary's status handed to the desk; or why it is not one of the primary's
        (counted by the desk itself when it names another run than the current one)."""
        status = self.refuse.shaped(json_object(payload, quiet=True), "status")
        if status is None:
            return "status"
        faults, beat, role = status.get("faults"), status.get("beat_s"), status.get("standby")
        taken = self.desk.primary_status(
            status["state"],
            faults if isinstance(faults, dict) else {},
            beat if isinstance(beat, int | float) and not isinstance(beat, bool) else BEAT_S,
            retained=retained,
            role=role.get("role") if isinstance(role, dict) else None,
            run=status.get("run"),
        )
        if not taken:
            told = f"a status naming run {str(status.get('run'))[:40]!r}, not the current one"
            self.refuse.refused("another-run", self.config.status_topic, told)
        return None

    def _report(self, payload: bytes) -> str | None:
        """The primary's report handed to the desk; or why it is not one of the primary's."""
        report = self.refuse.shaped(json_object(payload, quiet=True), "report")
        if report is None:
            return "report"
        self.desk.primary_report(report)
        return None

    def _other(self, topic: str, payload: bytes, retained: bool) -> bool:
        """The primary's events (none retained, as it sends them) and the bridge's state;
        False for a topic not ours."""
        if topic == self.config.event_topic:
            why = self.refuse.why(topic, payload, retained)
            event = None if why else self.refuse.shaped(json_object(payload, quiet=True), "event")
            if why is None and event is None:
                why = "event"
            if why is not None:
                self.desk.primary_ignored(why)
            elif event is not None and event.get("event") == "command":
                self.desk.primary_command(event)
            return True
        if topic == self.config.link_topic:
            self._link(topic, payload.strip())
            return True
        return False

    def _link(self, topic: str, state: bytes) -> None:
        """The bridge's state: `0` down, `1` (or a cleared retained state: nothing known)
        up; anything else is logged and changes nothing."""
        if state not in (b"0", b"1", b""):
            log.warning("standby.link_topic %s: %r is neither 0 nor 1", topic, state[:50])
            return
        if state == b"0":
            log.warning("bridge to the primary's broker is down (%s)", topic)
        self.desk.primary_link(state != b"0", topic)

    def tick(self, now: float) -> Mapping[str, str | None]:
        return {"standby": self.desk.standby_fault(), LOOP: self.desk.standby_loop()}


class Refusal:
    """Which messages on the other gateway's topics are not its own, logged at most once a
    LOG_EVERY_S (a stray publisher repeating one must not fill the journal)."""

    def __init__(self, max_bytes: int, whose: str = "primary's") -> None:
        self.max_bytes, self.whose = max_bytes, whose
        self._logged = -LOG_EVERY_S  # when one was last logged (paho's network thread)

    def why(self, topic: str, payload: bytes, retained: bool) -> str | None:
        """Why a message on `topic` cannot be the other gateway's by its size or its
        retained flag (it publishes no report retained): the count's name; None if it may."""
        if len(payload) > self.max_bytes:
            return self.refused("too-big", topic, f"{len(payload)} bytes, over {self.max_bytes}")
        if retained:
            return self.refused("retained", topic, "a retained message (none is sent so)")
        return None

    def shaped(self, message: dict[str, Any] | None, kind: str) -> dict[str, Any] | None:
        """`message` if it has the other gateway's shape of a `kind` (`status`: a JSON object
        with a known `state`; `report`: a JSON object), else None (logged)."""
        state = message.get("state") if message is not None else None
        if message is not None and (
            kind != "status" or (isinstance(state, str) and state in STATES)
        ):
            return message
        self.refused(kind, kind, f"not a {self.whose} {kind}: {str(message)[:200]}")
        return None

    def refused(self, what: str, topic: str, detail: str) -> str:
        """`what` (the count's name), logged with `detail` unless one was this past minute."""
        now = time.monotonic()
        if now - self._logged >= LOG_EVERY_S:
            self._logged = now
            log.warning(
                "ignored on the %s %s: %s (logged once a minute)", self.whose, topic, detail
            )
        return what


def json_object(
    payload: bytes, whose: str = "primary's", quiet: bool = False
) -> dict[str, Any] | None:
    """The other gateway's message as a JSON object, or None (logged, naming `whose` message it
    was, unless `quiet`) for anything else."""
    try:
        decoded = load_json(payload)
    except InvalidJson:
        decoded = None
    if not isinstance(decoded, dict):
        if not quiet:
            log.warning("%s message not a JSON object: %r", whose, payload[:200])
        return None
    return decoded
