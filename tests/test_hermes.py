"""Hermes say requests become announcements held to the same bounds as template phrases."""

from __future__ import annotations

import json

import pytest

from cosyedge.alerts.alert import RejectedAlert
from cosyedge.config import parse_config
from cosyedge.mqtt import hermes
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
    with pytest.raises(RejectedAlert, match=r"^nothing to say in en$"):
        offer("\x07\x08")


def offer_payload(**fields):
    intake = Intake(parse_config(CONFIG))
    payload = json.dumps({"siteId": "default", **fields}).encode()
    return intake.offer(intake.ticket(1, "hermes/tts/say", payload, 0.0), payload, 0.0)


@pytest.mark.parametrize(
    "payload",
    [
        b'{"text": "hi", "siteId": "default", "n": ' + b"7" * 5000 + b"}",
        b"[" * 100000,
        b"\xff\xfe{}",
    ],
)
def test_a_request_that_json_cannot_read_gets_no_request_not_an_exception(payload):
    assert hermes.request_of(payload) is None


def test_an_answer_can_always_be_sent_as_utf8():
    request = hermes.request_of(b'{"siteId": "default", "sessionId": "s\\ud800", "id": "r"}')
    assert request.session_id == "s\\ud800"  # escaped: a lone surrogate has no UTF-8
    for _, message in hermes.answers(request, "rejected", {"reason": "x"}):
        message.encode()


@pytest.mark.parametrize("volume", [10**400, float("inf"), float("nan"), 1.5])
def test_a_volume_that_is_not_0_to_1_is_rejected(volume):
    payload = json.dumps({"text": "hi", "volume": volume}).encode()
    with pytest.raises(RejectedAlert, match=r"^hermes/tts/say: volume must be 0-1, got "):
        hermes.say_alert(payload, 16384)


def test_an_unknown_priority_or_language_is_said_in_a_note():
    said = offer_payload(text="Door open", priority="urgent", lang="fr")
    assert (said.announcement.priority, said.announcement.lang) == ("medium", "en")
    assert said.announcement.notes == (
        "priority: unknown value 'urgent', used medium",
        "lang: no voice for 'fr', used en",
    )
    assert offer_payload(text="Door open", lang="en-GB").announcement.notes == ()
    assert offer_payload(text="Door open", lang="en-GB").announcement.lang == "en"
