"""One state, shown five ways: for every fault the daemon can be made to raise here, `/healthz`,
`/v1/status`, `/metrics`, systemd's STATUS and the retained status on MQTT say the same, while
it lasts and once it is over, because each is a rendering of the daemon's one snapshot.

The real daemon against a real Mosquitto, its sound on an ALSA file sink, its I/O failed by
the fault plan (cosyedge/faults.py) and its STATUS read from a stand-in notification socket.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from support import (
    Broker,
    Listener,
    NotifySocket,
    SwappableSink,
    free_port,
    publish,
    site_yaml,
    wait_until,
)
from support import Daemon as Process

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.health import STARTING, state_of
from cosyedge.alarms.policy import AlarmPolicy
from cosyedge.alarms.snapshot import Snapshot, problems, status_line, status_report
from cosyedge.config import ReportsConfig, parse_config
from cosyedge.faults import Faults, write_plan
from cosyedge.http.metrics import Metrics
from cosyedge.intake.door import Door
from cosyedge.journal import Journal
from cosyedge.mqtt.link import CONNECTION_GRACE_S, Link
from cosyedge.mqtt.reports import OVERDUE_S, Reporter
from cosyedge.observe import Observer

STATUS = "cosyedge/status"
SHOWN_S = 60  # generous: the longest wait before a fault shows is its grace period, 10 s
# Short canary rounds, for the fault `intake` only: elsewhere a canary timeout would add it.
CANARIES = "monitor:\n  canary_interval_s: 1\n  canary_timeout_s: 3\n"
OPEN = "topic readwrite #\n"
NO_CANARY = "".join(
    f"topic readwrite cosyedge/{t}\n"
    for t in ("say", "report", "event", "error", "status", "command")
)


def get(port: int, path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read()


def fault_metrics(port: int) -> set[str]:
    status, raw = get(port, "/metrics")
    assert status == 200
    return {
        s.labels["fault"]
        for family in text_string_to_metric_families(raw.decode())
        for s in family.samples
        if s.name == "cosyedge_fault" and s.value == 1
    }


# -- the renderings of one snapshot ---------------------------------------------------------


def snapshot(faults: dict[str, str], starting: str = "") -> Snapshot:
    """A snapshot with these faults, and the phase `starting` among them when `starting`
    says what the start waits for; the desk's part of it (`status`) says all is well, as it
    may have a moment before the fault set changed: the renderings go by `faults` alone."""
    desk = {"state": "online", "queue": 0, "faults": {}}
    phase = {STARTING: starting} if starting else {}
    return Snapshot(
        0, 1, 1, 1, 1, 100.0, 512.0, True, False, 0,
        faults={**faults, **phase}, status=desk, audio="ok", memory="ok", last="",
    )  # fmt: skip


SEVERAL = {
    "connection": "not connected to the broker at localhost:1883 for over 10 s",
    "journal": "journal /var/lib/cosyedge/journal.jsonl: cannot write (EROFS); alerts are "
    "spoken but not acknowledged",
}


@pytest.mark.parametrize("faults", [{}, {"audio": "sound device unavailable"}, SEVERAL])
@pytest.mark.parametrize(
    "starting", ["", "loading voices", "loading voices; waiting for the MQTT broker at h:1883"]
)
def test_every_rendering_of_one_snapshot_names_the_same_faults(faults, starting):
    """While starting, no rendering says all is well: the state is `starting` (`degraded`
    with a fault beside it), /healthz names the phase, STATUS says what the start waits for
    without calling it a fault, the metrics count it."""
    s = snapshot(faults, starting)
    report = status_report(s)
    shown = {**faults, STARTING: starting} if starting else faults
    state = "degraded" if faults else ("starting" if starting else "online")
    assert (report["state"], report["faults"]) == (state, shown)
    assert problems(s) == [f"{name}: {reason}" for name, reason in shown.items()]
    line = status_line(s)
    assert line.startswith("degraded: ") == bool(faults)
    assert all(f"{name}: {reason}" in line for name, reason in faults.items())
    assert (f"starting: {starting}" in line) == bool(starting)
    assert line.count("starting:") == bool(starting)
    scraped = Metrics(lambda: s).text().decode()
    assert set(shown) == set(re.findall(r'^cosyedge_fault\{fault="([^"]+)"\} 1', scraped, re.M))


class Troubles(Observer):
    def __init__(self) -> None:
        self.told: list[tuple[str, str | None]] = []

    def trouble(self, part: str, reason: str | None) -> None:
        self.told.append((part, reason))


def test_reports_the_broker_has_not_acknowledged_for_overdue_s_are_a_fault_until_it_does(
    tmp_path,
):
    now = [1000.0]
    journal = Journal(tmp_path / "journal.jsonl", 60)
    journal.open()
    ids = iter(range(1, 1000))
    troubles = Troubles()
    reporter = Reporter(
        ReportsConfig(), lambda *_: next(ids), journal, troubles, clock=lambda: now[0]
    )
    try:
        reporter.send(7, [("cosyedge/report", '{"seq": 7}')])  # message id 1, not acknowledged
        now[0] += OVERDUE_S - 0.5
        reporter.confirm()
        assert troubles.told == []  # a broker that takes a while is no fault yet
        now[0] += 1
        reporter.confirm()
        late = f"outcome reports not acknowledged by the broker for over {OVERDUE_S:g} s"
        assert troubles.told == [("reports", late)]
        reporter.send(8, [("cosyedge/report", '{"seq": 8}')])  # a newer one does not hide it
        reporter.confirm()
        assert troubles.told == [("reports", late)]
        reporter.published(1)
        reporter.confirm()  # 7 delivered, 8 not overdue yet
        assert troubles.told == [("reports", late), ("reports", None)]
        assert reporter.unconfirmed() == 1
        now[0] += OVERDUE_S
        reporter.confirm()
        assert troubles.told[-1] == ("reports", late)
        reporter.published(2)
        reporter.confirm()
        assert troubles.told[-1] == ("reports", None) and reporter.unconfirmed() == 0
    finally:
        journal.stop()


class Retained:
    """The broker's retained status: what each publish on the status topic leaves there."""

    def __init__(self) -> None:
        self.statuses: list[dict] = []

    def publish(self, topic: str, payload: str, retain: bool = False) -> int:
        if retain:
            self.statuses.append(json.loads(payload))
        return 1


@pytest.mark.parametrize("fault_first", [False, True])
def test_a_status_read_before_another_is_never_published_after_it(tmp_path, fault_first):
    """Two threads tell the status at once: the clock (or a connection) reads it, then is
    held up while a fault begins and its status is published. The retained status must be
    the later one, `degraded`, never the `online` read before the fault (and, a fault ending
    instead, never the fault read before its end)."""
    import threading

    journal = Journal(tmp_path / "journal.jsonl", 60)
    retained, release, reading = Retained(), threading.Event(), threading.Event()
    slow = threading.current_thread

    def detail() -> dict:
        if slow().name == "slow-teller":
            reading.set()
            release.wait(10)
        return {}

    reporter = Reporter(ReportsConfig(), retained.publish, journal, status_detail=detail)
    reporter.connected()
    desk = AlarmDesk(AlarmPolicy(parse_config("").alarms), reporter, journal)
    if fault_first:
        desk.health.fault("journal", "cannot write")
    teller = threading.Thread(target=desk.publish_status, name="slow-teller")
    teller.start()
    assert reading.wait(10)
    if fault_first:
        desk.health.clear("journal")
    else:
        desk.health.fault("journal", "cannot write")
    desk.publish_status()
    release.set()
    teller.join(10)
    assert retained.statuses[-1]["state"] == ("online" if fault_first else "degraded")


def test_the_link_is_the_fault_connection_once_the_broker_is_gone_for_its_grace_period(
    broker, tmp_path
):
    """A hiccup shorter than CONNECTION_GRACE_S is no fault; the monitor's clock is given."""
    config = parse_config(site_yaml(broker.port, tmp_path))
    journal = Journal(tmp_path / "journal.jsonl", 60)
    reporter = Reporter(config.reports, lambda *_: None, journal)
    desk = AlarmDesk(AlarmPolicy(config.alarms), reporter, journal)
    link = Link(config, Door(config, journal, desk), Observer(), Faults())
    link.start()
    try:
        wait_until(lambda: link.session.connected, 30, "the connection")
        assert link.tick(0.0)["connection"] is None
        broker.kill()
        wait_until(lambda: not link.session.connected, 30, "the connection lost")
        lost = 1000.0
        assert link.tick(lost)["connection"] is None
        assert link.tick(lost + CONNECTION_GRACE_S - 0.5)["connection"] is None
        assert link.tick(lost + CONNECTION_GRACE_S)["connection"] == (
            f"not connected to the broker at 127.0.0.1:{broker.port} for over 10 s"
        )
        broker.start()
        wait_until(lambda: link.session.connected, 60, "the connection again")
        assert link.tick(lost + 100)["connection"] is None
    finally:
        link.stop()


# -- the daemon's renderings ------------------------------------------------------------------


@dataclass
class View:
    """What every rendering said, read one after the other between two reads of
    `/v1/status` that found the same faults (so the reading spans no change of state)."""

    status: dict[str, Any]  # /v1/status
    health_code: int
    health: dict[str, Any]
    metric_faults: set[str]
    line: str  # the last STATUS sent to systemd
    retained: dict[str, Any] | None  # the last retained status; None: not asked for
    stable: bool

    @property
    def faults(self) -> dict[str, str]:
        return self.status["faults"]

    def disagreements(self) -> list[str]:
        """Where a rendering says otherwise than `/v1/status`'s faults; none when all agree."""
        faults, found = self.faults, []
        state = state_of(faults)
        if self.status["state"] != state:
            found.append(f"/v1/status: state {self.status['state']} with faults {faults}")
        healthy = {"healthy": not faults, "problems": [f"{n}: {r}" for n, r in faults.items()]}
        if (self.health_code, self.health) != (503 if faults else 200, healthy):
            found.append(f"/healthz: {self.health_code} {self.health}")
        if self.metric_faults != set(faults):
            found.append(f"/metrics: cosyedge_fault {sorted(self.metric_faults)}")
        told = all(f"{n}: {r}" in self.line for n, r in faults.items())
        if self.line.startswith("degraded: ") != (state == "degraded") or not told:
            found.append(f"STATUS: {self.line}")
        if self.retained is not None and (
            self.retained.get("state"),
            self.retained.get("faults"),
        ) != (state, faults):
            found.append(f"retained status: {self.retained}")
        return found


@dataclass
class Renderings:
    """The daemon's renderings as its users read them."""

    http_port: int
    notify: NotifySocket
    listener: Listener | None  # None: the retained status is not read
    retained: bool = True  # whether the retained status can be published now

    def read(self) -> View:
        before = json.loads(get(self.http_port, "/v1/status")[1])
        code, health = get(self.http_port, "/healthz")
        metric_faults = fault_metrics(self.http_port)
        lines = self.notify.statuses()
        heard = self.listener.on(STATUS) if self.listener is not None else []
        statuses = [s for s in heard if isinstance(s, dict)]
        after = json.loads(get(self.http_port, "/v1/status")[1])
        return View(
            after,
            code,
            json.loads(health),
            metric_faults,
            lines[-1] if lines else "",
            (statuses[-1] if statuses else {}) if self.retained and self.listener else None,
            before["faults"] == after["faults"],
        )

    def agree(self, want: Callable[[dict[str, str]], bool], what: str) -> dict[str, str]:
        """Wait until `/v1/status`'s faults are as `want`, and every rendering says the same;
        the faults. A reading across a change of state is taken again, and so is one where
        STATUS or the retained status have not followed yet (the monitor sends STATUS at its
        next tick, 0.5 s): a rendering that keeps saying otherwise fails the test."""
        deadline = time.monotonic() + SHOWN_S
        last: list[str] = []
        while time.monotonic() < deadline:
            view = self.read()
            last = view.disagreements()
            if view.stable and want(view.faults) and not last:
                return view.faults
            time.sleep(0.25)
        raise AssertionError(f"waiting for {what}: renderings disagree: {last} ({view})")


@dataclass
class Case:
    """A fault as it is made and mended, and the faults it shows while it lasts. `provoke`
    and `mend` take the test's parts; after `mend` every fault must clear."""

    shows: frozenset[str]
    provoke: Callable[[Parts], None]
    mend: Callable[[Parts], None]
    retained_meanwhile: bool = True  # False: the retained status cannot go out while it lasts
    config: str = ""
    acl: bool = False  # a broker whose ACL the case changes


@dataclass
class Parts:
    broker: Broker
    daemon: Process
    plan: Path
    sink: SwappableSink
    http_port: int
    broken_voice: Path

    def say(self, text: str, http: bool = False) -> None:
        """An alert on the say topic, or through the HTTP API (which takes alerts while the
        broker is down, and answers once the journal has them)."""
        body = json.dumps({"text": text})
        if not http:
            publish(self.broker.port, "cosyedge/say", body)
            return
        url = f"http://127.0.0.1:{self.http_port}/v1/say"
        headers = {"Content-Type": "application/json"}
        request = urllib.request.Request(url, body.encode(), headers, method="POST")
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status == 202


def _plan(plan: dict) -> Callable[[Parts], None]:
    return lambda p: write_plan(p.plan, plan)


def _then_say(first: Callable[[Parts], None], text: str) -> Callable[[Parts], None]:
    def both(p: Parts) -> None:
        first(p)
        p.say(text)

    return both


CASES = {
    "broker down, reports waiting": Case(
        frozenset({"connection", "reports"}),
        lambda p: (p.broker.kill(), p.say("The broker has gone.", http=True)),
        lambda p: p.broker.start(),
        retained_meanwhile=False,
    ),
    "reports cannot be published": Case(
        frozenset({"reports"}),
        _then_say(_plan({"mqtt.publish": {"errno": "EIO"}}), "Reports go nowhere."),
        _plan({}),
        retained_meanwhile=False,
    ),
    "sound device failing": Case(
        frozenset({"audio"}),
        _then_say(lambda p: p.sink.break_it("card unplugged"), "Conveyor one has stopped."),
        lambda p: p.sink.restore("card unplugged"),
    ),
    "journal cannot write": Case(
        frozenset({"journal"}),
        _then_say(
            _plan({s: {"errno": "EROFS"} for s in ("journal.write", "journal.compact")}),
            "Valve seven is open.",
        ),
        _plan({}),
    ),
    "cache cannot write": Case(
        frozenset({"cache"}),
        _then_say(_plan({"cache.write": {"errno": "EROFS"}}), "Tank four is nearly empty."),
        _then_say(_plan({}), "Tank five is nearly empty."),
    ),
    "history cannot write": Case(
        frozenset({"history"}),
        _then_say(_plan({"history.write": {"errno": "EIO"}}), "Mixer two is overloaded."),
        _then_say(_plan({}), "Mixer three is overloaded."),
    ),
    "announcer stuck": Case(
        frozenset({"announcer-stuck"}),
        _then_say(
            _plan({"speech.render": {"hang": 20, "match": "furnace", "times": 1}}),
            "The furnace door is open.",
        ),
        lambda p: None,  # the hang ends by itself
        config="monitor:\n  stuck_s: 5\n",
    ),
    "voice failing": Case(
        frozenset({"voice"}),
        _then_say(lambda p: p.broken_voice.touch(), "二号泵压力过高。"),
        _then_say(lambda p: p.broken_voice.unlink(), "三号泵正常。"),
    ),
    "broker stops delivering": Case(
        frozenset({"intake"}),
        lambda p: p.broker.set_acl(NO_CANARY),
        lambda p: p.broker.set_acl(OPEN),
        config=CANARIES,
        acl=True,
    ),
}


def espeak_shim(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """espeak-ng, the Mandarin voice's engine, failing while the file returned exists."""
    broken, shims = tmp_path / "espeak-broken", tmp_path / "bin"
    shims.mkdir()
    espeak = shims / "espeak-ng"
    espeak.write_text(
        f'#!/bin/sh\nif [ -e {broken} ]; then echo "cannot open voice" >&2; exit 1; fi\n'
        'exec /usr/bin/espeak-ng "$@"\n'
    )
    espeak.chmod(0o755)
    return {"PATH": f"{shims}:{os.environ['PATH']}"}, broken


# The cases that need nothing of their own run one after another on one daemon (each starting
# from every rendering saying all is well, as the one before left it); those with a config or
# an ACL of their own, each on its own daemon.
ALONE = [name for name, case in CASES.items() if case.config or case.acl]
GROUPS = {"one fault after another": [name for name in CASES if name not in ALONE]}
GROUPS |= {name: [name] for name in ALONE}


@pytest.mark.parametrize("group", list(GROUPS))
def test_every_rendering_says_the_same_while_a_fault_lasts_and_after(
    group, tmp_path, make_daemon, notify_socket
):
    cases = [CASES[name] for name in GROUPS[group]]
    acl = any(case.acl for case in cases)
    broker = Broker(tmp_path / "broker", acl=OPEN if acl else None).start()
    sink = SwappableSink(tmp_path / "sound")
    plan = tmp_path / "faults.json"
    write_plan(plan, {})
    shim, broken_voice = espeak_shim(tmp_path)
    http_port = free_port()
    config = (
        site_yaml(broker.port, tmp_path)
        + "".join({case.config for case in cases})
        + f"http:\n  enabled: true\n  listen: 127.0.0.1:{http_port}\n"
    )
    env = {**sink.env, **notify_socket.env(), **shim, "COSYEDGE_FAULTS": str(plan)}
    # Persistent: what the daemon publishes as the broker comes back reaches us too.
    listener = Listener(broker.port, STATUS, persistent=True)
    daemon = make_daemon(config, env=env)
    daemon.wait_for_log(r"cosyedge\.daemon: ready", timeout=60)
    parts = Parts(broker, daemon, plan, sink, http_port, broken_voice)
    renderings = Renderings(http_port, notify_socket, listener)
    try:
        for name in GROUPS[group]:
            made_and_mended(name, CASES[name], parts, renderings, listener)
        # And no retained status ever said one thing in its state and another in its faults.
        statuses = [s for s in listener.on(STATUS) if isinstance(s, dict)]
        torn = [s for s in statuses if s["state"] != state_of(s.get("faults", {}))]
        assert not torn, torn
    finally:
        listener.close()
        daemon.stop()
        broker.kill()


def made_and_mended(
    name: str, case: Case, parts: Parts, renderings: Renderings, listener: Listener
) -> None:
    """All well; the fault made: every rendering shows it; mended: every one clears it, and
    the retained status, once it could go out again, said what had been wrong."""
    renderings.retained = True
    assert renderings.agree(lambda f: not f, f"all well before {name}") == {}

    case.provoke(parts)
    renderings.retained = case.retained_meanwhile
    renderings.agree(lambda _: True, f"the first reading with {name}")
    faults = renderings.agree(lambda f: case.shows <= f.keys(), f"{name}: {sorted(case.shows)}")
    seen = len(listener.on(STATUS))

    case.mend(parts)
    renderings.retained = True
    assert renderings.agree(lambda f: not f, f"every fault cleared after {name}") == {}
    if not case.retained_meanwhile:
        after = [s for s in listener.on(STATUS)[seen:] if isinstance(s, dict)]
        told = [s for s in after if case.shows <= s.get("faults", {}).keys()]
        assert told, f"no retained status after {name} named {sorted(faults)}: {after}"


def answers(port: int) -> bool:
    try:
        return get(port, "/healthz")[0] > 0
    except OSError:  # not listening yet
        return False


def test_a_start_without_the_broker_shows_the_fault_connection_alike_everywhere(
    tmp_path, make_daemon, notify_socket
):
    broker = Broker(tmp_path / "broker")  # not started yet: the daemon waits for it
    http_port = free_port()
    config = site_yaml(broker.port, tmp_path) + (
        f"http:\n  enabled: true\n  listen: 127.0.0.1:{http_port}\n"
    )
    daemon = make_daemon(config, env=notify_socket.env(), start=False)
    daemon.start(wait_ready=False)
    try:
        wait_until(lambda: answers(http_port), 60, "the HTTP API")
        renderings = Renderings(http_port, notify_socket, None)
        faults = renderings.agree(lambda f: "connection" in f, "the fault connection")
        waiting = f"starting: waiting for the MQTT broker at 127.0.0.1:{broker.port}"
        line = notify_socket.statuses()[-1]
        assert line == f"degraded: connection: {faults['connection']}; {waiting}", line
        broker.start()
        daemon.wait_for_log(r"cosyedge\.daemon: ready", timeout=60)
        assert renderings.agree(lambda f: not f, "the fault cleared once connected") == {}
    finally:
        daemon.stop()
        broker.kill()
