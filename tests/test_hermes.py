"""Hermes say requests become announcements held to the same bounds as template phrases."""

from __future__ import annotations

import json

import pytest

from cosyedge.alerts.alert import RejectedAlert
from cosyedge.config import parse_config
from cosyedge.mqtt.intake import Intake

CONFIG = "hermes:\n  enabled: true\n  max_chars: 60\n"


def offer(text: str):
    intake = Intake(parse_config(CONFIG))
    payload = json.dumps({"text": text, "siteId": "default", "id": "r1"}).encode()
    return intake.offer(intake.ticket(1, "hermes/tts/say", payload, 0.0), payload, 0.0)


def test_long_say_text_is_cut_at_a_word_boundary():
    spoken = offer("Conveyor four stopped " * 50).announcement.text
    assert len(spoken) <= 60
    assert spoken.startswith("Conveyor four stopped Conveyor")
    assert spoken.endswith("stopped") or spoken.endswith("four") or spoken.endswith("Conveyor")


def test_control_characters_are_spoken_as_spaces():
    assert offer("Gate\x07 open\n\tnow").announcement.text == "Gate open now"


def test_text_of_control_characters_only_is_rejected():
    with pytest.raises(RejectedAlert, match="nothing to speak"):
        offer("\x07\x08")
