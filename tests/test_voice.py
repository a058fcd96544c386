"""The real Piper voice in our own ONNX session."""

from __future__ import annotations

import time

import numpy as np
import pytest
from speech import transcribe

from cosyedge.config import VoiceConfig
from cosyedge.voices import load_voice
from cosyedge.voices.clauses import split_clauses


@pytest.fixture(scope="module")
def piper():
    return load_voice(VoiceConfig(engine="piper", threads=1))


def test_piper_speaks_words_a_recognizer_can_hear(piper):
    text = "Temperature alarm on line three. Check the pump."
    words = set(text.lower().replace(".", "").split())
    # Piper's decoder is stochastic and pocketsphinx is a weak judge: one rendering in a dozen
    # is heard at under half the words, so the best of three is judged. Noise or silence
    # gives close to none.
    best: set[str] = set()
    for _ in range(3):
        pcm = np.concatenate(list(piper.synthesize(text)))
        assert piper.sample_rate == 22050
        assert 1.5 < len(pcm) / piper.sample_rate < 6
        heard = words & set(transcribe(pcm, piper.sample_rate).split())
        best = max(best, heard, key=len)
        if len(best) >= 0.5 * len(words):
            break
    assert len(best) >= 0.5 * len(words), best


def test_synthesis_streams_clause_by_clause(piper):
    text = (
        "Boiler pressure on line two is above the limit, "
        "the relief valve has opened, "
        "and the operator on duty must check the feed pump at once."
    )
    started = time.monotonic()
    stamps = []
    for pcm in piper.synthesize(text):
        stamps.append((time.monotonic() - started, len(pcm)))
    assert len(stamps) == 3
    # The first clause arrives before the last one is done: it is yielded, not collected.
    assert stamps[0][0] < stamps[-1][0]
    assert all(n > 0.5 * piper.sample_rate for _, n in stamps)


def test_identity_depends_on_the_model_and_threads_do_not_change_it(piper):
    again = load_voice(VoiceConfig(engine="piper", threads=2))
    assert again.identity == piper.identity
    assert len(piper.identity) == 64


def test_session_uses_the_configured_thread_count(piper):
    options = piper._piper.session.get_session_options()
    assert options.intra_op_num_threads == 1
    two = load_voice(VoiceConfig(engine="piper", threads=2))
    assert two._piper.session.get_session_options().intra_op_num_threads == 2


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
