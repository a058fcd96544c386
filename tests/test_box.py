"""The .deb under a real systemd 252 as PID 1 (`systemd-box`), with the unit exactly as shipped:
start to READY, an alert in and its report out, reload (valid and broken), Wyoming and its
zeroconf announcement turned on in the configuration, a watchdog restart
after SIGSTOP, stop with the queue saved, an upgrade over the running service, the operator's
commands as root with and without `--config`, remove (nothing left retained on the broker) and
purge (nothing left in /etc). The box has the host's package database, so the package's
dependencies are met as on this machine, and a file as its sound card. It needs root and boots
systemd, so it runs on CI (CI=true) or with COSYEDGE_TEST_BOX=1, one run at a time per
machine."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from box import ASOUND_CONF, Box, Subscription, box_script
from support import REPO, package_state_lock

UNIT = "cosyedge.service"
CONFIG = "/etc/cosyedge/cosyedge.yaml"
WYOMING_ON = "wyoming:\n  enabled: true\n"
SITE = "/opt/cosyedge/lib/python3.11/site-packages"
# A Wyoming client's `describe`, as Home Assistant sends it; prints the `info` event's data.
DESCRIBE = """
import json, socket, sys
with socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=30) as s:
    s.sendall(b'{"type": "describe"}\\n')
    f = s.makefile("rb")
    header = json.loads(f.readline())
    data = json.loads(f.read(header.get("data_length") or 0) or b"{}")
    print(json.dumps({**header, **{"data": header.get("data") or data}}))
"""
# The gateway's `_wyoming._tcp` service resolved over multicast DNS, as Home Assistant's
# zeroconf does, with the package's own zeroconf: its address and port, or nothing.
BROWSE = """
import socket
from zeroconf import Zeroconf
zc = Zeroconf()
name = f"cosyedge-{socket.gethostname()}"[:63] + "._wyoming._tcp.local."
info = zc.get_service_info("_wyoming._tcp.local.", name, timeout=30000)
print(info.parsed_addresses()[0], info.port) if info else print("not found")
zc.close()
"""

pytestmark = [
    pytest.mark.system,
    pytest.mark.skipif(
        not (os.environ.get("CI") or os.environ.get("COSYEDGE_TEST_BOX") == "1")
        or os.geteuid() != 0,
        reason="boots systemd and installs a package: root with CI=true or COSYEDGE_TEST_BOX=1",
    ),
    pytest.mark.skipif(box_script() is None, reason="no systemd-box launcher on this machine"),
    pytest.mark.skipif(
        not Path("/lib/systemd/systemd").exists(), reason="the host has no systemd to boot"
    ),
]


@pytest.fixture(scope="module")
def box(debs):
    """A booted box with the package installed and its service running, for the file's tests
    (conftest.py keeps them on one worker; each test stands on its own)."""
    deb = debs[0]
    b = Box(box_script(), Path(f"/tmp/cosyedge-box-{os.getpid()}"))
    booted = b.up()
    if booted.returncode != 0:
        b.down()
        pytest.skip(f"systemd-box cannot boot here: {booted.stderr.strip()[-300:]}")
    try:
        # The host's package database and the system Mosquitto's own configuration: the box
        # has a private /etc and /var but the host's /usr, so dependencies are met as here.
        with package_state_lock():  # not while the package test installs on the host
            b.copy(Path("/var/lib/dpkg"), "/var/lib/dpkg")
            b.copy(Path("/etc/mosquitto"), "/etc/mosquitto")
        # Debian's container images forbid starting services from maintainer scripts.
        b.sh("rm -f /usr/sbin/policy-rc.d /etc/mosquitto/conf.d/cosyedge.conf")
        b.write("/etc/asound.conf", ASOUND_CONF)
        b.copy(deb, "/root/")
        b.deb = f"/root/{deb.name}"
        installed = b.run("dpkg", "-i", b.deb, timeout=300)
        assert installed.returncode == 0, installed.stdout + installed.stderr
        b.wait_until(lambda: b.show(UNIT, "ActiveState") == "active", "service active", 120)
        yield b
    finally:
        b.down()


@pytest.fixture
def reports(box):
    sub = Subscription(box, "cosyedge/report")
    yield sub
    sub.close()


def spoken(alert_id: str):
    return lambda r: r.get("id") == alert_id and r["outcome"] == "spoken"


def journal(box: Box, since: str = "") -> str:
    return box.sh(f"journalctl -u {UNIT} --no-pager -o cat {since}").stdout


def ready_after_start(box: Box) -> float:
    """Seconds from the service's exec to its READY, as systemd timed them."""
    started = int(box.show(UNIT, "ExecMainStartTimestampMonotonic"))
    return (int(box.show(UNIT, "ActiveEnterTimestampMonotonic")) - started) / 1e6


def test_the_installed_service_is_ready_on_the_system_broker_with_the_unit_as_shipped(box):
    shipped = (REPO / "systemd/cosyedge.service").read_text()
    assert box.read(f"/lib/systemd/system/{UNIT}") == shipped
    first = ready_after_start(box)  # the package started it: its first start, state made
    box.sh(f"systemctl restart {UNIT}", timeout=300)
    warm = ready_after_start(box)
    # The figures docs/operations.md quotes ("Measured for operations"), printed with -s.
    print(f"box: READY {first:.2f} s after the first start, {warm:.2f} s after a warm restart")
    assert "mqtt: connected" in box.show(UNIT, "StatusText")
    # The tables came with the package: the first start made none (only the optimized graphs,
    # which depend on the CPU), and found nothing wrong with the package's.
    kept = box.sh("ls /var/lib/cosyedge/models").stdout.split()
    assert [n for n in kept if n.startswith(("hibari-g2p-", "pypinyin-readings-"))] == [], kept
    assert any(n.startswith("hibari-") and n.endswith(".onnx") for n in kept), kept
    said = journal(box)
    assert "made hibari's G2P tables" not in said and "made pypinyin's" not in said, said
    assert "shipped with the package are not usable" not in said, said
    # One broker: the system Mosquitto, on every loopback address; the service started none.
    assert box.show("mosquitto.service", "ActiveState") == "active"
    assert "using it" in journal(box)
    listeners = box.sh("ss -Hltnp 'sport = :1883'").stdout.splitlines()
    assert listeners and all("mosquitto" in line for line in listeners), listeners
    mosquitto_pid = box.show("mosquitto.service", "MainPID")
    assert all(f"pid={mosquitto_pid}," in line for line in listeners), listeners


def test_an_alert_published_to_localhost_is_spoken_and_reported(box, reports):
    box.publish("plant/line1/estop", {"station": "station four", "id": "box-1"})
    report = reports.until(spoken("box-1"))
    assert report["text"] == "Emergency stop at station four."
    played = box.sh("cat /var/lib/cosyedge/play.raw* | wc -c").stdout
    assert int(played) > 22050 * 2  # over half a second of 16-bit audio


def test_reload_is_in_force_when_it_returns_and_a_broken_file_changes_nothing(box, reports):
    pid = box.running_pid(UNIT)
    original = box.read(CONFIG)
    added = '  - topic: "plant/box/new"\n    text: "Reloaded: {text}"\n'
    box.write(CONFIG, original.replace("templates:\n", "templates:\n" + added, 1))
    box.sh(f"systemctl reload {UNIT}")
    box.publish("plant/box/new", {"text": "in force", "id": "box-reload"})
    assert reports.until(spoken("box-reload"))["text"] == "Reloaded: in force"

    box.write(CONFIG, "mqtt:\n  port: seventy\n")
    broken = box.run("systemctl", "reload", UNIT)
    assert broken.returncode != 0
    assert "mqtt.port: expected an integer" in journal(box)
    # A broker that does not answer: in force, but the reload fails, saying so, and the
    # service stays up on it.
    box.write(CONFIG, original.replace("  port: 1883\n", "  port: 1999\n", 1))
    deaf = box.run("systemctl", "reload", UNIT)
    assert deaf.returncode != 0
    assert "127.0.0.1:1999 has not acknowledged its subscriptions" in journal(box)
    assert box.show(UNIT, "ActiveState") == "active"
    assert "mqtt: disconnected" in box.show(UNIT, "StatusText")
    # Another file than the service's: refused, the daemon not signalled.
    box.write("/root/other.yaml", original)  # the same state_dir, so the same answers
    other = box.run("cosyedge", "reload", "--config", "/root/other.yaml", "--pid", pid)
    assert other.returncode == 4, other.stderr
    assert f"process {pid} runs {CONFIG}, not /root/other.yaml" in other.stderr
    box.write(CONFIG, original)
    box.sh(f"systemctl reload {UNIT}")
    assert box.show(UNIT, "MainPID") == pid  # never restarted
    box.publish("plant/line1/estop", {"station": "station five", "id": "box-after"})
    assert reports.until(spoken("box-after"))["text"] == "Emergency stop at station five."


def test_a_bad_file_at_restart_runs_the_last_good_one_and_says_so(box, reports):
    """A broken file and a restart: active, speaking, the fault said and in the status; a
    good file and a reload clear it. (A fault of a missing package at restart, and the
    command that mends it: the upgrade's test.)"""
    original = box.read(CONFIG)
    events = Subscription(box, "cosyedge/event")
    try:
        announced = restart_on(box, reports, events, "mqtt:\n  port: seventy\n", "config")
        assert announced["text"].endswith("running the previous configuration.")
        box.write(CONFIG, original)
        box.sh(f"systemctl reload {UNIT}")
        events.until(said("config", "fault_cleared"), timeout=30)
        assert "degraded" not in box.show(UNIT, "StatusText")
    finally:
        events.close()
        if box.read(CONFIG) != original:  # stopped on the way: the file put back
            box.write(CONFIG, original)
            box.sh(f"systemctl restart {UNIT}")


def said(fault: str, kind: str = "fault_announcement"):
    return lambda e: e.get("event") == kind and e.get("fault") == fault


def restart_on(box: Box, reports: Subscription, events: Subscription, text: str, fault: str):
    """The service restarted on `text`: active, degraded by `fault`, still speaking; the
    fault's announcement event."""
    box.write(CONFIG, text)
    box.sh(f"systemctl restart {UNIT}")
    assert box.show(UNIT, "ActiveState") == "active"
    assert f"degraded: {fault}: " in box.show(UNIT, "StatusText")
    alert_id = f"box-degraded-{fault}"
    box.publish("cosyedge/say", {"text": "Still heard.", "id": alert_id})
    reports.until(spoken(alert_id))
    return events.until(said(fault), timeout=60)


def test_wyoming_and_zeroconf_turned_on_in_the_config_answer_and_are_announced(box, reports):
    """On the packaged install, Wyoming is a change of configuration and a restart: no fault,
    a `describe` answered with the configured voices, and `_wyoming._tcp` announced on the
    network (a veth pair gives the box an address other than loopback, and a route for
    multicast), found with the package's own zeroconf."""
    box.sh(
        "ip link show cosy0 >/dev/null 2>&1 || { ip link add cosy0 type veth peer name cosy1 &&"
        " ip addr add 192.0.2.1/24 dev cosy0 && ip addr add 192.0.2.2/24 dev cosy1 &&"
        " ip link set cosy0 up && ip link set cosy1 up && ip route add 224.0.0.0/4 dev cosy0; }"
    )
    original = box.read(CONFIG)
    box.write("/root/describe.py", DESCRIBE)
    box.write("/root/browse.py", BROWSE)
    try:
        box.write(CONFIG, original + WYOMING_ON + "  listen: tcp://0.0.0.0:10200\n")
        checked = box.sh(f"cosyedge check --config {CONFIG}").stdout
        assert "would start without" not in checked, checked
        since = f"--since=@{box.sh('date +%s').stdout.strip()}"
        box.sh(f"systemctl restart {UNIT}")
        assert box.show(UNIT, "ActiveState") == "active"
        assert "degraded" not in box.show(UNIT, "StatusText"), box.show(UNIT, "StatusText")
        info = json.loads(box.sh("python3 /root/describe.py 192.0.2.1 10200").stdout)
        assert info["type"] == "info", info
        (program,) = info["data"]["tts"]
        assert program["name"] == "cosyedge"
        assert {v["languages"][0] for v in program["voices"]} == {"en", "zh"}, program

        def told() -> list[str]:  # the announcement, or why there is none
            # The server's own lines: the announcer's logger (cosyedge.announce.*) speaking a
            # fault the restart cleared matched "announce" too, and ended the wait early.
            lines = journal(box, since).splitlines()
            return [s for s in lines if "wyoming: " in s and "announce" in s]

        box.wait_until(told, "the announcement (or its failure) logged", 60)
        assert any("wyoming: announced as" in line for line in told()), told()
        found = box.sh("/opt/cosyedge/bin/python /root/browse.py").stdout.split()
        assert found == ["192.0.2.1", "10200"], found
        box.publish("cosyedge/say", {"text": "Wyoming is on.", "id": "box-wyoming"})
        reports.until(spoken("box-wyoming"))
        logged = journal(box, since)
        assert "Traceback" not in logged and "cannot announce" not in logged, logged
    finally:
        box.write(CONFIG, original)
        box.sh(f"systemctl restart {UNIT}")


def test_a_frozen_daemon_is_restarted_by_the_watchdog(box, reports):
    pid = box.running_pid(UNIT)
    restarts = int(box.show(UNIT, "NRestarts"))
    box.sh(f"kill -STOP {pid}")

    def back() -> bool:
        new, state = box.main_process(UNIT)
        return new not in ("0", pid) and state == "active"

    took = box.wait_until(back, "a new daemon after the watchdog", 120)
    print(f"box: watchdog restart {took:.1f} s after SIGSTOP")
    assert int(box.show(UNIT, "NRestarts")) == restarts + 1
    assert "Watchdog timeout" in box.sh("journalctl --no-pager -o cat").stdout
    box.publish("plant/line1/estop", {"station": "station six", "id": "box-watchdog"})
    reports.until(spoken("box-watchdog"))


def test_stop_saves_the_unsaid_alerts_and_the_next_start_says_each_once(box, reports):
    # The box's sound device takes audio as fast as it comes (a file), so what is left unsaid
    # at the stop is what synthesis has not reached: enough long alerts, in one publish, that
    # a fast CPU has not said them all when the first one's report arrives (five did not).
    ids = [f"box-stop-{n}" for n in range(40)]
    since = f"--since=@{box.sh('date +%s').stdout.strip()}"
    words = "the line is stopped, check the guard. " * 3
    # Critical, each said even if the tests before left the shared service in a flood.
    alerts = [{"text": f"Long alert {n}: {words}", "id": n, "priority": "critical"} for n in ids]
    lines = [json.dumps(alert) for alert in alerts]
    box.write("/root/stop-alerts", "\n".join(lines) + "\n")
    box.sh("mosquitto_pub -q 1 -t cosyedge/say -l < /root/stop-alerts")
    reports.until(spoken(ids[0]))
    started = time.monotonic()
    box.sh(f"systemctl stop {UNIT}")
    took = time.monotonic() - started
    print(f"box: stop took {took:.2f} s")
    assert took < 20  # TimeoutStopSec: a stop is never a kill
    assert box.show(UNIT, "Result") == "success"
    # journald takes the service's last lines from its stream after the stop has returned.
    saved = "unsaid alerts saved for the next start"
    try:
        box.wait_until(lambda: saved in journal(box, since), "the save logged", 10)
        print("box:", *(s for s in journal(box, since).splitlines() if saved in s))
    except AssertionError:
        print(journal(box, since), *reports.seen, sep="\n")  # whole: pytest cuts its message
        raise
    box.sh(f"systemctl start {UNIT}")
    for alert_id in ids:
        reports.until(spoken(alert_id), timeout=120)
    for alert_id in ids:
        said = [r for r in reports.seen if r.get("id") == alert_id]
        assert [r["outcome"] for r in said] == ["spoken"], (said, journal(box))


def test_an_upgrade_over_the_running_service_loses_nothing(box, reports):
    """The service restarted with Wyoming enabled and its package taken out of the venv runs
    degraded, saying so, and check names the command that reinstalls the package (as root:
    without sudo, from where the .deb is). Run as said, it is the upgrade: alerts keep coming
    while dpkg unpacks over the running service and restarts it, and each ends in one outcome
    (critical ones are spoken even in a flood); the package is whole again after it."""
    original = box.read(CONFIG)
    box.write("/root/wyoming-on.yaml", original + WYOMING_ON)
    events = Subscription(box, "cosyedge/event")
    box.sh(f"mv {SITE}/wyoming /root/wyoming-taken")
    upgraded = False
    try:
        restart_on(box, reports, events, original + WYOMING_ON, "wyoming")
        # The shipped file back first: dpkg would ask about a changed conffile.
        box.write(CONFIG, original)
        told = box.sh("cosyedge check --config /root/wyoming-on.yaml").stdout
        hint = f"sudo apt install --reinstall ./{Path(box.deb).name} (the package ships it)"
        needs = "wyoming.enabled: the Wyoming server needs the wyoming package: "
        assert f"would start without wyoming: {needs}{hint}" in told, told
        command = hint.removeprefix("sudo ").partition(" (")[0]
        pid = box.running_pid(UNIT)
        upgrade = subprocess.Popen(
            ["bash", str(box.script), "run", "sh", "-c", f"cd /root && {command} -y"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=box.env,
        )
        ids = []
        while upgrade.poll() is None or len(ids) < 3:  # before, during and after the restart
            ids.append(f"box-upgrade-{len(ids)}")
            box.publish("plant/line1/estop", {"station": str(len(ids)), "id": ids[-1]})
            time.sleep(0.5)
        assert upgrade.returncode == 0, upgrade.stdout.read()
        upgraded = True
    finally:
        events.close()
        if not upgraded:  # stopped on the way: the service put back for the tests after
            box.run("sh", "-c", f"[ -d {SITE}/wyoming ] || mv /root/wyoming-taken {SITE}/wyoming")
            box.write(CONFIG, original)
            box.sh(f"systemctl restart {UNIT}")
    assert box.show(UNIT, "MainPID") != pid
    print(f"box: {len(ids)} alerts published across the upgrade")
    for alert_id in ids:
        reports.until(spoken(alert_id), timeout=180)
    for alert_id in ids:
        assert [r["outcome"] for r in reports.seen if r.get("id") == alert_id] == ["spoken"]
    checked = box.sh("cosyedge check --config /root/wyoming-on.yaml").stdout
    assert "would start without" not in checked, checked
    box.running_pid(UNIT)  # restarted by the package on the shipped file
    assert "degraded" not in box.show(UNIT, "StatusText")


def test_cache_commands_run_as_root_leave_the_service_a_cache_it_can_read(box, reports):
    """`cosyedge say`, `warm` and `cache export`/`import` as root, as the docs show them:
    what they add belongs to the service user, and the service serves it from the cache."""
    phrase = "Root put this phrase in the cache."
    box.sh(f"cosyedge say --config {CONFIG} --out /tmp/root.wav '{phrase}'")
    box.sh(f"cosyedge warm --config {CONFIG}")
    box.sh(f"cosyedge cache export --config {CONFIG} /tmp/cache.tar")
    box.sh(f"cosyedge cache import --config {CONFIG} /tmp/cache.tar")
    foreign = box.sh("find /var/cache/cosyedge ! -user cosyedge").stdout
    assert foreign == "", foreign
    # Critical: the box's service is shared by these tests, and on a slow machine the upgrade
    # before this one publishes more than the flood's 10 alerts in 10 minutes; a medium
    # alert is then summarized, a critical one still said (from the cache).
    box.publish("cosyedge/say", {"text": phrase, "id": "box-root", "priority": "critical"})
    reports.until(spoken("box-root"))
    assert "spoke alert box-root source=cache" in journal(box, "-n 50")


def test_operator_commands_as_root_read_what_the_service_keeps(box, reports):
    """As root, with `--config /etc/cosyedge/cosyedge.yaml` and with no argument at all, the
    operator's commands report on the service's own history, cache and configuration, and
    say which file they read without `--config`; so they do on a file written before it named
    `state_dir` (an edited conffile keeps its own text across upgrades). What they add to the
    service's directories belongs to the service user."""
    box.publish("plant/line1/estop", {"station": "station eight", "id": "box-operator"})
    reports.until(spoken("box-operator"))
    original = box.read(CONFIG)
    older = original.replace("\nstate_dir: /var/lib/cosyedge\n", "\n")
    assert older != original, "the packaged file names the service's state_dir"
    # Each command with and without `--config`, on each file: each half of the commands is
    # given `--config` on one file and nothing on the other (2 runs a command, not 4: with
    # or without it, the file is read by one loader).
    given = ("--config", CONFIG)
    runs = [(original, 0, given), (original, 1, ()), (older, 0, ()), (older, 1, given)]
    try:
        for text, half, way in runs:
            box.write(CONFIG, text)
            operator_commands(box, way, half)
    finally:
        box.write(CONFIG, original)
    foreign = box.sh("find /var/lib/cosyedge /var/cache/cosyedge ! -user cosyedge").stdout
    assert foreign == "", foreign


def operator_commands(box: Box, given: tuple[str, ...], half: int) -> None:
    """Half the commands (0: the first four, 1: the other three) as root with `given`
    (`--config FILE` or nothing): each sees the service's."""
    told = f"cosyedge: no --config given: reading {CONFIG}"

    def run(*args: str) -> str:
        done = box.run("cosyedge", *args, *given, timeout=300)
        assert done.returncode == 0, (args, given, done.stdout, done.stderr)
        assert (told in done.stderr) == (not given), (args, given, done.stderr)
        return done.stdout

    if half == 0:
        kpi = json.loads(run("report", "kpi", "--since", "1h", "--format", "json"))
        assert kpi["alarms"] >= 1, kpi
        audit = json.loads(run("report", "audit", "--since", "1h", "--format", "json"))
        assert any(fact["e"] == "start" for fact in audit), audit
        assert run("check").startswith(f"{CONFIG}: OK")
        stats = run("cache", "stats")
        assert "cache      /var/cache/cosyedge\n" in stats, stats
        assert not re.search(r"^entries +0 ", stats, re.MULTILINE), stats
    else:
        assert "[en] engine: hibari" in run("voice", "info")
        assert json.loads(run("read", "Gate one is open.", "--json"))["cache_key"]
        assert run("warm").splitlines()[-1].startswith("warm: ")


def test_say_without_a_sound_device_exits_1_saying_so(box):
    """ALSA's default pointed at a card the box does not have: a clear refusal, no abort."""
    box.write("/etc/asound.conf", "pcm.!default { type hw; card 99 }\n")
    try:
        done = box.run("cosyedge", "say", "--config", CONFIG, "Is anyone there?")
    finally:
        box.write("/etc/asound.conf", ASOUND_CONF)
    assert done.returncode == 1, done.stderr
    assert "nothing was played, no sound device" in done.stderr
    assert "terminate called" not in done.stderr


def retained(box: Box, *topics: str) -> str:
    """The retained messages a client subscribing to `topics` now gets, one a line."""
    filters = " ".join(f"-t '{t}'" for t in topics)
    return box.run("sh", "-c", f"mosquitto_sub {filters} -v --retained-only -W 3").stdout


def test_remove_takes_the_device_off_the_broker_and_purge_leaves_nothing(box):
    """With Home Assistant's discovery on, `dpkg -r` leaves nothing retained under the
    discovery prefix, nor the status; `dpkg -P` leaves nothing of cosyedge in /etc, the
    secrets the guides have the operator put there included."""
    # Nothing routine (stops, reloads, the upgrade) was logged as a lost connection.
    assert "MQTT connection lost" not in journal(box)
    box.write(CONFIG, box.read(CONFIG) + "homeassistant:\n  discovery: true\n")
    box.sh(f"systemctl reload {UNIT}")
    box.sh("mosquitto_sub -t 'homeassistant/#' -C 8 -W 30 >/dev/null")  # 8 configs, retained
    assert retained(box, "cosyedge/status")
    for secret in ("mqtt-password", "http-token"):
        box.sh(f"install -m 640 -g cosyedge /dev/null /etc/cosyedge/{secret}")
        box.write(f"/etc/cosyedge/{secret}", "secret\n")
    removed = box.sh("dpkg -r cosyedge", timeout=300)
    assert "withdrew from 127.0.0.1:1883: 8 Home Assistant discovery configs and the status" in (
        removed.stdout
    ), removed.stdout + removed.stderr
    assert retained(box, "homeassistant/#", "cosyedge/#") == ""
    assert box.show(UNIT, "ActiveState") == "inactive"
    assert box.sh("test -e /opt/cosyedge || echo gone").stdout.strip() == "gone"
    assert box.read(CONFIG)  # a conffile outlives remove
    box.sh("dpkg -P cosyedge", timeout=300)
    for gone in ("/var/lib/cosyedge", "/var/cache/cosyedge"):
        assert box.sh(f"test -e {gone} || echo gone").stdout.strip() == "gone", gone
    left = box.sh("find /etc -name '*cosyedge*'").stdout
    assert left == "", left
    assert box.show("mosquitto.service", "ActiveState") == "active"
