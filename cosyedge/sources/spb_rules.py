"""Which Sparkplug metric values are alarms (`sources[].sparkplug.rules`), and when an alarm
begins and ends. Pure state on the caller's clock (monotonic seconds).

Each (rule, node, device, metric) is one alarm (`alarm_id`), and each time it begins is an
occurrence of it with an id of its own (`<alarm id>-<ms>`, the wall clock's milliseconds at
its raise), which its return to normal carries too: a rebirth or a message delivered twice
says nothing again (the alarm stands), while an alarm that returns and comes back, within the
desk's de-duplication window or not, is a new raise, never a copy. A `text` rule's new text
while one stands is a new occurrence: the old one returns, the new one is said.

A value that cannot be trusted changes nothing: null, historical, of a quality other than good
(the `Quality` property, 192 good, as Ignition's MQTT Transmission sends it; absent means
good), or of a node that died; nor does a number that is not finite (NaN, infinity). A value
of a type the rule cannot read (a String for `above`, an Int32 2 for `boolean`; 0 and 1 of an
integer type are a Boolean's false and true, as PLCs publish bits) is a `problem`, told until
a value of its type comes. A death, when asked for, is an alarm of its own, which the next
birth ends; the devices of a node that dies die with it, with no alarm of their own.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cosyedge.config.source_sparkplug import OFFLINE, SparkplugConfig, SparkplugRule
from cosyedge.intake.templates import plain_text
from cosyedge.sources.phrase import MAX_CHARS
from cosyedge.sources.spb_nodes import Value
from cosyedge.sources.spb_payload import DATATYPE_NAMES

log = logging.getLogger(__name__)

GOOD_QUALITY = 192  # Sparkplug's and Ignition's code for a good value; 0 bad, 500 stale
DEVICE_GRACE_S = 60.0  # for a device's birth after its node's: what a node sends at once
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
    said: str | None  # the occurrence standing, by its id; None while it does not stand
    topic: str
    since: float | None = None  # the condition holds since, waiting for its delay
    fields: dict[str, str] = field(default_factory=dict)
    text: str | None = None  # a `text` rule's value said (None: not known, as after a restart)

    @property
    def active(self) -> bool:
        return self.said is not None


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
    quality = _number(metric.properties.get("Quality"))
    if metric.is_null:
        return "null"
    if metric.is_historical:
        return "historical"
    if quality is not None and quality != GOOD_QUALITY:
        return f"quality {shown(quality)}"
    return None


def _number(quality: Any) -> Any:
    """A quality code given as a String of digits (as some transmitters send it) read as
    the number it says; anything else as it came."""
    if isinstance(quality, str) and quality.strip().isdigit() and len(quality) < 10:
        return int(quality.strip())
    return quality


def _bit(value: Any) -> bool | None:
    """A Boolean, or an integer 0 or 1 as a PLC publishes a bit; None for anything else."""
    if isinstance(value, bool):
        return value
    return bool(value) if type(value) is int and value in (0, 1) else None


def mismatch(rule: SparkplugRule, metric: Any) -> str | None:
    """Why the metric's value is of a type the rule cannot read, or None when it can be
    read (a null or non-scalar value is no mismatch: it is not trusted)."""
    value = metric.value
    if value is None:
        return None
    if rule.when == "boolean":
        wrong = _bit(value) is None
    elif rule.when == "text":
        wrong = not isinstance(value, str)
    else:
        wrong = isinstance(value, (bool, str, bytes))
    if not wrong:
        return None
    kind = DATATYPE_NAMES.get(metric.datatype) if metric.datatype else type(value).__name__
    return f"a value of type {kind}, which a `when: {rule.when}` rule cannot read"


def condition(rule: SparkplugRule, value: Any) -> bool | None:
    """True: the alarm's condition holds; False: it is over; None: neither can be told (the
    deadband, a number not finite, or a value of another type)."""
    if rule.when == "boolean":
        return _bit(value)
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

    def __init__(self, config: SparkplugConfig, standing: Mapping[str, str] | None = None) -> None:
        """`standing`: the occurrences standing from an earlier run (kept by the source, or
        held unacknowledged by the desk), by alarm id: taken as begun, so a first birth
        after a restart does not say them again, and their return ends them."""
        self.config = config
        self._standing = dict(standing or {})
        self._alarms: dict[str, _Alarm] = {}
        self._about: dict[tuple[str, str, str], dict[str, str]] = {}  # units, description
        self._last_ms = 0
        # Devices whose node was born again: by (node, device), when their alarms end if no
        # birth of the device comes first (a device the node no longer has).
        self._orphans: dict[tuple[str, str], float] = {}
        # Values of a type their rule cannot read, by alarm id: told until a readable one.
        self.problems: dict[str, str] = {}

    def standing(self) -> dict[str, str]:
        """The occurrences standing now, by alarm id: what a restart is to take up."""
        made = {key: a.said for key, a in self._alarms.items() if a.said is not None}
        kept = {k: v for k, v in self._standing.items() if k not in self._alarms}
        return {**kept, **made}

    def judge(self, value: Value, now: float) -> list[Change]:
        """What the value changes: alarms begun (past their delay) or ended."""
        self._remember(value)
        if trusted(value) is not None:
            return self._cancel(lambda a: a in self._ids_of(value))
        changes = []
        for rule in self._rules_for(value):
            self._check_type(rule, value)
            state = condition(rule, value.metric.value)
            if state is not None:
                changes += self._step(rule, value, state, now)
            elif (held := self._alarms.get(self._where(rule, value)[0])) is not None:
                held.fields = self._fields(rule, value)  # within the deadband: said as it is
        return changes

    def due(self, now: float) -> list[Change]:
        """The alarms whose condition has held for their delay, and those of devices their
        node's new birth did not bring back within `DEVICE_GRACE_S` (ended)."""
        changes = self._orphaned(now)
        for rule, key, alarm in self._waiting():
            if alarm.since is not None and now - alarm.since >= rule.delay_s:
                changes.append(self._begin(key, alarm, rule.priority, rule.lang, rule.text))
        return changes

    def died(self, node: str, device: str, implied: bool = False) -> list[Change]:
        """A node (device "") or device died: what waited for its delay is not an alarm, and
        its death is one if asked for; `implied`: a device that died with its node (its
        death or rebirth), whose node's death is the one alarm."""
        self._cancel(lambda key: key in self._of_place(node, device))
        deaths = self.config.deaths
        if implied or not (deaths.devices if device else deaths.nodes):
            return []
        key, topic = self._death(node, device)
        alarm = self._alarm(key, topic, {"node": node, "device": device})
        if alarm.active:
            return []
        return [self._begin(key, alarm, deaths.priority, deaths.lang, deaths.text)]

    def born(self, node: str, device: str, now: float = 0.0) -> list[Change]:
        """A node or device was born: its death's alarm, if one stands, is over; a node's
        devices with alarms standing have `DEVICE_GRACE_S` for their own births."""
        self._orphans.pop((node, device), None)
        if not device:
            for place in {(a.fields.get("node"), a.fields.get("device")) for a in self._held()}:
                if place[0] == node and place[1]:
                    self._orphans.setdefault((node, str(place[1])), now + DEVICE_GRACE_S)
        key, topic = self._death(node, device)
        alarm = self._alarms.get(key)
        if alarm is None and key in self._standing:
            alarm = self._alarm(key, topic, {"node": node, "device": device})
        if alarm is None or alarm.said is None:
            return []
        deaths = self.config.deaths
        return [self._end(alarm, deaths.priority, deaths.lang)]

    def _held(self) -> list[_Alarm]:
        return [a for a in self._alarms.values() if a.active]

    def _orphaned(self, now: float) -> list[Change]:
        """The alarms of devices not born again in time: ended, the reason logged."""
        gone = [place for place, until in self._orphans.items() if now >= until]
        changes, rules = [], {r.name: r for r in self.config.rules}
        for node, device in gone:
            del self._orphans[(node, device)]
            for alarm in self._held():
                if (alarm.fields.get("node"), alarm.fields.get("device")) != (node, device):
                    continue
                rule = rules.get(alarm.fields.get("rule", ""))
                log.warning("sparkplug: alarm %s ended: device %s/%s not born again with its "
                            "node", alarm.said, node, device)  # fmt: skip
                how = rule or self.config.deaths
                changes.append(self._end(alarm, how.priority, how.lang))
        return changes

    # -- the steps -----------------------------------------------------------------------
    def _step(self, rule: SparkplugRule, value: Value, holds: bool, now: float) -> list[Change]:
        key, topic = self._where(rule, value)
        alarm = self._alarm(key, topic, self._fields(rule, value))
        if not holds:
            alarm.since = None
            return [self._end(alarm, rule.priority, rule.lang)] if alarm.active else []
        if alarm.active and not self._new_text(rule, alarm, value):
            return []  # a rebirth, or the same condition again: the alarm stands
        if alarm.active:  # a new text: the old one is over, the new one said at once
            ended = self._end(alarm, rule.priority, rule.lang)
            return [ended, self._begin(key, alarm, rule.priority, rule.lang, rule.text)]
        alarm.fields = self._fields(rule, value)
        if alarm.since is None:
            alarm.since = now
        if now - alarm.since < rule.delay_s:
            return []
        return [self._begin(key, alarm, rule.priority, rule.lang, rule.text)]

    def _begin(self, key: str, alarm: _Alarm, priority: str, lang: str, text: str) -> Change:
        alarm.said, alarm.since = self._occurrence(key), None
        alarm.text = alarm.fields.get("value")
        fields = {"group": self.config.group, **alarm.fields}
        said = text.format_map({k: fields.get(k, "") for k in _names(text)})
        # Bounded as a template's alert is (`max_chars`); a field left empty leaves no gap.
        said, left_out = plain_text(said, MAX_CHARS)
        if left_out:
            log.info("sparkplug: alarm %s %s", alarm.said, left_out)
        return Change(alarm.said, alarm.topic, said, priority, lang, fields)

    def _end(self, alarm: _Alarm, priority: str, lang: str) -> Change:
        """The occurrence standing returns to normal (its id's return)."""
        said, alarm.said, alarm.text = alarm.said or "", None, None
        return Change(said, alarm.topic, None, priority, lang)

    def _occurrence(self, key: str) -> str:
        """A new occurrence's id: the alarm's, and the wall clock's milliseconds (one more
        than the last when two come in one), unique across restarts."""
        self._last_ms = max(time.time_ns() // 1_000_000, self._last_ms + 1)
        return f"{key}-{self._last_ms}"

    def _new_text(self, rule: SparkplugRule, alarm: _Alarm, value: Value) -> bool:
        """Whether a standing `text` alarm's value is another text than the one said (one
        said before a restart is not known: the first heard is taken as it, so not said
        twice, and a text after it is new)."""
        now = shown(value.metric.value)[:MAX_CHARS]
        if rule.when != "text":
            return False
        if alarm.text is None:
            alarm.text = now
        return now != alarm.text

    def _check_type(self, rule: SparkplugRule, value: Value) -> None:
        key = self._where(rule, value)[0]
        wrong = mismatch(rule, value.metric)
        if wrong is None:
            self.problems.pop(key, None)
        else:
            self.problems[key] = f"{_place(value)}: {wrong} (rule {rule.name})"

    def _alarm(self, key: str, topic: str, fields: dict[str, str]) -> _Alarm:
        alarm = self._alarms.get(key)
        if alarm is None:
            alarm = self._alarms[key] = _Alarm(self._standing.get(key), topic, fields=fields)
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
            "value": shown(value.metric.value)[:MAX_CHARS], "rule": rule.name,
            "units": about.get("units", ""), "description": about.get("description", ""),
        }  # fmt: skip


def _place(value: Value) -> str:
    where = f"{value.node}/{value.device}" if value.device else value.node
    return f"{where} {value.name}"


def _matches(rule: SparkplugRule, node: str, device: str, metric: str) -> bool:
    if rule.metric != metric or rule.node not in ("+", node):
        return False
    return rule.device == device or (rule.device == "+" and device != "")


def _names(text: str) -> list[str]:
    import string

    return [f for _, f, _, _ in string.Formatter().parse(text) if f]
