"""Wiring and lifecycle: the stages in the order an alert passes through them.

MQTT session (or the local HTTP API) → intake → journal → alarm desk → announcer → speech →
audio, with reports going back out through the session (docs/architecture.md). Everything is
built when the daemon is made, voices first since they take longest; `run` takes up what the
last run left, starts the threads and watches the stages until stopped.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cosyedge import __version__
from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.health import Fault, Health
from cosyedge.alarms.history import History, Skipped, read_facts, sizes
from cosyedge.alarms.kpi import DAY_S, PERIOD_S, STALE_S, RecentAlarms, annunciated
from cosyedge.alarms.policy import AlarmPolicy
from cosyedge.announce.announcer import Announcer, Speech
from cosyedge.audio.player import Player
from cosyedge.audio.sound import Sound
from cosyedge.config import lastgood
from cosyedge.config.lastgood import FILE, SAFE_CORE, StartPlan
from cosyedge.config.loader import ConfigError, load_config
from cosyedge.config.schema import Config, missing_components
from cosyedge.faults import Faults
from cosyedge.homeassistant.discovery import Discovery
from cosyedge.http.metrics import Alarms, Gauges, Metrics
from cosyedge.http.outcomes import OutcomeBoard
from cosyedge.http.server import Accepted, ApiServer, Unavailable
from cosyedge.intake.alert import Message, clean_text
from cosyedge.intake.intake import Intake
from cosyedge.intake.local import BadField
from cosyedge.intake.templates import declared_phrases
from cosyedge.journal import Journal
from cosyedge.model import Event, Heartbeat, Offer, RejectedAlert, Verdict, error_text
from cosyedge.mqtt.broker import LocalBroker
from cosyedge.mqtt.reports import Reporter
from cosyedge.mqtt.session import MqttSession
from cosyedge.service.canary import Signer, load_key, looks_like_canary
from cosyedge.service.notify import Notifier, Watchdog
from cosyedge.service.reload import ANSWER_FILE, ReloadAnswer, effective_config, write_answer
from cosyedge.service.selfwatch import (
    DROPPED_TOPIC,
    QUIET_FAULTS,
    DropWatch,
    FilterWatch,
    StuckWatch,
    count_restarts,
)
from cosyedge.speech import zh
from cosyedge.speech.allocator import one_malloc_arena
from cosyedge.speech.cache import CacheEvent, PhraseCache
from cosyedge.speech.cache.background import Activity, CacheUpkeep
from cosyedge.speech.fallback import FallbackPhrases, FaultPhrases, fault_lang, fault_text
from cosyedge.speech.memory import REFERENCE_TEXT, MemoryGuard, SheddableVoice, service_limit_mb
from cosyedge.speech.premium import identities, premium_voices
from cosyedge.speech.premium.upgrade import PremiumUpkeep
from cosyedge.speech.render import Renderer, Rendering
from cosyedge.speech.stream import Turns
from cosyedge.speech.tags import reading_voice
from cosyedge.speech.voices import lexicon_for, load_voice, mixed_voices, settle_memory
from cosyedge.speech.voices.espeak_pinyin import VOICE_NAME as ESPEAK_VOICE_NAME

log = logging.getLogger(__name__)

STOP_GRACE_S = 5.0  # SIGTERM: how long the clause being spoken may take to finish
REPORT_DRAIN_S = 2.0  # a stop waits this long for the broker to acknowledge the last reports
SUBSCRIBE_WAIT_S = 10.0  # a reload answers once new subscriptions are acknowledged, or after this
CANARY_KEY = "canary.key"  # in state_dir: signs the canaries (service/canary.py)


class CannotStart(RuntimeError):
    """Not even the safe core can announce: every configuration tried failed (the reasons)."""


class VoiceFailed(RuntimeError):
    """A configured voice cannot be loaded; the message starts with its key path."""


def open_daemon(path: Path | None) -> Daemon:
    """The daemon on the file at `path`; when the file is refused, or its daemon cannot be
    built (a voice that does not load), on the last good configuration, else on the safe
    core, with the fault `config` saying why (config/lastgood.py). Raises CannotStart, with
    every reason, when not even the safe core can be built."""
    plan = StartPlan.read(path)
    notifier = Notifier()
    for choice in plan.choices():
        refused = plan.refusal(choice)
        if refused is not None:
            log.error("configuration refused: %s", "; ".join(plan.problems))
        try:
            return Daemon(choice.config, path, refused, choice.origin, notifier)
        except Exception as exc:  # whatever stops this configuration, the next one is tried
            log.exception("cannot start on %s", choice.what)
            plan.failed(choice, str(exc) if isinstance(exc, VoiceFailed) else error_text(exc))
    raise CannotStart("nothing to announce with: " + "; ".join(plan.problems))


class Daemon:
    def __init__(
        self,
        config: Config,
        config_path: Path | None = None,
        refused: str | None = None,
        origin: str = FILE,
        notifier: Notifier | None = None,
    ) -> None:
        """Runs `config`, which came from `origin` (config/lastgood.py); `refused`, when it
        is not the file's, says why the file is not run (the fault `config`). `notifier`:
        systemd's, shared by every configuration a start tries (it takes NOTIFY_SOCKET)."""
        one_malloc_arena()  # before any thread starts
        self.config = config
        self.config_path = config_path
        self.refused, self.origin = refused, origin
        self.unstarted = missing_components(config)  # optional parts that cannot run: faults
        self.faults = Faults.from_env()
        self.notifier = notifier or Notifier()
        self.health = Health(self._fault_changed)
        self.fault_lang = fault_lang(config.voices)  # the language faults are said in
        self.beats = [Heartbeat(name) for name in ("announcer", "player", "journal")]
        announcer_beat, player_beat, journal_beat = self.beats
        self.stuck = StuckWatch()  # which of them are busy without progress
        self.activity = Activity()  # held while an alert is rendered or played
        self._stop = threading.Event()
        self._reload = threading.Event()
        self._synthesizing = False  # a synthesis did not stop at shutdown
        self._reloads = 0
        self.notifier.status("starting: loading voices")
        speech = self.speech = build_speech(config, self.faults)
        self.cache = speech.renderer.cache
        self.player = Player(config.audio.device, config.audio.block_ms, player_beat)
        _check_service_limit(config.memory.ceiling_mb)

        # The stages, in the order an alert passes through them; intake first all the same,
        # since the session subscribes to the topics it takes.
        self.intake = Intake(config)
        self.mqtt = self._mqtt(config)
        self.journal = Journal(
            config.state_dir / "journal.jsonl", config.alarms.dedup_window_s, faults=self.faults
        )
        self.journal.beat = journal_beat
        self.reporter = Reporter(config.reports, self._publish, self.journal)
        self.history = History(
            config.state_dir / "history",
            config.alarms.history_days,
            config.alarms.history_mb * 1_000_000,
            faults=self.faults,
        )
        self.reporter.status_detail = self.status_detail
        self.desk = AlarmDesk(
            AlarmPolicy(config.alarms), self.reporter, self.journal, self.health, self.history
        )
        self.announcer = Announcer(
            self.desk,
            speech,
            self.player,
            Sound(config.alarms),
            self._stop,
            self.activity,
            announcer_beat,
        )

        # Beside them: a canary through every subscribed filter, and the phrase cache's upkeep.
        signer = Signer(load_key(config.state_dir / CANARY_KEY), gateway=config.mqtt.client_id)
        intake = self.intake
        self.watch = FilterWatch(
            intake.filters, intake.own_topics, signer, self._publish, config.monitor
        )
        broker = f"{config.mqtt.host}:{config.mqtt.port}"
        self.drops = DropWatch(config.state_dir / "broker-dropped.json", broker)
        phrases = declared_phrases(config.templates)
        premiums = premium_voices(config.voices, config.pronunciations)
        speech.renderer.premium = identities(premiums)
        self.upkeep = CacheUpkeep(self.cache, speech.renderer, phrases, self.activity)
        self.premium = None
        self.unstarted |= _premium_refused(config, premiums)
        if premiums:
            self.premium = PremiumUpkeep(
                self.cache,
                premiums,
                self._live_identities,
                phrases,
                self.activity,
                speech.memory,
                config.state_dir / "models",
            )
        # Beside MQTT, off by default: the local HTTP API, and what it reports.
        self.board = OutcomeBoard()
        self.metrics = Metrics(self._gauges)
        self._status_due = threading.Event()  # the cache hit rate moved: publish the status
        if self.premium is not None:
            self.premium.on_progress = self._status_due.set
        self.reporter.listeners += [self.board.told, self.metrics.told, self._told]
        self.speech.renderer.timers.append(self.metrics.clause)
        self.journal.on_sync = self.metrics.fsync.observe
        self.discovery = Discovery(config, self._publish)  # Home Assistant's, when on
        # Speech for callers (HTTP synthesis, Wyoming): one at a time, alerts first.
        self.local = LocalApi(self)
        self.turns = Turns(self.local.busy)
        self.recent = RecentAlarms()  # the last day's alarms, for the ISA-18.2 metrics
        self._seed_sizes: dict[str, int] = {}
        self.api = self._api(config) if config.http.enabled else None
        if self.api is not None:
            self._seed_sizes = sizes(self.history.directory)  # what is read back, not heard
            self.history.listeners.append(self.recent.heard)
        self.wyoming = None
        if config.wyoming.enabled and "wyoming" not in self.unstarted:  # an extra: import now
            from cosyedge.wyoming.server import WyomingServer

            self.wyoming = WyomingServer(config.wyoming, self.local, self.turns)
        self.journal.on_trouble = functools.partial(self.health.set, "journal")
        self.history.on_trouble = functools.partial(self.health.set, "history")
        self.reporter.on_trouble = functools.partial(self.health.set, "reports")
        self.cache.listeners.append(self._cache_event)

    # -- intake: runs on paho's network thread, so it only records and hands over ---------
    def on_message(
        self, topic: str, payload: bytes, ack: Callable[[], None], retained: bool = False
    ) -> None:
        if topic == DROPPED_TOPIC:  # the broker's own count of what it dropped
            if self.drops.heard(payload):
                self._status_due.set()  # published at the monitor's next tick
            ack()
            return
        if looks_like_canary(topic, payload, self.intake.own_topics):  # never an alert
            if payload or not retained:  # an empty retained one clears a retained canary
                self.watch.heard(topic, payload, retained)
            ack()
            return
        if self.intake.is_command(topic):
            text = payload[:500].decode("utf-8", "replace")
            self.desk.command(self.intake.command(payload, retained), text)
            self.journal.when_written(ack)  # what the command changed is on disk first
            return
        message = self._message(topic, payload)
        if message is None:
            ack()
            return
        self.metrics.received.labels("mqtt").inc()
        # A retained message the broker replays (at a start or a new subscription) is said
        # once per payload: if it was heard on its topic before, it is not said again.
        again = retained and self.journal.heard(topic, payload)
        # Acknowledged to the broker only once on disk; spoken meanwhile all the same.
        self.accept(message, ack, "mqtt", again=again)

    def accept(
        self,
        message: Message,
        then: Callable[[], None],
        via: str,
        again: bool = False,
        watch: Callable[[int], None] | None = None,
    ) -> Verdict:
        """The one way in for an alert, from MQTT or HTTP: journaled (`then` runs once it is
        on disk), then read and handed to the rules; `watch` learns its seq before they do."""
        received, at = time.time(), time.monotonic()
        seq = self.journal.accept(message.topic, message.payload, received, then=then, again=again)
        self.metrics.accepted.labels(via).inc()
        if watch is not None:
            watch(seq)
        verdict = self.intake.read(message, seq, received, at)
        self.desk.submit(verdict, again)
        return verdict

    def _message(self, topic: str, payload: bytes) -> Message | None:
        try:
            return self.intake.message(topic, payload)
        except Exception:  # taken in: what is wrong with it then shows in its outcome
            log.exception("cannot tell whether the message on %r is for us", topic)
            return Message(topic, payload)

    # -- lifecycle ---------------------------------------------------------------------------
    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self._stop.set())
        signal.signal(signal.SIGHUP, lambda *_: self._reload.set())
        broker = self._local_broker()
        try:
            code = self._serve()
        finally:
            if broker:
                broker.stop()
        if self._synthesizing or self.announcer.current is not None:
            # The announcer is stuck in a device write or a synthesis: do not wait for it.
            log.error("announcer did not stop within %g s; exiting without it", STOP_GRACE_S)
            logging.shutdown()
            os._exit(code)
        return code

    def _local_broker(self) -> LocalBroker | None:
        """The loopback Mosquitto, when configured and started. One that cannot start (not
        installed, another broker on a loopback address) is the fault `local-broker`, said
        aloud, while the session keeps trying host:port: never a silent exit."""
        mqtt = self.config.mqtt
        if not mqtt.local_broker:
            return None
        broker = LocalBroker(mqtt.host, mqtt.port, self.config.state_dir / "mosquitto")
        try:
            broker.start()
        except (RuntimeError, OSError) as exc:
            log.error("local broker: %s", exc)
            self.health.set("local-broker", str(exc))
            return None
        return broker

    def _serve(self) -> int:
        self._take_up()
        threads = [
            threading.Thread(target=self.announcer.run, name="announcer", daemon=True),
            threading.Thread(
                target=self.desk.run_clock, args=(self._stop,), name="clock", daemon=True
            ),
        ]
        for thread in threads:
            thread.start()
        if self.api is not None:
            self.api.start()
        if self.wyoming is not None:
            self._start_wyoming()
        # After every fault of the start is known: a status published before the connection
        # may reach the broker after the one published at it, and be the one retained.
        self.mqtt.start()
        self.upkeep.start()
        if self.premium is not None:
            self.premium.start()
        if self.origin == FILE:
            lastgood.save(self.config, self.config_path)
        watchdog = Watchdog(self.notifier, self.beats)
        while not self.mqtt.subscribed.is_set():
            target = f"{self.config.mqtt.host}:{self.config.mqtt.port}"
            self.notifier.status(f"starting: waiting for the MQTT broker at {target}")
            watchdog.tick()
            if self._stop.wait(watchdog.tick_seconds):
                return self._shutdown(threads)
        log.info("ready")
        self.watch.restart(time.monotonic())  # timeouts from now, not from before the broker
        self.notifier.ready(self._status())
        while not self._stop.wait(watchdog.tick_seconds):
            if self._reload.is_set():
                self._reload.clear()
                self._reload_config()
            self.speech.memory.check()
            if not self.activity.is_busy() and self.desk.waiting() == 0:
                self.speech.memory.settle()
            self._watch()
            self.discovery.tick()
            if self._status_due.is_set():
                self._status_due.clear()
                self.desk.publish_status()
            watchdog.tick()
            self.notifier.status(self._status())
        return self._shutdown(threads)

    def _take_up(self) -> None:
        """What the last run left: the journal's open alerts, reports and alarm state."""
        recovered = self.journal.open()
        self.health.restarts = count_restarts(self.config.state_dir / "starts")
        self.history.start()
        self.history.record("start", version=__version__, pid=os.getpid())
        if self.api is not None:
            threading.Thread(target=self._seed_recent, name="history-read", daemon=True).start()
        self.desk.recover(recovered, self.intake.read_journaled)
        if recovered.pending:
            log.info("%d alerts left unsaid by the last run are queued", len(recovered.pending))
        if recovered.unsent:
            log.info("%d reports of the last run are sent again", len(recovered.unsent))
        if not self.cache.writable:
            self.health.fault("cache", f"cannot write the phrase cache in {self.cache.directory}")
        for name, reason in self.unstarted.items():
            self.health.fault(name, reason)
        if self.refused is not None:
            self.health.fault("config", self.refused)

    def _api(self, config: Config) -> ApiServer | None:
        """The HTTP API, bound now; None, as the fault `http`, when it cannot be."""
        try:
            return ApiServer(config.http, self.local, self.board, self.metrics, self.turns)
        except (OSError, RuntimeError) as exc:  # the port in use, an empty token file
            self.unstarted["http"] = f"http.listen {config.http.listen}: {error_text(exc)}"
            return None

    def _start_wyoming(self) -> None:
        """Serve Wyoming from now on; an address it cannot bind is the fault `wyoming`."""
        assert self.wyoming is not None
        try:
            self.wyoming.start()
        except OSError as exc:  # the address in use: the rest runs without it
            self.health.fault("wyoming", f"wyoming.listen {self.config.wyoming.listen}: {exc}")
            self.wyoming = None

    def _seed_recent(self) -> None:
        """The last day's alarms from the history as it was before this run wrote to it."""
        now, skipped = time.time(), Skipped()
        facts = read_facts(self.history.directory, now - DAY_S, skipped, self._seed_sizes)
        older = [a for f in facts if f["e"] == "outcome" and (a := annunciated(f)) is not None]
        self.recent.seed(older, now)
        for name, count in skipped.damaged.items():
            log.warning("history %s: %d damaged lines passed over", name, count)

    def _mqtt(self, config: Config) -> MqttSession:
        return MqttSession(
            config.mqtt,
            self._filters(),
            self.on_message,
            will=(config.reports.status_topic, json.dumps({"state": "offline"})),
            on_connected=self._connected,
            on_published=self._published,
            faults=self.faults,
        )

    def _filters(self) -> list[str]:
        """What the session subscribes to: the intake's filters and the broker's drop count."""
        return [*self.intake.filters, DROPPED_TOPIC]

    def _connected(self) -> None:
        """At each connection (paho's network thread): the status, then discovery's configs."""
        self.desk.publish_status()
        self.discovery.connected()

    def _published(self, mid: int) -> None:
        self.reporter.published(mid)
        self.discovery.published(mid)

    def _told(self, report: dict[str, Any]) -> None:
        """A phrase said was looked up in the cache: the status shows the new hit rate, at
        the next tick rather than here, under the desk's lock."""
        if report.get("outcome") == "spoken":
            self._status_due.set()

    def status_detail(self) -> dict[str, Any]:
        """What the status adds to the desk's: the phrase cache's hit rate in percent of its
        lookups (counted across restarts), null before the first."""
        try:
            totals = self.cache.stats()
        except Exception:  # the status goes out all the same
            log.exception("cannot read the phrase cache's totals")
            totals = None
        rate = round(100 * totals.hits / totals.lookups, 1) if totals and totals.lookups else None
        detail: dict[str, Any] = {
            "cache_hit_rate": rate,
            "intake": self.watch.describe(),
            "broker": self.drops.describe(),
        }
        if self.premium is not None:
            detail["premium"] = self.premium.progress.as_dict()
        return detail

    def _live_identities(self) -> dict[str, str]:
        """Each language's live voice identity now (a lexicon reload changes it)."""
        renderer = self.speech.renderer
        return {lang: renderer.voice_for(lang).identity for lang in renderer.voices}

    def _publish(self, topic: str, payload: str, retain: bool = False) -> int:
        return self.mqtt.publish(topic, payload, retain)  # follows a reconnect after reload

    def _status(self) -> str:
        mqtt = "connected" if self.mqtt.connected else "disconnected, reconnecting"
        waiting = self.desk.waiting()
        faults = self.health.describe()
        return (
            (f"degraded: {faults}; " if faults else "")
            + f"mqtt: {mqtt}; audio: {self.player.describe()}; queue: {waiting}; "
            f"memory: {self.speech.memory.describe()}; last: {self.announcer.last}"
        )

    def _watch(self) -> None:
        """Each stage's state into the faults; see service/selfwatch.py."""
        now = time.monotonic()
        stuck_s = self.config.monitor.stuck_s
        self.health.set("intake", self.watch.tick(now))
        self.health.set("broker", self.drops.tick(now))
        self.health.set("mqtt", self.mqtt.problem)  # e.g. another client took our session
        self.health.set("audio", self.player.trouble)
        self.health.set("memory", self.speech.memory.trouble)
        self.health.set("speech", self.speech.memory.degradation)
        self.health.set("voice", self.speech.renderer.trouble)
        for name, stuck in self.stuck.check(self.beats, stuck_s, now).items():
            self.health.set(name, f"no progress for over {stuck_s:g} s" if stuck else None)

    def _gauges(self) -> Gauges:
        """The daemon's state for a metrics scrape."""
        totals = self.cache.stats()
        return Gauges(
            queue=self.desk.waiting(),
            cache_entries=totals.entries if totals else None,
            cache_bytes=totals.bytes if totals else None,
            cache_lookups=totals.lookups if totals else None,
            cache_hits=totals.hits if totals else None,
            rss_mb=self.speech.memory.rss(),
            ceiling_mb=self.speech.memory.ceiling_mb,
            audio_up=self.player.trouble is None,
            broker_connected=self.mqtt.connected,
            reports_unconfirmed=self.reporter.unconfirmed(),
            faults=self.health.faults(),
            cache_evictions=self.cache.evicted,
            sheds=dict(self.speech.memory.shed),
            alarms=self._alarm_figures(),
            premium=self.premium.progress.as_dict() if self.premium is not None else None,
        )

    def _alarm_figures(self) -> Alarms:
        now = time.time()
        stale = [since for _, since in self.desk.standing() if now - since > STALE_S]
        return Alarms(
            day=self.recent.figures(now),
            last_10_min=self.recent.count(now - PERIOD_S),
            last_hour=self.recent.count(now - 3600),
            complete=self.recent.complete(now),
            stale=len(stale),
            shelved=len(self.desk.status()["shelved"]),
        )

    def _cache_event(self, event: CacheEvent) -> None:
        if event.kind == "unwritable":
            self.health.fault("cache", event.detail)
        elif event.kind == "writable":
            self.health.clear("cache")

    def _fault_changed(self, name: str, fault: Fault | None) -> None:
        """A fault's start goes to the event and error topics, its end to the event topic;
        the retained status and systemd's STATUS follow at once, and the fault is said (with
        its tone, until acknowledged) or its end is said once."""
        if fault is None:
            self.reporter.event(Event("fault_cleared", {"fault": name}))
            self.history.record("fault_cleared", fault=name)
        else:
            self.reporter.event(Event("fault", {"fault": name, "reason": fault.reason}))
            self.reporter.error(f"{name}: {fault.reason}", fault=name)
            self.history.record("fault", fault=name, reason=fault.reason)
        self.desk.publish_status()
        if name not in QUIET_FAULTS:
            self._say_fault(name, fault is not None)
        self.notifier.status(self._status())

    def _say_fault(self, name: str, started: bool) -> None:
        monitor, lang = self.config.monitor, self.fault_lang
        # Which configuration runs instead of a refused file is part of what is said.
        phrase = "config-defaults" if name == "config" and self.origin == SAFE_CORE else name
        if started:
            self.desk.fault(name, fault_text(phrase, lang), lang, monitor.reannounce_s)
        else:
            cleared = fault_text("cleared", lang) if monitor.say_cleared else None
            self.desk.fault_cleared(name, cleared, lang)

    def _shutdown(self, threads: list[threading.Thread]) -> int:
        """The clause being spoken ends; whatever is unsaid stays in the journal for next time."""
        log.info("stopping")
        self.notifier.stopping("stopping: finishing the clause being spoken")
        if self.api is not None:  # no new request; one being answered is journaled or not
            self.api.stop()
        if self.wyoming is not None:
            self.wyoming.stop()
        announcer, clock = threads
        announcer.join(timeout=STOP_GRACE_S)
        clock.join(timeout=1)
        self.upkeep.stop(timeout=1)
        if self.premium is not None:
            self.premium.stop(timeout=1)
        self._synthesizing = not self.speech.renderer.stop(timeout=STOP_GRACE_S)
        self.desk.publish_status("offline")
        if not self.reporter.drain(timeout=REPORT_DRAIN_S):
            log.info("reports not yet acknowledged by the broker are sent again at next start")
        self.mqtt.stop()
        self.journal.stop()
        self.history.record("stop", unsaid=self.journal.unsaid())
        self.history.stop()
        unsaid = self.journal.unsaid()
        if unsaid:
            log.warning("%d unsaid alerts saved for the next start", unsaid)
        if not announcer.is_alive():
            self.cache.close()  # else the stuck announcer may still be using it
        return 0

    def _reload_config(self) -> None:
        """SIGHUP: take over the configuration file if it is valid, then answer the reload
        (service/reload.py) once it is in force or refused."""
        self.notifier.reloading()
        applied, detail = self._reload_from_file()
        self._reloads += 1
        answer = ReloadAnswer(os.getpid(), self._reloads, applied, detail)
        write_answer(self.config.state_dir / ANSWER_FILE, answer)
        self.notifier.ready(self._status())

    def _reload_from_file(self) -> tuple[bool, str]:
        try:
            new = load_config(self.config_path)
        except ConfigError as exc:
            for problem in exc.problems:
                log.error("reload rejected: %s", problem)
            log.error("reload rejected: the running configuration stays in force")
            return False, "rejected: " + "; ".join(exc.problems)
        except Exception as exc:  # whatever a file does to the loader, the daemon keeps speaking
            log.exception("reload rejected: the running configuration stays in force")
            return False, f"rejected: {error_text(exc)}"
        try:
            detail = self._apply(new)
        except Exception as exc:
            log.exception("reload failed while applying it; the daemon keeps running")
            return False, f"failed while applying it: {error_text(exc)}"
        self.refused, self.origin = None, FILE  # the file is in force: no longer refused
        self.health.clear("config")
        lastgood.save(self.config, self.config_path)
        return True, detail

    def _apply(self, new: Config) -> str:
        """Take over a valid new configuration, queued alerts staying as they are; once the
        broker has acknowledged new subscriptions (at most SUBSCRIBE_WAIT_S), say how it went."""
        new, waiting = effective_config(self.config, new)
        old, self.config = self.config, new
        self.intake = Intake(new)
        self.watch.monitor = new.monitor
        self.watch.use(self.intake.filters, self.intake.own_topics, time.monotonic())
        if new.mqtt != old.mqtt:
            self.mqtt.stop()
            self.mqtt = self._mqtt(new)
            self.mqtt.start()
        else:
            self.mqtt.set_filters(self._filters())
        self.discovery.use(new)
        self.player.device, self.player.block_ms = new.audio.device, new.audio.block_ms
        self.speech.memory.ceiling_mb = new.memory.ceiling_mb
        self.history.keep_days = new.alarms.history_days
        self.history.max_bytes = new.alarms.history_mb * 1_000_000
        if new.pronunciations != old.pronunciations:
            self._use_lexicons(new)
        logging.getLogger().setLevel(new.log_level.upper())
        for key in waiting:
            log.warning("reload: %s changed; that takes effect at the next restart", key)
        log.info("configuration reloaded from %s", self.config_path or "embedded defaults")
        detail = "applied"
        if waiting:
            detail += f"; waiting for a restart: {', '.join(waiting)}"
        if not self.mqtt.subscribed.wait(SUBSCRIBE_WAIT_S):
            detail += "; the broker has not acknowledged the subscriptions yet"
        return detail

    def _use_lexicons(self, config: Config) -> None:
        """Each voice takes its language's new lexicon; its identity, and so the cache key of
        every phrase, changes with it, so the next phrase is said the new way."""
        for lang, voice in self.speech.voices.items():
            voice.use_lexicon(lexicon_for(config.pronunciations, lang))
        if self.premium is not None:
            premiums = premium_voices(self.config.voices, config.pronunciations)
            self.speech.renderer.premium = identities(premiums)
            self.premium.use(premiums)
        log.info("site pronunciations reloaded: %s", _lexicon_sizes(config) or "none")


class LocalApi:
    """The daemon as the HTTP API sees it (http/server.py `Backend`), and the Wyoming server
    (wyoming/server.py `Synthesizer`)."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon

    def say(
        self, body: bytes, written: Callable[[], None], watch: Callable[[int], None] | None
    ) -> Accepted:
        d = self.daemon
        trouble = d.journal.trouble
        if trouble is not None:  # it would be spoken, but a crash could lose it
            raise Unavailable(f"not accepting alerts: {trouble}")
        message = d.intake.local_message(body)
        verdict = d.accept(message, written, "http", watch=watch)
        key = verdict.key if isinstance(verdict, Offer) else None
        return Accepted(verdict.ticket.seq, key, verdict.ticket.topic)

    def rendering(self, text: str, lang: str | None) -> Rendering:
        d = self.daemon
        if d.speech.memory.trouble is not None:
            raise Unavailable(f"memory: {d.speech.memory.trouble}")
        try:  # none asked for: the voice that reads the text's script
            chosen = reading_voice(lang or "", text, d.config.voices)[0]
        except RejectedAlert as exc:
            raise BadField("text", str(exc)) from None
        return d.speech.renderer.render(clean_text(text), chosen)

    def busy(self) -> bool:
        return self.daemon.activity.is_busy() or self.daemon.desk.waiting() > 0

    def status(self) -> dict[str, Any]:
        return {**self.daemon.desk.status(), **self.daemon.status_detail()}

    def problems(self) -> list[str]:
        """Healthy: the voices speak, the journal writes and the broker is connected."""
        d = self.daemon
        found = [f"voices: {d.speech.renderer.trouble}"] if d.speech.renderer.trouble else []
        if d.journal.trouble is not None:
            found.append(d.journal.trouble)
        if not d.mqtt.connected:
            mqtt = d.config.mqtt
            found.append(f"mqtt: not connected to the broker at {mqtt.host}:{mqtt.port}")
        return found

    def voices(self) -> dict[str, dict[str, Any]]:
        d = self.daemon
        return {
            lang: {
                "engine": d.config.voices[lang].engine,
                "name": voice.name,
                "sample_rate": voice.sample_rate,
                "loaded": getattr(voice, "loaded", True),
            }
            for lang, voice in d.speech.voices.items()
        }


def _premium_refused(config: Config, premiums: dict[str, object]) -> dict[str, str]:
    """The fault `premium` when a configured premium pack cannot be used (premium_voices
    logged why): its phrases stay with the live voice."""
    refused = [lang for lang, v in config.voices.items() if v.premium and lang not in premiums]
    if not refused:
        return {}
    keys = ", ".join(f"voices.{lang}.premium.pack" for lang in refused)
    return {"premium": f"{keys}: the pack cannot be used (see the log); the live voice speaks"}


def _lexicon_sizes(config: Config) -> str:
    return ", ".join(f"{lang} {len(e)}" for lang, e in config.pronunciations.items())


def _check_service_limit(ceiling_mb: float) -> None:
    limit = service_limit_mb()
    if limit is not None and ceiling_mb >= limit:
        log.warning(
            "memory.ceiling_mb %.0f is not below the service's memory limit of %.0f MB: "
            "raise MemoryHigh/MemoryMax (systemctl edit cosyedge) or lower the ceiling",
            ceiling_mb,
            limit,
        )


def build_speech(config: Config, faults: Faults) -> Speech:
    """The voices, cache and renderer, and what is said when they cannot be: the generic
    phrases (short, and what is left if all fails) and the fault phrases, rendered now."""
    voices = {lang: _voice(config, lang) for lang in config.voices}
    settle_memory()
    renderer = Renderer(mixed_voices(voices), PhraseCache.from_config(config.cache, faults))
    renderer.start()
    # espeak-ng speaks from its own process: unloading that voice would free nothing.
    in_process = {lang: v for lang, v in voices.items() if v.name != ESPEAK_VOICE_NAME}
    memory = MemoryGuard(config.memory.ceiling_mb, in_process.values())
    fallback = FallbackPhrases(voices)
    fault_phrases = FaultPhrases(renderer.synthesize, fault_lang(voices))
    for lang, voice in in_process.items():
        memory.measure_voice(voice, zh.REFERENCE_TEXT if lang == "zh" else REFERENCE_TEXT)
    limit = config.alarms.max_spoken_s
    return Speech(renderer, memory, fallback, voices, faults, fault_phrases, limit)


def _voice(config: Config, lang: str) -> SheddableVoice:
    """`lang`'s voice, loaded now; VoiceFailed names its key when it cannot be."""
    lexicon, models = lexicon_for(config.pronunciations, lang), config.state_dir / "models"
    load = functools.partial(
        load_voice, lang, config.voices[lang], models, lexicon, config.memory.ceiling_mb
    )
    try:
        return SheddableVoice(load)
    except Exception as exc:  # a pack that does not verify, a model that cannot be read
        raise VoiceFailed(f"voices.{lang}: cannot be loaded: {error_text(exc)}") from exc
