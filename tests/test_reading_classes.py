"""Each English reading class, generated: every instance its generator draws reads as the
class says, alone, in a sentence and at its edges, next to every punctuation mark.

The expected reading comes from the reference verbalizer (reference_en.py), never from the
normalizer; the tables in test_english.py document the classes with examples.
"""

from __future__ import annotations

import re

import clock_forms
import pytest
import reference_en as ref
from hypothesis import assume, given
from hypothesis import strategies as st
from reading_forms import (
    CLASSES,
    ZONES,
    Form,
    all_zones,
    caret_powers,
    cased_units,
    comma_lists,
    compact_dates,
    compact_timestamps,
    connections,
    counts_after_call,
    dash_minus,
    date_forms,
    dated_time_ranges,
    day_months,
    descending_hyphens,
    designations,
    dot_grouped_numbers,
    dot_ranges,
    durations,
    european_numbers,
    glued_id_words,
    glued_letters,
    hex_codes,
    host_addresses,
    identifiers,
    impossible_dates,
    impossible_times,
    inch_marks,
    joined_fields,
    large_money,
    local_parts,
    local_phones,
    long_fraction_stamps,
    long_phones,
    macs,
    money,
    month_dates,
    names_before_values,
    negative_powers,
    offset_times,
    offset_timestamps,
    order_numbers,
    percent_ranges,
    phones_en,
    plant_notations,
    plant_units,
    plc_addresses,
    radix_codes,
    ratios,
    roman_numerals,
    roman_runs,
    short_day_months,
    signed_money,
    signed_ranges,
    slash_pairs,
    spaced_compact_stamps,
    spaced_minus,
    superscript_powers,
    tag_members_and_cued_hex,
    tags,
    time_fractions,
    time_ranges,
    timestamp_like,
    timestamps,
    trade_units,
    unit_ranges,
    units,
    unsaid_characters,
    urls,
    utc_timestamps,
    versions,
    zone_word_offsets,
)
from support import seed_models

from cosyedge.speech.text.english import explain_text, normalize
from cosyedge.speech.text.localtime import in_local_time

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
    ("Down, ", ", then"),
    ("Down,", ";"),
    ("(see ", ")"),
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
@given(form=utc_timestamps(), zone=st.sampled_from(ZONES), frame=frames)
def test_a_dated_utc_timestamp_is_said_in_the_configured_local_time(form, zone, frame):
    """With local_time_zone, the date and time converted and no "U T C"; without, as UTC."""
    before, after = frame
    local = in_local_time(before + form.written + after, zone)
    assert normalize(local) == expected(ref.timestamp(*local_parts(form.parts, zone)), frame)
    date, time = local_parts(form.parts, "UTC")
    utc = (*time[:5], True)  # not converted: the same date and time, "U T C"
    assert heard(form.written, frame) == expected(ref.timestamp(date, utc), frame)


def test_local_time_zone_is_checked_and_is_part_of_the_phrase_s_identity(
    tmp_path, front_end_tables
):
    from cosyedge.config import ConfigError, parse_config
    from cosyedge.ops.read import read
    from cosyedge.speech.voices.mixed import mixed_identity

    seed_models(tmp_path, front_end_tables)  # the front ends' tables, as after a first start
    with pytest.raises(ConfigError, match='local_time_zone: no time zone "Mars/Base"'):
        parse_config("local_time_zone: Mars/Base")
    config = parse_config(f"state_dir: {tmp_path}\nlocal_time_zone: Asia/Shanghai\n")
    reading = read(config, "Trip at 2024-05-01T23:30:00Z, again at 08:30Z", "en")
    assert reading["runs"][0]["words"] == (
        "Trip at May second twenty twenty four, oh seven thirty, again at oh eight thirty U T C"
    )
    plain = read(parse_config(f"state_dir: {tmp_path}\n"), reading["text"], "en")
    assert plain["cache_key"] != reading["cache_key"]  # audio said in UTC is not served
    assert mixed_identity("en", 1, {"en": "x"}) == mixed_identity("en", 1, {"en": "x"}, None)


@CLASSES
@given(form=versions(), frame=frames)
def test_versions(form, frame):
    assert heard(form.written, frame) == expected(ref.version(*form.parts), frame)


@CLASSES
@given(form=identifiers(), frame=frames)
def test_serial_numbers_and_long_identifiers(form, frame):
    assert heard(form.written, frame) == expected(ref.identifier(*form.parts), frame)


@CLASSES
@given(form=comma_lists(), frame=frames)
def test_digits_joined_by_commas_that_do_not_group_thousands_are_a_list(form, frame):
    assert heard(form.written, frame) == expected(ref.number_list(*form.parts), frame)


@CLASSES
@given(form=percent_ranges(per_mille=True), frame=frames)
def test_a_range_of_percentages(form, frame):
    assert heard(form.written, frame) == expected(ref.percent_range(*form.parts), frame)


@CLASSES
@given(form=caret_powers(), frame=frames)
def test_a_power_of_ten_written_with_a_caret(form, frame):
    assert heard(form.written, frame) == expected(ref.caret_power(*form.parts), frame)


@CLASSES
@given(form=unit_ranges(), frame=frames)
def test_a_range_with_its_unit_written_on(form, frame):
    assert heard(form.written, frame) == expected(ref.unit_range(*form.parts), frame)


@CLASSES
@given(form=glued_letters(), frame=frames)
def test_one_small_letter_written_onto_a_number_inside_a_clause(form, frame):
    assert heard(form.written, frame) == expected(ref.glued_letter(*form.parts), frame)


@CLASSES
@given(form=phones_en(), frame=frames)
def test_telephone_numbers(form, frame):
    assert heard(form.written, frame) == expected(ref.phone(*form.parts), frame)


@CLASSES
@given(form=day_months(), frame=frames)
def test_a_day_and_a_month_without_a_year_after_a_date_cue(form, frame):
    assert heard(form.written, frame) == expected(ref.dated_day_month(*form.parts), frame)


# Frames with no word that says a date follows ("Date: 10/20" is a day and a month).
undated_frames = st.sampled_from([f for f in FRAMES if "Date" not in f[0]])


@CLASSES
@given(form=slash_pairs(), frame=undated_frames)
def test_integer_slash_pairs_and_fractions(form, frame):
    """`2/3 pumps` is "two of three pumps", `3/4"` "three quarter inch", `24/7` "twenty four
    slash seven", `½` "one half". Inside a quotation, an inch mark would be its close."""
    assume(not ('"' in frame[0] and '"' in form.written))
    assert heard(form.written, frame) == expected(ref.slash_pair(*form.parts), frame)


@CLASSES
@given(form=urls(), frame=frames)
def test_a_url_with_an_address(form, frame):
    assert heard(form.written, frame) == expected(ref.url(*form.parts), frame)


@CLASSES
@given(form=money(), frame=frames)
def test_money(form, frame):
    assert heard(form.written, frame) == expected(ref.money(*form.parts), frame)


@CLASSES
@given(form=hex_codes(), frame=frames)
def test_hexadecimal_codes(form, frame):
    assert heard(form.written, frame) == expected(ref.hex_code(*form.parts), frame)


@CLASSES
@given(form=ratios(), frame=frames)
def test_a_ratio_after_a_word_that_says_one_follows(form, frame):
    assert heard(form.written, frame) == expected(ref.ratio(*form.parts), frame)


@CLASSES
@given(form=time_ranges(), frame=frames)
def test_a_range_of_clock_times(form, frame):
    assert heard(form.written, frame) == expected(ref.time_range(*form.parts), frame)


@CLASSES
@given(form=compact_timestamps(), frame=frames)
def test_a_compact_iso_timestamp(form, frame):
    assert heard(form.written, frame) == expected(ref.timestamp(*form.parts), frame)


@CLASSES
@given(form=local_phones(), frame=frames)
def test_a_local_telephone_number_alone(form, frame):
    assert heard(form.written, frame) == expected(ref.phone("", form.parts, False, ""), frame)


@CLASSES
@given(form=counts_after_call(), frame=frames)
def test_a_count_of_people_after_call_is_a_number(form, frame):
    assert heard(form.written, frame) == expected(ref.count_after_call(*form.parts), frame)


@CLASSES
@given(form=order_numbers(), frame=frames)
def test_order_numbers_character_by_character_in_their_groups(form, frame):
    assert heard(form.written, frame) == expected(ref.order_number(*form.parts), frame)


# Every generator: what any of them draws, in any frame, leaves no digit to the voice (hibari
# drops an ASCII digit without a sound).
ALL_FORMS = st.one_of(
    durations(),
    macs(),
    units(),
    joined_fields(),
    timestamps(),
    versions(),
    identifiers(),
    comma_lists(),
    percent_ranges(per_mille=True),
    caret_powers(),
    unit_ranges(),
    glued_letters(),
    phones_en(),
    day_months(),
    slash_pairs(),
    urls(),
    money(),
    order_numbers(),
    hex_codes(),
    ratios(),
    time_ranges(),
    compact_timestamps(),
    local_phones(),
    counts_after_call(),
    superscript_powers(),
    dash_minus(),
    impossible_times(),
    impossible_dates(),
    compact_dates(),
    signed_money(),
    trade_units(),
    radix_codes(),
    time_fractions(),
    inch_marks(),
    offset_timestamps(),
    host_addresses(),
    month_dates(),
    roman_numerals(),
    unsaid_characters(),
    zone_word_offsets(),
    dated_time_ranges(),
    large_money(),
    european_numbers(),
    signed_ranges(),
    short_day_months(),
    long_phones(),
    negative_powers(),
    spaced_minus(),
    roman_runs(),
    tag_members_and_cued_hex(),
)


@CLASSES
@given(form=ALL_FORMS, frame=frames)
def test_no_digit_is_left_for_the_voice(form, frame):
    said = heard(form.written, frame)
    assert not any("0" <= c <= "9" for c in said), said


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


# Each generator and the class `read --explain` names for what it draws.
EXPLAINED = [
    (durations(), "duration"),
    (macs(), "MAC address"),
    (units(), "unit"),
    (joined_fields(), "field inside a token"),
    (versions(), "version"),
    (urls(), "URL"),
    (money(), "money"),
    (hex_codes(), "hexadecimal"),
    (st.sampled_from(sorted(ref.WORD_ACRONYMS)).map(lambda a: Form(a, ())), "acronym"),
]


@pytest.mark.parametrize(("forms", "reading"), EXPLAINED, ids=[r for _, r in EXPLAINED])
def test_explain_names_the_class_of_every_instance_and_reads_as_normalize_does(forms, reading):
    @CLASSES
    @given(form=forms, frame=frames)
    def check(form, frame):
        before, after = frame
        text = before + form.written + after
        explained = explain_text(text)
        assert explained.said == normalize(text)
        at, end = len(before), len(before) + len(form.written)
        assert any(
            s.reading.startswith(reading) and s.start < end and s.end > at for s in explained.spans
        ), explained.spans
        # What no class read is words, read as written (the frame's, PLC in PT-101-PLC, fw
        # in fw v1.2): never a digit of the form.
        unread = "".join(explained.written[max(a, at) : min(b, end)] for a, b in explained.unread())
        assert not any(c.isdigit() for c in unread), explained.unread()

    check()


def test_read_explain_lists_each_stretch_with_its_class_or_none(tmp_path, front_end_tables):
    from cosyedge.config import parse_config
    from cosyedge.ops.read import as_text, read

    seed_models(tmp_path, front_end_tables)  # the front ends' tables, as after a first start
    config = parse_config(f"state_dir: {tmp_path}\n")
    reading = read(config, "Pump P-201 at 12.5 bar since 07:45: check", "en", explain=True)
    (run,) = reading["runs"]
    assert run["classes"] == [
        {"class": None, "written": "Pump"},
        {"class": "device tag", "written": "P-201", "said": "P two oh one"},
        {"class": None, "written": "at"},
        {"class": "unit", "written": "12.5 bar", "said": "twelve point five bar"},
        {"class": None, "written": "since"},
        {"class": "time", "written": "07:45", "said": "oh seven forty five"},
        {"class": None, "written": ":"},
        {"class": None, "written": "check"},
    ]
    assert '  "P-201": device tag -> "P two oh one"' in as_text(reading)
    assert '  "Pump": no class (read as written)' in as_text(reading)
    assert "classes" not in read(config, "Pump P-201", "en")["runs"][0]


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


def test_a_compact_utc_timestamp_is_said_in_local_time_too():
    """With local_time_zone, `20240501T233000Z` is converted as `2024-05-01T23:30:00Z` is."""
    local = in_local_time("Trip at 20240501T233000Z", "Asia/Shanghai")
    assert normalize(local) == "Trip at May second twenty twenty four, oh seven thirty"


@CLASSES
@given(text=timestamp_like(), zone=all_zones())
def test_no_timestamp_like_text_raises_in_any_time_zone(text, zone):
    """A timestamp that cannot be converted (a leap second, year 9999 pushed past the last
    date, no such day) is left as written, in UTC: neither converting nor reading raises."""
    assert isinstance(normalize(in_local_time(text, zone)), str)


@pytest.mark.parametrize(
    ("written", "said"),
    [
        (
            "Event 2024-05-01T23:59:60Z",
            "Event May first twenty twenty four, twenty three fifty nine and sixty seconds U T C",
        ),
        (
            "Event 99991231T235959Z",
            "Event December thirty first ninety nine ninety nine, twenty three fifty nine and"
            " fifty nine seconds U T C",
        ),
    ],
)
def test_a_timestamp_that_cannot_be_converted_is_read_in_utc(written, said):
    assert normalize(in_local_time(written, "Asia/Shanghai")) == said


@CLASSES
@given(form=superscript_powers(), frame=frames)
def test_a_power_written_in_superscript_digits(form, frame):
    assert heard(form.written, frame) == expected(ref.power(*form.parts), frame)


@CLASSES
@given(form=dash_minus(), frame=frames)
def test_a_dash_that_stands_for_a_minus_is_said(form, frame):
    assert heard(form.written, frame) == expected(ref.negative(*form.parts), frame)


@CLASSES
@given(form=impossible_times(), frame=frames)
def test_a_time_that_cannot_be_one_is_said_as_written(form, frame):
    assert heard(form.written, frame) == expected(ref.not_a_time(*form.parts), frame)


@CLASSES
@given(form=unsaid_characters())
def test_control_and_format_characters_are_not_said(form):
    assert normalize(form.written) == ref.unsaid_characters(*form.parts)


@CLASSES
@given(form=roman_numerals(), frame=frames)
def test_a_roman_numeral_character_is_its_number(form, frame):
    assert heard(form.written, frame) == expected(ref.roman_numeral(*form.parts), frame)


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        ("Tank T-101\uff1b85%", [("en", "Tank T-101\uff1b85%")]),
        ("Tank T-101\uff0c85%\uff0cok", [("en", "Tank T-101\uff0c85%\uff0cok")]),
        ("压力\uff1b温度", [("zh", "压力\uff1b温度")]),
        ("Pump ok\uff1b压力5MPa", [("en", "Pump ok"), ("zh", "\uff1b压力5MPa")]),
    ],
)
def test_full_width_punctuation_between_english_words_stays_english(text, runs):
    from cosyedge.speech.lang import split_runs

    assert [(r.lang, r.text) for r in split_runs(text, "en")] == runs


@CLASSES
@given(form=impossible_dates(), frame=frames)
def test_a_date_the_calendar_has_not_is_said_as_written(form, frame):
    assert heard(form.written, frame) == expected(ref.impossible_date(*form.parts), frame)


@CLASSES
@given(form=compact_dates(), frame=frames)
def test_an_eight_digit_date_after_a_cue(form, frame):
    assert heard(form.written, frame) == expected(ref.compact_date(*form.parts), frame)


@CLASSES
@given(form=signed_money(), frame=frames)
def test_money_with_a_sign_a_magnitude_or_a_decimal_comma(form, frame):
    assert heard(form.written, frame) == expected(ref.signed_money(*form.parts), frame)


@CLASSES
@given(form=trade_units(), frame=frames)
def test_units_of_other_trades_and_spellings(form, frame):
    amount, above, below, after = form.parts
    assert heard(form.written, frame) == expected(ref.quantity(amount, above, below) + after, frame)


@CLASSES
@given(form=radix_codes(), frame=frames)
def test_a_number_with_its_radix_first(form, frame):
    assert heard(form.written, frame) == expected(ref.radix_code(*form.parts), frame)


@CLASSES
@given(form=time_fractions(), frame=frames)
def test_a_fraction_of_a_time_unit(form, frame):
    assert heard(form.written, frame) == expected(ref.time_fraction(*form.parts), frame)


# The inch mark is itself a double quote: frames with quotes are the quotation's class.
@CLASSES
@given(form=inch_marks(), frame=st.sampled_from([f for f in FRAMES if '"' not in f[0]]))
def test_an_inch_mark_and_feet_and_inches(form, frame):
    assert heard(form.written, frame) == expected(ref.inch_mark(*form.parts), frame)


@CLASSES
@given(form=offset_timestamps(), zone=st.sampled_from(ZONES), frame=frames)
def test_a_timestamp_with_an_offset_from_utc_is_said_in_local_time(form, zone, frame):
    before, after = frame
    local = in_local_time(before + form.written + after, zone)
    assert normalize(local) == expected(ref.timestamp(*local_parts(form.parts, zone)), frame)


@pytest.mark.parametrize(
    ("written", "said"),
    [
        (
            "2024-05-01T08:30:00+08:00",
            "May first twenty twenty four, oh eight thirty U T C plus eight",
        ),
        ("2024-05-01T08:30:00+00:00", "May first twenty twenty four, oh eight thirty U T C"),
        (
            "2024-05-01T08:30-05:30",
            "May first twenty twenty four, oh eight thirty U T C minus five thirty",
        ),
        ("08:30:00+08:00", "oh eight thirty U T C plus eight"),
        ("08:00:00-16:00:00", "oh eight hundred to sixteen hundred"),
    ],
)
def test_an_offset_from_utc_without_a_local_time_zone_is_said(written, said):
    assert normalize(written) == said


@CLASSES
@given(form=host_addresses(), frame=frames)
def test_urls_with_host_names_mail_and_ipv6_addresses_are_dictated(form, frame):
    assert heard(form.written, frame) == expected(ref.host_address(*form.parts), frame)


@CLASSES
@given(form=month_dates(), frame=frames)
def test_a_month_written_as_a_word_and_a_quarter_with_their_years(form, frame):
    assert heard(form.written, frame) == expected(ref.month_date(*form.parts), frame)


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("at ~14:00", "at about fourteen hundred"),
        ("Alarm @ 14:00", "Alarm at fourteen hundred"),
        ("8:00-16:30", "oh eight hundred to sixteen thirty"),
        ("Shutdown at 00:00", "Shutdown at zero hundred"),
        ("Coil 40001", "Coil four zero zero zero one"),
        ("Build 1.2.3.4", "Build one point two point three point four"),
        ("Shift 08:00Z-16:00Z", "Shift oh eight hundred U T C to sixteen hundred U T C"),
        ("12/24 V supply lost", "twelve slash twenty four volts supply lost"),
        ("10/20/26", "October twentieth twenty twenty six"),  # a date without a cue (en-9)
        ("10/40/26", "ten slash forty slash twenty six"),
        ("Tank T-101\uff1b85%", "Tank T one oh one; eighty five percent"),
        ("Energy cost 0.12 $/kWh", "Energy cost zero point one two dollars per kilowatt hour"),
        ("Price $5/t", "Price five dollars per tonne"),
        ("Cost 3 \u00a2", "Cost three cents"),
        ("Level 2 ft 6 in", "Level two feet six inches"),
        ("Angle 45\u00b0 30'", "Angle forty five degrees thirty minutes"),
    ],
)
def test_times_identifiers_and_builds_after_their_cue(written, said):
    assert normalize(written) == said


# --- en-7 ------------------------------------------------------------------------------------


@CLASSES
@given(form=zone_word_offsets(), frame=frames)
def test_an_offset_after_utc_or_gmt_is_said(form, frame):
    assert heard(form.written, frame) == expected(ref.zone_word(*form.parts), frame)


@CLASSES
@given(form=dated_time_ranges(), zone=st.sampled_from(ZONES), frame=frames)
def test_the_end_of_a_range_after_a_dated_time_is_no_offset(form, zone, frame):
    """Read as a range, and not converted to local time (it has no zone to convert from)."""
    before, after = frame
    assert heard(form.written, frame) == expected(ref.dated_time_range(*form.parts), frame)
    local = in_local_time(before + form.written + after, zone)
    assert normalize(local) == expected(ref.dated_time_range(*form.parts), frame)


@pytest.mark.parametrize(
    ("written", "zone", "said"),
    [
        ("2026-11-30 08:30 UTC+8", "UTC", "November thirtieth twenty twenty six, zero zero thirty"),
        ("2026-11-30 08:30 GMT-5", "UTC", "November thirtieth twenty twenty six, thirteen thirty"),
        (
            "2026-11-30T20:00UTC+05:30",
            "Asia/Shanghai",
            "November thirtieth twenty twenty six, twenty two thirty",
        ),
    ],
)
def test_a_dated_time_with_a_zone_word_and_offset_is_converted(written, zone, said):
    assert normalize(in_local_time(written, zone)) == said


@CLASSES
@given(form=large_money(), frame=frames)
def test_money_of_a_hundred_million_and_more_is_an_amount(form, frame):
    assert heard(form.written, frame) == expected(ref.large_money(*form.parts), frame)


@CLASSES
@given(form=european_numbers(), frame=frames)
def test_a_european_or_space_grouping_is_one_number(form, frame):
    assert heard(form.written, frame) == expected(ref.grouped_number(*form.parts), frame)


@CLASSES
@given(form=signed_ranges(), frame=frames)
def test_a_range_with_signs_units_or_currencies_on_its_ends(form, frame):
    assert heard(form.written, frame) == expected(ref.signed_range(*form.parts), frame)


@CLASSES
@given(form=short_day_months(), frame=frames)
def test_a_one_digit_day_or_month_after_a_word_only_a_date_follows(form, frame):
    assert heard(form.written, frame) == expected(ref.dated_day_month(*form.parts), frame)


@CLASSES
@given(form=long_phones(), frame=frames)
def test_a_telephone_number_with_a_trunk_prefix_or_many_groups(form, frame):
    assert heard(form.written, frame) == expected(ref.phone(*form.parts), frame)


@CLASSES
@given(form=negative_powers(), frame=frames)
def test_a_negative_power_on_a_unit_is_per(form, frame):
    assert heard(form.written, frame) == expected(ref.negative_power(*form.parts), frame)


@CLASSES
@given(form=spaced_minus(), frame=frames)
def test_a_minus_parted_from_its_number_after_a_colon_or_equals_sign(form, frame):
    assert heard(form.written, frame) == expected(ref.spaced_minus(*form.parts), frame)


@CLASSES
@given(form=roman_runs(), frame=frames)
def test_a_run_of_roman_numeral_characters_is_one_numeral(form, frame):
    assert heard(form.written, frame) == expected(ref.roman_numeral(*form.parts), frame)


def test_no_character_of_the_roman_numeral_block_raises():
    """Ↄ and ↄ have no numeric value (they raised before en-7): left as written."""
    for code in range(0x2160, 0x2190):
        for text in (chr(code), chr(code) * 2, f"Pump {chr(code)}\u2163"):
            assert isinstance(normalize(text), str)
    assert normalize("Unit \u2183") == "Unit \u2183"


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        (
            "请访问HTTP://10.0.0.5查看",
            [("zh", "请访问"), ("en", "HTTP://10.0.0.5"), ("zh", "查看")],
        ),
        (
            "opc.tcp://10.0.0.1:4840连接失败",
            [("en", "opc.tcp://10.0.0.1:4840"), ("zh", "连接失败")],
        ),
        (
            "请访问 HTTPS://10.0.0.5/状态",
            [("zh", "请访问"), ("en", "HTTPS://10.0.0.5/"), ("zh", "状态")],
        ),
    ],
)
def test_a_url_inside_mandarin_text_is_english(text, runs):
    """A URL is said by the English voice however its scheme is written and whatever its
    host; it ends at a space, a Chinese character or full-width punctuation."""
    from cosyedge.speech.lang import split_runs

    assert [(r.lang, r.text) for r in split_runs(text, "zh")] == runs


@CLASSES
@given(form=tag_members_and_cued_hex(), frame=frames)
def test_a_tag_s_member_and_a_hex_code_of_letters_after_its_cue(form, frame):
    assert heard(form.written, frame) == expected(ref.tag_member_or_cued_hex(*form.parts), frame)


# Pieces the en-7 rules read, joined at random: no text made of them may make a reading raise.
EN7_PIECES = st.sampled_from(
    [
        *list("0123456789.,:;-+/=() "),
        *["\u00a0", "\u202f", "\u2009", "\u2013", "\u2212", "\u207b", "\u00b9", "\u00b3", "\u2076"],
        *["\u2160", "\u2163", "\u2169", "\u2170", "\u2174", "\u2183", "\u00b7", "\u00d7"],
        *["UTC", "GMT", "Z", "T", "$", "€", "°C", "bar", "kg", "m", "s", "h", "FF", "PV", "(0)"],
        *["on ", "due ", "Tel ", "Error ", "10^", "e", "M", "B", "tn", "http://", "请", "时"],
    ]
)


@CLASSES
@given(pieces=st.lists(EN7_PIECES, max_size=24), zone=st.sampled_from(ZONES))
def test_no_text_of_the_en7_pieces_raises(pieces, zone):
    from cosyedge.speech.lang import split_runs

    text = "".join(pieces)
    assert isinstance(normalize(text), str)
    assert isinstance(explain_text(text).said, str)
    assert isinstance(normalize(in_local_time(text, zone)), str)
    assert isinstance(split_runs(text, "zh"), list)


# --- en-8 ------------------------------------------------------------------------------------


@CLASSES
@given(form=glued_id_words(), frame=frames)
def test_digits_written_onto_a_word_that_names_an_identifier_are_a_word_apart(form, frame):
    """`SN12345678` was "S None two three ...": the 1 fused with the N."""
    assert heard(form.written, frame) == expected(ref.glued_id_word(*form.parts), frame)


@CLASSES
@given(form=names_before_values(), frame=frames)
def test_a_name_ending_in_digits_is_parted_from_a_value_after_it(form, frame):
    """`Tank T1 85 %` was "T one eighty five percent", heard as T 185 %."""
    assert heard(form.written, frame) == expected(ref.name_before_value(*form.parts), frame)


@CLASSES
@given(form=offset_times(), frame=frames)
def test_an_offset_after_a_time_without_a_date_is_said(form, frame):
    """`14:05+08:00` was "fourteen oh five+oh eight hundred"."""
    assert heard(form.written, frame) == expected(ref.offset_time(*form.parts), frame)


@CLASSES
@given(form=long_fraction_stamps(), frame=frames)
def test_a_timestamp_with_nanoseconds_is_a_timestamp(form, frame):
    """Seven to nine decimals were said with the colons as written and the Z glued on."""
    assert heard(form.written, frame) == expected(ref.dated_clock(*form.parts), frame)


@CLASSES
@given(form=spaced_compact_stamps(), frame=frames)
def test_a_compact_date_and_time_parted_by_a_space_is_a_timestamp(form, frame):
    """`20261130 140530` was two large numbers run together."""
    assert heard(form.written, frame) == expected(ref.dated_clock(*form.parts), frame)


@CLASSES
@given(form=dot_grouped_numbers(), frame=frames)
def test_two_dot_groups_or_a_euro_with_dot_groups_make_one_number(form, frame):
    """`1.234.567 kg` was "one point two hundred thirty four point ..." and lost its unit."""
    assert heard(form.written, frame) == expected(ref.grouped_number(*form.parts), frame)


@CLASSES
@given(form=descending_hyphens(), frame=frames)
def test_no_range_runs_down_a_descending_pair_is_an_identifier(form, frame):
    """`CPU 1516-3` was "one thousand five hundred sixteen to three"."""
    assert heard(form.written, frame) == expected(ref.descending_hyphen(*form.parts), frame)


@CLASSES
@given(form=plant_notations(), frame=frames)
def test_plant_notations_a_general_rule_misread(form, frame):
    """`3~ 400 V` was a range, `1-1/2"` "one to one/two", `0b1011` "zerob one thousand
    eleven", `T-10 seconds` the tag "T one oh", `5⁰C` "five to the zeroC"."""
    assert heard(form.written, frame) == expected(ref.plant_notation(*form.parts), frame)


@CLASSES
@given(form=dot_ranges(), frame=frames)
def test_two_or_three_dots_between_numbers_make_a_range(form, frame):
    """`4...20 mA` was "four...20 mA": the second number and the unit left raw."""
    assert heard(form.written, frame) == expected(ref.unit_range(*form.parts), frame)


@CLASSES
@given(form=plant_units(), frame=frames)
def test_plant_units_and_lone_letters_in_a_row_of_values(form, frame):
    """`5 µS/cm`, `85 dB(A)`, `1480 min-1` were left as written; `400V 50Hz` was "four
    hundred V fifty hertz"."""
    assert heard(form.written, frame) == expected(ref.plant_units(*form.parts), frame)


@CLASSES
@given(form=plc_addresses(), frame=frames)
def test_plc_addresses_are_identifiers(form, frame):
    """`%I0.1` was "percent I0.1", `N7:0` "N seven:zero", `B3:0/1` "... zero of one",
    `DB1.DBD4` "D B one.DBD4", `4x0001` "four times zero zero zero one"."""
    assert heard(form.written, frame) == expected(ref.plc_address(*form.parts), frame)


# --- en-9: registers, hexadecimal prefixes, versions, telephone numbers, identifiers ----------

REGISTER_CUES = (("Register", "Register"), ("register", "register"), ("REG", "REG"))
REGISTER_CUES += (("HR", "H R"), ("holding register", "holding register"), ("coil", "coil"))


def _cue_said(said: str, between: str) -> str:
    """A cue's word, then a colon as written or a `#` as "number"."""
    return said + (" number " if "#" in between else between.rstrip() + " ")


@st.composite
def modbus_registers(draw) -> Form:
    """A Modbus register written whole after its table (`4x40001`, `1x10001`, `4x400001`),
    or a register's bit after its word (`Register 40001.3`, `HR: 40001.15`). Parts: the
    reading, built here from the digits."""
    table = draw(st.sampled_from("134"))
    register = table + draw(st.text("0123456789", min_size=4, max_size=5))
    if draw(st.booleans()):
        said = f"{ref.WORDS[int(table)]} X {ref.digit_words(register)}"
        return Form(f"{table}x{register}", (said,))
    written_cue, said_cue = draw(st.sampled_from(REGISTER_CUES))
    between = draw(st.sampled_from([" ", ": ", "#"]))
    bit = draw(st.integers(0, 15))
    said = f"{_cue_said(said_cue, between)}{ref.digit_words(register)}, bit {ref.cardinal(bit)}"
    return Form(f"{written_cue}{between}{register}.{bit}", (said,))


@CLASSES
@given(form=modbus_registers(), frame=frames)
def test_a_modbus_register_and_a_register_s_bit_are_identifiers(form, frame):
    """`4x40001` was "four times forty thousand one", `Register 40001.3` "forty thousand one
    point three"."""
    assert heard(form.written, frame) == expected(form.parts[0], frame)


# Words before a slash and how they are said.
SLASH_WORDS = (("Valve", "Valve"), ("Line3", "Line three"), ("PLC", "PLC"), ("pump", "pump"))


@st.composite
def slashed_addresses(draw) -> Form:
    """A PLC address (plc_addresses), a register after its word, a compact duration or voting
    after a word and a slash: `Valve/B3:0/1`, `Line3/I0.1`, `Valve/register 30001`,
    `PLC/3h40m`, `Trip/2oo3`.
    Parts: (the word said, what follows the slash said)."""
    word, said = draw(st.sampled_from(SLASH_WORDS))
    kind = draw(st.sampled_from(["plc", "plc", "register", "duration", "voting"]))
    if kind == "voting":
        n, d = draw(st.integers(1, 9)), draw(st.integers(1, 9))
        return Form(f"{word}/{n}oo{d}", (said, f"{ref.cardinal(n)} out of {ref.cardinal(d)}"))
    if kind == "plc":
        address = draw(plc_addresses())
        return Form(f"{word}/{address.written}", (said, ref.plc_address(*address.parts)))
    if kind == "register":
        register = draw(st.text("0123456789", min_size=5, max_size=6))
        return Form(f"{word}/register {register}", (said, f"register {ref.digit_words(register)}"))
    hours, minutes = draw(st.integers(1, 99)), draw(st.integers(1, 59))
    duration = f"{ref.cardinal(hours)} hour{'s' * (hours > 1)} and {ref.cardinal(minutes)}"
    duration += f" minute{'s' * (minutes > 1)}"
    return Form(f"{word}/{hours}h{minutes:02d}m", (said, duration))


@CLASSES
@given(form=slashed_addresses(), frame=frames)
def test_an_address_after_a_word_and_a_slash_is_read_as_alone(form, frame):
    """`Valve/B3:0/1` was "Valve/B three:zero of one", `Valve/register 30001` "thirty thousand
    one", `Line3/3h40m` "threeh fortym"."""
    word, address = form.parts
    assert heard(form.written, frame) == expected(f"{word} slash {address}", frame)


@CLASSES
@given(digits=st.text("0123456789ABCDEFabcdef", min_size=1, max_size=8), frame=frames)
def test_an_upper_case_hexadecimal_prefix(digits, frame):
    """`0X4302` was "zeroX4302"."""
    said = " ".join(ref.WORDS[int(c)] if c.isdigit() else ref.letter(c.upper()) for c in digits)
    assert heard(f"0X{digits}", frame) == expected(f"hex {said}", frame)


PRE_RELEASES = ("beta", "rc", "alpha", "hotfix", "dev", "RC", "Beta")


@st.composite
def suffixed_versions(draw) -> Form:
    """A version with a pre-release after a hyphen (`1.0.0-beta`, `v2.1.0-rc1`,
    `V2.0.1-hotfix`) or a letter written onto it (`v3.2a`, `fw 1.2.3b`); without a v or a
    word, a pre-release word or three parts. Parts: (the reading,)."""
    parts = [str(draw(st.integers(0, 30)))]
    parts += [str(draw(st.integers(0, 99))) for _ in range(draw(st.integers(1, 2)))]
    head = draw(st.sampled_from(["v", "V", "fw v", "firmware ", "fw ", ""]))
    glued = draw(st.booleans()) and (head or len(parts) == 3)
    said = {"": "version", "v": "version", "V": "version", "fw v": "fw version"}.get(head)
    said = (said or head.strip()) + " " + " point ".join(ref.cardinal(int(p)) for p in parts)
    if glued:
        letter = draw(st.sampled_from("abcdefghkmnprstxyz"))
        return Form(head + ".".join(parts) + letter, (f"{said} {ref.letter(letter.upper())}",))
    tag = draw(st.sampled_from(PRE_RELEASES))
    number = draw(st.sampled_from(["", "", "1", "2", "12"]))
    tag_said = " ".join(tag.upper()) if len(tag) <= 3 else tag.lower()
    tag_said += f" {ref.cardinal(int(number))}" if number else ""
    return Form(f"{head}{'.'.join(parts)}-{tag}{number}", (f"{said} dash {tag_said}",))


@CLASSES
@given(form=suffixed_versions(), frame=frames)
def test_a_version_with_a_pre_release_or_a_letter(form, frame):
    """`1.0.0-beta` was "one point zero.0-beta", `v3.2a` "v three point twoa"."""
    assert heard(form.written, frame) == expected(form.parts[0], frame)


DIAL_CUES = (("Phone: ", "Phone: "), ("Tel ", "Tel "), ("Tel.: ", "Tel.: "), ("Fax ", "Fax "))
DIAL_CUES += (("Mobile ", "Mobile "), ("Telephone ", "Telephone "), ("Mob. ", "Mob. "))
DIAL_CUES += (("Phone no. ", "Phone number "), ("PHONE: ", "PHONE: "), ("Hotline ", "Hotline "))


def _dialled(groups: list[str]) -> str:
    return ", ".join(" ".join("oh" if c == "0" else ref.WORDS[int(c)] for c in g) for g in groups)


@st.composite
def phone_numbers(draw) -> Form:
    """A telephone number in dot groups (`Phone: 555.123.4567`, `+1.555.123.4567`,
    `555.123.4567`), any national grouping after a word (`Tel 01632 960123`, `Phone
    0171/2345678`), or a country code and a trunk prefix (`+49 (0)30 1234567`). Parts: (the
    reading,)."""
    kind = draw(st.sampled_from(["dotted", "cued", "trunk"]))
    group = st.text("0123456789", min_size=3, max_size=4)
    if kind == "trunk":
        code, area = (
            str(draw(st.integers(1, 99))),
            draw(st.text("123456789", min_size=2, max_size=3)),
        )
        rest = draw(st.text("0123456789", min_size=6, max_size=8))
        return Form(f"+{code} (0){area} {rest}", ("plus " + _dialled([code, area, rest]),))
    cue, cue_said = draw(st.sampled_from((("", ""), *DIAL_CUES)))
    code = draw(st.sampled_from(["", "1", "44"])) if kind == "dotted" else ""
    if kind == "dotted" and not (cue or code):
        groups = [draw(st.text("0123456789", min_size=n, max_size=n)) for n in (3, 3, 4)]
    else:
        groups = [draw(st.text("0123456789", min_size=3, max_size=5)), draw(group), draw(group)]
        groups = groups[: draw(st.integers(2 if kind == "cued" else 3, 3))]
    cue = cue or ("Tel " if kind == "cued" else "")
    cue_said = cue_said or cue
    separator = "." if kind == "dotted" else draw(st.sampled_from([" ", "/", "-"]))
    written = cue + (f"+{code}." if code else "") + separator.join(groups)
    said = cue_said + ("plus " if code else "") + _dialled(([code] if code else []) + groups)
    return Form(written, (said,))


@CLASSES
@given(form=phone_numbers(), frame=frames)
def test_telephone_numbers_in_dot_groups_and_any_grouping_after_their_word(form, frame):
    """`Phone: 555.123.4567` was "five hundred fifty five point ...", `Telephone 0171
    2345678` "zero one seven one two million ...", `+49 (0)30 1234567` "(zero)thirty ..."."""
    assert heard(form.written, frame) == expected(form.parts[0], frame)


SERIAL_CUES = (("S/N: ", "S N: "), ("SN ", "S N "), ("batch ", "batch "), ("Lot ", "Lot "))
SERIAL_CUES += (("serial ", "serial "), ("asset ", "asset "), ("WO#", "W O number "))
SERIAL_CUES += (("ticket ", "ticket "), ("tag ", "tag "), ("recipe ", "recipe "))
SERIAL_CUES += (("HR ", "H R "), ("work order ", "work order "), ("Asset no. ", "Asset number "))
_TAG_SHAPE = re.compile(r"[A-Z]{1,4}-?\d{1,6}[A-Z]{0,2}(?:-\d{1,6})*")
_ORDER_SHAPE = re.compile(r"\d[A-Z]{2,3}\d")


def _spelled_groups(groups: list[str]) -> str:
    """Each group character by character; "dash" between, silent after letters alone."""
    said = []
    for i, g in enumerate(groups):
        if i:
            said.append("" if groups[i - 1].isalpha() and g[0].isdigit() else "dash")
        said.append(
            " ".join(ref.WORDS[int(c)] if c.isdigit() else ref.letter(c.upper()) for c in g)
        )
    return " ".join(s for s in said if s)


@st.composite
def lettered_identifiers(draw) -> Form:
    """Letters and digits after a word that names an identifier (`S/N: A1B2C3D4`, `batch
    b-20261202-03`, `batch 2611-A`), digits alone after an equipment word (`asset 10023`,
    `WO#12345`), or capitals and digits in turn alone (`A1B2C3D4`). Parts: (the reading,)."""
    kind = draw(st.sampled_from(["cued", "digits", "alone"]))
    if kind == "digits":
        cue, said = draw(st.sampled_from(SERIAL_CUES))
        number = draw(st.text("0123456789", min_size=4, max_size=8))
        return Form(cue + number, (said + ref.digit_words(number),))
    runs = st.text("BCDEFGHKLMNPRSTUVWXYZ", min_size=1, max_size=3)
    numbers = st.text("0123456789", min_size=1, max_size=6)
    if kind == "alone":
        pieces = [draw(runs), draw(numbers), draw(runs), draw(numbers)]
        token = "".join(pieces) + draw(st.sampled_from(["", draw(runs)]))
        return Form(token, (_spelled_groups([token]),))
    groups = draw(
        st.lists(
            st.sampled_from([draw(runs), draw(numbers), draw(runs) + draw(numbers)]),
            min_size=1,
            max_size=3,
        )
    )
    token = "-".join(groups)
    assume(re.search(r"\d", token) and re.search("[A-Z]", token))
    assume(not _TAG_SHAPE.fullmatch(token) and not _ORDER_SHAPE.search(token))
    if draw(st.booleans()):
        token, groups = token.lower(), [g.lower() for g in groups]
    cue, said = draw(st.sampled_from(SERIAL_CUES))
    return Form(cue + token, (said + _spelled_groups(groups),))


@CLASSES
@given(form=lettered_identifiers(), frame=frames)
def test_serials_batches_and_equipment_ids_character_by_character(form, frame):
    """`A1B2C3D4` was left to the voice ("bitessy"), `batch 2611-A` "two thousand six hundred
    eleven-A", `asset 10023` "ten thousand twenty three"."""
    assert heard(form.written, frame) == expected(form.parts[0], frame)


UNITS_SPOKEN = (("kg", "kilograms"), ("bar", "bar"), ("kW", "kilowatts"), ("mm", "millimeters"))


@st.composite
def space_grouped_numbers(draw) -> Form:
    """Groups of three digits parted by plain spaces before a unit or a decimal comma: `1 234
    567 kg`, `1 000,5 kg`. Parts: (the reading,)."""
    value = draw(st.integers(1000, 999_999_999))
    written = f"{value:,}".replace(",", " ")
    said = ref.cardinal(value)
    if draw(st.booleans()):
        decimals = draw(st.text("0123456789", min_size=1, max_size=3))
        written, said = f"{written},{decimals}", f"{said} point {ref.digit_words(decimals)}"
    unit, unit_said = draw(st.sampled_from((("", ""), *UNITS_SPOKEN)))
    assume(unit or "," in written)
    space = draw(st.sampled_from(["", " "])) if unit else ""
    return Form(written + space + unit, (said + (f" {unit_said}" if unit else ""),))


@CLASSES
@given(form=space_grouped_numbers(), frame=frames)
def test_thousands_grouped_by_plain_spaces_before_a_unit_or_a_decimal_comma(form, frame):
    """`1 234 567 kg` was "one two hundred thirty four five hundred sixty seven kilograms"."""
    assert heard(form.written, frame) == expected(form.parts[0], frame)


# Capital words no rule reads, function words and what they are said as, alarm levels, ISA
# mnemonics.
CAPITAL_NOUNS = ("PRESSURE", "PUMP", "TANK", "ALARM", "TRIP", "VALVE", "DRIVE", "FAULT")
CAPITAL_WORDS = ("AT", "ON", "IN", "OF", "TO", "FOR", "AND", "OR", "THE", "BY", "FROM", "WITH")
CAPITAL_LEVELS = (("HI", "high"), ("HI HI", "high high"), ("HIHI", "high high"), ("LO", "low"))
CAPITAL_LEVELS += (("LO LO", "low low"), ("LOLO", "low low"), ("HI-HI", "high high"))
CAPITAL_MNEMONICS = ("PAH", "TAL", "LAHH", "PSL", "FSHH", "SIS", "UPS", "TAH", "LALL")
CAPITAL_FRAMES = [("", ""), ("", "."), ("ALERT: ", "!"), ("(", ")"), ("CHECK ", " NOW.")]


@st.composite
def capital_sentences(draw) -> Form:
    """An all-capital sentence: nouns, function words, alarm levels and ISA mnemonics, e.g.
    `PUMP HI HI AT TANK PAH`. Parts: (the reading,)."""
    written, said = [draw(st.sampled_from(CAPITAL_NOUNS))] * 2
    written, said = [written], [said]
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["noun", "word", "level", "mnemonic"]))
        if kind == "noun":
            word = draw(st.sampled_from(CAPITAL_NOUNS))
            written.append(word), said.append(word)
        elif kind == "word":
            word = draw(st.sampled_from(CAPITAL_WORDS))
            written.append(word), said.append(word.lower())
        elif kind == "level":
            word, level = draw(st.sampled_from(CAPITAL_LEVELS))
            written.append(word), said.append(level)
        else:
            word = draw(st.sampled_from(CAPITAL_MNEMONICS))
            written.append(word), said.append(" ".join(ref.letter(c) for c in word))
    return Form(" ".join(written), (" ".join(said),))


@CLASSES
@given(form=capital_sentences(), frame=st.sampled_from(CAPITAL_FRAMES))
def test_words_of_an_all_capital_sentence(form, frame):
    """`BAR AT 07:45` was "BAR A T ...", `HI HI` "aitch-eye aitch-eye", `PAH` "pah"."""
    assert heard(form.written, frame) == expected(form.parts[0], frame)


def test_words_of_capitals_in_a_lower_case_sentence_and_in_the_site_lexicon():
    """A function word outside an all-capital sentence is left to the voice; a level and a
    mnemonic are read anywhere; a word the site gives phonemes for is left as written."""
    assert normalize("Meet AT 5") == "Meet AT five"
    assert normalize("Level HI on tank 3") == "Level high on tank three"
    assert normalize("TEMP HI HI AT TANK", keep={"HI"}) == "TEMP HI HI at TANK"
    assert normalize("ASH HANDLING") == "ASH HANDLING"  # no analysis switch: a word


@CLASSES
@given(form=designations(), frame=frames)
def test_plant_designations_are_no_decimal_time_range_or_count(form, frame):
    """`2oo3` was "two oo three", `Phase II` left, `Room 3-105` a range, `Gain 1/2` "one of
    two", `ISO 9001:2015` "...:two thousand fifteen", `16.5:1` with its colon, `Value
    1000000000` ten digits."""
    assert heard(form.written, frame) == expected(ref.designation(*form.parts), frame)


@CLASSES
@given(form=date_forms(), frame=frames)
def test_date_and_time_forms_beside_the_documented_ones(form, frame):
    """`30-Nov-2026` was "thirty-Nov-two thousand twenty six", `Mon Nov 30 14:05:30 UTC 2026`
    ended in "two thousand twenty six", `2026-W48` "... dash W four eight", `at 1405 hrs`
    "one thousand four hundred five"."""
    assert heard(form.written, frame) == expected(ref.date_form(*form.parts), frame)


@CLASSES
@given(form=connections(), frame=frames)
def test_hyphenated_numbers_node_ids_and_zone_abbreviations(form, frame):
    """`+1-555-010-9999` was "+one dash five five five ...", `ns=3;i=1001` "ns=three;i=one
    thousand one", `14:05 CET` left the zone as letters."""
    assert heard(form.written, frame) == expected(ref.connection(*form.parts), frame)


# Pieces the en-8 rules read, joined at random: no text made of them may make a reading raise.
EN8_PIECES = st.sampled_from(
    [
        *list('0123456789.,:;-+/~" '),
        *["\ud800", "\udfff", "\u2070", "\u00ba", "\u02da", "\u2153", "\u00bd", "\u2044"],
        *["SN", "S/N", "Lot", "T", "PT", "CH", "Q", "UTC", "Z", "0b", "€", "$", "°C", "C", "F"],
        *["V", "kV", "Hz", "in", "%", "seconds", "min", "version ", "CPU ", "..", "..."],
        *["%I", "DB", ".DBX", "N", "B", "x", "oo", "M", "Phase ", "II", "Room ", "Gain "],
        *["ISO ", "Value ", "µS/cm", "dB(A)", "min-1", "1/min", "A", "W"],
        *["-Nov-", "Mon ", "Nov ", "-W", "W", "at ", "hrs", " hours", "2026"],
        *["ns=", ";s=", ";i=", "CET", " CST", "+86-", "Line1"],
    ]
)


@CLASSES
@given(pieces=st.lists(EN8_PIECES, max_size=24), zone=st.sampled_from(ZONES))
def test_no_text_of_the_en8_pieces_raises(pieces, zone):
    from cosyedge.speech.lang import split_runs

    text = "".join(pieces)
    said = normalize(text)
    assert not any("\ud800" <= c <= "\udfff" for c in said)  # never a surrogate
    assert isinstance(explain_text(text).said, str)
    assert isinstance(normalize(in_local_time(text, zone)), str)
    assert isinstance(split_runs(text, "zh"), list)


@CLASSES
@given(n=st.integers(1, 999_999), frame=frames)
def test_ordinals_in_capitals(n, frame):
    """`1ST`, `22ND`, `113TH`, as all-caps texts write them: the ordinal; a suffix its number
    does not take (`3ND`) leaves the letters."""
    right = "TH" if n % 100 in (11, 12, 13) else {1: "ST", 2: "ND", 3: "RD"}.get(n % 10, "TH")
    assert heard(f"{n}{right} SHIFT", frame) == expected(f"{ref.ordinal(n)} SHIFT", frame)
    wrong = "ND" if right != "ND" else "RD"
    assert ref.ordinal(n) not in heard(f"{n}{wrong} SHIFT", frame)


# --- en-9: clock times, lengths of time and day-first dates ------------------------------------


def _military(cue: str, times: list, joint: str, mark: str) -> str:
    """The cue as written (`@` is "at"), each time on the 24-hour clock, the joint's word
    between, the mark's words after."""
    said_cue = "at " if cue == "@" else cue
    clocks = [ref.clock(("24", f"{h:02d}", mi, None, None, False)) for h, mi in times]
    return said_cue + f" {joint} ".join(clocks) + mark


@CLASSES
@given(form=clock_forms.military_times(), frame=frames)
def test_military_clock_times_after_a_word_of_time_or_before_a_mark(form, frame):
    """`Shift ends 1400 hrs` was "one thousand four hundred hours", `Time: 0745` "zero seven
    four five", `1405Z` "one thousand four hundred five Z"."""
    assert heard(form.written, frame) == expected(_military(*form.parts), frame)


@CLASSES
@given(form=clock_forms.clock_lengths(), frame=frames)
def test_lengths_of_time_in_clock_notation_are_durations(form, frame):
    """`offline for 00:05:30` was "zero zero oh five and thirty seconds", `uptime
    123:45:00` "one hundred twenty three:forty five:zero zero"."""
    word, parts = form.parts
    assert heard(form.written, frame) == expected(word + ref.duration(parts), frame)


@CLASSES
@given(form=clock_forms.minutes_written_m(), frame=frames)
def test_a_small_m_after_a_word_of_length_is_minutes(form, frame):
    """`Downtime: 45m` was "forty five meters"."""
    before, amount, after = form.parts
    said = before + ref.duration([(amount, "minute")]) + after
    assert heard(form.written, frame) == expected(said, frame)


@CLASSES
@given(form=clock_forms.iso_durations(), frame=frames)
def test_iso_8601_durations(form, frame):
    """`PT5M` was "P T five M", `PT1H30M` left as written."""
    assert heard(form.written, frame) == expected(ref.duration(list(form.parts)), frame)


@CLASSES
@given(form=clock_forms.dotted_short_years(), frame=frames)
def test_a_dotted_date_with_a_two_digit_year_is_day_first(form, frame):
    """`31.12.26` was "thirty one point twelve point twenty six"."""
    assert heard(form.written, frame) == expected(ref.date(*form.parts), frame)


@CLASSES
@given(form=clock_forms.shares_after_on(), frame=undated_frames)
def test_a_pair_after_on_that_can_be_a_share_is_no_date(form, frame):
    """`Trip on 2/3 voting` was "Trip on March second voting"."""
    top, bottom = form.parts
    said = f"on {ref.cardinal(top)} of {ref.cardinal(bottom)}"
    assert heard(form.written, frame) == expected(said, frame)


EN9_CLOCK_FORMS = st.one_of(
    clock_forms.military_times(),
    clock_forms.clock_lengths(),
    clock_forms.minutes_written_m(),
    clock_forms.iso_durations(),
    clock_forms.dotted_short_years(),
    clock_forms.shares_after_on(),
)


@CLASSES
@given(form=EN9_CLOCK_FORMS, frame=frames)
def test_no_digit_of_a_clock_form_is_left_for_the_voice(form, frame):
    said = heard(form.written, frame)
    assert not any("0" <= c <= "9" for c in said), said


# Typographic hyphens (U+2010, U+2011) and dashes (figure dash, em dash, horizontal bar).
HYPHENS = "\u2010\u2011"
DASHES = "\u2010\u2011\u2012\u2014\u2015"


@CLASSES
@given(form=unit_ranges(), dash=st.sampled_from(DASHES), frame=frames)
def test_a_range_written_with_a_typographic_dash(form, dash, frame):
    """`5\u201010 bar` was "five\u2010ten bar", `5\u201410 bar` "five\u2014ten bar"."""
    low, high, unit = form.parts
    written = low + dash + form.written.removeprefix(low)[1:]
    assert heard(written, frame) == expected(ref.unit_range(low, high, unit), frame)


@CLASSES
@given(form=timestamps(), dash=st.sampled_from(HYPHENS), frame=frames)
def test_a_date_written_with_typographic_hyphens(form, dash, frame):
    """`2026\u201012\u201002` was "two thousand twenty six\u2010twelve\u2010zero two"."""
    written = form.written.replace("-", dash)
    assert heard(written, frame) == expected(ref.timestamp(*form.parts), frame)


@CLASSES
@given(form=tags(), dash=st.sampled_from(DASHES + "\u2013"), frame=frames)
def test_a_tag_written_with_a_typographic_hyphen(form, dash, frame):
    """`PT\u2011101` was "PT\u2010one hundred one"."""
    written = form.written.replace("-", dash)
    assert heard(written, frame) == expected(ref.tag(*form.parts), frame)


@CLASSES
@given(form=cased_units(), frame=frames)
def test_a_unit_spelled_in_capitals_or_small_letters(form, frame):
    """`12.5BARG` was "twelve point fiveBARG", `0.8 MPA` "M P A", `5.5 kw` "kwuh"."""
    assert heard(form.written, frame) == expected(ref.quantity(*form.parts), frame)


@CLASSES
@given(first=units(), second=units(), frame=frames)
def test_two_values_with_units_parted_by_a_slash(first, second, frame):
    """`5 mm/10 mm` was "five mm/ten millimeters": the first unit lost before the slash."""
    said = f"{ref.quantity(*first.parts)} slash {ref.quantity(*second.parts)}"
    assert heard(f"{first.written}/{second.written}", frame) == expected(said, frame)
