"""English readings new in en-11 (and what the English voice is handed), each class generated
or tabled with the neighbours that must not change: letters after Phase, Level or Class,
equipment numbers after `#` and `No.`, arrows."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reading_forms import CLASSES

from cosyedge.config.voices import SessionConfig
from cosyedge.speech.lexicon import NO_LEXICON
from cosyedge.speech.text.english import normalize
from cosyedge.speech.voices.hibari import HibariG2P

# --- a letter or a word after Phase, Level, Class: never a Roman numeral in the phonemes ------

HEADS = ["Phase", "Level", "Type", "Class", "Grade", "Section", "Stage", "Part", "Round",
         "phase", "level", "class", "Chapter", "Mark", "James"]  # fmt: skip
LETTERS = ["C", "L", "X", "I", "V", "D", "M", "C D", "X L", "L L", "C C", "L I", "C M"]
WORDS = ["Low", "Limit", "Check", "Circuit", "Valve", "Incoming", "Xenon", "Dry", "Main"]
NUMBER_WORDS = "zero one two four five ten forty fifty ninety hundred thousand the".split()


@pytest.fixture(scope="module")
def g2p() -> HibariG2P:
    return HibariG2P.load(False, SessionConfig(), None)


def phonemes(g2p: HibariG2P, words: str) -> set[str]:
    said = " ".join(g2p.units(words, NO_LEXICON, []))
    return {token.strip(",.;:!?") for token in said.split()}


@CLASSES
@given(
    head=st.sampled_from(HEADS),
    after=st.sampled_from(LETTERS + WORDS),
    before=st.sampled_from(["", "Alarm ", "TRIP: ", "(", "Pump 3, "]),
    end=st.sampled_from(["", " fault", ".", ", 5 bar", ") alarm", " current 12.5 A"]),
)
def test_a_letter_or_word_after_a_numbering_word_is_no_number(g2p, head, after, before, end):
    numbers = {g2p.g2p(word) for word in NUMBER_WORDS}
    said = phonemes(g2p, before + head + " " + after + end)
    wanted = phonemes(g2p, before + end) | {g2p.g2p(head)} | phonemes(g2p, after)
    assert not (said & numbers) - wanted, (head, after, said & numbers)


def test_a_roman_numeral_the_rules_read_is_still_its_number(g2p):
    assert g2p.g2p("two") in phonemes(g2p, normalize("Phase II fault"))
