"""Wiring and lifecycle: MQTT message → alert → announcement → audio, read top to bottom."""

from __future__ import annotations

import functools
import itertools
import logging
import os
import queue
import signal
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from cosyedge.alerts import PRIORITIES, RejectedAlert, parse_alert
from cosyedge.audio import AudioUnavailable, Playback, Player
from cosyedge.broker import LocalBroker
from cosyedge.cache import PhraseCache
from cosyedge.cache.background import Activity, CacheUpkeep
from cosyedge.cache.warm import declared_phrases
from cosyedge.config import Config, ConfigError, load_config
from cosyedge.memory import (
    FallbackPhrases,
    MemoryGuard,
    SheddableVoice,
    is_out_of_memory,
    service_limit_mb,
)
from cosyedge.mqtt import MqttIntake
from cosyedge.notify import Heartbeat, Notifier, Watchdog
from cosyedge.pending import save_pending, take_pending
from cosyedge.reload import effective_config
from cosyedge.render import Renderer, Rendering
from cosyedge.templates import Announcement, TemplateSet
from cosyedge.voices import load_voice, settle_memory

log = logging.getLogger(__name__)

STOP_GRACE_S = 5.0  # SIGTERM: how long the clause being spoken may take to finish


@dataclass(order=True, frozen=True)
class _Queued:
    rank: int
    seq: int
    announcement: Announcement = field(compare=False)
    received_mono: float = field(compare=False)


class Daemon:
    def __init__(self, config: Config, config_path: Path | None = None) -> None:
        self.config = config
        self.config_path = config_path
        self.templates = TemplateSet(config.templates)
        self.queue: queue.PriorityQueue[_Queued] = queue.PriorityQueue()
        self._seq = itertools.count()
        self._stop = threading.Event()
        self._reload = threading.Event()
        self.notifier = Notifier()
        self.announcer_beat = Heartbeat("announcer")
        self.player_beat = Heartbeat("player")
        self._current: _Queued | None = None
        self._last = "none yet"
        self._synthesizing = False  # a synthesis did not stop at shutdown
        self.activity = Activity()  # held while an alert is rendered or played

    # -- intake: runs on paho's network thread, so it only parses and enqueues ----------
    def on_message(self, topic: str, payload: bytes) -> None:
        received = time.monotonic()
        try:
            template, topic_fields = self.templates.find(topic)
            alert = parse_alert(
                topic, payload, template.config.payload, self.config.mqtt.max_payload_bytes
            )
            announcement = template.render(alert, topic_fields)
        except RejectedAlert as exc:
            log.warning("rejected message on %r: %s", topic, exc)
            return
        self._enqueue(announcement, received)
        log.info("accepted alert %s on %r (%s)", alert.id, topic, announcement.priority)

    def _enqueue(self, announcement: Announcement, received: float) -> None:
        rank = PRIORITIES.index(announcement.priority)
        self.queue.put(_Queued(rank, next(self._seq), announcement, received))

    # -- announcer: one thread renders and plays, highest priority first ----------------
    def _announce_forever(self, renderer: Renderer, player: Player) -> None:
        while not self._stop.is_set():
            self.announcer_beat.beat()
            try:
                item = self.queue.get(timeout=0.2)
            except queue.Empty:
                continue
            self._current = item
            with self.activity.busy():
                self._announce(item, renderer, player)
            self._current = None

    def _announce(self, item: _Queued, renderer: Renderer, player: Player) -> None:
        announcement = item.announcement
        cut: list[bool] = []
        try:
            rendering, playback = self._speak(announcement, renderer, player, cut)
        except AudioUnavailable:
            self.queue.put(item)  # kept: spoken once the device is back
            self._pause(player.retry_in())
            return
        except Exception:
            log.exception("failed to speak alert %s", announcement.alert.id)
            return
        if cut:
            self.queue.put(item)  # heard only in part: kept, and saved for the next start
            log.warning("stopping: cut alert %s after a clause; kept", announcement.alert.id)
            return
        self._last = f"spoke {announcement.alert.id} at {time.strftime('%H:%M:%S')}"
        latency = (playback.first_audio - item.received_mono) * 1000 if playback.first_audio else -1
        log.info(
            "%s alert %s source=%s latency_ms=%.0f samples=%d text=%r",
            "spoke" if playback.played else "rendered (no audio device)",
            announcement.alert.id,
            rendering.source,
            latency,
            playback.samples,
            announcement.text,
        )

    def _speak(
        self, announcement: Announcement, renderer: Renderer, player: Player, cut: list[bool]
    ) -> tuple[Rendering, Playback]:
        """Synthesize when memory allows, else the cached or generic phrase; the same after
        an allocation failure, so running out of memory never silences an alert."""
        text, lang = announcement.text, announcement.lang
        voice = self.voices.get(lang)
        if voice is None:  # a template reloaded with a language whose voice loads at restart
            log.error("no voice loaded for language %r: saying the generic phrase", lang)
            rendering = self.fallback.rendering(announcement.priority)
        elif self.memory.may_synthesize(announcement.priority, voice):
            rendering = renderer.render(text, lang)
        else:
            rendering = renderer.cached(text, lang) or self.fallback.rendering(
                announcement.priority
            )
        try:
            return rendering, self._play(rendering, player, cut)
        except Exception as exc:
            if not is_out_of_memory(exc):
                raise
            self.memory.out_of_memory(exc)
            rendering = self.fallback.rendering(announcement.priority)
            return rendering, self._play(rendering, player, cut)

    def _play(self, rendering: Rendering, player: Player, cut: list[bool]) -> Playback:
        chunks = self.announcer_beat.beating(self.memory.metered(rendering.chunks))
        try:
            return player.play(rendering.sample_rate, self._until_stop(chunks, cut))
        finally:
            rendering.close()  # stops synthesis running ahead of what was played

    def _until_stop(self, chunks: Iterable[np.ndarray], cut: list[bool]) -> Iterator[np.ndarray]:
        """On SIGTERM, finish the clause being spoken and stop there."""
        for chunk in chunks:
            yield chunk
            if self._stop.is_set():
                cut.append(True)
                return

    def _pause(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not self._stop.is_set() and (left := deadline - time.monotonic()) > 0:
            self.announcer_beat.beat()
            self._stop.wait(min(left, 0.2))

    # -- lifecycle ---------------------------------------------------------------------------
    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self._stop.set())
        signal.signal(signal.SIGHUP, lambda *_: self._reload.set())
        config = self.config
        broker = None
        if config.mqtt.local_broker:
            broker = LocalBroker(config.mqtt.host, config.mqtt.port, config.state_dir / "mosquitto")
            broker.start()
        try:
            code = self._serve()
        finally:
            if broker:
                broker.stop()
        if self._current is not None or self._synthesizing:
            # The announcer is stuck in a device write or a synthesis: do not wait for it.
            log.error("announcer did not stop within %g s; exiting without it", STOP_GRACE_S)
            logging.shutdown()
            os._exit(code)
        return code

    def _serve(self) -> int:
        config = self.config
        self.notifier.status("starting: loading voices")
        models = config.state_dir / "models"
        self.voices = voices = {
            lang: SheddableVoice(functools.partial(load_voice, lang, voice_config, models))
            for lang, voice_config in config.voices.items()
        }
        settle_memory()
        self.cache = PhraseCache.from_config(config.cache)
        self.renderer = renderer = Renderer(voices, self.cache)
        self.memory = MemoryGuard(config.memory.ceiling_mb, voices.values())
        # First: short, and what is left if all fails. The generic phrases are English.
        self.fallback = FallbackPhrases(voices.get("en") or next(iter(voices.values())))
        for voice in voices.values():
            self.memory.measure_voice(voice)
        _check_service_limit(config.memory.ceiling_mb)
        self.player = player = Player(config.audio.device, config.audio.block_ms, self.player_beat)
        for announcement in take_pending(config.state_dir):
            self._enqueue(announcement, time.monotonic())
        if not self.queue.empty():
            log.info("%d alerts left unsaid by the last run are queued", self.queue.qsize())
        announcer = threading.Thread(
            target=self._announce_forever, args=(renderer, player), name="announcer", daemon=True
        )
        announcer.start()
        self.intake = MqttIntake(config.mqtt, self.templates.filters, self.on_message)
        self.intake.start()
        phrases = declared_phrases(config.templates)
        self.upkeep = CacheUpkeep(self.cache, renderer, phrases, self.activity)
        self.upkeep.start()
        watchdog = Watchdog(self.notifier, [self.announcer_beat, self.player_beat])
        while not self.intake.subscribed.is_set():
            target = f"{config.mqtt.host}:{config.mqtt.port}"
            self.notifier.status(f"starting: waiting for the MQTT broker at {target}")
            watchdog.tick()
            if self._stop.wait(watchdog.tick_seconds):
                return self._shutdown(announcer)
        log.info("ready")
        self.notifier.ready(self._status())
        while not self._stop.wait(watchdog.tick_seconds):
            if self._reload.is_set():
                self._reload.clear()
                self._reload_config()
            self.memory.check()
            watchdog.tick()
            self.notifier.status(self._status())
        return self._shutdown(announcer)

    def _status(self) -> str:
        mqtt = "connected" if self.intake.connected else "disconnected, reconnecting"
        return (
            f"mqtt: {mqtt}; audio: {self.player.describe()}; queue: {self.queue.qsize()}; "
            f"memory: {self.memory.describe()}; last: {self._last}"
        )

    def _shutdown(self, announcer: threading.Thread) -> int:
        log.info("stopping")
        self.notifier.stopping("stopping: finishing the clause being spoken")
        self.intake.stop()
        announcer.join(timeout=STOP_GRACE_S)
        self.upkeep.stop(timeout=1)
        self._synthesizing = not self.renderer.stop(timeout=STOP_GRACE_S)
        unsaid: list[Announcement] = []
        if announcer.is_alive() and self._current is not None:
            unsaid.append(self._current.announcement)
        while not self.queue.empty():
            unsaid.append(self.queue.get_nowait().announcement)
        try:
            if save_pending(self.config.state_dir, unsaid):
                log.warning("%d unsaid alerts saved for the next start", len(unsaid))
        except OSError as exc:
            log.error("cannot save %d unsaid alerts: %s", len(unsaid), exc)
        if not announcer.is_alive():
            self._current = None
            self.cache.close()  # else the stuck announcer may still be using it
        return 0

    def _reload_config(self) -> None:
        self.notifier.reloading()
        try:
            new = load_config(self.config_path)
        except ConfigError as exc:
            for problem in exc.problems:
                log.error("reload rejected: %s", problem)
            log.error("reload rejected: the running configuration stays in force")
        else:
            self._apply(new)
        self.notifier.ready(self._status())

    def _apply(self, new: Config) -> None:
        """Take over a valid new configuration; queued alerts stay as they are."""
        new, waiting = effective_config(self.config, new)
        old, self.config = self.config, new
        self.templates = TemplateSet(new.templates)
        if new.mqtt != old.mqtt:
            self.intake.stop()
            self.intake = MqttIntake(new.mqtt, self.templates.filters, self.on_message)
            self.intake.start()
        else:
            self.intake.set_filters(self.templates.filters)
        self.player.device, self.player.block_ms = new.audio.device, new.audio.block_ms
        self.memory.ceiling_mb = new.memory.ceiling_mb
        logging.getLogger().setLevel(new.log_level.upper())
        for key in waiting:
            log.warning("reload: %s changed; that takes effect at the next restart", key)
        log.info("configuration reloaded from %s", self.config_path or "embedded defaults")


def _check_service_limit(ceiling_mb: float) -> None:
    limit = service_limit_mb()
    if limit is not None and ceiling_mb >= limit:
        log.warning(
            "memory.ceiling_mb %.0f is not below the service's memory limit of %.0f MB: "
            "raise MemoryHigh/MemoryMax (systemctl edit cosyedge) or lower the ceiling",
            ceiling_mb,
            limit,
        )
