"""The plant systems alerts are taken from beside MQTT (`sources`): a list whose items each name
their kind by their one key (`- opcua: {...}`). Each kind's section is a module of its own
(`source_<kind>.py`); a kind is one field here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from cosyedge.config.fields import meta, show
from cosyedge.config.source_opcua import OpcuaConfig
from cosyedge.config.templates import TemplateConfig


class Section(Protocol):
    """What every kind's section has: its name, where its alerts are (`topic`), and what of
    it is allowed but unwise."""

    name: str
    templates: dict[str, str]

    @property
    def topic(self) -> str: ...
    def warnings(self, path: str) -> list[str]: ...


@dataclass(frozen=True)
class SourceConfig:
    """One source (`sources[i]`): exactly one of its kinds."""

    opcua: OpcuaConfig | None = field(
        default=None,
        metadata=meta("an OPC UA server's Alarms & Conditions (docs/opcua.md)"),
    )

    def __post_init__(self) -> None:
        given = [f.name for f in dataclasses.fields(self) if getattr(self, f.name) is not None]
        if not given:
            kinds = ", ".join(f.name for f in dataclasses.fields(self))
            raise ValueError(
                f"kind: none given; a source is a mapping whose one key is its kind ({kinds})"
            )
        if len(given) > 1:
            raise ValueError(f"{given[1]}: one kind per source, and {given[0]} is given too")

    @property
    def kind(self) -> str:
        return next(f.name for f in dataclasses.fields(self) if getattr(self, f.name) is not None)

    @property
    def section(self) -> Section:
        return getattr(self, self.kind)  # type: ignore[no-any-return]


def check_sources(sources: tuple[SourceConfig, ...], voices: Mapping[str, Any]) -> None:
    """Names unique within each kind, and a voice for every language a phrase is given in."""
    seen: set[tuple[str, str]] = set()
    for i, source in enumerate(sources):
        section, path = source.section, f"sources[{i}].{source.kind}"
        if (source.kind, section.name) in seen:
            raise ValueError(f"{path}.name: {show(section.name)} is taken by another source")
        seen.add((source.kind, section.name))
        for lang in section.templates:
            if lang not in voices:
                raise ValueError(f"{path}.templates.{lang}: no voice configured for {show(lang)}")


def source_templates(sources: tuple[SourceConfig, ...]) -> tuple[TemplateConfig, ...]:
    """The intake's template for each source's alerts: the source makes the phrase itself (in
    the language it chose, the payload's `lang`), the intake takes it as given."""
    found = []
    for source in sources:
        section = source.section
        lang = next(iter(section.templates))
        topic = f"{section.topic}/#"
        found.append(TemplateConfig(topic=topic, text="{text}", payload="json", lang=lang))
    return tuple(found)


def source_warnings(sources: tuple[SourceConfig, ...]) -> list[str]:
    return [w for i, s in enumerate(sources) for w in s.section.warnings(f"sources[{i}].{s.kind}")]
