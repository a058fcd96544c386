"""Mandarin readings of codes, pairs, countdowns, stamps, money and units the value rules
would hear wrong (zh-front-9): each form as an operator must hear it, and the forms next to
it that keep their reading."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from cosyedge.speech.lang import split_runs
from cosyedge.speech.zh.normalize import MandarinNormalizer
from cosyedge.speech.zh.numbers import read_digits
from cosyedge.speech.zh.plant import CURRENCIES
from cosyedge.speech.zh.units import is_unit

FORMS = [
    # A capital written onto digits inside a code is the code's, not amperes.
    ("设备号12A-3", "设备号 幺二 A 杠三"),
    ("型号ACS880-01-045A-3", "型号 A C S 八八零 杠 零幺 杠 零四五 A 杠三"),
    ("MAC 001A.2B3C.4D5E", "M A C 零零幺 A，二 B 三 C，四 D 五 E"),
    ("UL 508A认证", "U L 五零八 A 认证"),
    ("ISO 9001:2015", "I S O 九零零幺冒号二零幺五"),
    ("TSG 21-2016", "T S G 二幺杠二零幺六"),
    ("车牌京A 1234A", "车牌京 A 幺二三四 A"),
    ("粤B12345D", "粤 B 幺二三四五 D"),
    ("鲁Q 1234学", "鲁 Q 幺二三四学"),
    ("5A-10A", "五安到十安"),
    ("5A保险丝", "五安保险丝"),
    # Values with the same unit a slash or a list parts all keep it.
    ("3A/5A", "三安斜杠五安"),
    ("规格16A/32A", "规格十六安斜杠三十二安"),
    ("2A、3A", "二安、三安"),
    ("1A/2A/3A", "一安斜杠二安斜杠三安"),
    ("25℃/31℃", "二十五摄氏度斜杠三十一摄氏度"),
    ("2A、3A泵", "二 A、三 A 泵"),
    ("1A、1B泵", "一 A、一 B 泵"),
    # A tag with a dotted suffix is one tag: no 零点 value invented.
    ("FIC-101.5流量高", "F I C 杠幺零幺点五 流量高"),
    ("TT-12.3温度高", "T T 杠幺二点三 温度高"),
    ("FT-305.2A", "F T 杠三零五点二 A"),
    # En and em dashes between digit groups.
    ("电话021–60121234", "电话零二幺，六零幺二，幺二三四"),
    ("手机139–1234–5678", "手机幺三九，幺二三四，五六七八"),
    ("日期2026–12–02", "日期二零二六年十二月二日"),
    ("序列号8842–1190–07", "序列号八八四二杠幺幺九零杠零七"),
    ("20—30℃", "二十到三十摄氏度"),
    # A version after a version word is no date.
    ("版本2024.11.2", "版本二零二四点十一点二"),
    ("HA 2024.11.2", "H A 二零二四点十一点二"),
    ("日期2024.11.2", "日期二零二四年十一月二日"),
    # Money marked before a dollar sign, the won and the rupee.
    ("HK$300", "三百港元"),
    ("US$1,200", "一千二百美元"),
    ("NT$500", "五百新台币"),
    ("₩50000", "五万韩元"),
    ("₹500", "五百卢比"),
    # A spaced minus after a word that names a value, before a value with a unit.
    ("温度 - 5℃", "温度零下五摄氏度"),
    ("偏差 - 2%", "偏差负百分之二"),
    ("压力 - 0.1MPa", "压力负零点一兆帕"),
    ("温度 -5℃ 到 - 3℃", "温度 零下五摄氏度 到零下三摄氏度"),
    ("温度高 - 85℃", "温度高杠八十五摄氏度"),
    # A count of nothing before 件.
    ("库存0件", "库存零，件"),
    ("不良0件", "不良零，件"),
    ("库存10件", "库存十件"),
    # A countdown in hours, minutes and seconds; a compact date and time.
    ("T-00:05:00", "T 减五分钟"),
    ("T-00:10:00开始", "T 减十分钟开始"),
    ("20261202 063015 报警", "二零二六年十二月二日六点三十分十五秒报警"),
    ("时间20261202 06:30", "时间二零二六年十二月二日六点三十分"),
    ("20261202 0630 停机", "二零二六年十二月二日六点三十分停机"),
    # Units: siemens with the micro sign or the Greek mu, a unit per which a price is given.
    ("电导率1250μS/cm", "电导率一千二百五十微西门子每厘米"),
    ("电导率1250\u00b5S/cm", "电导率一千二百五十微西门子每厘米"),
    ("5S管理", "五 S 管理"),
    ("成本3.5元/m³", "成本三点五元每立方米"),
    ("包装线速度120包/min", "包装线速度一百二十包每分钟"),
    # Promises of the reading tables: codes after …码, No. in capitals, % before a PLC
    # address, the zeros ending the cents before 元, a spaced plus after a value word.
    ("状态码404", "状态码 四零四"),
    ("校验码1234", "校验码 幺二三四"),
    ("NO.12", "十二号"),
    ("%MW100", "百分号 M W 幺零零"),
    ("1,250.00元", "一千二百五十元"),
    ("温度 + 5℃", "温度正五摄氏度"),
    # A time with seconds after 倒计时, 剩余时间 or 超时 is how long.
    ("倒计时00:05:00", "倒计时五分钟"),
    ("剩余时间00:05:00", "剩余时间五分钟"),
    ("超时00:00:30", "超时三十秒"),
]


@pytest.mark.parametrize("text", ["温度+25℃", "4*2.5mm²", "温度 - 5℃", "HK$300"])
def test_a_form_is_explained_as_it_is_said(normalizer, text):
    assert normalizer.explain(text).said == normalizer.normalize(text)


@pytest.fixture(scope="module")
def normalizer() -> MandarinNormalizer:
    return MandarinNormalizer()


@pytest.mark.parametrize(("text", "expected"), FORMS)
def test_form_reading(normalizer, text, expected):
    assert normalizer.normalize(text) == expected


_GROUPS = st.lists(st.from_regex(r"[1-9][0-9]{2,3}", fullmatch=True), min_size=3, max_size=4)


@settings(max_examples=60, deadline=None)
@given(groups=_GROUPS, dash=st.sampled_from(["\u2013", "\u2014"]))
def test_digit_groups_an_en_or_em_dash_joins_are_read_as_a_hyphen_joins_them(
    normalizer, groups, dash
):
    """Never 负 nor 到 between the groups: whatever a hyphen makes of them."""
    said = normalizer.normalize("序列号" + dash.join(groups))
    assert said == normalizer.normalize("序列号" + "-".join(groups))
    assert "负" not in said and "到" not in said


@settings(max_examples=60, deadline=None)
@given(
    digits=st.from_regex(r"[1-9][0-9]{0,3}", fullmatch=True),
    after=st.from_regex(r"[1-9][0-9]{0,2}", fullmatch=True),
    joint=st.sampled_from(["-", "."]),
)
def test_a_letter_written_onto_digits_inside_a_code_is_no_unit(normalizer, digits, after, joint):
    said = normalizer.normalize(f"设备号{digits}A{joint}{after}")
    word = "杠" if joint == "-" else "点"
    expected = f"设备号 {read_digits(digits, one='幺')} A {word}{read_digits(after, one='幺')}"
    assert said == expected


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(1, 999), min_size=2, max_size=4),
    unit=st.sampled_from([("A", "安"), ("V", "伏"), ("kW", "千瓦")]),
)
def test_values_a_slash_parts_each_keep_their_unit(normalizer, values, unit):
    written, word = unit
    said = normalizer.normalize("/".join(f"{v}{written}" for v in values))
    alone = (normalizer.normalize(f"{v}{written}") for v in values)
    assert said == "斜杠".join(alone)
    assert said.count(word) == len(values)


# A run longer than int() converts (4,300 digits), in every place a quantity is read.
_LONG_RUN_PLACES = [
    "温度{}℃",
    "{}kg",
    "{}%",
    "{}~5℃",
    "{}e3",
    "{}/2",
    "¥{}",
    "-{}%",
    "1/{}",
    "10^{}",
    "{}.5MPa",
    "{}#",
    "第{}st",
    "1.2.{}",
    "{}-3号",
    "1e{}",
    "{}-{}",
    "数值{}",
]


@settings(max_examples=20, deadline=None)
@given(
    place=st.sampled_from(_LONG_RUN_PLACES),
    run=st.integers(4301, 4400).map(lambda n: "7" * n),
)
def test_a_digit_run_longer_than_int_converts_is_read_digit_by_digit(normalizer, place, run):
    """No ValueError: a run of more than 16 digits is said one by one, wherever it is."""
    said = normalizer.normalize(place.format(run, run))
    assert "七" * len(run) in said


RANGE_FORMS = [
    # A dash, a tilde or an em dash between two values with Chinese words is 到.
    ("5度-10度", "五度到十度"),
    ("5度~10度", "五度到十度"),
    ("5度—10度", "五度到十度"),
    ("-5度~5度", "负五度到五度"),
    ("5万元-10万元", "五万元到十万元"),
    ("2026年11月30日-12月2日", "二零二六年十一月三十日到十二月二日"),
    ("11月30日~12月2日", "十一月三十日到十二月二日"),
    ("8点~17点", "八点到十七点"),
    ("3号~5号泵", "三号到五号泵"),
    ("3号线~5号线", "三号线到五号线"),
    ("5台-10台", "五台到十台"),
    ("1楼-3楼", "一楼到三楼"),
    ("周一-周五", "周一到周五"),
    ("2025年-2026年", "二零二五年到二零二六年"),
    ("5公斤-10kg", "五公斤到十千克"),
    ("1#—3#泵", "一号到三号泵"),
    # A label keeps its 杠: no unit or measure word right before the dash.
    ("3号机-2号泵", "三号机杠二号泵"),
    ("北区-3", "北区杠三"),
]


@pytest.mark.parametrize(("text", "expected"), RANGE_FORMS)
def test_range_with_chinese_words_at_both_ends(normalizer, text, expected):
    assert normalizer.normalize(text) == expected


@settings(max_examples=60, deadline=None)
@given(
    low=st.integers(3, 999),
    high=st.integers(3, 999),
    word=st.sampled_from(["度", "米", "天", "小时", "万元", "吨", "公斤", "摄氏度", "层", "月"]),
    dash=st.sampled_from(["-", "~", "～", "\u2014", "\u2013"]),
)
def test_a_dash_between_values_with_chinese_words_is_to(normalizer, low, high, word, dash):
    """The range is its two ends, each read as alone, 到 between: never 负, 约 or nothing."""
    said = normalizer.normalize(f"{low}{word}{dash}{high}{word}")
    ends = (normalizer.normalize(f"{n}{word}") for n in (low, high))
    assert said == "到".join(ends)


SIGN_FORMS = [
    # Every sign is said: the voice has no sound for one it is given.
    ("≠0", "不等于零"),
    ("!=0", "不等于零"),
    ("温度≠5℃", "温度不等于五摄氏度"),
    ("≧5", "大于等于五"),
    ("≦5", "小于等于五"),
    ("5÷2", "五除以二"),
    ("5‱", "万分之五"),
    ("100μF", "一百微法"),
    ("100\u00b5F", "一百微法"),
    ("10uF", "十微法"),
    ("3F", "三 F"),
    ("信号-85dBm", "信号负八十五分贝毫瓦"),
]


@pytest.mark.parametrize(("text", "expected"), SIGN_FORMS)
def test_a_sign_is_said(normalizer, text, expected):
    assert normalizer.normalize(text) == expected


@settings(max_examples=60, deadline=None)
@given(
    a=st.integers(0, 9999),
    b=st.integers(0, 9999),
    sign=st.sampled_from(
        [("≠", "不等于"), ("!=", "不等于"), ("≧", "大于等于"), ("≦", "小于等于"), ("÷", "除以")]
    ),
)
def test_a_sign_between_two_numbers_is_its_word(normalizer, a, b, sign):
    written, word = sign
    said = normalizer.normalize(f"数值{a}{written}{b}")
    ends = (normalizer.normalize(f"数值{n}").removeprefix("数值") for n in (a, b))
    assert said == "数值" + word.join(ends)


_CHINESE_DIGITS = str.maketrans("0123456789", "〇一二三四五六七八九")


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 99999).map(str).filter(lambda n: "0" in n),
    place=st.sampled_from(["{}号泵", "{}%", "{}年", "数值{}", "{}"]),
)
def test_chinese_digits_with_ling_circle_are_read_as_arabic_digits(normalizer, n, place):
    """The ideographic zero is zero (三十号泵 for 3, zero, 号泵 in Chinese digits): the run reads
    as the same digits in Arabic."""
    said = normalizer.normalize(place.format(n.translate(_CHINESE_DIGITS)))
    assert said == normalizer.normalize(place.format(n))


IDENTIFIER_FORMS = [
    # After a word that says an identifier follows, the groups digit by digit.
    ("炉号26-1130", "炉号二六杠幺幺三零"),
    ("批号26-1130", "批号二六杠幺幺三零"),
    ("批次号：26-1130", "批次号：二六杠幺幺三零"),
    ("图号12-305-2", "图号幺二杠三零五杠二"),
    # A numbered unit whose second number is the smaller is one label, not a range.
    ("5-1号泵", "五杠一号泵"),
    ("3-2号", "三杠二号"),
    ("2-1号机", "二杠一号机"),
    ("1-3号泵", "一到三号泵"),
]


@pytest.mark.parametrize(("text", "expected"), IDENTIFIER_FORMS)
def test_an_identifier_is_read_in_its_groups(normalizer, text, expected):
    assert normalizer.normalize(text) == expected


@settings(max_examples=60, deadline=None)
@given(pair=st.tuples(st.integers(1, 999), st.integers(1, 999)).filter(lambda p: p[0] > p[1]))
def test_a_numbered_pair_that_runs_down_is_one_label(normalizer, pair):
    """n-m号 with m below n: 杠 between, never 到 (no range runs down)."""
    first, second = pair
    said = normalizer.normalize(f"{first}-{second}号泵")
    expected = normalizer.normalize(f"数值{first}").removeprefix("数值") + "杠"
    assert said == expected + normalizer.normalize(f"{second}号泵")


RATIO_FORMS = [
    # Numbers an ASCII colon joins that are no time are a ratio; the other colons are colons.
    ("1:3", "一比三"),
    ("2:1", "二比一"),
    ("1:1000", "一比一千"),
    ("比例1:3:5", "比例一比三比五"),
    ("1.5:1", "一点五比一"),
    ("14\ufe3005", "十四点零五分"),
    ("14\u223605", "十四点零五分"),
    ("12:30", "十二点三十分"),
    ("13:70", "十三冒号七十"),
    ("100:00:00", "一百小时"),
    ("ISO 9001:2015", "I S O 九零零幺冒号二零幺五"),
]


@pytest.mark.parametrize(("text", "expected"), RATIO_FORMS)
def test_a_colon_between_numbers_that_are_no_time_is_a_ratio(normalizer, text, expected):
    assert normalizer.normalize(text) == expected


def _cardinal(normalizer: MandarinNormalizer, n: int) -> str:
    return normalizer.normalize(f"数值{n}").removeprefix("数值")


@settings(max_examples=60, deadline=None)
@given(
    terms=st.lists(st.integers(1, 9) | st.integers(100, 99999), min_size=2, max_size=3).filter(
        lambda t: all(n < 100_000_000 for n in t)
    ),
    before=st.sampled_from(["", "混合", "报警：", "按"]),
)
def test_numbers_a_colon_joins_are_a_ratio(normalizer, terms, before):
    """Each term a cardinal, 比 between: a term of one digit or of three or more is no
    minute, so the colon is no clock's."""
    said = normalizer.normalize(before + ":".join(map(str, terms)))
    assert said == before + "比".join(_cardinal(normalizer, n) for n in terms)


SPELLED_UNITS = [
    ("MPa", "兆帕"),
    ("kPa", "千帕"),
    ("kW", "千瓦"),
    ("kWh", "千瓦时"),
    ("kV", "千伏"),
    ("Hz", "赫兹"),
    ("rpm", "转每分"),
    ("mm", "毫米"),
    ("m3/h", "立方米每小时"),
    ("L/min", "升每分钟"),
    ("uS/cm", "微西门子每厘米"),
    ("VAC", "伏交流"),
    ("VDC", "伏直流"),
]


@settings(max_examples=80, deadline=None)
@given(
    unit=st.sampled_from(SPELLED_UNITS),
    cases=st.lists(st.booleans(), min_size=6, max_size=6),
    amount=st.integers(3, 9999),
    frame=st.sampled_from([("", ""), ("设备", "运行"), ("转速", "，"), ("（", "）")]),
)
def test_a_unit_in_any_case_is_said_as_the_unit(normalizer, unit, cases, amount, frame):
    """1500RPM, 1.6Mpa, 50hz: the unit's words, as for its symbol, in the Mandarin run."""
    symbol, words = unit
    written = "".join(c.upper() if up else c.lower() for c, up in zip(symbol, cases, strict=False))
    # A spelling that is another unit's symbol (mPa) is that unit.
    assume(written == symbol or not is_unit(written) or symbol == "uS/cm")
    before, after = frame
    text = f"{before}{amount}{written}{after}"
    said = normalizer.normalize(text)
    number = normalizer.normalize(f"数值{amount}").removeprefix("数值")
    assert said == normalizer.normalize(before) + number + words + normalizer.normalize(after)
    assert [run.lang for run in split_runs(text, "zh")] == ["zh"]


def test_an_upper_case_unit_another_unit_spells_is_left(normalizer):
    """MW is megawatts (not milliwatts), mA milliamperes: no spelling is guessed."""
    assert normalizer.normalize("5MW") == "五兆瓦"
    assert normalizer.normalize("5mA") == "五毫安"


VALUE_FORMS = [
    # Capitals written onto a value with its unit name it: spelled, then the value whole.
    ("PV1.25MPa", "P V 一点二五兆帕"),
    ("SV0.8MPa", "S V 零点八兆帕"),
    ("FT12.5m³/h", "F T 十二点五立方米每小时"),
    ("HZ50.5Hz", "H Z 五十点五赫兹"),
    ("PN1.6Mpa", "P N 一点六兆帕"),
    ("RH65%", "R H 百分之六十五"),
    ("PV-5℃", "P V 零下五摄氏度"),
    ("AI1.5", "A I 一点五"),
    ("PT-101", "P T 杠 幺零幺"),
    # Groups of three digits parted by spaces before a unit; a steel grade.
    ("12 500 kg", "一万二千五百千克"),
    ("316L不锈钢", "三一六 L 不锈钢"),
    ("304L", "三零四 L"),
    ("200L", "两百升"),
]


@pytest.mark.parametrize(("text", "expected"), VALUE_FORMS)
def test_a_value_as_plant_screens_write_it(normalizer, text, expected):
    assert normalizer.normalize(text) == expected


@settings(max_examples=60, deadline=None)
@given(
    letters=st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=2, max_size=4),
    value=st.from_regex(r"-?[1-9][0-9]{0,2}\.[0-9]{1,2}", fullmatch=True),
    unit=st.sampled_from(["MPa", "℃", "%", "mA", "m", "Hz", "kW"]),
)
def test_capitals_written_onto_a_value_name_it(normalizer, letters, value, unit):
    """The letters spelled, then the value read as it is alone: never a tag's digits."""
    assume(letters not in CURRENCIES)  # a currency's code before an amount is money
    said = normalizer.normalize(f"{letters}{value}{unit}")
    alone = normalizer.normalize(f"数值{value}{unit}").removeprefix("数值")
    assert said == " ".join(letters) + " " + alone


DATE_FORMS = [
    # A weekday after a month-day pair, a second pair, a year or 日 say a date.
    ("11/30（周一）", "十一月三十日（周一）"),
    ("3/15（周日）", "三月十五日（周日）"),
    ("11/30-12/2", "十一月三十日到十二月二日"),
    ("11/2026", "二零二六年十一月"),
    ("11.30日", "十一月三十日"),
    ("12.25日", "十二月二十五日"),
    # Without a cue a pair stays a share.
    ("3/4", "四分之三"),
    ("13/2026", "两千零二十六分之十三"),
]


@pytest.mark.parametrize(("text", "expected"), DATE_FORMS)
def test_a_date_with_a_cue_in_its_own_form(normalizer, text, expected):
    assert normalizer.normalize(text) == expected


_DAYS_IN = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MONTH_DAYS = st.integers(1, 12).flatmap(
    lambda month: st.tuples(st.just(month), st.integers(1, _DAYS_IN[month - 1]))
)


def _said_day(normalizer: MandarinNormalizer, month: int, day: int) -> str:
    return f"{_cardinal(normalizer, month)}月{_cardinal(normalizer, day)}日"


@settings(max_examples=60, deadline=None)
@given(
    first=_MONTH_DAYS,
    second=_MONTH_DAYS,
    weekday=st.sampled_from(["（周一）", "(星期五)", "周日"]),
)
def test_month_day_pairs_with_a_cue_are_dates(normalizer, first, second, weekday):
    """A weekday after a pair, or a second pair after a dash, makes it a day (11/30 alone is
    a share)."""
    said = normalizer.normalize(f"{first[0]}/{first[1]:02d}{weekday}")
    assert said == _said_day(normalizer, *first) + normalizer.normalize(weekday)
    said = normalizer.normalize(f"{first[0]:02d}/{first[1]}-{second[0]}/{second[1]}")
    assert said == _said_day(normalizer, *first) + "到" + _said_day(normalizer, *second)


SLASH_FORMS = [
    # Three numbers a slash joins: a list of numbered units before 号, else 斜杠 between.
    ("1/2/3号泵", "一、二、三号泵"),
    ("2/3/4号线", "二、三、四号线"),
    ("1/2/3", "一斜杠二斜杠三"),
    # A pipe thread's size is a fraction of an inch.
    ("G1/2", "G 二分之一"),
    ("R1/4", "R 四分之一"),
    # A slash after a label's number parts the label from a value: no share.
    ("罐2/85度", "罐二斜杠八十五度"),
    ("线3/12米", "线三斜杠十二米"),
    ("柜3/5万元", "柜三斜杠五万元"),
    ("柜3/14时05分", "柜三斜杠十四时零五分"),
    ("罐2/85℃", "罐二斜杠八十五摄氏度"),
    ("2/3台泵运行", "三台中的两台泵运行"),
    ("3/4", "四分之三"),
]


@pytest.mark.parametrize(("text", "expected"), SLASH_FORMS)
def test_a_slash_as_plant_text_writes_it(normalizer, text, expected):
    assert normalizer.normalize(text) == expected


@settings(max_examples=60, deadline=None)
@given(numbers=st.lists(st.integers(1, 99), min_size=3, max_size=5))
def test_three_numbers_a_slash_joins_before_hao_are_a_list(normalizer, numbers):
    """Each a numbered unit, 、 between: the slash is never silent."""
    said = normalizer.normalize("/".join(map(str, numbers)) + "号泵")
    assert said == "、".join(_cardinal(normalizer, n) for n in numbers) + "号泵"


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        ("Alarm 12月31日", [("en", "Alarm"), ("zh", "12月31日")]),
        ("Pump 2台", [("en", "Pump"), ("zh", "2台")]),
        ("Alarm 1.5万", [("en", "Alarm"), ("zh", "1.5万")]),
        ("Alarm，3号线", [("en", "Alarm，"), ("zh", "3号线")]),
        ("8:00am", [("zh", "8:00am")]),
        ("设备8pm运行", [("zh", "设备8pm运行")]),
        ("Pump P-101 tripped at 14:05", [("en", "Pump P-101 tripped at 14:05")]),
    ],
)
def test_a_number_written_onto_chinese_and_am_pm_stay_mandarin(text, runs):
    """The number goes with the Chinese it is written onto, am and pm with their time."""
    assert [(run.lang, run.text) for run in split_runs(text, "zh")] == runs


@settings(max_examples=60, deadline=None)
@given(
    hour=st.integers(1, 12),
    minute=st.integers(0, 59) | st.none(),
    half=st.sampled_from(["am", "pm", "AM", "PM"]),
)
def test_a_twelve_hour_time_is_read_as_with_a_space(normalizer, hour, minute, half):
    """8:00am, 8pm: as `8:00 AM`, `8 PM` are, the part of the day before the hour."""
    clock = f"{hour}" if minute is None else f"{hour}:{minute:02d}"
    glued = normalizer.normalize(f"设备{clock}{half}运行")
    assert glued == normalizer.normalize(f"设备{hour}:{minute or 0:02d} {half.upper()}运行")
    assert [run.lang for run in split_runs(f"设备{clock}{half}运行", "zh")] == ["zh"]
