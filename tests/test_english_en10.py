"""English readings new in en-10, each class generated or tabled with the neighbours that must
not change: durations in a row, equipment numbers before values, all-capital alerts, fields
after `word/`, colon chains, chemical formulas and multipliers."""

from __future__ import annotations

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


# --- an equipment's number before a value ----------------------------------------------------

NOUNS = ["Pump", "Line", "Panel", "Tank", "pump", "TANK", "Valve", "Motor", "Chiller", "Unit"]
_MONTH_ABBR = [m[:3] for m in ref.MONTHS]


@st.composite
def equipment_values(draw) -> tuple[str, str]:
    """An equipment noun, its number, then a value a number before it would join: a month and
    a day, a slash date, a month and year, a fraction, thousands in groups."""
    noun, n = draw(st.sampled_from(NOUNS)), draw(st.integers(1, 9999))
    kind = draw(st.sampled_from(["month_day", "slash_date", "month_year", "fraction", "grouped"]))
    if kind == "month_day":
        month, day = draw(st.integers(1, 12)), draw(st.integers(1, 28))
        value = (f"{_MONTH_ABBR[month - 1]} {day}", f"{ref.MONTHS[month - 1]} {ref.ordinal(day)}")
    elif kind == "slash_date":
        day, month, y = (
            draw(st.integers(13, 28)),
            draw(st.integers(1, 12)),
            draw(st.integers(2000, 2099)),
        )
        value = (f"{day:02}/{month:02}/{y}", ref.date(y, month, day))
    elif kind == "month_year":
        month, y = draw(st.integers(1, 12)), draw(st.integers(2001, 2099))
        value = (f"{month:02}/{y}", f"{ref.MONTHS[month - 1]} {ref.year(y)}")
    elif kind == "fraction":
        d = draw(st.sampled_from([2, 4, 8]))
        top = draw(st.integers(1, d - 1))
        value = (f"{top}/{d} open", f"{ref.fraction_words(top, d)} open")
    else:
        thousands, rest = draw(st.integers(1, 999)), draw(st.integers(0, 999))
        value = (f"{thousands} {rest:03} kg", f"{ref.cardinal(thousands * 1000 + rest)} kilograms")
    return f"{noun} {n} {value[0]}", f"{noun} {ref.cardinal(n)}, {value[1]}"


@CLASSES
@given(form=equipment_values(), frame=frames)
def test_an_equipment_number_is_never_part_of_the_value_after_it(form, frame):
    written, said = form
    assert heard(written, frame) == expected(said, frame)


EQUIPMENT_NUMBERS = [
    ("Pump 3 Dec 2", "Pump three, December second"),
    ("Line 12 01/05/2024", "Line twelve, May first twenty twenty four"),
    ("Pump 3 3/4 open", "Pump three, three quarters open"),
    ("Pump 3 1 500 kg", "Pump three, one thousand five hundred kilograms"),
    ("Panel 3/12/2026", "Panel December third twenty twenty six"),  # a date written whole
    ("Panel 3 12/2026", "Panel three, December twenty twenty six"),
    ("Pump 3 12:05.", "Pump three, twelve oh five."),
    # Neighbours that keep their reading: a quantity's word, a size in inches, a full date.
    ("Total 1 500 kg", "Total one thousand five hundred kilograms"),
    ('Valve 1 1/2" open', "Valve one and one half inches open"),
    ("Report 3 Dec 2026", "Report December third twenty twenty six"),
    ("Tank 12 A", "Tank twelve eh"),
    ("Alarm 12 01/05/2024", "Alarm twelve May first twenty twenty four"),  # no day of its date
    ("Due 3 Dec", "Due December third"),
]


@pytest.mark.parametrize(("written", "spoken"), EQUIPMENT_NUMBERS)
def test_equipment_numbers(written, spoken):
    assert normalize(written) == spoken


# --- alerts in capitals: decimal commas, minutes, degrees ------------------------------------

CAPITAL_FRAMES = [("ALARM ", " NOW"), ("", ""), ("CHECK ", " NOW."), ("", ","), ("HIGH ", "!")]
capital_frames = st.sampled_from([*CAPITAL_FRAMES, ("Alarm at ", " on line"), ("(", ")")])
_LETTER_UNITS = {"A": ("amp", "amps"), "V": ("volt", "volts"), "W": ("watt", "watts")}
_DEGREE_SPELLINGS = ["DEGC", "DEG C", "degC", "deg C", "oC", "degrees C", "DEGF", "deg F", "oF"]


@st.composite
def capital_values(draw) -> tuple[str, str]:
    """A value as an all-capital alert (or a careless one) writes it: a decimal comma after a
    zero before A, V or W; minutes and seconds after a word of waiting before MIN; degrees
    with a word or a small o for the sign."""
    kind = draw(st.sampled_from(["zero_comma", "minutes", "degrees"]))
    if kind == "zero_comma":
        decimals, letter = (
            draw(st.from_regex(r"\d{1,2}", fullmatch=True)),
            draw(st.sampled_from("AVW")),
        )
        said = f"zero point {ref.digit_words(decimals)} {_LETTER_UNITS[letter][1]}"
        return f"0,{decimals} {letter}", said
    if kind == "minutes":
        word = draw(st.sampled_from(["WAIT", "wait", "DELAY", "TIMEOUT"]))
        minutes, seconds = draw(st.integers(1, 59)), draw(st.integers(1, 59))
        unit = draw(st.sampled_from(["MIN", "MINS", "min"]))
        said = ref.duration([(str(minutes), "minute"), (str(seconds), "second")])
        return f"{word} {minutes:02}:{seconds:02} {unit}", f"{word} {said}"
    amount, spelling = draw(st.integers(0, 999)), draw(st.sampled_from(_DEGREE_SPELLINGS))
    scale = "Celsius" if spelling.endswith("C") else "Fahrenheit"
    degrees = "degree" if amount == 1 else "degrees"
    return f"{amount} {spelling}", f"{ref.cardinal(amount)} {degrees} {scale}"


@CLASSES
@given(form=capital_values(), frame=capital_frames)
def test_values_as_alerts_in_capitals_write_them(form, frame):
    written, said = form
    assert heard(written, frame) == expected(said, frame)


CAPITALS = [
    ("ALARM 0,75 A NOW", "ALARM zero point seven five amps NOW"),
    ("WAIT 05:30 MIN", "WAIT five minutes and thirty seconds"),
    ("TEMP 85 DEGC", "TEMP eighty five degrees Celsius"),
    ("Temp 85 degC.", "Temp eighty five degrees Celsius."),
    ("Temp 85 deg F", "Temp eighty five degrees Fahrenheit"),
    ("Lines 0,1 A down", "Lines zero, one eh down"),  # a plural noun numbers things: a list
    ("Pumps 1,2 A down", "Pumps one, two eh down"),
    ("5 of 6", "five of six"),
]


@pytest.mark.parametrize(("written", "spoken"), CAPITALS)
def test_capitals(written, spoken):
    assert normalize(written) == spoken


# --- a version, a timestamp or a time after `word/` ------------------------------------------


@st.composite
def slashed_fields(draw) -> tuple[str, str]:
    """A word, a slash, then a version, a dated UTC timestamp or a clock time."""
    word = draw(st.sampled_from(["fw", "log", "plc", "hmi", "Node", "gw"]))
    kind = draw(st.sampled_from(["version", "stamp", "time"]))
    if kind == "version":
        parts = draw(st.lists(st.integers(0, 99).map(str), min_size=2, max_size=3))
        field, said = "v" + ".".join(parts), ref.version(None, tuple(parts), "", "")
    else:
        h, mi, sec = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.integers(0, 59))
        if kind == "time":
            field, said = f"{h:02}:{mi:02}", ref.clock(("24", f"{h:02}", mi, None, None, False))
        else:
            y, mo, d = (
                draw(st.integers(2000, 2099)),
                draw(st.integers(1, 12)),
                draw(st.integers(1, 28)),
            )
            field = f"{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{sec:02}Z"
            said = ref.timestamp((y, mo, d), ("24", f"{h:02}", mi, f"{sec:02}", None, True))
    return f"{word}/{field}", f"{word} slash {said}"


@CLASSES
@given(form=slashed_fields(), frame=frames)
def test_a_field_after_a_word_and_a_slash_reads_as_it_does_alone(form, frame):
    written, said = form
    assert heard(written, frame) == expected(said, frame)


SLASHED = [
    ("fw/v1.2.3", "fw slash version one point two point three"),
    (
        "log/2026-11-30T14:05:00Z",
        "log slash November thirtieth twenty twenty six, fourteen oh five U T C",
    ),
    ("plc/14:05.", "plc slash fourteen oh five."),
    ("Valve/B3:0/1", "Valve slash B three colon zero slash one"),  # a PLC address, as before
    ("line3/PT-101A", "line three slash P T one oh one eh"),
    # After a word of time, a version with a pre-release is no dotted time.
    ("Alarm at 0.10-beta on line", "Alarm at version zero point ten dash beta on line"),
    ("Start at 7.45.", "Start at seven forty five."),
]


@pytest.mark.parametrize(("written", "spoken"), SLASHED)
def test_slashed_fields(written, spoken):
    assert normalize(written) == spoken


# --- four numbers or more joined by colons -----------------------------------------------


@st.composite
def colon_chains(draw) -> tuple[str, str]:
    """Four to seven numbers joined by colons, not six pairs of digits (a MAC address; eight
    groups are an IPv6 address)."""
    numbers = draw(st.lists(st.integers(0, 9999).map(str), min_size=4, max_size=7))
    assume(not (len(numbers) == 6 and all(len(n) == 2 for n in numbers)))
    said = " colon ".join(ref.cardinal(int(n)) for n in numbers)
    return ":".join(numbers), said


@CLASSES
@given(form=colon_chains(), frame=frames)
def test_numbers_joined_by_colons_are_said_with_colon(form, frame):
    written, said = form
    assert heard(written, frame) == expected(said, frame)


COLON_CHAINS = [
    ("1:2:3:4:5", "one colon two colon three colon four colon five"),
    ("10:20:30:40.", "ten colon twenty colon thirty colon forty."),
    ("10:20:30:40:50:60", "one zero, two zero, three zero, four zero, five zero, six zero"),
    ("14:05:30", "fourteen oh five and thirty seconds"),
]


@pytest.mark.parametrize(("written", "spoken"), COLON_CHAINS)
def test_colon_chains(written, spoken):
    assert normalize(written) == spoken


# --- multipliers, particulate matter, chemical formulas ------------------------------------

_MULTIPLIER_WORDS = {"k": "thousand", "K": "thousand", "M": "million"}
FORMULAS = {"H2S": "H two S", "CO2": "C O two", "NH3": "N H three", "SO2": "S O two"}
FORMULAS |= {"CH4": "C H four", "NO2": "N O two", "O2": "O two"}


@st.composite
def multiplied(draw) -> tuple[str, str]:
    """A number with k, K or M written onto it before a word, a small k anywhere; particulate
    matter; a chemical formula before its value."""
    kind = draw(st.sampled_from(["multiplier", "particulate", "formula"]))
    if kind == "particulate":
        size = draw(st.sampled_from(["1", "2.5", "4", "10"]))
        said = "two point five" if size == "2.5" else ref.cardinal(int(size))
        return f"PM{size}", f"P M {said}"
    if kind == "formula":
        formula, value = draw(st.sampled_from(sorted(FORMULAS))), draw(st.integers(2, 999))
        return (
            f"{formula} {value} ppm",
            f"{FORMULAS[formula]} {ref.cardinal(value)} parts per million",
        )
    whole = draw(st.integers(1, 999))
    decimals = draw(st.none() | st.from_regex(r"\d{1,2}", fullmatch=True))
    amount = str(whole) + (f".{decimals}" if decimals else "")
    letter = draw(st.sampled_from("kKM"))
    word = draw(st.sampled_from(["cycles", "parts", "hours"]))
    if letter == "k" and draw(st.booleans()):
        word = ""
    said = f"{ref.decimal(amount)} {_MULTIPLIER_WORDS[letter]}"
    return f"{amount}{letter}" + f" {word}" * bool(word), said + f" {word}" * bool(word)


@CLASSES
@given(form=multiplied(), frame=frames)
def test_multipliers_particulate_matter_and_formulas(form, frame):
    written, said = form
    heard_said = heard(written, frame)
    # A formula ending in a digit before its value takes a pause, as any such name does.
    assert heard_said.replace(",", "") == expected(said, frame).replace(",", "")


MULTIPLIERS = [
    ("5k rpm", "five thousand rpm"),
    ("2M cycles", "two million cycles"),
    ("1.5k", "one point five thousand"),
    ("10k-20k", "ten to twenty thousand"),
    ("PM2.5 35 ug/m3", "P M two point five, thirty five micrograms per cubic meter"),
    ("PM10 150", "P M ten, one hundred fifty"),
    ("H2S 12 ppm", "H two S twelve parts per million"),
    ("NH3 high", "N H three high"),
    ("T 300K", "T three hundred K"),  # no word after a capital K: as written
    ("5kW", "five kilowatts"),
    ("$1.5k", "one point five thousand dollars"),
]


@pytest.mark.parametrize(("written", "spoken"), MULTIPLIERS)
def test_multipliers(written, spoken):
    assert normalize(written) == spoken
