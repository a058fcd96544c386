"""English readings new in en-10, each class generated or tabled with the neighbours that must
not change: durations in a row, equipment numbers before values, all-capital alerts, fields
after `word/`, colon chains, chemical formulas and multipliers."""

from __future__ import annotations

import re

import pytest
import reference_en as ref
from hypothesis import assume, given
from hypothesis import strategies as st
from reading_forms import CLASSES, durations
from test_reading_classes import expected, frames, heard

from cosyedge.speech.text.english import normalize

# --- compact durations in a row -----------------------------------------------------------


@CLASSES
@given(
    first=durations(),
    second=durations(),
    joint=st.sampled_from([" ", ", ", "; ", " then "]),
    frame=frames,
)
def test_two_compact_durations_in_a_row_are_each_a_duration(first, second, joint, frame):
    # A space before smaller units goes on the same duration (`2d 4h` then `30m`).
    units = ["day", "hour", "minute", "second"]
    after = units.index(second.parts[0][1]) > units.index(first.parts[-1][1])
    assume(not (after and joint == " " and "." not in first.parts[-1][0]))
    written = first.written + joint + second.written
    said = ref.duration(list(first.parts)) + joint + ref.duration(list(second.parts))
    assert heard(written, frame) == expected(said, frame)


DURATIONS_IN_A_ROW = [
    ("3h40m 3h40m", "three hours and forty minutes three hours and forty minutes"),
    ("3h40m, 2h", "three hours and forty minutes, two hours"),
    ("3h40m 2h.", "three hours and forty minutes two hours."),
    ("Up 3h40m 5 kg", "Up three hours and forty minutes five kilograms"),
    ("1h30m 2d4h 5s", "one hour and thirty minutes two days four hours and five seconds"),
    ("2d 4h 30m 10s", "two days four hours thirty minutes and ten seconds"),  # one duration
]


@pytest.mark.parametrize(("written", "spoken"), DURATIONS_IN_A_ROW)
def test_durations_in_a_row(written, spoken):
    assert normalize(written) == spoken
