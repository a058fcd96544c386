"""Every way text comes in to be spoken is held to one rule: the real daemon with its MQTT
intake, the HTTP API (say, synthesize, OpenAI's speech) and the Wyoming server, and a text
with no word or number the voices can say (emoji, symbols, punctuation) sent to each."""

from __future__ import annotations

import json

from support import Listener, free_port, publish, site_yaml
from test_http import call
from test_wyoming import exchange, run
from wyoming.error import Error
from wyoming.tts import Synthesize

from cosyedge.service.canary import Signer

REPORT = "cosyedge/report"
EMPTY_OF_WORDS = ["🔥", "🔥🚨 ✅", "...!?", "— • —", "\u200b🔥\u200b"]


def doors_config(port: int, tmp, http_port: int, wyoming_port: int) -> str:
    return (
        f"{site_yaml(port, tmp)}"
        f"http:\n  enabled: true\n  listen: 127.0.0.1:{http_port}\n"
        f"wyoming:\n  enabled: true\n  listen: tcp://127.0.0.1:{wyoming_port}\n"
    )


def test_a_text_empty_of_words_is_refused_alike_at_every_door(
    broker, alsa_sink, make_daemon, tmp_path
):
    http_port, wyoming_port = free_port(), free_port()
    reports = Listener(broker.port, REPORT)
    daemon = make_daemon(doors_config(broker.port, tmp_path, http_port, wyoming_port))
    daemon.wait_for_log(r"Wyoming text-to-speech on")
    reason = "nothing to say in en"
    for n, text in enumerate(EMPTY_OF_WORDS):
        publish(broker.port, "cosyedge/say", json.dumps({"id": f"e{n}", "text": text}))
        for path, field in (("/v1/say", "text"), ("/v1/synthesize", "text")):
            status, answer, _ = call(http_port, "POST", path, {field: text})
            assert status == 400, (path, text, status)  # not a WAV of nothing
            assert answer["field"] == field and reason in answer["reason"], (path, answer)
        status, answer, _ = call(http_port, "POST", "/v1/audio/speech", {"input": text})
        assert status == 400, (text, status)
        assert answer["field"] == "input" and reason in answer["reason"], answer
        ((event, _),) = run(exchange(wyoming_port, Synthesize(text=text).event()))
        error = Error.from_event(event)
        assert (error.code, reason in error.text) == ("bad-request", True), (text, error)
    told = reports.wait_for(REPORT, lambda r: len(r) >= len(EMPTY_OF_WORDS))
    assert [r["outcome"] for r in told] == ["rejected"] * len(EMPTY_OF_WORDS), told
    assert all(reason in r["reason"] for r in told), told
    reports.close()
    assert "Traceback" not in daemon.log()


def test_what_only_looks_like_a_canary_is_answered_alike_at_every_door_and_a_clearing_not(
    broker, alsa_sink, make_daemon, tmp_path
):
    """A canary not signed by this daemon is rejected, saying why, whichever door it came in
    by; another gateway's (a standby's on the filters both share) is no alert either and
    gets no report, nor does the empty message that clears a retained alarm."""
    http_port = free_port()
    reports = Listener(broker.port, REPORT)
    daemon = make_daemon(
        f"{site_yaml(broker.port, tmp_path)}"
        f"http:\n  enabled: true\n  listen: 127.0.0.1:{http_port}\n"
        "templates:\n"
        '  - {topic: "plant/{line}/temperature", text: "Line {line}: {value} degrees.",'
        " payload: json}\n"
        '  - {topic: cosyedge/say, text: "{text}"}\n'
    )
    forged = {"cosyedge_canary": 1, "text": "Fire in hall two."}
    publish(broker.port, "cosyedge/say", json.dumps(forged))
    publish(broker.port, "plant/_cosyedge_canary/temperature", json.dumps({"value": 91}))
    theirs = Signer(b"o" * 32, gateway="gw-other")
    topic = "plant/_cosyedge_canary/temperature"
    publish(broker.port, topic, theirs.payload(1, "plant/+/temperature", topic))
    publish(broker.port, "plant/4/temperature", json.dumps({"value": 95, "id": "r1"}), retain=True)
    publish(broker.port, "plant/4/temperature", b"", retain=True)  # cleared, as docs/alarms.md
    publish(broker.port, "cosyedge/say", json.dumps({"id": "last", "text": "That is all."}))
    told = reports.wait_for(REPORT, lambda r: any(x["id"] == "last" for x in r), 60)
    outcomes = sorted((r["topic"], r["outcome"]) for r in told)
    assert outcomes == [
        ("cosyedge/say", "rejected"),
        ("cosyedge/say", "spoken"),
        ("plant/4/temperature", "spoken"),
        ("plant/_cosyedge_canary/temperature", "rejected"),
    ], told
    refused = [r["reason"] for r in told if r["outcome"] == "rejected"]
    assert all("not a canary of this daemon" in reason for reason in refused), refused
    request = {"template": "plant/{line}/temperature", "fields": {"line": "_cosyedge_canary"}}
    request["fields"]["value"] = 91
    status, answer, _ = call(http_port, "POST", "/v1/say", request)
    assert status == 400 and "not a canary of this daemon" in answer["reason"], answer
    assert "plant/4/temperature" not in "".join(
        line for line in daemon.log().splitlines() if "WARNING" in line
    )
    reports.close()
