"""Mandarin reading classes as an operator says them over a loudspeaker (zh-front-10): each
generated instance, alone, in a sentence and next to every punctuation mark, reads as the
reference verbalizer (reference_zh.py) says it.

- a label's number before a slash or a date is parted from the date by a pause;
- a hyphen spaced before and not after is the next value's minus, not a range;
- a falling pair with a Chinese unit or measure word, or after a word naming a value, is a
  range (十到五转), as a rising one is;
- a form of numbers written onto Chinese after an English word goes to the Mandarin voice
  whole, and so does an opening full-width bracket;
- 两 before a measure word, 二 in a number, a label, a decimal or an ordinal;
- the digits after 工号, 卡号, 订单号, ... one by one with 幺;
- hours, minutes and seconds after a word of an event that lasts are how long it lasted, and
  a year and a two-digit month with a dot are a month.
"""

from __future__ import annotations

import pytest
import reference_zh as ref
from hypothesis import given
from hypothesis import strategies as st
from reading_forms import CLASSES, Form
from test_reading_classes_zh import FRAMES, expected, heard

from cosyedge.speech.lang import split_runs
from cosyedge.speech.zh.normalize import MandarinNormalizer

frames = st.sampled_from(FRAMES)


@pytest.fixture(scope="module")
def front():
    return MandarinNormalizer()


def _amount(draw) -> str:
    whole = str(draw(st.integers(1, 200)))
    return whole + (f".{draw(st.integers(1, 9))}" if draw(st.booleans()) else "")


# --- a label's number before a slash or a date ---------------------------------------------------

_LABELS = ("柜", "罐", "泵", "炉", "机")


@st.composite
def labels_before_dates(draw) -> Form:
    """`柜3/2024-05-01`, `柜3 2024.05.01`, `3号柜 2024/05/01`, `2#/2024年5月1日`. Parts: (the
    label as said, the date)."""
    y, m, d = draw(st.integers(1990, 2099)), draw(st.integers(1, 12)), draw(st.integers(1, 28))
    date = draw(
        st.sampled_from(
            [
                f"{y}-{m:02d}-{d:02d}",
                f"{y}/{m:02d}/{d:02d}",
                f"{y}.{m:02d}.{d:02d}",
                f"{y}年{m}月{d}日",
            ]
        )
    )
    n, word = draw(st.integers(1, 99)), draw(st.sampled_from(_LABELS))
    kind = draw(st.sampled_from(["word first", "numbered", "hash"]))
    if kind == "word first":
        written = f"{word}{n}{draw(st.sampled_from(['/', ' ']))}{date}"
        return Form(written, (word + ref.integer(n), (y, m, d)))
    mark, said = ("号", f"号{word}") if kind == "numbered" else ("#", "号")
    label = f"{n}{mark}{word if kind == 'numbered' else ''}"
    return Form(
        f"{label}{draw(st.sampled_from(['/', ' ', '']))}{date}", (ref.integer(n) + said, (y, m, d))
    )


@CLASSES
@given(form=labels_before_dates(), frame=frames)
def test_a_label_before_a_slash_or_a_date_is_parted_from_it(front, form, frame):
    """`柜3/2024-05-01` is 柜三, a pause, 二零二四年五月一日 (was 柜二零二四年三月 负零五...)."""
    label, date = form.parts
    assert heard(front, form.written, frame) == expected(f"{label}，{ref.date(*date)}", frame)


# --- a hyphen spaced before and not after: the next value's minus --------------------------------

_SIGNED = (("℃", "零下", "摄氏度"), ("°C", "零下", "摄氏度"), ("bar", "负", "巴"), ("", "负", ""))


@st.composite
def spaced_next_minus(draw) -> Form:
    """A value or a label, a space, then `-` written onto a number: `罐3 -5℃`, `温度-5℃ -7℃`,
    `设定值 -10.5`, `5bar -2bar`. Parts: (the first as said, the second as said)."""
    first = draw(st.sampled_from(["label", "temperature", "word", "pressure"]))
    n = draw(st.integers(1, 99))
    written, said = {
        "label": (f"罐{n}", f"罐{ref.integer(n)}，"),  # a pause after the label (zh-front-11)
        "temperature": (f"温度-{n}℃", f"温度零下{ref.integer(n)}摄氏度"),
        "word": ("设定值", "设定值"),
        "pressure": (f"{n}bar", f"{ref.integer(n)}巴"),
    }[first]
    amount = _amount(draw)
    unit, sign, words = draw(st.sampled_from(_SIGNED))
    spaces = draw(st.sampled_from([" ", "  "]))
    return Form(f"{written}{spaces}-{amount}{unit}", (said, sign + ref.decimal(amount) + words))


@CLASSES
@given(form=spaced_next_minus(), frame=frames)
def test_a_hyphen_spaced_before_and_not_after_is_the_next_values_minus(front, form, frame):
    """`罐3 -5℃` is 罐三 零下五摄氏度 (was 罐三到五摄氏度, a range that lost its sign)."""
    assert heard(front, form.written, frame) == expected("".join(form.parts), frame)


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("3 - 5℃", "三到五摄氏度"),  # spaced on both sides: a range's
        ("3- 5℃", "三到五摄氏度"),  # written onto the first end: a range's
        ("3 ~5℃", "三到五摄氏度"),  # a tilde however spaced
        ("10% -20%", "百分之十负百分之二十"),
        ("10%-20%", "百分之十到百分之二十"),
        ("-5°C -10°C", "零下五摄氏度零下十摄氏度"),
        ("1 -3米", "一负三米"),
    ],
)
def test_only_a_hyphen_spaced_before_and_not_after_is_a_minus(front, written, said):
    assert ref.audible(front.normalize(written)) == said


# --- a falling pair with its unit or after a word naming a value: a range ------------------------

_COUNTED = ("转", "米", "度", "次", "个", "台", "吨", "天")


@st.composite
def falling_ranges(draw) -> Form:
    """`速度10-5转`, `10-5台`, `压力 12-8`: a pair that runs down with a Chinese unit or
    measure word after it, or a word naming a value before it. Parts: (word, a, b, unit)."""
    a = draw(st.integers(4, 999))
    b = draw(st.integers(3, a - 1))
    word, unit = draw(
        st.sampled_from(
            [("", u) for u in _COUNTED] + [(w, "") for w in ("速度", "压力", "流量", "液位")]
        )
    )
    if not unit:  # a value word with a unit after it too, now and then
        unit = draw(st.sampled_from(["", "转"]))
    return Form(f"{word}{a}-{b}{unit}", (word, a, b, unit))


@CLASSES
@given(form=falling_ranges(), frame=frames)
def test_a_falling_pair_with_a_unit_or_after_a_value_word_is_a_range(front, form, frame):
    """`速度10-5转` is 速度十到五转 (was 速度幺零杠五转, a model number)."""
    word, a, b, unit = form.parts
    said = f"{word}{ref.integer(a)}到{ref.integer(b)}{unit}"
    assert heard(front, form.written, frame) == expected(said, frame)


# --- English before a form written onto Chinese ------------------------------------------------


@st.composite
def forms_onto_chinese(draw) -> Form:
    """An English word, a space, then a form of numbers written onto Chinese, or an opening
    full-width bracket or quotation mark and a numbered unit: `ALARM 2/3台`, `Pump 1-3号泵`,
    a bracketed `1号泵` written onto `Alarm`. Parts: (the English word, the Chinese part)."""
    word = draw(st.sampled_from(["ALARM", "Alarm", "Pump", "Trip", "Warning"]))
    a, b = draw(st.integers(1, 9)), draw(st.integers(2, 12))
    chinese = draw(
        st.sampled_from(
            [
                f"{a}/{b}台",
                f"{a}-{b}号泵",
                f"{a}:{b}稀释",
                f"（{a}号泵）",
                f"“{a}号泵”",
                f"{a}.{b}米",
            ]
        )
    )
    space = "" if chinese[0] in "（“" else " "
    return Form(f"{word}{space}{chinese}", (word, chinese))


@CLASSES
@given(form=forms_onto_chinese(), lang=st.sampled_from(["en", "zh"]))
def test_a_form_written_onto_chinese_goes_to_the_mandarin_voice_whole(form, lang):
    """`ALARM 2/3台` gives "ALARM" to English and 2/3台 to Mandarin (was "ALARM two/" and
    三台); a full-width bracket opening the Chinese after `Alarm` goes to Mandarin with it (was
    said after "Alarm")."""
    word, chinese = form.parts
    runs = [(r.lang, r.text) for r in split_runs(form.written, lang)]
    assert runs == [("en", word), ("zh", chinese)]


def test_a_count_after_an_english_word_is_said_as_a_count(front):
    runs = split_runs("ALARM 2/3台", "en")
    assert front.normalize(runs[-1].text) == "三台中的两台"


# --- 两 before a measure word, 二 in numbers ------------------------------------------------------

_MEASURES = ("台", "个", "次", "条", "根", "把", "件", "天", "小时", "桶", "颗", "遍", "瓶", "袋")


@st.composite
def twos(draw) -> Form:
    """2 before a measure word (`2台泵` 两台泵), or in a larger number, a label, a decimal or
    an ordinal (`12台`, `2号`, `2.5台`, `第2台`). Parts: (what is said)."""
    word = draw(st.sampled_from(_MEASURES))
    kind = draw(st.sampled_from(["count", "larger", "label", "decimal", "ordinal"]))
    n = draw(st.integers(1, 9))
    written, said = {
        "count": (f"2{word}", f"两{word}"),
        "larger": (f"{n}2{word}", f"{ref.integer(n * 10 + 2)}{word}"),
        "label": ("2号", "二号"),
        "decimal": (f"2.{n}{word}", f"二点{ref.integer(n)}{word}"),
        "ordinal": (f"第2{word}", f"第二{word}"),
    }[kind]
    return Form(written, (said,))


@CLASSES
@given(form=twos(), frame=frames)
def test_two_is_liang_before_a_measure_word_and_er_in_numbers(front, form, frame):
    """`2桶` is 两桶 (was 二桶); `12台` 十二台, `2号` 二号, `第2遍` 第二遍."""
    assert heard(front, form.written, frame) == expected(form.parts[0], frame)


# --- an identifier's digits one by one ----------------------------------------------------------

_ID_WORDS = ("工号", "卡号", "编号", "单号", "批号", "订单号", "运单号", "工单号", "账号", "物料号")


@st.composite
def identifiers(draw) -> Form:
    """`工号1234`, `卡号:1021`, `订单号20240511`: digits after a word naming an identifier.
    Parts: (the word, the joint as said, the digits)."""
    word = draw(st.sampled_from(_ID_WORDS))
    joint, said = draw(st.sampled_from([("", ""), (":", "："), ("：", "："), (" ", "")]))
    digits = draw(st.text("0123456789", min_size=1, max_size=12))
    return Form(f"{word}{joint}{digits}", (word, said, digits))


@CLASSES
@given(form=identifiers(), frame=frames)
def test_the_digits_of_an_identifier_are_said_one_by_one(front, form, frame):
    """`工号1234` is 工号幺二三四 (was 工号一千二百三十四, a quantity)."""
    word, joint, digits = form.parts
    said = word + joint + ref.digits(digits, one="幺")
    assert heard(front, form.written, frame) == expected(said, frame)


# --- how long an event lasted; a year and a month ------------------------------------------------

_EVENTS = ("停机", "停运", "停车", "停电", "中断", "离线", "故障", "运行", "持续")


@st.composite
def event_durations(draw) -> Form:
    """`停机1:30:00`, `离线00:45:10`: hours written with one digit or as 00 after a word of an
    event that lasts. Parts: (the word, hours, minutes, seconds)."""
    word = draw(st.sampled_from(_EVENTS))
    hours = draw(st.integers(0, 9))
    minutes, seconds = draw(st.integers(0, 59)), draw(st.integers(0, 59))
    written_hours = draw(st.sampled_from(["00", "0"])) if hours == 0 else str(hours)
    return Form(
        f"{word}{written_hours}:{minutes:02d}:{seconds:02d}", (word, hours, minutes, seconds)
    )


@CLASSES
@given(form=event_durations(), frame=frames)
def test_hours_minutes_and_seconds_after_an_event_are_how_long_it_lasted(front, form, frame):
    """`停机1:30:00` is 停机一小时三十分钟 (was 停机一点三十分, a time of day)."""
    assert heard(front, form.written, frame) == expected(ref.clock_duration(*form.parts), frame)


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("停机08:30:00", "停机八点三十分"),  # two digits from 01: a clock's, when it stopped
        ("设备于1:30:00停机", "设备于一点三十分停机"),
    ],
)
def test_a_clock_time_after_an_event_stays_a_time(front, written, said):
    assert ref.audible(front.normalize(written)) == said


@st.composite
def year_months(draw) -> Form:
    """`2026.11`, `截至2026.05`, `1999.12检修`: a year of 19xx or 20xx and a month of two
    digits with a dot. Parts: (the word before, year, month, the word after)."""
    year, month = draw(st.integers(1900, 2099)), draw(st.integers(1, 12))
    before = draw(st.sampled_from(["", "截至", "计划", "于"]))
    after = draw(st.sampled_from(["", "检修", "到期"]))
    return Form(f"{before}{year}.{month:02d}{after}", (before, year, month, after))


@CLASSES
@given(form=year_months(), frame=frames)
def test_a_year_and_a_two_digit_month_with_a_dot_are_a_month(front, form, frame):
    """`2026.11` is 二零二六年十一月 (was 两千零二十六点一一)."""
    before, year, month, after = form.parts
    said = f"{before}{ref.digits(str(year))}年{ref.integer(month)}月{after}"
    assert heard(front, form.written, frame) == expected(said, frame)


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("3.11", "三点一一"),
        ("2026.13", "两千零二十六点一三"),
        ("2026.1", "两千零二十六点一"),  # a month of one digit may as well be a decimal
        ("流量2026.11", "流量两千零二十六点一一"),  # after a word naming a value
        ("版本2026.11", "版本两千零二十六点一一"),
        ("2026.11元", "两千零二十六点一一元"),  # a unit after it
        ("2026.11.2", "二零二六年十一月二日"),
    ],
)
def test_other_decimals_stay_decimals(front, written, said):
    assert ref.audible(front.normalize(written)) == said
