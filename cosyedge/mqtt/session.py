"""The MQTT side: one persistent QoS 1 session that survives broker restarts.

paho's network thread only hands messages to `on_message`; it never waits on synthesis or
audio, so keepalives and acknowledgements keep flowing while an alert is spoken. Messages are
acknowledged (PUBACK) by the handler calling `ack`, once it has recorded them: until then the
broker keeps them for redelivery.

Two clients with one client id take the session from each other: the broker closes the older
connection whenever the other connects. `TakeoverWatch` tells that from the pattern it
leaves, the session then backs off and `MqttSession.problem` says so (see its docstring).
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from cosyedge.config.mqtt import MqttConfig
from cosyedge.faults import Faults
from cosyedge.mqtt.kept import KeptFilters

log = logging.getLogger(__name__)

# (topic, payload, ack, retained: replayed by the broker from its retained store)
MessageHandler = Callable[[str, bytes, Callable[[], None], bool], None]

TAKEOVER_DROPS = 3  # this many closes, each taken back at once, make a session taken over
MID_SPAN = 1 << 16  # paho numbers a client's messages from 1 to 65535, afresh in each client


class TakeoverWatch:
    """Tells that another client keeps taking our session, from the pattern it leaves.

    MQTT 3.1.1 has no word for it (and Mosquitto before 2.0.15 sends none under MQTT 5 either):
    the broker just closes our connection when a client with our id connects, and our
    reconnect, which takes the session back, succeeds at once. A close with no reason given,
    followed by a successful reconnect without a failed attempt between, is a *drop*;
    `TAKEOVER_DROPS` drops within `window_s` start an episode. A broker restart or a network
    outage does not look like this: the reconnect attempts fail while it lasts.

    While the episode lasts every further close doubles the reconnect delay (`backoff_s`, up
    to the configured maximum), so that two gateways with one id alternate slowly instead of
    many times a second. It ends with a connection held for `calm_s`: longer than the other
    client's longest reconnect delay, so that client has gone. Pure state; time is an argument.
    """

    def __init__(self, client_id: str, reconnect_min_s: float, reconnect_max_s: float) -> None:
        self.client_id = client_id
        self.min_s, self.max_s = reconnect_min_s, reconnect_max_s
        # Room for TAKEOVER_DROPS cycles of two clients at the shortest reconnect delay.
        self.window_s = max(60.0, 2 * TAKEOVER_DROPS * reconnect_min_s)
        self.calm_s = 2 * reconnect_max_s + 10
        self.problem: str | None = None  # set while an episode lasts
        self.backoff_s: float | None = None  # reconnect delay while it lasts
        self._drops: deque[float] = deque()
        self._closed = False  # the last connection was closed by the broker, no reason given
        self._connected_at: float | None = None

    def connected(self, now: float) -> bool:
        """A connection was made; True when it makes the pattern of a takeover (new episode)."""
        if self._closed:
            self._drops.append(now)
        self._closed = False
        self._connected_at = now
        while self._drops and self._drops[0] < now - self.window_s:
            self._drops.popleft()
        if self.problem is not None or len(self._drops) < TAKEOVER_DROPS:
            return False
        seconds = self._drops[-1] - self._drops[0]
        self.problem = (
            f"MQTT session taken over: another client keeps connecting with client id "
            f"{self.client_id!r} (the broker closed our connection {len(self._drops)} times "
            f"in {seconds:.0f} s, each time while it was up); two gateways must not share a "
            f"client id (mqtt.client_id)"
        )
        self.backoff_s = self.min_s
        return True

    def connect_failed(self) -> None:
        """A connection attempt failed: the broker was not there, so no takeover."""
        self._closed = False

    def lost(self, now: float, closed_by_broker: bool) -> float | None:
        """The connection ended (`closed_by_broker`: with no reason given). The reconnect
        delay to use from now on; None for the configured backoff."""
        held = now - self._connected_at if self._connected_at is not None else 0.0
        self._connected_at = None
        if held >= self.calm_s:  # the session was ours long enough: any episode is over
            self._drops.clear()
            self.problem = self.backoff_s = None
        self._closed = closed_by_broker
        if self.problem is not None and self.backoff_s is not None:
            self.backoff_s = min(self.max_s, max(self.backoff_s * 2, 1.0))
        return self.backoff_s

    def current(self, now: float) -> str | None:
        """The problem as it stands: gone once the connection has been held for `calm_s`."""
        if self._connected_at is not None and now - self._connected_at >= self.calm_s:
            return None
        return self.problem


def read_secret(path: Path) -> str:
    """Secrets come from files so they never show in argv, the environment or the config."""
    return path.read_text(encoding="utf-8").strip()


def new_client(config: MqttConfig, client_id: str, clean_session: bool) -> mqtt.Client:
    """A paho client (MQTT 3.1.1) with `config`'s credentials and TLS, as `client_id`."""
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        clean_session=clean_session,
        protocol=mqtt.MQTTv311,
    )
    if config.username is not None:
        password = read_secret(config.password_file) if config.password_file else None
        client.username_pw_set(config.username, password)
    if config.tls_ca_file is not None:
        client.tls_set(
            ca_certs=str(config.tls_ca_file),
            certfile=str(config.tls_cert_file) if config.tls_cert_file else None,
            keyfile=str(config.tls_key_file) if config.tls_key_file else None,
        )
    return client


class MqttSession:
    def __init__(
        self,
        config: MqttConfig,
        filters: Sequence[str],
        on_message: MessageHandler,
        *,
        will: tuple[str, str] | None = None,
        on_connected: Callable[[], None] | None = None,
        on_lost: Callable[[], None] | None = None,
        on_published: Callable[[int], None] | None = None,
        faults: Faults | None = None,
        id_base: int = 0,
        kept: KeptFilters | None = None,
    ) -> None:
        """`id_base`, a multiple of MID_SPAN, is added to every message id it gives out (by
        `publish` and to `on_published`), so that sessions made one after the other never
        give out the same id: each paho client numbers its messages from 1 again. `kept`:
        where the filters the broker keeps for the session are noted, so that a resumed
        session drops those no longer wanted."""
        self.config = config
        self._id_base = id_base
        self.ids = range(id_base + 1, id_base + MID_SPAN)  # every id it may give out
        self.faults = faults or Faults()
        self.filters = list(filters)
        self._on_message = on_message
        self._on_connected = on_connected
        self._on_lost = on_lost
        self._on_published = on_published
        self.connected = False
        self._last_failure = ""
        self._takeover = TakeoverWatch(
            config.client_id, _delay(config.reconnect_min_s), _delay(config.reconnect_max_s)
        )
        self._delay_s = _delay(config.reconnect_min_s)  # the shortest reconnect delay now
        self.subscribed = threading.Event()  # set once the broker acknowledged our filters
        self._stopping = False  # set by stop: the disconnect is ours
        self._refusing = False  # set by refuse: a stop takes nothing more in
        self._subscribing = self.filters
        self._kept = kept
        for warning in config.exposed_secrets():  # at start and at every reconnecting reload
            log.warning("%s", warning)
        # Not a clean session: the broker keeps our subscriptions and queued messages.
        client = new_client(config, config.client_id, clean_session=False)
        client.reconnect_delay_set(self._delay_s, _delay(config.reconnect_max_s))
        client.on_connect = self._connected
        client.on_disconnect = self._disconnected
        client.on_connect_fail = self._connect_failed
        client.on_message = self._message
        client.on_subscribe = self._subscribed
        client.on_publish = self._published
        client.manual_ack_set(True)
        if will is not None:  # retained, so anyone can see at any time whether we are up
            client.will_set(will[0], will[1], qos=1, retain=True)
        self.client = client

    def start(self) -> None:
        log.info("connecting to MQTT broker %s:%d", self.config.host, self.config.port)
        self.client.connect_async(self.config.host, self.config.port, self.config.keepalive_s)
        self.client.loop_start()

    def refuse(self) -> None:
        """Take nothing more in (a stop begins): a message that can come again (QoS 1 and 2)
        is neither handed on nor acknowledged, so the broker delivers it to the next start;
        what was handed on before is acknowledged once journaled, before the session closes.
        QoS 0 messages are still handed on: the broker never delivers them again."""
        self._refusing = True

    def stop(self) -> None:
        self._stopping = True  # the disconnect that follows is ours, not a lost connection
        self.client.disconnect()
        self.client.loop_stop()

    def publish(self, topic: str, payload: str | bytes, retain: bool = False) -> int:
        """QoS 1; queued by paho while disconnected. Returns the message id (see `id_base`);
        raises OSError when the client does not take the message."""
        self.faults.check("mqtt.publish")
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        if info.rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
            raise OSError(f"MQTT client refused the message: {mqtt.error_string(info.rc)}")
        return self._id_base + info.mid

    def farewell(self, topic: str, payload: str, timeout_s: float) -> bool:
        """Publish `payload` retained on `topic` and wait at most `timeout_s` for the broker's
        acknowledgement, best effort: False when not connected, refused or not in time. For
        what the Last Will would say, on a connection closed on purpose (which sends none)."""
        if not self.connected:
            return False
        try:
            info = self.client.publish(topic, payload, qos=1, retain=True)
            info.wait_for_publish(timeout=timeout_s)
        except (RuntimeError, ValueError):  # paho's: not connected, or its queue is full
            return False
        return info.is_published()

    @property
    def problem(self) -> str | None:
        """What is wrong with the session though it may be connected right now: another
        client taking it over (naming the client id). None once the session has been held
        long enough; for the daemon's status."""
        return self._takeover.current(time.monotonic())

    def _connected(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self._takeover.connect_failed()
            log.error("MQTT broker refused the connection: %s", reason_code)
            return
        self.connected = True
        self._last_failure = ""
        resumed = " (session resumed)" if flags.session_present else ""
        log.info("connected to MQTT broker%s; subscribing to %s", resumed, ", ".join(self.filters))
        if self._takeover.connected(time.monotonic()):
            self._taken_over()
        if flags.session_present:
            self._drop_earlier()
        self._subscribe(self.filters)
        if self._on_connected is not None:
            self._on_connected()

    def _drop_earlier(self) -> None:
        """The resumed session's filters of an earlier configuration, no longer wanted, are
        unsubscribed: the broker would go on delivering their messages."""
        if self._kept is None:
            return
        gone = [f for f in self._kept.earlier(self.config.client_id) if f not in self.filters]
        if gone:
            self.client.unsubscribe(gone)
            log.info("unsubscribed from what an earlier start subscribed: %s", ", ".join(gone))

    def _taken_over(self) -> None:
        """Said once per episode in the log; the daemon's status shows `problem` meanwhile."""
        problem = self._takeover.problem
        assert problem is not None
        log.error("%s; reconnecting with backoff up to %g s", problem, self.config.reconnect_max_s)

    def set_filters(self, filters: Sequence[str]) -> None:
        """Follow reloaded templates: drop filters no longer used, subscribe new ones only
        (subscribing again would make the broker resend retained messages)."""
        new = list(filters)
        gone = [f for f in self.filters if f not in new]
        added = [f for f in new if f not in self.filters]
        self.filters = new
        if gone:
            self.client.unsubscribe(gone)
            log.info("unsubscribed from %s", ", ".join(gone))
            if not added and self._kept is not None:
                self._kept.keep(self.config.client_id, self.filters)
        if added:
            self.subscribed.clear()  # set again once the broker acknowledges them
            self._subscribe(added)

    def _subscribe(self, filters: list[str]) -> None:
        self._subscribing = filters
        self.client.subscribe([(f, 1) for f in filters])

    def _subscribed(self, client, userdata, mid, reason_codes, properties) -> None:
        filters = self._subscribing
        failed = [f for f, rc in zip(filters, reason_codes, strict=False) if rc.is_failure]
        if failed:
            log.error("broker refused subscriptions to %s", ", ".join(failed))
        log.info("subscribed to %d topic filters", len(reason_codes) - len(failed))
        if self._kept is not None:
            self._kept.keep(self.config.client_id, self.filters)
        self.subscribed.set()

    def _connect_failed(self, client, userdata) -> None:
        # Called inside paho's `except OSError`, so the exception at hand is the reason
        # (refused, unreachable, TLS handshake). Said once per distinct reason, not per retry.
        self._takeover.connect_failed()
        reason = str(sys.exc_info()[1] or "unknown reason")
        if reason != self._last_failure:
            self._last_failure = reason
            tls = " over TLS" if self.config.tls_ca_file else ""
            log.error(
                "cannot connect to MQTT broker %s:%d%s: %s; retrying with backoff",
                self.config.host,
                self.config.port,
                tls,
                reason,
            )

    def _disconnected(self, client, userdata, flags, reason_code, properties) -> None:
        was_connected, self.connected = self.connected, False
        if self._stopping:
            log.info("MQTT session closed")
            return
        delay = None
        if was_connected:  # not a refused connection, where paho's own doubling goes on
            # paho's name for a connection the other side closed (or reset) saying nothing.
            closed = reason_code == "Unspecified error"
            closed = closed and not flags.is_disconnect_packet_from_server
            delay = self._takeover.lost(time.monotonic(), closed)
            self._set_delay(client, delay or _delay(self.config.reconnect_min_s))
            if self._on_lost is not None:
                self._on_lost()
        if delay is None:
            log.warning("MQTT connection lost (%s); reconnecting with backoff", reason_code)
        else:
            log.warning(
                "MQTT connection lost (%s), session taken over; reconnecting in %d s",
                reason_code,
                delay,
            )

    def _set_delay(self, client: mqtt.Client, delay: float) -> None:
        """The shortest reconnect delay from now on; set only on a change, since setting it
        restarts paho's doubling."""
        if delay != self._delay_s:
            self._delay_s = delay
            client.reconnect_delay_set(delay, max(delay, _delay(self.config.reconnect_max_s)))

    def _published(self, client, userdata, mid, reason_code, properties) -> None:
        if self._on_published is not None:
            self._on_published(self._id_base + mid)

    def _message(self, client, userdata, message: mqtt.MQTTMessage) -> None:
        if self._refusing and message.qos > 0:  # left unacknowledged: it comes again
            log.debug("stopping: message on %r left to the next start", message.topic)
            return

        def ack() -> None:
            client.ack(message.mid, message.qos)

        try:
            self._on_message(message.topic, message.payload, ack, bool(message.retain))
        except Exception:  # a bug in handling one message must not kill paho's thread
            log.exception("unexpected error handling a message on %r", message.topic)
            ack()  # else it would come back at every reconnect and fail again


def _delay(seconds: float) -> int:
    """A reconnect delay as paho takes it: whole seconds, at least one."""
    return max(1, int(seconds))
