"""Alarm management end to end: real Mosquitto, the daemon as a subprocess, captured audio."""

from __future__ import annotations

import csv
import io
import json
import re
import time
from collections import Counter
from pathlib import Path

import numpy as np
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from support import Listener, cosyedge, publish, site_yaml, wait_until

from cosyedge.audio.sound import BEEP_S, CHIME_HZ

RATE = 22050
REPORT, EVENT, STATUS = "cosyedge/report", "cosyedge/event", "cosyedge/status"
LONG_TEXT = " ".join(
    f"Line {n}: the {part} has reported a fault and needs a check by the shift fitter."
    for n, part in enumerate(["filler", "capper", "labeller", "palletiser", "wrapper"], 1)
)


PIPER = "voices:\n  en:\n    engine: piper\n"


def config(port: int, tmp: Path, alarms: str = "", extra: str = "", voices: str = PIPER) -> str:
    """The site's config. By default the Piper voice, for the tests that count on its RATE
    and its timings (a TTL running out while an alert is spoken, a queue still full at a
    kill); `voices=""` leaves the default voices, whose files and phrases made ahead every
    daemon starts with, for the tests whose claim no engine's pace is part of: a Piper start
    takes about 1.6 s of CPU more than hibari's (most of it speaking the reference text that
    measures its longest step), and each alert several times more to synthesize."""
    return f"""
{voices}{site_yaml(port, tmp)}alarms:
  dedup_window_s: 60
{alarms}
templates:
  - topic: "plant/{{line}}/alarm"
    text: "{{text}}"
    payload: json
  - topic: "plant/{{line}}/level"
    text: "Tank level on line {{line}} is {{level}} percent."
    payload: json
    priority: low
{extra}
"""


def alert(port: int, ident: str, text: str, priority: str = "medium", line: int = 1, **more):
    payload = {"id": ident, "text": text, "priority": priority, **more}
    return publish(port, f"plant/{line}/alarm", json.dumps(payload))


def burst(port: int, messages: list[tuple[str, str]]) -> None:
    """Publish many messages over one connection, so they arrive within milliseconds."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="burst")
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        infos = [client.publish(topic, payload, qos=1) for topic, payload in messages]
        for info in infos:
            info.wait_for_publish(timeout=10)
    finally:
        client.disconnect()
        client.loop_stop()


def outcomes(listener: Listener) -> dict[str, list[dict]]:
    """Reports by alert id; a report sent again after a crash (same seq) counts once."""
    by_seq: dict[int, dict] = {}
    for report in listener.on(REPORT):
        assert by_seq.setdefault(report["seq"], report) == report, "same seq, other content"
    by_id: dict[str, list[dict]] = {}
    for report in by_seq.values():
        by_id.setdefault(report.get("id"), []).append(report)
    return by_id


def wait_outcomes(listener: Listener, count: int, timeout: float = 60) -> list[dict]:
    return listener.wait_for(REPORT, lambda r: len(r) >= count, timeout, f"{count} reports")


def chime_of(pcm: np.ndarray) -> str:
    """Which priority's chime a stream starts with, by the pitch of its first beep."""
    beep = pcm[: int(BEEP_S * RATE)].astype(np.float32)
    spectrum = np.abs(np.fft.rfft(beep * np.hanning(len(beep))))
    peak = np.fft.rfftfreq(len(beep), 1 / RATE)[int(np.argmax(spectrum))]
    priority, hz = min(CHIME_HZ.items(), key=lambda kv: abs(kv[1] - peak))
    assert abs(hz - peak) < 40, f"no chime at the start (peak {peak:.0f} Hz)"
    return priority


@pytest.fixture
def listener(broker):
    topics = (REPORT, EVENT, STATUS, "cosyedge/error", "hermes/tts/#", "hermes/error/#")
    listen = Listener(broker.port, *topics)
    yield listen
    listen.close()


def test_critical_cuts_into_a_low_alert_which_is_then_replayed_from_its_start(
    broker, alsa_sink, make_daemon, listener, tmp_path
):
    daemon = make_daemon(config(broker.port, tmp_path))
    alert(broker.port, "low-1", LONG_TEXT, "low")
    # The low alert is playing once its stream holds the chime and some speech.
    wait_until(
        lambda: alsa_sink.files() and alsa_sink.files()[0].stat().st_size > 2 * RATE,
        30,
        "the low alert to start playing",
    )
    sent = alert(broker.port, "crit-1", "Gas alarm in hall two.", "critical")
    sent_wall = time.time() - (time.monotonic() - sent)
    reports = wait_outcomes(listener, 2)
    assert [(r["id"], r["outcome"]) for r in reports] == [
        ("crit-1", "spoken"),
        ("low-1", "spoken"),
    ]
    daemon.wait_for_log(r"cut alert low-1 short")
    streams = alsa_sink.streams()
    assert [chime_of(s) for s in streams] == ["low", "critical", "low"]
    cut, critical, replay = streams
    assert len(cut) < len(replay) / 2  # the replay is the whole phrase, from its start
    assert RATE < len(critical) < len(cut)
    assert len(replay) > 8 * RATE
    crit, low = reports
    assert crit["start"] < low["start"]
    delay_ms = (crit["start"] - sent_wall) * 1000
    print(f"critical published to its chime: {delay_ms:.0f} ms (unpaced ALSA file sink)")


def test_same_id_is_spoken_once_and_every_alert_of_a_mixed_batch_has_one_outcome(
    broker, alsa_sink, make_daemon, listener, tmp_path
):
    # The level template takes state=normal as its return to normal.
    make_daemon(config(broker.port, tmp_path, extra='    clear_if: "state=normal"\n', voices=""))
    port = broker.port
    sent = [
        alert(port, "a-1", "Compressor one is hot.", "high"),
        alert(port, "a-1", "Compressor one is hot.", "high"),  # redelivered: same id
        publish(port, "plant/2/level", json.dumps({"level": 91})),
        publish(port, "plant/2/level", json.dumps({"level": 91})),  # same hash, no id
        publish(port, "plant/3/alarm", '{"text": "broken'),  # rejected
        publish(port, "plant/3/level", json.dumps({"percent": 5})),  # rejected: no level
        alert(port, "a-2", "This one is stale.", "low", ttl=0.01),  # expired
        publish(port, "plant/4/level", json.dumps({"state": "normal"})),  # return to normal
        publish(port, "nowhere/else", "no template"),  # not subscribed: never arrives
    ]
    expected = Counter(
        {"spoken": 2, "deduplicated": 2, "rejected": 2, "expired": 1, "return_to_normal": 1}
    )
    reports = wait_outcomes(listener, 8)
    time.sleep(0.5)  # nothing more arrives
    reports = listener.on(REPORT)
    assert len(reports) == len(sent) - 1
    assert len({r["seq"] for r in reports}) == len(reports)
    assert Counter(r["outcome"] for r in reports) == expected
    assert sorted(r["outcome"] for r in outcomes(listener)["a-1"]) == ["deduplicated", "spoken"]
    spoken = [r for r in reports if r["outcome"] == "spoken"]
    for r in spoken:
        assert r["source"] in ("cache", "synth") and r["end"] > r["start"] >= r["received"]
        assert 0 <= r["latency_ms"] < 30000
    rejected = sorted(r["reason"] for r in reports if r["outcome"] == "rejected")
    assert rejected[0].startswith("invalid JSON")
    assert rejected[1] == "missing field 'level' for template 'plant/{line}/level'"
    assert len(alsa_sink.streams()) == 2
    status = listener.wait_for(STATUS, lambda s: s and s[-1]["queue"] == 0)[-1]
    assert status["state"] == "online"


def test_flood_is_summarized_criticals_still_spoken_and_its_end_announced(
    broker, alsa_sink, make_daemon, listener, tmp_path
):
    flood = "  flood: {threshold: 3, window_s: 3, end_at: 1, summary_interval_s: 1}\n"
    daemon = make_daemon(config(broker.port, tmp_path, alarms=flood, voices=""))
    ids = [f"f-{i}" for i in range(8)]
    burst(
        broker.port,
        [
            (
                f"plant/{i}/alarm",
                json.dumps(
                    {
                        "id": ident,
                        "text": f"Pump {i} has stopped.",
                        "priority": "critical" if i in (4, 6) else "medium",
                    }
                ),
            )
            for i, ident in enumerate(ids)
        ],
    )
    reports = wait_outcomes(listener, 8)
    by_id = outcomes(listener)
    assert sorted(by_id) == sorted(ids)
    assert all(len(r) == 1 for r in by_id.values())
    assert by_id["f-4"][0]["outcome"] == by_id["f-6"][0]["outcome"] == "spoken"
    kinds = Counter(r["outcome"] for r in reports)
    assert kinds["summarized"] >= 4 and kinds["spoken"] + kinds["summarized"] == 8
    summary = next(r for r in reports if r["outcome"] == "summarized")["summary"]
    assert summary.startswith("Alarm flood: ") and "critical" in summary
    events = listener.wait_for(
        EVENT, lambda e: any(x["event"] == "summary" and x["final"] for x in e), 30
    )
    kinds_of_events = [e["event"] for e in events]
    assert kinds_of_events.index("flood_started") < kinds_of_events.index("flood_ended")
    final = next(e for e in events if e["event"] == "summary" and e["final"])
    assert final["text"].endswith("The alarm flood is over.")
    # Audio: each spoken alert, each summary with the end of the flood, and anything cut short
    # by a more urgent alert (said again, from its start, afterwards).
    summaries = sum(e["event"] == "summary" for e in events)
    cut = len(re.findall(r"cut \w+ \S+ short", daemon.log()))
    wait_until(lambda: len(alsa_sink.files()) == kinds["spoken"] + summaries + cut, 10, "streams")


def test_ack_stops_reannouncement(broker, alsa_sink, make_daemon, listener, tmp_path):
    alarms = "  priorities: {critical: {reannounce_s: 0.5}}\n"
    make_daemon(config(broker.port, tmp_path, alarms=alarms, voices=""))
    alert(broker.port, "gas-1", "Gas alarm.", "critical")
    listener.wait_for(EVENT, lambda e: sum(x["event"] == "reannounced" for x in e) >= 2)
    publish(broker.port, "cosyedge/command", json.dumps({"cmd": "ack", "id": "gas-1"}))
    events = listener.wait_for(EVENT, lambda e: any(x["event"] == "command" for x in e))
    acked_at = next(i for i, e in enumerate(events) if e["event"] == "command")
    command = {"event": "command", "cmd": "ack", "id": "gas-1", "ids": ["gas-1"]}
    assert events[acked_at] == {**command, "run": events[acked_at]["run"]}  # each event its run
    time.sleep(1.5)  # three re-announcement periods
    after = [e["event"] for e in listener.on(EVENT)[acked_at + 1 :]]
    assert "reannounced" not in after
    assert [r["outcome"] for r in listener.on(REPORT)] == ["spoken"]
    # The first announcement, each re-announcement, and one the ack may have cut short.
    streams = len(alsa_sink.files())
    said = 1 + sum(e["event"] == "reannounced" for e in listener.on(EVENT))
    assert streams - said in (0, 1)
    status = listener.wait_for(STATUS, lambda s: s and s[-1]["unacknowledged"] == 0)
    assert status[-1]["state"] == "online"


def test_shelve_is_capped_and_expires(broker, alsa_sink, make_daemon, listener, tmp_path):
    make_daemon(config(broker.port, tmp_path, alarms="  max_shelve_s: 1.5\n", voices=""))
    port = broker.port
    shelve = {"cmd": "shelve", "topic": "plant/9/#", "duration_s": 3600}
    publish(port, "cosyedge/command", json.dumps(shelve))
    command = listener.wait_for(EVENT, lambda e: e)[0]
    assert command["cmd"] == "shelve" and command["duration_s"] == 1.5
    alert(port, "s-1", "Valve nine is open.", line=9)
    alert(port, "s-2", "Valve eight is open.", line=8)
    reports = wait_outcomes(listener, 2)
    assert {(r["id"], r["outcome"]) for r in reports} == {("s-1", "shelved"), ("s-2", "spoken")}
    listener.wait_for(EVENT, lambda e: any(x["event"] == "unshelved" for x in e), 5)
    alert(port, "s-3", "Valve nine is open again.", line=9)
    reports = wait_outcomes(listener, 3)
    assert (reports[-1]["id"], reports[-1]["outcome"]) == ("s-3", "spoken")
    publish(port, "cosyedge/command", json.dumps({"cmd": "shelve", "id": "unknown"}))
    error = listener.wait_for("cosyedge/error", lambda e: e)[0]
    assert error["error"] == "command: id: no recent alert with id 'unknown'"


def test_a_restart_keeps_shelves_and_goes_on_reannouncing_unacknowledged_alarms(
    broker, alsa_sink, make_daemon, listener, tmp_path
):
    alarms = "  priorities: {critical: {reannounce_s: 3}}\n"
    daemon = make_daemon(config(broker.port, tmp_path, alarms=alarms, voices=""))
    port = broker.port
    shelve = {"cmd": "shelve", "topic": "plant/9/#", "duration_s": 600}
    publish(port, "cosyedge/command", json.dumps(shelve))
    alert(port, "gas-1", "Gas alarm in hall one.", "critical")
    alert(port, "gas-2", "Smoke in hall two.", "critical", line=2)
    wait_outcomes(listener, 2)
    publish(port, "cosyedge/command", json.dumps({"cmd": "ack", "id": "gas-2"}))
    listener.wait_for(EVENT, lambda e: any(x.get("cmd") == "ack" for x in e))
    journal = tmp_path / "state" / "journal.jsonl"
    wait_until(lambda: b'"alarm":"gas-2","end":true' in journal.read_bytes(), 5, "the ack on disk")
    daemon.process.kill()  # only what is on disk survives
    daemon.process.wait()
    killed = len(listener.on(EVENT))

    daemon.start()
    daemon.wait_for_log(r"taken up from the last run: 1 unacknowledged alarms, 1 shelved")
    # gas-1 was due while the daemon was down: it is said again at once; gas-2 never again.
    events = listener.wait_for(
        EVENT, lambda e: any(x["event"] == "reannounced" for x in e[killed:]), 15
    )
    assert {x["id"] for x in events[killed:] if x["event"] == "reannounced"} == {"gas-1"}
    alert(port, "valve-9", "Valve nine is open.", line=9)
    wait_until(lambda: "valve-9" in outcomes(listener), 10, "the shelved alert's report")
    assert [r["outcome"] for r in outcomes(listener)["valve-9"]] == ["shelved"]
    status = listener.wait_for(STATUS, lambda s: s and s[-1]["state"] == "online")[-1]
    assert (status["unacknowledged"], status["shelved"]) == (1, ["plant/9/#"])

    # Acknowledged and unshelved before a clean stop: nothing is taken up the next time.
    publish(port, "cosyedge/command", json.dumps({"cmd": "ack", "id": "gas-1"}))
    publish(port, "cosyedge/command", json.dumps({"cmd": "unshelve", "topic": "plant/9/#"}))
    listener.wait_for(EVENT, lambda e: any(x.get("cmd") == "unshelve" for x in e))
    assert daemon.stop() == 0
    daemon.start()
    time.sleep(4)  # longer than a re-announcement period
    assert "taken up from the last run: 1" not in daemon.log().split("subscribed to")[-1]
    restarted = [x for x in listener.on(EVENT) if x["event"] == "reannounced"]
    assert [x["id"] for x in restarted] == ["gas-1"]  # only the one after the kill


def test_alert_past_its_time_to_live_is_never_spoken(
    broker, alsa_sink, make_daemon, listener, tmp_path
):
    make_daemon(config(broker.port, tmp_path, alarms="  ttl_s: 600\n"))
    alert(broker.port, "long-1", LONG_TEXT[:300], "high")
    alert(broker.port, "ttl-1", "Stale by the time it is due.", "low", ttl=0.5)
    alert(broker.port, "ttl-2", "Still fresh.", "low")
    reports = wait_outcomes(listener, 3)
    assert [(r["id"], r["outcome"]) for r in reports] == [
        ("ttl-1", "expired"),
        ("long-1", "spoken"),
        ("ttl-2", "spoken"),
    ]
    assert reports[0]["reason"] == "its time to live passed in the queue"
    assert len(alsa_sink.files()) == 2


def test_hermes_say_round_trip(broker, alsa_sink, make_daemon, listener, tmp_path):
    hermes = "hermes:\n  enabled: true\n  site_id: kitchen\n"
    daemon = make_daemon(config(broker.port, tmp_path, voices="") + hermes)
    port = broker.port
    say = {"text": "Dinner is ready.", "siteId": "kitchen", "id": "h-1", "sessionId": "s-9"}
    publish(port, "hermes/tts/say", json.dumps({**say, "siteId": "garage", "id": "other"}))
    publish(port, "hermes/tts/say", json.dumps(say))
    publish(port, "hermes/tts/say", json.dumps({**say, "text": "", "id": "h-2"}))
    finished = listener.wait_for("hermes/tts/sayFinished", lambda f: len(f) >= 2)
    assert sorted(finished, key=lambda f: f["id"]) == [
        {"siteId": "kitchen", "sessionId": "s-9", "id": "h-1"},
        {"siteId": "kitchen", "sessionId": "s-9", "id": "h-2"},
    ]
    (error,) = listener.on("hermes/error/tts")
    assert error["siteId"] == "kitchen" and error["sessionId"] == "s-9"
    assert error["error"] == "rejected: hermes/tts/say: text is missing or empty"
    time.sleep(0.5)  # the other site's request gets no answer from us
    assert len(listener.on("hermes/tts/sayFinished")) == 2
    assert len(alsa_sink.files()) == 1
    spoken = [r for r in listener.on(REPORT) if r["outcome"] == "spoken"]
    assert [r["text"] for r in spoken] == ["Dinner is ready."]
    assert daemon.stop() == 0  # a clean stop says so on the status topic
    assert listener.wait_for(STATUS, lambda s: s and s[-1]["state"] == "offline", 10)


SAY, FINISHED, ERROR = "hermes/tts/say", "hermes/tts/sayFinished", "hermes/error/tts"
RUSSIAN = "Насос остановлен"  # noqa: RUF001 (Cyrillic on purpose)


def hermes_answers(listener: Listener) -> list[tuple[dict | None, dict]]:
    """(error or None, sayFinished) per closed request, in order: the messages closing one
    request are published together, an error right before its sayFinished."""
    closed, error = [], None
    for topic, payload in list(listener.messages):
        if topic == ERROR:
            assert error is None, "two errors in a row"
            error = payload
        elif topic == FINISHED:
            closed.append((error, payload))
            error = None
    return closed


def say(port: int, **request) -> None:
    publish(port, SAY, json.dumps({"siteId": "default", **request}, ensure_ascii=False))


def test_hermes_lang_in_the_forms_clients_send_picks_the_voice_and_another_voice_is_told(
    broker, alsa_sink, make_daemon, listener, tmp_path
):
    # The default voices, English and Mandarin, whose phrases made ahead every daemon starts
    # with (with Piper and a Mandarin voice, each start rendered its fault phrases again: 10 s
    # of CPU). Which engine speaks English is no part of the claim.
    make_daemon(config(broker.port, tmp_path, voices="") + "hermes:\n  enabled: true\n")
    requests = [
        ("l-1", "en_US", "Pump two stopped."),
        ("l-2", "EN-gb", "Conveyor four is running."),
        ("l-3", "zh-CN", "三号泵停止。"),
        ("l-4", "de_DE.UTF-8", "Pumpe zwei steht."),
        ("l-5", "ru", RUSSIAN),
    ]
    for request_id, lang, words in requests:
        say(broker.port, text=words, lang=lang, id=request_id)
    wait_until(lambda: len(hermes_answers(listener)) == 5, 90, "five requests answered")
    answers = {finished["id"]: error for error, finished in hermes_answers(listener)}
    assert answers["l-1"] is answers["l-2"] is answers["l-3"] is None
    assert answers["l-4"]["error"] == (
        "spoken: no voice for language 'de_DE.UTF-8': said with the 'en' voice"
    )
    assert answers["l-5"]["error"] == (
        "rejected: hermes/tts/say: no voice for language 'ru', and no voice reads Cyrillic script"
    )
    spoken = [r for r in listener.on(REPORT) if r["outcome"] != "rejected"]
    by_request = {r["id"].partition("#")[0]: r for r in spoken}
    for request_id in ("l-1", "l-2", "l-3", "l-4"):
        report = by_request[request_id]
        # Said by a voice, not the generic phrase kept for a language without one.
        assert (report["outcome"], report["source"]) == ("spoken", "synth"), report
    assert by_request["l-4"]["note"] == answers["l-4"]["error"].removeprefix("spoken: ")
    assert "note" not in by_request["l-1"]
    assert len(alsa_sink.streams()) == 4


def test_hermes_requests_reusing_an_id_are_each_spoken_and_only_a_redelivery_is_a_duplicate(
    broker, alsa_sink, make_daemon, listener, tmp_path
):
    daemon = make_daemon(config(broker.port, tmp_path, voices="") + "hermes:\n  enabled: true\n")
    first = {"text": "Forklift in aisle three.", "id": "same", "sessionId": "s-1"}
    say(broker.port, **first)
    say(broker.port, **{**first, "text": "Forklift has left aisle three."})
    wait_until(lambda: len(hermes_answers(listener)) == 2, 60, "both requests answered")
    say(broker.port, **first)  # the very same bytes again: what an MQTT redelivery is
    wait_until(lambda: len(hermes_answers(listener)) == 3, 30, "the copy answered")
    (e1, f1), (e2, f2), (e3, f3) = hermes_answers(listener)
    assert e1 is None and e2 is None
    assert f1 == f2 == f3 == {"siteId": "default", "sessionId": "s-1", "id": "same"}
    assert e3["error"] == (
        "deduplicated: the very same message came again (an MQTT redelivery) and was answered "
        "before"
    )
    assert e3["sessionId"] == "s-1"
    reports = listener.on(REPORT)
    assert [(r["outcome"], r.get("text")) for r in reports] == [
        ("spoken", "Forklift in aisle three."),
        ("spoken", "Forklift has left aisle three."),
        ("deduplicated", None),
    ]
    assert reports[2]["id"] == reports[0]["id"] != reports[1]["id"]
    assert reports[0]["id"].startswith("same#")
    assert len(alsa_sink.streams()) == 2
    assert daemon.alive()


def test_kill_9_mid_queue_then_restart_accounts_for_every_alert(
    broker, alsa_sink, make_daemon, listener, tmp_path
):
    # The last copy must come within the window of its original to be a duplicate: under load
    # the restart and the queue said after it took over a minute (60 s: the copy was spoken).
    text = config(broker.port, tmp_path).replace("dedup_window_s: 60", "dedup_window_s: 600")
    daemon = make_daemon(text)
    port = broker.port
    alert(port, "k-first", "Spoken before the crash.", "medium")
    wait_outcomes(listener, 1)
    alert(port, "k-0", LONG_TEXT, "high")
    for i in range(1, 5):
        alert(port, f"k-{i}", f"Queued alarm number {i}.", "medium")
    wait_until(
        lambda: len(alsa_sink.files()) == 2 and alsa_sink.files()[1].stat().st_size > RATE,
        30,
        "the long alert to start playing",
    )
    daemon.process.kill()
    daemon.process.wait()
    statuses = listener.wait_for(STATUS, lambda s: s and s[-1]["state"] == "offline", 10)
    assert statuses[-1] == {"state": "offline", "run": statuses[-2]["run"]}  # the Last Will
    before = {r["id"] for r in listener.on(REPORT)}
    assert before == {"k-first"}  # k-0 was cut off by the kill: not reported as spoken
    for i in range(5, 7):  # while the daemon is down the broker keeps these for it
        alert(port, f"k-{i}", f"Alarm number {i} while down.", "low")

    daemon.start()
    ids = {f"k-{i}" for i in range(7)}
    wait_until(lambda: ids <= set(outcomes(listener)), 90, "an outcome for every alert")
    # Exactly one outcome each, except that an alert on disk whose broker ack the kill beat is
    # delivered again and that copy is reported as a duplicate (at-least-once, deduplicated).
    by_id = outcomes(listener)
    final = {i: [r["outcome"] for r in by_id[i] if r["outcome"] != "deduplicated"] for i in ids}
    assert final == {i: ["spoken"] for i in ids}
    for i in ("k-5", "k-6"):
        assert len(by_id[i]) == 1
    daemon.wait_for_log(r"\d+ alerts left unsaid by the last run are queued")
    # An id spoken before the crash is still known: a redelivery is a duplicate.
    alert(port, "k-first", "Spoken before the crash.", "medium")
    wait_until(lambda: len(outcomes(listener)["k-first"]) == 2, 10, "the duplicate's report")
    assert outcomes(listener)["k-first"][1]["outcome"] == "deduplicated"
    assert listener.wait_for(STATUS, lambda s: s and s[-1]["state"] == "online")


def test_an_alarm_cleared_unacknowledged_waits_for_confirm_across_a_kill_and_is_audited(
    broker, alsa_sink, make_daemon, listener, tmp_path
):
    alarms = "  priorities: {critical: {reannounce_s: 2}}\n"
    daemon = make_daemon(config(broker.port, tmp_path, alarms=alarms, voices=""))
    port = broker.port
    alert(port, "gas-1", "Gas alarm in hall one.", "critical")
    wait_outcomes(listener, 1)
    publish(port, "plant/1/alarm", json.dumps({"clear": True}))
    listener.wait_for(EVENT, lambda e: any(x["event"] == "cleared" for x in e))
    said = sum(x["event"] == "reannounced" for x in listener.on(EVENT))
    journal = tmp_path / "state" / "journal.jsonl"
    wait_until(lambda: b'"cleared":true' in journal.read_bytes(), 5, "the clear on disk")
    daemon.process.kill()
    daemon.process.wait()
    daemon.start()
    daemon.wait_for_log(r"taken up from the last run: 1 unacknowledged alarms")
    status = listener.wait_for(STATUS, lambda s: s and s[-1]["state"] == "online")[-1]
    assert (status["unacknowledged"], status["cleared_unacknowledged"]) == (1, 1)
    time.sleep(3)  # past its re-announcement period: over, it is not said again

    bad = {"cmd": "confirm", "id": "gas-1", "user": "ana\nroot"}
    publish(port, "cosyedge/command", json.dumps(bad))
    (error,) = listener.wait_for("cosyedge/error", lambda e: len(e) >= 1)
    assert error["error"] == "command: user: control character U+000A at 3"
    confirm = {"cmd": "confirm", "id": "gas-1", "user": "ana", "comment": "gas detector reset"}
    publish(port, "cosyedge/command", json.dumps(confirm))
    events = listener.wait_for(EVENT, lambda e: any(x.get("cmd") == "confirm" for x in e))
    (done,) = [x for x in events if x.get("cmd") == "confirm"]
    assert (done["ids"], done["user"], done["comment"]) == (["gas-1"], "ana", "gas detector reset")
    listener.wait_for(STATUS, lambda s: s[-1]["unacknowledged"] == 0)
    # Never said again after its return to normal, before the kill or after it.
    assert sum(x["event"] == "reannounced" for x in listener.on(EVENT)) == said

    trail = cosyedge("report", "audit", "--config", str(daemon.config), "--format", "csv")
    assert trail.returncode == 0, trail.stderr
    rows = list(csv.DictReader(io.StringIO(trail.stdout)))
    acts = [(r["who"], r["what"], r["target"], r["alarms"], r["why"]) for r in rows]
    assert ("ana", "confirm", "id gas-1", "gas-1", "gas detector reset") in acts
    (refused,) = [r for r in rows if r["what"] == "refused"]
    assert refused["why"] == "command: user: control character U+000A at 3"
