"""The synthesis step the memory guard measures at a first start, kept for later starts
(cosyedge/speech/stepkept.py), with hibari's real voice: measured and kept once, read back
without speaking, measured again for anything it was not measured from or when its record
does not read back whole."""

from __future__ import annotations

import json

import pytest

from cosyedge.speech.kept import SavedDir
from cosyedge.speech.memory import REFERENCE_TEXT, MemoryGuard, SheddableVoice
from cosyedge.speech.stepkept import kept_step, made_from, record_path


@pytest.fixture
def voice(hibari_voice) -> SheddableVoice:
    return SheddableVoice(lambda: hibari_voice)


def measured(voice: SheddableVoice, saved: SavedDir | None, text: str = REFERENCE_TEXT):
    """A fresh guard's step after measuring `voice`, and whether it spoke to learn it (a guard
    that spoke has learnt from the steps it metered)."""
    guard = MemoryGuard(4096, [voice])
    guard.measure_voice(voice, text, saved)
    return guard.step_mb, guard.recent_mb > 0


def test_a_measured_step_is_kept_and_read_back_without_speaking(voice, tmp_path):
    saved = SavedDir(tmp_path / "models")
    first, spoke = measured(voice, saved)
    assert spoke and first > 0
    assert kept_step(saved, made_from(voice.identity, REFERENCE_TEXT)) == first
    assert measured(voice, saved) == (first, False)
    assert measured(voice, None)[1]  # without a saved-models directory: spoken every time


def test_another_text_or_voice_is_measured_again(voice, tmp_path):
    saved = SavedDir(tmp_path / "models")
    measured(voice, saved)
    assert measured(voice, saved, "Pump three tripped on overload.")[1]
    other = made_from(voice.identity + "-other", REFERENCE_TEXT)
    assert kept_step(saved, other) is None


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"{",
        b"[]",
        b'{"step_mb": 5.0}',
        b'{"made_from": {}, "step_mb": 5.0}',
        "nan",
        "-1",
        "1e300",
        '"many"',
    ],
)
def test_a_record_that_does_not_read_back_whole_is_measured_again(voice, tmp_path, damage):
    saved = SavedDir(tmp_path / "models")
    measured(voice, saved)
    path = record_path(saved, made_from(voice.identity, REFERENCE_TEXT))
    if isinstance(damage, str):  # the right record with a step that is no measurement
        record = json.loads(path.read_bytes())
        damage = json.dumps(record).replace(json.dumps(record["step_mb"]), damage).encode()
    path.write_bytes(damage)
    again, spoke = measured(voice, saved)
    assert spoke and again > 0
    assert kept_step(saved, made_from(voice.identity, REFERENCE_TEXT)) == again


def test_a_directory_that_cannot_keep_it_is_no_error(voice, tmp_path):
    blocked = tmp_path / "models"
    blocked.write_text("a file where the directory would be")
    step, spoke = measured(voice, SavedDir(blocked))
    assert spoke and step > 0
    assert measured(voice, SavedDir(blocked))[1]
