"""Home Assistant's MQTT discovery: the retained configs that make the gateway a device there.

Home Assistant reads `<prefix>/<component>/<object_id>/config` (its `mqtt` integration,
"MQTT Discovery"); each config names the topics the entity reads or publishes. Everything an
entity shows is read from the retained status topic the daemon keeps anyway, so discovery adds
no topic of its own to keep up to date, only the configs:

- `notify` publishes its message on `homeassistant.notify_topic`, which the intake takes as an
  alert (a template of its own), so it is journaled and reported like any other;
- sensors and a binary sensor read the status JSON with value templates;
- a `button` publishes the silence command on the command topic.

Availability follows the status topic too: its Last Will says `offline`.

Configs are published on every connection, since a broker without persistence forgets them.
The topics published are remembered in `state_dir` before they go out, so that switching
discovery off, or renaming the gateway, removes them (an empty retained message each) even
across a restart; a topic is forgotten once the broker has acknowledged its removal.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import socket
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cosyedge import __version__
from cosyedge.component import Component
from cosyedge.config.schema import Config
from cosyedge.observe import Observer
from cosyedge.regular import SITE_RECORD_MAX, load_record

log = logging.getLogger(__name__)

Publish = Callable[..., int | None]  # (topic, payload, retain=False) -> message id, if any
STATE_FILE = "homeassistant.json"
_NOT_ID = re.compile(r"[^a-zA-Z0-9_-]")  # what a discovery topic's object id may not hold
STATES = ("online", "degraded", "offline")
FAULTS = "{{ {'faults': value_json.get('faults', {})} | tojson }}"  # the state's attributes


@dataclass(frozen=True)
class Entity:
    """One entity of the device: its component, the key of its ids, and its own settings."""

    component: str
    key: str
    name: str
    settings: dict[str, Any]


def _status(field: str) -> str:
    """A value template reading one field of the status JSON; `None` (unknown to Home
    Assistant) in the Last Will's `{"state": "offline", "run": ...}`, which has no other."""
    return f"{{{{ value_json.get('{field}') }}}}"


def _percent(field: str) -> str:
    """A value template showing a field of the status that is a share from 0 to 1 as a
    percentage; `None` when the field is absent or null (no lookup yet, the Last Will)."""
    value = f"value_json.get('{field}')"
    return f"{{{{ ({value} * 100) | round(1) if {value} is number else None }}}}"


def entities(config: Config) -> list[Entity]:
    """The entities of one gateway, as the configuration names its topics."""
    status = config.reports.status_topic
    ha = config.homeassistant
    shelved = "value_json.get('shelved', [])"
    return [
        Entity("notify", "say", "Say", {"command_topic": ha.notify_topic, "qos": 1}),
        Entity(
            "sensor",
            "state",
            "State",
            {
                "state_topic": status,
                "value_template": "{{ value_json.state }}",
                "device_class": "enum",
                "options": list(STATES),
                "json_attributes_topic": status,
                "json_attributes_template": FAULTS,
            },
        ),
        _count("queue", "Queue", status, _status("queue")),
        _count("unacknowledged", "Unacknowledged alarms", status, _status("unacknowledged")),
        Entity(
            "binary_sensor",
            "flood",
            "Alarm flood",
            {
                "state_topic": status,
                "value_template": "{{ 'ON' if value_json.get('flood') else 'OFF' }}",
                "device_class": "problem",
            },
        ),
        Entity(
            "sensor",
            "shelved",
            "Shelved sources",
            {
                "state_topic": status,
                "value_template": f"{{{{ {shelved} | length }}}}",
                "state_class": "measurement",
                "json_attributes_topic": status,
                "json_attributes_template": f"{{{{ {{'sources': {shelved}}} | tojson }}}}",
            },
        ),
        Entity(
            "sensor",
            "cache_hit_rate",
            "Phrase cache hit rate",
            {
                "state_topic": status,
                "value_template": _percent("cache_hit_rate"),
                "unit_of_measurement": "%",
                "state_class": "measurement",
                "entity_category": "diagnostic",
            },
        ),
        Entity(
            "button",
            "silence",
            "Silence",
            {
                "command_topic": config.alarms.command_topic,
                "payload_press": json.dumps({"cmd": "silence"}),
                "qos": 1,
            },
        ),
        *zone_entities(config),
    ]


def zone_entities(config: Config) -> list[Entity]:
    """With zones: each zone's queue (what it says now and its flood as attributes), and a
    problem sensor per output, on while its fault `audio:<output>` lasts. None without zones,
    whose one sound device's fault is among the state's."""
    status = config.reports.status_topic
    found = []
    for zone in config.zones:
        own = f"value_json.get('zones', {{}}).get('{zone}', {{}})"
        attributes = f"{{'speaking': {own}.get('speaking'), 'flood': {own}.get('flood', False)}}"
        settings = {
            "state_topic": status,
            "value_template": f"{{{{ {own}.get('queue') }}}}",
            "state_class": "measurement",
            "json_attributes_topic": status,
            "json_attributes_template": f"{{{{ {attributes} | tojson }}}}",
        }
        found.append(Entity("sensor", f"zone_{zone}_queue", f"Zone {zone} queue", settings))
    for output in config.outputs:
        found.append(_output_fault(output, status))
    return found


def _output_fault(output: str, status: str) -> Entity:
    """On while the output's fault lasts; why, as the attribute `reason` (null when off)."""
    reason = f"value_json.get('faults', {{}}).get('audio:{output}')"
    settings = {
        "state_topic": status,
        "value_template": f"{{{{ 'ON' if {reason} is not none else 'OFF' }}}}",
        "device_class": "problem",
        "json_attributes_topic": status,
        "json_attributes_template": f"{{{{ {{'reason': {reason}}} | tojson }}}}",
    }
    return Entity("binary_sensor", f"output_{output}_fault", f"Output {output} fault", settings)


def _count(key: str, name: str, status: str, template: str) -> Entity:
    settings = {"state_topic": status, "value_template": template, "state_class": "measurement"}
    return Entity("sensor", key, name, settings)


def gateway_name(config: Config) -> str:
    return config.homeassistant.name or socket.gethostname()


def node_id(name: str) -> str:
    """The gateway's name as an id: only the characters discovery topics allow."""
    return _NOT_ID.sub("_", name.strip().lower()) or "gateway"


def discovery_configs(config: Config) -> dict[str, dict[str, Any]]:
    """Each discovery topic and its config: `<prefix>/<component>/<object_id>/config`, the
    object id being the entity's unique id (Home Assistant's advice: no node id then)."""
    ha = config.homeassistant
    name = gateway_name(config)
    device_id = f"cosyedge_{node_id(name)}"
    device = {
        "identifiers": [device_id],
        "name": name,
        "manufacturer": "cosyedge",
        "model": "voice-alert daemon",
        "sw_version": __version__,
    }
    availability = {
        "topic": config.reports.status_topic,
        "value_template": "{{ 'offline' if value_json.state == 'offline' else 'online' }}",
    }
    found = {}
    for entity in entities(config):
        unique_id = f"{device_id}_{entity.key}"
        found[f"{ha.prefix}/{entity.component}/{unique_id}/config"] = {
            "name": entity.name,
            "unique_id": unique_id,
            **entity.settings,
            "availability": [availability],
            "device": device,
            "origin": {"name": "cosyedge", "sw_version": __version__},
        }
    return found


def wanted(config: Config) -> dict[str, str]:
    """The retained payloads discovery keeps on the broker: none while it is off."""
    if not config.homeassistant.discovery:
        return {}
    return {topic: json.dumps(c, sort_keys=True) for topic, c in discovery_configs(config).items()}


class Discovery(Component, Observer):
    """Keeps the discovery configs on the broker as the configuration says.

    `connected` and `published` are told on paho's network thread and only record; the
    publishing is done by `tick`, on the daemon's main thread, as is `reconfigure` at a reload.
    Built while discovery is on, or while configs it published before may still be retained.
    """

    def __init__(self, config: Config, publish: Publish) -> None:
        self._publish = publish
        self._file = config.state_dir / STATE_FILE
        self._wanted = wanted(config)
        self._remembered = _read(self._file)  # topics that may be retained on the broker now
        self._due = threading.Event()  # set at each connection: publish them all again
        self._clearing: dict[int, str] = {}  # message id -> the topic it empties
        self._acknowledged: deque[int] = deque()

    def start(self) -> None:
        self._due.set()  # published at the next tick

    def connected(self) -> None:
        self._due.set()

    def published(self, mid: int) -> None:
        """The broker acknowledged message `mid` (any of the session's)."""
        self._acknowledged.append(mid)

    def reconfigure(self, config: Config) -> None:
        """What the configuration in force wants replaces what was published."""
        new = wanted(config)
        if new != self._wanted:
            self._wanted = new
            self._due.set()

    def tick(self, now: float) -> Mapping[str, str | None]:
        if self._due.is_set():
            self._due.clear()
            self._send()
        self._settle()
        return {}

    def _send(self) -> None:
        """Publish every wanted config and empty every other remembered one; remembered on
        disk first, so a crash in between still knows what to remove."""
        stale = self._remembered - self._wanted.keys()
        self._remember(self._remembered | self._wanted.keys())
        try:
            for topic, payload in self._wanted.items():
                self._publish(topic, payload, True)
            for topic in sorted(stale):
                mid = self._publish(topic, "", True)
                if mid:
                    self._clearing[mid] = topic
        except OSError as exc:  # tried again at the next connection or reload
            log.error("cannot publish Home Assistant discovery: %s", exc)
            return
        if self._wanted or stale:
            log.info(
                "Home Assistant discovery: %d configs published, %d removed",
                len(self._wanted),
                len(stale),
            )

    def _settle(self) -> None:
        """Forget the topics whose removal the broker has acknowledged."""
        cleared = set()
        while self._acknowledged:
            topic = self._clearing.pop(self._acknowledged.popleft(), None)
            if topic is not None and topic not in self._wanted:
                cleared.add(topic)
        if cleared:
            self._remember(self._remembered - cleared)

    def _remember(self, topics: set[str]) -> None:
        if topics == self._remembered:
            return
        self._remembered = set(topics)
        try:
            if topics:
                _write(self._file, sorted(topics))
            else:
                self._file.unlink(missing_ok=True)
        except OSError as exc:
            log.error("cannot record the discovery topics in %s: %s", self._file, exc)


def remembered(config: Config) -> bool:
    """Whether configs published by an earlier run may still be retained on the broker."""
    return (config.state_dir / STATE_FILE).exists()


def remembered_topics(config: Config) -> set[str]:
    """The discovery topics published by an earlier run whose removal the broker has not
    acknowledged (`cosyedge withdraw` empties them)."""
    return _read(config.state_dir / STATE_FILE)


def _read(path: Path) -> set[str]:
    """The topics remembered in `path`; none when it is missing or unreadable (said)."""
    try:
        data = load_record(path, SITE_RECORD_MAX)
    except FileNotFoundError:
        return set()
    except (OSError, ValueError) as exc:
        log.warning("cannot read %s (%s): discovery configs published before stay", path, exc)
        return set()
    topics = data.get("topics") if isinstance(data, dict) else None
    return {t for t in topics if isinstance(t, str) and t} if isinstance(topics, list) else set()


def _write(path: Path, topics: list[str]) -> None:
    """Replace `path` whole; a failure (a full disk) leaves the old file and no temporary one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.tmp")
    try:
        temp.write_text(json.dumps({"topics": topics}), encoding="utf-8")
        os.replace(temp, path)
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
