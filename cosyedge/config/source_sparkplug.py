"""A Sparkplug B group as a source of alerts (`sources: - sparkplug: {...}`, docs/sparkplug.md):
where it is heard, whether its nodes may be asked to rebirth, and the rules that make alerts of
its metrics, its deaths too if asked.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field

from cosyedge.config.fields import PRIORITIES, meta, show

WHEN = ("boolean", "above", "below", "text")
FIELDS = ("group", "node", "device", "metric", "value", "units", "description", "rule")
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}\Z")
_LEVEL_BAD = re.compile(r"[/+#\x00]")
OFFLINE = "offline"  # the rule name of a death's alarm, which no rule may take


def check_text(text: str, known: tuple[str, ...]) -> None:
    """A phrase template: `{name}` fields among `known`; ValueError `text: why` if not."""
    try:
        names = [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
    except ValueError as exc:
        raise ValueError(f"text: {show(text)}: {exc}") from None
    unknown = [n for n in names if n not in known]
    if unknown or not text.strip():
        what = f"unknown field {{{unknown[0]}}}" if unknown else "empty"
        raise ValueError(f"text: {what} (fields: {', '.join('{' + k + '}' for k in known)})")


@dataclass(frozen=True)
class SparkplugRule:
    """One metric's condition that is an alarm."""

    name: str = field(
        metadata=meta(
            "the rule's name (letters, digits, `_.-`): with node, device and metric it makes "
            "the alarm's id, so a rebirth or a message delivered again is the same alarm"
        )
    )
    metric: str = field(
        metadata=meta("the metric's name as its birth gives it, e.g. `Line 3/Fault`")
    )
    when: str = field(
        metadata=meta(
            "`boolean`: a Boolean metric true (or an integer 1) is the alarm, false (0) its "
            "return to normal; `above` / `below`: a number beyond `threshold`, back once within "
            "it by `deadband`; `text`: a String metric not empty, said as its value "
            "(`{value}`), empty its return, a new text a new alarm",
            choices=WHEN,
        )
    )
    node: str = field(default="+", metadata=meta("the edge node id; `+`: any of the group's"))
    device: str = field(
        default="", metadata=meta("the device id; empty: the node's own metric; `+`: any device")
    )
    threshold: float | None = field(
        default=None, metadata=meta("for `above` and `below`: the limit (needed there)")
    )
    deadband: float = field(
        default=0.0,
        metadata=meta(
            "for `above` / `below`: how far back within the threshold the value must come for "
            "the alarm to return to normal, so a value hovering at the limit is one alarm",
            range=(0, 1e15),
        ),
    )
    delay_s: float = field(
        default=0.0,
        metadata=meta(
            "the condition must hold this long, in seconds, before it is an alarm (ISA-18.2's "
            "on-delay); a return to normal meanwhile, a bad quality or the node's death "
            "cancels it",
            range=(0, 86400),
        ),
    )
    priority: str = field(default="high", metadata=meta("its alerts' priority", choices=PRIORITIES))
    text: str = field(
        default="{node} {device} {metric}: {value} {units}",
        metadata=meta(
            "what is said; fields `{group}`, `{node}`, `{device}`, `{metric}`, `{value}`, "
            "`{units}` (the metric's `engUnit` property), `{description}` (its "
            "`Documentation` property), `{rule}`"
        ),
    )
    lang: str = field(default="en", metadata=meta("the voice that says it"))

    def __post_init__(self) -> None:
        if not _NAME.match(self.name) or self.name == OFFLINE:
            raise ValueError(f"name: {show(self.name)}: letters, digits, _.- (not {OFFLINE!r})")
        if not self.metric:
            raise ValueError("metric: a metric's name is needed")
        for key in ("node", "device"):
            value = getattr(self, key)
            if value != "+" and _LEVEL_BAD.search(value):
                raise ValueError(f"{key}: {show(value)}: an id, or + for any (no / # NUL)")
        if self.when in ("above", "below") and self.threshold is None:
            raise ValueError(f"threshold: needed with when: {self.when}")
        check_text(self.text, FIELDS)


@dataclass(frozen=True)
class DeathAlarms:
    """A node's or device's death certificate as an alarm; its next birth is its return."""

    nodes: bool = field(default=False, metadata=meta("an NDEATH is an alarm"))
    devices: bool = field(default=False, metadata=meta("a DDEATH is an alarm"))
    priority: str = field(default="high", metadata=meta("its priority", choices=PRIORITIES))
    text: str = field(
        default="{node} {device} offline",
        metadata=meta("what is said; fields `{group}`, `{node}`, `{device}`"),
    )
    lang: str = field(default="en", metadata=meta("the voice that says it"))

    def __post_init__(self) -> None:
        check_text(self.text, ("group", "node", "device"))


@dataclass(frozen=True)
class SparkplugConfig:
    """A Sparkplug B group on the daemon's broker, heard as a host application
    (docs/sparkplug.md)."""

    group: str = field(metadata=meta("the Sparkplug group id; its topics spBv1.0/<group>/#"))
    rules: tuple[SparkplugRule, ...] = field(
        default=(), metadata=meta("the metrics' conditions that are alarms")
    )
    deaths: DeathAlarms = field(
        default_factory=DeathAlarms, metadata=meta("deaths as alarms (off by default)")
    )
    rebirth: bool = field(
        default=False,
        metadata=meta(
            "ask a node to publish its births again (an NCMD `Node Control/Rebirth`) when its "
            "data comes unborn, out of sequence or with an alias no birth gave; off: only "
            "logged, since the command writes to the plant"
        ),
    )
    rebirth_interval_s: float = field(
        default=30.0,
        metadata=meta("at most one rebirth request a node this often, in seconds", range=(1, 3600)),
    )
    max_payload_bytes: int = field(
        default=1 << 20,
        metadata=meta(
            "a message larger than this is refused unread (the fault `sparkplug:<group>` names "
            "its node and size): a birth of 10,000 metrics is about 0.5 MB, and each message "
            "is read on the broker connection's own thread, which a huge one would stall "
            "(`mqtt.max_payload_bytes` bounds the templates' alerts, not the group's)",
            range=(1024, 64 << 20),
        ),
    )
    max_metrics: int = field(
        default=10_000,
        metadata=meta(
            "a message of more metrics than this is refused, its metrics unread (each costs "
            "about 30 us to read: 10,000 are 0.3 s of the connection's thread)",
            range=(1, 1_000_000),
        ),
    )

    def __post_init__(self) -> None:
        if not self.group or _LEVEL_BAD.search(self.group) or self.group == "STATE":
            raise ValueError(f"group: {show(self.group)}: a group id (no / + # NUL, not STATE)")
        names = [r.name for r in self.rules]
        for j, name in enumerate(names):
            if name in names[:j]:
                first = names.index(name)
                raise ValueError(f"rules[{j}].name: {show(name)} is rules[{first}]'s already")

    @property
    def topic(self) -> str:
        """The subscription: every message of the group."""
        return f"spBv1.0/{self.group}/#"


def sparkplug_langs(config: SparkplugConfig) -> list[tuple[str, str]]:
    """(key path within the section, language) of each phrase it says (a death's only when
    deaths are alarms)."""
    said = [(f"rules[{i}].lang", rule.lang) for i, rule in enumerate(config.rules)]
    if config.deaths.nodes or config.deaths.devices:
        said.append(("deaths.lang", config.deaths.lang))
    return said
