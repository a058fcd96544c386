"""The alarm system's own faults, injected for real against the daemon, Mosquitto and the ALSA
sink: each is shown in the status and said with the fault tone well within 100 s of its
start, said again until acknowledged, its end said once, and no alert is lost meanwhile."""

from __future__ import annotations

import datetime
import itertools
import json
import os
import re
import statistics
import threading
import time

import numpy as np
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from support import Broker, Listener, SwappableSink, site_yaml, wait_until

from cosyedge.announce.announcer import Announcer
from cosyedge.audio.sound import BEEP_S, FAULT_TONE_HZ, GAP_S
from cosyedge.config import MonitorConfig
from cosyedge.faults import write_plan
from cosyedge.model import Heartbeat
from cosyedge.service.canary import PAYLOAD_KEY, Signer
from cosyedge.service.selfwatch import (
    DROPPED_TOPIC,
    DropWatch,
    FilterWatch,
    StuckWatch,
    count_restarts,
)

REPORT, EVENT, STATUS = "cosyedge/report", "cosyedge/event", "cosyedge/status"
MONITOR = "monitor:\n  canary_interval_s: 1\n  canary_timeout_s: 3\n  reannounce_s: 2\n"
OPEN = "topic readwrite #\n"
# Everything but the canary: the broker keeps the connection but stops delivering it.
NO_CANARY = "".join(
    f"topic readwrite cosyedge/{t}\n"
    for t in ("say", "report", "event", "error", "status", "command")
)
LIMIT_S = 100  # EN 54-16: a fault indicated within 100 s of its start


def publish(port: int, topic: str, payload: str) -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2)
    client.connect("127.0.0.1", port)
    client.loop_start()
    client.publish(topic, payload, qos=1).wait_for_publish(10)
    client.disconnect()
    client.loop_stop()


def starts_with_fault_tone(pcm: np.ndarray, rate: int = 22050) -> bool:
    """Whether the stream opens with the fault tone: a beep and one a fifth lower (the ratio
    of FAULT_TONE_HZ), which tells it from any priority's chime whatever the voice's rate."""
    n, step = int(BEEP_S * rate), int((BEEP_S + GAP_S) * rate)
    peaks = [_peak(pcm[i : i + n], rate) for i in (0, step)]
    if None in peaks:
        return False
    high, low = FAULT_TONE_HZ
    return abs(peaks[0] / peaks[1] - high / low) < 0.05


def _peak(beep: np.ndarray, rate: int) -> float | None:
    if len(beep) < 64 or not np.abs(beep).max():
        return None
    spectrum = np.abs(np.fft.rfft(beep.astype(np.float32) * np.hanning(len(beep))))
    return float(np.fft.rfftfreq(len(beep), 1 / rate)[int(np.argmax(spectrum))]) or None


def events(listen: Listener, kind: str, fault: str) -> list[dict]:
    return [
        e
        for e in listen.on(EVENT)
        if isinstance(e, dict) and e.get("event") == kind and e.get("fault") == fault
    ]


def test_a_broker_that_stops_delivering_is_said_until_acknowledged_and_its_end_said(
    tmp_path, alsa_sink, make_daemon
):
    broker = Broker(tmp_path / "broker", acl=OPEN).start()
    listen = Listener(broker.port, STATUS, EVENT, REPORT)
    make_daemon(site_yaml(broker.port, tmp_path) + MONITOR)
    time.sleep(4)  # several canaries back: all well
    assert events(listen, "fault", "intake") == []

    broker.set_acl(NO_CANARY)
    cut = time.monotonic()
    listen.wait_for(EVENT, lambda _: events(listen, "fault", "intake"), LIMIT_S)
    noticed_s = time.monotonic() - cut
    status = listen.wait_for(STATUS, lambda s: s[-1]["state"] == "degraded", 10)[-1]
    assert status["faults"]["intake"].startswith("no message on 'cosyedge/canary/")
    said = lambda: events(listen, "fault_announcement", "intake")  # noqa: E731
    listen.wait_for(EVENT, lambda _: len(said()) >= 2, 30)  # said, then again
    assert said()[0]["text"] == "Alarm system fault: no alerts from the broker."
    assert time.monotonic() - cut < LIMIT_S, f"noticed after {noticed_s:.1f} s"
    assert any(starts_with_fault_tone(pcm) for pcm in alsa_sink.streams())

    publish(broker.port, "cosyedge/say", "Boiler two pressure is high.")  # still heard
    listen.wait_for(REPORT, lambda r: any(x["outcome"] == "spoken" for x in r), 30)
    publish(broker.port, "cosyedge/command", json.dumps({"cmd": "ack", "id": "fault:intake"}))
    time.sleep(1)
    count = len(said())
    time.sleep(5)
    assert len(said()) == count, "said again after it was acknowledged"

    broker.set_acl(OPEN)
    listen.wait_for(EVENT, lambda _: events(listen, "fault_cleared", "intake"), 30)
    listen.wait_for(STATUS, lambda s: s[-1]["state"] == "online", 10)
    cleared = lambda: events(listen, "fault_announcement", "intake:cleared")  # noqa: E731
    listen.wait_for(EVENT, lambda _: cleared(), 30)
    assert cleared()[0]["text"] == "Alarm system fault cleared."
    listen.close()
    broker.kill()


ALERTS = 'templates:\n  - topic: "plant/{line}/temperature"\n    text: "Line {line} is hot."\n'
# The daemon may still publish on the alert topics but no longer read them (the ACL).
NO_READ = "topic write plant/#\ntopic readwrite cosyedge/#\n"
# The daemon reads them but may not publish there; another client may.
SPOOFER = "topic read plant/#\ntopic readwrite cosyedge/#\nuser spoofer\ntopic readwrite plant/#\n"
CANARY = "plant/_cosyedge_canary/temperature"


def publish_as(port: int, user: str, topic: str, payload: str, retain: bool = False) -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2)
    client.username_pw_set(user)
    client.connect("127.0.0.1", port)
    client.loop_start()
    client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(10)
    client.disconnect()
    client.loop_stop()


def test_an_alert_filter_the_broker_stops_delivering_is_named_said_and_cleared(
    tmp_path, alsa_sink, make_daemon
):
    broker = Broker(tmp_path / "broker", acl=OPEN).start()
    listen = Listener(broker.port, STATUS, EVENT, "plant/#")
    daemon = make_daemon(site_yaml(broker.port, tmp_path) + MONITOR + ALERTS)
    genuine = listen.wait_for(CANARY, lambda c: c, 10)[0]  # one of the daemon's own, kept
    time.sleep(4)  # several rounds back: all well
    assert events(listen, "fault", "intake") == []

    broker.set_acl(NO_READ)
    cut = time.monotonic()
    faults = listen.wait_for(EVENT, lambda _: events(listen, "fault", "intake"), LIMIT_S)
    noticed_s = time.monotonic() - cut
    assert faults[0]["reason"] == "no message on 'plant/+/temperature' for 3 s", faults
    listen.wait_for(EVENT, lambda _: events(listen, "fault_announcement", "intake"), LIMIT_S)
    said_s = time.monotonic() - cut
    assert said_s < LIMIT_S
    broker.set_acl(OPEN)
    listen.wait_for(EVENT, lambda _: events(listen, "fault_cleared", "intake"), 30)
    cleared_s = time.monotonic() - cut - said_s
    print(f"ACL denied: fault after {noticed_s:.1f} s, said after {said_s:.1f} s; cleared")

    # Others' canaries keep nothing proven: forged, replayed and retained ones on the topic.
    broker.set_acl(SPOOFER)
    forged = json.dumps({"cosyedge_canary": {**genuine["cosyedge_canary"], "seq": 10**6}})
    cut = time.monotonic()
    for _ in range(3):
        publish_as(broker.port, "spoofer", CANARY, forged)
        publish_as(broker.port, "spoofer", CANARY, json.dumps(genuine))
        publish_as(broker.port, "spoofer", CANARY, json.dumps(genuine), retain=True)
        time.sleep(1)
    listen.wait_for(EVENT, lambda _: len(events(listen, "fault", "intake")) >= 2, LIMIT_S)
    print(f"spoofed canaries: fault after {time.monotonic() - cut:.1f} s all the same")
    # A retained one comes with the retain flag only to a new subscription: at the next start,
    # where the earlier run's canary, sent again, is stale.
    daemon.stop()
    listen.wait_for(STATUS, lambda s: s[-1]["state"] == "offline", 30)  # that run's last
    earlier = len(listen.on(STATUS))  # the next start's status comes after them
    # Sent as it starts: the session the broker kept hands it over at the connection, before
    # the status that names the intake fault (sent once ready, it came after that status).
    daemon.start(wait_ready=False)
    publish_as(broker.port, "spoofer", CANARY, json.dumps(genuine))
    for kind in ("forged", "replayed", "retained", "stale"):
        assert len(daemon.wait_for_log(rf"canary ignored, it proves nothing \({kind}")) == 1
    status = listen.wait_for(
        STATUS, lambda s: len(s) > earlier and "intake" in s[-1].get("faults", {}), 30
    )[-1]
    rejected = status["intake"]["canaries_rejected"]
    # The earlier run's own last canary may wait in the session as well (sent just before the
    # stop, under load not yet delivered): stale too, at least the one sent again here.
    assert set(rejected) == {"retained", "stale"} and rejected["retained"] == 1, status
    assert rejected["stale"] >= 1, status
    assert cleared_s < 30
    listen.close()
    broker.kill()


def test_a_journal_that_cannot_write_is_said_and_restarts_are_counted(
    tmp_path, broker, alsa_sink, make_daemon
):
    plan = tmp_path / "faults.json"
    write_plan(plan, {})
    listen = Listener(broker.port, STATUS, EVENT, REPORT)
    config = site_yaml(broker.port, tmp_path) + MONITOR
    daemon = make_daemon(config, env={"COSYEDGE_FAULTS": str(plan)})
    daemon.wait_for_log(r"cosyedge\.daemon: ready", timeout=60)
    write_plan(plan, {s: {"errno": "EROFS"} for s in ("journal.write", "journal.compact")})
    publish(broker.port, "cosyedge/say", "Valve seven is open.")
    said = lambda: events(listen, "fault_announcement", "journal")  # noqa: E731
    listen.wait_for(EVENT, lambda _: said(), LIMIT_S)
    assert said()[0]["text"] == "Alarm system fault: alerts cannot be saved."
    listen.wait_for(REPORT, lambda r: any(x["outcome"] == "spoken" for x in r), 30)
    write_plan(plan, {})
    listen.wait_for(EVENT, lambda _: events(listen, "fault_cleared", "journal"), 30)
    for starts in (2, 3):
        daemon.stop()
        daemon.start(wait_ready=False)
        daemon.wait_for_log(r"cosyedge\.daemon: ready", timeout=60, count=starts)
    # Counted as the start begins, so the status says it while `starting` already.
    done = lambda s: s[-1].get("restarts_last_hour") == 2 and s[-1]["state"] != "starting"  # noqa: E731
    status = listen.wait_for(STATUS, done, 30)
    assert status[-1]["state"] == "online"
    listen.close()


def test_a_voice_that_fails_after_start_is_a_fault_and_its_alerts_are_still_heard(
    tmp_path, broker, alsa_sink, make_daemon
):
    """espeak-ng, the Mandarin voice's engine, starts failing after the daemon is up (as when
    its package is removed or broken): each Mandarin alert is heard as the generic phrase and
    reported so, the fault is said, and the first phrase the voice says whole clears it."""
    broken = tmp_path / "espeak-broken"
    shims = tmp_path / "bin"
    shims.mkdir()
    espeak = shims / "espeak-ng"
    espeak.write_text(
        f'#!/bin/sh\nif [ -e {broken} ]; then echo "cannot open voice" >&2; exit 1; fi\n'
        'exec /usr/bin/espeak-ng "$@"\n'
    )
    espeak.chmod(0o755)
    listen = Listener(broker.port, STATUS, EVENT, REPORT)
    env = {"PATH": f"{shims}:{os.environ['PATH']}"}
    make_daemon(site_yaml(broker.port, tmp_path) + MONITOR, env=env)
    broken.touch()
    publish(broker.port, "cosyedge/say", json.dumps({"text": "二号泵压力过高。", "id": "zh-1"}))
    report = listen.wait_for(REPORT, lambda r: r, 60)[0]
    assert (report["outcome"], report["source"]) == ("spoken", "generic"), report
    assert "EspeakUnavailable" in report["reason"] and "cannot open voice" in report["reason"]
    said = lambda: events(listen, "fault_announcement", "voice")  # noqa: E731
    listen.wait_for(EVENT, lambda _: said(), LIMIT_S)
    assert said()[0]["text"].startswith("Alarm system fault: a voice has failed.")
    status = listen.wait_for(STATUS, lambda s: s[-1]["state"] == "degraded", 10)[-1]
    assert "cannot synthesize (EspeakUnavailable" in status["faults"]["voice"]

    broken.unlink()
    publish(broker.port, "cosyedge/say", json.dumps({"text": "三号泵正常。", "id": "zh-2"}))
    spoken = listen.wait_for(REPORT, lambda r: any(x.get("id") == "zh-2" for x in r), 60)
    assert [x["source"] for x in spoken if x.get("id") == "zh-2"] == ["synth"]
    listen.wait_for(EVENT, lambda _: events(listen, "fault_cleared", "voice"), 30)
    listen.wait_for(STATUS, lambda s: s[-1]["state"] == "online", 10)
    listen.close()


# -- the parts alone ---------------------------------------------------------------------------


def watch_of(filters: list[str], sent: list, clock=lambda: 0.0, **monitor) -> FilterWatch:
    """Every exact filter given is one of cosyedge's own topics, so a canary may go there."""
    config = MonitorConfig(**{"canary_interval_s": 30, "canary_timeout_s": 75, **monitor})
    signer = Signer(b"k" * 32, run="r1")
    publish = lambda t, p: sent.append((t, p))  # noqa: E731
    return FilterWatch(filters, set(filters), signer, publish, config, clock)


def test_each_filter_gets_its_canary_in_turn_and_a_silent_one_is_named():
    sent: list[tuple[str, str]] = []
    now = [0.0]
    watch = watch_of(["plant/+/temperature", "cosyedge/say"], sent, lambda: now[0])
    assert watch.tick(0) is None and len(sent) == 1
    assert watch.tick(14) is None and len(sent) == 1  # every 30 s / 2 filters
    assert watch.tick(15) is None and len(sent) == 2
    assert [t for t, _ in sent] == ["plant/_cosyedge_canary/temperature", "cosyedge/say"]
    now[0] = 15
    watch.heard(*sent[1], False)  # only the say topic's came back
    fault = watch.tick(76)
    assert fault == "no message on 'plant/+/temperature' for 75 s", fault
    for t in range(77, 200):  # both come back from now on: the fault is over
        now[0] = t
        for topic, payload in sent[-2:]:
            watch.heard(topic, payload, False)
        watch.tick(t)
    assert watch.tick(200) is None


def test_a_canary_that_cannot_be_published_is_a_miss_not_an_error():
    def refuse(topic: str, payload: str) -> None:
        raise OSError("no room in the client's queue")

    config = MonitorConfig(canary_interval_s=1, canary_timeout_s=3)
    watch = FilterWatch(["c/gw"], {"c/gw"}, Signer(b"k" * 32), refuse, config)
    start = time.monotonic()
    assert watch.tick(start) is None
    assert watch.tick(start + 4) is not None


def test_forged_replayed_stale_and_retained_canaries_prove_nothing_and_are_counted(caplog):
    sent: list[tuple[str, str]] = []
    watch = watch_of(["a/+"], sent)
    watch.tick(0)
    topic, payload = sent[0]
    earlier = Signer(b"k" * 32, run="r0").payload(1, "a/+", topic)
    forged = Signer(b"x" * 32, run="r1").payload(1, "a/+", topic)
    for bad in [(topic, forged, False), (topic, earlier, False), (topic, payload, True)]:
        watch.heard(*bad)
        watch.heard(*bad)
    watch.heard(topic, payload, False)  # the genuine one
    watch.heard(topic, payload, False)  # and again: a replay
    watch.heard(topic, payload, False)
    assert watch.describe()["canaries_rejected"] == {
        "forged": 2,
        "stale": 2,
        "retained": 2,
        "replayed": 2,
    }
    assert watch.tick(76) is not None, "only the genuine one counted, long ago"
    logged = [r.getMessage() for r in caplog.records if "canary ignored" in r.getMessage()]
    assert len(logged) == 4, logged  # each kind once


def test_canaries_stay_within_the_rate_however_many_filters():
    sent: list[tuple[str, str]] = []
    filters = [f"plant/{i}/+" for i in range(200)]
    now = [0.0]
    watch = watch_of(filters, sent, lambda: now[0], canary_max_rate=5)
    per_tick = []
    for i in range(160):  # the monitor's 0.5 s ticks: 80 s, two rounds of 40 s
        before = len(sent)
        now[0] = 0.5 * i
        watch.tick(now[0])
        per_tick.append(len(sent) - before)
    assert watch.round_s == 40  # 200 filters at 5 a second: longer than the 30 s interval
    assert max(per_tick[1:]) <= 3 and len(sent) == pytest.approx(80 * 5, abs=3)
    assert {t for t, _ in sent} == {f"plant/{i}/_cosyedge_canary" for i in range(200)}


def test_a_late_tick_sends_what_is_due_at_the_rate_not_in_one_burst():
    """The monitor's ticks stop for 2.5 s (a loaded machine, a slow part ticked first): the
    canaries due meanwhile follow at `canary_max_rate`, no second has more than it, and the
    round catches up with its pace."""
    sent: list[tuple[str, str]] = []
    now = [0.0]
    filters = [f"line{i}/+/temperature" for i in range(200)]
    monitor = {"canary_interval_s": 4, "canary_timeout_s": 8, "canary_max_rate": 60}
    watch = watch_of(filters, sent, lambda: now[0], **monitor)
    times: list[float] = []
    for t in [0.5 * i for i in range(8)] + [0.5 * i for i in range(12, 40)]:  # none in 3.5-6
        now[0] = t
        before = len(sent)
        watch.tick(t)
        times += [t] * (len(sent) - before)
    busiest = max(sum(start <= t < start + 1 for t in times) for start in times)
    assert busiest == 60, busiest  # 125 were due at 6 s
    assert len(sent) == 19.5 * 50 + 1  # every one due by the last tick: the pace is kept


def test_restarts_are_counted_within_the_hour_and_a_damaged_record_is_none(tmp_path):
    path = tmp_path / "starts"
    path.write_text(f"{time.time() - 7200:.3f}\n{time.time() - 60:.3f}\n")
    assert count_restarts(path) == 1  # the one an hour ago no longer counts
    assert count_restarts(path) == 2
    path.write_text("not a time\n")
    assert count_restarts(path) == 0
    assert len(path.read_text().split()) == 1


def test_a_stuck_announcer_a_cache_that_cannot_write_and_a_lost_device_show_and_clear(
    tmp_path, broker, make_daemon
):
    sink = SwappableSink(tmp_path / "sound")
    plan = tmp_path / "faults.json"
    write_plan(plan, {})
    listen = Listener(broker.port, STATUS, EVENT, REPORT)
    config = site_yaml(broker.port, tmp_path) + MONITOR + "  stuck_s: 5\n"
    env = {**sink.env, "COSYEDGE_FAULTS": str(plan)}
    daemon = make_daemon(config, env=env)
    daemon.wait_for_log(r"cosyedge\.daemon: ready", timeout=60)

    def shows(name: str) -> bool:
        return any(isinstance(s, dict) and name in s.get("faults", {}) for s in listen.on(STATUS))

    def cleared(name: str) -> list[dict]:
        return events(listen, "fault_cleared", name)

    # A synthesis that hangs: the announcer makes no progress.
    write_plan(plan, {"speech.render": {"hang": 9, "match": "furnace", "times": 1}})
    publish(broker.port, "cosyedge/say", "The furnace door is open.")
    listen.wait_for(STATUS, lambda _: shows("announcer-stuck"), 30)
    listen.wait_for(EVENT, lambda _: cleared("announcer-stuck"), 30)
    listen.wait_for(REPORT, lambda r: any(x["outcome"] == "spoken" for x in r), 30)

    # The phrase cache cannot be written: the fault is said.
    write_plan(plan, {"cache.write": {"errno": "EROFS"}})
    publish(broker.port, "cosyedge/say", "Tank four is nearly empty.")
    listen.wait_for(EVENT, lambda _: events(listen, "fault_announcement", "cache"), 30)
    write_plan(plan, {})
    publish(broker.port, "cosyedge/say", "Tank five is nearly empty.")
    listen.wait_for(EVENT, lambda _: cleared("cache"), 30)

    # The sound device goes: shown meanwhile, never said (nothing could be), gone once it plays.
    sink.break_it("card unplugged")
    publish(broker.port, "cosyedge/say", "Conveyor one has stopped.")
    listen.wait_for(STATUS, lambda _: shows("audio"), 30)
    sink.restore("card unplugged")
    listen.wait_for(EVENT, lambda _: cleared("audio"), 60)
    listen.wait_for(REPORT, lambda r: len([x for x in r if x["outcome"] == "spoken"]) >= 4, 60)
    assert not [
        e
        for e in listen.on(EVENT)
        if str(e.get("fault", "")).startswith("audio") and e.get("event") == "fault_announcement"
    ]
    spoken = [r for r in listen.on(REPORT) if r["outcome"] == "spoken"]
    assert len(spoken) == 4  # every alert heard, none lost to the faults
    listen.close()


class IdleDesk:
    """A desk with nothing to say."""

    def take(self, timeout: float) -> None:
        return None


def ticks(watch: StuckWatch, beat: Heartbeat, start: float, end: float) -> list[float]:
    """The monitor's checks every 0.5 s from `start` to `end`: when `beat` was stuck."""
    times = [start + 0.5 * i for i in range(int((end - start) / 0.5) + 1)]
    return [t for t in times if watch.check([beat], 60, t)[f"{beat.name}-stuck"]]


def test_an_idle_announcer_is_never_stuck_and_a_busy_one_is_after_stuck_s():
    idle, busy = Heartbeat("announcer"), Heartbeat("player")
    announcer = Announcer(IdleDesk(), None, None, None, threading.Event(), None, idle)
    idle.beat()  # an earlier item was said
    announcer._next()  # then it waits for the next one, which does not come
    busy.beat()
    now = time.monotonic()
    assert ticks(StuckWatch(), idle, now, now + 300) == []
    stuck = ticks(StuckWatch(), busy, now, now + 300)
    assert stuck and 60 <= stuck[0] - now <= 61


def test_a_gap_in_the_monitors_own_clock_is_no_stages_fault():
    busy = Heartbeat("announcer")
    busy.beat()
    watch, now = StuckWatch(), time.monotonic()
    assert not watch.check([busy], 60, now)["announcer-stuck"]
    # The whole process stopped for 65 s (SIGSTOP): the first checks after it are no fault.
    assert ticks(watch, busy, now + 65, now + 125) == []
    # Still no progress 60 s after it went on: that is the stage's own.
    assert ticks(watch, busy, now + 125.5, now + 130)


def test_alerts_the_broker_dropped_while_the_daemon_was_away_are_a_fault_after_its_restart(
    tmp_path, alsa_sink, make_daemon
):
    broker = Broker(tmp_path / "broker")
    small = broker.conf.read_text().replace("max_queued_messages 100000", "max_queued_messages 3")
    broker.conf.write_text(small + "sys_interval 1\n")
    broker.start()
    listen = Listener(broker.port, STATUS, EVENT, DROPPED_TOPIC)
    daemon = make_daemon(site_yaml(broker.port, tmp_path) + MONITOR)
    counted = lambda s: s and s[-1].get("broker", {}).get("dropped") is not None  # noqa: E731
    base = listen.wait_for(STATUS, counted, 30)[-1]["broker"]["dropped"]  # before it goes
    daemon.stop()
    for i in range(8):  # the queue keeps 3 for the daemon; the broker drops the rest
        publish(broker.port, "cosyedge/say", f"Alert {i}.")
    # The broker counts every sys_interval: a start before its count has all five drops
    # would see some at its start and the rest a second later, one fault said with either.
    listen.wait_for(DROPPED_TOPIC, lambda c: c[-1] >= base + 5, 30, "all five drops counted")
    daemon.start()
    started = time.monotonic()
    listen.wait_for(EVENT, lambda _: events(listen, "fault", "broker"), LIMIT_S)
    noticed_s = time.monotonic() - started
    fault = events(listen, "fault", "broker")[-1]
    assert fault["reason"].startswith("broker dropped "), fault
    dropped = int(fault["reason"].split()[2])
    assert dropped >= 5, fault  # the daemon's own canaries may have been dropped too
    listen.wait_for(EVENT, lambda _: events(listen, "fault_announcement", "broker"), LIMIT_S)
    said_s = time.monotonic() - started
    print(f"broker drops: fault {noticed_s:.1f} s after the restart, said after {said_s:.1f} s")
    assert said_s < LIMIT_S
    listen.close()
    broker.kill()


def test_the_broker_drop_count_is_kept_across_restarts_and_a_broker_restart_starts_it_over(
    tmp_path,
):
    path, now = tmp_path / "dropped.json", [0.0]
    watch = DropWatch(path, "b:1883", lambda: now[0])
    watch.heard(b"12")  # the first count ever seen is the base
    assert watch.tick(1) is None and watch.describe() == {"dropped": 12}
    again = DropWatch(path, "b:1883", lambda: now[0])  # the next start
    again.heard(b"15")
    assert again.tick(2) == "broker dropped 3 messages"
    again.heard(b"2")  # below the kept count: the broker restarted
    assert again.tick(3) == "broker dropped 5 messages"
    assert again.tick(3 + 601) is None
    other = DropWatch(path, "elsewhere:1883", lambda: now[0])  # another broker: a new base
    other.heard(b"40")
    assert other.tick(1) is None
    unread = DropWatch(tmp_path / "none.json", "b:1883", lambda: now[0])
    assert unread.tick(61) is None and unread.describe()["dropped"] is None


def test_two_hundred_filters_each_proven_at_a_bounded_rate_and_each_silence_named(
    tmp_path, alsa_sink, make_daemon
):
    """200 alert filters, a round every 4 s at most 60 canaries a second: the daemon's pace
    (by each canary's own stamp: a loaded broker or listener may hand a backlog over in one
    bunch, which says nothing of the pace), and how long after their reads are denied each
    filter is named in the fault."""
    templates = "".join(
        f'  - topic: "line{i}/{{unit}}/temperature"\n    text: "Unit {{unit}} is hot."\n'
        for i in range(200)
    )
    monitor = "monitor:\n  canary_interval_s: 4\n  canary_timeout_s: 8\n  canary_max_rate: 60\n"
    broker = Broker(tmp_path / "broker", acl=OPEN).start()
    canaries = Listener(broker.port, "+/_cosyedge_canary/temperature")
    listen = Listener(broker.port, EVENT)
    daemon = make_daemon(site_yaml(broker.port, tmp_path) + monitor + f"templates:\n{templates}")
    daemon.wait_for_log(r"cosyedge\.daemon: ready", timeout=60)
    before = len(canaries.messages)

    def sent() -> list[tuple[float, str]]:  # by the daemon's clock, whenever they arrived
        canary = [p[PAYLOAD_KEY] for _, p in canaries.messages[before:]]
        return sorted((c["sent"], c["filter"]) for c in canary)

    got = wait_until(lambda: (s := sent()) and s[-1][0] - s[0][0] > 12 and s, LIMIT_S, "12 s")
    seconds = [int(t - got[0][0]) for t, _ in got if t - got[0][0] < 10]
    per_second = [seconds.count(s) for s in range(10)]
    by_filter: dict[str, list[float]] = {}
    for t, which in got:
        by_filter.setdefault(which, []).append(t)
    # The round, as each filter sees it: a late tick's canaries follow at the most the rate
    # allows, so a mean over a few seconds may be above 50 a second while the rounds hold.
    gaps = [b - a for ts in by_filter.values() for a, b in itertools.pairwise(ts)]
    round_s = statistics.median(gaps)
    print(
        f"200 filters: {len(seconds) / 10:.1f} canaries/s, at most {max(per_second)} in a "
        f"second, a filter's every {round_s:.2f} s (median)"
    )
    assert max(per_second) <= 60 and 3.6 <= round_s <= 4.4, (per_second, round_s)
    assert events(listen, "fault", "intake") == []

    denied = "".join(f"topic write line{i}/#\n" for i in range(200))  # no longer read
    broker.set_acl(denied + "topic readwrite cosyedge/#\n")
    cut = time.time()
    named = daemon.wait_for_log(r"fault: intake: .* and 197 more for 8 s", timeout=LIMIT_S)
    lines = re.findall(
        r"^(\S+ \S+) (?:ERROR|INFO) \S+ fault: intake: no message on (.*) for 8 s$",
        daemon.log(),
        re.M,
    )
    latencies = []
    for stamp, which in lines:
        at = datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp() - cut
        more = re.search(r"and (\d+) more", which)
        count = 3 + int(more.group(1)) if more else which.count("'") // 2
        latencies += [at] * (count - len(latencies))
    print(
        f"200 filters denied: first named after {latencies[0]:.1f} s, median "
        f"{statistics.median(latencies):.1f} s, last {latencies[-1]:.1f} s"
    )
    assert named and len(latencies) == 200 and latencies[-1] < 8 + 1 + 1
    listen.wait_for(EVENT, lambda _: events(listen, "fault_announcement", "intake"), LIMIT_S)
    canaries.close()
    listen.close()
    broker.kill()


def test_a_fault_whose_reason_keeps_changing_is_told_once_a_minute_not_at_each_change(
    monkeypatch,
):
    """A count that grows (`broker dropped N`), another filter named: the status has the
    newest reason at once, but the log, the event and the report come at most every
    RETELL_S, so one episode does not flood the audit trail."""
    from cosyedge.alarms import health as health_module

    told: list = []
    now = [1000.0]
    monkeypatch.setattr(health_module.time, "monotonic", lambda: now[0])
    health = health_module.Health(lambda name, fault: told.append(fault and fault.reason))
    for n in range(25):
        now[0] += 2
        health.set("broker", f"broker dropped {n + 1} messages")
    assert told == ["broker dropped 1 messages"]
    assert health.faults() == {"broker": "broker dropped 25 messages"}
    now[0] += health_module.RETELL_S
    health.set("broker", "broker dropped 26 messages")
    assert told[-1] == "broker dropped 26 messages" and len(told) == 2
    health.set("broker", None)
    assert told[-1] is None


def test_the_intake_fault_names_its_silent_filters_in_one_order_whatever_the_config():
    """Consecutive STATUS lines name the same filters while the same ones are silent: sorted,
    the first SILENT_NAMED of them, whatever order the configuration lists them in."""
    filters = ["z/+", "m/+", "b/+", "a/+", "q/+"]
    reasons = []
    for order in (filters, filters[::-1], sorted(filters)):
        watch = watch_of(order, [])
        watch.tick(0)
        reasons += [watch.tick(t) for t in (200, 230, 260)]
    assert len(set(reasons)) == 1, reasons
    assert reasons[0].startswith("no message on 'a/+', 'b/+', 'm/+' and 2 more"), reasons[0]
