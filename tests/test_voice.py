"""Both voice families, real models in our own ONNX sessions."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from speech import best_heard

from cosyedge.config import SessionConfig, VoiceConfig
from cosyedge.speech.memory import REFERENCE_TEXT
from cosyedge.speech.text.english import normalize
from cosyedge.speech.voices import hibari, load_voice, piper
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


def cut_as_late_as_possible(phonemes: str, limit: int) -> list[str]:
    """Pieces cut at the last space within `limit`: the fewest there can be."""
    pieces = []
    while len(phonemes) > limit:
        cut = phonemes.rfind(" ", 0, limit + 1)
        pieces.append(phonemes[:cut])
        phonemes = phonemes[cut + 1 :]
    return [*pieces, phonemes]


PHONEME_WORDS = st.text(alphabet="abəɹ" + hibari.PRIMARY_STRESS, min_size=1, max_size=12)


@given(st.lists(PHONEME_WORDS, min_size=1, max_size=60))
def test_hibari_cuts_phonemes_only_at_spaces_into_the_fewest_even_pieces(words):
    phonemes = " ".join(words)
    pieces = hibari.cut_phonemes(phonemes, 64)
    assert " ".join(pieces) == phonemes  # only the spaces cut at are gone
    assert all(0 < len(piece) <= 64 for piece in pieces)
    assert len(pieces) == len(cut_as_late_as_possible(phonemes, 64))
    if len(pieces) == 2:  # no stray word or two on its own
        assert min(len(piece) for piece in pieces) >= len(phonemes) / 4 - 1


def test_hibari_cuts_a_word_longer_than_a_step_into_even_pieces():
    assert hibari.cut_phonemes("ab " + "c" * 70 + " d", 64) == ["ab", "c" * 35, "c" * 35, "d"]


@given(st.text(alphabet="abəɹ " + hibari.PRIMARY_STRESS, min_size=1, max_size=3000))
def test_hibari_steps_are_bounded_whatever_the_words(phonemes):
    """A run of spelled capitals, a hash, a URL: no step is longer than the limit, and every
    phoneme is still said."""
    pieces = hibari.cut_phonemes(phonemes, 64)
    assert all(0 < len(piece) <= 64 for piece in pieces)
    assert "".join("".join(pieces).split()) == "".join(phonemes.split())


def test_hibari_cuts_where_spaces_are_doubled():
    assert hibari.cut_phonemes("aaaaaaaaaa  bbbbbbbbb cccc", 20) == ["aaaaaaaaaa", "bbbbbbbbb cccc"]


def test_hibari_cuts_where_a_pause_is_natural_never_inside_a_number():
    s = hibari.PRIMARY_STRESS
    number = {f"tw{s}o", f"h{s}undred", f"f{s}orty"}
    said = (
        f"g{s}as al{s}arm: amm{s}onia at tw{s}o h{s}undred f{s}orty tw{s}o p{s}arts per m{s}illion."
    )
    assert hibari.cut_phonemes(said, 56, number) == [  # before a function word
        f"g{s}as al{s}arm: amm{s}onia",
        f"at tw{s}o h{s}undred f{s}orty tw{s}o p{s}arts per m{s}illion.",
    ]
    said = f"s{s}ensor r{s}eads tw{s}o h{s}undred f{s}orty tw{s}o d{s}egrees c{s}elsius n{s}ow"
    # Between other words, nearest an equal share, but not inside the number.
    assert hibari.cut_phonemes(said, 48, number) == [
        f"s{s}ensor r{s}eads tw{s}o h{s}undred f{s}orty tw{s}o",
        f"d{s}egrees c{s}elsius n{s}ow",
    ]


@pytest.mark.parametrize(
    ("text", "words_of_steps"),
    [
        ("Gas alarm: ammonia at 242 parts per million.", [3, 8]),  # before "at"
        # Nearest an equal share, the tag and the value each whole.
        ("Sensor TT-180 reads 109.6 degrees Celsius and rising fast", [12, 5]),
    ],
)
def test_hibari_cuts_real_alerts_where_a_pause_is_natural(hibari_voice, text, words_of_steps):
    steps = list(hibari_voice.front.units(text))
    assert all(len(step) <= hibari.MAX_PHONEMES for step in steps)
    assert [len(step.split()) for step in steps] == words_of_steps, steps


def test_the_guards_reference_text_makes_each_voices_longest_step(hibari_voice, piper_voice):
    """The memory guard speaks REFERENCE_TEXT at start to learn what one step costs: for each
    voice it must contain a step as long as the voice ever makes."""
    hibari_steps = [len(step) for step in hibari_voice.front.units(REFERENCE_TEXT)]
    assert hibari.MAX_PHONEMES - 4 <= max(hibari_steps) <= hibari.MAX_PHONEMES, hibari_steps
    piper_steps = [len(step) for step in piper_voice.front.units(REFERENCE_TEXT)]
    assert piper.MAX_PHONEMES - 8 <= max(piper_steps) <= piper.MAX_PHONEMES, piper_steps


def silence_s(pcm: np.ndarray, sample_rate: int, end: bool) -> float:
    """Seconds of silence (10 ms frames under 2 % of the peak) at the start or the end."""
    frame = sample_rate // 100
    peaks = np.abs(pcm[: len(pcm) // frame * frame].reshape(-1, frame)).max(axis=1)
    loud = np.flatnonzero(peaks > 0.02 * peaks.max())
    frames = len(peaks) - 1 - loud[-1] if end else loud[0]
    return frames / 100


def test_hibari_pauses_at_a_cut_as_within_a_step_not_as_between_clauses(hibari_voice):
    first, second = hibari_voice.synthesize("Gas alarm: ammonia at 242 parts per million.")
    rate = hibari_voice.sample_rate
    pause = silence_s(first, rate, end=True) + silence_s(second, rate, end=False)
    assert 0.25 <= pause <= 0.45, pause  # two steps' own ends would make 0.75 s
    (whole,) = hibari_voice.synthesize("Gas alarm: ammonia at 242.")
    assert silence_s(whole, rate, end=False) >= 0.25  # not shortened where nothing was cut
    assert silence_s(second, rate, end=True) >= 0.35


@pytest.mark.parametrize(("lang", "text"), [("zh", "锅炉压力过高" * 80), ("en", "w" * 1000)])
def test_cosyvoice_steps_are_bounded_whatever_the_text(lang, text):
    """A run with nothing to cut at is still given to the model in bounded pieces, all of it."""
    from cosyedge.speech.lexicon import NO_LEXICON
    from cosyedge.speech.voices.clauses import MAX_CLAUSE_CHARS
    from cosyedge.speech.voices.cosyvoice import ZH_UNIT_CHARS, text_units

    units = list(text_units(lang)(text, NO_LEXICON, []))
    limit = ZH_UNIT_CHARS if lang == "zh" else MAX_CLAUSE_CHARS
    assert len(units) > 1 and all(len(unit) <= limit for unit in units)
    ending = "。" if lang == "zh" else ""  # Chinese gets the reference frontend's final mark
    assert "".join(units) == text + ending
