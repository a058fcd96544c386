"""The daemon's cache upkeep: warm declared phrases and evict, always yielding to alerts.

One thread at the lowest CPU priority (nice 19; with one intra-op thread onnxruntime runs on
the calling thread, so synthesis inherits it). It waits until the announcer has been idle
for a moment, renders one phrase at a time and drops a phrase half-way when an alert comes
(checked after every clause), then tries it again later. Eviction runs here too, never
between a lookup and the first audio.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cosyedge.component import Component, Detail
from cosyedge.observe import Observer
from cosyedge.speech.cache.warm import Phrase, WarmSummary, warm_one

if TYPE_CHECKING:
    from cosyedge.speech.cache.store import PhraseCache
    from cosyedge.speech.render import Renderer

log = logging.getLogger("cosyedge.speech.cache")


class Activity:
    """Held by the announcer while it renders or plays; background work waits for quiet."""

    def __init__(self, observer: Observer | None = None) -> None:
        """`observer` is told `busy` (under the lock, so never at the same time as
        `when_quiet`'s action) as the first holder comes: background work stops at once. It
        may not block; what it raises is logged, and the holder goes on."""
        self._cond = threading.Condition()
        self._busy = 0
        self._last_busy = 0.0
        self.observer = observer or Observer()

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        with self._cond:
            self._busy += 1
            if self._busy == 1:
                try:
                    self.observer.busy()
                except Exception:  # an alert never fails for background work's sake
                    log.exception("stopping background work for an alert failed")
        try:
            yield
        finally:
            with self._cond:
                self._busy -= 1
                self._last_busy = time.monotonic()
                self._cond.notify_all()

    def is_busy(self) -> bool:
        return self._busy > 0

    def when_quiet(self, settle_s: float, action: Callable[[], None]) -> bool:
        """Run `action` if nothing has been busy for `settle_s`, under the lock: no holder can
        come in between the check and the action. True when it ran."""
        with self._cond:
            if self._busy or time.monotonic() < self._last_busy + settle_s:
                return False
            action()
            return True

    def wait_quiet(self, settle_s: float, stop: threading.Event) -> bool:
        """True once nothing has been busy for `settle_s`; False if `stop` is set first."""
        with self._cond:
            while not stop.is_set():
                if self._busy:
                    self._cond.wait(0.25)
                    continue
                left = self._last_busy + settle_s - time.monotonic()
                if left <= 0:
                    return True
                self._cond.wait(min(left, 0.25))
        return False


class CacheUpkeep(Component):
    """The cache's upkeep thread, and the cache's part of the daemon's snapshot."""

    def __init__(
        self,
        cache: PhraseCache,
        renderer: Renderer,
        phrases: Sequence[Phrase],
        activity: Activity,
        settle_s: float = 1.0,
        interval_s: float = 60.0,
        stop_wait_s: float = 10.0,
    ) -> None:
        """`stop_wait_s`: how long `stop` waits for the thread to end."""
        self.cache = cache
        self.renderer = renderer
        self.phrases = phrases
        self.activity = activity
        self.settle_s = settle_s
        self.interval_s = interval_s
        self.stop_wait_s = stop_wait_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cache-upkeep", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.cache.upkeep_wanted.set()
        if self._thread.ident is not None:
            self._thread.join(self.stop_wait_s)

    def state(self, detail: Detail) -> Mapping[str, Any]:
        """The evictions since start; with `detail.cache`, the totals of its index (None each
        while it cannot be read)."""
        totals = None
        try:
            totals = self.cache.stats() if detail.cache else None
        except Exception:  # the status and the metrics go out all the same
            log.exception("cannot read the phrase cache's totals")
        return {
            "cache_entries": totals.entries if totals else None,
            "cache_bytes": totals.bytes if totals else None,
            "cache_lookups": totals.lookups if totals else None,
            "cache_hits": totals.hits if totals else None,
            "cache_evictions": self.cache.evicted,
        }

    def _run(self) -> None:
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        try:
            self.cache.reconcile()
            keys = [key for p in self.phrases for key in self.renderer.keys(p.text, p.lang)]
            pinned = self.cache.set_pins(keys)
            declared = len(self.phrases)
            log.info("cache: %d declared phrases, %d entries of them cached", declared, pinned)
            self._tell_unused()
            if self.phrases:
                self._warm()
        except Exception:
            log.exception("cache reconcile or warm failed; eviction goes on")
        while not self._stop.is_set():
            self.cache.upkeep_wanted.wait(self.interval_s)
            if not self.activity.wait_quiet(self.settle_s, self._stop):
                break
            try:
                self.cache.evict()
            except Exception:
                log.exception("cache eviction failed")

    def _tell_unused(self) -> None:
        """Say once, at start, how many entries no configured voice can be served from (a
        model, its settings or a premium pack changed or taken out): they stay until evicted."""
        renderer = self.renderer
        known = {voice.identity for voice in renderer.voices.values()}
        known |= set(renderer.premium.values())
        unused = sum(n for voice, n in self.cache.voices().items() if voice not in known)
        if unused:
            log.info(
                "cache: %d entries are of voices not configured now (another model, other "
                "settings, a premium pack taken out); never served, evicted as space is needed",
                unused,
            )

    def _warm(self) -> None:
        pending = deque(self.phrases)
        summary = WarmSummary(len(pending))
        pauses = 0

        def interrupted() -> bool:
            return self.activity.is_busy() or self._stop.is_set()

        while pending:
            if not self.activity.wait_quiet(self.settle_s, self._stop):
                return
            try:
                outcome = warm_one(self.renderer, pending[0], interrupted)
            except Exception as exc:
                log.warning("cannot warm %r: %s", pending[0].text, exc)
                outcome = "failed"
            if outcome == "interrupted":
                pauses += 1
                continue
            pending.popleft()
            summary.add(outcome)
            if self.cache.upkeep_wanted.is_set():
                self.cache.evict()
        log.info("background warm: %s; paused %d times for alerts", summary.line(), pauses)
