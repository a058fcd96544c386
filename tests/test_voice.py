"""Both voice families, real models in our own ONNX sessions."""

from __future__ import annotations

import time

import numpy as np
import pytest
from speech import best_heard

from cosyedge.config import SessionConfig, VoiceConfig
from cosyedge.speech.text.english import normalize
from cosyedge.speech.voices import load_voice
from cosyedge.speech.voices.clauses import MAX_CLAUSE_CHARS, split_clauses

ALERT = "Temperature alarm on line 3. Check the pump."


def spoken_words(text: str) -> set[str]:
    return set(normalize(text).lower().replace(".", "").replace(",", "").split())


def test_piper_speaks_words_a_recognizer_can_hear(piper_voice):
    assert piper_voice.sample_rate == 22050
    pcm = np.concatenate(list(piper_voice.synthesize(ALERT)))
    assert 1.5 < len(pcm) / piper_voice.sample_rate < 6
    words = spoken_words(ALERT)
    heard = best_heard(
        lambda: np.concatenate(list(piper_voice.synthesize(ALERT))), 22050, words, 0.5
    )
    assert len(heard) >= 0.5 * len(words), heard


def test_hibari_speaks_words_a_recognizer_can_hear(hibari_voice):
    pcm = np.concatenate(list(hibari_voice.synthesize(ALERT)))
    assert hibari_voice.sample_rate == 24000
    assert hibari_voice.name == "hibari-heart"
    assert 1.5 < len(pcm) / hibari_voice.sample_rate < 6
    # hibari is clearer than Piper joe-medium to pocketsphinx: 70-100 % across runs.
    words = spoken_words(ALERT)
    heard = best_heard(
        lambda: np.concatenate(list(hibari_voice.synthesize(ALERT))), 24000, words, 0.6
    )
    assert len(heard) >= 0.6 * len(words), heard


@pytest.mark.parametrize("fixture", ["piper_voice", "hibari_voice"])
def test_synthesis_yields_clause_by_clause(fixture, request):
    voice = request.getfixturevalue(fixture)
    text = (
        "Boiler pressure on line two is above the limit, "
        "the relief valve has opened, "
        "and the operator on duty must check the feed pump at once."
    )
    started = time.monotonic()
    stamps = [(time.monotonic() - started, len(pcm)) for pcm in voice.synthesize(text)]
    assert len(stamps) == 3
    # The first clause arrives before the last one is done: it is yielded, not collected.
    assert stamps[0][0] < stamps[-1][0]
    assert all(n > 0.5 * voice.sample_rate for _, n in stamps)


def test_identity_covers_model_and_normalizer_but_not_threads(piper_voice, hibari_voice):
    two_threads = VoiceConfig(engine="piper", session=SessionConfig(intra_op_threads=2))
    assert load_voice("en", two_threads).identity == piper_voice.identity
    # The same model reading another language's text rules must not share cached audio.
    assert load_voice("de", VoiceConfig(engine="piper")).identity != piper_voice.identity
    assert hibari_voice.identity != piper_voice.identity
    assert len(piper_voice.identity) == 64


def test_hibari_reads_only_files_inside_its_package(hibari_voice):
    import hibari

    package = hibari.__file__.rsplit("/", 1)[0]
    assert hibari_voice.session._model_path.startswith(package)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Short one.", ["Short one."]),
        (
            "Pressure alarm on line ten, sensor PT-173. Check now!",
            ["Pressure alarm on line ten,", "sensor PT-173. Check now!"],
        ),
        ("A, b, c, d.", ["A, b, c, d."]),
        (
            "The first clause is long enough, the second clause is long enough too.",
            ["The first clause is long enough,", "the second clause is long enough too."],
        ),
    ],
)
def test_clause_splitting(text, expected):
    assert split_clauses(text) == expected


def test_a_long_clause_is_cut_before_a_conjunction_to_bound_memory():
    text = (
        "the relief valve on the feed line of boiler two has opened because the pressure rose "
        "above the limit and the operator on duty must check the feed pump and the bypass valve "
        "before the next batch starts"
    )
    clauses = split_clauses(text)
    assert " ".join(clauses) == text
    assert all(len(c) <= MAX_CLAUSE_CHARS for c in clauses)
    assert clauses[1].startswith("and ")
