"""The MQTT side: one persistent QoS 1 session that survives broker restarts.

paho's network thread only hands messages to `on_message`; it never waits on synthesis or
audio, so keepalives and acknowledgements keep flowing while an alert is spoken. Messages are
acknowledged (PUBACK) by the handler calling `ack`, once it has recorded them: until then the
broker keeps them for redelivery.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from cosyedge.config import MqttConfig
from cosyedge.faults import Faults

log = logging.getLogger(__name__)

# (topic, payload, ack, retained: replayed by the broker from its retained store)
MessageHandler = Callable[[str, bytes, Callable[[], None], bool], None]


def read_secret(path: Path) -> str:
    """Secrets come from files so they never show in argv, the environment or the config."""
    return path.read_text(encoding="utf-8").strip()


class MqttIntake:
    def __init__(
        self,
        config: MqttConfig,
        filters: Sequence[str],
        on_message: MessageHandler,
        *,
        will: tuple[str, str] | None = None,
        on_connected: Callable[[], None] | None = None,
        on_published: Callable[[int], None] | None = None,
        faults: Faults | None = None,
    ) -> None:
        self.config = config
        self.faults = faults or Faults()
        self.filters = list(filters)
        self._on_message = on_message
        self._on_connected = on_connected
        self._on_published = on_published
        self.connected = False
        self._last_failure = ""
        self.subscribed = threading.Event()  # set once the broker acknowledged our filters
        self._subscribing = self.filters
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=config.client_id,
            clean_session=False,  # the broker keeps our subscriptions and queued messages
            protocol=mqtt.MQTTv311,
        )
        for warning in config.exposed_secrets():  # at start and at every reconnecting reload
            log.warning("%s", warning)
        if config.username is not None:
            password = read_secret(config.password_file) if config.password_file else None
            client.username_pw_set(config.username, password)
        if config.tls_ca_file is not None:
            client.tls_set(
                ca_certs=str(config.tls_ca_file),
                certfile=str(config.tls_cert_file) if config.tls_cert_file else None,
                keyfile=str(config.tls_key_file) if config.tls_key_file else None,
            )
        client.reconnect_delay_set(int(config.reconnect_min_s) or 1, int(config.reconnect_max_s))
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

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def publish(self, topic: str, payload: str, retain: bool = False) -> int:
        """QoS 1; queued by paho while disconnected. Returns the message id; raises OSError
        when the client does not take the message."""
        self.faults.check("mqtt.publish")
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        if info.rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
            raise OSError(f"MQTT client refused the message: {mqtt.error_string(info.rc)}")
        return info.mid

    def _connected(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.error("MQTT broker refused the connection: %s", reason_code)
            return
        self.connected = True
        self._last_failure = ""
        resumed = " (session resumed)" if flags.session_present else ""
        log.info("connected to MQTT broker%s; subscribing to %s", resumed, ", ".join(self.filters))
        self._subscribe(self.filters)
        if self._on_connected is not None:
            self._on_connected()

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
        if added:
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
        self.subscribed.set()

    def _connect_failed(self, client, userdata) -> None:
        # Called inside paho's `except OSError`, so the exception at hand is the reason
        # (refused, unreachable, TLS handshake). Said once per distinct reason, not per retry.
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
        self.connected = False
        log.warning("MQTT connection lost (%s); reconnecting with backoff", reason_code)

    def _published(self, client, userdata, mid, reason_code, properties) -> None:
        if self._on_published is not None:
            self._on_published(mid)

    def _message(self, client, userdata, message: mqtt.MQTTMessage) -> None:
        def ack() -> None:
            client.ack(message.mid, message.qos)

        try:
            self._on_message(message.topic, message.payload, ack, bool(message.retain))
        except Exception:  # a bug in handling one message must not kill paho's thread
            log.exception("unexpected error handling a message on %r", message.topic)
            ack()  # else it would come back at every reconnect and fail again
