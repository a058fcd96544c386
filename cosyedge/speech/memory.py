"""The memory ceiling: measure our own RSS, shed in a fixed order, refuse before we break.

Synthesis is what costs memory: one inference step of a Piper voice needs roughly 20 MB per
second of audio on top of the loaded voice (voices cut long text into bounded steps), and
onnxruntime keeps that in its arena. Everything else is small and bounded. At start the
guard measures the largest step; then it watches resident memory and, as it nears
`memory.ceiling_mb`, sheds in this order:

1. at 60 % of the ceiling: drop buffers (Python garbage, free heap pages back to the system);
2. at 70 %: unload voices that have been idle for a few seconds (they load again on use);
3. when the peak a synthesis would reach (RSS now, plus reloading the voice if it is
   unloaded, plus the largest step seen) is above 90 %: refuse synthesis of non-critical
   alerts; they are spoken from the phrase cache when their phrase is there, else as a
   short generic phrase rendered at start-up and held in memory.

Apart from the ceiling, while nothing is said the guard settles: memory the allocator kept
from past phrases goes back once RSS is well above its level after start, so the floor does
not creep up over the hours (`settle`).

Critical alerts and flood summaries are always synthesized, after steps 1 and 2. An
allocation failure during synthesis (MemoryError, or onnxruntime's own `Fail`) sheds the same
way and falls back to the generic phrase, so the daemon keeps answering.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from cosyedge.speech.allocator import MIB, libc_malloc_trim, rss_mb
from cosyedge.speech.lexicon import Lexicon
from cosyedge.speech.voices import EngineVoice, FrontEnd, lexicon_identity

log = logging.getLogger(__name__)

DROP_BUFFERS_AT = 0.60
UNLOAD_VOICES_AT = 0.70
SYNTHESIS_BUDGET = 0.90
IDLE_VOICE_S = 5.0
DROP_BUFFERS_EVERY_S = 5.0
# Idle, RSS this far above its level after start is memory the allocator kept from the last
# phrases: handed back (at most this often), the floor does not creep up over the hours.
SETTLE_MB = 16.0
SETTLE_EVERY_S = 30.0
REFUSAL_SHOWN_S = 30.0  # how long STATUS keeps saying "refusing" after the last refusal
# Each step, what the last steps cost counts this much less: an outlier (a step of another
# voice, a page-in) weighs on the next alerts for a few steps, not for the process's life.
STEP_DECAY = 0.5

# What one synthesis step costs, learnt at start: the text holds each in-process voice's
# longest step. First a run longer than a clause may be, cut into Piper's longest step (just
# under its 120 phonemes) and a word or two; then a clause hibari reads as just under its
# MAX_PHONEMES, so speaks in one step (the run, it cuts in two shorter halves).
# tests/test_voice.py checks both.
REFERENCE_TEXT = (
    "attention please the pressure in the main steam line of boiler house two is rising "
    "above the upper alarm limit of eighty bar now, "
    "and the operator on duty must check the feed pump at once"
)


# --- measuring ------------------------------------------------------------------------------


def peak_rss_mb() -> float:
    """The kernel's high-water mark of RSS (VmHWM) since start or the last `reset_peak`."""
    with open("/proc/self/status", "rb") as f:
        for line in f:
            if line.startswith(b"VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def reset_peak() -> bool:
    """Restart VmHWM from the current RSS (proc(5), clear_refs "5"); False where not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def service_limit_mb() -> float | None:
    """The memory limit of our cgroup (MemoryHigh/MemoryMax, or v1 limit_in_bytes), if any."""
    limits = []
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":
            base = Path("/sys/fs/cgroup") / path.lstrip("/")
            names = ("memory.high", "memory.max")
        elif "memory" in controllers.split(","):
            base = Path("/sys/fs/cgroup/memory") / path.lstrip("/")
            names = ("memory.limit_in_bytes",)
        else:
            continue
        for name in names:
            try:
                value = (base / name).read_text().strip()
            except OSError:
                continue
            if value.isdigit() and int(value) < 1 << 60:
                limits.append(int(value) / MIB)
    return min(limits) if limits else None


def is_out_of_memory(exc: BaseException) -> bool:
    """MemoryError, or onnxruntime failing to grow its arena (it raises `Fail`, not MemoryError)."""
    if isinstance(exc, MemoryError):
        return True
    text = str(exc)
    return type(exc).__module__.startswith("onnxruntime") and (
        "Failed to allocate memory" in text or "bad_alloc" in text
    )


# --- a voice that can be put away -----------------------------------------------------------


class NoVoice(RuntimeError):
    """Neither a language's voice nor its default one can be loaded; the text names both."""


def _first(chunks: Iterator[np.ndarray]) -> tuple[np.ndarray | None, Exception | None]:
    """The first chunk of `chunks` (None: there was none), or why there is none; memory short
    is raised, as not the voice's failing."""
    try:
        return next(chunks, None), None
    except Exception as exc:
        if is_out_of_memory(exc):
            raise
        return None, exc


class SheddableVoice:
    """A voice that can be unloaded while idle and loads again on its next use.

    Its name, sample rate and identity are kept, so phrase-cache lookups never need the model.
    `load` gives the voice with the lexicon it started with; `use_lexicon` changes that, for
    the voice in memory and any later load. Where `load` fails, at the start or after an
    unload (a pack damaged since), `stand_in` (its language's default voice) speaks from then
    on, and `replaced` says why, naming `key` (`voices.en`): a voice that cannot be loaded
    costs that voice, not the alerts it would say. Without one, the failure is raised.
    """

    # Kept while the models are put away (`_use` sets them): what a phrase will cost is read
    # from the front end; `_base_identity` is for a new lexicon meanwhile.
    name: str
    sample_rate: int
    identity: str
    front: FrontEnd
    _base_identity: str
    declared_step_mb: float

    def __init__(
        self,
        load: Callable[[], EngineVoice],
        stand_in: Callable[[], EngineVoice] | None = None,
        key: str = "",
    ) -> None:
        self._load, self._stand_in, self.key = load, stand_in, key
        self.replaced: str | None = None
        self._lock = threading.Lock()
        self._users = 0
        self._lexicon: Lexicon | None = None  # None: the one `load` gives
        self.last_used = time.monotonic()
        self.size_mb = 0.0  # what loading added to RSS: the price of loading it again
        self._voice: EngineVoice | None = None
        self._use(self._load_measured())
        self._proven = False  # its first phrase since this load not yet said

    @property
    def loaded(self) -> bool:
        return self._voice is not None

    def use_lexicon(self, lexicon: Lexicon) -> None:
        """From the next phrase on, say words the way `lexicon` says (a reload); a phrase
        being synthesized finishes with the voice it began with."""
        with self._lock:
            self._lexicon = lexicon
            self.identity = lexicon_identity(self._base_identity, lexicon)
            self.front = self.front.with_lexicon(lexicon)
            if self._voice is not None:
                self._voice = self._voice.with_lexicon(lexicon)

    def synthesize(self, text: str) -> Iterator[np.ndarray]:
        """The voice's audio of `text`, loading it again if it was put away. A voice's first
        phrase after each load proves it: one that raises before any audio twice (a graph
        swapped for another model, its hash with it; once may be a model failing now and
        then) gives way to the stand-in, which says the phrase."""
        with self._lock:
            if self._voice is None:
                started = time.monotonic()
                self._use(self._load_measured())
                self._proven = False
                log.info("voice %s loaded again in %.2f s", self.name, time.monotonic() - started)
            voice, proven = self._voice, self._proven
            self._users += 1
        try:
            chunks = voice.synthesize(text)
            if not proven:
                chunks = self._proving(voice, chunks, text)
            yield from chunks
        finally:
            with self._lock:
                self._users -= 1
                self.last_used = time.monotonic()

    def _proving(
        self, voice: EngineVoice, chunks: Iterator[np.ndarray], text: str
    ) -> Iterator[np.ndarray]:
        first, failed = _first(chunks)
        if failed is not None and self._stand_in is not None:
            log.warning("voice %s: its first phrase failed, trying again: %s", self.name, failed)
            chunks = voice.synthesize(text)
            first, failed = _first(chunks)
        if failed is not None:
            if self._stand_in is None:
                raise failed
            with self._lock:
                stand_in = self._lexiconed(self._replaced(failed, "could not say its first phrase"))
                self._use(stand_in)
            chunks, first = stand_in.synthesize(text), None
        self._proven = True
        if first is not None:
            yield first
        yield from chunks

    def _use(self, voice: EngineVoice) -> None:
        """Speak with `voice` from now on (a load, or the stand-in taking over)."""
        self._voice = voice
        self.name, self.sample_rate = voice.name, voice.sample_rate
        self.identity, self.front = voice.identity, voice.front
        self._base_identity = voice.front.base_identity
        # What one synthesis step costs, when the voice states it (measured when its pack was
        # made): the guard then need not learn it by speaking.
        self.declared_step_mb = float(getattr(voice, "step_mb", 0.0))

    def _load_measured(self) -> EngineVoice:
        before = rss_mb()
        voice = self._load_or_stand_in()
        self.size_mb = max(self.size_mb, rss_mb() - before)
        return self._lexiconed(voice)

    def _lexiconed(self, voice: EngineVoice) -> EngineVoice:
        """`voice` with the lexicon in use, when a reload changed it from the one it loads with."""
        return voice if self._lexicon is None else voice.with_lexicon(self._lexicon)

    def _load_or_stand_in(self) -> EngineVoice:
        try:
            return self._load()
        except Exception as exc:  # a pack that does not verify, a model that cannot be read
            if self._stand_in is None or is_out_of_memory(exc):  # memory short: not the voice
                raise
            return self._replaced(exc)

    def _replaced(self, exc: Exception, what: str = "cannot be loaded") -> EngineVoice:
        """The stand-in, loaded to speak from now on because the voice `what` (`exc`), which
        `replaced` tells; NoVoice when it cannot be loaded either."""
        assert self._stand_in is not None
        why = f"{self.key}: {what}: {type(exc).__name__}: {exc}"[:300]
        self._load, self._stand_in = self._stand_in, None
        try:
            voice = self._load()
        except Exception as again:  # no voice is left to speak this language
            raise NoVoice(
                f"{why}; nor its default voice: {type(again).__name__}: {again}"
            ) from again
        self.replaced = f"{why}; the embedded default voice ({voice.name}) speaks instead"
        log.error("%s", self.replaced)
        return voice

    def unload_if_idle(self, idle_s: float) -> bool:
        with self._lock:
            idle = time.monotonic() - self.last_used
            if self._voice is None or self._users or idle < idle_s:
                return False
            self._voice = None
        return True


def stood_in(voices: Iterable[SheddableVoice]) -> str | None:
    """The fault `voices`: why each voice stood in for speaks instead, or None for none."""
    return "; ".join(v.replaced for v in voices if v.replaced) or None


# --- the guard ------------------------------------------------------------------------------


class MemoryGuard:
    def __init__(self, ceiling_mb: float, voices: Iterable[SheddableVoice] = ()) -> None:
        self.ceiling_mb = float(ceiling_mb)
        self.voices = list(voices)
        self.reference_mb = 0.0  # the largest step measured (or declared) at start
        self.recent_mb = 0.0  # the last steps', decaying by STEP_DECAY a step
        self.largest_mb = 0.0  # the largest step measured since start, for the reference
        self.learning = False  # no step measured at start: the largest since is the reference
        self._degraded_at = -REFUSAL_SHOWN_S
        self.peak_mb = peak_rss_mb()
        self._can_reset_peak = True
        self._trim = libc_malloc_trim()
        self._dropped_at = 0.0
        self._settled_at = 0.0
        self.settled_mb = rss_mb()  # RSS once the voices are measured: the idle floor
        self._refused_at = -REFUSAL_SHOWN_S
        self._lock = threading.Lock()
        # What was shed since start, for the metrics: buffer drops, voice unloads, refusals.
        self.shed = {"buffers": 0, "voices": 0, "refusals": 0}

    def use_ceiling(self, ceiling_mb: float) -> None:
        """Keep under `ceiling_mb` from now on (a reload's `memory.ceiling_mb`)."""
        self.ceiling_mb = float(ceiling_mb)

    # -- measuring ---------------------------------------------------------------------------
    def rss(self) -> float:
        rss = rss_mb()
        self.peak_mb = max(self.peak_mb, peak_rss_mb(), rss)
        return rss

    def measure_voice(self, voice: SheddableVoice, text: str = REFERENCE_TEXT) -> Exception | None:
        """Learn what the longest synthesis step costs before the first alert needs it: from
        the voice itself when it declares it (a slow voice would take minutes to speak the
        reference text), else by speaking `text`, tried once more if the voice fails. Returns
        why it could not (not raised: a voice that fails now and then must not stop the
        start); the largest step measured since then stands for the reference until a phrase
        is said whole, whose largest step is the reference, as at a start."""
        if voice.declared_step_mb:
            self.reference_mb = max(self.reference_mb, voice.declared_step_mb)
            self.settled_mb = self.rss()
            self._report_step(voice, self.settled_mb)
            return None
        failed: Exception | None = None
        for attempt in (1, 2):
            try:
                self._measure_speaking(voice, text)
                return None
            except Exception as exc:  # memory short is taken by _measure_speaking
                log.error("voice %s: cannot measure a step (try %d): %s", voice.name, attempt, exc)
                failed = exc
        self.learning = True
        return failed

    def _measure_speaking(self, voice: SheddableVoice, text: str) -> None:
        # From a heap handed back: free pages a step can reuse (what loading a G2P held in
        # memory, or making tables, left) do not raise RSS, and the step read 0-6 MB, not 20.
        self._handed_back()
        try:
            for _ in self.metered(voice.synthesize(text)):
                pass
        except Exception as exc:
            if not is_out_of_memory(exc):
                raise
            # The process limit is below what one step needs: long alerts will fall back.
            self.out_of_memory(exc)
            return
        self.reference_mb = max(self.reference_mb, self.largest_mb)
        # What the steps left to the allocator (Piper's; hibari hands back its own) goes back
        # now: kept, it would stand in RSS until the guard next drops buffers, and count twice
        # below.
        self.settled_mb = self._drop_buffers(self.rss())
        self._report_step(voice, self.settled_mb)

    def _report_step(self, voice: SheddableVoice, rss: float) -> None:
        log.info(
            "voice %s: one synthesis step takes up to %.0f MB; RSS now %.0f MB of %.0f",
            voice.name,
            self.step_mb,
            rss,
            self.ceiling_mb,
        )
        needed = rss + self.step_mb
        if needed > self.ceiling_mb:
            log.warning(
                "memory.ceiling_mb %.0f is too low for voice %s (it needs about %.0f MB to "
                "speak): critical alerts will go above it",
                self.ceiling_mb,
                voice.name,
                needed,
            )
        elif needed > SYNTHESIS_BUDGET * self.ceiling_mb:
            log.warning(
                "memory.ceiling_mb %.0f is too low for voice %s to synthesize alerts that are "
                "not critical (it needs about %.0f MB, over %.0f %% of the ceiling): they are "
                "said from the cache or as the generic phrase",
                self.ceiling_mb,
                voice.name,
                needed,
                SYNTHESIS_BUDGET * 100,
            )

    def metered(self, chunks: Iterable[np.ndarray]) -> Iterator[np.ndarray]:
        """Pass chunks through, learning how much memory producing each one took.

        Each step restarts the kernel's peak counter so the step's own peak can be read;
        `peak_mb` keeps the peak of the whole run."""
        iterator = iter(chunks)
        while True:
            before = self.rss()
            self._can_reset_peak = self._can_reset_peak and reset_peak()
            try:
                chunk = next(iterator)
            except StopIteration:
                self._measured_whole()
                return
            finally:
                peak = peak_rss_mb() if self._can_reset_peak else self.rss()
                self.peak_mb = max(self.peak_mb, peak)
                self._learn_step(peak - before)
            yield chunk

    def _learn_step(self, measured_mb: float) -> None:
        self.largest_mb = max(self.largest_mb, measured_mb)
        self.recent_mb = max(measured_mb, self.recent_mb * STEP_DECAY)

    def _measured_whole(self) -> None:
        if self.learning:
            self.reference_mb = max(self.reference_mb, self.largest_mb)
            self.learning = False

    @property
    def step_mb(self) -> float:
        """What one synthesis step is taken to add to RSS: the larger of the reference and
        the last steps', so one outlier does not refuse synthesis for good."""
        reference = max(self.reference_mb, self.largest_mb if self.learning else 0.0)
        return max(reference, self.recent_mb)

    # -- shedding ----------------------------------------------------------------------------
    def check(self, force: bool = False, keep: SheddableVoice | None = None) -> float:
        """Shed what the current RSS calls for (all it can when forced, but `keep`); RSS after."""
        with self._lock:
            rss = self.rss()
            now = time.monotonic()
            if force or (
                rss >= DROP_BUFFERS_AT * self.ceiling_mb
                and now - self._dropped_at >= DROP_BUFFERS_EVERY_S
            ):
                self._dropped_at = now
                rss = self._drop_buffers(rss)
            if force or rss >= UNLOAD_VOICES_AT * self.ceiling_mb:
                rss = self._unload_idle_voices(rss, 0.0 if force else IDLE_VOICE_S, keep)
            return rss

    def settle(self) -> float:
        """Called while nothing is said or synthesized: drop buffers once RSS is SETTLE_MB
        above `settled_mb` (at most every SETTLE_EVERY_S), so what the allocator kept from
        the last phrases goes back and the next step starts from the floor. RSS after."""
        with self._lock:
            rss = self.rss()
            now = time.monotonic()
            if rss < self.settled_mb + SETTLE_MB or now - self._settled_at < SETTLE_EVERY_S:
                return rss
            self._settled_at = now
            return self._drop_buffers(rss)

    def _drop_buffers(self, before: float) -> float:
        self.shed["buffers"] += 1
        after = self._handed_back()
        log.debug(
            "memory %.0f MB of %.0f: dropped buffers, now %.0f MB", before, self.ceiling_mb, after
        )
        return after

    def _handed_back(self) -> float:
        """What the allocator keeps free handed back to the system; RSS after."""
        gc.collect()
        if self._trim is not None:
            self._trim(0)
        return self.rss()

    def _unload_idle_voices(
        self, before: float, idle_s: float, keep: SheddableVoice | None
    ) -> float:
        for voice in self.voices:
            if voice is not keep and voice.unload_if_idle(idle_s):
                gc.collect()
                if self._trim is not None:
                    self._trim(0)
                after = self.rss()
                voice.size_mb = max(voice.size_mb, before - after)  # with its arena, if grown
                log.warning(
                    "memory %.0f MB of %.0f: unloaded idle voice %s (%.0f MB freed)",
                    before,
                    self.ceiling_mb,
                    voice.name,
                    before - after,
                )
                before = after
                self.shed["voices"] += 1
        return before

    # -- deciding ----------------------------------------------------------------------------
    def may_synthesize(self, priority: str, voice: SheddableVoice) -> bool:
        """Whether an alert of this priority may be synthesized now; critical ones always may."""
        rss = self.check()
        reload_mb = 0.0 if voice.loaded else voice.size_mb
        predicted = rss + reload_mb + self.step_mb
        if predicted <= SYNTHESIS_BUDGET * self.ceiling_mb:
            return True
        if priority == "critical":
            self.check(force=True, keep=voice)
            return True
        if time.monotonic() - self._refused_at >= REFUSAL_SHOWN_S:
            log.warning(
                "memory %.0f MB of %.0f (a synthesis could reach %.0f MB): refusing synthesis "
                "of non-critical alerts; speaking cached or generic phrases",
                rss,
                self.ceiling_mb,
                predicted,
            )
        self._refused_at = time.monotonic()
        self.shed["refusals"] += 1
        return False

    def degraded(self, key: str) -> None:
        """An alert is said as the generic phrase, its synthesis refused: heard as the fault
        `speech` (`degradation`) while it goes on, logged once a REFUSAL_SHOWN_S."""
        now = time.monotonic()
        if now - self._degraded_at >= REFUSAL_SHOWN_S:
            log.warning("alert %s said as the generic phrase: synthesis refused for memory", key)
        self._degraded_at = now

    @property
    def degradation(self) -> str | None:
        """While alerts are said as the generic phrase for want of memory: why (the fault
        `speech`, said aloud as the others are); None once none has been for a while."""
        if time.monotonic() - self._degraded_at < REFUSAL_SHOWN_S:
            return f"alerts said as a generic phrase: {self.trouble or 'synthesis refused'}"
        return None

    def out_of_memory(self, exc: BaseException) -> None:
        log.error("out of memory during synthesis (%s): shedding everything", first_line(exc))
        # The failed inference's frames hold the voice and its session: without this, an
        # unloaded voice frees nothing while the exception is being handled.
        traceback.clear_frames(exc.__traceback__)
        self._refused_at = time.monotonic()
        self.check(force=True)

    @property
    def trouble(self) -> str | None:
        """While synthesis of non-critical alerts is refused: the quiet fault `memory`."""
        if time.monotonic() - self._refused_at < REFUSAL_SHOWN_S:
            ceiling = f"{self.ceiling_mb:.0f} MB"
            return f"near the ceiling of {ceiling}: refusing synthesis of non-critical alerts"
        return None

    def describe(self) -> str:
        """The memory part of STATUS."""
        state = (
            "refusing synthesis of non-critical alerts"
            if time.monotonic() - self._refused_at < REFUSAL_SHOWN_S
            else "ok"
        )
        rss = self.rss()
        return f"{state}, {rss:.0f} MB of {self.ceiling_mb:.0f}, peak {self.peak_mb:.0f}"


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200] if text else ''}"
