"""The daemon built from a configuration: the stages of the alert path in the order an alert
passes through them (voices first, since they take longest), then the components beside it.

Each part is given what it needs when it is made, or hears it through the one observer
interface (observe.py): no part is handed a hook after it is made. Only the reports reach the
broker through the session, which is made once the door it hands messages to is.
"""

from __future__ import annotations

import functools
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cosyedge import __version__
from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.health import STARTING, Health
from cosyedge.alarms.history import History
from cosyedge.alarms.snapshot import Snapshot, status_detail
from cosyedge.alarms.standby import TAKEOVER, Handback, Phrase, Watch
from cosyedge.alarms.zones import Zones
from cosyedge.announce.announcer import Announcer, Speech
from cosyedge.audio.channels import ChannelPlayer, SharedDevice
from cosyedge.audio.outputs import Outputs, ZoneOutputs
from cosyedge.audio.player import Player, PortAudio
from cosyedge.audio.preludes import Preludes
from cosyedge.audio.rtp import RtpOutput
from cosyedge.audio.sound import Sound
from cosyedge.component import Component, Detail
from cosyedge.config.lastgood import VOICES_LIMIT_S, VOICES_WAIT_S, VOICES_WINDOW_S
from cosyedge.config.pronunciation import lexicon_warnings
from cosyedge.config.schema import Config
from cosyedge.config.voices import VoiceConfig, stand_in_voice
from cosyedge.config.zones import DEFAULT_ZONE
from cosyedge.faults import Faults
from cosyedge.features import Wiring, build_features
from cosyedge.intake.door import Door
from cosyedge.intake.handback import StandbyTap
from cosyedge.intake.primary import PrimaryTap
from cosyedge.intake.templates import declared_phrases
from cosyedge.journal import Journal
from cosyedge.model import Heartbeat, error_text
from cosyedge.mqtt.link import Link
from cosyedge.mqtt.reports import Reporter
from cosyedge.observe import Observer, Observers
from cosyedge.service.loadwait import LoadWait
from cosyedge.service.notify import Notifier
from cosyedge.service.selfwatch import SelfWatch, Telling
from cosyedge.service.statedir import StateWatch
from cosyedge.speech.cache import PhraseCache
from cosyedge.speech.cache.background import Activity, CacheUpkeep
from cosyedge.speech.fallback import FallbackPhrases, FaultPhrases, fault_lang, fault_text
from cosyedge.speech.kept import SavedDir
from cosyedge.speech.memory import (
    REFERENCE_TEXT,
    MemoryGuard,
    NoVoice,
    SheddableVoice,
    service_limit_mb,
    stood_in,
)
from cosyedge.speech.premium import identities, premium_voices
from cosyedge.speech.premium.upgrade import PremiumUpkeep
from cosyedge.speech.render import Renderer
from cosyedge.speech.upkeep import SpeechUpkeep
from cosyedge.speech.voices import (
    EngineVoice,
    lexicon_for,
    load_voice,
    mixed_voices,
    settle_memory,
)

log = logging.getLogger(__name__)

STOP_WAIT_S = 1.0  # at a stop, how long background work may take to end
# What the start tells before the voices load, kept for the metrics and the outcome board
# built with them: about 4 tellings an alert, so a flood of 5,000 alerts during a start (a
# few MB at most).
START_EVENTS = 20_000


class VoiceFailed(RuntimeError):
    """A configured voice cannot be loaded; the message starts with its key path."""


class VoicesHung(VoiceFailed):
    """The voices were not loaded in time (a load that hangs, on storage that may come
    back): unlike a voice that fails, a restart may mend it."""


@dataclass
class Core:
    """The alert path up to the queue, and what its stages share: all that takes an alert
    in, journals, reports and queues it, made without a voice so that a start subscribes
    before the voices are loaded (`Voices` loads them and what speaks with them)."""

    config: Config
    observers: Observers
    state_watch: StateWatch  # what the state directory could not keep: the fault `state`
    health: Health
    outputs: Outputs  # each zone's sound devices (one zone, `audio.device`, without zones)
    preludes: Preludes  # the templates' tones and recorded messages
    sound: Sound
    journal: Journal
    reporter: Reporter
    history: History
    desk: AlarmDesk
    selfwatch: SelfWatch
    door: Door
    link: Link
    # A standby's ear on its primary (`standby.enabled`), or a primary's on its standby
    # (`standby.reports_of`).
    peer: PrimaryTap | StandbyTap | None
    activity: Activity
    beats: list[Heartbeat]
    announcer_beats: dict[str, Heartbeat]  # by zone
    stop: threading.Event  # set to stop the daemon

    def components(self) -> list[Component]:
        """The components of the path: reconfigured and ticked with those beside it from
        the start on, the voices loaded or not."""
        peer = [self.peer] if self.peer is not None else []
        return [
            self.door, self.link, *peer, self.state_watch, self.selfwatch, self.outputs,
            self.preludes,
        ]  # fmt: skip

    def take_up(self, refused: str | None) -> None:
        """What the last run left: the journal's open alerts, reports and alarm state; then
        the faults of the start, the phase `starting` first; `refused`: the fault `config`."""
        self.health.fault(STARTING, "loading voices")
        recovered = self.journal.open()
        self.history.start()
        self.history.record("start", version=__version__, pid=os.getpid())
        self.desk.recover(recovered, self.door.intake.read_journaled)
        if recovered.pending:
            log.info("%d alerts left unsaid by the last run are queued", len(recovered.pending))
        if recovered.unsent:
            log.info("%d reports of the last run are sent again", len(recovered.unsent))
        self.health.set("state", self.state_watch.reason)
        if refused is not None:
            self.health.fault("config", refused)

    def state(self, detail: Detail) -> dict[str, Any]:
        """The alert path's part of the snapshot."""
        return {
            "queue": self.desk.waiting(),
            "reports_unconfirmed": self.reporter.unconfirmed(),
            "status": self.desk.status(),
        }


@dataclass(frozen=True)
class Start:
    """How the daemon came to run this configuration: `safe_core` when it stands in for a
    refused file; `notifier`: systemd's; `snapshot` and `status_line`: the daemon's state
    and its status line, made when they are asked for."""

    notifier: Notifier
    snapshot: Callable[[Detail], Snapshot]
    status_line: Callable[[], str]
    safe_core: bool = False


def build_core(config: Config, start: Start, faults: Faults) -> Core:
    """The stages in the order an alert passes through them, up to the queue, and the
    self-watch beside them: quick to make, no voice among them."""
    observers = Observers(remember=START_EVENTS)
    state_watch = StateWatch(config.state_dir)
    observers.add(state_watch)  # first: the voices tell what they cannot keep as they load
    health = Health(observers.fault)
    journal_beat = Heartbeat("journal")
    outputs, announcer_beats = zone_outputs(config)
    beats = [*announcer_beats.values(), *(p.heartbeat for p in outputs.players), journal_beat]
    activity = Activity(observers)  # held while an alert is rendered or played
    check_service_limit(config.memory.ceiling_mb)
    link: Link | None = None  # the session: made once the door it hands messages to is

    def publish(topic: str, payload: str, retain: bool = False) -> int:
        assert link is not None, "nothing is published while the stages are built"
        return link.publish(topic, payload, retain)

    state_dir, alarms = config.state_dir, config.alarms
    journal = Journal(
        state_dir / "journal.jsonl",
        alarms.dedup_window_s,
        faults=faults,
        beat=journal_beat,
        observer=observers,
    )
    detail = functools.partial(_status_detail, start.snapshot)
    by = "standby" if config.standby.enabled else None
    run = secrets.token_hex(8)  # this run's name: its status, Will, reports and events carry it
    reporter = Reporter(config.reports, publish, journal, observers, detail, by=by, run=run)
    history = History(
        state_dir / "history",
        alarms.history_days,
        alarms.history_mb * 1_000_000,
        faults=faults,
        observer=observers,
    )
    zones = Zones(alarms, tuple(outputs.zones), config.standby.zones)
    desk = AlarmDesk(zones, reporter, journal, health, history, *peers(config), run=run)
    lang = fault_lang(config.voices)  # the language faults are said in
    telling = Telling(
        reporter, history, desk, start.notifier, start.status_line, lang, start.safe_core
    )
    selfwatch = SelfWatch(config, health, telling, publish, beats, observers, faults)
    observers.add(selfwatch)
    observers.add(reporter)
    peer = _ear(config, desk, publish)
    if peer is not None:  # told of each connection as it is made
        observers.add(peer)
    door = Door(config, journal, desk, (*([peer] if peer else []), selfwatch), observers)
    link = Link(config, door, observers, faults, desk.run)
    return Core(
        config, observers, state_watch, health, outputs, Preludes(config.templates),
        Sound(alarms), journal, reporter,
        history, desk, selfwatch, door, link, peer, activity, beats, announcer_beats,
        threading.Event(),
    )  # fmt: skip


def peers(config: Config) -> tuple[Watch | None, Handback | None]:
    """A standby's view of its primary, or a primary's of its standby; neither for a gateway
    that knows no other."""
    standby, window_s = config.standby, config.alarms.dedup_window_s
    if standby.enabled:
        ids = (config.mqtt.client_id, standby.client_id)
        return Watch(standby.takeover_s, window_s, takeover_phrase(config), ids), None
    if standby.reports_of:
        return None, Handback(standby.handback_s, window_s, time.monotonic())
    return None, None


def takeover_phrase(config: Config) -> Phrase | None:
    """What a standby says at a takeover (`standby.takeover_phrase`), in the faults' language
    and with their repetition; None when it says nothing."""
    lang, monitor = fault_lang(config.voices), config.monitor
    text = config.standby.takeover_phrase
    if text == "":
        return None
    cleared = fault_text("cleared", lang) if monitor.say_cleared else None
    said = fault_text(TAKEOVER, lang) if text is None else text
    return Phrase(said, lang, monitor.reannounce_s, cleared)


def _ear(
    config: Config,
    desk: AlarmDesk,
    publish: Callable[[str, str], int],
) -> PrimaryTap | StandbyTap | None:
    """The tap that hands the other gateway's messages to the desk, if there is one."""
    if config.standby.enabled:
        own = config.reports.status_topic
        return PrimaryTap(config.standby, desk, config.mqtt.max_payload_bytes, own)
    if config.standby.reports_of:
        return StandbyTap(config, desk, publish)
    return None


def zone_outputs(config: Config) -> tuple[Outputs, dict[str, Heartbeat]]:
    """Each zone's players and its announcer's heartbeat; without zones, one zone playing on
    `audio.device`, its heartbeats named as they always were."""
    block_ms = config.audio.block_ms
    portaudio = PortAudio()  # one per process, for every output
    if not config.zones:
        player = Player(config.audio.device, block_ms, Heartbeat("player"), None, portaudio)
        zone = ZoneOutputs(DEFAULT_ZONE, [player])
        return Outputs({DEFAULT_ZONE: zone}, portaudio), {DEFAULT_ZONE: Heartbeat("announcer")}
    zones = {}
    shared = shared_devices(config, portaudio)
    for name, zone in config.zones.items():
        players: list[Player | RtpOutput] = []
        for o in zone.outputs:
            output, beat = config.outputs[o], Heartbeat(f"player-{o}")
            if output.rtp is not None:  # the plant's IP speakers
                players.append(RtpOutput(output.rtp, beat))
            elif output.channel is not None:  # a channel of a multi-channel card
                players.append(ChannelPlayer(shared[o], output.channel, block_ms, beat, o))
            else:
                players.append(Player(output.device, block_ms, beat, o, portaudio))
        zones[name] = ZoneOutputs(name, players)
    return Outputs(zones, portaudio), {name: Heartbeat(f"announcer-{name}") for name in zones}


def shared_devices(config: Config, portaudio: PortAudio) -> dict[str, SharedDevice]:
    """The device of each output that names a channel, by output: one for all the outputs
    on channels of the same device (named as check_zones compares them)."""
    named = {o: c for o, c in config.outputs.items() if c.rtp is None and c.channel is not None}
    by_device: dict[str, list[str]] = {}
    for o, output in named.items():
        by_device.setdefault((output.device or "").strip().lower(), []).append(o)
    shared = {}
    for outputs in by_device.values():
        first = named[outputs[0]]
        channels = [named[o].channel or 1 for o in outputs]
        device = SharedDevice(first.device, channels, portaudio)
        shared |= dict.fromkeys(outputs, device)
    return shared


@dataclass
class Voiced:
    """What needs the voices: the speech, the announcer that speaks with it (its thread not
    yet started) and the components beside the alert path."""

    speech: Speech
    announcers: list[Announcer]  # one per zone
    beside: Beside


class Voices:
    """The voices loaded on a thread of their own while the alert path already takes alerts
    in: alerts are journaled, reported accepted and queued meanwhile, and said once `done`
    is set with `voiced`. `failed`, when they cannot be loaded, or not by the monotonic
    time `by` (None: VOICES_WAIT_S after they start) and no longer working (`overdue`): the
    reason, naming the key (VoiceFailed's text) where it can; the start then runs the next
    configuration."""

    def __init__(self, core: Core, start: Start, faults: Faults, by: float | None) -> None:
        self.core, self.start_, self.faults, self.by = core, start, faults, by
        self.done = threading.Event()
        self.voiced: Voiced | None = None
        self.failed: str | None = None
        self.hung = False  # given up on: not loaded in time (`overdue`)
        self._lock = threading.Lock()  # the load's end against `overdue`: one of them decides
        self._wait: LoadWait | None = None  # once started
        self.extended = 0.0
        self._thread = threading.Thread(target=self._load, name="voices", daemon=True)

    def start(self) -> None:
        began = time.monotonic()
        self._thread.start()
        by = self.by or began + VOICES_WAIT_S
        assert self._thread.native_id is not None  # started
        self._wait = LoadWait(self._thread.native_id, began, by, VOICES_WINDOW_S, VOICES_LIMIT_S)

    def overdue(self, now: float) -> str | None:
        """Given up on, when not loaded by `by` and no longer working (LoadWait): `failed`
        says so, `done` is set, and the reason is returned (None while there is time, or
        once they are done; `extended`: the seconds this call gave a load still working).
        The thread cannot be cut short (a read of hung storage blocks in the kernel): it is
        left behind, a daemon thread that ends with the process, and what it loads after is
        dropped."""
        with self._lock:
            self.extended = 0.0
            if self.done.is_set() or self._wait is None:
                return None
            why = self._wait.check(now)
            self.extended = self._wait.extended
            if why is None:
                return None
            keys = ", ".join(f"voices.{lang}" for lang in self.core.config.voices)
            self.failed, self.hung = f"{keys}: {why}", True
            self.done.set()
            return self.failed

    def loading(self) -> bool:
        """Started and not yet done: a stop then does not wait for it (a model's load
        cannot be cut short)."""
        return self._thread.is_alive()

    def _load(self) -> None:
        voiced, failed = None, None
        try:
            voiced = self._voiced()
        except Exception as exc:  # whatever stops this configuration, the next one is tried
            log.exception("cannot load the voices")
            failed = str(exc) if isinstance(exc, VoiceFailed) else error_text(exc)
        with self._lock:
            if self.done.is_set():  # given up on (`overdue`): the next configuration runs
                log.warning("the voices ended loading after the start gave up on them")
                return
            self.voiced, self.failed = voiced, failed
            self.done.set()

    def _voiced(self) -> Voiced:
        core = self.core
        speech = build_speech(core.config, self.faults, core.observers)
        speech.preludes = core.preludes
        announcers = [
            Announcer(
                core.desk.lane(zone),
                speech,
                outputs,
                core.sound,
                core.stop,
                core.activity,
                core.announcer_beats[zone],
                tone_level_db(core.config, zone),
            )
            for zone, outputs in core.outputs.zones.items()
        ]
        return Voiced(speech, announcers, build_beside(core, speech, self.start_))


def tone_level_db(config: Config, zone: str) -> float:
    """The level of the templates' tones in `zone` (0 dB: as configured; no zones: 0)."""
    return config.zones[zone].tone_level_db if zone in config.zones else 0.0


def _status_detail(snapshot: Callable[[Detail], Snapshot]) -> dict[str, Any]:
    return status_detail(snapshot(Detail(cache=True)))


@dataclass
class Beside:
    """The components beside the alert path, in the order they start; the optional parts
    that cannot run here, `key.path: reason` by name (faults at the start); and the optional
    features built, with what they are made of, for a reload that turns one on."""

    parts: list[Component]
    unstarted: dict[str, str]
    features: set[str]
    wiring: Wiring

    def turned_on(self, config: Config) -> list[Component]:
        """The components of the live features `config` turns on that were not built yet,
        built now (one that cannot be is logged; the configuration stays in force)."""
        built, refused = build_features(self.wiring, config, self.features)
        for name, reason in refused.items():
            log.error("reload: %s cannot start: %s", name, reason)
        self.features |= built.keys()
        return [c for components in built.values() for c in components]


def build_beside(core: Core, speech: Speech, start: Start) -> Beside:
    """The cache's upkeep and the premium tier, the speech's memory, then the optional
    features the configuration turns on: the components that need the voices."""
    config, cache = core.config, speech.renderer.cache
    phrases = declared_phrases(config.templates)
    premiums = premium_voices(config.voices, config.pronunciations)
    speech.renderer.use_premium(identities(premiums))
    upkeep = CacheUpkeep(cache, speech.renderer, phrases, core.activity, stop_wait_s=STOP_WAIT_S)
    parts: list[Component] = [upkeep]
    premium = None
    if premiums:
        live = functools.partial(_live_identities, speech.renderer)
        premium = PremiumUpkeep(
            cache, premiums, live, phrases, core.activity, speech.memory,
            config.state_dir / "models", observer=core.observers, stop_wait_s=STOP_WAIT_S,
        )  # fmt: skip
        core.observers.add(premium)
        parts.append(premium)
    idle = functools.partial(_idle, core)
    parts += [SpeechUpkeep(config, speech.renderer, speech.memory, speech.voices, idle, premium)]
    wiring = Wiring(
        config.voices, core.door, speech, core.desk, core.history, core.activity, core.observers,
        start.snapshot, core.link.publish, core.link.follow,
    )  # fmt: skip
    features, unstarted = build_features(wiring, config)
    parts += [c for components in features.values() for c in components]
    return Beside(parts, premium_refused(config, premiums) | unstarted, set(features), wiring)


def _live_identities(renderer: Renderer) -> dict[str, str]:
    """Each language's live voice identity now (a lexicon reload changes it)."""
    return {lang: renderer.voice_for(lang).identity for lang in renderer.voices}


def _idle(core: Core) -> bool:
    """Nothing is said, synthesized or waiting to be."""
    return not core.activity.is_busy() and core.desk.waiting() == 0


def premium_refused(config: Config, premiums: Mapping[str, object]) -> dict[str, str]:
    """The fault `premium` when a configured premium pack cannot be used (premium_voices
    logged why): its phrases stay with the live voice."""
    refused = [lang for lang, v in config.voices.items() if v.premium and lang not in premiums]
    if not refused:
        return {}
    keys = ", ".join(f"voices.{lang}.premium.pack" for lang in refused)
    return {"premium": f"{keys}: the pack cannot be used (see the log); the live voice speaks"}


def check_service_limit(ceiling_mb: float) -> None:
    limit = service_limit_mb()
    if limit is not None and ceiling_mb >= limit:
        log.warning(
            "memory.ceiling_mb %.0f is not below the service's memory limit of %.0f MB: "
            "raise MemoryHigh/MemoryMax (systemctl edit cosyedge) or lower the ceiling",
            ceiling_mb,
            limit,
        )


def build_speech(config: Config, faults: Faults, observer: Observer | None = None) -> Speech:
    """The voices, cache and renderer, and what is said when they cannot be: the generic
    phrases (short, and what is left if all fails) and the fault phrases, rendered now.
    `observer` hears the cache's troubles, what the voices cannot keep in `state_dir/models`
    and each clause's synthesis time."""
    # Imported here, on the voices' thread: the Mandarin front end takes half a second to
    # import, which the subscription at the start must not wait for.
    from cosyedge.speech import zh
    from cosyedge.speech.voices.espeak_pinyin import VOICE_NAME as ESPEAK_VOICE_NAME

    for warning in lexicon_warnings(config.pronunciations):
        log.warning("%s", warning)
    observer = observer or Observer()
    saved = SavedDir(config.state_dir / "models", faults, observer)
    voices = _voices(config, saved, faults, observer)
    settle_memory()
    cache = PhraseCache.from_config(config.cache, faults, observer)
    renderer = Renderer(mixed_voices(voices, config.local_time_zone), cache, observer=observer)
    renderer.start()
    # espeak-ng speaks from its own process: unloading that voice would free nothing.
    in_process = {lang: v for lang, v in voices.items() if v.name != ESPEAK_VOICE_NAME}
    memory = MemoryGuard(config.memory.ceiling_mb, in_process.values())
    fallback = FallbackPhrases(voices, saved)
    site = (config.standby.takeover_phrase or "",) if config.standby.enabled else ()
    said = fault_lang(voices)
    fault_phrases = FaultPhrases(renderer.synthesize, said, renderer.key, saved, site)
    failed = dict(fallback.unmade)
    for lang, voice in in_process.items():
        text = zh.REFERENCE_TEXT if lang == "zh" else REFERENCE_TEXT
        failed[lang] = memory.measure_voice(voice, text) or failed.get(lang)
    # A voice that failed a phrase said at start runs under the fault `voice`, as it would
    # have had that phrase been an alert's; it clears at its first whole phrase.
    for lang, exc in failed.items():
        if exc is not None:
            renderer.failed(lang, exc)
    # Voices stood in for as they loaded or said their first phrase (the generic ones above):
    # the fault logs it, tells it and says it aloud; SpeechUpkeep keeps it from then on.
    replaced = stood_in(voices.values())
    if replaced is not None:
        observer.trouble("voices", replaced)
    limit = config.alarms.max_spoken_s
    return Speech(renderer, memory, fallback, voices, faults, fault_phrases, limit)


def _voices(
    config: Config, saved: SavedDir, faults: Faults, observer: Observer
) -> dict[str, SheddableVoice]:
    """Each language's voice, loaded now. A configured voice that cannot be loaded (a damaged
    or missing pack, an unreadable model), now or after an unload, costs that voice, not the
    site's templates: its language's embedded default voice speaks instead, under the fault
    `voices` naming the key and why (told by build_speech, kept by SpeechUpkeep). VoiceFailed when
    neither loads, or the language has no default voice."""
    voices = {}
    for lang, voice in config.voices.items():
        stand_in = stand_in_voice(lang, voice)
        fallback = None if stand_in is None else _loader(config, lang, stand_in, saved)
        try:
            faults.check("voices.load", lang)
            voices[lang] = SheddableVoice(
                _loader(config, lang, voice, saved), fallback, f"voices.{lang}"
            )
        except NoVoice as exc:
            raise VoiceFailed(str(exc)) from exc
        except Exception as exc:  # a pack that does not verify, a model that cannot be read
            raise VoiceFailed(f"voices.{lang}: cannot be loaded: {error_text(exc)}") from exc
    return voices


def _loader(
    config: Config, lang: str, voice: VoiceConfig, saved: SavedDir
) -> Callable[[], EngineVoice]:
    """What loads `voice` for `lang`, keeping what it makes in `saved` where it can."""
    lexicon = lexicon_for(config.pronunciations, lang)
    return functools.partial(load_voice, lang, voice, saved, lexicon, config.memory.ceiling_mb)
