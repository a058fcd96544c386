"""A zone's outputs: the same announcement played on each of them at once.

A zone may be several sound devices (a hall's two amplifiers on two USB cards). The rendering
is made once; each output takes every chunk through a short queue of its own, on a thread of
its own, so one device's pace does not hold the others back by more than the queue. An output
that cannot play is its own fault; the zone is heard while any of its outputs plays, and is
unplayed (kept, tried again) only when none can.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from cosyedge.audio.player import AudioUnavailable, Playback, Player, PortAudio
from cosyedge.audio.rtp import RtpOutput
from cosyedge.component import Component, Detail

if TYPE_CHECKING:
    from cosyedge.config.schema import Config

log = logging.getLogger(__name__)

QUEUE_CHUNKS = 8  # chunks an output may lag behind the fastest of its zone
LOOK_S = 10.0  # how often the outputs are looked for while none plays (4 ms of CPU)
_END = None


class ZoneOutputs:
    """Plays on every output of a zone (`Player.play`'s contract)."""

    def __init__(self, zone: str, players: Sequence[Player | RtpOutput]) -> None:
        if not players:
            raise ValueError(f"zone {zone}: no output")
        self.zone = zone
        self.players = list(players)

    def retry_in(self) -> float:
        """The soonest any of its outputs may be tried again."""
        return min(player.retry_in() for player in self.players)

    def play(
        self,
        sample_rate: int,
        chunks: Iterable[np.ndarray],
        should_stop: Callable[[], bool] = lambda: False,
    ) -> Playback:
        """Every chunk on every output; AudioUnavailable when no output could play."""
        if len(self.players) == 1:
            return self.players[0].play(sample_rate, chunks, should_stop)
        feeds = [queue.Queue[np.ndarray | None](QUEUE_CHUNKS) for _ in self.players]
        results: list[Playback | Exception | None] = [None] * len(self.players)
        gone = [threading.Event() for _ in self.players]  # an output that stopped taking
        threads = [
            threading.Thread(
                target=self._run,
                args=(i, sample_rate, feeds[i], gone[i], should_stop, results),
                name=f"output-{self.zone}-{i}",
                daemon=True,
            )
            for i in range(len(self.players))
        ]
        for thread in threads:
            thread.start()
        _feed(chunks, feeds, gone)
        for thread in threads:
            thread.join()
        return _together(self.zone, results)

    def _run(
        self,
        i: int,
        sample_rate: int,
        feed: queue.Queue[np.ndarray | None],
        gone: threading.Event,
        should_stop: Callable[[], bool],
        results: list[Playback | Exception | None],
    ) -> None:
        try:
            results[i] = self.players[i].play(sample_rate, _drain(feed), should_stop)
        except Exception as exc:  # its own fault, told by its player; the others go on
            results[i] = exc
        finally:
            gone.set()
            while True:  # let the feeder past a queue nobody reads any more
                try:
                    feed.get_nowait()
                except queue.Empty:
                    break


def _feed(
    chunks: Iterable[np.ndarray], feeds: list[queue.Queue], gone: list[threading.Event]
) -> None:
    """Each chunk to every output still taking them, then the end to each."""
    for chunk in chunks:
        live = [(f, g) for f, g in zip(feeds, gone, strict=True) if not g.is_set()]
        if not live:
            break
        for feed, stopped in live:
            _put(feed, chunk, stopped)
    for feed, stopped in zip(feeds, gone, strict=True):
        _put(feed, _END, stopped)


def _put(feed: queue.Queue, chunk: np.ndarray | None, stopped: threading.Event) -> None:
    """Into `feed`, unless its output stops taking meanwhile."""
    while not stopped.is_set():
        try:
            feed.put(chunk, timeout=0.1)
            return
        except queue.Full:
            continue


def _drain(feed: queue.Queue[np.ndarray | None]) -> Iterator[np.ndarray]:
    while (chunk := feed.get()) is not _END:
        yield chunk


def _together(zone: str, results: list[Playback | Exception | None]) -> Playback:
    """The zone's playback: the outputs that played (the first to start, the last to end);
    AudioUnavailable when none did, an output's other error raised as it is."""
    played = [r for r in results if isinstance(r, Playback)]
    if not played:
        errors = [r for r in results if isinstance(r, Exception)]
        other = [e for e in errors if not isinstance(e, AudioUnavailable)]
        if other:
            raise other[0]
        raise AudioUnavailable(f"zone {zone}: no output could play ({errors[0] if errors else ''})")
    firsts = [p.first_audio for p in played if p.first_audio is not None]
    lasts = [p.last_audio for p in played if p.last_audio is not None]
    return Playback(
        played=True,
        samples=max(p.samples for p in played),
        first_audio=min(firsts) if firsts else None,
        stopped=any(p.stopped for p in played),
        last_audio=max(lasts) if lasts else None,
    )


class Outputs(Component):
    """Every zone's outputs, as one part of the daemon: each output's fault (`audio`, or
    `audio:<output>` with zones), and the sound in the status. Every LOOK_S while no stream is
    open, the sound devices are looked for, and every LOOK_S each idle network output checks it
    could send (`RtpOutput.look`), so one gone while nothing is said is a fault before an alert
    finds out (and one back is no longer)."""

    def __init__(self, zones: Mapping[str, ZoneOutputs], portaudio: PortAudio) -> None:
        self.zones = dict(zones)
        self.players = [player for zone in self.zones.values() for player in zone.players]
        self.portaudio = portaudio
        self._looked = self._routed = -math.inf

    def reconfigure(self, config: Config) -> None:
        for player in self.players:
            player.reconfigure(config)

    def tick(self, now: float) -> Mapping[str, str | None]:
        devices = [p for p in self.players if isinstance(p, Player)]
        if devices and now - self._looked >= LOOK_S and self.portaudio.look_for(devices):
            self._looked = now
        if now - self._routed >= LOOK_S:  # each network output idle, on its own
            self._routed = now
            for output in self.players:
                if isinstance(output, RtpOutput):
                    output.look()
        faults: dict[str, str | None] = {}
        for player in self.players:
            faults.update(player.tick(now))
        return faults

    def state(self, detail: Detail) -> Mapping[str, Any]:
        """Up while every output is; each output in words where there are several."""
        if len(self.players) == 1 and self.players[0].output is None:  # no zones
            return self.players[0].state(detail)
        words = "; ".join(f"{p.output}: {p.describe()}" for p in self.players)
        return {"audio_up": all(p.trouble is None for p in self.players), "audio": words}
