"""Intake: what a message asks of the alarm rules, and whether the voices can say it."""

from __future__ import annotations

import json

import pytest

from cosyedge.config import AlarmsConfig, parse_config
from cosyedge.intake.alert import Message, hashed_id
from cosyedge.intake.intake import Intake
from cosyedge.model import Refusal, RejectedAlert
from cosyedge.speech.cost import fit

TEMPLATES = """
templates:
  - {topic: "say", text: "{text}", payload: json}
  - {topic: "five", text: "{a} {b} {c} {d} {e}", payload: json}
"""
EN_ONLY = "voices:\n  en: {engine: hibari}\n" + TEMPLATES
EN_AND_ZH = TEMPLATES  # the default voices: hibari for en, espeak-pinyin for zh
PUMP_FAULT = "\u041d\u0430\u0441\u043e\u0441 \u0430\u0432\u0430\u0440\u0438\u044f"  # Russian
PUMP_THAI = "\u0e1b\u0e31\u0e4a\u0e21"  # with two combining marks


def offer(config: str, topic: str = "say", **fields):
    intake = Intake(parse_config(config))
    payload = json.dumps(fields).encode()
    message = Message(topic, payload)
    return intake.offer(message, intake.ticket(message, 1, 0.0), 0.0)


def test_a_payload_ttl_of_0_never_expires_like_the_configured_one():
    assert offer(EN_ONLY, text="Door open", ttl=0).timing.ttl_s == 0
    assert offer(EN_ONLY, text="Door open", ttl=30).timing.ttl_s == 30
    assert offer(EN_ONLY, text="Door open", ttl=0).expires == float("inf")


@pytest.mark.parametrize("ttl", [-1, 10**400, float("inf"), float("nan")])
def test_a_payload_ttl_that_is_no_time_is_rejected(ttl):
    with pytest.raises(RejectedAlert, match=r"^ttl: expected seconds, 0 or more"):
        offer(EN_ONLY, text="Door open", ttl=ttl)


@pytest.mark.parametrize(
    ("config", "text", "reason"),
    [
        (EN_ONLY, "🔥🚨🔥", "nothing to say in en"),
        (EN_ONLY, "\u200b\u200d\u2060", "missing field 'text' for template 'say' (it is empty)"),
        (EN_ONLY, "— … !", "nothing to say in en"),
        (EN_ONLY, "第三线故障", "nothing to say in en (left out, no zh voice: '第三线故障')"),
        (
            EN_AND_ZH,
            PUMP_FAULT,
            f"nothing to say in en (left out, no voice reads its script: {PUMP_FAULT!r})",
        ),
        (
            EN_AND_ZH,
            f"{PUMP_THAI}!",
            f"nothing to say in en (left out, no voice reads its script: {PUMP_THAI!r})",
        ),
        (
            EN_AND_ZH,
            "مضخة 🔥",
            "nothing to say in en (left out, no voice reads its script: 'مضخة')",
        ),
    ],
)
def test_a_phrase_the_voices_can_say_nothing_of_is_rejected(config, text, reason):
    with pytest.raises(RejectedAlert) as caught:
        offer(config, text=text)
    assert str(caught.value) == reason


@pytest.mark.parametrize(
    ("config", "text", "note"),
    [
        (EN_ONLY, "第三线: 21.5", "left out, no zh voice: '第三线'"),
        (
            EN_AND_ZH,
            PUMP_FAULT.replace(" ", " 7 "),
            "left out, no voice reads its script: {!r}, {!r}".format(*PUMP_FAULT.split()),
        ),
    ],
)
def test_numbers_beside_an_unsaid_script_are_kept_and_the_rest_noted(config, text, note):
    announcement = offer(config, text=text).announcement
    assert announcement.text == text
    assert announcement.notes == (note,)


def test_a_mandarin_voice_says_what_an_english_one_cannot():
    assert offer(EN_AND_ZH, text="第三线: 21.5").announcement.notes == ()


WORST = 777_777_777_777_777  # the largest a field may hold, each digit said as a word
LIMIT_S = AlarmsConfig().max_spoken_s


@pytest.mark.parametrize(
    ("topic", "fields"),
    [
        ("five", {k: WORST for k in "abcde"}),
        ("five", {k: -WORST for k in "abcde"}),
        ("five", {k: "-7°C " * 40 for k in "abcde"}),
        ("five", {k: "-7.7 " * 40 for k in "abcde"}),
        ("five", {k: "777,777 " * 40 for k in "abcde"}),
        ("say", {"text": "PT-101 at 5 %, " * 40}),
        ("say", {"text": "W" * 400}),
    ],
    ids=["integers", "negatives", "units", "decimals", "thousands", "tags", "capitals"],
)
def test_a_phrase_of_the_worst_numbers_is_said_within_max_spoken_s(topic, fields, hibari_voice):
    """What intake passes on is fitted to the limit by the voice's own reading (as the
    announcer does) and then takes no longer than the limit to say."""
    text = offer(EN_ONLY, topic, **fields).announcement.text
    fitted = fit(text, LIMIT_S, hibari_voice.front.estimate)
    assert fitted.shortened and text.startswith(fitted.text)
    seconds = sum(len(pcm) for pcm in hibari_voice.synthesize(fitted.text)) / 24000
    print(f"{seconds:.1f} s for {fitted.text[:40]!r}... ({len(fitted.text)} characters)")
    assert LIMIT_S / 3 < seconds <= LIMIT_S


@pytest.mark.parametrize(
    ("payload", "known"),
    [
        (
            b'{"id": "b-emoji", "text": "\\ud83d\\udd25\\ud83d\\udea8", "priority": "low"}',
            {"id": "b-emoji", "priority": "low"},
        ),
        (b'{"id": "b-blank", "text": "   "}', {"id": "b-blank", "priority": "medium"}),
        # Unreadable: named as any message without an id, said at its template's priority.
        (b'{"id": "broken', {"id": hashed_id("say", b'{"id": "broken'), "priority": "medium"}),
    ],
)
def test_a_rejected_message_names_its_id_and_priority_as_an_alert_would(payload, known):
    intake = Intake(parse_config(EN_ONLY))
    reading = intake.read(Message("say", payload), 1, 0.0, 0.0)
    assert isinstance(reading, Refusal) and reading.kind == "rejected"
    assert reading.detail == known
