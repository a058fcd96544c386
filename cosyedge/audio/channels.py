"""Outputs on the channels of one multi-channel sound device, sharing one PortAudio stream.

A gateway's 4- or 8-channel card often feeds several amplifiers, each output
(`outputs.NAME.channel`) one of its channels. ALSA opens a hardware device for one stream at a
time (a second gets "device busy"), so the outputs of one card play through ONE stream of it
(`SharedDevice`), open while any of them plays:

- Each output cuts its announcement into blocks of `audio.block_ms` at the stream's rate (the
  rate of the first announcement since the stream opened; another is resampled to it with
  soxr, as a network output's is) and queues them in its channel's feed, at most FEED_BLOCKS
  ahead of the device.
- One writer thread per device takes the next block of every feed that has one into its
  channel, zeros in every other channel, and writes the frame; the blocking write is the
  device's pace, and holds every feed to it. A channel whose feed is empty at that moment (a
  voice behind its playback) gets zeros, a gap heard there as an underrun would be heard on a
  device of its own, and the other channels go on. When no feed has a block the writer waits
  rather than write silence, so an announcement on an idle card starts at once.
- Latency: a block is written with the next frame, so a channel that starts while another
  plays is heard behind what the device holds already (the stream's output latency, one
  block or so) and its own queue (up to FEED_BLOCKS blocks: the whole queue only when the
  device is slower than the feed, never at the start).
- A channel that ends (or is cut short) leaves: its queue is dropped, its channel is zeros
  from the next frame, the others go on. The last to leave stops the stream, which plays out
  what it holds (or drops it, when cut short), and closes it, releasing the device as a single
  output's stream is released between announcements.
- Faults: a write that fails ends the stream for every channel on it; each output playing
  raises AudioUnavailable, its fault `audio:<output>`, and the next announcement opens the
  stream afresh. An output not playing then finds out at its next announcement, or when the
  devices are looked for (`PortAudio.look_for`), as every output does.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from cosyedge.audio.player import Player, PortAudio, close_stream, quiet_stderr
from cosyedge.audio.rtpstream import payloads
from cosyedge.model import Heartbeat

log = logging.getLogger(__name__)

FEED_BLOCKS = 4  # blocks a channel's feed may hold ahead of the device
# PortAudio's channel count of an ALSA device that takes any number (a plugin such as `plug`,
# `route` or `file`): such a device is opened with the highest channel named, a card with its
# own count (a card that takes only that count refuses any other).
ANY_COUNT = 128


@dataclass(eq=False)
class Feed:
    """One channel's blocks, waiting for the writer; `error`: the stream failed."""

    channel: int
    blocks: deque[np.ndarray] = field(default_factory=deque)
    error: Exception | None = None


class SharedDevice:
    """One sound device whose channels are several outputs (thread-safe: each output plays on
    its zone's thread). `channels`: those its outputs name, counted from 1."""

    def __init__(self, device: str | None, channels: Sequence[int], portaudio: PortAudio) -> None:
        self.device = device
        self.highest = max(channels)
        self.portaudio = portaudio
        self.rate = self.block = self.width = 0  # the open stream's
        self.latency = 0.0  # the open stream's output latency, in seconds
        self._gate = threading.Lock()  # opening and closing the stream, one at a time
        self._cond = threading.Condition()  # the feeds, between the outputs and the writer
        self._feeds: dict[int, Feed] = {}
        self._stream = None
        self._error: type[Exception] = Exception  # PortAudio's, once a stream was opened
        self._writer: threading.Thread | None = None
        self._closing = False
        self._broken: Exception | None = None
        self._held = contextlib.ExitStack()  # the stream counted open (PortAudio.stream)

    def join(self, sd, channel: int, sample_rate: int, block_ms: int) -> Feed:
        """A feed for `channel`, the stream opened for it unless open; raises what PortAudio
        raises when the device cannot be opened (ValueError: not there, too few channels)."""
        with self._gate:
            if self._stream is None:
                self._open(sd, sample_rate, block_ms)
            if self._broken is not None:  # failed; closed once its last output leaves
                raise self._broken
            feed = Feed(channel)
            with self._cond:
                self._feeds[channel] = feed
            return feed

    def put(self, feed: Feed, block: np.ndarray) -> None:
        """Queue a block for the writer, waiting while the feed is full; raises the stream's
        error once it failed."""
        with self._cond:
            while len(feed.blocks) >= FEED_BLOCKS and feed.error is None:
                self._cond.wait(0.5)
            if feed.error is not None:
                raise feed.error
            feed.blocks.append(block)
            self._cond.notify_all()

    def drain(self, feed: Feed) -> None:
        """Wait until the writer took the feed's last block; raises the stream's error."""
        with self._cond:
            while feed.blocks and feed.error is None:
                self._cond.wait(0.5)
            if feed.error is not None:
                raise feed.error

    def leave(self, feed: Feed, cut: bool) -> float:
        """The feed ends (its blocks not yet written dropped). The last to leave closes the
        stream: played out, or dropped when `cut`. The seconds until what the feed had
        written is heard, when the stream stays open for others (0 once closed)."""
        with self._gate:
            with self._cond:
                self._feeds.pop(feed.channel, None)
                last = not self._feeds
            if not last:
                return self.latency + self.block / self.rate
            self._close(cut or self._broken is not None)
            return 0.0

    def _open(self, sd, sample_rate: int, block_ms: int) -> None:
        width = self._width(sd)
        self._error = sd.PortAudioError
        with contextlib.ExitStack() as held:
            held.enter_context(self.portaudio.stream())  # no rescan while it is open
            stream = sd.OutputStream(
                samplerate=sample_rate, channels=width, dtype="int16", device=self.device
            )
            try:
                stream.start()
            except sd.PortAudioError:
                close_stream(stream, sd.PortAudioError)
                raise
            self._held = held.pop_all()
        self._stream, self.rate, self.width = stream, sample_rate, width
        self.block = max(1, sample_rate * block_ms // 1000)
        self.latency = float(stream.latency)
        self._closing, self._broken = False, None
        self._writer = threading.Thread(
            target=self._write_all, args=(stream,), name="device-writer", daemon=True
        )
        self._writer.start()

    def _width(self, sd) -> int:
        """The channels the stream is opened with (ValueError: fewer than named)."""
        own = int(sd.query_devices(self.device, "output")["max_output_channels"])
        if own < self.highest:
            raise ValueError(f"{own} output channels, and channel {self.highest} is named")
        return own if own < ANY_COUNT else self.highest

    def _write_all(self, stream) -> None:
        """The writer: a frame of every feed's next block until the stream closes or fails."""
        while (frame := self._next_frame()) is not None:
            try:
                stream.write(frame)
            except self._error as exc:
                self._fail(exc)
                return

    def _next_frame(self) -> np.ndarray | None:
        with self._cond:
            while not self._closing and not any(f.blocks for f in self._feeds.values()):
                self._cond.wait()
            if self._closing:
                return None
            frame = np.zeros((self.block, self.width), dtype=np.int16)
            for feed in self._feeds.values():
                if feed.blocks:
                    frame[:, feed.channel - 1] = feed.blocks.popleft()
            self._cond.notify_all()  # room in the feeds; a drained one's output goes on
            return frame

    def _fail(self, exc: Exception) -> None:
        with self._cond:
            self._broken = exc
            for feed in self._feeds.values():
                feed.error = exc
            self._cond.notify_all()

    def _close(self, drop: bool) -> None:
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        if self._writer is not None:
            self._writer.join()
        if drop:
            with contextlib.suppress(self._error):
                self._stream.abort()  # what the device still holds: cut in now
        close_stream(self._stream, self._error)
        self._held.close()
        self._stream, self._writer, self._broken = None, None, None


class ChannelPlayer(Player):
    """An output on one channel of a shared device: a `Player` (its fault, its backoff, its
    status) whose audio goes to its channel of the device's one stream."""

    def __init__(
        self,
        shared: SharedDevice,
        channel: int,
        block_ms: int,
        heartbeat: Heartbeat,
        output: str,
    ) -> None:
        super().__init__(shared.device, block_ms, heartbeat, output, shared.portaudio)
        self.shared = shared
        self.channel = channel

    def _through(
        self,
        sd,
        sample_rate: int,
        chunks: Iterable[np.ndarray],
        should_stop: Callable[[], bool],
        retrying: bool,
    ) -> tuple[int, float | None, bool]:
        try:
            with quiet_stderr() if retrying else contextlib.nullcontext():
                feed = self.shared.join(sd, self.channel, sample_rate, self.block_ms)
        except (sd.PortAudioError, ValueError) as exc:
            raise self._lost(exc) from None
        try:
            samples, first, stopped = self._feed(feed, sample_rate, chunks, should_stop)
        except sd.PortAudioError as exc:
            self.shared.leave(feed, cut=True)
            raise self._lost(exc) from None
        except BaseException:
            self.shared.leave(feed, cut=True)
            raise
        time.sleep(self.shared.leave(feed, cut=stopped))  # until its last block is heard
        return samples, first, stopped

    def _feed(
        self,
        feed: Feed,
        sample_rate: int,
        chunks: Iterable[np.ndarray],
        should_stop: Callable[[], bool],
    ) -> tuple[int, float | None, bool]:
        """The chunks into the feed block by block, asking `should_stop` before each."""
        shared, tally = self.shared, [0]
        first = None
        blocks = payloads(_counted(chunks, tally), sample_rate, shared.rate, shared.block, _same)
        for block in blocks:
            self.heartbeat.beat()
            if should_stop():
                return tally[0], first, True
            shared.put(feed, np.frombuffer(block, dtype=np.int16))
            first = first if first is not None else time.monotonic()
        shared.drain(feed)
        return tally[0], first, False


def _counted(chunks: Iterable[np.ndarray], tally: list[int]) -> Iterator[np.ndarray]:
    """The chunks, their samples added up in `tally[0]` as they pass."""
    for chunk in chunks:
        tally[0] += len(chunk)
        yield chunk


def _same(pcm: np.ndarray) -> np.ndarray:
    return pcm
