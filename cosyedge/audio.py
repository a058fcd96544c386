"""The player: PCM blocks to the sound device through PortAudio, one stream per announcement.

Opening a stream per announcement releases the device between alerts (no "device busy" for
others) and means an unplugged device is simply tried again at the next alert.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

log = logging.getLogger(__name__)


@dataclass
class Playback:
    played: bool
    samples: int
    first_audio: float | None  # time.monotonic() of the first block handed to the device
    stopped: bool = False  # cut short because should_stop() said so
    last_audio: float | None = None  # time.monotonic() when the last block was handed over


class Player:
    def __init__(self, device: str | None, block_ms: int) -> None:
        # Initialising PortAudio points fd 2 at /dev/null for a moment (to hide ALSA's chatter),
        # which swallows other threads' log lines: do it now, before there are other threads.
        import sounddevice  # noqa: F401

        self.device = device
        self.block_ms = block_ms
        self._available: bool | None = None

    def play(
        self,
        sample_rate: int,
        chunks: Iterable[np.ndarray],
        should_stop: Callable[[], bool] = lambda: False,
    ) -> Playback:
        """Play to the end, or until should_stop() (asked between blocks) says to give way."""
        import sounddevice as sd

        try:
            stream = sd.OutputStream(
                samplerate=sample_rate, channels=1, dtype="int16", device=self.device
            )
            stream.start()
        except (sd.PortAudioError, ValueError) as exc:
            self._unavailable(exc)
            samples = sum(len(c) for c in chunks)  # still render, so the cache fills
            return Playback(False, samples, None)
        if self._available is False:
            log.info("audio output device is back")
        self._available = True
        block = max(1, sample_rate * self.block_ms // 1000)
        samples, first, stopped = 0, None, False
        with stream:
            for chunk in chunks:
                for start in range(0, len(chunk), block):
                    if should_stop():
                        stopped = True
                        stream.abort()  # drop what the device still buffers: cut in now
                        break
                    piece = chunk[start : start + block]
                    stream.write(piece)
                    if first is None:
                        first = time.monotonic()
                    samples += len(piece)
                if stopped:
                    break
        return Playback(True, samples, first, stopped, time.monotonic())

    def _unavailable(self, exc: Exception) -> None:
        if self._available is not False:
            log.error(
                "no audio output device (%s): announcements are rendered and cached "
                "but not played until a device appears",
                exc,
            )
        self._available = False
