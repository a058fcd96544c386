"""The link to the broker: the MQTT session the daemon keeps, made again when a reload changes
`mqtt`, subscribed to what the door takes; its fault `mqtt` and whether it is connected.

It is made with the stages, so reports published before it connects are queued by the
session; it connects once every fault of the start is known (daemon.py), and is stopped last,
once the reports of the last alerts said are acknowledged.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

from cosyedge.component import Component, Detail
from cosyedge.config.schema import Config
from cosyedge.faults import Faults
from cosyedge.intake.door import Door
from cosyedge.mqtt.session import MqttSession
from cosyedge.observe import Observer

OFFLINE = json.dumps({"state": "offline"})  # the Last Will, retained on the status topic


class Link(Component):
    def __init__(self, config: Config, door: Door, observer: Observer, faults: Faults) -> None:
        """`observer` is told each connection and each message the broker acknowledged."""
        self.door, self.observer, self.faults = door, observer, faults
        self._config = config
        self.session = self._session(config)

    def _session(self, config: Config) -> MqttSession:
        return MqttSession(
            config.mqtt,
            self.door.filters,
            self.door.on_message,
            will=(config.reports.status_topic, OFFLINE),
            on_connected=self.observer.connected,
            on_published=self.observer.published,
            faults=self.faults,
        )

    @property
    def subscribed(self) -> threading.Event:
        """Set once the broker acknowledged the subscriptions of the session in force."""
        return self.session.subscribed

    def publish(self, topic: str, payload: str, retain: bool = False) -> int:
        return self.session.publish(topic, payload, retain)  # follows a reconnect after reload

    def start(self) -> None:
        self.session.start()

    def stop(self) -> None:
        self.session.stop()

    def reconfigure(self, config: Config) -> None:
        """A new `mqtt` section is a new session; else the subscriptions follow the door's."""
        if config.mqtt != self._config.mqtt:
            self.session.stop()
            self.session = self._session(config)
            self.session.start()
        else:
            self.session.set_filters(self.door.filters)
        self._config = config

    def tick(self, now: float) -> Mapping[str, str | None]:
        return {"mqtt": self.session.problem}  # e.g. another client took our session

    def state(self, detail: Detail) -> Mapping[str, Any]:
        mqtt = self._config.mqtt
        return {
            "broker_connected": self.session.connected,
            "broker_address": f"{mqtt.host}:{mqtt.port}",
        }
