"""Speech for callers beside the alerts (the HTTP API's synthesis, the Wyoming server): whose
turn it is, and a pump that keeps the synthesizer free of them.

The renderer's one synthesis thread also speaks the alerts, so a caller must never hold it.
`Turns` lets one caller synthesize at a time, and none while an alert is being said or waits.
The pump takes each clause off the rendering as soon as it is made (the whole phrase is
bounded by the request's size) and the caller is written from there at its own pace. An alert
always comes first: once the announcer is busy the pump closes the rendering at the next
clause, as the cache's background warming does, and the caller's stream ends unfinished.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator

import numpy as np

from cosyedge.speech.render import Rendering

_DONE = object()


def pcm_bytes(pcm: np.ndarray) -> bytes:
    """Samples as a caller takes them: 16-bit little-endian."""
    return np.asarray(pcm, dtype="<i2").tobytes()


class Interrupted(Exception):
    """The rendering was closed for an alert, or failed; the text says which."""


class Turns:
    """One synthesis for callers at a time, and none while `busy` says an alert is being said
    or waits: the caller is told to come back rather than queued behind it."""

    def __init__(self, busy: Callable[[], bool]) -> None:
        self.busy = busy
        self._lock = threading.Lock()

    def take(self) -> bool:
        """The turn, if it is free and no alert is at hand; False without waiting."""
        return not self.busy() and self._lock.acquire(blocking=False)

    def release(self) -> None:
        self._lock.release()


class Pump:
    """Takes a rendering's clauses on its own thread; `clauses` (or `next`) hands them over."""

    def __init__(self, rendering: Rendering, give_way: Callable[[], bool]) -> None:
        self.rendering = rendering
        self._give_way = give_way
        self._queue: queue.Queue[object] = queue.Queue()
        self._abandoned = threading.Event()
        self._thread = threading.Thread(target=self._run, name="caller-synth", daemon=True)
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

    def next(self) -> np.ndarray | None:
        """The next clause once it is made, None after the last; raises Interrupted when the
        phrase will not be whole. Blocks only as long as the synthesis of one clause."""
        item = self._queue.get()
        if item is _DONE:
            self._queue.put(_DONE)  # asked again, the end again
            return None
        if isinstance(item, Interrupted):
            raise item
        assert isinstance(item, np.ndarray)
        return item

    def abandon(self) -> None:
        """The caller went away: stop at the next clause."""
        self._abandoned.set()

    def clauses(self) -> Iterator[np.ndarray]:
        """Each clause as it is made; raises Interrupted when the phrase will not be whole."""
        try:
            while (pcm := self.next()) is not None:
                yield pcm
        finally:
            self.abandon()
