"""The optional features: the local HTTP API (with its metrics and the ISA-18.2 figures they
show), the Wyoming server, Home Assistant's discovery and the plant systems' alarms taken as
alerts (`sources`: a Sparkplug B group, an OPC UA server's Alarms & Conditions).

Each is a configuration section and the components it is made of; a feature the configuration
leaves off is neither built nor imported. One the configuration turns on that cannot run here
(a package not installed, an address that cannot be bound) is the fault named after it, and
the rest runs without it. Adding a feature is adding a `Feature` here, the section it reads
(config/) and its components (docs/architecture.md shows an example).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cosyedge.component import Component, Detail
from cosyedge.config.schema import Config
from cosyedge.config.voices import VoiceConfig
from cosyedge.installed import (
    missing_opcua_package,
    missing_sparkplug_package,
    missing_wyoming_package,
)
from cosyedge.model import error_text
from cosyedge.observe import Observers

if TYPE_CHECKING:
    from cosyedge.alarms.desk import AlarmDesk
    from cosyedge.alarms.history import History
    from cosyedge.alarms.snapshot import Snapshot
    from cosyedge.announce.announcer import Speech
    from cosyedge.http.backend import LocalApi
    from cosyedge.intake.door import Door
    from cosyedge.speech.cache.background import Activity
    from cosyedge.speech.stream import Turns


class Unstartable(Exception):
    """A feature turned on cannot run here; the text is `key.path: reason`."""


@dataclass
class Wiring:
    """What a feature's components are made from beside its section: the alert path's stages,
    the voices configured (read at start only) and the daemon's state, made when asked for."""

    voices: Mapping[str, VoiceConfig]
    door: Door
    speech: Speech
    desk: AlarmDesk
    history: History
    activity: Activity
    observers: Observers
    snapshot: Callable[[Detail], Snapshot]
    publish: Callable[..., int]
    follow: Callable[[], None] = lambda: None  # the link subscribes what the door takes now

    @functools.cached_property
    def callers(self) -> tuple[LocalApi, Turns]:
        """Speech for callers beside the alerts (HTTP synthesis, Wyoming), one at a time and
        alerts first, and the daemon as they see it; made for the first feature that serves
        them."""
        from cosyedge.http.backend import LocalApi
        from cosyedge.speech.stream import Turns

        s = self.speech
        local = LocalApi(
            self.door, self.voices, s.voices, s.renderer, s.memory, self.activity,
            self.desk, self.snapshot, self.history.directory,
        )  # fmt: skip
        return local, Turns(local.busy)


@dataclass(frozen=True)
class Feature:
    """An optional feature: its name (the fault it is when it cannot run), whether a
    configuration turns it on, what it lacks on this machine, how its components are made
    (`Unstartable` when they cannot be), and whether a reload may turn it on."""

    name: str
    wanted: Callable[[Config], bool]
    build: Callable[[Wiring, Config], list[Component]]
    missing: Callable[[Config], str | None] = lambda config: None
    live: bool = False


def _http(wiring: Wiring, config: Config) -> list[Component]:
    from cosyedge.alarms.figures import AlarmFigures
    from cosyedge.http.metrics import Metrics
    from cosyedge.http.outcomes import OutcomeBoard
    from cosyedge.http.server import ApiServer

    local, turns = wiring.callers
    board = OutcomeBoard()
    snapshot = functools.partial(wiring.snapshot, Detail(cache=True, alarms=True))
    metrics = Metrics(snapshot, tuple(config.voices))
    try:
        server = ApiServer(config.http, local, board, metrics, turns)
    except (OSError, RuntimeError) as exc:  # the port in use, an empty token file
        raise Unstartable(f"http.listen {config.http.listen}: {error_text(exc)}") from None
    for listener in (board, metrics):  # alerts taken in while the voices loaded count too
        wiring.observers.add(listener, catch_up=True)
    # Not caught up: what the start recorded is in the history it reads back.
    figures = AlarmFigures(wiring.history.directory, wiring.desk)
    wiring.observers.add(figures)
    return [figures, server]


def _wyoming(wiring: Wiring, config: Config) -> list[Component]:
    from cosyedge.wyoming.server import WyomingServer  # the `wyoming` extra

    local, turns = wiring.callers
    return [WyomingServer(config.wyoming, local, turns, wiring.observers)]


def _missing_wyoming(config: Config) -> str | None:
    missing = missing_wyoming_package()
    return f"wyoming.enabled: {missing}" if missing else None


def _discovery(wiring: Wiring, config: Config) -> list[Component]:
    from cosyedge.homeassistant.discovery import Discovery

    discovery = Discovery(config, wiring.publish)
    wiring.observers.add(discovery)
    return [discovery]


def _discovery_wanted(config: Config) -> bool:
    """On, or off with configs an earlier run published that are to be removed."""
    from cosyedge.homeassistant.discovery import remembered

    return config.homeassistant.discovery or remembered(config)


def _sparkplug(wiring: Wiring, config: Config) -> list[Component]:
    from cosyedge.config.sources import of_kind
    from cosyedge.sources.sparkplug import SparkplugSource

    w = wiring
    sections = [section for _, section in of_kind(config.sources, "sparkplug")]
    return [
        SparkplugSource(
            section, w.door, w.publish, w.desk.unacknowledged, w.follow, config.state_dir
        )
        for section in sections
    ]


def _missing_sparkplug(config: Config) -> str | None:
    from cosyedge.config.sources import of_kind

    first = of_kind(config.sources, "sparkplug")[0][0]
    missing = missing_sparkplug_package()
    return f"sources[{first}].sparkplug: {missing}" if missing else None


def _has(kind: str) -> Callable[[Config], bool]:
    return lambda config: any(source.kind == kind for source in config.sources)


def _opcua(wiring: Wiring, config: Config) -> list[Component]:
    from cosyedge.config.sources import of_kind
    from cosyedge.sources.opcua import OpcuaSource  # the `opcua` extra

    sources = []
    for _, section in of_kind(config.sources, "opcua"):
        made = OpcuaSource(section, wiring.door, wiring.desk, config.state_dir)
        wiring.observers.add(made)  # it hears the operator's acks in the history's facts
        sources.append(made)
    return sources


def _missing_opcua(config: Config) -> str | None:
    from cosyedge.config.sources import of_kind

    first = of_kind(config.sources, "opcua")[0][0]
    missing = missing_opcua_package()
    return f"sources[{first}].opcua: {missing}" if missing else None


FEATURES = (
    Feature("http", lambda config: config.http.enabled, _http),
    Feature("wyoming", lambda config: config.wyoming.enabled, _wyoming, _missing_wyoming),
    Feature("homeassistant", _discovery_wanted, _discovery, live=True),
    Feature("sparkplug", _has("sparkplug"), _sparkplug, _missing_sparkplug),
    Feature("opcua", _has("opcua"), _opcua, _missing_opcua),
)


def missing_components(config: Config) -> dict[str, str]:
    """The optional features `config` turns on that cannot start on this machine for want
    of a package: name to `key.path: reason`. The daemon runs without each, as its fault;
    `check` tells it. Modules are only looked for, not imported."""
    found = {f.name: f.missing(config) for f in FEATURES if f.wanted(config)}
    return {name: reason for name, reason in found.items() if reason is not None}


def build_features(
    wiring: Wiring, config: Config, built: Collection[str] | None = None
) -> tuple[dict[str, list[Component]], dict[str, str]]:
    """The components of each feature `config` turns on, by name, and the features that
    cannot run here, as `key.path: reason` by name. At a reload, with the names of those
    `built` already: only the live features not among them."""
    found: dict[str, list[Component]] = {}
    unstarted: dict[str, str] = {}
    for feature in FEATURES:
        later = built is not None and (feature.name in built or not feature.live)
        if later or not feature.wanted(config):
            continue
        missing = feature.missing(config)
        try:
            if missing is not None:
                raise Unstartable(missing)
            found[feature.name] = feature.build(wiring, config)
        except Unstartable as exc:
            unstarted[feature.name] = str(exc)
    return found, unstarted
