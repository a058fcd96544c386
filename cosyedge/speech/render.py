"""Announcement text → PCM: from the phrase cache when it can, else synthesized clause by clause.

Synthesis runs ahead of playback: one long-lived synthesis thread per renderer takes each
phrase as soon as it is known and feeds a bounded queue of clauses, so clause two is
synthesized while clause one plays. Closing a rendering (or dropping its iterator) stops its
synthesis at the next clause boundary; only a phrase synthesized to its end is cached.

One thread, not one per phrase: at most one inference runs at a time (the memory guard
budgets for one step), and onnxruntime's thread-local state is set up once, not on every
alert, when memory may be short and glibc aborts the process if that allocation fails.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import traceback
import weakref
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FuturesTimeout
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from cosyedge.observe import Observer
from cosyedge.speech.cache import Clip, PhraseCache, cache_key, normalize_text
from cosyedge.speech.memory import is_out_of_memory
from cosyedge.speech.text import sayable
from cosyedge.speech.voices import Voice

log = logging.getLogger(__name__)
T = TypeVar("T")

# Clauses synthesized ahead of playback; bounds memory if the player stalls.
QUEUE_CLAUSES = 4
# How long a phrase being synthesized for one zone is waited for by another that asks for it,
# to be read from the cache once whole, before that zone has it synthesized on its own.
SHARED_WAIT_S = 10.0
_POLL_S = 0.05


@dataclass
class Rendering:
    """One phrase being rendered: its rate, where its audio comes from, and the audio clause
    by clause as it is ready."""

    sample_rate: int
    source: str  # "cache" or "synth"
    chunks: Iterator[np.ndarray]
    _job: _Job | None = field(default=None, repr=False)

    def close(self) -> None:
        """Stop synthesizing (at the next clause boundary) and drop what was not played."""
        close = getattr(self.chunks, "close", None)
        if close is not None:
            close()
        if self._job is not None:
            self._job.cancel.set()

    def wait_stopped(self, timeout: float) -> bool:
        """True once no synthesis for this rendering is running or waiting any more."""
        return self._job is None or self._job.finished.wait(timeout)


class SynthesisFailed(Exception):
    """A voice raised while synthesizing a phrase (its model, its engine, its front end): the
    voice is broken, not the text. An allocation failure is raised as itself instead, for the
    memory guard."""


JobEnd = Callable[[str, "BaseException | None"], None]  # (lang, its error or None: whole)


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error


_END = object()


class _Job:
    """One phrase: run by the synthesis thread, read clause by clause by the player's side."""

    def __init__(
        self,
        voice: Voice,
        text: str,
        lang: str,
        cache: PhraseCache | None,
        key: str,
        outcome: JobEnd,
        observer: Observer,
    ) -> None:
        self.voice, self.text, self.lang, self.cache, self.key = voice, text, lang, cache, key
        self.outcome = outcome
        self.observer = observer  # told the time each clause took
        self.queue: queue.Queue[object] = queue.Queue(maxsize=QUEUE_CLAUSES)
        self.cancel = threading.Event()
        self.finished = threading.Event()

    def _put(self, item: object) -> bool:
        while not self.cancel.is_set():
            try:
                self.queue.put(item, timeout=_POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def run(self) -> None:
        """On the synthesis thread. Checks for cancellation before every clause."""
        if self.cancel.is_set():
            self.finished.set()  # closed before its turn: nothing to do
            return
        parts = []
        clauses = self.voice.synthesize(self.text)
        try:
            while not self.cancel.is_set():
                started = time.perf_counter()
                try:
                    pcm = next(clauses)
                except StopIteration:
                    self.outcome(self.lang, None)
                    if parts and self.cache is not None:
                        self._store(np.concatenate(parts))
                    self._put(_END)
                    return
                computing_s = time.perf_counter() - started
                self.observer.synthesized(self.lang, computing_s, len(pcm) / self.voice.sample_rate)
                parts.append(pcm)
                self._put(pcm)
        except Exception as exc:
            # Raised again in the consumer, where it is reported. Its frames would keep the
            # voice's session alive, and so the memory an out-of-memory handler wants back.
            traceback.clear_frames(exc.__traceback__)
            if not is_out_of_memory(exc):
                from cosyedge.model import error_text  # see Renderer._outcome

                self.outcome(self.lang, exc)
                name = getattr(self.voice, "name", self.lang)
                exc = SynthesisFailed(f"voice {name} failed: {error_text(exc)}")
            self._put(_Failed(exc))
        finally:
            clauses.close()
            self.finished.set()

    def _store(self, pcm: np.ndarray) -> None:
        # Only a phrase synthesized to its end is stored: a cut-off one would lie later.
        # The cache reports its own write failures; speaking goes on without it.
        clip = Clip(self.voice.sample_rate, pcm)
        text = normalize_text(self.text)
        assert self.cache is not None
        self.cache.put(self.key, clip, voice=self.voice.identity, lang=self.lang, text=text)

    def chunks(self, worker: threading.Thread) -> Iterator[np.ndarray]:
        """The clauses as they come; a dropped iterator cancels the job like a closed one."""
        chunks = self._chunks(worker)
        weakref.finalize(chunks, self.cancel.set)
        return chunks

    def _chunks(self, worker: threading.Thread) -> Iterator[np.ndarray]:
        try:
            while True:
                try:
                    item = self.queue.get(timeout=_POLL_S * 10)
                except queue.Empty:
                    ended = self.finished.is_set() or not worker.is_alive()
                    if not ended or not self.queue.empty():
                        continue
                    raise RuntimeError("synthesis ended without finishing the phrase") from None
                if item is _END:
                    return
                if isinstance(item, _Failed):
                    raise item.error
                assert isinstance(item, np.ndarray)
                yield item
        finally:
            self.cancel.set()


class Renderer:
    """Holds one voice per language, the phrase cache they share and the synthesis thread."""

    def __init__(
        self,
        voices: Mapping[str, Voice],
        cache: PhraseCache,
        premium: Mapping[str, str] = {},
        observer: Observer | None = None,
    ) -> None:
        """`premium`: lang → identity of its premium voice, whose renderings are looked up
        first. `observer` is told the time each clause synthesized took."""
        self.voices = dict(voices)
        self.cache = cache
        self._jobs: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._pending: weakref.WeakSet[_Job] = weakref.WeakSet()
        self._worker = threading.Thread(target=self._synthesize_forever, name="synth", daemon=True)
        self._lock = threading.Lock()
        self._failing: dict[str, str] = {}  # lang -> why its voice's last synthesis failed
        self.observer = observer or Observer()
        self.premium = dict(premium)

    @property
    def trouble(self) -> str | None:
        """The voices whose last synthesis raised, with the reason; None when every voice
        finished its last phrase. A voice is trusted again once it synthesizes one whole."""
        with self._lock:
            failing = sorted(self._failing.items())
        return "; ".join(f"{lang}: {why}" for lang, why in failing) or None

    def failed(self, lang: str, error: BaseException) -> None:
        """`lang`'s voice failed a phrase said outside the renderer (at start): it counts in
        `trouble` as any failure does, until the voice synthesizes a phrase whole."""
        self._outcome(lang, error)

    def _outcome(self, lang: str, error: BaseException | None) -> None:
        with self._lock:
            if error is None:
                self._failing.pop(lang, None)
            else:
                # Imported on a failure: a phrase said from the cache (`cosyedge say`) needs
                # none of the model's nouns, whose dataclasses take milliseconds to make.
                from cosyedge.model import error_text

                self._failing[lang] = f"cannot synthesize ({error_text(error)})"

    def _synthesize_forever(self) -> None:
        while (task := self._jobs.get()) is not None:
            task()

    def _submit(self, task: Callable[[], None]) -> None:
        with self._lock:
            if self._worker.ident is None:
                self._worker.start()
        self._jobs.put(task)

    def beside(self, task: Callable[[], T], timeout: float) -> T:
        """`task`'s result, run on the synthesis thread between phrases: a voice's front end
        (grapheme to phoneme, espeak-ng) is not made to be used from two threads at once.
        TimeoutError when it has not run within `timeout` s (then it never runs)."""
        future: Future[T] = Future()

        def run() -> None:
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(task())
                except Exception as exc:  # the caller's to handle, on its own thread
                    future.set_exception(exc)

        self._submit(run)
        try:
            return future.result(timeout)
        except FuturesTimeout:
            future.cancel()
            raise TimeoutError(f"the synthesizer was busy for {timeout:g} s") from None

    def start(self) -> None:
        """Start the synthesis thread and have each voice speak once on it (not cached), so its
        onnxruntime state is set up at start-up rather than at an alert, when memory may be
        short. Renderers not started start on their first synthesis."""
        for lang, voice in self.voices.items():
            done = threading.Event()

            def warm(voice: Voice = voice, lang: str = lang, done: threading.Event = done) -> None:
                try:
                    for _ in voice.synthesize("Ready."):
                        pass
                except Exception as exc:
                    log.warning("warming the synthesis thread for %s failed: %s", lang, exc)
                finally:
                    done.set()

            self._submit(warm)
            done.wait()

    def stop(self, timeout: float) -> bool:
        """Stop all synthesis and wait for it (at most `timeout` s): an inference still running
        when the interpreter exits makes onnxruntime abort."""
        for job in list(self._pending):
            job.cancel.set()
        if not self._worker.is_alive():
            return True
        self._jobs.put(None)
        self._worker.join(timeout)
        return not self._worker.is_alive()

    def use_premium(self, premium: Mapping[str, str]) -> None:
        """Look up these premium voices' renderings first from now on (a reload changed the
        site lexicon, and with it their identities)."""
        self.premium = dict(premium)

    def voice_for(self, lang: str) -> Voice:
        voice = self.voices.get(lang)
        if voice is None:
            raise LookupError(f"no voice configured for language {lang!r}")
        return voice

    def key(self, text: str, lang: str) -> str:
        return cache_key(text, self.voice_for(lang).identity, lang)

    def keys(self, text: str, lang: str) -> list[str]:
        """Every key the phrase may be cached under, in the order they are looked up: the
        premium voice's rendering, then the live voice's."""
        premium = self.premium.get(lang)
        live = self.key(text, lang)
        return [cache_key(text, premium, lang), live] if premium else [live]

    def render(self, text: str, lang: str = "en", record: bool = True) -> Rendering:
        """`record=False` (pre-warming) leaves the cache's hit statistics alone; a lone
        surrogate (no character) is not said."""
        text = sayable(text)
        found = self.cached(text, lang, record)
        if found is None and self._being_made(text, lang, SHARED_WAIT_S):
            found = self.cached(text, lang, record)  # made once, for every zone that says it
        return found or self._synthesize(text, lang)

    def _being_made(self, text: str, lang: str, timeout: float) -> bool:
        """Whether a synthesis of the phrase for the cache was under way, and ended (whole
        or not) within `timeout` s."""
        key = self.key(text, lang)
        jobs = [j for j in list(self._pending) if j.key == key and j.cache is not None]
        running = [j for j in jobs if not j.finished.is_set() and not j.cancel.is_set()]
        return bool(running) and running[0].finished.wait(timeout)

    def synthesize(self, text: str, lang: str = "en") -> Rendering:
        """Synthesized on the synthesis thread and not stored: for phrases held elsewhere."""
        return self._synthesize(text, lang, store=False)

    def cached(self, text: str, lang: str = "en", record: bool = True) -> Rendering | None:
        """The phrase from the cache, or None: never synthesizes."""
        clip = self.cache.get_any(self.keys(text, lang), record)
        if clip is None:
            return None
        return Rendering(clip.sample_rate, "cache", iter([clip.pcm]))

    def _synthesize(self, text: str, lang: str, store: bool = True) -> Rendering:
        voice = self.voice_for(lang)
        cache = self.cache if store else None
        job = _Job(voice, text, lang, cache, self.key(text, lang), self._outcome, self.observer)
        self._pending.add(job)
        self._submit(job.run)  # synthesis starts now, while the caller opens the sound device
        return Rendering(voice.sample_rate, "synth", job.chunks(self._worker), job)
