"""Which Sparkplug metric values are alarms (`sources[].sparkplug.rules`), and when an alarm
begins and ends. Pure state on the caller's clock (monotonic seconds).

Each (rule, node, device, metric) is one alarm, with one id (`alarm_id`), so saying it again
cannot come of a rebirth or a message delivered twice: a birth repeating a value that is
already an alarm changes nothing, and the desk takes a copy of the id within its window as
`deduplicated`. A value that cannot be trusted changes nothing either: null, historical, of a
quality other than good (the `Quality` property, 192 good, as Ignition's MQTT Transmission
sends it; absent means good), or of a node that died. A death, when asked for, is an alarm of
its own, which the next birth ends.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from cosyedge.config.source_sparkplug import OFFLINE, SparkplugConfig, SparkplugRule
from cosyedge.sources.spb_nodes import Value

GOOD_QUALITY = 192  # Sparkplug's and Ignition's code for a good value; 0 bad, 500 stale
UNITS = ("engUnit", "EngUnit", "units")  # Ignition's tag property; the others as some send it
DESCRIPTION = ("Documentation", "documentation", "Tooltip")


@dataclass(frozen=True)
class Change:
    """An alarm begins (`text` set) or returns to normal (`text` None)."""

    id: str
    topic: str  # the alarm's source: a return to normal ends what came on it
    text: str | None
    priority: str
    lang: str
    fields: dict[str, str] = field(default_factory=dict)


@dataclass
class _Alarm:
    active: bool
    topic: str
    since: float | None = None  # the condition holds since, waiting for its delay
    fields: dict[str, str] = field(default_factory=dict)


def alarm_id(group: str, node: str, device: str, metric: str, rule: str) -> str:
    """The alarm's id: the rule's name and a digest of where it is, stable across births,
    restarts and reloads."""
    where = "\0".join((group, node, device, metric, rule)).encode()
    return f"spb-{rule}-{hashlib.sha256(where).hexdigest()[:12]}"


def alarm_topic(group: str, node: str, device: str, rule: str, metric: str = "") -> str:
    """The topic the alarm's messages are journaled on (never a broker's: intake/sourced.py)."""
    tail = f"/{metric}" if metric else ""
    return f"cosyedge/source/sparkplug/{group}/{node}/{device}/{rule}{tail}"


def shown(value: Any) -> str:
    """A value as said: numbers without needless digits, Booleans as words."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}" if math.isfinite(value) else str(value)
    return str(value)


def trusted(value: Value) -> str | None:
    """Why the value may not change an alarm, or None when it may."""
    metric = value.metric
    quality = metric.properties.get("Quality")
    if metric.is_null:
        return "null"
    if metric.is_historical:
        return "historical"
    if quality is not None and quality != GOOD_QUALITY:
        return f"quality {shown(quality)}"
    return None


def condition(rule: SparkplugRule, value: Any) -> bool | None:
    """True: the alarm's condition holds; False: it is over; None: neither can be told (the
    deadband, or a value of another type)."""
    if rule.when == "boolean":
        return value if isinstance(value, bool) else None
    if rule.when == "text":
        return bool(value.strip()) if isinstance(value, str) else None
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or rule.threshold is None:
        return None
    sign = 1 if rule.when == "above" else -1
    beyond = sign * (value - rule.threshold)
    if beyond > 0:
        return True
    return False if beyond <= -rule.deadband else None


class Rules:
    """The alarms of one Sparkplug group. Not thread-safe: its source holds a lock."""

    def __init__(self, config: SparkplugConfig, standing: Collection[str] = ()) -> None:
        """`standing`: ids of alarms the desk holds unacknowledged from an earlier run, taken
        as begun, so a first birth after a restart does not say them again."""
        self.config = config
        self._standing = set(standing)
        self._alarms: dict[str, _Alarm] = {}
        self._about: dict[tuple[str, str, str], dict[str, str]] = {}  # units, description

    def judge(self, value: Value, now: float) -> list[Change]:
        """What the value changes: alarms begun (past their delay) or ended."""
        self._remember(value)
        if trusted(value) is not None:
            return self._cancel(lambda a: a in self._ids_of(value))
        changes = []
        for rule in self._rules_for(value):
            state = condition(rule, value.metric.value)
            if state is not None:
                changes += self._step(rule, value, state, now)
            elif (held := self._alarms.get(self._where(rule, value)[0])) is not None:
                held.fields = self._fields(rule, value)  # within the deadband: said as it is
        return changes

    def due(self, now: float) -> list[Change]:
        """The alarms whose condition has held for their delay."""
        changes = []
        for rule, key, alarm in self._waiting():
            if alarm.since is not None and now - alarm.since >= rule.delay_s:
                changes.append(self._begin(key, alarm, rule.priority, rule.lang, rule.text))
        return changes

    def died(self, node: str, device: str) -> list[Change]:
        """A node (device "") or device died: what waited for its delay is not an alarm, and
        its death is one if asked for."""
        self._cancel(lambda key: key in self._of_place(node, device))
        deaths = self.config.deaths
        if not (deaths.devices if device else deaths.nodes):
            return []
        key, topic = self._death(node, device)
        alarm = self._alarm(key, topic, {"node": node, "device": device})
        if alarm.active:
            return []
        return [self._begin(key, alarm, deaths.priority, deaths.lang, deaths.text)]

    def born(self, node: str, device: str) -> list[Change]:
        """A node or device was born: its death's alarm, if one stands, is over."""
        key, topic = self._death(node, device)
        alarm = self._alarms.get(key)
        if alarm is None and key in self._standing:
            alarm = self._alarm(key, topic, {"node": node, "device": device})
        if alarm is None or not alarm.active:
            return []
        alarm.active = False
        return [Change(key, topic, None, self.config.deaths.priority, self.config.deaths.lang)]

    # -- the steps -----------------------------------------------------------------------
    def _step(self, rule: SparkplugRule, value: Value, holds: bool, now: float) -> list[Change]:
        key, topic = self._where(rule, value)
        alarm = self._alarm(key, topic, self._fields(rule, value))
        if not holds:
            alarm.since = None
            if not alarm.active:
                return []
            alarm.active = False
            return [Change(key, topic, None, rule.priority, rule.lang)]
        if alarm.active:
            return []  # a rebirth, or the same condition again: the alarm stands
        alarm.fields = self._fields(rule, value)
        if alarm.since is None:
            alarm.since = now
        if now - alarm.since < rule.delay_s:
            return []
        return [self._begin(key, alarm, rule.priority, rule.lang, rule.text)]

    def _begin(self, key: str, alarm: _Alarm, priority: str, lang: str, text: str) -> Change:
        alarm.active, alarm.since = True, None
        fields = {"group": self.config.group, **alarm.fields}
        said = text.format_map({k: fields.get(k, "") for k in _names(text)})
        said = " ".join(said.split())  # a field left empty (no device, no units) leaves no gap
        return Change(key, alarm.topic, said, priority, lang, fields)

    def _alarm(self, key: str, topic: str, fields: dict[str, str]) -> _Alarm:
        alarm = self._alarms.get(key)
        if alarm is None:
            alarm = self._alarms[key] = _Alarm(key in self._standing, topic, fields=fields)
        alarm.fields = {**alarm.fields, **fields}
        return alarm

    def _cancel(self, match: Any) -> list[Change]:
        for key, alarm in self._alarms.items():
            if match(key):
                alarm.since = None
        return []

    # -- where --------------------------------------------------------------------------
    def _rules_for(self, value: Value) -> list[SparkplugRule]:
        return [r for r in self.config.rules if _matches(r, value.node, value.device, value.name)]

    def _where(self, rule: SparkplugRule, value: Value) -> tuple[str, str]:
        group, node, device = self.config.group, value.node, value.device
        return (
            alarm_id(group, node, device, value.name, rule.name),
            alarm_topic(group, node, device, rule.name, value.name),
        )

    def _death(self, node: str, device: str) -> tuple[str, str]:
        group = self.config.group
        return alarm_id(group, node, device, "", OFFLINE), alarm_topic(group, node, device, OFFLINE)

    def _ids_of(self, value: Value) -> set[str]:
        return {self._where(rule, value)[0] for rule in self._rules_for(value)}

    def _of_place(self, node: str, device: str) -> set[str]:
        """The ids of alarms on the node's metrics (device "": of it and every device)."""
        found = set()
        for alarm_key, alarm in self._alarms.items():
            there = alarm.fields.get("node") == node
            if there and (not device or alarm.fields.get("device") == device):
                found.add(alarm_key)
        return found

    def _waiting(self) -> list[tuple[SparkplugRule, str, _Alarm]]:
        rules = {r.name: r for r in self.config.rules}
        return [
            (rules[a.fields["rule"]], key, a)
            for key, a in self._alarms.items()
            if a.since is not None and a.fields.get("rule") in rules
        ]

    def _remember(self, value: Value) -> None:
        """A metric's units and description: its birth carries them, its data seldom does."""
        props, place = value.metric.properties, (value.node, value.device, value.name)
        if not props or not self._rules_for(value):
            return  # kept only for the metrics a rule says
        about = self._about.setdefault(place, {})
        for name, keys in (("units", UNITS), ("description", DESCRIPTION)):
            found = [props[k] for k in keys if isinstance(props.get(k), str)]
            if found:
                about[name] = str(found[0])

    def _fields(self, rule: SparkplugRule, value: Value) -> dict[str, str]:
        about = self._about.get((value.node, value.device, value.name), {})
        return {
            "node": value.node, "device": value.device, "metric": value.name,
            "value": shown(value.metric.value), "rule": rule.name,
            "units": about.get("units", ""), "description": about.get("description", ""),
        }  # fmt: skip


def _matches(rule: SparkplugRule, node: str, device: str, metric: str) -> bool:
    if rule.metric != metric or rule.node not in ("+", node):
        return False
    return rule.device == device or (rule.device == "+" and device != "")


def _names(text: str) -> list[str]:
    import string

    return [f for _, f, _, _ in string.Formatter().parse(text) if f]
