"""Each Mandarin reading class, generated: every instance its generator draws reads as the
class says, alone, in a sentence and at its edges, next to every punctuation mark.

The expected reading comes from the reference verbalizer (reference_zh.py), never from the
front end; the tables in test_zh_normalize.py document the classes with examples.
"""

from __future__ import annotations

import pytest
import reference_zh as ref
from hypothesis import example, given
from hypothesis import strategies as st
from reading_forms import (
    CLASSES,
    ZONES,
    Form,
    binary_literals_zh,
    caret_powers,
    clock_durations_zh,
    comma_lists,
    compact_dates_zh,
    compact_timestamps,
    countdowns_zh,
    cued_month_days_zh,
    day_first_and_dashed_dates_zh,
    decimal_ratios_zh,
    descending_pairs_zh,
    dilution_ratios_zh,
    dot_grouped_numbers_zh,
    dots_ranges_zh,
    durations,
    european_numbers_zh,
    fault_codes_zh,
    grouped_phones_zh,
    hex_codes,
    iec_hex_zh,
    impossible_cjk_dates_zh,
    impossible_times_zh,
    inch_sizes_zh,
    joined_fields,
    kelvin_zh,
    label_hyphens_zh,
    leading_points_zh,
    letter_labels_zh,
    letter_romans_zh,
    local_parts,
    local_phones_zh,
    long_clock_durations_zh,
    macs,
    money,
    money_magnitudes_zh,
    money_ranges_zh,
    month_days_zh,
    named_values_zh,
    negative_unit_powers_zh,
    numbered_pairs_zh,
    order_numbers,
    percent_ranges,
    phone_numbers,
    place_numbers_zh,
    plates_and_long_values_zh,
    plc_addresses_zh,
    plus_86_phones_zh,
    ratios_zh,
    roman_lists_zh,
    roman_numbered_zh,
    roman_runs_zh,
    serial_numbers_zh,
    shares_zh,
    short_month_days_zh,
    short_year_dates_zh,
    signed_money_zh,
    signed_temperatures_zh,
    signed_unit_ranges_zh,
    slash_pairs_zh,
    spaced_minus_zh,
    spaced_phones_zh,
    superscript_powers_zh,
    time_ranges,
    timestamp_ranges_zh,
    timestamps_zh,
    trunk_zero_phones_zh,
    twelve_hour_times_zh,
    twos_and_mixed_inches_zh,
    units,
    unsaid_characters_zh,
    urls,
    utc_offsets_zh,
    utc_timestamps,
    utc_word_offsets_zh,
    year_last_dates_zh,
    zero_below_and_minus_zh,
    zero_padded_versions_zh,
    zone_abbreviations_zh,
)

from cosyedge.speech.lang import Run, split_runs
from cosyedge.speech.text.localtime import in_local_time
from cosyedge.speech.zh.normalize import MandarinNormalizer

# Frames whose own text no rule changes: (before, after) as written and as said (ASCII
# punctuation becomes full-width; a space between Chinese and a digit carries nothing).
FRAMES = [
    ("", "", "", ""),
    ("设备", "离线", "设备", "离线"),
    ("报警：", "。", "报警：", "。"),
    ("", "，请检查", "", "，请检查"),
    ("", ",", "", "，"),
    ("", ": 检查", "", "：检查"),
    ("", ";", "", "；"),
    ("", "!", "", "！"),
    ("（", "）", "（", "）"),
    ("(", ")", "（", "）"),
    ("“", "”", "“", "”"),
    ("时间 ", " 结束", "时间", "结束"),
    ("报告", "：正常", "报告", "：正常"),
    ("", ":停机", "", "：停机"),
    ("停机，", "后恢复", "停机，", "后恢复"),
    ("停机,", ";", "停机，", "；"),
    ("停机、", "、", "停机、", "、"),
]
frames = st.sampled_from(FRAMES)


@pytest.fixture(scope="module")
def front():
    return MandarinNormalizer()


def heard(front, written: str, frame: tuple[str, str, str, str]) -> str:
    before, after, _, _ = frame
    return ref.audible(front.normalize(before + written + after))


def expected(said: str, frame: tuple[str, str, str, str]) -> str:
    _, _, before, after = frame
    return ref.audible(ref.tidy(before + said + after))


@CLASSES
@given(form=durations(), frame=frames)
def test_compact_durations(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.duration(list(form.parts)), frame)


@CLASSES
@given(form=macs(), frame=frames)
def test_mac_addresses(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.mac(list(form.parts)), frame)


@CLASSES
@given(form=units(), frame=frames)
def test_units_with_prefixes_products_and_quotients(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.quantity(*form.parts), frame)


@CLASSES
@given(form=joined_fields(), frame=frames)
# A T-led tag's digits were split into a tag and a value: TA-0 at 0 degrees (零零 摄氏度);
# at the token's end the tag's hyphen was a minus (T E 零下十摄氏度).
@example(
    form=Form("TA-00C-PLC", (None, "-", ("tag", ("TA", "00", "C")), "-", "PLC")), frame=FRAMES[0]
)
@example(
    form=Form("GW2/TE-10C", ("GW2", "/", ("tag", ("TE", "10", "C")), "-", None)), frame=FRAMES[1]
)
def test_a_known_field_inside_a_longer_token(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.joined(*form.parts), frame)


@CLASSES
@given(form=timestamps_zh(), frame=frames)
def test_dates_and_times_with_any_punctuation_after_them(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.timestamp(*form.parts), frame)


@CLASSES
@given(form=timestamps_zh(utc=True), frame=frames)
def test_a_time_in_utc_says_so_before_the_hour(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.timestamp(*form.parts), frame)


@CLASSES
@given(form=utc_timestamps(), zone=st.sampled_from(ZONES), frame=frames)
def test_a_dated_utc_timestamp_is_said_in_the_configured_local_time(front, form, zone, frame):
    before, after, _, _ = frame
    local = in_local_time(before + form.written + after, zone)
    said = ref.timestamp(*local_parts(form.parts, zone))
    assert ref.audible(front.normalize(local)) == expected(said, frame)


@CLASSES
@given(form=phone_numbers(), frame=frames)
def test_telephone_numbers_by_kind(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.phone(*form.parts), frame)


@CLASSES
@given(form=comma_lists(), frame=frames)
def test_digits_joined_by_commas_that_do_not_group_thousands_are_a_list(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.number_list(*form.parts), frame)


@CLASSES
@given(form=percent_ranges(), frame=frames)
def test_a_range_of_percentages(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.percent_range(*form.parts), frame)


@CLASSES
@given(form=caret_powers(latin_x=False), frame=frames)
def test_a_power_of_ten_written_with_a_caret(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.caret_power(*form.parts), frame)


@CLASSES
@given(form=slash_pairs_zh(), frame=frames)
def test_integer_slash_pairs_and_fractions(front, form, frame):
    """`2/3台` is 三台中的两台, `3/4` 四分之三, `12/3` 十二斜杠三, `½` 二分之一."""
    assert heard(front, form.written, frame) == expected(ref.slash_pair(*form.parts), frame)


@CLASSES
@given(form=month_days_zh(), frame=frames)
def test_a_month_and_a_day_after_a_date_cue(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.month_day(*form.parts), frame)


@CLASSES
@given(form=urls(), frame=frames)
def test_a_url_with_an_address(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.url(*form.parts), frame)


@CLASSES
@given(form=money(), frame=frames)
def test_money(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.money(*form.parts), frame)


@CLASSES
@given(form=hex_codes(), frame=frames)
def test_hexadecimal_codes(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.hex_code(*form.parts), frame)


@CLASSES
@given(form=ratios_zh(), frame=frames)
def test_a_ratio_after_a_word_that_says_one_follows(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.ratio(*form.parts), frame)


@CLASSES
@given(form=time_ranges(), frame=frames)
def test_a_range_of_clock_times(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.time_range(*form.parts), frame)


@CLASSES
@given(form=compact_timestamps(), frame=frames)
def test_a_compact_iso_timestamp(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.timestamp(*form.parts), frame)


@CLASSES
@given(form=order_numbers(), frame=frames)
def test_order_numbers_character_by_character_in_their_groups(front, form, frame):
    assert heard(front, form.written, frame) == expected(ref.order_number(*form.parts), frame)


# --- attacked again (zh-front-6) ---------------------------------------------------------------


@CLASSES
@given(form=signed_temperatures_zh(), frame=frames)
def test_any_dash_before_a_temperature_is_its_minus(front, form, frame):
    """`温度-5℃` with an en dash is 零下五摄氏度 (the en dash was 到)."""
    said = ref.signed_temperature(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=superscript_powers_zh(), frame=frames)
def test_a_superscript_power_keeps_its_sign(front, form, frame):
    """`1*10⁻⁶mbar` is 一乘十的负六次方毫巴 (was 十, a minus sign, 六)."""
    assert heard(front, form.written, frame) == expected(ref.power(*form.parts), frame)


@CLASSES
@given(form=leading_points_zh(), frame=frames)
def test_a_bare_leading_point_is_zero_point(front, form, frame):
    """`压力.5MPa` is 压力零点五兆帕 (was .五, heard as five)."""
    assert heard(front, form.written, frame) == expected(ref.leading_point(*form.parts), frame)


@CLASSES
@given(form=decimal_ratios_zh(), frame=frames)
def test_a_ratio_with_decimals_or_a_word_between(front, form, frame):
    """`配比1:2.5` is 配比一比二点五, `比例(1:50)` 比例(一比五十) (was a clock time)."""
    assert heard(front, form.written, frame) == expected(ref.decimal_ratio(*form.parts), frame)


@CLASSES
@given(form=impossible_times_zh(), frame=frames)
def test_a_time_that_cannot_be_is_said_as_written(front, form, frame):
    """`13:70` is 十三冒号七十: neither a time nor a ratio."""
    assert heard(front, form.written, frame) == expected(ref.impossible_time(*form.parts), frame)


@CLASSES
@given(form=cued_month_days_zh(), frame=frames)
def test_a_month_and_a_day_with_a_word_before_or_after(front, form, frame):
    """`10/20检修`, `请在10/20前完成` are 十月二十日 (were 二十分之十); `31/04` 三十一斜杠零四."""
    said = ref.month_day_cued(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=st.one_of(grouped_phones_zh(), local_phones_zh()), frame=frames)
def test_telephone_numbers_in_the_groups_written(front, form, frame):
    """`电话555-1234` is 电话五五五, 幺二三四 (was 五五五负一千二百三十四)."""
    assert heard(front, form.written, frame) == expected(ref.grouped_phone(*form.parts), frame)


@CLASSES
@given(form=signed_money_zh(), frame=frames)
def test_money_with_a_sign_or_a_magnitude(front, form, frame):
    """`￥1.5万` is 一点五万元, `成本￥-50` 成本负五十元, `¥300元` 三百元."""
    assert heard(front, form.written, frame) == expected(ref.money_more(*form.parts), frame)


@CLASSES
@given(form=serial_numbers_zh(), frame=frames)
def test_serial_numbers_digit_by_digit_in_their_groups(front, form, frame):
    """`8842-1190-07` is 八八四二杠幺幺九零杠零七 (was amounts and raw hyphens)."""
    assert heard(front, form.written, frame) == expected(ref.serial(*form.parts), frame)


@CLASSES
@given(form=numbered_pairs_zh(), frame=frames)
def test_two_numbered_units(front, form, frame):
    """`1-3号泵` is 一到三号泵, `2/3号泵` 二号和三号泵 (was 三分之二号)."""
    assert heard(front, form.written, frame) == expected(ref.numbered(*form.parts), frame)


@CLASSES
@given(form=utc_offsets_zh(), frame=frames)
def test_an_offset_from_utc_after_a_time(front, form, frame):
    """`07:45:00+08:00` is 七点四十五分东八区 (was 加八点)."""
    assert heard(front, form.written, frame) == expected(ref.offset(*form.parts), frame)


@CLASSES
@given(form=shares_zh(), frame=frames)
def test_parts_per_million_are_a_share(front, form, frame):
    """`1200ppm` is 百万分之一千二百 (was 一千二百 P P M)."""
    assert heard(front, form.written, frame) == expected(ref.share(*form.parts), frame)


@CLASSES
@given(form=iec_hex_zh(), frame=frames)
def test_an_iec_hexadecimal_literal(front, form, frame):
    """`16#FF00` is 十六进制 F F 零零 (was 十六号 F F 零零)."""
    assert heard(front, form.written, frame) == expected(ref.hex_iec(*form.parts), frame)


@CLASSES
@given(form=roman_numbered_zh(), frame=frames)
def test_a_roman_numeral_character_is_a_number(front, form, frame):
    """`Ⅲ号泵` is 三号泵 (was I I I 号泵)."""
    n, word = form.parts
    assert heard(front, form.written, frame) == expected(ref.integer(n) + word, frame)


ATTACKED_AGAIN = (
    signed_temperatures_zh(),
    superscript_powers_zh(),
    leading_points_zh(),
    decimal_ratios_zh(),
    impossible_times_zh(),
    cued_month_days_zh(),
    grouped_phones_zh(),
    local_phones_zh(),
    signed_money_zh(),
    serial_numbers_zh(),
    numbered_pairs_zh(),
    utc_offsets_zh(),
    shares_zh(),
    iec_hex_zh(),
    roman_numbered_zh(),
)

# --- zh-front-7 ----------------------------------------------------------------------------------


@CLASSES
@given(form=utc_word_offsets_zh(), frame=frames)
def test_an_offset_after_utc_is_the_zone(front, form, frame):
    """`08:30 UTC+8` is 八点三十分东八区 (was 协调世界时八点三十分加八), `14:00 UTC-5` 十四点西五区
    (the minus was lost)."""
    said = ref.utc_word_offset(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=timestamp_ranges_zh(), frame=frames)
def test_the_end_of_a_timestamp_range_is_no_offset(front, form, frame):
    """`2026-11-30T08:00-09:30` ends at 九点三十分 (was 协调世界时减九小时三十分)."""
    said = ref.timestamp_range(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=european_numbers_zh(), frame=frames)
def test_european_grouping_where_nothing_else_is_meant(front, form, frame):
    """`€1.234,56` is 一千二百三十四点五六欧元 (was 一点二三欧元四、五十六); digits grouped by a
    no-break space are one number."""
    said = ref.european_number(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=signed_unit_ranges_zh(), frame=frames)
def test_a_signed_range_with_its_unit_at_both_ends(front, form, frame):
    """`-5°C--10°C` is 零下五摄氏度到零下十摄氏度 (was 负五度 C 杠 ...)."""
    said = ref.signed_unit_range(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=money_ranges_zh(), frame=frames)
def test_a_range_of_money(front, form, frame):
    """`$5-$10` is 五美元到十美元 (was 五美元杠十美元)."""
    assert heard(front, form.written, frame) == expected(ref.money_range(*form.parts), frame)


@CLASSES
@given(form=short_month_days_zh(), frame=frames)
def test_a_month_and_a_day_with_one_digit_after_a_firm_cue(front, form, frame):
    """`日期2/3` is 日期二月三日 (was 日期三分之二), `于9/30` 于九月三十日."""
    said = ref.short_month_day(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=compact_dates_zh(), frame=frames)
def test_a_compact_date_after_a_date_word(front, form, frame):
    """`在20261130检修` is 在二零二六年十一月三十日检修 (was 在两千零二十六万...)."""
    said = ref.compact_date(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=trunk_zero_phones_zh(), frame=frames)
def test_an_international_number_with_its_trunk_zero_or_many_groups(front, form, frame):
    """`+44 (0)20 7946 0958` is 加四四, 零, 二零, 七九四六, 零九五八 (was 加四十四 (零) 二十 ...),
    a pause between the groups."""
    said = ref.spelled_phone(form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=negative_unit_powers_zh(), frame=frames)
def test_a_unit_to_a_negative_power(front, form, frame):
    """`kg·m⁻³` is 千克每立方米 (was 千克米负三), `10⁻⁶mbar` 十的负六次方毫巴 (was ... M B A R)."""
    said = ref.negative_unit(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=spaced_minus_zh(), frame=frames)
def test_a_minus_a_space_parts_from_its_value(front, form, frame):
    """`温度: - 5°C` is 温度 零下五摄氏度 (was 温度 杠五摄氏度)."""
    said = ref.spaced_minus(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=dilution_ratios_zh(), frame=frames)
def test_a_dilution_is_a_ratio(front, form, frame):
    """`稀释1:10` is 稀释一比十 (was the time 一点十分)."""
    assert heard(front, form.written, frame) == expected(ref.ratio(*form.parts), frame)


@CLASSES
@given(form=roman_runs_zh(), frame=frames)
def test_a_run_of_roman_numeral_characters_is_one_number(front, form, frame):
    """Small one, small five (U+2170 U+2174) is 四 (was 十五: one, then five)."""
    n, word = form.parts
    assert heard(front, form.written, frame) == expected(ref.integer(n) + word, frame)


@CLASSES
@given(form=money_magnitudes_zh(), frame=frames)
def test_millions_and_billions_are_counted_in_wan_and_yi(front, form, frame):
    """`$1.5B` is 十五亿美元 (was 一点五十亿美元), `$1.5M` 一百五十万美元 (was 一点五百万美元)."""
    assert heard(front, form.written, frame) == expected(ref.money_more(*form.parts), frame)


@CLASSES
@given(form=inch_sizes_zh(), frame=frames)
def test_an_inch_mark_after_a_size(front, form, frame):
    """`管道2"` is 管道二英寸 (the mark was left to the voice)."""
    assert heard(front, form.written, frame) == expected(ref.inch_size(*form.parts), frame)


@CLASSES
@given(form=kelvin_zh(), frame=frames)
def test_kelvin_after_a_temperature_word(front, form, frame):
    """`温度300K` is 温度三百开尔文 (was 温度三百 K)."""
    assert heard(front, form.written, frame) == expected(ref.kelvin(*form.parts), frame)


@CLASSES
@given(form=year_last_dates_zh(), frame=frames)
def test_a_date_with_its_year_last(front, form, frame):
    """`11/30/2026` is 二零二六年十一月三十日 (the slashes reached the voice)."""
    said = ref.year_last_date(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=impossible_cjk_dates_zh(), frame=frames)
def test_a_day_the_calendar_has_not_is_said_as_written(front, form, frame):
    """`2026年02月30日` is 二零二六年二月三十日 (was 二零二六年零二月三十日)."""
    said = ref.impossible_cjk_date(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


FRONT_7 = (
    impossible_cjk_dates_zh(),
    year_last_dates_zh(),
    money_magnitudes_zh(),
    inch_sizes_zh(),
    kelvin_zh(),
    utc_word_offsets_zh(),
    timestamp_ranges_zh(),
    european_numbers_zh(),
    signed_unit_ranges_zh(),
    money_ranges_zh(),
    short_month_days_zh(),
    compact_dates_zh(),
    trunk_zero_phones_zh(),
    negative_unit_powers_zh(),
    spaced_minus_zh(),
    dilution_ratios_zh(),
    roman_runs_zh(),
)

# Every generator: what any of them draws, in any frame, leaves no digit to the voice.
ALL_FORMS = st.one_of(
    durations(),
    macs(),
    units(),
    joined_fields(),
    timestamps_zh(),
    phone_numbers(),
    comma_lists(),
    percent_ranges(),
    caret_powers(latin_x=False),
    slash_pairs_zh(),
    month_days_zh(),
    urls(),
    money(),
    order_numbers(),
    hex_codes(),
    ratios_zh(),
    time_ranges(),
    compact_timestamps(),
    *ATTACKED_AGAIN,
    *FRONT_7,
)


@CLASSES
@given(form=ALL_FORMS, frame=frames)
def test_no_digit_is_left_for_the_voice(front, form, frame):
    said = heard(front, form.written, frame)
    assert not any("0" <= c <= "9" for c in said), said


@CLASSES
@given(form=units(), lang=st.sampled_from(["en", "zh"]))
def test_a_unit_inside_chinese_text_stays_with_the_mandarin_voice(front, form, lang):
    """1.5L/min, 40m/min, 60Nm, 5kvar·h: the whole unit is the Mandarin voice's, whatever
    the phrase's language (its second half went to the English voice)."""
    text = f"流量{form.written}，请检查"
    assert split_runs(text, lang) == [Run("zh", text)]
    said = ref.audible(ref.tidy(f"流量{ref.quantity(*form.parts)}，请检查"))
    assert ref.audible(front.normalize(text)) == said


EXPLAINED = [
    (durations(), "duration"),
    (macs(), "MAC address"),
    (units(), "unit"),
    (joined_fields(), "field inside a token"),
    (phone_numbers(), "telephone number"),
    (timestamps_zh(utc=True), ""),  # a date, a time, or a time in UTC
    (urls(), "URL"),
    (money(), "money"),
    (hex_codes(), "hexadecimal"),
    (slash_pairs_zh(), "slash pair"),
    (signed_money_zh(), "money"),
    (grouped_phones_zh(), "telephone number"),
    (serial_numbers_zh(), "serial number"),
    (cued_month_days_zh(), "date"),
    (iec_hex_zh(), "hexadecimal"),
    (utc_offsets_zh(), "time zone offset"),
    (leading_points_zh(), ""),  # a unit, or a number alone
    (utc_word_offsets_zh(), "time zone offset"),
    (signed_unit_ranges_zh(), "range"),
    (money_ranges_zh(), "range"),
    (short_month_days_zh(), "date"),
    (trunk_zero_phones_zh(), "telephone number"),
    (european_numbers_zh(), ""),  # money, a unit or a number, once grouping is read
    (negative_unit_powers_zh(), ""),  # a unit, or a power of ten
    (compact_dates_zh(), ""),  # a date, or a number where none can be
]


@pytest.mark.parametrize(
    ("forms", "reading"), EXPLAINED, ids=[r or "timestamp" for _, r in EXPLAINED]
)
def test_explain_names_the_class_of_every_instance_and_reads_as_normalize_does(
    front, forms, reading
):
    @CLASSES
    @given(form=forms, frame=frames)
    def check(form, frame):
        before, after, _, _ = frame
        text = before + form.written + after
        explained = front.explain(text)
        assert explained.said == front.normalize(text)
        at, end = len(before), len(before) + len(form.written)
        named = [s for s in explained.spans if s.start < end and s.end > at]
        assert any(s.reading.startswith(reading) for s in named), explained.spans
        unread = "".join(explained.written[max(a, at) : min(b, end)] for a, b in explained.unread())
        assert not any(c.isdigit() for c in unread), explained.unread()

    check()


# --- zh-front-8 ----------------------------------------------------------------------------------


@CLASSES
@given(form=unsaid_characters_zh(), frame=frames)
def test_escape_sequences_controls_and_surrogates_are_not_said(front, form, frame):
    """`\x1b[31m报警\x1b[0m` is 报警 (was [三十一米报警[零米); `温度\udfff过高` is 温度过高 (a lone
    surrogate raised)."""
    said = front.normalize(form.written)
    said.encode("utf-8")
    assert heard(front, form.written, frame) == expected(ref.unsaid(*form.parts), frame)


@CLASSES
@given(form=label_hyphens_zh(), frame=frames)
def test_a_hyphen_after_a_place_or_machine_word_joins_a_label(front, form, frame):
    """`北区-3` is 北区杠三 (was 北区负三: a sign invented), `3号机-2号泵` 三号机杠二号泵."""
    assert heard(front, form.written, frame) == expected(ref.label_hyphen(*form.parts), frame)


@CLASSES
@given(form=letter_labels_zh(), frame=frames)
def test_a_number_and_a_before_a_machine_word_is_a_label(front, form, frame):
    """`2A泵` is 二 A 泵 (was 二安泵: "pump 2 amps"), `1A、1B泵` 一 A、一 B 泵."""
    assert heard(front, form.written, frame) == expected(ref.letter_label(*form.parts), frame)


@CLASSES
@given(form=clock_durations_zh(), frame=frames)
def test_a_time_after_a_duration_word_is_a_duration(front, form, frame):
    """`运行时长02:15:00` is 运行时长两小时十五分钟 (was 二点十五分, a time of day)."""
    assert heard(front, form.written, frame) == expected(ref.clock_duration(*form.parts), frame)


@CLASSES
@given(form=long_clock_durations_zh(), frame=frames)
def test_hours_beyond_a_day_are_a_duration(front, form, frame):
    """`100:00:00` is 一百小时 (was 一百 零零 零零): no clock shows more than 24 hours."""
    assert heard(front, form.written, frame) == expected(ref.clock_duration(*form.parts), frame)


@CLASSES
@given(form=day_first_and_dashed_dates_zh(), frame=frames)
def test_a_dotted_date_day_first_and_a_dashed_month_day_after_a_cue(front, form, frame):
    """`30.11.2026` is 二零二六年十一月三十日 (was 三十点十一点两千零二十六), `日期11-30`
    日期十一月三十日 (was 日期十一到三十)."""
    said = ref.day_first_or_dashed_date(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=zero_padded_versions_zh(), frame=frames)
def test_a_version_keeps_its_leading_zeros(front, form, frame):
    """`V1.02.003` is V 一点零二点零零三 (was V 一点二点三: another version)."""
    said = ref.zero_padded_version(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=dot_grouped_numbers_zh(), frame=frames)
def test_two_dot_groups_of_three_or_more_group_thousands(front, form, frame):
    """`1.234.567` is 一百二十三万四千五百六十七 (was 一点两百三十四点五百六十七)."""
    said = ref.dot_grouped_number(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=plc_addresses_zh(), frame=frames)
def test_capitals_with_a_decimal_are_one_address(front, form, frame):
    """`AI1.5` is A I 一点五 (was A I 幺 零点五: two numbers), `PM2.5` P M 二点五, `%IX0.1`
    百分号 I X 零点一."""
    assert heard(front, form.written, frame) == expected(ref.plc_address(*form.parts), frame)


@CLASSES
@given(form=zero_below_and_minus_zh(), frame=frames)
def test_zero_below_and_minus_said_once_and_alike(front, form, frame):
    """`零下-5℃` is 零下五摄氏度 (was 零下零下五), `偏差-3℃` 偏差负三摄氏度 (a difference is never
    below zero), `-5到-10℃` 零下五到零下十摄氏度 (was 负五到零下十)."""
    said = ref.zero_below_or_minus(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=letter_romans_zh(), frame=frames)
def test_a_roman_numeral_in_capitals_before_a_counting_word(front, form, frame):
    """`II段母线` is 二段母线 (was I I 段母线), `IV号线` 四号线."""
    assert heard(front, form.written, frame) == expected(ref.letter_roman(*form.parts), frame)


@CLASSES
@given(form=binary_literals_zh(), frame=frames)
def test_a_binary_literal_digit_by_digit(front, form, frame):
    """`0b1011` is 二进制幺零幺幺 (was 零 B 一千零一十一: a decimal number invented)."""
    assert heard(front, form.written, frame) == expected(ref.binary_literal(*form.parts), frame)


@CLASSES
@given(form=roman_lists_zh(), frame=frames)
def test_roman_numeral_characters_no_numeral_writes_are_a_list(front, form, frame):
    """`ⅠⅡ段` is 一、二段 (was 三段: two sections summed into one)."""
    assert heard(front, form.written, frame) == expected(ref.roman_list(*form.parts), frame)


@CLASSES
@given(form=twelve_hour_times_zh(), frame=frames)
def test_a_twelve_hour_time_with_its_part_of_the_day(front, form, frame):
    """`2:05 PM` is 下午两点零五分 (was 二点零五分 P M), `12:00 PM` 中午十二点."""
    said = ref.twelve_hour_time(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=twos_and_mixed_inches_zh(), frame=frames)
def test_two_before_a_measure_word_and_a_hyphenated_mixed_number(front, form, frame):
    """`2个人` is 两个人 (was 二个人), `1-1/2"` 一又二分之一英寸 (was 一杠二分之一)."""
    said = ref.two_or_mixed_inches(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@pytest.mark.parametrize(
    ("n", "said"),
    [
        *[(0, "零"), (10, "十"), (110, "一百一十"), (1010, "一千零一十"), (2000, "两千")],
        *[(10001, "一万零一"), (120000000, "一亿二千万"), (100010, "十万零一十")],
    ],
)
def test_the_reference_counts_right(n, said):
    """The reference is itself checked, on hand-written readings."""
    assert ref.integer(n) == said


@CLASSES
@given(form=named_values_zh(), frame=frames)
def test_a_value_after_a_tag_is_parted_from_it(front, form, frame):
    """`PT101 5%` is P T 幺零幺 and a pause before 百分之五 (the digits ran together)."""
    assert heard(front, form.written, frame) == expected(ref.named_value(*form.parts), frame)


@CLASSES
@given(form=descending_pairs_zh(), frame=frames)
def test_a_pair_that_runs_down_is_an_identifier(front, form, frame):
    """`CPU 1516-3` is C P U 幺五幺六杠三 (was 一千五百一十六到三: a range that runs down)."""
    assert heard(front, form.written, frame) == expected(ref.descending_pair(*form.parts), frame)


@CLASSES
@given(form=countdowns_zh(), frame=frames)
def test_a_countdown_is_t_minus(front, form, frame):
    """`倒计时T-5分钟` is 倒计时 T 减五分钟 (was T 杠 五: a tag)."""
    assert heard(front, form.written, frame) == expected(ref.countdown(*form.parts), frame)


@CLASSES
@given(form=fault_codes_zh(), frame=frames)
def test_a_fault_code_is_read_as_a_code(front, form, frame):
    """`故障F30001` is 故障 F 三零零零幺 (was F 三万零一: an amount)."""
    assert heard(front, form.written, frame) == expected(ref.fault_code(*form.parts), frame)


@CLASSES
@given(form=spaced_phones_zh(), frame=frames)
def test_a_landline_in_spaced_groups_is_dialled(front, form, frame):
    """`0571 8888 6666` is 零五七幺, 八八八八, 六六六六 (was 零五七一 八千八百八十八 ...)."""
    assert heard(front, form.written, frame) == expected(ref.phone("", *form.parts, ""), frame)


@CLASSES
@given(form=short_year_dates_zh(), frame=frames)
def test_a_date_with_a_two_digit_year(front, form, frame):
    """`26-11-30` is 二六年十一月三十日 (was 二六杠幺幺杠三零), `11/30/26` too (was
    十一/三十/二十六)."""
    assert heard(front, form.written, frame) == expected(ref.short_year_date(*form.parts), frame)


@CLASSES
@given(form=zone_abbreviations_zh(), frame=frames)
def test_a_zone_abbreviation_after_a_time(front, form, frame):
    """`14:05 CST` is 北京时间十四点零五分 (was 十四点零五分 C S T)."""
    said = ref.zone_abbreviation(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)


@CLASSES
@given(form=dots_ranges_zh(), frame=frames)
def test_two_or_three_dots_between_numbers_are_a_range(front, form, frame):
    """`液位12..5米` is 液位十二到五米 (was 十二..五米: heard as 十二五米)."""
    assert heard(front, form.written, frame) == expected(ref.dots_range(*form.parts), frame)


@CLASSES
@given(form=place_numbers_zh(), frame=frames)
def test_a_room_or_bed_number_is_no_range(front, form, frame):
    """`房间3-105` is 房间三杠幺零五 (was 房间三到一百零五)."""
    assert heard(front, form.written, frame) == expected(ref.place_number(*form.parts), frame)


@CLASSES
@given(form=plus_86_phones_zh(), frame=frames)
def test_a_number_with_plus_86_written_on_is_grouped(front, form, frame):
    """`+8613812345678` is 加八六 and the mobile's groups (was one run of thirteen digits)."""
    assert heard(front, form.written, frame) == expected(ref.plus_86_phone(*form.parts), frame)


@CLASSES
@given(form=plates_and_long_values_zh(), frame=frames)
def test_a_plate_one_by_one_and_a_long_value_as_a_cardinal(front, form, frame):
    """`京A12345` is 京 A 幺二三四五 (was 一万二千三百四十五), `数值1000000000` 数值十亿 (was ten
    digits one by one)."""
    said = ref.plate_or_long_value(*form.parts)
    assert heard(front, form.written, frame) == expected(said, frame)
