"""Each Mandarin reading class, generated: every instance its generator draws reads as the
class says, alone, in a sentence and at its edges, next to every punctuation mark.

The expected reading comes from the reference verbalizer (reference_zh.py), never from the
front end; the tables in test_zh_normalize.py document the classes with examples.
"""

from __future__ import annotations

import pytest
import reference_zh as ref
from hypothesis import given
from hypothesis import strategies as st
from reading_forms import (
    CLASSES,
    ZONES,
    caret_powers,
    comma_lists,
    compact_timestamps,
    durations,
    hex_codes,
    joined_fields,
    local_parts,
    macs,
    money,
    month_days_zh,
    order_numbers,
    percent_ranges,
    phone_numbers,
    ratios_zh,
    slash_pairs_zh,
    time_ranges,
    timestamps_zh,
    units,
    urls,
    utc_timestamps,
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
