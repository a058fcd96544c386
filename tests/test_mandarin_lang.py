"""Splitting mixed Chinese/English alert text into runs for each language's voice."""

from __future__ import annotations

import pytest

from cosyedge.config import TemplateConfig
from cosyedge.intake.alert import parse_alert
from cosyedge.intake.templates import TemplateSet
from cosyedge.speech.lang import Run, says_anything, split_runs


@pytest.mark.parametrize(
    ("text", "lang", "runs"),
    [
        (
            "8号电机电流15.1A，转速2307rpm，已跳闸",
            "en",
            [("zh", "8号电机电流15.1A，转速2307rpm，已跳闸")],
        ),
        ("7号线压力表PT-144读数1.24MPa", "en", [("zh", "7号线压力表PT-144读数1.24MPa")]),
        ("Pump 3 故障，请检查", "zh", [("en", "Pump 3"), ("zh", "故障，请检查")]),
        (
            "Boiler pressure high, 锅炉压力过高",
            "en",
            [("en", "Boiler pressure high,"), ("zh", "锅炉压力过高")],
        ),
        (
            "温度过高 Temperature high on line 3.",
            "zh",
            [("zh", "温度过高"), ("en", "Temperature high on line 3.")],
        ),
        ("PT-101 pressure high", "zh", [("en", "PT-101 pressure high")]),
        ("PLC故障", "en", [("zh", "PLC故障")]),
        ("LOTO已挂", "zh", [("en", "LOTO"), ("zh", "已挂")]),  # an acronym said as a word
        # a MAC address or a duration is read as one field, its letters no English words
        ("设备ac-de-48-00-11-22离线", "en", [("zh", "设备ac-de-48-00-11-22离线")]),
        ("停机3h40min后恢复", "en", [("zh", "停机3h40min后恢复")]),
        # a number's unit, however it is written, goes with the number
        ("扭矩12ft·lbf，请检查", "en", [("zh", "扭矩12ft·lbf，请检查")]),
        ("流量1.5L/min正常", "en", [("zh", "流量1.5L/min正常")]),
        ("线速度40m/min，扭矩60Nm", "zh", [("zh", "线速度40m/min，扭矩60Nm")]),
        ("粒径5µm", "en", [("zh", "粒径5µm")]),
        ("12.5", "zh", [("zh", "12.5")]),
        ("12.5", "en", [("en", "12.5")]),
        ("", "en", []),
        # a number on its own written onto Chinese characters is theirs
        ("Alarm 12月31日", "en", [("en", "Alarm"), ("zh", "12月31日")]),
        ("Pump 2台", "zh", [("en", "Pump"), ("zh", "2台")]),
        # a form of numbers and an opening bracket written onto Chinese are theirs, whole
        ("Alarm（1号泵）", "en", [("en", "Alarm"), ("zh", "（1号泵）")]),
        ("ALARM 2/3台", "en", [("en", "ALARM"), ("zh", "2/3台")]),
        ("Alarm 1-3号泵 trip", "en", [("en", "Alarm"), ("zh", "1-3号泵"), ("en", "trip")]),
        ("Alarm “2号泵”", "zh", [("en", "Alarm"), ("zh", "“2号泵”")]),
        ("Tank PT-144读数 high", "en", [("en", "Tank PT-144"), ("zh", "读数"), ("en", "high")]),
        # in an English phrase, a Chinese name or place between English words
        ("Operator 张伟 12.5 bar", "en", [("en", "Operator"), ("zh", "张伟"), ("en", "12.5 bar")]),
        ("Area 北区 TT-101 45 °C", "en", [("en", "Area"), ("zh", "北区"), ("en", "TT-101 45 °C")]),
        ("Zone 北区 -5 °C", "en", [("en", "Zone"), ("zh", "北区"), ("en", "-5 °C")]),
        ("温度 85 ℃ 过高", "en", [("zh", "温度 85 ℃ 过高")]),  # no English word: Mandarin
        ("Alarm 温度 85 ℃ 过高", "en", [("en", "Alarm"), ("zh", "温度 85 ℃ 过高")]),
        ("张伟 12.5 bar", "zh", [("zh", "张伟 12.5 bar")]),
    ],
)
def test_runs(text, lang, runs):
    assert split_runs(text, lang) == [Run(*r) for r in runs]


@pytest.mark.parametrize(
    ("payload", "lang"),
    [
        ('{"text": "12.5", "lang": "zh"}', "zh"),
        ('{"text": "12.5", "lang": "ZH"}', "zh"),
        ('{"text": "12.5", "lang": "zh; rm -rf"}', "en"),
        ('{"text": "12.5"}', "en"),
    ],
)
def test_an_alert_may_name_its_language(payload, lang):
    template = TemplateSet([TemplateConfig(topic="cosyedge/say", text="{text}")])
    found, fields = template.find("cosyedge/say")
    announcement = found.announcement(parse_alert("cosyedge/say", payload.encode()), fields)
    assert announcement.lang == lang


@pytest.mark.parametrize(
    ("text", "lang", "voices", "runs"),
    [
        ("第三线: 21.5", "en", {"en"}, [("zh", "第三线", False), ("en", ": 21.5", True)]),
        (
            "8号电机电流15.1A，已跳闸",
            "en",
            {"en"},
            [
                ("en", "8", True),
                ("zh", "号电机电流", False),
                ("en", "15.1A", True),
                ("zh", "，已跳闸", False),
            ],
        ),
        (
            "Pump Station 3 故障",
            "zh",
            {"zh"},
            [("en", "Pump Station", False), ("zh", "3 故障", True)],
        ),
        ("Pumpe 7 defekt", "de", {"de"}, [("de", "Pumpe 7 defekt", True)]),  # its own Latin words
        (
            "\u0e1b\u0e31\u0e4a\u0e21 7",
            "en",
            None,
            [("", "\u0e1b\u0e31\u0e4a\u0e21", False), ("en", "7", True)],
        ),
        ("\u0e1b\u0e31\u0e4a\u0e21 7", "th", {"th"}, [("th", "\u0e1b\u0e31\u0e4a\u0e21 7", True)]),
        ("5 kΩ", "zh", {"zh"}, [("zh", "5 kΩ", True)]),  # a lone Greek letter is a unit
        ("🔥", "en", {"en"}, [("en", "🔥", True)]),
    ],
)
def test_runs_no_voice_can_say_are_marked_and_numbers_go_to_one_that_can(text, lang, voices, runs):
    assert split_runs(text, lang, voices) == [Run(*r) for r in runs]


@pytest.mark.parametrize(
    ("text", "voices", "anything"),
    [
        ("🔥🚨", {"en", "zh"}, False),
        ("— … !", {"en"}, False),
        ("第三线", {"en"}, False),
        ("第三线", {"en", "zh"}, True),
        ("第三线 7", {"en"}, True),
    ],
)
def test_says_anything_wants_a_word_or_number_a_voice_reads(text, voices, anything):
    assert says_anything(split_runs(text, "en", voices)) is anything
