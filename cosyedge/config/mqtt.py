"""The sections about the broker: the MQTT session (`mqtt`) and the topics reports go out on
(`reports`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from cosyedge.config.fields import (
    at_or_under,
    check_client_id,
    check_publish_topic,
    meta,
    open_to_others,
    show,
)


@dataclass(frozen=True)
class MqttConfig:
    """The MQTT broker and the session kept with it (`mqtt`); a file it names that cannot be
    read is refused as the section is made, so a reload does not half apply it."""

    host: str = field(default="127.0.0.1", metadata=meta("broker host name or address"))
    port: int = field(default=1883, metadata=meta("broker port", range=(1, 65535)))
    client_id: str = field(
        default="",
        metadata=meta(
            "fixed, so the broker keeps the session and queued QoS 1 messages; one per gateway "
            "(two sharing one are reported and back off)",
            shown="`cosyedge-<hostname>`",
        ),
    )
    username: str | None = field(default=None, metadata=meta("user name"))
    password_file: Path | None = field(
        default=None,
        metadata=meta(
            "file holding the password (needs `username`); it must be readable, and one others "
            "may read or write is warned about by `check` and at start"
        ),
    )
    keepalive_s: int = field(
        default=30, metadata=meta("MQTT keepalive, in seconds", range=(5, 3600))
    )
    local_broker: bool = field(
        default=True,
        metadata=meta("start a loopback Mosquitto when nothing listens on host:port"),
    )
    reconnect_min_s: float = field(
        default=1.0,
        metadata=meta(
            "shortest wait before reconnecting, in seconds (taken in whole seconds, at least 1)",
            range=(0.1, 60),
        ),
    )
    reconnect_max_s: float = field(
        default=30.0,
        metadata=meta(
            "longest wait before reconnecting, in whole seconds, not below `reconnect_min_s`; "
            "while the session is taken over by another client the delay doubles up to it",
            range=(1, 600),
        ),
    )
    max_payload_bytes: int = field(
        default=16384, metadata=meta("larger messages are rejected", range=(64, 1 << 20))
    )
    # TLS: the CA that signed the broker's certificate turns it on; cert and key, a client
    # certificate for brokers that ask for one.
    tls_ca_file: Path | None = field(
        default=None,
        metadata=meta(
            "CA certificate that signed the broker's; setting it turns TLS on; loaded when the "
            "file is checked"
        ),
    )
    tls_cert_file: Path | None = field(
        default=None,
        metadata=meta(
            "client certificate, for a broker that asks for one: with `tls_key_file`, both or "
            "neither, and needs `tls_ca_file`; loaded when the file is checked"
        ),
    )
    tls_key_file: Path | None = field(
        default=None,
        metadata=meta(
            "unencrypted key of the client certificate (`tls_cert_file`); loaded when the file "
            "is checked"
        ),
    )

    def __post_init__(self) -> None:
        if (self.tls_cert_file is None) != (self.tls_key_file is None):
            missing = "tls_key_file" if self.tls_key_file is None else "tls_cert_file"
            raise ValueError(f"{missing}: needed with a client certificate, both or neither")
        if self.tls_cert_file is not None and self.tls_ca_file is None:
            raise ValueError("tls_ca_file: needed for a client certificate")
        # Checked here so a reload with an unreadable file is refused, not half applied.
        for name in ("tls_ca_file", "tls_cert_file", "tls_key_file", "password_file"):
            path = getattr(self, name)
            if path is not None and not os.access(path, os.R_OK):
                raise ValueError(f"{name}: cannot read {show(str(path))}")
        if self.tls_ca_file is not None:
            _check_tls_files(self.tls_ca_file, self.tls_cert_file, self.tls_key_file)
        if not self.client_id:
            # A fixed id is what lets the broker keep our session and queued QoS 1 messages.
            # The host's name as gethostname(2) gives it (uname's node name), read without
            # importing socket, which every command reading a configuration would pay for.
            object.__setattr__(self, "client_id", f"cosyedge-{os.uname().nodename}")
        check_client_id("client_id", self.client_id)
        if self.reconnect_max_s < self.reconnect_min_s:
            raise ValueError("reconnect_max_s: must not be below reconnect_min_s")
        if self.password_file is not None and self.username is None:
            raise ValueError("password_file: needs a username")

    def files_digest(self) -> str:
        """A digest of what every file the connection reads holds now (the password, the TLS
        CA, client certificate and key): the same path with other contents is another
        connection, as a rotated password is. A file that cannot be read counts as its
        error, so one that becomes readable again is a change too."""
        digest = hashlib.sha256()
        for name in CONNECTION_FILES:
            path = getattr(self, name)
            digest.update(f"{name}\0{path}\0".encode())
            if path is not None:
                digest.update(_contents(path))
        return digest.hexdigest()

    def exposed_secrets(self) -> list[str]:
        """A warning per secret file others may read or write (`key: path is ...`): not an
        error, the daemon works, but anyone on the gateway could take the password."""
        found = []
        for name in ("password_file", "tls_key_file"):
            path = getattr(self, name)
            problem = open_to_others(path) if path is not None else None
            if problem:
                found.append(f"mqtt.{name}: {path} {problem}; chmod o-rwx it")
        return found


# The files the MQTT client reads when a session is made (mqtt/session.py).
CONNECTION_FILES = ("password_file", "tls_ca_file", "tls_cert_file", "tls_key_file")


def _contents(path: Path) -> bytes:
    """The file's bytes, or its error's when it cannot be read."""
    try:
        return b"\1" + path.read_bytes()
    except OSError as exc:
        return f"\2{exc.strerror or exc}".encode()


def _check_tls_files(ca: Path, cert: Path | None, key: Path | None) -> None:
    """Load them as the MQTT client will, so a wrong file is refused by `check` and by a
    reload, instead of failing when the connection is made."""
    import ssl  # only with TLS configured: the import costs every command 20-40 ms of CPU

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # without the system's CAs: quicker
    try:
        context.load_verify_locations(cafile=ca)
    except OSError as exc:  # ssl.SSLError is one
        raise ValueError(f"tls_ca_file: {ca} holds no usable CA certificate ({exc})") from None
    if cert is None:
        return
    try:  # a key with a passphrase cannot be used: nobody is there to type it
        context.load_cert_chain(cert, key, password=lambda: b"")
    except OSError as exc:
        raise ValueError(
            f"tls_cert_file: {cert} with tls_key_file {key} is not a usable certificate and "
            f"unencrypted key ({exc})"
        ) from None


@dataclass(frozen=True)
class ReportsConfig:
    """The topics outcomes, events, errors and status are published on (`reports`), each
    without wildcards."""

    outcome_topic: str = field(
        default="cosyedge/report",
        metadata=meta("one message per accepted alert: its final outcome"),
    )
    event_topic: str = field(
        default="cosyedge/event",
        metadata=meta(
            "commands carried out, re-announcements, flood start, summaries and end, shelve "
            "ends, faults of the alarm system itself"
        ),
    )
    error_topic: str = field(
        default="cosyedge/error",
        metadata=meta(
            "synthesis or playback failures, refused commands, journal write failures, the "
            "MQTT session taken over by another client"
        ),
    )
    status_topic: str = field(
        default="cosyedge/status",
        metadata=meta(
            "retained status: `online`, `degraded` with its faults, or `offline` (the Last Will)"
        ),
    )

    def __post_init__(self) -> None:
        seen: dict[str, str] = {}
        for f in dataclasses.fields(self):
            topic = getattr(self, f.name)
            check_publish_topic(f.name, topic)
            # The status is retained and read by its shape; a standby tells the primary's
            # outcomes from its events by their topics.
            if topic in seen:
                raise ValueError(
                    f"{f.name}: {show(topic)} is reports.{seen[topic]} too; each needs its own"
                )
            seen[topic] = f.name

    def check_apart(self, command_topic: str, canary_topic: str) -> None:
        """No report topic is the command topic (a report would come back as a command, a
        refused one reported again) nor at or under the canary topic (the canaries' and the
        handback marker's): a ValueError naming the report's key."""
        for f in dataclasses.fields(self):
            topic = getattr(self, f.name)
            if topic == command_topic:
                raise ValueError(
                    f"reports.{f.name}: {show(topic)} is alarms.command_topic; a report "
                    "there would come back as a command"
                )
            if at_or_under(topic, canary_topic):
                raise ValueError(
                    f"reports.{f.name}: {show(topic)} is under monitor.canary_topic "
                    f"({show(canary_topic)}), kept for canaries"
                )
