"""The announcer: the one thread that speaks, most urgent first.

It takes the next item from the desk, renders it (cache, synthesis, or a generic phrase when
memory is short) and plays the chime and the speech. Between audio blocks it asks the desk
whether to give way; a more urgent alert, an acknowledgement, a silence or a shelve then cuts
in at the next block boundary, the rendering is closed (which cancels synthesis) and the desk
decides whether the item is said again from its start. At shutdown the clause being spoken
is finished and the item stays in the journal for the next start. When the sound device is
gone the item waits in the queue and the device is tried again with the player's backoff.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from cosyedge.audio.player import AudioUnavailable, Playback
from cosyedge.audio.preludes import Preludes
from cosyedge.audio.sound import Sound
from cosyedge.faults import Faults
from cosyedge.model import Delivery, Heartbeat, Item, ItemKind, Prelude, on_wall
from cosyedge.speech.cache.background import Activity
from cosyedge.speech.cost import Fitted, fit
from cosyedge.speech.fallback import FallbackPhrases, FaultPhrases
from cosyedge.speech.memory import MemoryGuard, SheddableVoice, is_out_of_memory
from cosyedge.speech.render import Renderer, Rendering, SynthesisFailed
from cosyedge.speech.voices.mixed import mixed_estimate

log = logging.getLogger(__name__)

# The loudest speech sample (of 32767) below which a rendering said nothing: -54 dBFS, far
# under any word. A voice with nothing to say gives no samples or zeros (espeak-pinyin for a
# character it has no reading of, Piper for punctuation alone).
SILENT_PEAK = 64
# Sources that do not say the phrase as fitted: the generic phrase, a recorded message.
EVERY_WORD = ("generic", "recorded")


class Output(Protocol):
    """Where the announcer's audio goes: a zone's outputs (audio/outputs.py) or one player."""

    def play(
        self, sample_rate: int, chunks: Iterable[np.ndarray], should_stop: Callable[[], bool]
    ) -> Playback: ...
    def retry_in(self) -> float: ...


class Desk(Protocol):
    """What the announcer asks of the alarm desk (alarms/desk.py)."""

    def take(self, timeout: float) -> Item | None: ...
    def should_stop(self, item: Item) -> bool: ...
    def finished(self, item: Item, delivery: Delivery) -> None: ...
    def waiting(self) -> int: ...


@dataclass
class Speech:
    """Where the words come from: synthesis while memory allows, else the cache or a generic
    phrase, and the generic phrase after an allocation failure, so no alert goes unsaid.

    A flood summary is synthesized whatever memory says, as a critical alert is (the guard
    sheds idle voices and buffers first): it is the only voice of the alerts it counts, and a
    generic phrase in its place would leave all of them unheard."""

    renderer: Renderer
    memory: MemoryGuard
    fallback: FallbackPhrases
    voices: Mapping[str, SheddableVoice]  # by language
    faults: Faults = field(default_factory=Faults)
    fault_phrases: FaultPhrases | None = None
    max_spoken_s: float = 30.0  # alarms.max_spoken_s: an alert's phrase, unless its template's
    preludes: Preludes = field(default_factory=lambda: Preludes(()))  # templates' tones, messages

    def fitted(self, item: Item) -> Fitted:
        """What of the item's phrase is said: all of it, or the start that the voice's own
        reading estimates within its limit (`speech/cost.py`). Our own phrases (summaries,
        faults) are said whole; a phrase that cannot be estimated is said whole and the
        voice bounds each of its steps all the same."""
        announcement = item.offers[0].announcement if item.speaks_offer else None
        if announcement is None or item.lang not in self.voices:
            return Fitted(item.text)
        limit = announcement.max_spoken_s or self.max_spoken_s
        fronts = {lang: voice.front for lang, voice in self.voices.items()}
        try:
            fitted = fit(item.text, limit, functools.partial(mixed_estimate, fronts, item.lang))
        except Exception:
            log.exception("%s %s: cannot estimate its phrase; saying it whole", item.kind, item.key)
            return Fitted(item.text)
        if fitted.shortened and item.kind is ItemKind.ALERT:  # once, not at each re-announcement
            log.warning(
                "alert %s: shortened to fit %.0f s of speech (the whole would take about %.0f s);"
                " left out %r",
                item.key,
                limit,
                fitted.whole_s,
                fitted.left_out[:200],
            )
        return fitted

    def prelude(self, item: Item) -> Prelude:
        """What the item's template plays before its phrase (nothing for our own phrases)."""
        announcement = item.offers[0].announcement if item.speaks_offer else None
        return announcement.prelude if announcement is not None else Prelude()

    def rendering(self, item: Item, text: str | None = None) -> Rendering:
        """The item's phrase, or `text` in its place (the part of it `fitted` keeps); the
        template's recorded message where it stands in for the phrase."""
        text = item.text if text is None else text
        prelude = self.prelude(item)
        message = self.preludes.replaces_text(prelude)
        if message is not None:
            pcm = self.preludes.pcm(prelude.recorded, message.sample_rate)
            return Rendering(message.sample_rate, "recorded", iter([pcm]))
        self.faults.check("speech.render", text)
        if item.kind is ItemKind.FAULT and self.fault_phrases is not None:
            ahead = self.fault_phrases.rendering(text)
            if ahead is not None:  # rendered at start: said even when synthesis is broken
                return ahead
        voice = self.voices.get(item.lang)
        if voice is None:  # a template reloaded with a language whose voice loads at restart
            log.error("no voice loaded for language %r: saying the generic phrase", item.lang)
            return self.fallback.rendering(item.priority, item.lang)
        must_say = item.kind is ItemKind.SUMMARY
        if self.memory.may_synthesize("critical" if must_say else item.priority, voice):
            return self.renderer.render(text, item.lang)
        cached = self.renderer.cached(text, item.lang)
        if cached is not None:
            return cached
        self.memory.degraded(item.key)
        return self.fallback.rendering(item.priority, item.lang)


@dataclass
class Heard:
    """The loudest sample of the speech itself: the chime alone must not count as spoken;
    when its first audio went to the player: the chime's first block does not show how long
    synthesis took; and why the generic phrase stood in for the alert's, if it did."""

    peak: int = 0
    fallback: str | None = None  # why the generic phrase was said instead of the alert's
    fitted: Fitted | None = None  # what of the phrase was said
    speech_at: float | None = None  # time.monotonic() of the phrase's first audio

    def through(self, chunks: Iterable[np.ndarray]) -> Iterator[np.ndarray]:
        """The speech's chunks, as the player takes them (after the chime's, whose last
        block it has handed to the device by then)."""
        for pcm in chunks:
            if len(pcm):
                self.peak = max(self.peak, int(np.abs(pcm.astype(np.int32)).max()))
                if self.speech_at is None:
                    self.speech_at = time.monotonic()
            yield pcm


class Announcer:
    def __init__(
        self,
        desk: Desk,
        speech: Speech,
        player: Output,
        sound: Sound,
        stop: threading.Event,
        activity: Activity,
        beat: Heartbeat,
        tone_level_db: float = 0.0,
    ) -> None:
        self.desk = desk
        self.speech = speech
        self.player = player
        self.sound = sound
        self.activity = activity  # busy while an item is rendered or played: cache upkeep waits
        self.beat = beat  # the watchdog's view of this thread
        self.tone_level_db = tone_level_db  # its zone's level of a template's tone
        self.current: Item | None = None  # what is being said: a stuck one shows here
        self.last = "none yet"
        self.last_at = 0.0  # time.monotonic() of `last`
        self._stop = stop

    def run(self) -> None:
        """Speak until stopped. An error outside one item's speaking (the desk, a report)
        is logged and the loop goes on after a pause: the announcer never dies of it."""
        while not self._stop.is_set():
            try:
                self._next()
            except Exception:
                log.exception("announcer: unexpected error; going on")
                self._pause(1.0)

    def _next(self) -> None:
        self.beat.rest()  # waiting for an item is not being stuck, however long it lasts
        item = self.desk.take(timeout=0.2)
        if item is None:
            return
        self.beat.beat()
        self.current = item
        with self.activity.busy():
            delivery = self._announce(item)
        try:
            self.desk.finished(item, delivery)
        finally:
            self.current = None
        if delivery.detail.get("source") == "synth" and not self.desk.waiting():
            self.speech.fallback.prepare(item.lang)  # its front end is loaded: cheap now
        if delivery.kind == "unplayed":
            self._pause(self.player.retry_in())

    def _pause(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not self._stop.is_set() and (left := deadline - time.monotonic()) > 0:
            self.beat.beat()
            self._stop.wait(min(left, 0.2))

    def _announce(self, item: Item) -> Delivery:
        cut: list[bool] = []
        heard = Heard()
        try:
            rendering, playback = self._speak(item, cut, heard)
        except AudioUnavailable as exc:
            return Delivery("unplayed", {"reason": str(exc)})  # kept: said once it is back
        except Exception as exc:
            log.exception("cannot speak %s %s", item.kind, item.key)
            return Delivery("failed", {"reason": f"{type(exc).__name__}: {exc}"})
        if cut:
            log.warning("stopping: cut %s %s after a clause; kept", item.kind, item.key)
            return Delivery("stopped")
        if playback.stopped:
            log.info("cut %s %s short after %d samples", item.kind, item.key, playback.samples)
            return Delivery("stopped")
        if playback.first_audio is None or playback.last_audio is None:
            return Delivery("failed", {"reason": "no audio was rendered"})
        if heard.peak < SILENT_PEAK:
            log.error(
                "%s %s: the voice gave no audible speech for %r", item.kind, item.key, item.text
            )
            return Delivery("failed", {"reason": "the voice gave no audible speech"})
        detail = {**_times(item, playback, heard), "source": rendering.source}
        if heard.fallback is not None:
            detail["reason"] = heard.fallback
        fitted = heard.fitted
        if fitted is not None and fitted.shortened and rendering.source not in EVERY_WORD:
            detail.update(shortened=True, said=fitted.text, left_out=fitted.left_out)
        self.last = f"spoke {item.key} at {time.strftime('%H:%M:%S')}"
        self.last_at = time.monotonic()
        log.info(
            "spoke %s %s source=%s latency_ms=%d speech_latency_ms=%d samples=%d text=%r",
            item.kind,
            item.key,
            rendering.source,
            detail["latency_ms"],
            detail["speech_latency_ms"],
            playback.samples,
            item.text,
        )
        return Delivery("spoken", detail)

    def _speak(self, item: Item, cut: list[bool], heard: Heard) -> tuple[Rendering, Playback]:
        """The alert's phrase; when its synthesis fails for want of memory or because the voice
        is broken (the renderer then holds the voice's fault), the generic phrase in the
        alert's language after whatever was already heard, so the alert is never unheard."""
        heard.fitted = self.speech.fitted(item)
        # A critical alert whose synthesis ran out of memory is synthesized once more: the
        # shedding has just freed every voice and buffer, and the voice loads again in a
        # fraction of a second; only if that fails too does the generic phrase stand in.
        for _ in range(2 if item.priority == "critical" else 1):
            rendering = self.speech.rendering(item, heard.fitted.text)
            if rendering.source == "generic":
                heard.fallback = self.speech.memory.trouble or "synthesis refused"
            try:
                return rendering, self._play(item, rendering, cut, heard)
            except SynthesisFailed as exc:
                log.error("%s %s: %s; saying the generic phrase", item.kind, item.key, exc)
                heard.fallback = str(exc)
                break
            except Exception as exc:
                if not is_out_of_memory(exc):
                    raise
                self.speech.memory.out_of_memory(exc)
        rendering = self.speech.fallback.rendering(item.priority, item.lang)
        return rendering, self._play(item, rendering, cut, heard)

    def _play(self, item: Item, rendering: Rendering, cut: list[bool], heard: Heard) -> Playback:
        volume = self.sound.volume(item.priority, item.volume)
        speech = heard.through(self.beat.beating(self.speech.memory.metered(rendering.chunks)))
        fault = item.kind is ItemKind.FAULT and not item.fault.endswith(":cleared")
        replaced = rendering.source == "recorded"
        prelude = self.speech.prelude(item)
        lead = self.speech.preludes.lead(
            prelude, rendering.sample_rate, replaced, self.tone_level_db
        )
        shaped = self.sound.shape(item.priority, rendering.sample_rate, speech, volume, fault, lead)
        chunks = self._until_stop(shaped, cut)
        try:
            return self.player.play(
                rendering.sample_rate, chunks, should_stop=lambda: self.desk.should_stop(item)
            )
        finally:
            _close(chunks)
            _close(rendering.chunks)  # a synthesis cut short stops here

    def _until_stop(self, chunks: Iterable[np.ndarray], cut: list[bool]) -> Iterator[np.ndarray]:
        """On SIGTERM, finish the clause being spoken and stop there."""
        for chunk in chunks:
            yield chunk
            if self._stop.is_set():
                cut.append(True)
                return


def start_speaking(announcers: list[Announcer]) -> list[threading.Thread]:
    """Each announcer on a thread of its own, named as its heartbeat (`announcer-<zone>`)."""
    threads = [threading.Thread(target=a.run, name=a.beat.name, daemon=True) for a in announcers]
    for thread in threads:
        thread.start()
    return threads


def join_all(threads: list[threading.Thread], timeout: float) -> None:
    """Wait for every thread, `timeout` s in all: the zones finish their clauses together."""
    until = time.monotonic() + timeout
    for thread in threads:
        thread.join(timeout=max(0.0, until - time.monotonic()))


def last_spoken(announcers: list[Announcer]) -> str:
    """What was spoken last, in whichever zone."""
    return max(announcers, key=lambda a: a.last_at).last


def speaking(announcers: list[Announcer]) -> bool:
    """Whether any zone's announcer is in the middle of an item."""
    return any(a.current is not None for a in announcers)


def _times(item: Item, playback: Playback, heard: Heard) -> dict[str, Any]:
    """When the audio was played (`start`, `end`: the chime included), and from the alert's
    receipt to its first audio (`latency_ms`) and to the phrase itself, where synthesis shows
    (`speech_latency_ms`; never before the first audio: the phrase's time is taken as the
    player asks for its first chunk, the first audio's as the device took the block)."""
    first, last = playback.first_audio or 0.0, playback.last_audio or 0.0
    start, speech = on_wall(first), on_wall(max(heard.speech_at or first, first))
    received = min((o.ticket.received for o in item.offers), default=start)
    return {
        "start": round(start, 3),
        "end": round(on_wall(last), 3),
        "latency_ms": round((start - received) * 1000),
        "speech_latency_ms": round((speech - received) * 1000),
    }


def _close(chunks: Iterable[np.ndarray]) -> None:
    close = getattr(chunks, "close", None)
    if close is not None:
        close()
