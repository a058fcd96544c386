"""What a template makes of the fields it is given, read as intake reads an MQTT message: a
field that holds nothing (an empty topic level or text) is missing, never said as nothing;
a field of the wrong JSON type is named with the type expected, never called missing."""

from __future__ import annotations

import json

import pytest

from cosyedge.config import parse_config
from cosyedge.intake.alert import Message
from cosyedge.intake.intake import Intake
from cosyedge.intake.local import BadField
from cosyedge.model import Offer, Refusal, Verdict

CONFIG = """
templates:
  - topic: "plant/{line}/temperature"
    text: "Temperature on line {line}: {value:.1f} degrees, {state}."
    payload: json
    priority: high
  - topic: "room/{room}"
    text: "{text}"
hermes:
  enabled: true
"""
GOOD = {"value": 71.5, "state": "rising"}
# Every JSON type, as the phrase would be asked to hold it.
JSON_TYPES = {
    "an array": [1, 2],
    "an object": {"a": 1},
    "null": None,
    "a boolean": True,
    "a string": "hot",
    "a number": 7,
}


def read(topic: str, payload: dict | bytes) -> Verdict:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    intake = Intake(parse_config(CONFIG))
    return intake.read(Message(topic, body), 1, 0.0, 0.0)


def reason(verdict: Verdict) -> str:
    assert isinstance(verdict, Refusal) and verdict.kind == "rejected", verdict
    return verdict.reason


def said(verdict: Verdict) -> str:
    assert isinstance(verdict, Offer) and verdict.announcement, verdict
    return verdict.announcement.text


# -- a field that holds nothing ------------------------------------------------------------------
@pytest.mark.parametrize("level", ["", " ", "\t", "\u200b", "\u200b \u2060"])
def test_an_empty_topic_level_is_a_missing_field_not_said_as_nothing(level):
    why = reason(read(f"plant/{level}/temperature", GOOD))
    assert "missing field 'line'" in why and "empty" in why, why
    # Missing from the topic, the payload may still give it, as any field.
    assert said(read(f"plant/{level}/temperature", {**GOOD, "line": 3})).startswith(
        "Temperature on line 3:"
    )


@pytest.mark.parametrize("text", ["", "   ", "\u200b", "\x07\x08"])
def test_a_payload_field_of_empty_text_is_missing_too(text):
    why = reason(read("plant/3/temperature", {**GOOD, "state": text}))
    assert "missing field 'state'" in why and "empty" in why, why
    assert "missing field 'text'" in reason(read("room/a", {"text": text}))


@pytest.mark.parametrize("line", [" ", "\u200b"])
def test_a_template_request_with_an_empty_level_is_refused_naming_the_field(line):
    intake = Intake(parse_config(CONFIG))
    body = {"template": "plant/{line}/temperature", "fields": {**GOOD, "line": line}}
    with pytest.raises(BadField) as refused:
        intake.local_message(json.dumps(body).encode())
    assert refused.value.field == "fields.line"


# -- a field of the wrong type -------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["an array", "an object", "null"])
def test_a_field_the_phrase_says_with_the_wrong_type_is_named_with_the_type_expected(kind):
    given = JSON_TYPES[kind]
    why = reason(read("room/a", {"text": given}))
    assert why == f"field 'text': expected a string, number or boolean, got {kind}", why
    why = reason(read("plant/3/temperature", {**GOOD, "state": given}))
    assert why == f"field 'state': expected a string, number or boolean, got {kind}", why


@pytest.mark.parametrize("kind", ["an array", "an object", "null", "a boolean"])
def test_a_number_field_with_the_wrong_type_is_named_with_the_type_expected(kind):
    why = reason(read("plant/3/temperature", {**GOOD, "value": JSON_TYPES[kind]}))
    assert why.startswith(f"field 'value': expected a number, got {kind}"), why


@pytest.mark.parametrize("kind", ["an array", "an object", "a boolean", "a string"])
def test_a_ttl_of_the_wrong_type_is_refused_naming_it(kind):
    why = reason(read("plant/3/temperature", {**GOOD, "ttl": JSON_TYPES[kind]}))
    assert why.startswith(f"ttl: expected seconds as a number, got {kind}"), why


@pytest.mark.parametrize(
    "name,expected",
    [
        ("priority", "priority: expected one of critical, high, medium, low, got {kind}; used"),
        ("lang", "lang: expected a language code such as en, got {kind}; used en"),
        ("id", "id: expected a string or an integer, got {kind}; named by a hash"),
    ],
)
@pytest.mark.parametrize("kind", ["an array", "an object", "a boolean", "a number"])
def test_an_optional_field_of_the_wrong_type_is_ignored_and_the_report_says_so(
    name, expected, kind
):
    given = JSON_TYPES[kind]
    if (name, kind) == ("id", "a number"):  # an integer is an id: a fraction is not
        kind, given = "7.5", 7.5
    offer = read("plant/3/temperature", {**GOOD, name: given})
    assert isinstance(offer, Offer) and offer.announcement, offer
    notes = offer.announcement.notes
    assert any(n.startswith(expected.format(kind=kind)) for n in notes), notes
    assert offer.priority == "high" and offer.announcement.lang == "en"


def test_null_for_an_optional_field_is_as_if_it_were_not_given():
    offer = read("plant/3/temperature", {**GOOD, "priority": None, "lang": None, "ttl": None})
    assert isinstance(offer, Offer) and offer.announcement and not offer.announcement.notes


@pytest.mark.parametrize("kind", ["an array", "an object", "null", "a number"])
def test_a_hermes_text_of_the_wrong_type_is_named_with_the_type_expected(kind):
    payload = {"text": JSON_TYPES[kind], "siteId": "default"}
    why = reason(read("hermes/tts/say", payload))
    assert why == f"hermes/tts/say: text: expected a string, got {kind}", why


# -- a lone surrogate (JSON's "\ud800", which no UTF-8 can hold) ---------------------------------
@pytest.mark.parametrize("escaped", ["\\ud800", "\\udfff", "\\udc80"])
def test_a_lone_surrogate_in_a_field_is_left_out_and_the_rest_is_said(escaped):
    body = f'{{"value": 71.5, "state": "{escaped}rising"}}'.encode()
    assert said(read("plant/3/temperature", body)) == "Temperature on line 3: 71.5 degrees, rising."
    text = said(read("room/a", f'{{"text": "{escaped} bad surrogate 5 bar"}}'.encode()))
    assert text == "bad surrogate 5 bar"
    text.encode()  # it can be written out, hashed and stored
    # Nothing but a surrogate is an empty text: refused, naming the field.
    assert "missing field 'text'" in reason(read("room/a", f'{{"text": "{escaped}"}}'.encode()))
