"""Each English reading class, generated: every instance its generator draws reads as the
class says, alone, in a sentence and at its edges, next to every punctuation mark.

The expected reading comes from the reference verbalizer (reference_en.py), never from the
normalizer; the tables in test_english.py document the classes with examples.
"""

from __future__ import annotations

import pytest
import reference_en as ref
from hypothesis import given
from hypothesis import strategies as st
from reading_forms import (
    CLASSES,
    durations,
    identifiers,
    joined_fields,
    macs,
    timestamps,
    units,
    versions,
)

from cosyedge.speech.text.english import normalize

# Sentence frames whose own words no rule changes: the form alone, first, last, inside a
# sentence, followed by each punctuation mark, in brackets and quotes, as a heading.
FRAMES = [
    ("", ""),
    ("Alarm at ", " on line"),
    ("Check ", " now."),
    ("", "."),
    ("", ","),
    ("", ";"),
    ("", ": check it."),
    ("", "!"),
    ("", "?"),
    ("(", ")"),
    ('"', '"'),
    ("last ", ", next"),
    ("Report ", ": all clear."),
    ("At ", ": start."),
    ("Date: ", ""),
]
frames = st.sampled_from(FRAMES)


def heard(written: str, frame: tuple[str, str]) -> str:
    before, after = frame
    return normalize(before + written + after)


def expected(said: str, frame: tuple[str, str]) -> str:
    before, after = frame
    return before + said + after


@CLASSES
@given(form=durations(), frame=frames)
def test_compact_durations(form, frame):
    assert heard(form.written, frame) == expected(ref.duration(list(form.parts)), frame)


@CLASSES
@given(form=macs(), frame=frames)
def test_mac_addresses(form, frame):
    assert heard(form.written, frame) == expected(ref.mac(list(form.parts)), frame)


@CLASSES
@given(form=units(), frame=frames)
def test_units_with_prefixes_products_and_quotients(form, frame):
    assert heard(form.written, frame) == expected(ref.quantity(*form.parts), frame)


@CLASSES
@given(form=joined_fields(), frame=frames)
def test_a_known_field_inside_a_longer_token(form, frame):
    assert heard(form.written, frame) == expected(ref.joined(*form.parts), frame)


@CLASSES
@given(form=timestamps(), frame=frames)
def test_dates_and_times_with_any_punctuation_after_them(form, frame):
    assert heard(form.written, frame) == expected(ref.timestamp(*form.parts), frame)


@CLASSES
@given(form=versions(), frame=frames)
def test_versions(form, frame):
    assert heard(form.written, frame) == expected(ref.version(*form.parts), frame)


@CLASSES
@given(form=identifiers(), frame=frames)
def test_serial_numbers_and_long_identifiers(form, frame):
    assert heard(form.written, frame) == expected(ref.identifier(*form.parts), frame)


@CLASSES
@given(acronym=st.sampled_from(sorted(ref.WORD_ACRONYMS)), frame=frames)
def test_acronyms_said_as_words(acronym, frame):
    assert heard(acronym, frame) == expected(ref.WORD_ACRONYMS[acronym], frame)
    # Inside a longer word it is no acronym; and a site's own word is left for its entry.
    assert heard(acronym + "Z", frame) == expected(acronym + "Z", frame)
    before, after = frame
    assert normalize(before + acronym + after, keep={acronym}) == expected(acronym, frame)


def test_each_acronym_s_spelling_is_said_as_a_word_by_hibari():
    """hibari spells most words of capitals (L O T O); the spelling it is given instead is said
    as a word: fewer stressed syllables (primary or secondary) than the acronym has letters."""
    from cosyedge.config import VoiceConfig
    from cosyedge.speech.voices import load_front_end

    front = load_front_end("en", VoiceConfig(engine="hibari"))

    def stresses(text: str) -> int:
        said = "".join(front.read(text).units)
        return said.count("\u02c8") + said.count("\u02cc")

    assert stresses("L O T O") == 4  # letters, for contrast
    for acronym, spelling in ref.WORD_ACRONYMS.items():
        assert stresses(spelling) < len(acronym), (acronym, front.read(spelling).units)


@pytest.mark.parametrize(
    ("n", "said"),
    [
        *[(0, "zero"), (15, "fifteen"), (40, "forty"), (101, "one hundred one")],
        *[(1000, "one thousand"), (2_000_019, "two million nineteen"), (10**9, "one billion")],
    ],
)
def test_the_reference_counts_right(n, said):
    """The reference is itself checked, on hand-written readings."""
    assert ref.cardinal(n) == said
