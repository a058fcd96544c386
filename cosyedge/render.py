"""Announcement text → PCM: from the phrase cache when it can, else synthesized clause by clause.

Synthesis runs ahead of playback: a producer thread, started as soon as the phrase is known,
feeds a bounded queue of clauses, so clause two is synthesized while clause one plays. Closing a
rendering (or dropping its iterator) stops the producer at the next clause boundary; only a
phrase synthesized to its end is cached.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import traceback
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from cosyedge.cache import Clip, PhraseCache, cache_key, normalize_text
from cosyedge.voices import Voice

log = logging.getLogger(__name__)

# Clauses synthesized ahead of playback; bounds memory if the player stalls.
QUEUE_CLAUSES = 4
_POLL_S = 0.05


@dataclass
class Rendering:
    sample_rate: int
    source: str  # "cache" or "synth"
    chunks: Iterator[np.ndarray]
    _producer: _Producer | None = field(default=None, repr=False)

    def close(self) -> None:
        """Stop synthesizing (at the next clause boundary) and drop what was not played."""
        close = getattr(self.chunks, "close", None)
        if close is not None:
            close()
        if self._producer is not None:
            self._producer.cancel.set()

    def wait_stopped(self, timeout: float) -> bool:
        """True once no synthesis for this rendering is running any more."""
        if self._producer is None:
            return True
        self._producer.thread.join(timeout)
        return not self._producer.thread.is_alive()


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error


_END = object()


class _Producer:
    """Runs `voice.synthesize` in its own thread; puts clauses, then _END or _Failed."""

    def __init__(self, voice: Voice, text: str, lang: str, cache: PhraseCache, key: str) -> None:
        self.voice, self.text, self.lang, self.cache, self.key = voice, text, lang, cache, key
        self.queue: queue.Queue[object] = queue.Queue(maxsize=QUEUE_CLAUSES)
        self.cancel = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"synth-{voice.name}", daemon=True)

    def _put(self, item: object) -> bool:
        while not self.cancel.is_set():
            try:
                self.queue.put(item, timeout=_POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def _run(self) -> None:
        parts = []
        clauses = self.voice.synthesize(self.text)
        try:
            for pcm in clauses:
                parts.append(pcm)
                if not self._put(pcm):
                    return
            if parts and not self.cancel.is_set():
                self._store(np.concatenate(parts))
            self._put(_END)
        except Exception as exc:
            # Raised again in the consumer, where it is reported. Its frames would keep the
            # voice's session alive, and so the memory an out-of-memory handler wants back.
            traceback.clear_frames(exc.__traceback__)
            self._put(_Failed(exc))
        finally:
            clauses.close()

    def _store(self, pcm: np.ndarray) -> None:
        # Only a phrase synthesized to its end is stored: a cut-off one would lie later.
        # The cache reports its own write failures; speaking goes on without it.
        clip = Clip(self.voice.sample_rate, pcm)
        text = normalize_text(self.text)
        self.cache.put(self.key, clip, voice=self.voice.identity, lang=self.lang, text=text)

    def start(self) -> Iterator[np.ndarray]:
        """Start synthesizing now (while the caller opens the sound device) and return the
        clauses; a dropped iterator stops the producer like a closed one."""
        self.thread.start()
        chunks = self._chunks()
        weakref.finalize(chunks, self.cancel.set)
        return chunks

    def _chunks(self) -> Iterator[np.ndarray]:
        try:
            while True:
                try:
                    item = self.queue.get(timeout=_POLL_S * 10)
                except queue.Empty:
                    if self.thread.is_alive() or not self.queue.empty():
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
    """Holds one voice per language and the phrase cache they share."""

    def __init__(self, voices: Mapping[str, Voice], cache: PhraseCache) -> None:
        self.voices = dict(voices)
        self.cache = cache
        self._producers: weakref.WeakSet[_Producer] = weakref.WeakSet()

    def stop(self, timeout: float) -> bool:
        """Stop every synthesis still running and wait for it (at most `timeout` s in all): an
        inference still running when the interpreter exits makes onnxruntime abort."""
        deadline = time.monotonic() + timeout
        producers = list(self._producers)
        for producer in producers:
            producer.cancel.set()
        for producer in producers:
            if producer.thread.ident is not None:
                producer.thread.join(max(0.0, deadline - time.monotonic()))
        return not any(p.thread.is_alive() for p in producers)

    def voice_for(self, lang: str) -> Voice:
        voice = self.voices.get(lang)
        if voice is None:
            raise LookupError(f"no voice configured for language {lang!r}")
        return voice

    def key(self, text: str, lang: str) -> str:
        return cache_key(text, self.voice_for(lang).identity, lang)

    def render(self, text: str, lang: str = "en", record: bool = True) -> Rendering:
        """`record=False` (pre-warming) leaves the cache's hit statistics alone."""
        return self.cached(text, lang, record) or self._synthesize(text, lang)

    def cached(self, text: str, lang: str = "en", record: bool = True) -> Rendering | None:
        """The phrase from the cache, or None: never synthesizes."""
        clip = self.cache.get(self.key(text, lang), record)
        if clip is None:
            return None
        return Rendering(clip.sample_rate, "cache", iter([clip.pcm]))

    def _synthesize(self, text: str, lang: str) -> Rendering:
        voice = self.voice_for(lang)
        producer = _Producer(voice, text, lang, self.cache, self.key(text, lang))
        self._producers.add(producer)
        return Rendering(voice.sample_rate, "synth", producer.start(), producer)
