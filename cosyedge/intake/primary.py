"""A standby's ear on its primary: the primary's retained status and outcome reports, taken
from the session before the intake sees them and handed to the desk (alarms/standby.py).

A tap of the door (door.py `Tap`): its topics are subscribed beside the intake's, and every
message passes it first, so the first one tells the desk that the subscription works (a
primary's retained status would have come with it). Its fault is the desk's `standby`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.component import Component
from cosyedge.config.standby import StandbyConfig
from cosyedge.intake.intake import Intake

log = logging.getLogger(__name__)


class PrimaryTap(Component):
    """The primary's status and reports, for the desk; on paho's network thread."""

    def __init__(self, config: StandbyConfig, desk: AlarmDesk) -> None:
        self.config, self.desk = config, desk
        self.topics = [config.status_topic, config.report_topic, config.event_topic]
        self.topics += [config.link_topic] if config.link_topic else []
        self._heard = False  # only paho's network thread sets it

    def use(self, intake: Intake) -> None:
        """The intake in force changes nothing here: the primary is named by `standby`."""

    def claim(self, topic: str, payload: bytes, retained: bool) -> bool:
        if not self._heard:
            self._heard = True
            self.desk.heard()
        if topic == self.config.status_topic:
            status = (json_object(payload) if payload else {}) or {}
            state, faults = status.get("state"), status.get("faults")
            self.desk.primary_status(
                state if isinstance(state, str) else None,
                faults if isinstance(faults, dict) else {},
            )
            return True
        if topic == self.config.report_topic:
            report = json_object(payload)
            if report is not None:
                self.desk.primary_report(report)
            return True
        if topic == self.config.event_topic:
            event = json_object(payload)
            if event is not None and event.get("event") == "command":
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
        return {"standby": self.desk.standby_fault()}


def json_object(payload: bytes, whose: str = "primary's") -> dict[str, Any] | None:
    """The other gateway's message as a JSON object, or None (logged, naming `whose` message it
    was) for anything else."""
    try:
        decoded = json.loads(payload)
    except ValueError:
        decoded = None
    if not isinstance(decoded, dict):
        log.warning("%s message not a JSON object: %r", whose, payload[:200])
        return None
    return decoded
