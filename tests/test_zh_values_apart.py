"""Mandarin reading classes an outside test heard wrong (zh-front-11), as an operator says them
over a loudspeaker: each generated instance, alone, in a sentence and next to every punctuation
mark (ASCII and full-width), reads as the reference verbalizer (reference_zh.py) says it.

- a slash between two values is said, 斜杠 (it was silent: 五十五十二);
- a label's number and a value after a space are parted by a pause (罐十, 二点三五米);
- a MAC address after a word and a colon is the address (it was clock times and amperes);
- a supply written `DC24V`, `AC 380V` is 直流二十四伏, 交流三百八十伏;
- a code written letters, a dot, digits (`AL.21`, `Err.05`) is spelled, its digits one by one;
- `C` after a temperature's value is Celsius, `M` after a level's metres;
- no 零 for a leading zero of a month, a day, an hour, a minute or a second, a pause between a
  weekday and a clock time written onto it; 两 for two hours, minutes or seconds;
- Δ is 德尔塔; 元 after a currency's sign is not said twice;
- in mixed text, an English equipment's number before a full-width bracket stays English,
  `No.3`, `Err.05` and `pH` written onto Chinese are the Mandarin voice's.
"""

from __future__ import annotations

import pytest
import reference_zh as ref
from hypothesis import given
from hypothesis import strategies as st
from reading_forms import CLASSES, TOKEN_PIECES, Form
from test_reading_classes_zh import FRAMES, expected, heard

from cosyedge.speech.lang import split_runs
from cosyedge.speech.zh.normalize import MandarinNormalizer

frames = st.sampled_from(FRAMES)


@pytest.fixture(scope="module")
def front():
    return MandarinNormalizer()


_LABELS = ("罐", "泵", "炉", "柜", "机", "线", "塔")
_UNITS = (("m", "米"), ("MPa", "兆帕"), ("A", "安"), ("℃", "摄氏度"), ("bar", "巴"), ("%", ""))


def _amount(draw, decimals: bool | None = None) -> str:
    whole = str(draw(st.integers(0, 500)))
    if decimals is None:
        decimals = draw(st.booleans())
    return whole + (f".{draw(st.integers(1, 99))}" if decimals else "")


def _value(amount: str, unit: tuple[str, str]) -> str:
    """A value as said: 百分之 before a percentage, the unit's word after anything else."""
    return "百分之" + ref.decimal(amount) if unit[0] == "%" else ref.decimal(amount) + unit[1]


@st.composite
def slashed_values(draw) -> Form:
    """`50/52℃`, `1.2/1.5MPa`, `12.5/13.0A`, `50/52`: two values, a slash (ASCII or
    full-width) between, at least one a decimal or with a unit after it."""
    unit = draw(st.sampled_from(_UNITS[:-1]))
    first, second = _amount(draw, True), _amount(draw)
    slash = draw(st.sampled_from(["/", "／"]))
    both = draw(st.booleans())
    written = first + (unit[0] if both else "") + slash + second + unit[0]
    said = ref.decimal(first) + (unit[1] if both else "") + "斜杠" + ref.decimal(second) + unit[1]
    return Form(written, (said,))


@CLASSES
@given(form=slashed_values(), frame=frames)
def test_a_slash_between_two_values_is_said(front, form, frame):
    """`50/52℃` is 五十斜杠五十二摄氏度 (the slash was silent: 五十五十二摄氏度)."""
    assert heard(front, form.written, frame) == expected(form.parts[0], frame)


@st.composite
def labels_then_values(draw) -> Form:
    """`罐10 2.35m`, `泵3　1.5MPa` (a full-width space), `柜2  85%`: a label's number, spaces,
    a value."""
    word, n = draw(st.sampled_from(_LABELS)), draw(st.integers(1, 99))
    unit = draw(st.sampled_from(_UNITS))
    amount = _amount(draw)
    space = draw(st.sampled_from([" ", "  ", "\u3000"]))
    written = f"{word}{n}{space}{amount}{unit[0]}"
    return Form(written, (f"{word}{ref.integer(n)}，{_value(amount, unit)}",))


@CLASSES
@given(form=labels_then_values(), frame=frames)
def test_a_labels_number_is_parted_from_the_value_after_it(front, form, frame):
    """`罐10 2.35m` is 罐十, 二点三五米 (it was heard 罐 十二点三五米)."""
    assert heard(front, form.written, frame) == expected(form.parts[0], frame)


_HEX = st.text("0123456789ABCDEFabcdef", min_size=2, max_size=2)


@st.composite
def macs_after_a_colon(draw) -> Form:
    """`MAC:00:1B:44:11:3A:B7`, `网关MAC:ac-de-48-00-11-22`: a word, a colon, the address."""
    pairs = [draw(_HEX) for _ in range(6)]
    word = draw(st.sampled_from(["MAC", "网关MAC", "地址", "Mac"]))
    colon, joiner = draw(st.sampled_from([":", "："])), draw(st.sampled_from([":", "-"]))
    said_word = {"MAC": "M A C", "Mac": "M A C", "网关MAC": "网关 M A C", "地址": "地址"}[word]
    return Form(f"{word}{colon}{joiner.join(pairs)}", (f"{said_word}：{ref.mac(pairs)}",))


@CLASSES
@given(form=macs_after_a_colon(), frame=frames)
def test_a_mac_address_after_a_word_and_a_colon_is_the_address(front, form, frame):
    """`MAC:00:1B:44:11:3A:B7` (the colon full-width or not) is pair by pair (it was 四十四,
    十一 and 三安, amperes)."""
    assert heard(front, form.written, frame) == expected(form.parts[0], frame)


@st.composite
def supplies(draw) -> Form:
    """`DC24V`, `AC 380V`, `dc110V`, `AC10kV`: a supply, its current's letters first."""
    current = draw(st.sampled_from(["AC", "DC", "ac", "dc"]))
    volts = draw(st.integers(1, 1000))
    unit = draw(st.sampled_from([("V", "伏"), ("kV", "千伏"), (" V", "伏")]))
    space = draw(st.sampled_from(["", " "]))
    said = {"ac": "交流", "dc": "直流"}[current.lower()] + ref.integer(volts) + unit[1]
    return Form(f"{current}{space}{volts}{unit[0]}", (said,))


@CLASSES
@given(form=supplies(), frame=frames)
def test_a_supply_with_its_currents_letters_first_is_the_supply(front, form, frame):
    """`DC24V` is 直流二十四伏 (it was D C 二四 V, a tag)."""
    assert heard(front, form.written, frame) == expected(form.parts[0], frame)


@st.composite
def dotted_codes(draw) -> Form:
    """`AL.21`, `Err.05`, `ER.3`, `F.001`: a drive's or a controller's code."""
    letters = draw(st.sampled_from(["AL", "Err", "ERR", "Er", "E", "F", "ALM"]))
    digits = str(draw(st.integers(0, 9999))).zfill(draw(st.integers(1, 4)))
    return Form(f"{letters}.{digits}", (ref.tidy(letters.upper()) + ref.digits(digits, "幺"),))


@CLASSES
@given(form=dotted_codes(), frame=frames)
def test_a_dotted_code_is_spelled_and_its_digits_read_one_by_one(front, form, frame):
    """`AL.21` is A L 二幺 (it was A L .二十一, the dot left to the voice)."""
    assert heard(front, form.written, frame) == expected(form.parts[0], frame)


@st.composite
def zero_led_dates(draw) -> Form:
    """`12月02日`, `3月05日08时05分`, `05日`: a leading zero of a date's part or an hour is not
    said; a minute's is (零五分, as a clock's minutes)."""
    m, d, h, mi = (
        draw(st.integers(1, 12)),
        draw(st.integers(1, 28)),
        draw(st.integers(1, 23)),
        draw(st.integers(1, 59)),
    )
    parts = [
        (f"{m:02d}", m, "月"),
        (f"{d:02d}", d, "日"),
        (f"{h:02d}", h, "时"),
        (f"{mi:02d}", mi, "分"),
    ]
    start = draw(st.integers(0, 2))
    end = draw(st.integers(start + 1, 4))
    chosen = parts[start:end]
    written = "".join(w + word for w, _, word in chosen)
    said = [("零" if w == "分" and n < 10 else "") + ref.integer(n) + w for _, n, w in chosen]
    return Form(written, ("".join(said),))


@CLASSES
@given(form=zero_led_dates(), frame=frames)
def test_a_leading_zero_of_a_dates_part_is_not_said(front, form, frame):
    """`12月02日` is 十二月二日 (it was 十二月零二日)."""
    assert heard(front, form.written, frame) == expected(form.parts[0], frame)


@st.composite
def weekday_clocks(draw) -> Form:
    """`星期三14:00`, `周五08:30`, `礼拜天 9:05`: a clock time written onto a weekday."""
    day = draw(st.sampled_from(["星期三", "周五", "周一", "礼拜天", "星期日"]))
    h, mi = draw(st.integers(0, 23)), draw(st.integers(0, 59))
    space = draw(st.sampled_from(["", " "]))
    colon = draw(st.sampled_from([":", "："]))
    said = f"{day}，{ref.clock((None, h, mi, None, None, None))}"
    return Form(f"{day}{space}{h:02d}{colon}{mi:02d}", (said,))


@CLASSES
@given(form=weekday_clocks(), frame=frames)
def test_a_clock_time_written_onto_a_weekday_is_parted_from_it(front, form, frame):
    """`星期三14:00` is 星期三, 十四点 (it was heard 星期 三十四点)."""
    assert heard(front, form.written, frame) == expected(form.parts[0], frame)


@st.composite
def worded_letters(draw) -> Form:
    """`液位2.5M`, `高度 3M`, `TT-101=85C`, `油温:60C`: a letter a word before the value
    names: metres after a length, Celsius after a temperature."""
    amount = _amount(draw)
    kind = draw(st.sampled_from(["length", "tag", "word"]))
    if kind == "length":
        word = draw(st.sampled_from(["液位", "高度", "水位", "行程"]))
        return Form(f"{word}{amount}M", (word + ref.decimal(amount) + "米",))
    if kind == "tag":
        n = draw(st.integers(100, 999))
        said = f"T T 杠 {ref.digits(str(n), '幺')} 等于{ref.decimal(amount)}摄氏度"
        return Form(f"TT-{n}={amount}C", (said,))
    word = draw(st.sampled_from(["油温", "温度"]))
    return Form(f"{word}：{amount}C", (f"{word}：{ref.decimal(amount)}摄氏度",))


@CLASSES
@given(form=worded_letters(), frame=frames)
def test_a_unit_letter_the_word_before_names_is_its_unit(front, form, frame):
    """`液位2.5M` is 液位二点五米 (it was 二点五 M), `TT-101=85C` 八十五摄氏度 (it was C)."""
    assert heard(front, form.written, frame) == expected(form.parts[0], frame)


@st.composite
def coded_identifiers(draw) -> Form:
    """`TA-00C-PLC`, `GW2/TE-10F`, `TIC-050V`: an identifier's letters, a hyphen, digits with
    a zero first or last, a unit's letter, alone or inside a longer token; often led by a T,
    as a temperature tag is. Parts: those of `ref.joined`."""
    letters = draw(st.sampled_from(["T", "T", "T", *"ABCDFKPVX"]))
    letters += draw(st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=3))
    digits = draw(st.text("0123456789", min_size=1, max_size=2))
    digits = draw(st.sampled_from([f"0{digits}", f"{digits}0", f"0{digits}0"]))
    unit = draw(st.sampled_from("CCFKVA"))
    before = draw(st.sampled_from([None, *TOKEN_PIECES]))
    after = draw(st.sampled_from([None, *TOKEN_PIECES]))
    joiners = draw(st.lists(st.sampled_from("-_/"), min_size=2, max_size=2))
    written = (f"{before}{joiners[0]}" if before else "") + f"{letters}-{digits}{unit}"
    written += f"{joiners[1]}{after}" if after else ""
    return Form(written, (before, joiners[0], ("tag", (letters, digits, unit)), joiners[1], after))


@CLASSES
@given(form=coded_identifiers(), frame=frames)
def test_a_number_and_a_unit_letter_written_onto_an_identifier_are_its_code(front, form, frame):
    """`TA-00C-PLC` is T A 杠 零零 C 杠 P L C: no value is parted from a tag's digits
    without a sign, a word or a space (it was T A 杠 零零 摄氏度, a tag TA-0 at 0 degrees)."""
    assert heard(front, form.written, frame) == expected(ref.joined(*form.parts), frame)


@pytest.mark.parametrize(
    ("written", "said"),
    [
        # A code: the number and the C are written onto the tag's digits.
        ("TA-00C", "T A 杠 零零 C"),
        ("TE-12C报警", "T E 杠 幺二 C 报警"),
        ("TT-101-5C", "T T 杠 幺零幺 杠 五 C"),
        ("TIC-100C_PLC", "T I C 杠 幺零零 C 下划线 P L C"),
        # A value: a sign, a word or a space parts it from the tag, or a word names it.
        ("TT-101=85C", "T T 杠 幺零幺 等于八十五摄氏度"),
        ("TT-101 85C", "T T 杠 幺零幺，八十五摄氏度"),
        ("TT-101 -5C", "T T 杠 幺零幺，零下五摄氏度"),
        ("TT-101为85C", "T T 杠 幺零幺 为八十五摄氏度"),
        ("TT-101A: -5.5 C", "T T 杠 幺零幺 A：零下五点五摄氏度"),
        ("温度-5C", "温度零下五摄氏度"),
        ("罐3 -5℃", "罐三，零下五摄氏度"),
    ],
)
def test_a_c_is_celsius_only_after_a_value_the_tag_or_word_names(front, written, said):
    assert front.normalize(written) == said


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("设定值/实际值：50/52℃", "设定值/实际值：五十斜杠五十二摄氏度"),
        ("罐2/85℃", "罐二斜杠八十五摄氏度"),
        ("罐3 -5℃", "罐三，零下五摄氏度"),
        ("控制电源DC24V故障", "控制电源直流二十四伏故障"),
        ("输入AC380V 50Hz", "输入交流三百八十伏 五十赫兹"),
        ("伺服报警AL.21", "伺服报警 A L 二幺"),
        ("故障Err.05", "故障 E R R 零五"),
        ("温差ΔT=5℃", "温差德尔塔 T 等于五摄氏度"),
        ("每2h巡检", "每两小时巡检"),
        ("等待2min", "等待两分钟"),
        ("损失$3,713元", "损失三千七百一十三美元"),
        ("No.3炉", "三号炉"),
        # Not these: telephone groups after a label word, a run of seven pairs, twelve hours.
        ("热线 400 820 8820", "热线四零零，八二零，八八二零"),
        ("AC:DE:48:00:11:22:33", "A C：D E：四十八比零零比十一比二十二比三十三"),
        ("每12h巡检", "每十二小时巡检"),
        ("0d2h", "两小时"),
        ("0d 0h 2s", "两秒"),
        ("0d 0h 0min 2s", "两秒"),
        ("30/02日检修", "三十斜杠零二日检修"),
        ("罐1 -1", "罐一，负一"),
        ("罐10 20", "罐十 二十"),
        ("No.3", "三号"),
    ],
)
def test_the_classes_at_their_edges(front, written, said):
    assert front.normalize(written) == said


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        ("Pump 3（备用）failed", [("en", "Pump 3"), ("zh", "（备用）"), ("en", "failed")]),
        ("Pump 3，备用", [("en", "Pump 3"), ("zh", "，备用")]),
        ("No.3炉", [("zh", "No.3炉")]),
        ("Alarm No.3炉", [("en", "Alarm"), ("zh", "No.3炉")]),
        ("报警No.3炉", [("zh", "报警No.3炉")]),
        ("pH值7.5", [("zh", "pH值7.5")]),
        ("故障Err.05", [("zh", "故障Err.05")]),
        ("Alarm 12月31日", [("en", "Alarm"), ("zh", "12月31日")]),
        ("No more data", [("en", "No more data")]),
    ],
)
def test_mixed_text_gives_a_number_and_a_code_to_the_voice_they_belong_to(text, runs):
    assert [(r.lang, r.text) for r in split_runs(text, "zh")] == runs
