"""Splitting mixed Chinese/English alert text into runs for each language's voice."""

from __future__ import annotations

import pytest

from cosyedge.alerts.alert import parse_alert
from cosyedge.announcements.templates import TemplateSet
from cosyedge.config import TemplateConfig
from cosyedge.speech.lang import Run, split_runs


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
        ("12.5", "zh", [("zh", "12.5")]),
        ("12.5", "en", [("en", "12.5")]),
        ("", "en", []),
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
    announcement = found.render(parse_alert("cosyedge/say", payload.encode()), fields)
    assert announcement.lang == lang
