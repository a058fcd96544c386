"""SIGHUP: which parts of a new configuration a running daemon takes over at once.

Templates, the MQTT connection, audio, the memory ceiling and the log level change live.
The rest (voice, cache and state directories, starting a local broker) is read only at start:
a change there is logged and waits for the next restart, so the running daemon never holds a
configuration it is not actually using.
"""

from __future__ import annotations

import dataclasses

from cosyedge.config import Config

LIVE_SECTIONS = frozenset({"templates", "mqtt", "audio", "memory", "log_level"})


def effective_config(running: Config, new: Config) -> tuple[Config, list[str]]:
    """The configuration to run with now, and the keys whose change waits for a restart."""
    waiting: list[str] = []
    keep: dict[str, object] = {}
    for f in dataclasses.fields(Config):
        if f.name not in LIVE_SECTIONS and getattr(new, f.name) != getattr(running, f.name):
            waiting.append(f.name)
            keep[f.name] = getattr(running, f.name)
    if new.mqtt.local_broker != running.mqtt.local_broker:
        waiting.append("mqtt.local_broker")
        keep["mqtt"] = dataclasses.replace(new.mqtt, local_broker=running.mqtt.local_broker)
    return dataclasses.replace(new, **keep), waiting
