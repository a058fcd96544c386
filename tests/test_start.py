"""A start that hears at once: the real daemon and Mosquitto, the voices held loading.

The daemon subscribes and journals before its voices are loaded; what it takes in meanwhile
is said once they are. `voices.load` (cosyedge/faults.py) holds the load for a while (`hang`),
or fails it after that (`errno`), so the window a slow start has is there on any machine:
each test looks at the order things happened in (log lines, sd_notify datagrams, reports),
never at how long they took.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import threading
import time

from support import READY_LOG, SUBSCRIBED_LOG, Listener, publish, site_yaml

from cosyedge.faults import write_plan

REPORT, STATUS, EVENT = "cosyedge/report", "cosyedge/status", "cosyedge/event"
HOLD_S = 8.0  # how long the voices are held loading: longer than the test's steps in it
TEMPLATES = """templates:
  - topic: "plant/{line}/temperature"
    text: "Temperature alarm on line {line}: {value} degrees."
    payload: json
"""


def held(tmp_path, hang: float = HOLD_S, **entry) -> dict[str, str]:
    """The environment of a daemon whose voices are held loading for `hang` s (and then
    fail, with an `errno`), from a fault plan in `tmp_path`."""
    plan = tmp_path / "faults.json"
    write_plan(plan, {"voices.load": {"hang": hang, **entry}})
    return {"COSYEDGE_FAULTS": str(plan)}


def alert(line: int, ident: str, priority: str = "high") -> tuple[str, str]:
    payload = {"value": 90 + line, "id": ident, "priority": priority}
    return f"plant/{line}/temperature", json.dumps(payload)


def send(port: int, alerts: list[tuple[str, str]], retain: bool = False) -> None:
    for topic, payload in alerts:
        publish(port, topic, payload, retain=retain)


def outcomes(reports: Listener, ids: list[str], timeout: float = 90) -> dict[str, list[dict]]:
    """Every report about each of `ids`, once each has one, and a second after (a second
    outcome of one of them would be there by then)."""

    def have(told: list[dict]) -> bool:
        return {r.get("id") for r in told} >= set(ids)

    reports.wait_for(REPORT, have, timeout, f"an outcome for each of {ids}")
    time.sleep(1.0)
    told = [r for r in reports.on(REPORT) if r.get("id") in ids]
    return {i: [r for r in told if r["id"] == i] for i in ids}


def both_outcomes(reports: Listener, ident: str, timeout: float = 120) -> list[dict]:
    """The reports about alert `ident` and its one duplicate: once there are two, or once
    `timeout` passed (fewer: one of them ended without an outcome), and a second after."""

    def two(told: list[dict]) -> bool:
        return len([r for r in told if r.get("id") == ident]) >= 2

    with contextlib.suppress(AssertionError):  # the assertion on what came says more
        reports.wait_for(REPORT, two, timeout, f"two outcomes for {ident}")
    time.sleep(1.0)
    return [r for r in reports.on(REPORT) if r.get("id") == ident]


def line_of(log: str, pattern: str) -> int:
    """The index of the first log line holding `pattern` (the order things happened in)."""
    lines = log.splitlines()
    return next(n for n, line in enumerate(lines) if pattern in line)


def config_text(broker, tmp_path, extra: str = "") -> str:
    return site_yaml(broker.port, tmp_path) + TEMPLATES + extra


def test_alerts_are_taken_in_while_the_voices_load_and_said_once_they_are(
    broker, make_daemon, tmp_path, notify_socket
):
    """Subscribed, journaled and queued before the voices are loaded; the status says
    `starting` everywhere (STATUS, the retained status) and READY=1 waits for the voices,
    while the watchdog is fed; each alert is said once, its latency from its receipt."""
    reports = Listener(broker.port, REPORT, STATUS)
    env = {**held(tmp_path), **notify_socket.env(watchdog_s=2.0)}
    daemon = make_daemon(config_text(broker, tmp_path), env=env, start=False).start(False)
    daemon.wait_for_log(SUBSCRIBED_LOG, timeout=60)
    ids = ["early1", "early2"]
    send(broker.port, [alert(1, "early1"), alert(2, "early2", "critical")])
    for ident in ids:
        daemon.wait_for_log(rf"accepted alert {ident} ")
    statuses = reports.wait_for(STATUS, lambda s: any(x.get("state") == "starting" for x in s))
    assert all(s.get("state") in ("starting", "offline") for s in statuses if "state" in s)
    assert not notify_socket.with_key("READY"), "READY=1 before the voices were loaded"
    ready_at, _ = notify_socket.wait_for("READY", "1", timeout=120)
    told = outcomes(reports, ids)
    log = daemon.log()
    # The order things happened in: subscribed, accepted, and only then ready and spoken.
    subscribed, ready = line_of(log, "subscribed to"), line_of(log, "ready: the voices")
    assert subscribed < line_of(log, "accepted alert early1") < ready
    assert ready < line_of(log, "spoke alert early2") < line_of(log, "spoke alert early1")
    assert [len(told[i]) for i in ids] == [1, 1] and all(
        r[0]["outcome"] == "spoken" for r in told.values()
    ), told
    ready_wall = time.time() - (time.monotonic() - ready_at)
    for (report,) in told.values():  # honest: from its receipt, the wait for the voices in it
        assert report["start"] - report["latency_ms"] / 1000 < ready_wall, report
    before = [v for t, v in notify_socket.with_key("STATUS") if t < ready_at]
    assert any(v == "starting: loading voices" for v in before), before
    pets = [t for t, _ in notify_socket.with_key("WATCHDOG") if t < ready_at]
    assert pets, "the watchdog was not fed while the voices loaded"
    final = reports.wait_for(STATUS, lambda s: s[-1].get("state") == "online")[-1]
    assert "starting" not in final["faults"]
    reports.close()


def test_a_voice_that_fails_after_alerts_came_in_has_them_said_by_the_fallback_voice(
    broker, make_daemon, tmp_path, notify_socket
):
    """The file's voice fails once alerts were taken in: they stay in the journal, and the
    configuration that runs instead (the safe core here) says each once; the fault `config`
    names the voice's key. Never silence, never twice."""
    reports = Listener(broker.port, REPORT, EVENT)
    env = {**held(tmp_path, errno="EIO"), **notify_socket.env()}
    daemon = make_daemon(config_text(broker, tmp_path), env=env, start=False).start(False)
    daemon.wait_for_log(SUBSCRIBED_LOG, timeout=60)
    ids = ["doomed1", "doomed2"]
    send(broker.port, [alert(1, "doomed1"), alert(2, "doomed2")])
    for ident in ids:
        daemon.wait_for_log(rf"accepted alert {ident} ")
    daemon.wait_for_log(r"injected hang of .* at voices\.load")  # the load under way fails
    write_plan(tmp_path / "faults.json", {})  # and the next one loads
    assert not notify_socket.with_key("READY")
    told = outcomes(reports, ids, timeout=120)
    assert {i: [r["outcome"] for r in rs] for i, rs in told.items()} == {
        i: ["spoken"] for i in ids
    }, told
    log = daemon.log()
    assert "voices.en: cannot be loaded" in log
    assert line_of(log, "cannot start on") < line_of(log, "ready: the voices")
    faults = [e for e in reports.on(EVENT) if e.get("event") == "fault"]
    assert any(
        e["fault"] == "config" and "voices.en: cannot be loaded" in e["reason"] for e in faults
    ), faults
    assert daemon.alive()
    # Type=notify: the process goes on with the next configuration, so no STOPPING=1.
    assert not notify_socket.with_key("STOPPING"), "STOPPING=1 before the fallback's READY=1"
    reports.close()


def test_sigterm_while_the_voices_load_keeps_every_alert_for_the_next_start(
    broker, make_daemon, tmp_path
):
    """Stopped before it could speak: it exits without waiting for the load, and the next
    start says each alert it took in exactly once."""
    reports = Listener(broker.port, REPORT)
    daemon = make_daemon(config_text(broker, tmp_path), env=held(tmp_path), start=False)
    daemon.start(False)
    daemon.wait_for_log(SUBSCRIBED_LOG, timeout=60)
    ids = [f"term{n}" for n in range(1, 4)]
    send(broker.port, [alert(n, i) for n, i in enumerate(ids, 1)])
    for ident in ids:
        daemon.wait_for_log(rf"accepted alert {ident} ")
    daemon.process.send_signal(signal.SIGTERM)
    assert daemon.process.wait(timeout=HOLD_S + 10) == 0
    log = daemon.log()
    assert "3 unsaid alerts saved for the next start" in log
    assert "ready: the voices" not in log and not reports.on(REPORT)
    (tmp_path / "faults.json").unlink()
    daemon.start()
    told = outcomes(reports, ids)
    assert {i: [r["outcome"] for r in rs] for i, rs in told.items()} == {
        i: ["spoken"] for i in ids
    }, told
    reports.close()


def test_a_reload_while_the_voices_load_is_answered_and_in_force_once_they_are(
    broker, make_daemon, tmp_path, notify_socket
):
    """`cosyedge reload` during the start: answered (the new templates subscribed) without
    a READY=1 before the voices; an alert on the new template is said once they load."""
    reports = Listener(broker.port, REPORT)
    env = {**held(tmp_path), **notify_socket.env()}
    daemon = make_daemon(config_text(broker, tmp_path), env=env, start=False).start(False)
    daemon.wait_for_log(SUBSCRIBED_LOG, timeout=60)
    new = '  - topic: "plant/{line}/pressure"\n    text: "Pressure alarm on line {line}."\n'
    daemon.config.write_text(daemon.config.read_text() + new)
    command = [sys.executable, "-m", "cosyedge", "reload", "--config", str(daemon.config)]
    command += ["--pid", str(daemon.process.pid)]
    done = subprocess.run(command, capture_output=True, text=True, env=daemon.env, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ready: the voices" not in daemon.log(), "the reload waited for the voices"
    assert not notify_socket.with_key("READY"), "READY=1 at a reload's answer while starting"
    publish(broker.port, "plant/7/pressure", json.dumps({"id": "after-reload"}))
    daemon.wait_for_log(r"accepted alert after-reload ")
    told = outcomes(reports, ["after-reload"], timeout=120)
    assert [r["outcome"] for r in told["after-reload"]] == ["spoken"], told
    assert len(notify_socket.with_key("READY")) == 1
    ready_at, _ = notify_socket.with_key("READY")[0]
    early = [t for t, _ in notify_socket.with_key("RELOADING") if t < ready_at]
    assert not early, "RELOADING=1 before the start's READY=1"
    reports.close()


def test_duplicated_and_retained_alerts_during_the_start_are_said_once(
    broker, make_daemon, tmp_path
):
    """A retained alert delivered at the subscription and an alert sent twice, both while
    the voices load: each said once, the copy deduplicated; the retained one is not said
    again at the next start (also held loading) when the broker delivers it again."""
    reports = Listener(broker.port, REPORT)
    send(broker.port, [alert(5, "kept")], retain=True)
    daemon = make_daemon(config_text(broker, tmp_path), env=held(tmp_path), start=False)
    daemon.start(False)
    daemon.wait_for_log(SUBSCRIBED_LOG, timeout=60)
    send(broker.port, [alert(6, "twice"), alert(6, "twice")])
    told = outcomes(reports, ["kept", "twice"], timeout=120)
    assert sorted(r["outcome"] for r in told["twice"]) == ["deduplicated", "spoken"], told
    assert [r["outcome"] for r in told["kept"]] == ["spoken"], told
    daemon.stop()
    seen = len(reports.on(REPORT))
    daemon.start(False)
    daemon.wait_for_log(READY_LOG, timeout=120)
    time.sleep(1.0)
    again = [r for r in reports.on(REPORT)[seen:] if r.get("id") == "kept"]
    assert all(r["outcome"] != "spoken" for r in again), again
    assert daemon.log().count("spoke alert kept ") == 1
    reports.close()


def test_a_flood_during_the_start_is_said_most_urgent_first_each_alert_once(
    broker, make_daemon, tmp_path
):
    """30 alerts while the voices load, the critical ones last: once the voices are loaded
    the critical ones are said first, the rest as the flood rules say (gathered into
    summaries past the threshold), each with exactly one outcome; nothing is said as the
    generic phrase, so the memory ceiling (256 MB) held with the voices loading beside the
    queue."""
    reports = Listener(broker.port, REPORT)
    extra = "memory:\n  ceiling_mb: 256\n"
    env = held(tmp_path)
    daemon = make_daemon(config_text(broker, tmp_path, extra), env=env, start=False).start(False)
    daemon.wait_for_log(SUBSCRIBED_LOG, timeout=60)
    low = [(n, f"low{n}", "low") for n in range(1, 26)]
    critical = [(n, f"crit{n}", "critical") for n in range(26, 31)]
    send(broker.port, [alert(n, i, p) for n, i, p in low + critical])
    daemon.wait_for_log(r"accepted alert crit30 ")
    assert "ready: the voices" not in daemon.log(), "the voices loaded before the flood"
    ids = [i for _, i, _ in low + critical]
    told = outcomes(reports, ids, timeout=180)
    assert {i: len(rs) for i, rs in told.items()} == dict.fromkeys(ids, 1), told
    spoken = [r[0] for r in told.values() if r[0]["outcome"] == "spoken"]
    assert all(r.get("source") != "generic" for r in spoken), spoken
    first = sorted(spoken, key=lambda r: r["start"])[:5]
    assert {r["id"] for r in first} == {i for _, i, _ in critical}, first
    reports.close()


def test_canaries_prove_the_filters_while_the_voices_load(
    tmp_path, alsa_sink, make_daemon, notify_socket
):
    """The self-watch runs from the subscription on: a broker that stops delivering the
    canary is the fault `intake` before the voices are loaded, and canaries are never taken
    in as alerts."""
    from support import Broker

    topics = ("say", "report", "event", "error", "status", "command")  # not the canary's
    no_canary = "".join(f"topic readwrite cosyedge/{t}\n" for t in topics)
    broker = Broker(tmp_path / "broker", acl=no_canary).start()
    events = Listener(broker.port, EVENT)
    monitor = "monitor:\n  canary_interval_s: 1\n  canary_timeout_s: 2\n"
    env = {**held(tmp_path, hang=60), **notify_socket.env()}  # longer than the canary's timeout
    config = site_yaml(broker.port, tmp_path) + monitor
    daemon = make_daemon(config, env=env, start=False).start(False)
    daemon.wait_for_log(SUBSCRIBED_LOG, timeout=60)
    intake = lambda e: any(x.get("event") == "fault" and x.get("fault") == "intake" for x in e)  # noqa: E731
    events.wait_for(EVENT, intake, 50, "the fault intake while the voices load")
    log = daemon.log()
    assert "ready: the voices" not in log and not notify_socket.with_key("READY")
    assert "accepted alert" not in log  # no canary was taken for an alert
    broker.kill()
    events.close()


def test_the_metrics_and_outcome_board_count_what_came_in_while_the_voices_loaded(
    broker, make_daemon, tmp_path, notify_socket
):
    """The HTTP API is built with the voices; the alerts taken in before it are counted all
    the same, once each: received, accepted, and their outcomes."""
    from support import free_port, wait_until
    from test_http import call

    http_port = free_port()
    reports = Listener(broker.port, REPORT)
    extra = f"http:\n  enabled: true\n  listen: 127.0.0.1:{http_port}\n"
    env = {**held(tmp_path), **notify_socket.env()}
    daemon = make_daemon(config_text(broker, tmp_path, extra), env=env, start=False).start(False)
    daemon.wait_for_log(SUBSCRIBED_LOG, timeout=60)
    ids = ["m1", "m2", "m3"]
    send(broker.port, [alert(n, i) for n, i in enumerate(ids, 1)])
    for ident in ids:
        daemon.wait_for_log(rf"accepted alert {ident} ")
    assert not notify_socket.with_key("READY"), "the voices loaded before the alerts came"
    told = outcomes(reports, ids, timeout=120)
    assert all(len(rs) == 1 and rs[0]["outcome"] == "spoken" for rs in told.values()), told
    wanted = 'cosyedge_alert_outcomes_total{outcome="spoken"} 3.0'
    text = wait_until(
        lambda: wanted in (t := call(http_port, "GET", "/metrics")[1].decode()) and t, 20, wanted
    )
    assert 'cosyedge_alerts_received_total{via="mqtt"} 3.0' in text
    assert 'cosyedge_alerts_accepted_total{via="mqtt"} 3.0' in text
    reports.close()


def test_an_alert_sent_twice_and_left_unsaid_by_a_stop_while_loading_is_said_once(
    broker, make_daemon, tmp_path
):
    """An alert and its duplicate taken in while the voices load, then a stop: the next
    start says the original (the journal hands it back unsaid) and the duplicate stays
    the one `deduplicated` report; the duplicate's outcome never makes the original one."""
    reports = Listener(broker.port, REPORT)
    daemon = make_daemon(config_text(broker, tmp_path), env=held(tmp_path), start=False)
    daemon.start(False)
    daemon.wait_for_log(SUBSCRIBED_LOG, timeout=60)
    send(broker.port, [alert(6, "twice", "critical"), alert(6, "twice", "critical")])
    daemon.wait_for_log(r"alert twice: deduplicated")
    daemon.process.send_signal(signal.SIGTERM)
    assert daemon.process.wait(timeout=HOLD_S + 10) == 0
    (tmp_path / "faults.json").unlink()
    daemon.start()
    told = both_outcomes(reports, "twice")
    assert sorted(r["outcome"] for r in told) == ["deduplicated", "spoken"], told
    reports.close()


def test_an_alert_sent_twice_while_a_voice_fails_is_said_once_by_the_fallback_voice(
    broker, make_daemon, tmp_path
):
    """The same in one process: the file's voice fails after an alert and its duplicate
    came in; the configuration that runs instead says the original once."""
    reports = Listener(broker.port, REPORT)
    daemon = make_daemon(
        config_text(broker, tmp_path), env=held(tmp_path, errno="EIO"), start=False
    )
    daemon.start(False)
    daemon.wait_for_log(SUBSCRIBED_LOG, timeout=60)
    send(broker.port, [alert(6, "twice", "critical"), alert(6, "twice", "critical")])
    daemon.wait_for_log(r"alert twice: deduplicated")
    daemon.wait_for_log(r"injected hang of .* at voices\.load")
    write_plan(tmp_path / "faults.json", {})  # the next configuration's voice loads
    told = both_outcomes(reports, "twice")
    assert sorted(r["outcome"] for r in told) == ["deduplicated", "spoken"], told
    reports.close()


def test_the_configuration_run_after_a_voice_fails_feeds_the_watchdog(
    broker, make_daemon, tmp_path, notify_socket
):
    """The same process runs the next configuration when a voice fails: it is watched by
    systemd all the same, so it feeds the watchdog after its READY=1 as the first did."""
    env = {**held(tmp_path, hang=1.0, errno="EIO"), **notify_socket.env(watchdog_s=2.0)}
    daemon = make_daemon(config_text(broker, tmp_path), env=env, start=False).start(False)
    daemon.wait_for_log(r"injected hang of .* at voices\.load", timeout=60)
    write_plan(tmp_path / "faults.json", {})  # the next configuration's voice loads
    ready_at, _ = notify_socket.wait_for("READY", "1", timeout=120)
    time.sleep(3.5)  # more than one watchdog interval
    pets = [t for t, _ in notify_socket.with_key("WATCHDOG") if t > ready_at]
    assert len(pets) >= 2, "the watchdog is not fed after the fallback's READY=1"
    assert "cannot start on" in daemon.log()


def test_a_voice_load_that_hangs_is_given_up_on_and_the_fallback_says_what_came_in(
    broker, make_daemon, tmp_path, notify_socket
):
    """A load that never ends (a model on hung storage) is no silent start: once the start's
    wait for the voices (VOICES_WAIT_S) is over it is the fault `voices`, the configuration
    run instead says the fault `config` naming the voices, and the alert taken in is said
    once; READY=1 within systemd's TimeoutStartSec."""
    from cosyedge.config.lastgood import VOICES_WAIT_S

    reports = Listener(broker.port, REPORT, EVENT)
    env = {**held(tmp_path, hang=3600), **notify_socket.env(watchdog_s=2.0)}
    daemon = make_daemon(config_text(broker, tmp_path), env=env, start=False).start(False)
    began = time.monotonic()
    daemon.wait_for_log(SUBSCRIBED_LOG, timeout=60)
    send(broker.port, [alert(3, "hung1", "critical")])
    daemon.wait_for_log(r"accepted alert hung1 ")
    daemon.wait_for_log(r"injected hang of .* at voices\.load")
    write_plan(tmp_path / "faults.json", {})  # the fallback's (built-in) voice loads
    daemon.wait_for_log(r"voices given up on: voices\.en.*: not loaded within", VOICES_WAIT_S + 30)
    told = outcomes(reports, ["hung1"], timeout=120)
    assert [r["outcome"] for r in told["hung1"]] == ["spoken"], told
    ready_at, _ = notify_socket.wait_for("READY", "1", timeout=60)
    assert ready_at - began < 120, "READY=1 later than systemd's TimeoutStartSec"
    faults = [e for e in reports.on(EVENT) if e.get("event") == "fault"]
    assert any(e["fault"] == "config" and "not loaded within" in e["reason"] for e in faults), (
        faults
    )
    reports.close()


def test_a_slow_voice_load_that_works_is_waited_for_past_the_first_wait(
    broker, make_daemon, tmp_path, notify_socket
):
    """A load still working at the end of VOICES_WAIT_S (a first start on a loaded gateway, a
    model on a slow card) is no hang: waited for a window at a time, systemd's start timeout
    extended to match, then its own voice says what came in, with no fault `voices`."""
    from cosyedge.config.lastgood import VOICES_WAIT_S

    reports = Listener(broker.port, REPORT, EVENT)
    slow = VOICES_WAIT_S + 15
    plan = tmp_path / "faults.json"
    write_plan(plan, {"voices.load": {"slow": slow, "match": "en"}})
    env = {"COSYEDGE_FAULTS": str(plan), **notify_socket.env()}
    daemon = make_daemon(config_text(broker, tmp_path), env=env, start=False).start(False)
    began = time.monotonic()
    daemon.wait_for_log(SUBSCRIBED_LOG, timeout=60)
    send(broker.port, [alert(3, "slow1", "critical")])
    ready_at, _ = notify_socket.wait_for("READY", "1", timeout=slow + 60)
    assert ready_at - began >= slow - 1, "ready before the slow load ended"
    extensions = [v for t, v in notify_socket.with_key("EXTEND_TIMEOUT_USEC") if t < ready_at]
    assert extensions and all(int(v) > 0 for v in extensions), extensions
    told = outcomes(reports, ["slow1"], timeout=60)
    assert [r["outcome"] for r in told["slow1"]] == ["spoken"], told
    assert "still loading after" in daemon.log() and "given up on" not in daemon.log()
    faults = [e["fault"] for e in reports.on(EVENT) if e.get("event") == "fault"]
    assert "voices" not in faults and "config" not in faults, faults
    reports.close()


def burst(port: int, alerts: list[tuple[str, str]], gap_s: float) -> threading.Thread:
    """Publish `alerts` (QoS 1) `gap_s` apart from one client, on a thread of its own."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    def run() -> None:
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="test-burst")
        client.connect("127.0.0.1", port)
        client.loop_start()
        sent = [
            client.publish(topic, payload, qos=1)
            for topic, payload in alerts
            if not time.sleep(gap_s)
        ]
        for info in sent:
            info.wait_for_publish(timeout=10)
        client.disconnect()
        client.loop_stop()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_stop_during_a_burst_leaves_each_alert_one_outcome(broker, make_daemon, tmp_path):
    """SIGTERM while alerts pour in: what the stopping daemon took in it journaled and
    acknowledged, what it did not the broker delivers to the next start; no alert is both
    (journaled, then delivered again and reported `deduplicated`)."""
    reports = Listener(broker.port, REPORT)
    daemon = make_daemon(config_text(broker, tmp_path), env=held(tmp_path), start=False)
    daemon.start(False)  # held loading: its stop is quick, the burst goes on through it
    daemon.wait_for_log(SUBSCRIBED_LOG, timeout=60)
    ids = [f"burst{n}" for n in range(150)]
    sending = burst(broker.port, [alert(n % 9, i, "low") for n, i in enumerate(ids)], 0.002)
    daemon.wait_for_log(r"accepted alert burst20 ")
    daemon.process.send_signal(signal.SIGTERM)
    assert daemon.process.wait(timeout=30) == 0
    sending.join(timeout=30)
    (tmp_path / "faults.json").unlink()
    daemon.start()
    told = outcomes(reports, ids, timeout=120)
    twice = {i: [r["outcome"] for r in rs] for i, rs in told.items() if len(rs) != 1}
    assert not twice, twice
    reports.close()


def test_the_retained_status_while_the_voices_load_counts_what_the_journal_queued(
    broker, make_daemon, tmp_path
):
    """At a start, the retained status is of the daemon with the last run's unsaid alerts
    queued: no status from before it took them up is left retained over it."""
    daemon = make_daemon(config_text(broker, tmp_path), env=held(tmp_path), start=False)
    daemon.start(False)
    daemon.wait_for_log(SUBSCRIBED_LOG, timeout=60)
    send(broker.port, [alert(1, "left1", "critical")])
    daemon.wait_for_log(r"accepted alert left1 ")
    daemon.process.send_signal(signal.SIGTERM)
    assert daemon.process.wait(timeout=HOLD_S + 10) == 0
    statuses = Listener(broker.port, STATUS)
    time.sleep(0.5)
    daemon.start(False)  # held loading again
    daemon.wait_for_log(r"subscribed: alerts are journaled", timeout=60)
    time.sleep(1.0)
    told = [s for s in statuses.on(STATUS) if s.get("state") != "offline"]
    assert told and all(s["queue"] == 1 and s["restarts_last_hour"] >= 1 for s in told), told
    retained = Listener(broker.port, STATUS)  # what the broker keeps, as a newcomer sees it
    status = retained.wait_for(STATUS, lambda s: "state" in s[-1])[-1]
    assert status["state"] == "starting" and status["queue"] == 1, status
    retained.close()
    statuses.close()
