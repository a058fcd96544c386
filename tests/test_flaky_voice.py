"""A voice that fails now and then (a model giving values that are not finite one run in a
few) never stops the start: what it fails at start is tried once more, and what still fails
is left out and reported as the fault `voice`, as an alert's failed phrase is; a voice's
first phrase after a load that fails once does not give it away to its stand-in."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_render import FailingEvery

from cosyedge import build
from cosyedge.config.loader import parse_config
from cosyedge.faults import Faults
from cosyedge.speech.memory import SheddableVoice
from cosyedge.speech.voices import hibari


@dataclasses.dataclass
class LaterFailing(FailingEvery):
    """Past the first `after` runs (the load's own phrases), one run in `every` fails."""

    after: int = 0

    def run(self, names, inputs):
        outputs = self.session.run(names, inputs)
        self.runs += 1
        if self.runs > self.after and self.runs % self.every == 0:
            outputs[5][...] = np.nan
        return outputs


def flaky_sessions(monkeypatch, every: int, after: int = 0) -> None:
    """Every hibari session made from now on fails one run in `every` past its `after`th."""
    make = hibari.make_session

    def flaky(*args, **kwargs) -> LaterFailing:
        return LaterFailing(make(*args, **kwargs), every, after=after)

    monkeypatch.setattr(hibari, "make_session", flaky)


@pytest.mark.parametrize("every", [2, 3])
def test_a_start_with_a_voice_failing_now_and_then_runs_under_the_fault_voice(
    tmp_path, monkeypatch, every
):
    """Before, the start's measured phrase (three steps) failing stopped the start, and the
    safe core, on the same voice, with it: no daemon. Now it runs degraded, and the fault
    clears at the voice's first whole phrase."""
    flaky_sessions(monkeypatch, every)
    where = f"state_dir: {tmp_path}/state\ncache: {{dir: {tmp_path}/cache}}\n"
    speech = build.build_speech(parse_config(where), Faults())
    try:
        assert "not finite" in (speech.renderer.trouble or "")
        # The step could not be measured (three steps, both tries): the largest step its
        # tries took stands for it, not nothing.
        assert speech.memory.learning and speech.memory.step_mb >= speech.memory.largest_mb > 0
        for _ in range(2 * every):  # some of these fail, one in `every` runs
            rendering = speech.renderer.synthesize("Stop.")
            try:
                list(rendering.chunks)
                break
            except Exception:
                continue
        assert speech.renderer.trouble is None
        # A phrase metered whole ends the learning: its largest step is the reference, and
        # a later outlier decays as after a measured start.
        for _ in speech.memory.metered(iter([np.zeros(10, np.int16)])):
            pass
        assert not speech.memory.learning and speech.memory.reference_mb > 0
        said = speech.fallback.rendering("critical")
        assert np.abs(np.concatenate(list(said.chunks))).max() > 3000
    finally:
        speech.renderer.stop(timeout=30)
        speech.renderer.cache.close()


def test_a_voice_that_fails_every_phrase_after_its_load_is_refused(tmp_path, monkeypatch):
    """It said its load's phrase, then nothing: it cannot speak, so its configuration is
    refused as before (the next one runs: the last good, the embedded defaults), not kept
    mute under the fault `voice`."""
    flaky_sessions(monkeypatch, 1, after=2)
    where = f"state_dir: {tmp_path}/state\ncache: {{dir: {tmp_path}/cache}}\n"
    with pytest.raises(ValueError, match="not finite"):
        build.build_speech(parse_config(where), Faults())


def test_a_first_phrase_failing_once_keeps_the_configured_voice(hibari_voice):
    failing_once = FailingEvery(hibari_voice.session, 10**6)  # its first run only
    flaky = dataclasses.replace(hibari_voice, session=failing_once)
    voice = SheddableVoice(lambda: flaky, lambda: hibari_voice, "voices.en")
    assert len(np.concatenate(list(voice.synthesize("Pump four has stopped.")))) > 0
    assert voice.replaced is None and voice._voice is flaky and failing_once.runs >= 2


def test_a_first_phrase_failing_twice_gives_way_to_the_stand_in(hibari_voice):
    broken = dataclasses.replace(hibari_voice, session=FailingEvery(hibari_voice.session, 1))
    voice = SheddableVoice(lambda: broken, lambda: hibari_voice, "voices.en")
    assert len(np.concatenate(list(voice.synthesize("Pump four has stopped.")))) > 0
    assert "could not say its first phrase" in (voice.replaced or "")


@dataclasses.dataclass
class ShortOfMemory:
    """onnxruntime's session out of memory for its first `runs` runs."""

    session: object
    runs: int

    def run(self, names, inputs):
        self.runs -= 1
        if self.runs >= 0:
            raise MemoryError("bad_alloc")
        return self.session.run(names, inputs)


def test_generic_phrases_memory_kept_from_are_made_at_a_later_alert(hibari_voice, monkeypatch):
    """Memory short at start (every phrase, both tries' first runs): none held, and the
    language was never tried again, so every refused alert later failed unheard. Now the
    next alert of its language tries again once RETRY_S have passed."""
    from cosyedge.speech import fallback

    short = dataclasses.replace(hibari_voice, session=ShortOfMemory(hibari_voice.session, 4))
    phrases = fallback.FallbackPhrases({"en": short})
    with pytest.raises(RuntimeError, match="no generic phrase"):
        phrases.rendering("high")
    phrases.prepare("en")  # too soon: not tried again
    with pytest.raises(RuntimeError, match="no generic phrase"):
        phrases.rendering("high")
    monkeypatch.setattr(fallback, "RETRY_S", 0.0)
    phrases.prepare("en")
    said = np.concatenate(list(phrases.rendering("high").chunks))
    assert np.abs(said).max() > 3000 and not phrases.missing("en")
