"""Declared phrases, pre-warming and background upkeep, with the real Piper voice."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from support import config_problems, wait_until

from cosyedge.config import VoiceConfig, parse_config
from cosyedge.intake.templates import declared_phrases
from cosyedge.speech.cache import CacheEvent, PhraseCache
from cosyedge.speech.cache.background import Activity, CacheUpkeep
from cosyedge.speech.cache.warm import Phrase, warm_one
from cosyedge.speech.render import QUEUE_CLAUSES, Renderer
from cosyedge.speech.voices import load_voice


def test_declared_values_expand_through_the_real_template_formatter():
    config = parse_config(
        "voices: {en: {}, de: {engine: piper}}\n"
        "templates:\n"
        "  - topic: plant/{line}/door\n"
        "    text: 'Door on line {line} is {state}.'\n"
        "    values: {line: '1..3', state: [open, closed]}\n"
        "  - topic: plant/{line}/temp\n"
        "    text: 'Line {line} at {t:.1f} degrees.'\n"
        "    values: {line: 7, t: [80, 85.25]}\n"
        "    lang: de\n"
        "  - topic: plant/evacuate\n"
        "    text: 'Please   leave the building.'\n"
        "  - topic: cosyedge/say\n"
        "    text: '{text}'\n",
        "site.yaml",
    )
    phrases = declared_phrases(config.templates)
    assert [p.text for p in phrases] == [
        "Door on line 1 is open.",
        "Door on line 1 is closed.",
        "Door on line 2 is open.",
        "Door on line 2 is closed.",
        "Door on line 3 is open.",
        "Door on line 3 is closed.",
        "Line 7 at 80.0 degrees.",
        "Line 7 at 85.2 degrees.",
        "Please leave the building.",  # fixed text: one phrase; {text} cannot be listed
    ]
    assert {p.lang for p in phrases[6:8]} == {"de"}


def test_bad_values_are_named_by_file_template_and_field():
    found = config_problems(
        "templates:\n"
        "  - topic: a/{line}\n"
        "    text: 'Line {line} is {state}.'\n"
        "    values: {line: '12..1', state: [open]}\n"
        "  - topic: b\n"
        "    text: 'Line {line} is {state}.'\n"
        "    values: {lien: [1], state: [open]}\n"
        "  - topic: c\n"
        "    text: 'Line {line} is {state}.'\n"
        "    values: {line: '1..12'}\n"
        "  - topic: d\n"
        "    text: 'Line {line} is {state}.'\n"
        "    values: {line: [1, {a: 2}], state: []}\n"
        "  - topic: e\n"
        "    text: '{a} {b}'\n"
        "    values: {a: '1..1000', b: '1..1000'}\n"
        "  - topic: f\n"
        "    text: hi\n"
        "    values: [1, 2]\n"
    )
    assert found == [
        "site.yaml: templates[0].values.line: range 12..1 runs backwards",
        "site.yaml: templates[1].values.lien: not a placeholder of text "
        "(placeholders: line, state)",
        "site.yaml: templates[2].values: no values for state; declare every placeholder "
        "so the phrases can be listed",
        "site.yaml: templates[3].values.line[1]: expected a plain value, got a mapping",
        "site.yaml: templates[4].values: 1000000 phrases, more than 10000 per template",
        "site.yaml: templates[5].values: expected a mapping of field names to values",
    ]


@pytest.fixture(scope="module")
def voice():
    return load_voice("en", VoiceConfig(engine="piper"))


def test_damaged_entry_is_synthesized_again(tmp_path, voice):
    events: list[CacheEvent] = []
    renderer = Renderer({"en": voice}, PhraseCache(tmp_path, on_event=events.append))
    first = renderer.render("Pump three stopped.", "en")
    assert first.source == "synth"
    audio = np.concatenate(list(first.chunks))
    key = renderer.key("Pump three stopped.", "en")
    renderer.cache.path(key).write_bytes(b"")  # the peer's famous zero-length file

    again = renderer.render("Pump three stopped.", "en")
    assert again.source == "synth" and [e.kind for e in events] == ["empty"]
    resynthesized = np.concatenate(list(again.chunks))
    assert 0.5 * len(audio) < len(resynthesized) < 2 * len(audio)
    third = renderer.render("Pump three stopped.", "en")
    assert third.source == "cache"
    assert np.array_equal(next(third.chunks), resynthesized)


def test_background_warm_waits_for_the_announcer_then_pins_what_it_rendered(tmp_path, voice):
    cache = PhraseCache(tmp_path)
    renderer = Renderer({"en": voice}, cache)
    phrases = [Phrase(f"Door {n} is open.", "en") for n in ("one", "two", "three")]
    activity = Activity()
    upkeep = CacheUpkeep(cache, renderer, phrases, activity, settle_s=0.05)
    held = threading.Event()
    release = threading.Event()

    def announcer():
        with activity.busy():
            held.set()
            release.wait(10)

    threading.Thread(target=announcer, daemon=True).start()
    held.wait(5)
    upkeep.start()
    try:
        time.sleep(1.0)
        assert cache.stats().entries == 0  # nothing rendered while an alert is busy
        release.set()
        wait_until(lambda: cache.stats().pinned == 3, 60, "three pinned phrases")

        # While busy again, warming a new list stops after at most the phrase in flight.
        more = [Phrase(f"Conveyor {n} has stopped, check the belt.", "en") for n in range(8)]
        upkeep2 = CacheUpkeep(cache, renderer, phrases + more, activity, settle_s=0.05)
        upkeep.stop()
        upkeep2.start()
        wait_until(lambda: cache.stats().entries >= 4, 60, "warming to resume")
        with activity.busy():
            count = cache.stats().entries
            time.sleep(1.5)
            assert cache.stats().entries <= count + 1
        upkeep2.stop()
    finally:
        release.set()
        upkeep.stop()


def test_warm_one_reports_what_it_did(tmp_path, voice):
    renderer = Renderer({"en": voice}, PhraseCache(tmp_path))
    # More clauses than synthesis may run ahead of the reader, so that stopping after the
    # first one abandons the phrase half-way (a one-clause phrase may finish before the
    # reader is asked, and is then whole and rightly stored).
    long = Phrase(" ".join(f"Tank {n} is full." for n in range(1, QUEUE_CLAUSES + 4)), "en")
    assert warm_one(renderer, long, interrupted=lambda: True) == "interrupted"
    assert not renderer.cache.contains(renderer.key(long.text, long.lang))
    phrase = Phrase("Tank two is full.", "en")
    assert warm_one(renderer, phrase) == "new"
    assert warm_one(renderer, phrase) == "cached"
    stats = renderer.cache.stats()
    assert (stats.entries, stats.lookups) == (1, 0)  # warming leaves the hit rate alone
