"""The whole configuration (`Config`): one field per section, each section's dataclass in a
module of its own, and the checks that span sections. Its field defaults are the embedded
defaults, so `cosyedge run` with no file is a working demo and a site file only says what it
changes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from cosyedge.config.alarms import AlarmsConfig, MonitorConfig
from cosyedge.config.fields import default_state_dir, meta, show
from cosyedge.config.homeassistant import HomeAssistantConfig
from cosyedge.config.http import HttpConfig
from cosyedge.config.mqtt import MqttConfig, ReportsConfig
from cosyedge.config.pronunciation import PronunciationConfig, check_lexicon, lexicon_warnings
from cosyedge.config.resources import AudioConfig, CacheConfig, MemoryConfig
from cosyedge.config.sources import SourceConfig, check_sources, source_warnings
from cosyedge.config.standby import (
    StandbyConfig,
    check_covered,
    check_crossing,
    check_standby,
)
from cosyedge.config.templates import DEFAULT_TEMPLATES, HermesConfig, TemplateConfig
from cosyedge.config.voices import VoiceConfig, default_voices
from cosyedge.config.wyoming import WyomingConfig
from cosyedge.config.zones import OutputConfig, ZoneConfig, check_template_zones, check_zones


@dataclass(frozen=True)
class Config:
    """The whole configuration, one field per section; the checks that span sections are
    made as it is built (a ValueError naming the key)."""

    mqtt: MqttConfig = field(
        default_factory=MqttConfig,
        metadata=meta("the MQTT broker and the session cosyedge keeps with it"),
    )
    voices: dict[str, VoiceConfig] = field(
        default_factory=default_voices,
        metadata=meta(
            "one voice per language code (`en`, `en-GB`, `zh` …); a template's `lang` picks its "
            "voice, and a template whose `lang` has no voice is a config error",
            shown="`{en: {engine: hibari}, zh: {engine: espeak-pinyin}}`",
        ),
    )
    cache: CacheConfig = field(
        default_factory=CacheConfig,
        metadata=meta("the phrase cache: every phrase spoken, kept as a WAV file (docs/cache.md)"),
    )
    audio: AudioConfig = field(default_factory=AudioConfig, metadata=meta("the sound device"))
    outputs: dict[str, OutputConfig] = field(
        default_factory=dict,
        metadata=meta(
            "the sound devices of the zones, by name (docs/zones.md); none: `audio.device`",
            shown="`{}`",
            named=True,
        ),
    )
    zones: dict[str, ZoneConfig] = field(
        default_factory=dict,
        metadata=meta(
            "the places announcements are made in, each with its own queue, by name, made of "
            "`outputs` (docs/zones.md); none: one zone, `audio.device`",
            shown="`{}`",
            named=True,
        ),
    )
    memory: MemoryConfig = field(default_factory=MemoryConfig, metadata=meta("the memory ceiling"))
    templates: tuple[TemplateConfig, ...] = field(
        default=DEFAULT_TEMPLATES,
        metadata=meta(
            "turn alerts into phrases; the first template whose topic filter matches wins "
            '(docs/configuration.md, "Templates")'
        ),
    )
    alarms: AlarmsConfig = field(
        default_factory=AlarmsConfig,
        metadata=meta("alarm management in the manner of ISA-18.2 (docs/alarms.md)"),
    )
    reports: ReportsConfig = field(
        default_factory=ReportsConfig,
        metadata=meta(
            "the topics outcomes, events, errors and status are published on, each without "
            'wildcards (docs/alarms.md, "Reports and status")'
        ),
    )
    hermes: HermesConfig = field(
        default_factory=HermesConfig,
        metadata=meta("Rhasspy Hermes text-to-speech, for Rhasspy and Node-RED (docs/alarms.md)"),
    )
    http: HttpConfig = field(
        default_factory=HttpConfig,
        metadata=meta(
            "the local HTTP API: say, synthesize, status, health and Prometheus metrics; off by "
            "default (docs/http.md)"
        ),
    )
    homeassistant: HomeAssistantConfig = field(
        default_factory=HomeAssistantConfig,
        metadata=meta("Home Assistant's MQTT discovery; off by default (docs/homeassistant.md)"),
    )
    wyoming: WyomingConfig = field(
        default_factory=WyomingConfig,
        metadata=meta(
            "a Wyoming text-to-speech server for Home Assistant's voice pipelines; off by "
            "default (docs/homeassistant.md)"
        ),
    )
    monitor: MonitorConfig = field(
        default_factory=MonitorConfig,
        metadata=meta(
            'the alarm system watching itself (docs/alarms.md, "The alarm system\'s own faults")'
        ),
    )
    standby: StandbyConfig = field(
        default_factory=StandbyConfig,
        metadata=meta(
            "stand by for another gateway on the same broker, speaking only while it is gone; "
            "off by default; on that primary, its standby's reports (docs/standby.md)"
        ),
    )
    sources: tuple[SourceConfig, ...] = field(
        default=(),
        metadata=meta(
            "plant systems heard as sources of alerts: each item one key naming its kind, "
            "`sparkplug` (docs/sparkplug.md) or `opcua` (docs/opcua.md)"
        ),
    )
    state_dir: Path = field(
        default_factory=default_state_dir,
        metadata=meta(
            "the journal, quarantined messages, local broker persistence, saved optimized "
            "models, hibari's G2P tables and the phrases rendered ahead (`models/`) and other "
            "state",
            shown="`$STATE_DIRECTORY` (the service: `/var/lib/cosyedge`), else "
            "`$XDG_STATE_HOME/cosyedge`, else `~/.local/state/cosyedge`",
        ),
    )
    log_level: str = field(
        default="info",
        metadata=meta("least severity logged", choices=("debug", "info", "warning", "error")),
    )
    local_time_zone: str | None = field(
        default=None,
        metadata=meta(
            "an IANA time zone such as `Asia/Shanghai`: a timestamp written in UTC with its "
            "date (`2024-05-01T23:30:00Z`) is said in this zone's local time, date and time "
            'converted; null: said as UTC ("U T C", 协调世界时). A UTC time without a date is '
            "always said as UTC",
        ),
    )
    pronunciations: dict[str, tuple[PronunciationConfig, ...]] = field(
        default_factory=dict,
        metadata=meta(
            "the site lexicon: per language with a voice, a list of entries saying how words "
            "no rule knows are said (tag prefixes, names, brands), applied before the built-in "
            "reading rules (`say` entries before the phrase is split into languages, where "
            "their language is spoken); at each place the first entry that matches wins "
            '(docs/voices.md, "Site pronunciations")',
            shown="`{}`",
        ),
    )

    def __post_init__(self) -> None:
        if not self.voices:
            raise ValueError("voices: must not be empty")
        if not self.templates:
            raise ValueError("templates: at least one template is needed")
        for i, template in enumerate(self.templates):
            if template.lang not in self.voices:
                raise ValueError(
                    f"templates[{i}].lang: no voice configured for {show(template.lang)}"
                )
            if not self.standby.zones:  # else it may name the primary's other zones
                check_template_zones(i, template.zones, self.zones)
        check_zones(self.outputs, self.zones)
        check_standby(self.standby, self.mqtt, self.reports)
        object.__setattr__(self, "standby", self.standby.role(self.mqtt.client_id))
        check_covered(self.standby, tuple(self.zones))
        filters = [t.topic for t in self.templates]
        command, canary = self.alarms.command_topic, self.monitor.canary_topic
        self.reports.check_apart(command, canary)
        check_crossing(self.standby, self.mqtt.client_id, command, canary, filters, self.reports)
        check_sources(self.sources, self.voices, [t.topic for t in self.templates])
        named = {name: output.named(name) for name, output in self.outputs.items()}
        object.__setattr__(self, "outputs", named)  # a network output is named by its key
        taken = (self.alarms.command_topic, *dataclasses.asdict(self.reports).values())
        if self.homeassistant.notify_topic in taken:
            raise ValueError("homeassistant.notify_topic: used by cosyedge for another purpose")
        if self.local_time_zone is not None:
            _check_zone(self.local_time_zone)
            premium = [lang for lang, voice in self.voices.items() if voice.premium]
            if premium:
                raise ValueError(
                    f"local_time_zone: not with a premium voice (voices.{premium[0]}.premium), "
                    "which would say the phrases it renders ahead in UTC"
                )
        for lang, entries in self.pronunciations.items():
            if lang not in self.voices:
                raise ValueError(f"pronunciations.{lang}: no voice configured for {show(lang)}")
            check_lexicon(lang, self.voices[lang], entries)


def _check_zone(name: str) -> None:
    """An IANA zone this machine has (zoneinfo reads the system's tzdata)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ValueError, ZoneInfoNotFoundError):
        raise ValueError(
            f"local_time_zone: no time zone {show(name)} on this machine (an IANA name such as "
            '"Asia/Shanghai")'
        ) from None


def config_warnings(config: Config) -> list[str]:
    """What is allowed but unwise in a valid configuration, one `key.path: reason` each."""
    secrets = config.mqtt.exposed_secrets() + config.http.exposed_secrets()
    unused = []
    if config.zones and config.audio.device is not None:
        unused = ["audio.device: not used with zones, whose outputs name their devices"]
    sources = source_warnings(config.sources)
    return secrets + sources + lexicon_warnings(config.pronunciations) + unused
