"""Streaming render: synthesis runs ahead of playback in its own thread, stops when the rendering
is closed or dropped, and only a phrase synthesized to its end reaches the cache."""

from __future__ import annotations

import dataclasses
import gc
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from support import wait_until

from cosyedge.config import Config
from cosyedge.observe import Observer
from cosyedge.speech.cache import PhraseCache, cache_key
from cosyedge.speech.render import QUEUE_CLAUSES, Renderer, SynthesisFailed
from cosyedge.speech.voices import load_voices, to_int16, voices_on_demand

FOUR_CLAUSES = (
    "Boiler pressure on line two is above the limit, "
    "the relief valve on the feed line has opened, "
    "the operator on duty must check the feed pump, "
    "and the shift lead must be told at once."
)
SEVEN_CLAUSES = FOUR_CLAUSES + (
    " Stop the burner on boiler two, close the steam valve to the dryer, "
    "and wait for the pressure to fall below six bar."
)


def test_first_clause_arrives_before_the_last_is_synthesized(piper_voice, tmp_path):
    cache = PhraseCache(tmp_path)
    rendering = Renderer({"en": piper_voice}, cache).render(FOUR_CLAUSES)
    assert rendering.source == "synth"
    first = next(rendering.chunks)
    first_at = time.time()
    rest = list(rendering.chunks)
    assert len(rest) == 3
    # The cache entry is written when the last clause is done: well after clause one was out.
    entry = cache.path(cache_key(FOUR_CLAUSES, piper_voice.identity, "en"))
    assert entry.stat().st_mtime > first_at
    assert len(first) > 0.5 * piper_voice.sample_rate


def test_synthesis_runs_ahead_of_a_slow_consumer(piper_voice, tmp_path):
    assert QUEUE_CLAUSES >= 3
    cache = PhraseCache(tmp_path)
    rendering = Renderer({"en": piper_voice}, cache).render(FOUR_CLAUSES)
    first = next(rendering.chunks)
    entry = cache.path(cache_key(FOUR_CLAUSES, piper_voice.identity, "en"))
    # The consumer holds on to clause one (as a player would while it plays); meanwhile the
    # synthesis thread makes clauses two to four and stores the whole phrase.
    wait_until(entry.exists, 30, "the phrase to be synthesized while clause one plays")
    started = time.monotonic()
    rest = list(rendering.chunks)
    assert time.monotonic() - started < 0.1  # already synthesized: nothing left to wait for
    cached = cache.get(cache_key(FOUR_CLAUSES, piper_voice.identity, "en"))
    assert cached is not None
    assert np.array_equal(cached.pcm, np.concatenate([first, *rest]))


def test_closing_stops_synthesis_and_caches_nothing(hibari_voice, tmp_path):
    cache = PhraseCache(tmp_path)
    rendering = Renderer({"en": hibari_voice}, cache).render(SEVEN_CLAUSES)
    next(rendering.chunks)
    rendering.close()
    assert rendering.wait_stopped(timeout=5)
    assert cache.get(cache_key(SEVEN_CLAUSES, hibari_voice.identity, "en")) is None
    assert list(tmp_path.rglob("*.wav")) == []


def test_a_dropped_rendering_stops_its_synthesis(hibari_voice, tmp_path):
    rendering = Renderer({"en": hibari_voice}, PhraseCache(tmp_path)).render(SEVEN_CLAUSES)
    next(rendering.chunks)
    job = rendering._job
    del rendering
    gc.collect()
    assert job is not None and job.finished.wait(5)
    assert list(tmp_path.rglob("*.wav")) == []


class Clauses(Observer):
    """Counts the clauses synthesized."""

    def __init__(self) -> None:
        self.count = 0

    def synthesized(self, lang: str, computing_s: float, audio_s: float) -> None:
        self.count += 1


def test_one_synthesis_at_a_time_and_a_closed_phrase_gives_way(piper_voice, tmp_path):
    clauses = Clauses()
    renderer = Renderer({"en": piper_voice}, PhraseCache(tmp_path), observer=clauses)
    first = renderer.render(SEVEN_CLAUSES)
    next(first.chunks)
    threads = threading.active_count()
    second = renderer.render("Pump two stopped.")
    assert threading.active_count() == threads  # no thread per phrase
    # The second waits for the synthesis thread; closing the first lets it through at the
    # next clause boundary, long before the first phrase's remaining clauses would be done.
    first.close()
    assert len(np.concatenate(list(second.chunks))) > 0.5 * piper_voice.sample_rate
    # Counted, not timed: the first's seven clauses were not all made before the second's.
    assert clauses.count < 7 + 1, clauses.count
    assert first.wait_stopped(0)
    assert list(tmp_path.rglob("*.wav")) != []  # the second phrase, whole, was cached


def test_a_finished_phrase_comes_from_the_cache_next_time(hibari_voice, tmp_path):
    renderer = Renderer({"en": hibari_voice}, PhraseCache(tmp_path))
    spoken = np.concatenate(list(renderer.render("Pump two stopped.").chunks))
    again = renderer.render("Pump two stopped.")
    assert again.source == "cache"
    assert np.array_equal(np.concatenate(list(again.chunks)), spoken)


def test_each_language_is_spoken_by_its_own_voice(piper_voice, hibari_voice, tmp_path):
    renderer = Renderer({"en": hibari_voice, "en-x-joe": piper_voice}, PhraseCache(tmp_path))
    assert renderer.render("Pump two stopped.", "en").sample_rate == 24000
    assert renderer.render("Pump two stopped.", "en-x-joe").sample_rate == 22050


def test_a_phrase_in_the_cache_is_said_without_loading_any_voice(tmp_path, saved_models: Path):
    """`cosyedge say`: its voices are known by their front ends and load only to synthesize,
    under the identities the daemon's loaded voices have, so both find the same phrases.
    On a gateway past its first start: its saved graphs and tables (the run's) are there."""
    configs, models = Config().voices, tmp_path / "models"  # the default voices
    shutil.copytree(saved_models, models)
    first = voices_on_demand(configs, models)
    renderer = Renderer(first, PhraseCache(tmp_path / "cache"))
    spoken = np.concatenate(list(renderer.render("Pump two stopped.").chunks))
    renderer.stop(timeout=30)
    assert first["en"].voices["en"].loaded is not None
    loaded = load_voices(configs, models)
    assert {lang: v.identity for lang, v in loaded.items()} == {
        lang: v.identity for lang, v in first.items()
    }
    voices = voices_on_demand(configs, models)
    again = Renderer(voices, PhraseCache(tmp_path / "cache")).render("Pump two stopped.")
    assert again.source == "cache"
    assert np.array_equal(np.concatenate(list(again.chunks)), spoken)
    on_demand = voices["en"].voices.values()
    assert [v.loaded for v in on_demand] == [None, None]


def test_a_phrase_being_synthesized_is_made_once_for_every_zone_that_asks(hibari_voice, tmp_path):
    """Two zones asking for one phrase at once: the second waits for the first's synthesis
    and says it from the cache (the same samples), instead of synthesizing it again."""
    renderer = Renderer({"en": hibari_voice}, PhraseCache(tmp_path))
    first = renderer.render(FOUR_CLAUSES)
    second = renderer.render(FOUR_CLAUSES)  # returns once the first's synthesis has ended
    assert (first.source, second.source) == ("synth", "cache")
    heard = np.concatenate(list(first.chunks))
    assert np.array_equal(np.concatenate(list(second.chunks)), heard)


def test_a_phrase_whose_synthesis_is_cut_is_synthesized_for_the_zone_still_waiting(
    hibari_voice, tmp_path
):
    # More steps than the queue holds ahead: the first synthesis cannot end unless read.
    long = " ".join(f"Pump {i} on line two has stopped." for i in range(3 * QUEUE_CLAUSES))
    renderer = Renderer({"en": hibari_voice}, PhraseCache(tmp_path))
    first = renderer.render(long)
    next(first.chunks)
    later: list = []
    asking = threading.Thread(target=lambda: later.append(renderer.render(long)))
    asking.start()
    time.sleep(0.3)
    first.close()  # the first zone was preempted: nothing whole reaches the cache
    asking.join(timeout=60)
    (second,) = later
    assert second.source == "synth"
    assert len(np.concatenate(list(second.chunks))) > 10 * hibari_voice.sample_rate


@dataclasses.dataclass
class Corrupting:
    """onnxruntime's session, one value of one output made `value` (a model gone wrong)."""

    session: object
    output: int
    value: float

    def run(self, names, inputs):
        outputs = self.session.run(names, inputs)
        outputs[self.output].reshape(-1)[outputs[self.output].size // 3] = self.value
        return outputs


@dataclasses.dataclass
class CorruptingPiper:
    """piper-tts's voice, one sample of its audio made NaN."""

    piper: object

    def __getattr__(self, name):
        return getattr(self.piper, name)

    def phoneme_ids_to_audio(self, ids, config):
        audio = self.piper.phoneme_ids_to_audio(ids, config).copy()
        audio[len(audio) // 2] = np.nan
        return audio


@pytest.mark.parametrize(
    ("output", "value"),
    [
        *((5, v) for v in (np.nan, np.inf, -np.inf)),
        *((0, v) for v in (np.nan, np.inf, -np.inf)),
        *((1, v) for v in (np.nan, np.inf)),
        *((2, v) for v in (np.nan, np.inf)),
        *((3, v) for v in (np.nan, np.inf)),
        *((4, v) for v in (np.nan, np.inf, -np.inf)),
    ],
    ids=lambda v: v if isinstance(v, float) else ("lh", "th", "ln", "lr", "phi", "f0")[v],
)
def test_samples_that_are_not_finite_fail_the_phrase_and_are_not_cached(
    hibari_voice, tmp_path, output, value
):
    """A model's outputs gone wrong, one value of one output: the phrase fails, the voice is
    reported failing, nothing is cached. Before, one NaN in F0 made most of a step NaN,
    played as silence; an infinite F0 unvoiced the rest of the step and an infinite magnitude
    made a full-scale blast, both finite samples, played and cached."""
    voice = dataclasses.replace(
        hibari_voice, session=Corrupting(hibari_voice.session, output, value)
    )
    assert_fails_uncached(voice, tmp_path)


def test_piper_samples_that_are_not_finite_fail_the_phrase(piper_voice, tmp_path):
    voice = dataclasses.replace(piper_voice, _piper=CorruptingPiper(piper_voice._piper))
    assert_fails_uncached(voice, tmp_path)


def assert_fails_uncached(voice, tmp_path: Path) -> None:
    cache = PhraseCache(tmp_path)
    renderer = Renderer({"en": voice}, cache)
    rendering = renderer.render(FOUR_CLAUSES)
    with pytest.raises(SynthesisFailed, match="not finite"):
        list(rendering.chunks)
    assert "not finite" in (renderer.trouble or "")
    assert cache.get(cache_key(FOUR_CLAUSES, voice.identity, "en")) is None


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_int16_of_samples_that_are_not_finite_is_refused(value):
    samples = np.linspace(-2, 2, 100, dtype=np.float32)
    assert to_int16(samples).min() == -32767 and to_int16(samples).max() == 32767
    samples[7] = value
    with pytest.raises(ValueError, match="1 of 100 samples are not finite"):
        to_int16(samples)


@dataclasses.dataclass
class FailingEvery:
    """onnxruntime's session, an F0 of NaN every `every`th run (one from the first)."""

    session: object
    every: int
    runs: int = 0

    def run(self, names, inputs):
        outputs = self.session.run(names, inputs)
        self.runs += 1
        if self.runs % self.every == 1 % self.every:
            outputs[5][...] = np.nan
        return outputs


@pytest.mark.parametrize("every", [3, 5, 7])
def test_generic_phrases_are_made_by_a_voice_that_fails_now_and_then(hibari_voice, every):
    """A phrase that fails is tried once more: a model failing one run in a few still makes
    every generic phrase (one that cannot be made refuses the configuration's voices)."""
    from cosyedge.speech.fallback import GENERIC_PHRASES, FallbackPhrases

    session = FailingEvery(hibari_voice.session, every)
    phrases = FallbackPhrases({"en": dataclasses.replace(hibari_voice, session=session)})
    assert session.runs > len(GENERIC_PHRASES["en"])  # some failed, and were made again
    for priority in GENERIC_PHRASES["en"]:
        samples = np.concatenate(list(phrases.rendering(priority).chunks))
        assert len(samples) > hibari_voice.sample_rate and np.abs(samples).max() > 3000


def test_generic_phrases_a_voice_cannot_make_are_left_out_and_said_why(hibari_voice):
    """Failed twice: left out, `unmade` saying why (the start reports it as the fault
    `voice`); where a priority has none, another priority's is said. A voice that can make
    none cannot speak: its error is raised (the start refuses its configuration)."""
    from cosyedge.speech.fallback import FallbackPhrases

    voice = dataclasses.replace(hibari_voice, session=FailingEvery(hibari_voice.session, 2))
    phrases = FallbackPhrases({"en": voice})  # every phrase of two steps fails both tries
    assert "not finite" in str(phrases.unmade["en"])
    low = np.concatenate(list(phrases.rendering("low").chunks))
    assert np.array_equal(np.concatenate(list(phrases.rendering("critical").chunks)), low)
    never = dataclasses.replace(hibari_voice, session=FailingEvery(hibari_voice.session, 1))
    with pytest.raises(ValueError, match="not finite"):
        FallbackPhrases({"en": never})
