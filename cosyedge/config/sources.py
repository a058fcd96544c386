"""The plant systems alerts come from beside MQTT templates and HTTP (`sources:`): a list, each
item a mapping with exactly one key, the kind of source, whose value is that kind's section
(its parser in a module of its own: `source_<kind>.py`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, fields
from urllib.parse import urlsplit

from cosyedge.config.fields import meta, show
from cosyedge.config.source_opcua import OpcuaConfig
from cosyedge.config.source_sparkplug import SparkplugConfig, sparkplug_langs


@dataclass(frozen=True)
class SourceConfig:
    """One source: exactly one of its keys, naming its kind."""

    sparkplug: SparkplugConfig | None = field(
        default=None, metadata=meta("a Sparkplug B group on the broker (docs/sparkplug.md)")
    )
    opcua: OpcuaConfig | None = field(
        default=None, metadata=meta("an OPC UA server's Alarms & Conditions (docs/opcua.md)")
    )

    def __post_init__(self) -> None:
        given = [f.name for f in fields(self) if getattr(self, f.name) is not None]
        if len(given) != 1:
            kinds = ", ".join(f.name for f in fields(self))
            raise ValueError(f"kind: expected exactly one key naming the source's kind ({kinds})")

    @property
    def kind(self) -> str:
        return next(f.name for f in fields(self) if getattr(self, f.name) is not None)


def of_kind(sources: tuple[SourceConfig, ...], kind: str) -> list[tuple[int, object]]:
    """The sections of one kind, each with its index in the list (its key path)."""
    return [(i, getattr(s, kind)) for i, s in enumerate(sources) if s.kind == kind]


def check_sources(
    sources: tuple[SourceConfig, ...], voices: Collection[str], filters: Sequence[str] = ()
) -> None:
    """Each source's phrases in a configured voice, each Sparkplug group heard by one source
    and read by no template (`filters`, the templates' topics in order): ValueError naming
    the key if not."""
    groups: dict[str, int] = {}
    for i, section in of_kind(sources, "sparkplug"):
        assert isinstance(section, SparkplugConfig)
        for where, lang in sparkplug_langs(section):
            if lang not in voices:
                raise ValueError(f"sources[{i}].sparkplug.{where}: no voice for {lang!r}")
        if section.group in groups:
            raise ValueError(
                f"sources[{i}].sparkplug.group: {show(section.group)} is heard by "
                f"sources[{groups[section.group]}] already"
            )
        groups[section.group] = i
        for j, topic in enumerate(filters):
            if topic.split("/")[0] == "spBv1.0" and overlap(topic, section.topic):
                raise ValueError(
                    f"templates[{j}].topic: {show(topic)} would read the Sparkplug group "
                    f"of sources[{i}] ({section.topic}), whose payloads are no alerts"
                )
    check_opcua(sources, voices)


def overlap(one: str, other: str) -> bool:
    """Whether some topic matches both MQTT topic filters (a template's `{name}` level is
    one level, as `+`)."""
    a, b = (["+" if x.startswith("{") else x for x in f.split("/")] for f in (one, other))
    if {a[0][:1], b[0][:1]} & {"$"} and {a[0], b[0]} & {"+", "#"}:
        return False  # a filter's leading wildcard matches no `$` topic (MQTT 3.1.1 4.7.2)
    for x, y in zip(a, b, strict=False):
        if "#" in (x, y):
            return True
        if x != y and "+" not in (x, y):
            return False
    return len(a) == len(b) or "#" in (a[len(b) :] + b[len(a) :])[:1]


def check_opcua(sources: tuple[SourceConfig, ...], voices: Collection[str]) -> None:
    """OPC UA sources' names unique (their topics and faults), no two on one server's
    notifier (each alarm would be said twice), their phrases' languages with a voice."""
    names: set[str] = set()
    servers: dict[tuple[str, str], int] = {}
    for i, section in of_kind(sources, "opcua"):
        assert isinstance(section, OpcuaConfig)
        path = f"sources[{i}].opcua"
        if section.name in names:
            raise ValueError(f"{path}.name: {show(section.name)} is taken by another source")
        names.add(section.name)
        server = (_endpoint(section.endpoint), section.notifier)
        if server in servers:
            raise ValueError(
                f"{path}.endpoint: {show(section.endpoint)} is sources[{servers[server]}]'s "
                "too, with the same notifier: each alarm would be said twice"
            )
        servers[server] = i
        for lang in section.templates:
            if lang not in voices:
                raise ValueError(f"{path}.templates.{lang}: no voice configured for {show(lang)}")


def _endpoint(url: str) -> str:
    """An endpoint as compared: its host in lowercase, the port 4840 when none is written,
    no trailing slash."""
    parts = urlsplit(url)
    port = parts.port or 4840
    return f"{(parts.hostname or '').lower()}:{port}{parts.path.rstrip('/')}"


def source_warnings(sources: tuple[SourceConfig, ...]) -> list[str]:
    """What is allowed but unwise in the sources: an OPC UA session without security,
    secrets others may read."""
    found = []
    for i, section in of_kind(sources, "opcua"):
        assert isinstance(section, OpcuaConfig)
        found += section.warnings(f"sources[{i}].opcua")
    return found


def broker_prefixes(sources: tuple[SourceConfig, ...]) -> tuple[str, ...]:
    """The topic prefixes the sources take from the daemon's broker: never a template's
    alerts, even before their source has started (a persistent session still holds their
    subscriptions from the last run)."""
    return tuple(s.sparkplug.topic[:-1] for s in sources if s.sparkplug is not None)
