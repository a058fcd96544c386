"""Home Assistant's MQTT discovery (`homeassistant`), off by default."""

from __future__ import annotations

from dataclasses import dataclass, field

from cosyedge.config.fields import PRIORITIES, check_publish_topic, meta


@dataclass(frozen=True)
class HomeAssistantConfig:
    """Home Assistant's MQTT discovery (docs/homeassistant.md)."""

    discovery: bool = field(
        default=False,
        metadata=meta(
            "publish retained discovery configs so Home Assistant shows the gateway as a "
            "device: a notify entity that speaks, sensors read from the status (with zones, "
            "each zone's queue and each output's fault too), a silence button; switched off, "
            "the configs published before are removed"
        ),
    )
    prefix: str = field(
        default="homeassistant",
        metadata=meta("Home Assistant's discovery prefix; a topic without wildcards"),
    )
    name: str | None = field(
        default=None,
        metadata=meta("the gateway's name in Home Assistant; null: the host name"),
    )
    notify_topic: str = field(
        default="cosyedge/notify",
        metadata=meta(
            "where the notify entity publishes its message, spoken as an alert; a topic "
            "without wildcards, one per gateway"
        ),
    )
    notify_priority: str = field(
        default="medium",
        metadata=meta("priority a notify message is spoken at", choices=PRIORITIES),
    )

    def __post_init__(self) -> None:
        check_publish_topic("prefix", self.prefix)
        check_publish_topic("notify_topic", self.notify_topic)
        if self.name is not None and not self.name.strip():
            raise ValueError("name: must not be blank (null: the host name)")
