"""Wiring and lifecycle: MQTT message → alert → announcement → audio, read top to bottom."""

from __future__ import annotations

import itertools
import logging
import queue
import signal
import threading
import time
from dataclasses import dataclass, field

from cosyedge.alerts import PRIORITIES, RejectedAlert, parse_alert
from cosyedge.audio import Player
from cosyedge.broker import LocalBroker
from cosyedge.cache import PhraseCache
from cosyedge.config import Config
from cosyedge.mqtt import MqttIntake
from cosyedge.render import Renderer
from cosyedge.templates import Announcement, TemplateSet
from cosyedge.voices import load_voices

log = logging.getLogger(__name__)


@dataclass(order=True, frozen=True)
class _Queued:
    rank: int
    seq: int
    announcement: Announcement = field(compare=False)
    received_mono: float = field(compare=False)


class Daemon:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.templates = TemplateSet(config.templates)
        self.queue: queue.PriorityQueue[_Queued] = queue.PriorityQueue()
        self._seq = itertools.count()
        self._stop = threading.Event()

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
        rank = PRIORITIES.index(announcement.priority)
        self.queue.put(_Queued(rank, next(self._seq), announcement, received))
        log.info("accepted alert %s on %r (%s)", alert.id, topic, announcement.priority)

    # -- announcer: one thread renders and plays, highest priority first ----------------
    def _announce_forever(self, renderer: Renderer, player: Player) -> None:
        while not self._stop.is_set():
            try:
                item = self.queue.get(timeout=0.2)
            except queue.Empty:
                continue
            self._announce(item, renderer, player)

    def _announce(self, item: _Queued, renderer: Renderer, player: Player) -> None:
        announcement = item.announcement
        try:
            rendering = renderer.render(announcement.text, announcement.lang)
            try:
                playback = player.play(rendering.sample_rate, rendering.chunks)
            finally:
                rendering.close()
        except Exception:
            log.exception("failed to speak alert %s", announcement.alert.id)
            return
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

    # -- lifecycle ---------------------------------------------------------------------------
    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self._stop.set())
        config = self.config
        broker = None
        if config.mqtt.local_broker:
            broker = LocalBroker(config.mqtt.host, config.mqtt.port, config.state_dir / "mosquitto")
            broker.start()
        try:
            return self._serve()
        finally:
            if broker:
                broker.stop()

    def _serve(self) -> int:
        config = self.config
        voices = load_voices(config.voices, config.state_dir / "models")
        renderer = Renderer(voices, PhraseCache(config.cache.dir))
        player = Player(config.audio.device, config.audio.block_ms)
        announcer = threading.Thread(
            target=self._announce_forever, args=(renderer, player), name="announcer", daemon=True
        )
        announcer.start()
        intake = MqttIntake(config.mqtt, self.templates.filters, self.on_message)
        intake.start()
        log.info("ready")
        self._stop.wait()
        log.info("stopping")
        intake.stop()
        announcer.join(timeout=10)
        return 0
