"""Wiring and lifecycle: MQTT message → journal → alarm desk → announcer, read top to bottom."""

from __future__ import annotations

import json
import logging
import signal
import threading
import time
from collections.abc import Callable

from cosyedge.announcer import Announcer
from cosyedge.audio import Player
from cosyedge.broker import LocalBroker
from cosyedge.cache import PhraseCache
from cosyedge.cache.background import Activity, CacheUpkeep
from cosyedge.cache.warm import declared_phrases
from cosyedge.config import Config
from cosyedge.desk import AlarmDesk
from cosyedge.intake import Intake
from cosyedge.journal import Journal
from cosyedge.mqtt import MqttIntake
from cosyedge.policy import AlarmPolicy
from cosyedge.render import Renderer
from cosyedge.reports import Reporter
from cosyedge.sound import Sound
from cosyedge.voices import load_voice

log = logging.getLogger(__name__)


class Daemon:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.intake = Intake(config)
        self.journal = Journal(config.state_dir / "journal.jsonl", config.alarms.dedup_window_s)
        self.desk: AlarmDesk | None = None
        self._stop = threading.Event()
        self.activity = Activity()  # held while an alert is rendered or played

    # -- intake: runs on paho's network thread, so it only records and hands over ---------
    def on_message(self, topic: str, payload: bytes, ack: Callable[[], None]) -> None:
        assert self.desk is not None
        if self.intake.is_command(topic):
            self.desk.command(payload)
            ack()
            return
        if not self.intake.wants(topic, payload):
            ack()
            return
        received = time.time()
        # Acknowledged to the broker only once on disk; spoken meanwhile all the same.
        seq = self.journal.accept(topic, payload, received, then=ack)
        self.desk.submit(seq, topic, payload, received)

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
        started = time.monotonic()
        voice = load_voice(config.voice)
        log.info(
            "voice %s loaded in %.2f s (%d threads)",
            voice.name,
            time.monotonic() - started,
            config.voice.threads,
        )
        cache = PhraseCache.from_config(config.cache)
        renderer = Renderer(voice, cache)
        player = Player(config.audio.device, config.audio.block_ms)
        status_topic = config.reports.status_topic
        intake = MqttIntake(
            config.mqtt,
            self.intake.filters,
            self.on_message,
            will=(status_topic, json.dumps({"state": "offline"})),
            on_connected=lambda: desk.publish_status(),
            on_published=lambda mid: reporter.published(mid),
        )
        reporter = Reporter(config.reports, intake.publish, self.journal)
        self.journal.on_error = reporter.error
        desk = self.desk = AlarmDesk(AlarmPolicy(config.alarms), self.intake, reporter)
        try:
            recovered = self.journal.open()
        except OSError as exc:
            raise RuntimeError(f"state_dir: cannot keep the alert journal there: {exc}") from None
        desk.recover(recovered)
        announcer = Announcer(
            desk, renderer, player, Sound(config.alarms), self._stop, self.activity
        )
        threads = [
            threading.Thread(target=announcer.run, name="announcer", daemon=True),
            threading.Thread(target=desk.run_clock, args=(self._stop,), name="clock", daemon=True),
        ]
        for thread in threads:
            thread.start()
        intake.start()
        upkeep = CacheUpkeep(cache, renderer, declared_phrases(config.templates), self.activity)
        upkeep.start()
        log.info("ready")
        self._stop.wait()
        log.info("stopping")
        for thread in threads:
            thread.join(timeout=10)
        desk.publish_status("offline")
        intake.stop()
        upkeep.stop()
        self.journal.stop()
        cache.close()
        return 0
