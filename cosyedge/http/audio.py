"""Rendered speech for an HTTP caller: WAV framing, and a pump that keeps the synthesizer free.

The renderer's one synthesis thread also speaks the alerts, so a caller must never hold it:
the pump takes each clause off the rendering as soon as it is made (the whole phrase is
bounded by the request body's size) and the caller's socket is written from there at its own
pace. An alert always comes first: once the announcer is busy the pump closes the rendering at
the next clause, as the cache's background warming does, and the stream ends unfinished.
"""

from __future__ import annotations

import queue
import struct
import threading
from collections.abc import Callable, Iterator

import numpy as np

from cosyedge.speech.render import Rendering

STREAMING = 0xFFFFFFFF  # a WAV size not known when the header is sent, as streaming players take it
_DONE = object()


class Interrupted(Exception):
    """The rendering was closed for an alert, or failed; the text says which."""


def wav_header(sample_rate: int, samples: int | None) -> bytes:
    """A 16-bit mono PCM WAV header; `samples` None while the length is not known yet."""
    data = STREAMING if samples is None else samples * 2
    riff = STREAMING if samples is None else 36 + data
    fmt = struct.pack("<HHIIHH", 1, 1, sample_rate, sample_rate * 2, 2, 16)
    return (
        b"RIFF"
        + struct.pack("<I", riff)
        + b"WAVEfmt "
        + struct.pack("<I", 16)
        + fmt
        + (b"data" + struct.pack("<I", data))
    )


def pcm_bytes(pcm: np.ndarray) -> bytes:
    return np.asarray(pcm, dtype="<i2").tobytes()


class Pump:
    """Takes a rendering's clauses on its own thread; `clauses` yields them to the writer."""

    def __init__(self, rendering: Rendering, give_way: Callable[[], bool]) -> None:
        self.rendering = rendering
        self._give_way = give_way
        self._queue: queue.Queue[object] = queue.Queue()
        self._abandoned = threading.Event()
        self._thread = threading.Thread(target=self._run, name="http-synth", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for pcm in self.rendering.chunks:
                self._queue.put(pcm)
                if self._abandoned.is_set():
                    break
                if self._give_way():
                    self._queue.put(Interrupted("stopped for an alert: ask again"))
                    return
            self._queue.put(_DONE)
        except Exception as exc:  # the renderer's reason (the voice failed) goes to the caller
            self._queue.put(Interrupted(f"synthesis failed: {exc}"))
        finally:
            self.rendering.close()

    def clauses(self) -> Iterator[np.ndarray]:
        """Each clause as it is made; raises Interrupted when the phrase will not be whole."""
        try:
            while (item := self._queue.get()) is not _DONE:
                if isinstance(item, Interrupted):
                    raise item
                assert isinstance(item, np.ndarray)
                yield item
        finally:
            self._abandoned.set()  # the caller went away: stop at the next clause
