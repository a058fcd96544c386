"""The YAML configuration: schema, defaults and errors that name the file, the key and the reason.

One module per group of sections, each section a frozen dataclass whose field defaults are the
embedded defaults and whose metadata is the help docs/config-reference.md is generated from:

- `schema`: `Config`, one field per section, and the checks that span sections;
- `mqtt` (mqtt, reports), `voices` (voices), `pronunciation` (pronunciations), `templates`
  (templates, hermes), `alarms` (alarms, monitor), `resources` (cache, audio, memory), `http`,
  `homeassistant`, `wyoming`; `signals` (a tone and a recorded message, sections a zone
  names, built by `loader.build_section`); `fields`: what they share;
- `zones` (outputs, zones) and `outputs`: a network output, an entry of `outputs` as `rtp`;
- `loader`: reading a file into a `Config`, or a `ConfigError` naming every problem;
- `syntax`, `values`: a template's topic and text, and its declared values;
- `lastgood`: the last good configuration, and what a start runs when the file is refused.

The names below are the configuration's public face, for the command line and the tests;
modules of the package import from the module that defines what they use.
"""

from cosyedge.config.alarms import (
    AlarmsConfig,
    FloodConfig,
    MonitorConfig,
    PrioritiesConfig,
    PriorityConfig,
    QuietHoursConfig,
)
from cosyedge.config.homeassistant import HomeAssistantConfig
from cosyedge.config.http import HttpConfig
from cosyedge.config.loader import ConfigError, build_config, config_text, load_config, parse_config
from cosyedge.config.mqtt import MqttConfig, ReportsConfig
from cosyedge.config.pronunciation import PronunciationConfig
from cosyedge.config.resources import AudioConfig, CacheConfig, MemoryConfig
from cosyedge.config.schema import Config, config_warnings
from cosyedge.config.templates import DEFAULT_TEMPLATES, HermesConfig, TemplateConfig
from cosyedge.config.voices import PremiumConfig, SessionConfig, VoiceConfig
from cosyedge.config.wyoming import WyomingConfig

__all__ = [
    "DEFAULT_TEMPLATES",
    "AlarmsConfig",
    "AudioConfig",
    "CacheConfig",
    "Config",
    "ConfigError",
    "FloodConfig",
    "HermesConfig",
    "HomeAssistantConfig",
    "HttpConfig",
    "MemoryConfig",
    "MonitorConfig",
    "MqttConfig",
    "PremiumConfig",
    "PrioritiesConfig",
    "PriorityConfig",
    "PronunciationConfig",
    "QuietHoursConfig",
    "ReportsConfig",
    "SessionConfig",
    "TemplateConfig",
    "VoiceConfig",
    "WyomingConfig",
    "build_config",
    "config_text",
    "config_warnings",
    "load_config",
    "parse_config",
]
