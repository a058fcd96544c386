"""Upgrading cached phrases to the premium voice, in the background, alerts first.

What is upgraded, in this order: the phrases templates declare, then phrases of the live
voice served from the cache at least `premium.after_hits` times, the most served first; none
longer than MAX_CHARS.
Each is rendered by the premium voice's process and put in the cache under the premium
voice's identity (written atomically like every entry); once that entry reads back whole,
the live voice's entry of the phrase is removed. A crash in between leaves both, and the
premium one is served; the next pass removes the other. A phrase the premium voice cannot
say is recorded as failed in the cache's index and not tried again with that pack.

The process is stopped while an alert is rendered or played (Activity's hook), is started
only when the daemon's memory plus what the pack says it needs fits under 90 % of
`memory.ceiling_mb` with room for a live step, and is ended when it no longer fits, when a
pass is done (its memory goes back) and at stop.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosyedge.component import Component, Detail
from cosyedge.observe import Observer
from cosyedge.speech.cache import Clip
from cosyedge.speech.cache.background import Activity
from cosyedge.speech.cache.warm import Phrase
from cosyedge.speech.premium import PremiumVoice
from cosyedge.speech.premium.worker import (
    BACKGROUND_NICE,
    PremiumWorker,
    Tick,
    WorkerFailed,
    WorkerSpec,
)

if TYPE_CHECKING:
    from cosyedge.speech.cache.store import PhraseCache
    from cosyedge.speech.memory import MemoryGuard

log = logging.getLogger(__name__)

# Longer phrases stay with the live voice: the premium voice's memory grows with a clause's
# length, and its pack declares what it needs for clauses of about this size.
MAX_CHARS = 200
MEMORY_SHARE = 0.90  # the daemon, a live step and the premium process stay under this
RENDER_TIMEOUT_S = 1800.0  # one phrase, not counting time stopped for alerts
CRASHES_BEFORE_FAILED = 2  # a phrase during which the process died this often is failed
# Phrases failed in a row, none said since, that make the fault `premium`: one phrase a voice
# cannot say is the phrase's; three, the voice's.
FAILED_IN_ROW = 3
UNWRITABLE_WAIT_PASSES = 10  # a rendering the cache could not keep: passes skipped after it
MAX_RETRY_S = 3600.0  # the longest wait before starting a worker that failed to start again


@dataclass(frozen=True)
class Candidate:
    text: str
    lang: str
    live_key: str
    premium_key: str


@dataclass(frozen=True)
class Progress:
    premium: int = 0  # entries of premium voices in the cache
    pending: int = 0  # phrases to be upgraded
    failed: int = 0  # phrases the premium voice could not say

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def candidates(
    cache: PhraseCache,
    premiums: Mapping[str, PremiumVoice],
    live: Mapping[str, str],
    declared: Sequence[Phrase],
    frequent: bool = True,
) -> list[Candidate]:
    """What should be premium, in upgrade order: declared phrases, then (`frequent`) those
    served often enough. `live` maps each language to its live voice's identity now."""
    from cosyedge.speech.cache import cache_key, normalize_text

    found: dict[str, Candidate] = {}

    def add(text: str, lang: str) -> None:
        if len(normalize_text(text)) > MAX_CHARS:
            return
        key, live_key = premiums[lang].key(text), cache_key(text, live[lang], lang)
        if key not in found and key != live_key:  # a live voice that is the premium one
            found[key] = Candidate(text, lang, live_key, key)

    for phrase in declared:
        if phrase.lang in premiums and phrase.lang in live:
            add(phrase.text, phrase.lang)
    for lang, premium in premiums.items() if frequent else ():
        if lang in live:
            for row in cache.frequent(live[lang], premium.config.after_hits):
                if row.lang == lang:
                    add(row.text, lang)
    return list(found.values())


def progress(
    cache: PhraseCache, premiums: Mapping[str, PremiumVoice], todo: Sequence[Candidate]
) -> Progress:
    counts = cache.voices()
    failed = cache.failed()
    left = [c for c in todo if not cache.contains(c.premium_key)]
    gave_up = sum(c.premium_key in failed for c in left)
    return Progress(
        premium=sum(counts.get(p.identity, 0) for p in premiums.values()),
        pending=len(left) - gave_up,
        failed=gave_up,
    )


def swap_in(cache: PhraseCache, candidate: Candidate, identity: str, clip: Clip) -> bool:
    """Put the premium rendering in the cache and, once it reads back whole, remove the live
    voice's entry of the phrase. False when the cache could not keep it (it says why)."""
    text, lang = candidate.text, candidate.lang
    if not cache.put(candidate.premium_key, clip, voice=identity, lang=lang, text=text):
        return False
    return retire_live(cache, candidate)


def retire_live(cache: PhraseCache, candidate: Candidate) -> bool:
    """Remove the live voice's entry of the phrase if its premium entry reads back whole;
    False when it does not (damaged: the cache reported it, the phrase is tried again)."""
    if cache.get(candidate.premium_key, record=False) is None:
        return False
    cache.replaced(candidate.live_key)
    return True


def spec_for(premium: PremiumVoice, saved_dir: Path | None, nice: int) -> WorkerSpec:
    config = premium.config
    return WorkerSpec(
        premium.lang, config.pack, config.session, saved_dir, premium.pronunciations, nice
    )


def needed_mb(premium: PremiumVoice) -> float:
    """What the pack's manifest says its voice needs resident to speak."""
    from cosyedge.speech.voices.cosypack import CosyPack
    from cosyedge.speech.voices.cosyvoice import memory_needed_mb

    return memory_needed_mb(CosyPack.described(premium.config.pack))


class PremiumUpkeep(Component, Observer):
    """The daemon's thread that upgrades the cache, pass after pass."""

    def __init__(
        self,
        cache: PhraseCache,
        premiums: Mapping[str, PremiumVoice],
        live: Callable[[], Mapping[str, str]],
        declared: Sequence[Phrase],
        activity: Activity,
        memory: MemoryGuard | None = None,
        saved_dir: Path | None = None,
        settle_s: float = 1.0,
        interval_s: float = 60.0,
        observer: Observer | None = None,
        stop_wait_s: float = 10.0,
        nice: int = BACKGROUND_NICE,
    ) -> None:
        """`observer` is told when the counts the status shows changed; `stop_wait_s`: how
        long `stop` waits for the thread to end; `nice`: the CPU priority of the thread and
        its worker (the lowest by default: alerts and everything else on the gateway first).
        Told `busy` (observe.py) as an alert comes, it stops its worker at once."""
        self.cache = cache
        self.premiums = dict(premiums)
        self.live = live
        self.declared = declared
        self.activity = activity
        self.memory = memory
        self.saved_dir = saved_dir
        self.settle_s = settle_s
        self.interval_s = interval_s
        self.stop_wait_s = stop_wait_s
        self.nice = nice
        self.observer = observer or Observer()
        self._progress = Progress()
        self.upgraded = 0  # since start
        self._stop = threading.Event()
        self._worker: PremiumWorker | None = None
        self._cannot_run: dict[str, str] = {}  # lang -> why its pack cannot render here
        self._crashes: dict[str, int] = {}
        self._start_failures: dict[str, int] = {}  # lang -> failed starts in a row
        self._retry_at: dict[str, float] = {}  # lang -> when to try starting it again
        # lang -> why its voice does not start (the fault `premium`), replaced whole: read on
        # the monitor's thread. `_told`: the fault is shown, and is cleared once none is left.
        self._failing: dict[str, str] = {}
        self._told = False
        self._failed_in_row: dict[str, int] = {}  # lang -> phrases failed since one was said
        self._write_retry_at = 0.0  # the cache could not keep a rendering: wait till then
        self._postponed: str | None = None  # why rendering waits, said once
        self._thread = threading.Thread(target=self._run, name="premium-upkeep", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._end_worker()
        if self._thread.ident is not None:
            self._thread.join(self.stop_wait_s)

    def state(self, detail: Detail) -> Mapping[str, Any]:
        return {"premium": self.progress.as_dict()}

    def tick(self, now: float) -> Mapping[str, str | None]:
        """The fault `premium` while a premium voice does not start (a pack damaged since
        the start, say), cleared once each does; nothing before one failed, so the start's
        own `premium` fault (a pack it could not use at all) stands."""
        failing = "; ".join(self._failing.values()) or None
        if failing is None and not self._told:
            return {}
        self._told = failing is not None
        return {"premium": failing}

    @property
    def progress(self) -> Progress:
        return self._progress

    @progress.setter
    def progress(self, now: Progress) -> None:
        changed, self._progress = now != self._progress, now
        if changed:
            self.observer.changed()

    def use(self, premiums: Mapping[str, PremiumVoice]) -> None:
        """Another site lexicon was loaded: the premium voices' identities changed with it."""
        self.premiums = dict(premiums)
        self._end_worker()

    def busy(self) -> None:
        """An alert comes: the worker stops where it is (it is resumed for its next phrase)."""
        worker = self._worker
        if worker is not None:
            worker.pause()

    def _run(self) -> None:
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), self.nice)
        while not self._stop.is_set():
            try:
                self._pass()
            except Exception:
                log.exception("premium upgrade pass failed; trying again later")
            self._end_worker()  # between passes its memory goes back
            self._stop.wait(self.interval_s)

    def _pass(self) -> None:
        todo = candidates(self.cache, self.premiums, self.live(), self.declared)
        self.progress = progress(self.cache, self.premiums, todo)
        if not self.cache.writable and time.monotonic() < self._write_retry_at:
            return  # a full or read-only disk: no rendering that could not be kept
        failed = self.cache.failed()
        for candidate in todo:
            if self._stop.is_set():
                return
            if self.cache.contains(candidate.premium_key):
                # Beside the live entry only after a stop or crash between the swap's steps.
                if self.cache.contains(candidate.live_key):
                    retire_live(self.cache, candidate)
                continue
            if candidate.premium_key in failed or candidate.lang in self._cannot_run:
                continue
            if not self._upgrade(candidate, todo):
                return
            self.progress = progress(self.cache, self.premiums, todo)  # also a phrase failed
        self.progress = progress(self.cache, self.premiums, todo)

    def _upgrade(self, candidate: Candidate, todo: Sequence[Candidate]) -> bool:
        """Render one phrase; False when the pass should end here (stopping, no memory, the
        cache cannot be written). Once it is swapped in, the counts the status shows (of
        `todo`) move before `upgraded` does, so whoever sees one moved sees both."""
        premium = self.premiums[candidate.lang]
        if not self.activity.wait_quiet(self.settle_s, self._stop):
            return False
        worker = self._worker_for(premium)
        if worker is None:
            return not self._stop.is_set() and self._postponed is None
        started = time.monotonic()
        try:
            rendered = worker.synthesize(candidate.text, self._tick, RENDER_TIMEOUT_S)
        except WorkerFailed as exc:
            return self._failed(candidate, exc)
        if rendered.identity != self.premiums[candidate.lang].identity:
            # The site lexicon was reloaded, or the pack's files changed under the worker:
            # this rendering is not what the phrase is now cached under. The next pass
            # starts a worker afresh.
            log.info("premium voice %s changed; rendering again with the new one", premium.name)
            self._end_worker()
            return False
        clip = Clip(rendered.sample_rate, rendered.pcm)
        if not swap_in(self.cache, candidate, premium.identity, clip):
            # The cache said why (once); try again after a while rather than every pass.
            self._write_retry_at = time.monotonic() + UNWRITABLE_WAIT_PASSES * self.interval_s
            return False
        self.progress = progress(self.cache, self.premiums, todo)
        self._failed_in_row.pop(candidate.lang, None)  # the voice works: its fault is over
        self._failing = {k: v for k, v in self._failing.items() if k != candidate.lang}
        self.upgraded += 1
        log.info(
            "premium: %r now said by %s (%.1f s of audio rendered in %.1f s)",
            candidate.text,
            premium.name,
            len(rendered.pcm) / rendered.sample_rate,
            time.monotonic() - started,
        )
        return True

    def _failed(self, candidate: Candidate, exc: WorkerFailed) -> bool:
        if self._stop.is_set() or self._postponed is not None:
            return False  # given up on by us: not the phrase's fault
        if not exc.phrase:
            crashes = self._crashes.get(candidate.premium_key, 0) + 1
            self._crashes[candidate.premium_key] = crashes
            self._end_worker()
            if crashes < CRASHES_BEFORE_FAILED:
                log.warning("premium voice ended saying %r (%s); trying again", candidate.text, exc)
                return True
        log.warning("premium voice cannot say %r: %s; the live one keeps it", candidate.text, exc)
        self.cache.mark_failed(candidate.premium_key, str(exc))
        count = self._failed_in_row[candidate.lang] = self._failed_in_row.get(candidate.lang, 0) + 1
        if count >= FAILED_IN_ROW:  # not the phrases: the voice (a graph swapped with its hash)
            why = f"voices.{candidate.lang}.premium.pack: {count} phrases in a row failed, the "
            why += f"last: {exc}; its phrases stay with the live voice"
            self._failing = {**self._failing, candidate.lang: why}
        return True

    def _worker_for(self, premium: PremiumVoice) -> PremiumWorker | None:
        """The running worker for this voice, started if need be; None when it cannot be."""
        worker = self._worker
        if worker is not None and worker.alive and worker.spec.lang == premium.lang:
            return worker
        self._end_worker()
        if time.monotonic() < self._retry_at.get(premium.lang, 0.0):
            return None
        why = premium.cannot_run()
        if why is not None and premium.has_graphs():  # damaged since the start: a fault
            self._start_failed(premium, WorkerFailed(why))
            return None
        if why is not None:  # its manifest alone, by design: it serves imported phrases
            self._cannot_run[premium.lang] = why
            log.warning(
                "premium voice %s cannot render on this machine (%s): its phrases are served "
                "when imported (cosyedge cache import), nothing is rendered here",
                premium.name,
                why,
            )
            return None
        if not self._fits(needed_mb(premium)):
            return None
        worker = self._worker = PremiumWorker(spec_for(premium, self.saved_dir, self.nice))
        try:
            worker.start(self._tick)
        except WorkerFailed as exc:
            self._end_worker()
            if not self._stop.is_set() and self._postponed is None:
                self._start_failed(premium, exc)
            return None
        self._start_failures.pop(premium.lang, None)
        if self.activity.is_busy():
            worker.pause()  # an alert came while it loaded
        return worker

    def _start_failed(self, premium: PremiumVoice, exc: WorkerFailed) -> None:
        """Try again later, waiting twice as long after each failure in a row (at most
        MAX_RETRY_S): killed while loading (the OOM killer) is worth another try, a broken
        pack is not worth one a minute."""
        failures = self._start_failures.get(premium.lang, 0) + 1
        self._start_failures[premium.lang] = failures
        wait_s = min(self.interval_s * 2 ** (failures - 1), MAX_RETRY_S)
        self._retry_at[premium.lang] = time.monotonic() + wait_s
        why = f"voices.{premium.lang}.premium.pack: {exc}; its phrases stay with the live voice"
        self._failing = {**self._failing, premium.lang: why}
        log.error(
            "premium voice %s: %s; trying again in %.0f s, phrases stay with the live voice",
            premium.name,
            exc,
            wait_s,
        )

    def _tick(self) -> bool:
        """While the worker computes: go on (True), or give up (stopping, memory short)."""
        if self._stop.is_set():
            return False
        worker = self._worker
        if worker is None:
            return False
        if not self._fits(worker.rss_mb()):
            return False
        if worker.paused:
            self.activity.when_quiet(self.settle_s, worker.resume)
        return True

    def _fits(self, worker_mb: float) -> bool:
        """Whether the daemon, a live voice's step and the worker fit under MEMORY_SHARE of the
        ceiling; says once when they do not, and once when they do again."""
        memory = self.memory
        if memory is None:
            return True
        total = memory.rss() + memory.step_mb + worker_mb
        limit = MEMORY_SHARE * memory.ceiling_mb
        if total <= limit:
            if self._postponed is not None:
                log.info("premium rendering resumes: memory allows it again")
                self._postponed = None
            return True
        if self._postponed is None:
            self._postponed = f"needs {total:.0f} MB"
            log.warning(
                "premium rendering postponed: the daemon, a live step and the premium voice "
                "need about %.0f MB, more than %.0f %% of memory.ceiling_mb %.0f; "
                "raise the ceiling to upgrade phrases on this gateway",
                total,
                100 * MEMORY_SHARE,
                memory.ceiling_mb,
            )
        return False

    def _end_worker(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.close()


def render_declared(
    cache: PhraseCache,
    premium: PremiumVoice,
    todo: Sequence[Candidate],
    saved_dir: Path | None,
    each: Callable[[Candidate, str], None],
    tick: Tick = lambda: True,
) -> None:
    """`cosyedge warm --premium`: every candidate rendered in turn by one worker, on a machine
    that can run the pack; `each` is told each candidate's outcome (new, cached, failed).
    The worker runs at the command's own priority: it is what the engineer waits for (`nice`
    the command to put it behind the rest)."""
    worker = PremiumWorker(spec_for(premium, saved_dir, os.getpriority(os.PRIO_PROCESS, 0)))
    worker.start(tick)
    try:
        for candidate in todo:
            each(candidate, _render_one(cache, worker, premium, candidate, tick))
    finally:
        worker.close()


def _render_one(
    cache: PhraseCache,
    worker: PremiumWorker,
    premium: PremiumVoice,
    candidate: Candidate,
    tick: Tick,
) -> str:
    if cache.contains(candidate.premium_key):
        return "cached"
    try:
        rendered = worker.synthesize(candidate.text, tick, RENDER_TIMEOUT_S)
    except WorkerFailed as exc:
        log.error("premium voice cannot say %r: %s", candidate.text, exc)
        if not worker.alive:
            worker.start(tick)
        return "failed"
    clip = Clip(rendered.sample_rate, rendered.pcm)
    return "new" if swap_in(cache, candidate, premium.identity, clip) else "failed"
