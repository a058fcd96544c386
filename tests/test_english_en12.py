"""English readings new in en-12, each class generated or tabled with the neighbours that must
not change: offsets from UTC after a time without seconds, days before a clock-notation length,
identifiers joined by underscores."""

from __future__ import annotations

import pytest
import reference_en as ref
from hypothesis import given
from hypothesis import strategies as st
from reading_forms import CLASSES, tags

from cosyedge.speech.text.english import normalize

# --- an offset from UTC after a time without seconds, parted by a space ----------------------


def _clock(hours: int, minutes: int) -> str:
    """A time of day as the rules say it: "oh six thirty", "fourteen hundred"."""
    said = ("oh " if hours < 10 else "") + ref.cardinal(hours)
    if not minutes:
        return said + " hundred"
    return said + (" oh " if minutes < 10 else " ") + ref.cardinal(minutes)


@CLASSES
@given(
    hours=st.integers(1, 23),
    minutes=st.integers(0, 59),
    offset=st.integers(1, 14),
    form=st.sampled_from(["+{:02d}:00", "+{:02d}00", "-{:02d}00"]),
    before=st.sampled_from(["", "Trip: ", "P-101A trip at "]),
)
def test_an_offset_after_a_time_without_seconds_is_from_utc(hours, minutes, offset, form, before):
    written = f"{before}{hours:02d}:{minutes:02d} {form.format(offset)}"
    sign = "plus" if form[0] == "+" else "minus"
    said = f"{_clock(hours, minutes)} U T C {sign} {ref.cardinal(offset)}"
    assert normalize(written).endswith(said)


OFFSETS = [
    ("P-101A trip: 2026-12-02 06:30 +01:00", "P one oh one eh trip: December second twenty"
     " twenty six, oh six thirty U T C plus one"),
    ("06:30 +01:00", "oh six thirty U T C plus one"),
    ("06:30 -05:00", "oh six thirty U T C minus five"),
    ("06:30 +0100", "oh six thirty U T C plus one"),
    ("14:05+02:00", "fourteen oh five U T C plus two"),
    # Neighbours: ranges forward, one back overnight, a value after a time.
    ("08:00 -09:30", "oh eight hundred to oh nine thirty"),
    ("22:00 -06:00", "twenty two hundred to oh six hundred"),
    ("at 06:30 +5 bar", "at oh six thirty plus five bar"),
]  # fmt: skip


@pytest.mark.parametrize(("written", "spoken"), OFFSETS)
def test_offsets_after_a_time(written, spoken):
    assert normalize(written) == spoken


# --- days before a clock-notation length -----------------------------------------------------


@CLASSES
@given(
    days=st.integers(1, 999),
    word=st.sampled_from(["days", "d", "DAYS", "day"]),
    clock=st.tuples(st.integers(0, 23), st.integers(0, 59), st.integers(1, 59)),
    cue=st.sampled_from(["Uptime ", "Runtime: ", "Up ", ""]),
)
def test_days_before_a_clock_are_a_length(days, word, clock, cue):
    hours, minutes, seconds = clock
    parts = [(hours, "hour"), (minutes, "minute"), (seconds, "second")]
    kept = [f"{ref.cardinal(n)} {unit if n == 1 else unit + 's'}" for n, unit in parts if n]
    kept[-1] = ("and " if len(kept) > 1 else "") + kept[-1]
    said_word = ("day" if days == 1 else "days") if word == "d" else word
    written = f"{cue}{days} {word} {hours:02d}:{minutes:02d}:{seconds:02d}"
    assert normalize(written) == f"{cue}{ref.cardinal(days)} {said_word}, {' '.join(kept)}"


DAYS = [
    ("Uptime 3 days 04:05:06", "Uptime three days, four hours five minutes and six seconds"),
    ("Runtime 12 days, 23:59:59", "Runtime twelve days, twenty three hours fifty nine minutes"
     " and fifty nine seconds"),
    # Neighbours: no seconds (perhaps a time of day), a length alone.
    ("in 3 days 14:00", "in three days fourteen hundred"),
    ("Uptime 04:05:06", "Uptime four hours five minutes and six seconds"),
]  # fmt: skip


@pytest.mark.parametrize(("written", "spoken"), DAYS)
def test_days_before_a_clock(written, spoken):
    assert normalize(written) == spoken


# --- identifiers joined by underscores ---------------------------------------------------------


@CLASSES
@given(
    form=tags(),
    member=st.sampled_from(["PV", "SP", "OUT", "Alarm"]),
    before=st.sampled_from(["", "tag ", "Bad quality: "]),
    after=st.sampled_from(["", " bad", ".", ", check"]),
)
def test_a_tag_joined_by_underscores_is_read_as_a_tag(form, member, before, after):
    letters, digits, suffix = form.parts
    written = f"{before}{letters}_{digits}{suffix}_{member}{after}"
    assert normalize(written) == normalize(f"{before}{form.written} {member}{after}")
    assert "_" not in normalize(written)


UNDERSCORES = [
    ("tag FT_101_PV bad", "tag F T one oh one PV bad"),
    ("TIC_331A_SP", "T I C three three one eh SP"),
    ("line_3_pump", "line three pump"),
    ("Tag_Name", "Tag Name"),
    # Neighbours: a file's name, a path, a tag's suffix after its hyphen.
    ("/var/log/my_file", "/var/log/my_file"),
    ("FV-12_A", normalize("FV-12_A")),
]


@pytest.mark.parametrize(("written", "spoken"), UNDERSCORES)
def test_underscores(written, spoken):
    assert normalize(written) == spoken


# --- units in capitals after a word naming the measure; radians; money with a magnitude ------

_CUED_UNITS = [
    (["LEVEL", "Level", "HEIGHT", "Depth", "DISTANCE"], "M", "meter", "meters"),
    (["WEIGHT", "Weight", "LOAD", "Mass"], "T", "tonne", "tonnes"),
    (["OIL", "Oil", "COOLANT", "Water", "AMBIENT"], "C", "degree Celsius", "degrees Celsius"),
]


@st.composite
def cued_capitals(draw) -> tuple[str, str]:
    """A word naming what is measured, a number, then a capital letter its unit would be
    written in small letters (onto the number or apart; C only onto it)."""
    words, letter, _, many = draw(st.sampled_from(_CUED_UNITS))
    word, whole = draw(st.sampled_from(words)), draw(st.integers(2, 999))
    decimals = draw(st.sampled_from(["", ".5", ".25"]))
    space = "" if letter == "C" else draw(st.sampled_from(["", " "]))
    said = ref.cardinal(whole) + (" point " + ref.digit_words(decimals[1:]) if decimals else "")
    return f"{word} {whole}{decimals}{space}{letter}", f"{word} {said} {many}"


@CLASSES
@given(form=cued_capitals(), end=st.sampled_from(["", " HIGH", ", check", "."]))
def test_a_capital_unit_after_a_word_naming_its_measure_is_said(form, end):
    written, said = form
    assert normalize(written + end) == said + end


UNITS_EN12 = [
    ("LEVEL 2.5 M", "LEVEL two point five meters"),
    ("WEIGHT 5 T", "WEIGHT five tonnes"),
    ("Oil 60C", "Oil sixty degrees Celsius"),
    ("CONDUCTIVITY 1250 US/CM", "CONDUCTIVITY one thousand two hundred fifty microsiemens per"
     " centimeter"),
    ("150 rad/s", "one hundred fifty radians per second"),
    ("SPEED 150 RAD/S", "SPEED one hundred fifty radians per second"),
    ("Budget 1.2M USD", "Budget one point two million dollars"),
    ("Loss 3k EUR", "Loss three thousand euros"),
    # Neighbours: the other measure's letter, a label's letter, a country, money as before.
    ("Level 3 T", "Level three T"),
    ("Weight 2 M", "Weight two M"),
    ("Tank 12 M", "Tank twelve M"),
    ("Pump 3C", "Pump three C"),
    ("5 US", "five US"),
    ("$1.2M", "one point two million dollars"),
    ("5 USD", "five dollars"),
]  # fmt: skip


@pytest.mark.parametrize(("written", "spoken"), UNITS_EN12)
def test_units_en12(written, spoken):
    assert normalize(written) == spoken


# --- kelvin written onto a decimal; a serial line's frame --------------------------------------


@CLASSES
@given(
    decimals=st.text("0123456789", min_size=1, max_size=4),
    whole=st.sampled_from(["0", "", "-0", "+0"]),
    word=st.sampled_from(["COMPRESSOR 13 ", "dT ", "Drift: ", ""]),
    end=st.sampled_from(["", " LOW", "."]),
)
def test_kelvin_onto_a_decimal_below_one_is_kelvin(decimals, whole, word, end):
    sign = {"-": "minus ", "+": "plus "}.get(whole[:1], "")
    said = f"{sign}zero point {ref.digit_words(decimals)} kelvin"
    assert normalize(f"{word}{whole}.{decimals}K{end}").endswith(said + end)


@CLASSES
@given(
    frame=st.tuples(st.sampled_from("5678"), st.sampled_from("NEO"), st.sampled_from("12")),
    baud=st.sampled_from([1200, 9600, 19200, 115200]),
    end=st.sampled_from(["", " lost", ".", ", check cable"]),
)
def test_a_serial_frame_after_a_baud_rate_is_said_as_written(frame, baud, end):
    bits, parity, stops = frame
    said = f"{ref.cardinal(baud)}, {ref.cardinal(int(bits))} {parity} {ref.cardinal(int(stops))}"
    assert normalize(f"{baud} {bits}{parity}{stops}{end}") == said + end


KELVIN_AND_FRAMES = [
    ("WARNING COMPRESSOR 13 0.665K LOW", "WARNING COMPRESSOR thirteen, zero point six six five"
     " kelvin LOW"),
    ("Serial COM3 9600 8N1", "Serial C O M three, nine thousand six hundred, eight N one"),
    ("8N1", "eight N one"),
    # Neighbours: a thousand, a power of ten without a baud rate.
    ("1.5K cycles", "one point five thousand cycles"),
    ("5K cycles", "five thousand cycles"),
    ("7E1", "seven times ten to the one"),
]  # fmt: skip


@pytest.mark.parametrize(("written", "spoken"), KELVIN_AND_FRAMES)
def test_kelvin_and_serial_frames(written, spoken):
    assert normalize(written) == spoken
