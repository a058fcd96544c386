"""English readings new in en-11 (and what the English voice is handed), each class generated
or tabled with the neighbours that must not change: letters after Phase, Level or Class,
equipment numbers after `#` and `No.`, arrows."""

from __future__ import annotations

import pytest
import reference_en as ref
from hypothesis import assume, given
from hypothesis import strategies as st
from reading_forms import CLASSES, tags
from test_english_en10 import equipment_values
from test_reading_classes import expected, frames, heard

from cosyedge.config.voices import SessionConfig
from cosyedge.speech.lexicon import NO_LEXICON
from cosyedge.speech.text.english import normalize
from cosyedge.speech.voices.hibari import HibariG2P

# --- a letter or a word after Phase, Level, Class: never a Roman numeral in the phonemes ------

HEADS = ["Phase", "Level", "Type", "Class", "Grade", "Section", "Stage", "Part", "Round",
         "phase", "level", "class", "Chapter", "Mark", "James"]  # fmt: skip
LETTERS = ["C", "L", "X", "I", "V", "D", "M", "C D", "X L", "L L", "C C", "L I", "C M"]
WORDS = ["Low", "Limit", "Check", "Circuit", "Valve", "Incoming", "Xenon", "Dry", "Main"]
NUMBER_WORDS = ["zero", "one", "two", "four", "five", "ten", "forty", "fifty", "ninety", "hundred"]
NUMBER_WORDS += ["thousand", "the"]


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


# --- an equipment's number after `#` or `No.` --------------------------------------------------

MARKS = ["#", "# ", "No. ", "NO. ", "no. ", "No.", "Nr. "]


@CLASSES
@given(form=equipment_values(), mark=st.sampled_from(MARKS), frame=frames)
def test_a_marked_equipment_number_is_never_part_of_the_value_after_it(form, mark, frame):
    written, said = form
    noun, rest = written.split(" ", 1)
    assume(len(rest.split(" ", 1)[0]) < 4)  # four digits after "number" are an identifier's
    spoken_noun, spoken_rest = said.split(" ", 1)
    marked = f"{noun} {mark}{rest}"
    assert heard(marked, frame) == expected(f"{spoken_noun} number {spoken_rest}", frame)


MARKED_NUMBERS = [
    ("Pump #3 120 kg", "Pump number three, one hundred twenty kilograms"),
    ("ALARM FAN #7 396 WH LOW", "ALARM FAN number seven, three hundred ninety six watt hours LOW"),
    ("Kiln # 7 900 °C", "Kiln number seven, nine hundred degrees Celsius"),
    ("Fan #5 3/4 open", "Fan number five, three quarters open"),
    ("Tank #1 5 bar", "Tank number one, five bar"),
    ("Pump No. 3 5 bar", "Pump number three, five bar"),
    ("Kiln No. 1 0.586 bar", "Kiln number one, zero point five eight six bar"),
    ("VALVE NO. 4 403.0 WH", "VALVE number four, four hundred three point zero watt hours"),
    # Neighbours: no value after it, a mark after no equipment word.
    ("Pump #3 failed", "Pump number three failed"),
    ("PUMP NO. 3 FAILED", "PUMP number three FAILED"),
    ("Pump No. 3.", "Pump number three."),
    ("#3 pump", "number three pump"),
    ("ACK: NO. 3 pumps", "ACK: NO. three pumps"),
]


@pytest.mark.parametrize(("written", "spoken"), MARKED_NUMBERS)
def test_marked_equipment_numbers(written, spoken):
    assert normalize(written) == spoken


# --- an ASCII arrow is a change, "to" -----------------------------------------------------------

_ARROW_UNITS = [("", ""), ("%", " percent"), (" °C", " degrees Celsius"), (" bar", " bar")]
_STATES = ["RUN", "STOP", "AUTO", "MANUAL", "OPEN", "Closed", "standby"]


@st.composite
def arrows(draw) -> tuple[str, str]:
    """Two values (their unit after each or the last only) or two states, an arrow between
    them with or without spaces."""
    arrow = draw(st.sampled_from(["->", "=>", "-->", "==>"]))
    space = draw(st.sampled_from(["", " "]))
    if draw(st.booleans()):
        first, second = draw(st.sampled_from(_STATES)), draw(st.sampled_from(_STATES))
        return f"{first}{space}{arrow}{space}{second}", f"{first} to {second}"
    (mark, unit), both = draw(st.sampled_from(_ARROW_UNITS)), draw(st.booleans())
    a, b = draw(st.integers(0, 9999)), draw(st.integers(2, 9999))  # "one degree": singular
    left = (f"{a}{mark}", f"{ref.cardinal(a)}{unit}") if both else (str(a), ref.cardinal(a))
    written = f"{left[0]}{space}{arrow}{space}{b}{mark}"
    return written, f"{left[1]} to {ref.cardinal(b)}{unit}"


@CLASSES
@given(form=arrows(), frame=frames)
def test_an_ascii_arrow_is_a_change(form, frame):
    written, said = form
    assume(not (frame[0].lower().endswith("at ") and written[0].isdigit()))  # at 1000: a time
    assume(not (written.endswith("%") and frame[1].startswith('"')))  # `2%"`: known, apart
    assert heard(written, frame) == expected(said, frame)


ARROWS = [
    ("Level 45%->80%", "Level forty five percent to eighty percent"),
    ("Temp 45->80 °C", "Temp forty five to eighty degrees Celsius"),
    ("SP 45 => 50", "SP forty five to fifty"),
    ("Temp -5->-10 °C", "Temp minus five to minus ten degrees Celsius"),
    # Neighbours: comparison signs, double arrows.
    ("P > 5 bar", "P greater than five bar"),
    ("P >= 5 bar", "P at least five bar"),
    ("a <-> b", "a <-> b"),
]


@pytest.mark.parametrize(("written", "spoken"), ARROWS)
def test_arrows(written, spoken):
    assert normalize(written) == spoken


# --- units: tonnes, nanoamps, ohms, a unit before a bracket or a comparison, N or J on a decimal,
# amps among current values ------------------------------------------------------------------

_UNITS_EN11 = [("t", "tonne", "tonnes"), ("nA", "nanoamp", "nanoamps"),
               ("Ω", "ohm", "ohms"), ("m", "meter", "meters")]  # fmt: skip
_AFTER_VALUE = [("", ""), (",", ","), (".", "."), (" (max)", " (max)"), (" [low]", " [low]")]
_AFTER_VALUE += [(" (45 %)", " (forty five percent)"), (" > 5 bar", " greater than five bar")]


@st.composite
def values_with_units(draw) -> tuple[str, str]:
    """A decimal or an integer, a space or none (not for a lone letter), a unit the rules
    left as written before en-11, then the end of a clause: a bracket, a comparison."""
    symbol, _, many = draw(st.sampled_from(_UNITS_EN11))
    whole, decimals = draw(st.integers(2, 999)), draw(st.sampled_from(["", ".5", ".25"]))
    space = " " if symbol in ("t", "m") or draw(st.booleans()) else ""
    after = draw(st.sampled_from(_AFTER_VALUE))
    said = ref.cardinal(whole) + (" point " + ref.digit_words(decimals[1:]) if decimals else "")
    return f"{whole}{decimals}{space}{symbol}{after[0]}", f"{said} {many}{after[1]}"


@CLASSES
@given(form=values_with_units(), word=st.sampled_from(["Weight", "Load", "Level", "Value"]))
def test_a_unit_is_said_before_a_bracket_or_a_comparison(form, word):
    written, said = form
    assert normalize(f"{word} {written}") == f"{word} {said}"


UNITS_EN11 = [
    ("Weight 3 t, limit 2 t", "Weight three tonnes, limit two tonnes"),
    ("Valve 8 limits 18-67 nA", "Valve eight limits eighteen to sixty seven nanoamps"),
    ("Oven 2 limits 29-145 Ω", "Oven two limits twenty nine to one hundred forty five ohms"),
    ("87.597 Ω", "eighty seven point five nine seven ohms"),
    ("409nA", "four hundred nine nanoamps"),
    ("Crane 6 level 220.5J", "Crane six level two hundred twenty point five joules"),
    ("Force 126.6N, -24.5N", "Force one hundred twenty six point six newtons, minus twenty four"
     " point five newtons"),
    ("Level 1.2 m (45 %)", "Level one point two meters (forty five percent)"),
    ("57.1 m > +67Hz", "fifty seven point one meters greater than plus sixty seven hertz"),
    ("Current 18.4A, limit 15A", "Current eighteen point four amps, limit fifteen amps"),
    ("Motor M-12 current 18.4A, limit 15A.", "Motor M one two current eighteen point four amps,"
     " limit fifteen amps."),
    # Neighbours: a label's letter, a number and a letter that is no unit.
    ("Tank 12 A (spare)", "Tank twelve eh (spare)"),
    ("gate 4A.", "gate four eh."),
    ("Pump 3 A failed", "Pump three eh failed"),
    ("Grade 5 N", "Grade five N"),
    ("5K cycles", "five thousand cycles"),
]  # fmt: skip


@pytest.mark.parametrize(("written", "spoken"), UNITS_EN11)
def test_units_en11(written, spoken):
    assert normalize(written) == spoken


# --- a supply written with its kind first; forms written onto an ellipsis ----------------------


@CLASSES
@given(
    kind=st.sampled_from(["DC", "AC", "dc", "ac"]),
    volts=st.sampled_from([5, 12, 24, 48, 110, 220, 230, 380, 400, 690]),
    spaces=st.sampled_from([("", ""), (" ", ""), ("", " "), (" ", " ")]),
    frame=frames,
)
def test_a_supply_written_kind_first_is_its_volts_then_its_kind(kind, volts, spaces, frame):
    written = f"{kind}{spaces[0]}{volts}{spaces[1]}V"
    said = f"{ref.cardinal(volts)} volts {kind.upper()}"
    assert heard(written, frame) == expected(said, frame)


@CLASSES
@given(
    word=st.sampled_from(["Alarm", "trip", "Pump 3 stopped", "WAIT"]),
    dots=st.sampled_from(["...", "\u2026", "...."]),
    form=tags(),
)
def test_a_tag_written_onto_an_ellipsis_is_read_as_after_a_space(word, dots, form):
    said = normalize(f"{word}{dots} {form.written} high")
    assert normalize(f"{word}{dots}{form.written} high") == said
    assert ref.tag(*form.parts) in said


SUPPLIES_AND_ELLIPSES = [
    ("Supply DC24V lost", "Supply twenty four volts DC lost"),
    ("AC380V input", "three hundred eighty volts AC input"),
    ("Pump 3 trip\u202614:05", "Pump three trip... fourteen oh five"),
    ("Pump 3 trip...14:05", "Pump three trip... fourteen oh five"),
    ("Alarm\u2026PT-101 high", "Alarm... P T one oh one high"),
    ("Pressure\u202612.5 bar", "Pressure... twelve point five bar"),
    # Neighbours: a word that ends in DC or AC, an ellipsis at the end.
    ("MC24V", "M C two four V"),
    ("Wait....", "Wait...."),
    ("trip... 14:05", "trip... fourteen oh five"),
]


@pytest.mark.parametrize(("written", "spoken"), SUPPLIES_AND_ELLIPSES)
def test_supplies_and_ellipses(written, spoken):
    assert normalize(written) == spoken


# --- a version after a product's name ---------------------------------------------------------


@CLASSES
@given(
    product=st.sampled_from(["HA", "Home Assistant", "Node-RED", "Node", "ESPHome", "Grafana"]),
    first=st.integers(0, 2099),
    parts=st.lists(st.integers(0, 99), min_size=2, max_size=3),  # `1.100.100`: thousands
    after=st.sampled_from(["", " update", " available.", ", restart"]),
)
def test_three_dotted_numbers_after_a_product_are_its_version(product, first, parts, after):
    parts = [first, *parts]
    written = f"{product} {'.'.join(map(str, parts))}{after}"
    said = " point ".join(ref.cardinal(p) for p in parts)
    assert normalize(written) == f"{product} version {said}{after}"


PRODUCT_VERSIONS = [
    ("HA 2024.11.2", "HA version two thousand twenty four point eleven point two"),
    (
        "Home Assistant 2024.11.2 update",
        "Home Assistant version two thousand twenty four point eleven point two update",
    ),
    # Neighbours: a value after the name, another word.
    ("HA 12.5 bar", "HA twelve point five bar"),
    ("HAL 2024.11.2", "HAL November second twenty twenty four"),
]


@pytest.mark.parametrize(("written", "spoken"), PRODUCT_VERSIONS)
def test_product_versions(written, spoken):
    assert normalize(written) == spoken


# --- ISA alarm levels HH and LL ----------------------------------------------------------------


@CLASSES
@given(
    form=tags(),
    level=st.sampled_from([("HH", "high high"), ("LL", "low low")]),
    after=st.sampled_from([(":", ":"), (" alarm", " alarm"), (" ALARM", " ALARM"), ("", "")]),
)
def test_an_isa_level_after_a_tag_is_said(form, level, after):
    written = f"{form.written} {level[0]}{after[0]}"
    assert normalize(written) == f"{ref.tag(*form.parts)} {level[1]}{after[1]}"


ISA_LEVELS = [
    ("LIC43 HH: 73 %", "L I C four three high high: seventy three percent"),
    ("TE78 LL: 2 bar", "T E seven eight low low: two bar"),
    ("Level LL alarm", "Level low low alarm"),
    # Neighbours: letters elsewhere, a mnemonic.
    ("Cable LL", "Cable LL"),
    ("LAHH", "L eh H H"),
]


@pytest.mark.parametrize(("written", "spoken"), ISA_LEVELS)
def test_isa_levels(written, spoken):
    assert normalize(written) == spoken


# --- a lone X after a numbering word is a letter --------------------------------------------


@pytest.mark.parametrize(
    ("written", "spoken"),
    [
        ("Unit X offline", "Unit X offline"),
        ("Level X alarm", "Level X alarm"),
        ("Phase X.", "Phase X."),
        # Neighbours: numerals of more letters, I and V alone.
        ("Unit XI", "Unit eleven"),
        ("Phase II", "Phase two"),
        ("Class I fire", "Class one fire"),
    ],
)
def test_a_lone_x_after_a_numbering_word_is_a_letter(written, spoken):
    assert normalize(written) == spoken


# --- a placeholder for a missing value ---------------------------------------------------------


@CLASSES
@given(
    mark=st.sampled_from(["--", "---", "###", "####", "NaN", "N/A", "nan"]),
    unit=st.sampled_from([" bar", " %", "%", " °C", " kPa", " m³/h"]),
    word=st.sampled_from(["Level", "Temp", "FLOW", "Pressure"]),
    end=st.sampled_from(["", ".", ", check sensor", " (bad)"]),
)
def test_a_placeholder_before_a_unit_is_no_value(mark, unit, word, end):
    assert normalize(f"{word} {mark}{unit}{end}") == f"{word} no value{end}"


PLACEHOLDERS = [
    ("Value: N/A", "Value: no value"),
    ("PV=NaN", "PV=no value"),
    ("Flow: --", "Flow: no value"),
    # Neighbours: a dash between words, a letter after a dash.
    ("Alarm -- pump 3", "Alarm -- pump three"),
    ("Alarm -- A side", "Alarm -- A side"),
]


@pytest.mark.parametrize(("written", "spoken"), PLACEHOLDERS)
def test_placeholders(written, spoken):
    assert normalize(written) == spoken
