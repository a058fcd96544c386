"""HTTP API requests read strictly, in process: what each becomes, and what is refused whole."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import threading

import pytest
from support import config_problems

from cosyedge.config import config_warnings, parse_config
from cosyedge.http.audio import wav_header
from cosyedge.http.outcomes import OutcomeBoard
from cosyedge.intake.commands import parse_command
from cosyedge.intake.intake import Intake
from cosyedge.intake.local import (
    SAY_TOPIC,
    BadField,
    request_object,
    say_request,
    template_message,
)
from cosyedge.intake.templates import TemplateSet
from cosyedge.model import BadCommand, Offer

VOICES = {"en": None, "zh": None}
TEMPLATES = """
templates:
  - topic: "plant/+/level"
    text: "Level {value}."
  - topic: "plant/{line}/{kind}"
    text: "{kind} on line {line}: {value}."
    payload: json
  - topic: "note/{line}"
    text: "{text}"
    payload: text
"""


def test_a_phrase_becomes_canonical_json_and_keeps_the_mqtt_dedup_key():
    a = say_request({"text": "Pump stopped.", "priority": "high", "ttl": 30}, VOICES)
    b = say_request({"ttl": 30.0, "priority": "high", "text": "Pump stopped."}, VOICES)
    assert a.payload == b.payload and a.key() == b.key()  # no id: a hash of the request
    assert json.loads(a.payload) == {"text": "Pump stopped.", "priority": "high", "ttl": 30.0}
    assert say_request({"text": "x", "id": 12}, VOICES).key() == "12"
    assert say_request({"text": "x", "lang": "zh-CN"}, VOICES).lang == "zh-CN"


@pytest.mark.parametrize(
    "request_,field",
    [
        ({}, "text"),
        ({"text": "  \u200b "}, "text"),  # nothing but space and an invisible mark
        ({"text": "x", "id": True}, "id"),
        ({"text": "x", "id": ""}, "id"),
        ({"text": "x", "ttl": float("nan")}, "ttl"),
        ({"text": "x", "volume": "1"}, "volume"),
        ({"text": "x", "lang": "klingon-tlh-x"}, "lang"),
        ({"text": "x", "sessionId": "s"}, "sessionId"),
    ],
)
def test_a_wrong_field_refuses_the_whole_request_naming_it(request_, field):
    with pytest.raises(BadField) as refused:
        say_request(request_, VOICES)
    assert refused.value.field == field and refused.value.reason


def test_a_template_request_is_the_message_a_publisher_would_send():
    templates = TemplateSet(parse_config(TEMPLATES).templates)
    topic, payload = template_message(
        {"template": "plant/{line}/{kind}", "fields": {"line": 3, "kind": "pressure", "value": 7}},
        templates,
    )
    assert (topic, json.loads(payload)) == ("plant/3/pressure", {"value": 7})
    assert template_message(
        {"template": "note/{line}", "fields": {"line": "a", "text": "Hello."}}, templates
    ) == ("note/a", b"Hello.")


@pytest.mark.parametrize(
    "request_,field",
    [
        ({"template": "plant/+/level", "fields": {"value": 1}}, "template"),  # unnamed level
        ({"template": "plant/{line}/{kind}", "fields": {"line": 1, "kind": "level"}}, "template"),
        (
            {"template": "plant/{line}/{kind}", "fields": {"line": "a/b", "kind": "x"}},
            "fields.line",
        ),
        (
            {"template": "plant/{line}/{kind}", "fields": {"line": 1, "kind": "x", "v": [1]}},
            "fields.v",
        ),
        ({"template": "note/{line}", "fields": {"line": 1, "text": "a", "more": 1}}, "fields"),
        ({"template": "nowhere", "fields": {}}, "template"),
        ({"template": "note/{line}", "fields": [], "extra": 1}, "extra"),
    ],
)
def test_a_template_request_that_cannot_be_one_message_is_refused(request_, field):
    templates = TemplateSet(parse_config(TEMPLATES).templates)
    with pytest.raises(BadField) as refused:
        template_message(request_, templates)
    assert refused.value.field == field


def test_intake_reads_a_journaled_say_request_as_the_api_took_it():
    intake = Intake(parse_config(TEMPLATES))
    body = json.dumps({"text": "Valve open.", "priority": "low", "volume": 0.5, "id": "v"})
    message = intake.local_message(body.encode())
    assert message.topic == SAY_TOPIC
    reading = intake.read_journaled(7, message.topic, message.payload, 0.0, 0.0)
    assert isinstance(reading, Offer)
    assert (reading.key, reading.priority, reading.volume) == ("v", "low", 0.5)
    assert reading.announcement and reading.announcement.text == "Valve open."
    with pytest.raises(BadField) as refused:  # what reading would reject is refused first
        intake.local_message(b'{"text": "\\ud83d\\ude42"}')
    assert refused.value.field == "text" and "nothing to say" in refused.value.reason


def test_a_published_copy_of_the_say_topic_is_not_ours():
    assert Intake(parse_config(TEMPLATES)).message(SAY_TOPIC, b'{"text": "x"}') is None


def test_a_waiter_gets_the_outcome_told_before_or_while_it_waits():
    board = OutcomeBoard()
    board.watch(1)
    board.reported({"seq": 1, "outcome": "deduplicated"})  # decided before the caller waits
    assert board.wait(1, 0) == {"seq": 1, "outcome": "deduplicated"}
    board.watch(2)
    threading.Timer(0.05, board.reported, [{"seq": 2, "outcome": "spoken"}]).start()
    assert board.wait(2, 10) == {"seq": 2, "outcome": "spoken"}
    board.reported({"seq": 3, "outcome": "spoken"})  # nobody watches: nothing kept
    assert board.wait(3, 0) is None


def test_wav_headers_streaming_and_whole():
    streaming = wav_header(24000, None)
    whole = wav_header(22050, 100)
    assert len(streaming) == len(whole) == 44
    assert struct.unpack("<I", streaming[40:44]) == (0xFFFFFFFF,)
    assert struct.unpack("<I", whole[4:8]) == (236,) and struct.unpack("<I", whole[40:44]) == (200,)
    assert struct.unpack("<I", whole[24:28]) == (22050,)


def test_the_token_file_is_checked_like_the_mqtt_password(tmp_path):
    token = tmp_path / "token"
    token.write_text("0123456789abcdef")
    token.chmod(0o644)
    config = parse_config(f"http:\n  listen: '0.0.0.0:8088'\n  token_file: {token}\n")
    assert config_warnings(config) == [
        f"http.token_file: {token} is readable by others (mode 0644); chmod o-rwx it"
    ]
    token.chmod(0o600)
    assert config_warnings(parse_config(f"http:\n  token_file: {token}\n")) == []
    (problem,) = config_problems(f"http:\n  token_file: {tmp_path}/missing\n")
    assert "http.token_file: cannot read" in problem


@pytest.mark.parametrize(
    "text,named",
    [
        ("", "holds no token"),
        (" \n\t\n", "holds no token"),
        ("t", "a token of 1 characters; at least 16"),
        ("  0123456789abcde  \n", "a token of 15 characters; at least 16"),
    ],
)
def test_an_empty_or_short_token_is_refused_by_check_and_at_start(tmp_path, text, named):
    """Either left the API open to guessing (1 character passed `check`), or, empty, passed
    `check` and then left the API unserved at start. Both read the file through the config."""
    token = tmp_path / "token"
    token.write_text(text)
    config = f"http:\n  enabled: true\n  token_file: {token}\n"
    (problem,) = config_problems(config)
    assert named in problem and "http.token_file" in problem
    token.write_text("  0123456789abcdef\n")
    assert parse_config(config).http.token_file == token


@pytest.mark.system
def test_cosyedge_check_refuses_a_short_token_in_one_line(tmp_path):
    token = tmp_path / "token"
    token.write_text("x\n")
    site = tmp_path / "site.yaml"
    site.write_text(f"http:\n  enabled: true\n  token_file: {token}\n")
    run = [sys.executable, "-m", "cosyedge", "check", "--config", str(site)]
    result = subprocess.run(run, capture_output=True, text=True)
    assert result.returncode == 2, result
    assert result.stderr.count("\n") == 1 and "at least 16" in result.stderr, result.stderr


def test_lone_surrogates_in_a_request_are_removed_as_from_mqtt_text():
    intake = Intake(parse_config(TEMPLATES))
    message = intake.local_message(b'{"text": "Pump\\ud800 one stopped.", "id": "p\\udfff1"}')
    assert json.loads(message.payload)["text"] == "Pump one stopped."
    assert json.loads(message.payload)["id"] == "p1"
    body = b'{"template": "plant/{line}/{kind}", "fields": {"line": "3\\ud800", "kind": "gas",'
    message = intake.local_message(body + b' "value": "7\\udc00", "\\ud801id": "x"}}')
    assert message.topic == "plant/3/gas"
    assert json.loads(message.payload) == {"value": "7", "id": "x"}
    with pytest.raises(BadField) as refused:
        intake.local_message(b'{"text": "\\ud800"}')
    assert refused.value.field == "text"


@pytest.mark.parametrize("body", [b"[" * 100_000, b'{"text": ' + b"[" * 100_000 + b"}"])
def test_json_nested_too_deeply_is_refused_as_bad_json_by_requests_and_commands(body):
    with pytest.raises(BadField, match="invalid JSON: nested too deeply"):
        request_object(body)
    with pytest.raises(BadCommand, match="nested too deeply"):
        parse_command(body)


def test_a_shelve_without_a_duration_is_an_hour_and_one_under_a_second_is_refused():
    """It was the 8 h maximum, silently; and 1e-9 s was taken."""
    shelve = parse_command(b'{"cmd": "shelve", "topic": "plant/3/#"}')
    assert shelve.duration_s == 3600
    assert parse_command(b'{"cmd": "shelve", "topic": "t", "duration_s": 1}').duration_s == 1
    for short in ("1e-9", "0.5", "0", "-5"):
        payload = b'{"cmd": "shelve", "topic": "t", "duration_s": %s}' % short.encode()
        with pytest.raises(BadCommand, match="at least 1"):
            parse_command(payload)
