"""The link to the broker: the MQTT session the daemon keeps, made again when a reload changes
`mqtt`, subscribed to what the door takes; its faults `mqtt` and `connection`, and whether it
is connected.

It is made with the stages, so reports published before it connects are queued by the
session; it connects once every fault of the start is known (daemon.py), and is stopped last,
once the reports of the last alerts said are acknowledged.

A new connection (any change of `mqtt`: host, port, credentials, TLS, client id, or of what
a file it reads holds: a password rotated in its `password_file`, a TLS file renewed) is a
new paho client, which knows nothing of what the old one had not yet got acknowledged. So each
session gives out message ids of its own (`MqttSession.ids`: an acknowledgement on the new
one is never taken for one on the old), and once the old one is closed the observer is told
which ids died with it (`Observer.replaced`): the reports carry theirs over (reports.py).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from typing import Any

from cosyedge.component import Component, Detail
from cosyedge.config.schema import Config
from cosyedge.faults import Faults
from cosyedge.intake.door import Door
from cosyedge.mqtt.kept import KeptFilters
from cosyedge.mqtt.session import MID_SPAN, MqttSession
from cosyedge.observe import Observer

log = logging.getLogger(__name__)

# Not connected for this long is the fault `connection`: a broker restart or a network hiccup
# that paho's first reconnects (1, 2, 4 s apart by default) get over is none.
CONNECTION_GRACE_S = 10.0
# A reload closing a connection waits this long at most for the old broker to take `offline`:
# the main loop (the watchdog) waits meanwhile, and a broker that is away never will.
FAREWELL_S = 2.0


class Link(Component):
    def __init__(
        self, config: Config, door: Door, observer: Observer, faults: Faults, run: str = ""
    ) -> None:
        """`observer` is told each connection and each message the broker acknowledged;
        `run`: this run's name, which the status and its `offline` carry (AlarmDesk.run)."""
        self.door, self.observer, self.faults = door, observer, faults
        # The Last Will, retained on the status topic; named by its run, so that a standby
        # tells it from an `offline` another publisher left there (alarms/standby.py).
        self._offline = json.dumps({"state": "offline", **({"run": run} if run else {})})
        self._config = config
        self._made = 0  # sessions made so far: each gives out message ids of its own
        self.session = self._session(config)
        self._down_since: float | None = None  # monotonic: the first tick that found it down

    def _session(self, config: Config) -> MqttSession:
        """A new session on `config`, with the contents of the files it reads noted."""
        self._made += 1
        self._files = config.mqtt.files_digest()  # read now, as the session reads them
        return MqttSession(
            config.mqtt,
            self.door.filters,
            self.door.on_message,
            will=(config.reports.status_topic, self._offline),
            on_connected=self.observer.connected,
            on_lost=self.observer.lost,
            on_published=self.observer.published,
            faults=self.faults,
            id_base=self._made * MID_SPAN,
            kept=KeptFilters(config.state_dir / "subscriptions.json"),
        )

    @property
    def address(self) -> str:
        """The broker's, as host:port."""
        return f"{self._config.mqtt.host}:{self._config.mqtt.port}"

    @property
    def subscribed(self) -> threading.Event:
        """Set once the broker acknowledged the subscriptions of the session in force."""
        return self.session.subscribed

    @property
    def connected(self) -> bool:
        """Connected now: the broker delivers what it keeps for the subscriptions only then
        (not while away, nor while it refuses the credentials)."""
        return self.session.connected

    def publish(self, topic: str, payload: str | bytes, retain: bool = False) -> int:
        return self.session.publish(topic, payload, retain)  # follows a reconnect after reload

    def start(self) -> None:
        self.session.start()

    def refuse(self) -> None:
        """A stop begins: nothing more is taken in that the broker would deliver again
        (MqttSession.refuse)."""
        self.session.refuse()

    def settle(self, timeout_s: float) -> bool:
        """A round trip through the broker before the session closes: the retained status
        left `offline` (as the Last Will would), acknowledged within `timeout_s`. MQTT keeps
        a connection's packets in order, so the broker then has every acknowledgement given
        before it; closed at once, a connection the broker still sends on is reset, and the
        acknowledgements not yet read by the broker are lost with it (and their messages
        delivered again). False when not connected or not in time."""
        return self.session.farewell(self._config.reports.status_topic, self._offline, timeout_s)

    def stop(self) -> None:
        self.session.stop()

    def reconfigure(self, config: Config) -> None:
        """A new `mqtt` section, or new contents of a file it names, is a new session; else
        the subscriptions follow the door's."""
        if config.mqtt != self._config.mqtt or config.mqtt.files_digest() != self._files:
            self._replace(config)
        else:
            self.session.set_filters(self.door.filters)
        self._config = config

    def follow(self) -> None:
        """Subscribe what the door takes now (a tap added after the start: a source)."""
        self.session.set_filters(self.door.filters)

    def _replace(self, config: Config) -> None:
        """Publishers turn to the new session at once (paho queues until it connects); the
        old one is told gone only once stopped, so every acknowledgement it got was told
        before, and none of its ids is acknowledged after. The old broker is left the
        retained `offline` first, as a stop leaves it (the Last Will goes only on a loss)."""
        old_address, status_topic = self.address, self._config.reports.status_topic
        old, self.session = self.session, self._session(config)
        if not old.farewell(
            status_topic, self._offline, FAREWELL_S
        ):  # else `online` stays retained
            log.warning("could not leave the status offline on the broker at %s", old_address)
        old.stop()
        self.observer.replaced(old.ids)
        self.session.start()

    def tick(self, now: float) -> Mapping[str, str | None]:
        """`mqtt`: another client takes our session; `connection`: not connected for
        CONNECTION_GRACE_S, at a start as at any time (ticked while the start waits)."""
        return {"mqtt": self.session.problem, "connection": self._down(now)}

    def _down(self, now: float) -> str | None:
        """The fault `connection`'s reason while the session has been down since a tick at
        least CONNECTION_GRACE_S ago; None while connected."""
        if self.session.connected:
            self._down_since = None
            return None
        if self._down_since is None:
            self._down_since = now
        if now - self._down_since < CONNECTION_GRACE_S:
            return None
        return f"not connected to the broker at {self.address} for over {CONNECTION_GRACE_S:g} s"

    def state(self, detail: Detail) -> Mapping[str, Any]:
        return {"broker_connected": self.session.connected}
