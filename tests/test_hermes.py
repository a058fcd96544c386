"""Hermes say requests become announcements held to the same bounds as template phrases."""

from __future__ import annotations

import dataclasses
import json

import pytest

from cosyedge.config import VoiceConfig, parse_config
from cosyedge.intake import hermes
from cosyedge.intake.alert import Message
from cosyedge.intake.hermes import answers
from cosyedge.intake.intake import Intake
from cosyedge.model import HermesRequest, RejectedAlert
from cosyedge.speech.tags import ENGINE_SCRIPTS, dominant_script, matching_voice, normalize_tag

CONFIG = "hermes:\n  enabled: true\n  max_chars: 60\n"


def offer(text: str):
    intake = Intake(parse_config(CONFIG))
    payload = json.dumps({"text": text, "siteId": "default", "id": "r1"}).encode()
    message = Message("hermes/tts/say", payload)
    return intake.offer(message, intake.ticket(message, 1, 0.0), 0.0)


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


# -- language tags as clients send them -------------------------------------------------------

VOICES = ["en", "zh"]
RUSSIAN = "Насос остановлен"  # noqa: RUF001 (Cyrillic on purpose)


@pytest.mark.parametrize(
    ("tag", "voice"),
    [
        ("en", "en"),
        ("EN", "en"),
        ("en_US", "en"),
        ("en-US", "en"),
        ("en-gb", "en"),
        ("en_GB.UTF-8", "en"),
        ("en_IE.UTF-8@euro", "en"),
        ("eng", "en"),
        (" en-US ", "en"),
        ("zh", "zh"),
        ("zh-CN", "zh"),
        ("zh_CN", "zh"),
        ("zh_Hans", "zh"),
        ("zh-Hans-CN", "zh"),
        ("zh_TW.Big5", "zh"),
        ("ZH-hant-tw", "zh"),
        ("cmn-Hans", "zh"),
        ("de", None),
        ("de_DE.UTF-8", None),
        ("fr-CA", None),
        ("", None),
        ("C", None),
        ("C.UTF-8", None),
        ("POSIX", None),
        ("und", None),
        ("_", None),
        ("-", None),
        (".UTF-8", None),
        ("@euro", None),
    ],
)
def test_client_language_tags_find_the_configured_voice(tag, voice):
    assert matching_voice(tag, VOICES) == voice


def test_the_longest_configured_prefix_wins_then_any_voice_of_the_language():
    voices = ["en-GB", "en", "zh-Hant", "zh"]
    assert matching_voice("en_GB", voices) == "en-GB"
    assert matching_voice("en-US", voices) == "en"
    assert matching_voice("zh-Hant-TW", voices) == "zh-Hant"
    assert matching_voice("zh_TW", voices) == "zh"
    # Only a regional voice: the language still finds it, under the key as configured.
    assert matching_voice("en-US", ["zh", "en-GB"]) == "en-GB"
    assert matching_voice("EN", ["en-GB", "en-AU"]) == "en-GB"  # the first one configured
    assert matching_voice("en-GB", ["EN_gb"]) == "EN_gb"


def test_normalized_tags():
    assert normalize_tag("en_US.UTF-8@euro") == "en-us"
    assert normalize_tag("zh_Hans_CN") == "zh-hans-cn"
    assert normalize_tag("zho-TW") == "zh-tw"
    assert normalize_tag("C.UTF-8") == ""


@pytest.mark.parametrize(
    ("text", "script"),
    [
        ("Conveyor four stopped", "Latin"),
        ("Tür offen, Größe 5 µm", "Latin"),  # the micro sign does not outvote the words
        ("三号泵停止 pump 3", "Han"),
        (RUSSIAN, "Cyrillic"),
        ("ポンプが停止しました", "Hiragana"),
        ("42 % / 17.5 °", None),
    ],
)
def test_dominant_script(text, script):
    assert dominant_script(text) == script


def test_every_engine_has_the_script_it_reads():
    engines = {f.name: f for f in dataclasses.fields(VoiceConfig)}["engine"].metadata["choices"]
    assert set(engines) == set(ENGINE_SCRIPTS)


# -- which voice says a request ---------------------------------------------------------------

BOTH = "voices:\n  en: {engine: hibari}\n  zh: {engine: espeak-pinyin}\n"


def say(config: str, **fields):
    intake = Intake(parse_config(config + CONFIG))
    payload = json.dumps({"siteId": "default", "id": "r1", **fields}).encode()
    message = Message("hermes/tts/say", payload)
    return intake.offer(message, intake.ticket(message, 1, 0.0), 0.0)


@pytest.mark.parametrize(
    ("lang", "text", "voice"),
    [
        ("en_US", "Pump stopped", "en"),
        ("en-GB", "Pump stopped", "en"),
        ("EN", "Pump stopped", "en"),
        ("zh-CN", "三号泵停止", "zh"),
        ("zh_Hans", "三号泵停止", "zh"),
        (None, "三号泵停止", "zh"),  # no lang: the voice that reads the text
        (None, "Pump stopped", "en"),
        ("", "Pump stopped", "en"),
        (7, "Pump stopped", "en"),
    ],
)
def test_a_request_is_said_by_the_voice_of_its_language_without_a_note(lang, text, voice):
    fields = {"text": text} if lang is None else {"text": text, "lang": lang}
    offer = say(BOTH, **fields)
    assert (offer.announcement.lang, offer.note) == (voice, None)


def test_a_language_without_a_voice_is_said_by_the_voice_that_reads_its_script_and_noted():
    offer = say(BOTH, text="Pumpe drei steht", lang="de_DE.UTF-8")
    assert offer.announcement.lang == "en"
    assert offer.note == "no voice for language 'de_DE.UTF-8': said with the 'en' voice"
    offer = say(BOTH, text="ポンプ三号停止", lang="ja")  # kanji outnumber the katakana here
    assert offer.announcement.lang == "zh"
    assert offer.note == "no voice for language 'ja': said with the 'zh' voice"
    offer = say(
        "voices:\n  zh: {engine: espeak-pinyin}\ntemplates: [{topic: a, text: a, lang: zh}]\n",
        text="42",
        lang="de",
    )
    assert offer.announcement.lang == "zh"  # no letters: the first voice
    assert offer.note == "no voice for language 'de': said with the 'zh' voice"


@pytest.mark.parametrize(
    ("config", "lang", "text", "reason"),
    [
        (BOTH, "ru", RUSSIAN, "no voice for language 'ru', and no voice reads Cyrillic"),
        (BOTH, None, RUSSIAN, "no language given, and no voice reads Cyrillic"),
        ("", "zh-CN", "三号泵停止", "no voice for language 'zh-CN', and no voice reads Han"),
    ],
)
def test_a_text_no_voice_can_read_is_rejected_with_the_reason(config, lang, text, reason):
    fields = {"text": text} if lang is None else {"text": text, "lang": lang}
    voices = config or "voices:\n  en: {engine: hibari}\n"
    with pytest.raises(RejectedAlert, match=reason):
        say(voices, **fields)


# -- de-duplication and answers ---------------------------------------------------------------


def test_a_reused_request_id_is_another_request_and_only_the_same_message_is_a_duplicate():
    first = say(BOTH, text="Gate open")
    assert say(BOTH, text="Gate closed").key != first.key
    assert say(BOTH, text="Gate open").key == first.key
    assert first.key.startswith("r1#")


REQUEST = HermesRequest("kitchen", "s-1", "r1")


def test_a_request_spoken_as_asked_gets_only_say_finished():
    (finished,) = answers(REQUEST, "spoken", {"text": "Gate open", "id": "r1#x"})
    assert finished[0] == "hermes/tts/sayFinished"
    assert json.loads(finished[1]) == {"siteId": "kitchen", "sessionId": "s-1", "id": "r1"}


@pytest.mark.parametrize(
    ("outcome", "detail", "error"),
    [
        ("spoken", {"note": "no voice for language 'de'"}, "spoken: no voice for language 'de'"),
        ("deduplicated", {"reason": "same id within 60 s"}, "deduplicated: the very same message"),
        ("expired", {"reason": "its time to live passed"}, "expired: its time to live passed"),
        ("rejected", {"reason": "text is missing"}, "rejected: text is missing"),
        ("failed", {"reason": "RuntimeError: x"}, "failed: RuntimeError: x"),
        ("acknowledged", {}, "acknowledged: acknowledged by an operator"),
        ("silenced", {}, "silenced: silenced by an operator"),
        ("shelved", {}, "shelved: its source is shelved"),
        ("summarized", {"summary": "3 alarms"}, "summarized: said only as part of a flood"),
        ("cleared", {"reason": "returned to normal"}, "cleared: returned to normal"),
    ],
)
def test_every_other_outcome_gets_an_error_first(outcome, detail, error):
    (first, err), (second, finished) = answers(REQUEST, outcome, detail)
    assert (first, second) == ("hermes/error/tts", "hermes/tts/sayFinished")
    assert json.loads(err)["error"].startswith(error)
    assert json.loads(err)["siteId"] == "kitchen" and json.loads(err)["sessionId"] == "s-1"
    assert json.loads(finished)["id"] == "r1"


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
        hermes.say_alert(payload, 16384, {"en": VoiceConfig()})


@pytest.mark.parametrize(
    "payload",
    [
        b'{"text": "Gate open", "siteId": "default", "id": "r1"}',
        b'{"text": "Gate open", "siteId": "default"',  # broken: refused, yet answered
    ],
)
def test_a_request_is_decoded_once_from_site_check_to_offer(payload, monkeypatch):
    """Which site, who to answer and what to say all come from one decoding."""
    import cosyedge.intake.alert as alert

    decoded = []
    real = alert.load_json
    monkeypatch.setattr(alert, "load_json", lambda text: decoded.append(text) or real(text))
    intake = Intake(parse_config(CONFIG))
    message = intake.message("hermes/tts/say", payload)
    assert message is not None
    reading = intake.read(message, 1, 0.0, 0.0)
    assert reading.ticket.hermes is not None and reading.ticket.hermes.site_id == "default"
    assert len(decoded) == 1


def test_a_voice_that_speaks_either_script_reads_that_of_its_language():
    from cosyedge.speech.tags import script_read

    assert script_read("en", "cosyvoice") == "Latin" and script_read("zh", "cosyvoice") == "Han"
    assert script_read("zh", "piper") == "Latin"  # the engine decides where it can
