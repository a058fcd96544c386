"""The announcer: the one thread that speaks, most urgent first.

It takes the next item from the desk, renders it (cache or synthesis), and plays the chime
and the speech. Between audio blocks it asks the desk whether to give way; a more urgent
alert, a silence or a shelve then cuts in at the next block boundary, the rendering is closed
(which cancels synthesis) and the desk decides whether the item is said again from its start.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator

import numpy as np

from cosyedge.audio import Player
from cosyedge.cache.background import Activity
from cosyedge.desk import AlarmDesk
from cosyedge.policy import Delivery, Item
from cosyedge.render import Renderer
from cosyedge.sound import Sound

log = logging.getLogger(__name__)

RETRY_MIN_S, RETRY_MAX_S = 1.0, 30.0  # waiting for a sound device to come back


class Announcer:
    def __init__(
        self,
        desk: AlarmDesk,
        renderer: Renderer,
        player: Player,
        sound: Sound,
        stop: threading.Event,
        activity: Activity,
    ) -> None:
        self.desk = desk
        self.renderer = renderer
        self.player = player
        self.sound = sound
        self.activity = activity  # busy while an item is rendered or played: cache upkeep waits
        self._stop = stop  # at shutdown the phrase is cut short and stays queued in the journal
        self._retry_s = RETRY_MIN_S

    def run(self) -> None:
        while not self._stop.is_set():
            item = self.desk.take(timeout=0.2)
            if item is None:
                continue
            with self.activity.busy():
                delivery = self._announce(item)
            self.desk.finished(item, delivery)
            if delivery.kind == "unplayed":
                self._stop.wait(self._retry_s)
                self._retry_s = min(self._retry_s * 2, RETRY_MAX_S)
            elif delivery.kind == "spoken":
                self._retry_s = RETRY_MIN_S

    def _announce(self, item: Item) -> Delivery:
        try:
            rendering = self.renderer.render(item.text, item.lang)
        except Exception as exc:
            log.exception("cannot render %s %s", item.kind, item.key)
            return Delivery("failed", {"reason": f"synthesis failed: {exc}"})
        volume = self.sound.volume(item.priority, item.volume)
        chunks = self.sound.shape(item.priority, rendering.sample_rate, rendering.chunks, volume)

        def give_way() -> bool:
            return self._stop.is_set() or self.desk.should_stop(item)

        try:
            playback = self.player.play(rendering.sample_rate, chunks, should_stop=give_way)
        except Exception as exc:
            log.exception("cannot speak %s %s", item.kind, item.key)
            return Delivery("failed", {"reason": f"playback failed: {exc}"})
        finally:
            _close(chunks)
            _close(rendering.chunks)  # a synthesis cut short stops here
        if not playback.played:
            log.warning(
                "rendered (no audio device) %s %s; kept queued, trying the device again in %.0f s",
                item.kind,
                item.key,
                self._retry_s,
            )
            return Delivery("unplayed")
        if playback.stopped:
            log.info("cut %s %s short after %d samples", item.kind, item.key, playback.samples)
            return Delivery("stopped")
        if playback.first_audio is None or playback.last_audio is None:
            return Delivery("failed", {"reason": "no audio was rendered"})
        start, end = _wall(playback.first_audio), _wall(playback.last_audio)
        received = min((o.ticket.received for o in item.offers), default=start)
        detail = {
            "start": round(start, 3),
            "end": round(end, 3),
            "source": rendering.source,
            "latency_ms": round((start - received) * 1000),
        }
        log.info(
            "spoke %s %s source=%s latency_ms=%d samples=%d text=%r",
            item.kind,
            item.key,
            rendering.source,
            detail["latency_ms"],
            playback.samples,
            item.text,
        )
        return Delivery("spoken", detail)


def _close(chunks: Iterator[np.ndarray]) -> None:
    close = getattr(chunks, "close", None)
    if close is not None:
        close()


def _wall(monotonic: float) -> float:
    return time.time() - (time.monotonic() - monotonic)
