"""The HTTP API against what clients written for other servers send, on the real daemon: an
OpenAI-style client's default speech request and the options such clients add, and the
headers HTTP asks of every answer (`Server`) and of a 405 (`Allow`)."""

from __future__ import annotations

from support import free_port
from test_http import call, http_config, raw_request

SPEECH = "/v1/audio/speech"


def test_an_openai_client_s_requests_are_answered_as_documented(
    broker, alsa_sink, make_daemon, tmp_path
):
    http_port = free_port()
    make_daemon(http_config(broker.port, tmp_path, http_port))
    voices = call(http_port, "GET", "/v1/voices")[1]

    # What OpenAI's Python client sends by default: model, input, voice; an OpenAI voice.
    default = {"model": "tts-1", "input": "Pump one stopped.", "voice": "alloy"}
    status, wav, got = call(http_port, "POST", SPEECH, default)
    assert status == 200, wav
    assert got["Content-Type"] == "audio/wav" and wav[:4] == b"RIFF" and len(wav) > 44 + 4800
    assert got["X-Sample-Rate"] == str(voices["en"]["sample_rate"]) and "X-Ignored" not in got

    # Its options: a speed within OpenAI's range and instructions are taken and not applied,
    # and the answer says so; the audio is the same phrase's (now from the cache).
    asked = {**default, "voice": "nova", "speed": 1.25, "instructions": "Speak calmly."}
    status, again, got = call(http_port, "POST", SPEECH, asked)
    assert status == 200 and got["X-Ignored"] == "speed, instructions"
    assert got["X-Source"] == "cache" and again[44:] == wav[44:]
    status, _, got = call(http_port, "POST", SPEECH, {**default, "speed": 1.0})
    assert status == 200 and "X-Ignored" not in got  # the default speed is what it does

    # An OpenAI voice is the voice that reads the input: Mandarin text, the Mandarin voice.
    status, _, got = call(http_port, "POST", SPEECH, {**default, "input": "一号泵停了。"})
    assert status == 200 and got["X-Sample-Rate"] == str(voices["zh"]["sample_rate"])

    for bad, field in (
        ({**default, "speed": 4.5}, "speed"),
        ({**default, "speed": "fast"}, "speed"),
        ({**default, "voice": "cosy"}, "voice"),
        ({**default, "voice": {"id": "voice_1234"}}, "voice"),
        ({**default, "stream_format": "sse"}, "stream_format"),
        ({**default, "response_format": "mp3"}, "response_format"),
    ):
        status, answer, _ = call(http_port, "POST", SPEECH, bad)
        assert (status, answer["field"]) == (400, field), answer


def test_every_answer_names_the_server_and_a_405_the_methods_allowed(
    broker, alsa_sink, make_daemon, tmp_path
):
    http_port = free_port()
    make_daemon(http_config(broker.port, tmp_path, http_port))
    answer = raw_request(http_port, b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
    head = answer.partition(b"\r\n\r\n")[0].split(b"\r\n")
    assert b"Server: cosyedge" in head, head  # the whole line: no trailing space
    for method, path, allowed in (("GET", "/v1/say", "POST"), ("POST", "/metrics", "GET")):
        status, _, got = call(http_port, method, path, b"{}" if method == "POST" else None)
        assert (status, got["Allow"]) == (405, allowed)
