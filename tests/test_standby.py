"""A standby gateway: two real daemons on one real Mosquitto, each playing on an ALSA file sink
of its own. With both running only the primary speaks; killed with kill -9, the standby says
what it left unsaid, once; restarted, the primary says nothing the standby said (its
journal's and its session's copies end `covered`), re-announces what the standby said and
still stands, and the standby holds."""

from __future__ import annotations

import json
import time
from pathlib import Path

from support import REPO, AlsaSink, Daemon, Listener, publish, site_yaml, wait_until

PRIMARY, STANDBY = "gw-primary", "gw-standby"
# Floods are a test of their own: here every alert is said on its own.
REANNOUNCE_S = 5.0  # plant/standing's alarms: re-announced until acknowledged
TEMPLATES = f"""alarms:
  flood: {{threshold: 100}}
templates:
  - topic: plant/alarm
    text: "{{text}}"
    payload: json
    priority: medium
  - topic: plant/standing
    text: "{{text}}"
    payload: json
    priority: medium
    reannounce_s: {REANNOUNCE_S}
"""
PRIMARY_SECTIONS = """standby:
  reports_of: standby/report
"""
STANDBY_SECTIONS = """reports:
  outcome_topic: standby/report
  event_topic: standby/event
  error_topic: standby/error
  status_topic: standby/status
standby:
  enabled: true
  client_id: gw-primary
  takeover_s: {takeover_s}
"""
REPORTS = ("cosyedge/report", "standby/report")
EVENTS = ("cosyedge/event", "standby/event")
ERRORS = ("cosyedge/error", "standby/error")
TEXT = "Pump tripped."
STANDING = ("s-open", "s-acked")  # one short phrase: rendered once, then from the cache


def gateway(port: int, directory: Path, client_id: str, takeover_s: float | None = None) -> str:
    """A gateway's configuration: the primary's, or with `takeover_s` the standby's."""
    own = f"  local_broker: false\n  client_id: {client_id}\n"
    text = site_yaml(port, directory).replace("  local_broker: false\n", own) + TEMPLATES
    if takeover_s is None:
        return text + PRIMARY_SECTIONS
    return text + STANDBY_SECTIONS.format(takeover_s=takeover_s)


def alert(port: int, ident: str) -> None:
    publish(port, "plant/alarm", json.dumps({"id": ident, "text": TEXT}))


def outcomes(listener: Listener, topic: str, kind: str) -> dict[str, dict]:
    return {r["id"]: r for r in listener.on(topic) if r["outcome"] == kind}


def test_with_both_running_the_primary_speaks_and_every_standby_copy_is_covered(
    broker, alsa_sink, make_daemon, tmp_path
):
    standby_sink = AlsaSink(tmp_path / "alsa-standby")
    watched = ("standby/status", "cosyedge/status", "cosyedge/event", "standby/event", *ERRORS)
    heard = Listener(broker.port, *REPORTS, *watched)
    make_daemon(gateway(broker.port, tmp_path / "p", PRIMARY))
    make_daemon(gateway(broker.port, tmp_path / "s", STANDBY, 2.0), env=standby_sink.env)
    ids = [f"a-{i}" for i in range(30)]
    for ident in ids:
        alert(broker.port, ident)
    heard.wait_for("standby/report", lambda r: len(r) >= len(ids), 90, "30 standby outcomes")
    spoken = heard.wait_for("cosyedge/report", lambda r: len(r) >= len(ids), 30)
    assert sorted(r["id"] for r in spoken if r["outcome"] == "spoken") == sorted(ids)
    covered = heard.on("standby/report")
    assert sorted(r["id"] for r in covered if r["outcome"] == "covered") == sorted(ids)
    assert all(r["by"] == "standby" and r["primary"]["outcome"] == "spoken" for r in covered)
    assert all("by" not in r for r in spoken)
    run = heard.on("cosyedge/status")[-1]["run"]  # what a standby takes its reports by
    assert {r["run"] for r in spoken} == {run}
    assert len(alsa_sink.files()) == len(ids)
    time.sleep(3)  # past takeover_s: still nothing said by the standby
    assert standby_sink.files() == []
    status = heard.on("standby/status")[-1]
    assert (status["state"], status["standby"]) == (
        "online",
        {"role": "standby", "primary": "online", "held": 0},  # every copy covered
    )
    # The primary heard the standby's canaries (sent as it started) on the command topic they
    # share: counted, not refused as a command on the error topic.
    rejected = heard.on("cosyedge/status")[-1]["intake"]["canaries_rejected"]
    assert rejected.get("another-gateway", 0) >= 1, rejected
    assert [e for topic in ERRORS for e in heard.on(topic)] == []
    # An operator's command on the one command topic is carried out by both.
    shelve = {"cmd": "shelve", "topic": "plant/alarm", "duration_s": 60, "user": "ana"}
    publish(broker.port, "cosyedge/command", json.dumps(shelve))
    for events in ("cosyedge/event", "standby/event"):
        heard.wait_for(events, lambda e: any(x.get("cmd") == "shelve" for x in e), 20)
    alert(broker.port, "a-shelved")
    for topic in REPORTS:
        wait_until(lambda t=topic: "a-shelved" in outcomes(heard, t, "shelved"), 20, topic)
    heard.close()


def test_kill_9_of_the_primary_the_standby_says_the_rest_once_then_the_primary_takes_it_back(
    broker, alsa_sink, make_daemon, saved_models, tmp_path
):
    """The broker is restarted too while the primary is dead: what it kept for the primary's
    session (the standby's reports, alerts, an ack) comes back from its persistence file."""
    standby_sink = AlsaSink(tmp_path / "alsa-standby")
    watched = ("standby/status", "cosyedge/status", *EVENTS)
    heard = Listener(broker.port, *REPORTS, *watched, persistent=True)
    # Paced as a card takes audio, so that alerts wait in the primary's queue when it dies.
    env = {**alsa_sink.env, "PYTHONPATH": str(REPO)}
    config = gateway(broker.port, tmp_path / "p", PRIMARY)
    primary = Daemon(
        tmp_path / "primary", config, env, models=saved_models, module="bench.paced_daemon"
    )
    try:
        primary.start()
        make_daemon(gateway(broker.port, tmp_path / "s", STANDBY, 1.5), env=standby_sink.env)
        _kill_while_alerts_flow(broker.port, primary, heard)
        _standing_while_it_is_dead(broker.port, heard)
        broker.stop()  # Mosquitto saves its sessions as it stops
        broker.start()
        files, back = len(alsa_sink.files()), time.time()
        primary.start()
        _holds_again(broker.port, heard, standby_sink)
        _handed_back(heard, alsa_sink, files, back)
        held = primary.wait_for_log(r"handback: what the broker kept is in after ([\d.]+) s")
        print(f"the restarted primary held what it would say for {held[-1][1]} s")
    finally:
        primary.stop()
        heard.close()


def _kill_while_alerts_flow(port: int, primary: Daemon, heard: Listener) -> None:
    ids = [f"k-{i}" for i in range(10)]
    for ident in ids[:6]:
        alert(port, ident)
    heard.wait_for("cosyedge/report", lambda r: len(r) >= 2, 60, "the primary's first two")
    assert primary.process is not None
    primary.process.kill()
    killed = time.time()
    primary.process.wait()
    for ident in ids[6:]:  # while the primary is dead
        alert(port, ident)
    heard.wait_for("standby/status", lambda s: s[-1]["standby"]["primary"] == "offline", 20)
    statuses = heard.wait_for("cosyedge/status", lambda s: s[-1]["state"] == "offline", 5)
    assert statuses[-1]["run"] == statuses[-2]["run"]  # the Last Will names its run
    wait_until(lambda: _said_by_anyone(heard) >= set(ids), 60, "every alert said by someone")
    by_primary = outcomes(heard, "cosyedge/report", "spoken")
    by_standby = outcomes(heard, "standby/report", "spoken")
    assert by_primary.keys() & by_standby.keys() == set()  # nothing said twice
    assert by_primary.keys() | by_standby.keys() == set(ids)
    assert all(r["by"] == "standby" for r in by_standby.values())
    covered = outcomes(heard, "standby/report", "covered")
    assert covered.keys() == by_primary.keys()
    first_alert = min(r["start"] for r in by_standby.values())
    # The takeover is a fault: in the status from the monitor's next tick, and said aloud
    # first, before every alert taken over.
    status = heard.wait_for("standby/status", lambda s: s[-1]["state"] == "degraded", 10)[-1]
    assert status["faults"]["standby"].startswith("primary offline since ")
    events = heard.wait_for("standby/event", lambda e: any(_takeover_said(x) for x in e), 20)
    (phrase,) = [e for e in events if _takeover_said(e)]
    assert phrase["result"] == "spoken" and phrase["end"] <= first_alert, (phrase, first_alert)
    print(
        f"kill -9 to the standby's first audio (its phrase): "
        f"{(phrase['start'] - killed) * 1000:.0f} ms, to its first alert "
        f"{(first_alert - killed) * 1000:.0f} ms (takeover_s 1.5); the primary said "
        f"{len(by_primary)}, the standby {len(by_standby)}"
    )


def _holds_again(port: int, heard: Listener, standby_sink: AlsaSink) -> None:
    heard.wait_for(
        "standby/status", lambda s: s[-1].get("standby", {}).get("primary") == "online", 90
    )
    said = len(standby_sink.files())
    for ident in ("back-1", "back-2"):
        alert(port, ident)
    wait_until(
        lambda: {"back-1", "back-2"} <= outcomes(heard, "standby/report", "covered").keys(),
        60,
        "the standby's copies covered by the primary back",
    )
    assert {"back-1", "back-2"} <= outcomes(heard, "cosyedge/report", "spoken").keys()
    assert "back-1" not in outcomes(heard, "standby/report", "spoken")
    status = heard.wait_for("standby/status", lambda s: "standby" not in s[-1]["faults"], 20)[-1]
    shown = status["standby"]
    assert (shown["role"], shown["primary"]) == ("standby", "online"), shown
    assert "ignored" not in shown, shown  # the primary's every status and report its own
    # What it said after the primary came back: the fault's end only, no alert.
    assert len(standby_sink.files()) <= said + 1


def _standing_while_it_is_dead(port: int, heard: Listener) -> None:
    """Two alarms re-announced until acknowledged, said by the standby; one acknowledged."""
    for ident in STANDING:
        publish(port, "plant/standing", json.dumps({"id": ident, "text": TEXT}))
    said = lambda: outcomes(heard, "standby/report", "spoken").keys()  # noqa: E731
    wait_until(lambda: set(STANDING) <= said(), 60, "the standby saying the standing alarms")
    ack = {"cmd": "ack", "id": "s-acked", "user": "ana"}
    publish(port, "cosyedge/command", json.dumps(ack))
    heard.wait_for("standby/event", lambda e: any(x.get("ids") == ["s-acked"] for x in e), 20)


def _handed_back(heard: Listener, sink: AlsaSink, files: int, back: float) -> None:
    """The restarted primary: one outcome of every alert, none said by both gateways; what
    the standby said and stands is re-announced by the primary alone, a period on."""
    everything = {f"k-{i}" for i in range(10)} | set(STANDING)
    told = lambda: {r["id"] for r in heard.on("cosyedge/report")}  # noqa: E731
    wait_until(lambda: everything <= told(), 60, "the restarted primary's outcomes")
    for topic in REPORTS:  # one outcome each, on each gateway (a report sent again after
        # the kill, unconfirmed, is the same outcome: at least once, with its seq)
        told_once = {(r["id"], r["seq"], r["outcome"]) for r in heard.on(topic)}
        each = sorted(ident for ident, _, _ in told_once if ident in everything)
        assert each == sorted(everything), (topic, sorted(told_once))
    by_primary = outcomes(heard, "cosyedge/report", "spoken")
    by_standby = outcomes(heard, "standby/report", "spoken")
    assert by_primary.keys() & by_standby.keys() == set()  # nothing said twice
    covered = outcomes(heard, "cosyedge/report", "covered")
    assert covered.keys() == everything - by_primary.keys()
    assert all(r["standby"]["outcome"] == "spoken" for r in covered.values())
    first = _reannounced(heard, "cosyedge/event", 3 * REANNOUNCE_S)
    # Not doubled: a period after the standby's last saying of it, and none by it since.
    lasts = [r["end"] for r in (by_standby["s-open"], *_said_again(heard, "standby/event"))]
    assert first["start"] - max(lasts) >= REANNOUNCE_S - 0.5, (first, lasts)
    assert all(e["start"] < first["start"] for e in _said_again(heard, "standby/event"))
    # The ack given to the standby holds here: s-acked stands nowhere.
    again = [e["id"] for topic in EVENTS for e in heard.on(topic) if e["event"] == "reannounced"]
    assert "s-acked" not in again
    assert heard.on("cosyedge/status")[-1]["unacknowledged"] == 1
    # Heard from the primary since its restart: the re-announcements and the alerts sent
    # since (back-1, back-2), nothing else.
    since = [*heard.on("cosyedge/event"), *heard.on("cosyedge/report")]
    told_aloud = [e for e in since if e.get("start", 0) >= back]
    heard_since = [samples for samples in sink.streams()[files:] if samples.any()]
    assert len(heard_since) == len(told_aloud), told_aloud


def _reannounced(heard: Listener, topic: str, within: float) -> dict:
    """The first re-announcement of s-open on `topic`, within `within` seconds."""
    found = lambda: _said_again(heard, topic)  # noqa: E731
    return wait_until(found, within, f"s-open re-announced on {topic}")[0]


def _said_again(heard: Listener, topic: str) -> list[dict]:
    events = heard.on(topic)
    return [e for e in events if e["event"] == "reannounced" and e["id"] == "s-open"]


def _said_by_anyone(heard: Listener) -> set[str]:
    said = outcomes(heard, "cosyedge/report", "spoken").keys()
    return set(said) | set(outcomes(heard, "standby/report", "spoken"))


def _takeover_said(event: dict) -> bool:
    return event["event"] == "fault_announcement" and event["fault"] == "standby"


def test_a_primary_whose_card_is_gone_is_spoken_for_once_its_fault_lasts_takeover_s(
    broker, make_daemon, tmp_path
):
    """Connected, queueing, but its sound device cannot be opened: its status's `audio`
    fault, lasting `takeover_s`, has the standby say the alert it cannot."""
    standby_sink = AlsaSink(tmp_path / "alsa-standby")
    dead = tmp_path / "dead-card.asoundrc"  # a card whose file cannot be made
    dead.write_text(
        'pcm.!default {\n  type file\n  slave.pcm "null"\n'
        f'  file "{tmp_path}/no-such-dir/play.raw"\n  format "raw"\n}}\n'
    )
    heard = Listener(broker.port, *REPORTS, "cosyedge/status", "standby/status")
    dead_env = {"ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{dead}"}
    make_daemon(gateway(broker.port, tmp_path / "p", PRIMARY), env=dead_env)
    make_daemon(gateway(broker.port, tmp_path / "s", STANDBY, 1.5), env=standby_sink.env)
    alert(broker.port, "m-1")
    heard.wait_for("cosyedge/status", lambda s: "audio" in s[-1].get("faults", {}), 30)
    said = heard.wait_for("standby/report", lambda r: any(x["id"] == "m-1" for x in r), 30)
    assert [(r["id"], r["outcome"], r["by"]) for r in said] == [("m-1", "spoken", "standby")]
    assert len(standby_sink.files()) >= 1
    # The fault follows at the monitor's next tick: a status may show "mute" before it.
    status = heard.wait_for("standby/status", lambda s: "standby" in s[-1]["faults"], 10)
    assert status[-1]["standby"]["primary"] == "mute"
    assert "(its fault audio: " in status[-1]["faults"]["standby"]
    heard.close()
