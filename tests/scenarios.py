"""Fault scenarios against the real daemon, a real Mosquitto and the ALSA capture sink.

Each scenario publishes a known set of alerts, does something unkind to the daemon or its
surroundings, and reads the report topic back: every alert sent must come out with exactly
one outcome (alerts in = outcomes out), and every outcome other than `spoken` must say why.
The same functions run CI-sized from tests/test_proving.py and full-sized from `scripts/prove`;
only the numbers in `SIZES` differ.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import random
import re
import shutil
import socket
import statistics
import string
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import paho.mqtt.client as mqtt
from opcua_support import ASYNCUA_SERVER, ServerProcess
from paho.mqtt.enums import CallbackAPIVersion
from support import REPO, Broker, Daemon, Listener, SwappableSink, fill, free_port, wait_until

REPORT = "cosyedge/report"
ACL_OPEN = "topic readwrite #\n"
# The broker keeps the daemon's connection but no longer delivers its canary.
ACL_NO_CANARY = "topic readwrite plant/#\n" + "".join(
    f"topic readwrite cosyedge/{t}\n" for t in ("report", "event", "error", "status", "command")
)
ALERT_TOPIC = "plant/{line}/alarm"
MB = 1 << 20

# CI: the whole set adds a few minutes; full: what the table in docs/measurements.md is made from.
SIZES: dict[str, dict] = {
    "ci": {
        "kill9": 12,
        "broker": 30,
        "broker_outage_s": 2,
        "device": 8,
        "device_outage_s": 3,
        "cache": 6,
        "malformed": 300,
        "valid_every": 20,
        "flood": 30,
        "zones": 80,
        "soak_s": 0,
        "per_fault": 3,
        "fault_s": 2,
        "poison": 2,
        "http": 40,
        "premium_phrases": 4,
        "hostile": 7,  # one of each kind
        "ordinary_per_hostile": 2,
        "opcua": 7,  # one before each kill, two while the daemon is down, three untouched
        "canary": "{canary_interval_s: 1, canary_timeout_s: 3, reannounce_s: 2}",
        "standby_kills": 2,  # the primary killed; one mid-announcement, one idle
        "standby_alerts": 24,
        "standby_normal": 30,  # with both running
        "standby_takeover_s": 5,
        "standby_gap_s": 0.2,
    },
    "full": {
        "kill9": 60,
        "broker": 300,
        "broker_outage_s": 5,
        "device": 40,
        "device_outage_s": 30,
        "cache": 30,
        "malformed": 10000,
        "valid_every": 20,
        "flood": 1000,
        "zones": 1000,
        "soak_s": 1800,
        "per_fault": 20,
        "fault_s": 20,
        "poison": 50,
        "http": 400,
        "premium_phrases": 200,
        "hostile": 42,  # six of each kind, with 84 of the shared set's 90 alerts between
        "ordinary_per_hostile": 2,
        "opcua": 100,
        "canary": "{}",  # the defaults: every 30 s, 75 s without one is a fault
        "standby_kills": 20,
        "standby_alerts": 1000,
        "standby_normal": 1000,
        "standby_takeover_s": 5,
        "standby_gap_s": 0.2,
    },
}

PRIORITY_MIX = ("medium", "medium", "low", "high", "medium", "critical")


def phrase(i: int) -> str:
    """Short alert texts from a small set, so most come from the phrase cache after a while."""
    return f"Pump {i % 7} on line {i % 3 + 1} has stopped."


def alert(tag: str, i: int, text: str | None = None, priority: str | None = None) -> tuple:
    payload = {
        "id": f"{tag}-{i}",
        "text": text or phrase(i),
        "priority": priority or PRIORITY_MIX[i % len(PRIORITY_MIX)],
    }
    return f"plant/{i % 5 + 1}/alarm", json.dumps(payload)


# -- the parts ----------------------------------------------------------------------------
class Publisher:
    """A QoS 1 publisher with a session the broker keeps: what it could not hand over while
    the broker was down, paho sends again after reconnecting."""

    def __init__(self, port: int) -> None:
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"prove-pub-{uuid.uuid4().hex[:8]}",
            clean_session=False,
        )
        client.max_inflight_messages_set(100)
        client.max_queued_messages_set(0)  # unbounded: nothing is dropped on our side
        client.reconnect_delay_set(1, 2)
        # Acknowledgements by message id: an info published while disconnected keeps its
        # "not connected" error even after paho has sent it again and the broker took it.
        self.acknowledged: set[int] = set()
        client.on_publish = lambda c, u, mid, *a: self.acknowledged.add(mid)
        client.connect("127.0.0.1", port)
        client.loop_start()
        self.client = client
        self.infos: list[mqtt.MQTTMessageInfo] = []

    def send(self, topic: str, payload: str | bytes) -> None:
        self.infos.append(self.client.publish(topic, payload, qos=1))

    def send_all(self, messages: list[tuple[str, str | bytes]], gap_s: float = 0.0) -> None:
        for topic, payload in messages:
            self.send(topic, payload)
            if gap_s:
                time.sleep(gap_s)

    def wait_acknowledged(self, timeout: float = 60) -> None:
        wait_until(
            lambda: all(i.mid in self.acknowledged for i in self.infos),
            timeout,
            f"the broker to acknowledge {len(self.infos)} publishes",
            interval=0.1,
        )

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class Probe:
    """Samples the daemon's resident memory from /proc every `interval` s, and its open files
    and threads at most every COUNT_EVERY_S (a sample carries the last counted), following it
    across restarts."""

    COUNT_EVERY_S = 0.2  # listing the open files is most of a sample's cost

    def __init__(self, lab: Lab, interval: float = 0.2) -> None:
        self.lab, self.interval = lab, interval
        self.samples: list[tuple[float, int, float, int, int]] = []  # t, pid, rss MB, fds, thr
        self.started = time.monotonic()  # what a sample's t counts from
        self._stop = threading.Event()
        self._counted: tuple[int, float, int, int] = (0, 0.0, 0, 0)  # pid, when, fds, threads
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        page_mb = os.sysconf("SC_PAGE_SIZE") / MB
        while not self._stop.wait(self.interval):
            daemon = self.lab.current
            if daemon is None or not daemon.alive():
                continue
            pid = daemon.process.pid
            try:
                with open(f"/proc/{pid}/statm", "rb") as f:
                    resident = int(f.read().split()[1])  # VmRSS, in pages
                fds, threads = self._counts(pid)
            except (OSError, IndexError, ValueError):
                continue
            if resident == 0:  # exiting: no memory left to speak of
                continue
            rss = resident * page_mb
            self.samples.append((time.monotonic() - self.started, pid, rss, fds, threads))

    def _counts(self, pid: int) -> tuple[int, int]:
        """The daemon's open files and threads, counted again once COUNT_EVERY_S passed."""
        counted_pid, when, fds, threads = self._counted
        now = time.monotonic()
        if pid != counted_pid or now - when >= self.COUNT_EVERY_S:
            fds = len(os.listdir(f"/proc/{pid}/fd"))
            with open(f"/proc/{pid}/stat", "rb") as f:
                threads = int(f.read().rsplit(b")", 1)[1].split()[17])  # num_threads
            self._counted = (pid, now, fds, threads)
        return fds, threads

    @property
    def peak_mb(self) -> float:
        return max((s[2] for s in self.samples), default=0.0)

    def peak_since(self, since: float) -> float:
        """The highest RSS sampled from `since` (time.monotonic()) on."""
        return max((s[2] for s in self.samples if s[0] >= since - self.started), default=0.0)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


class Lab:
    """One scenario's real parts: broker, swappable sound device, report listener, daemons."""

    def __init__(self, root: Path, acl: str | None = None, models: Path | None = None) -> None:
        """`models`: saved graphs and tables every daemon starts with (`support.seed_models`)."""
        self.root = root
        self.models = models
        root.mkdir(parents=True, exist_ok=True)
        self.broker = Broker(root / "broker", acl=acl).start()
        self.sink = SwappableSink(root / "sound")
        self.listener = Listener(self.broker.port, REPORT, persistent=True)
        self.daemons: list[Daemon] = []
        self.current: Daemon | None = None
        self.probe = Probe(self)

    def config(self, alarms: str = "", extra: str = "", cache_dir: Path | None = None) -> str:
        return f"""
mqtt:
  port: {self.broker.port}
  local_broker: false
  reconnect_max_s: 2
cache:
  dir: {cache_dir or self.root / "cache"}
state_dir: {self.root}/state
alarms:
{alarms or "  flood: {threshold: 100000, end_at: 0}"}
templates:
  - topic: "{ALERT_TOPIC}"
    text: "{{text}}"
    payload: json
{extra}
"""

    def daemon(
        self,
        config_text: str | None = None,
        preexec=None,
        start: bool = True,
        env: dict[str, str] | None = None,
    ) -> Daemon:
        directory = self.root / f"daemon{len(self.daemons)}"
        env = {**self.sink.env, "XDG_STATE_HOME": str(directory / "state-home"), **(env or {})}
        d = Daemon(directory, config_text or self.config(), env, preexec, self.models)
        self.daemons.append(d)
        self.current = d
        return d.start() if start else d

    def reports(self) -> list[dict]:
        """Reports by seq: one sent again after a crash (same seq) counts once."""
        by_seq: dict[int, dict] = {}
        for report in self.listener.on(REPORT):
            if isinstance(report, dict):
                by_seq.setdefault(report["seq"], report)
        return list(by_seq.values())

    def close(self) -> None:
        self.probe.stop()
        for d in self.daemons:
            d.stop()
        self.listener.close()
        self.broker.kill()


# -- the account ----------------------------------------------------------------------------
@dataclass
class Result:
    scenario: str
    sent: int
    spoken: int
    other: dict[str, int]
    lost: int
    recovery_s: float | None
    peak_rss_mb: float
    duration_s: float
    missing_reasons: int = 0  # outcomes other than spoken without a reason
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def tally(
    lab: Lab, name: str, ids: list[str], started: float, recovery_s: float | None, extra: int = 0
) -> Result:
    """One final outcome per alert id: a redelivered copy reported as `deduplicated` next to
    another outcome is at-least-once delivery doing its job, not an outcome of its own.
    `extra`: messages sent without an id (malformed ones), counted by their reports."""
    by_id: dict[str, list[dict]] = {}
    anonymous = []
    for report in lab.reports():
        if report.get("id") in ids:
            by_id.setdefault(report["id"], []).append(report)
        else:
            anonymous.append(report)
    final: list[dict] = []
    for ident in ids:
        reports = by_id.get(ident, [])
        kept = [r for r in reports if r["outcome"] != "deduplicated"] or reports[:1]
        final += kept[:1]
    final += anonymous[:extra]
    kinds = Counter(r["outcome"] for r in final)
    spoken_by_id = Counter(r["id"] for r in lab.reports() if r["outcome"] == "spoken")
    twice = sorted(i for i in ids if spoken_by_id[i] > 1)
    spoken = kinds.pop("spoken", 0)
    missing_reasons = sum(
        1
        for r in final
        if r["outcome"] not in ("spoken", "return_to_normal")
        and not (r.get("reason") or r.get("summary"))  # a summarized alert: the summary said
    )
    return Result(
        scenario=name,
        sent=len(ids) + extra,
        spoken=spoken,
        other=dict(sorted(kinds.items())),
        lost=len(ids) + extra - len(final),
        recovery_s=None if recovery_s is None else round(recovery_s, 2),
        peak_rss_mb=round(lab.probe.peak_mb, 1),
        duration_s=round(time.monotonic() - started, 1),
        missing_reasons=missing_reasons,
        notes=[f"{len(twice)} alerts spoken twice: {twice[:5]}"] if twice else [],
    )


def wait_for_ids(lab: Lab, ids: list[str], timeout: float, extra: int = 0) -> None:
    wanted = set(ids)

    def done() -> bool:
        reports = lab.reports()
        have = {r.get("id") for r in reports}
        return wanted <= have and len(reports) >= len(ids) + extra

    with contextlib.suppress(AssertionError):  # the account shows what is missing as lost
        wait_until(done, timeout, f"an outcome for each of {len(ids) + extra} alerts", 0.2)


def wait_for_said(lab: Lab, ids: list[str], timeout: float) -> None:
    """Until each of `ids` has its own outcome, not only a copy's (`deduplicated`, told at
    once, where the alert is told once said); the account then shows what is missing."""

    def done() -> bool:
        final = {r.get("id") for r in lab.reports() if r["outcome"] != "deduplicated"}
        return set(ids) <= final

    with contextlib.suppress(AssertionError):
        wait_until(done, timeout, f"an outcome of its own for each of {len(ids)} alerts", 0.2)


def time_to_next_report(lab: Lab, since_count: int, timeout: float) -> float | None:
    """Seconds until a report beyond the first `since_count` arrives (the first sign of life)."""
    start = time.monotonic()
    try:
        wait_until(lambda: len(lab.listener.on(REPORT)) > since_count, timeout, "a report", 0.05)
    except AssertionError:
        return None
    return time.monotonic() - start


# -- the scenarios ---------------------------------------------------------------------------
def kill9(lab: Lab, size: dict[str, float]) -> Result:
    """kill -9 of the daemon with alerts queued; more arrive while it is down; restart."""
    n = int(size["kill9"])
    started = time.monotonic()
    daemon = lab.daemon()
    publisher = Publisher(lab.broker.port)
    first = [alert("k", i) for i in range(n)]
    publisher.send_all(first)
    publisher.wait_acknowledged()
    wait_until(lambda: len(lab.reports()) >= n // 4, 120, "the first alerts to be spoken", 0.05)
    daemon.process.kill()
    daemon.process.wait()
    down = [alert("k", i) for i in range(n, n + n // 4)]
    publisher.send_all(down)
    publisher.wait_acknowledged()
    count = len(lab.listener.on(REPORT))
    daemon.start(wait_ready=False)
    recovery = time_to_next_report(lab, count, 120)
    ids = [json.loads(p)["id"] for _, p in first + down]
    wait_for_ids(lab, ids, 60 + n * 2)
    publisher.close()
    result = tally(lab, "kill -9 mid-queue, restart", ids, started, recovery)
    result.notes.append("recovery: restart to the first report")
    return result


def http_kill9(lab: Lab, size: dict[str, float]) -> Result:
    """kill -9 of the daemon while say requests to its HTTP API are in flight, from 4
    clients: after the restart every request answered 202 has its one outcome. A request
    refused or cut off was not taken; its client would send it again, so it is not counted."""
    n, port = int(size["http"]), free_port()
    started = time.monotonic()
    daemon = lab.daemon(lab.config(extra=f"http:\n  enabled: true\n  listen: 127.0.0.1:{port}"))
    accepted: list[str] = []
    senders = [
        threading.Thread(target=_say_all, args=(port, range(k, n, 4), accepted), daemon=True)
        for k in range(4)
    ]
    for sender in senders:
        sender.start()
    wait_until(lambda: len(accepted) >= n // 3, 120, "a third of the says accepted", 0.02)
    daemon.process.kill()
    daemon.process.wait()
    for sender in senders:
        sender.join(60)
    count = len(lab.listener.on(REPORT))
    daemon.start(wait_ready=False)
    recovery = time_to_next_report(lab, count, 120)
    ids = list(accepted)
    wait_for_ids(lab, ids, 60 + 2 * len(ids))
    result = tally(
        lab,
        f"kill -9 with HTTP says in flight ({len(ids)} of {n} accepted)",
        ids,
        started,
        recovery,
    )
    result.notes.append("recovery: restart to the first report")
    return result


def _say_all(port: int, numbers: range, accepted: list[str]) -> None:
    """POST each say in turn; the ids answered 202 go into `accepted`, the rest are dropped
    (the daemon is gone: refused, reset, or no answer)."""
    import http.client
    import urllib.request

    for i in numbers:
        body = json.dumps({"text": phrase(i), "id": f"h-{i}", "priority": "high"}).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/say", body, {"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                if answer.status == 202:
                    accepted.append(f"h-{i}")
        except (OSError, http.client.HTTPException):  # URLError is an OSError
            continue


def broker_crash(lab: Lab, size: dict[str, float]) -> Result:
    """kill -9 of Mosquitto (persistence on) while alerts are being published, then restart."""
    n, outage = int(size["broker"]), size["broker_outage_s"]
    started = time.monotonic()
    lab.daemon()
    publisher = Publisher(lab.broker.port)
    messages = [alert("b", i) for i in range(n)]
    sender = threading.Thread(target=publisher.send_all, args=(messages, 0.05), daemon=True)
    sender.start()
    wait_until(lambda: len(publisher.infos) >= n // 3, 60, "a third of the alerts sent")
    lab.broker.kill()
    time.sleep(outage)
    lab.broker.start()
    back = time.monotonic()
    resumed = lambda: "session resumed" in lab.current.log()  # noqa: E731
    wait_until(resumed, 30, "the daemon to resume its session")
    recovery = time.monotonic() - back
    sender.join()
    publisher.wait_acknowledged(120)
    ids = [json.loads(p)["id"] for _, p in messages]
    wait_for_ids(lab, ids, 60 + n)
    publisher.close()
    result = tally(lab, f"broker kill -9, {outage:g} s down", ids, started, recovery)
    result.notes.append("recovery: broker back to the daemon's session resumed")
    return result


def device_lost(lab: Lab, size: dict[str, float]) -> Result:
    """The sound device disappears for a while with alerts arriving, then comes back."""
    n, outage = int(size["device"]), size["device_outage_s"]
    started = time.monotonic()
    daemon = lab.daemon()
    publisher = Publisher(lab.broker.port)
    before = [alert("d", i) for i in range(n // 2)]
    publisher.send_all(before)
    wait_until(lambda: len(lab.reports()) >= len(before), 60 + n, "alerts before the loss", 0.1)
    lab.sink.break_it("card unplugged")
    during = [alert("d", i) for i in range(n // 2, n)]
    publisher.send_all(during)
    time.sleep(outage)
    count = len(lab.listener.on(REPORT))
    lab.sink.restore("card unplugged")
    recovery = time_to_next_report(lab, count, 60)
    ids = [json.loads(p)["id"] for _, p in before + during]
    wait_for_ids(lab, ids, 60 + n * 2)
    publisher.close()
    result = tally(lab, f"sound device gone {outage:g} s", ids, started, recovery)
    if "audio output device unavailable" not in daemon.log():
        result.notes.append("the daemon never noticed the device was gone")
    result.notes.append("recovery: device back to the first report")
    return result


def cache_damage(lab: Lab, size: dict[str, float]) -> Result:
    """Cached phrases damaged on disk between runs (truncated, garbage, emptied): each is
    noticed, dropped, and the alert spoken by synthesis instead."""
    n = int(size["cache"])
    started = time.monotonic()
    daemon = lab.daemon()
    publisher = Publisher(lab.broker.port)
    first = [alert("c", i, text=f"Valve {i} in hall {i % 4} is open.") for i in range(n)]
    publisher.send_all(first)
    wait_until(lambda: len(lab.reports()) >= n, 60 + 2 * n, "the phrases to be cached", 0.1)
    daemon.stop()
    damaged = sorted((lab.root / "cache").rglob("*.wav"))
    rng = random.Random(7)
    for i, path in enumerate(damaged):
        data = path.read_bytes()
        if i % 3 == 0:
            path.write_bytes(data[: len(data) // 2])
        elif i % 3 == 1:
            path.write_bytes(data[:44] + rng.randbytes(len(data) - 44))
        else:
            path.write_bytes(b"")
    daemon.start()
    count = len(lab.listener.on(REPORT))
    again = [
        alert("c", i, text=f"Valve {i - n} in hall {(i - n) % 4} is open.") for i in range(n, 2 * n)
    ]
    publisher.send_all(again)
    recovery = time_to_next_report(lab, count, 60)
    ids = [json.loads(p)["id"] for _, p in first + again]
    wait_for_ids(lab, ids, 60 + 2 * n)
    publisher.close()
    result = tally(lab, f"{len(damaged)} cache files damaged", ids, started, recovery)
    sources = Counter(r.get("source") for r in lab.reports() if r["id"] in ids[n:])
    result.notes.append(f"after the damage: {dict(sources)} (source of each spoken phrase)")
    if damaged and sources.get("cache", 0) >= len(damaged):
        result.notes.append("damaged files were played from the cache")
    return result


@contextlib.contextmanager
def tmpfs(lab: Lab, name: str, size: str) -> Iterator[Path]:
    """A small disk of its own (a tmpfs at lab.root/name), unmounted afterwards."""
    disk = lab.root / name
    disk.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise Unavailable(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def disk_full(lab: Lab, size: dict[str, float]) -> Result:
    """The phrase cache's disk (a 1 MiB tmpfs) is full: alerts are spoken by synthesis all the
    same, and caching resumes once space returns."""
    n = int(size["cache"])
    started = time.monotonic()
    with tmpfs(lab, "tiny", "1m") as disk:
        daemon = lab.daemon(lab.config(cache_dir=disk / "cache"))
        filler = fill(disk, 65536)
        publisher = Publisher(lab.broker.port)
        full = [alert("x", i, text=f"Crane {i} in bay {i % 3} is moving.") for i in range(n)]
        publisher.send_all(full)
        wait_until(lambda: len(lab.reports()) >= n, 60 + 3 * n, "alerts on a full disk", 0.1)
        count = len(lab.listener.on(REPORT))
        filler.unlink()
        freed = [
            alert("x", i, text=f"Crane {i} in bay {i % 3} is moving.") for i in range(n, 2 * n)
        ]
        publisher.send_all(freed)
        recovery = time_to_next_report(lab, count, 60)
        ids = [json.loads(p)["id"] for _, p in full + freed]
        wait_for_ids(lab, ids, 60 + 3 * n)
        publisher.close()
        result = tally(lab, "cache disk full", ids, started, recovery)
        log = daemon.log()
        if "No space left" not in log:
            result.notes.append("the full disk went unnoticed")
        if "writable again" in log:
            result.notes.append("caching resumed once space returned")
        result.notes.append("recovery: space freed to the first report")
        daemon.stop()
        return result


def model_damage(lab: Lab, size: dict[str, float]) -> Result:
    """The optimized graphs saved by the first start are damaged (a flipped byte, a torn
    write) before the second: each is detected, rebuilt from the source model, and the alerts
    are spoken."""
    n = int(size["cache"])
    started = time.monotonic()
    daemon = lab.daemon()
    daemon.stop()
    saved = sorted((lab.root / "state" / "models").glob("*.onnx"))
    if not saved:
        raise Unavailable("the voice saved no optimized model")
    for i, path in enumerate(saved):
        data = bytearray(path.read_bytes())
        if i % 2 == 0:
            data[len(data) // 2] ^= 0xFF
            path.write_bytes(bytes(data))
        else:
            path.write_bytes(bytes(data[: len(data) // 3]))
    restart = time.monotonic()
    daemon.start()
    publisher = Publisher(lab.broker.port)
    messages = [alert("o", i, text=f"Oven {i} in bay {i % 3} is hot.") for i in range(n)]
    publisher.send_all(messages)
    ids = [json.loads(p)["id"] for _, p in messages]
    wait_for_ids(lab, ids, 60 + 3 * n)
    publisher.close()
    result = tally(lab, f"{len(saved)} saved models damaged", ids, started, None)
    first = [r["end"] for r in lab.reports() if r.get("id") in ids and "end" in r]
    if first:  # restart (with rebuild) to the end of the first alert spoken
        wall_restart = time.time() - (time.monotonic() - restart)
        result.recovery_s = round(min(first) - wall_restart, 2)
        result.notes.append("recovery: restart, rebuild included, to the first alert spoken")
    rebuilt = daemon.log().count("is not usable")
    result.notes.append(f"{rebuilt} of {len(saved)} damaged models detected and rebuilt")
    return result


class Unavailable(Exception):
    """This machine cannot stage the scenario (e.g. no permission to mount)."""


# Payloads that must be rejected, each with a reason; `valid_every`-th message is a valid
# alert that must be spoken.
INJECTIONS = ("{0.__class__}", "{text.__init__.__globals__}", "{0[0]}", "%(text)s {{text}}")


def malformed_payload(rng: random.Random, i: int) -> bytes:
    kind = i % 10
    if kind == 0:  # broken JSON
        good = json.dumps({"id": f"m-{i}", "text": "x" * rng.randint(0, 50)})
        return good[: rng.randint(1, len(good) - 1)].encode()
    if kind == 1:  # invalid UTF-8
        return b'{"text": "' + rng.randbytes(8).replace(b'"', b"\xff") + b'\xff\xfe"}'
    if kind == 2:  # too large
        return json.dumps({"text": "A" * rng.randint(17000, 100000)}).encode()
    if kind == 3:  # nested deeper than the JSON parser goes
        depth = rng.randint(1000, 2500)  # within the size limit
        return ('{"a":' * depth + "1" + "}" * depth).encode()
    if kind == 4:  # nested but shallow: the text is not a plain value
        return json.dumps({"text": {"a": [1, {"b": None}]}, "id": f"m-{i}"}).encode()
    if kind == 5:  # wrong types for the text
        return json.dumps({"text": rng.choice([None, [], [1, 2], {}])}).encode()
    if kind == 6:  # wrong type or value for the time to live (0 is valid: never expires)
        ttl = rng.choice(["soon", -1, 10**400, "1e9x"])
        return json.dumps({"text": "ok", "ttl": ttl}).encode()
    if kind == 7:  # not an object
        return json.dumps(rng.choice([[1, 2], "text", 12, None, True])).encode()
    if kind == 8:  # empty or blank
        return rng.choice([b"", b"   ", b"\n\t", b'{"text": ""}', b'{"text": "   "}'])
    return json.dumps({"txt": rng.choice(INJECTIONS)}).encode()  # the field is missing


def malformed(lab: Lab, size: dict[str, float]) -> Result:
    """A stream of malformed payloads with valid alerts interleaved (some of them carrying
    format-string injection attempts as text, which must be spoken literally)."""
    n, every = int(size["malformed"]), int(size["valid_every"])
    started = time.monotonic()
    daemon = lab.daemon()
    publisher = Publisher(lab.broker.port)
    rng = random.Random(2024)
    ids, bad = [], 0
    for i in range(n):
        if i % every == 0:
            text = f"Check {INJECTIONS[i // every % len(INJECTIONS)]} now." if i % 40 else None
            topic, payload = alert("v", i, text=text)
            ids.append(f"v-{i}")
            publisher.send(topic, payload)
        else:
            payload = malformed_payload(rng, i)
            publisher.send(f"plant/{i % 5 + 1}/alarm", payload)
            # A message of no bytes is MQTT's way to clear a retained one: no alert, no report.
            bad += bool(payload)
    publisher.wait_acknowledged(120)
    wait_for_ids(lab, ids, 60 + n / 5 + len(ids) * 3, extra=bad)
    publisher.close()
    result = tally(lab, "malformed payloads", ids, started, None, extra=bad)
    rejected = [r for r in lab.reports() if r["outcome"] == "rejected"]
    reasons = Counter(re.sub(r"\d+", "N", r["reason"].split(":")[0])[:40] for r in rejected)
    result.notes.append(f"rejected: {len(rejected)} of {bad}; reasons: {dict(reasons)}")
    literal = [r for r in lab.reports() if r["outcome"] == "spoken" and "{" in r.get("text", "")]
    sent_texts = {f"Check {t} now." for t in INJECTIONS}
    if any(r["text"] not in sent_texts for r in literal):
        result.notes.append("an injection text was changed on its way")
    result.notes.append(f"{len(literal)} injection texts spoken literally")
    if "Traceback" in daemon.log():
        result.notes.append("a traceback in the daemon log")
    if not daemon.alive():
        result.notes.append("the daemon died")
    return result


def memory_flood(lab: Lab, size: dict[str, float]) -> Result:
    """A flood of unique long alerts under the memory ceiling and RLIMIT_DATA; the flood rules
    summarize, criticals are still spoken on their own."""
    from test_memory import CEILING_MB, limit_data, long_unique_text

    n = int(size["flood"])
    started = time.monotonic()
    alarms = "  flood: {threshold: 10, window_s: 600, end_at: 5, summary_interval_s: 5}"
    memory = f"memory:\n  ceiling_mb: {CEILING_MB}\nstate_dir:"
    text = lab.config(alarms=alarms).replace("state_dir:", memory)
    daemon = lab.daemon(text, preexec=limit_data((CEILING_MB + 150) * MB))
    ready, ready_at = memory_mb(daemon), time.monotonic()
    publisher = Publisher(lab.broker.port)
    messages = [alert("f", i, text=long_unique_text(i)) for i in range(n)]
    publisher.send_all(messages)
    publisher.wait_acknowledged(120)
    ids = [json.loads(p)["id"] for _, p in messages]
    wait_for_ids(lab, ids, 120 + n)
    publisher.close()
    result = tally(lab, f"flood of {n} long unique alerts", ids, started, None)
    result.notes.append(f"ceiling {CEILING_MB} MB, RLIMIT_DATA {CEILING_MB + 150} MB")
    # The peak counts the start too: what the flood adds is the peak after READY.
    result.notes.append(
        f"RSS at READY {ready['VmRSS']:.0f} MB, the start's own peak {ready['VmHWM']:.0f} MB, "
        f"the peak after READY {lab.probe.peak_since(ready_at):.0f} MB"
    )
    if not daemon.alive():
        result.notes.append("the daemon died")
    return result


def memory_mb(daemon: Daemon) -> dict[str, float]:
    """The daemon's VmRSS and VmHWM (its peak so far) now, in MB."""
    assert daemon.process is not None
    status = Path(f"/proc/{daemon.process.pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return {k: int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM")}


def soak(lab: Lab, size: dict[str, float]) -> Result:
    """Mixed traffic for a while (cached and new phrases, duplicates, malformed payloads,
    some floods) with RSS, open files and threads sampled every second."""
    duration = size["soak_s"]
    lab.probe.stop()
    lab.probe = Probe(lab, interval=1.0)
    started = time.monotonic()
    daemon = lab.daemon()
    publisher = Publisher(lab.broker.port)
    rng = random.Random(99)
    ids, bad, i = [], 0, 0
    while time.monotonic() - started < duration:
        roll = rng.random()
        if roll < 0.1:
            publisher.send("plant/9/alarm", malformed_payload(rng, i))
            bad += 1
        else:
            text = None if roll < 0.8 else f"Unit {i} reports pressure {rng.randint(1, 999)} bar."
            topic, payload = alert("s", i, text=text)
            publisher.send(topic, payload)
            ids.append(f"s-{i}")
        i += 1
        time.sleep(rng.uniform(0.2, 2.0))
    publisher.wait_acknowledged(120)
    wait_for_ids(lab, ids, 300, extra=bad)
    publisher.close()
    result = tally(lab, f"soak {duration / 60:g} min mixed traffic", ids, started, None, bad)
    result.notes += leak_notes(lab.probe, daemon.process.pid)
    return result


def leak_notes(probe: Probe, pid: int) -> list[str]:
    """RSS trend over the second half (after warm-up) against the noise, open files and
    threads first to last."""
    samples = [s for s in probe.samples if s[1] == pid]
    if len(samples) < 20:
        return ["too few samples for a trend"]
    half = samples[len(samples) // 2 :]
    t = [s[0] for s in half]
    rss = [s[2] for s in half]
    slope = statistics.linear_regression(t, rss).slope * 3600  # MB per hour
    noise = statistics.pstdev(rss)
    # Synthesis raises RSS for a moment and gives it back; a leak raises the floor between.
    minutes: dict[int, list[tuple[float, float]]] = {}
    for when, mb in zip(t, rss, strict=True):
        minutes.setdefault(int(when // 60), []).append((when, mb))
    floors = [min(ms, key=lambda s: s[1]) for ms in minutes.values()]
    floor = (
        statistics.linear_regression([f[0] for f in floors], [f[1] for f in floors]).slope * 3600
        if len(floors) >= 3
        else 0.0
    )
    return [
        f"RSS second half: {min(rss):.0f}-{max(rss):.0f} MB, trend {slope:+.1f} MB/h, "
        f"sd {noise:.1f} MB; per-minute floor {floors[0][1]:.0f} -> {floors[-1][1]:.0f} MB, "
        f"trend {floor:+.1f} MB/h",
        f"open files {half[0][3]} -> {samples[-1][3]}, threads {half[0][4]} -> {samples[-1][4]}",
    ]


# -- never deaf, never bricked ----------------------------------------------------------------
STATUS, EVENT, ERROR = "cosyedge/status", "cosyedge/event", "cosyedge/error"
# Call sites that fail together, as they do when a disk fills; each other site alone.
FAULT_STEPS = [
    ("journal.write", "journal.compact"),
    ("journal.fsync",),
    ("journal.seq",),
    ("mqtt.publish",),
    ("cache.write",),
    ("cache.read",),
    ("quarantine.write",),
    ("history.write",),
]


def degraded_by(listener: Listener, fault: str) -> bool:
    return any(
        isinstance(s, dict) and s.get("state") == "degraded" and fault in s.get("faults", {})
        for s in listener.on(STATUS)
    )


def io_faults(lab: Lab, size: dict[str, float]) -> Result:
    """Every I/O call site of cosyedge.faults fails in turn (EIO, or ENOSPC for the disk) for a
    while under a stream of alerts, then the daemon is restarted: each alert has one outcome,
    none is spoken twice, a stage that cannot write shows as `degraded` and clears by itself."""
    from cosyedge.faults import SITES, write_plan

    n, hold = int(size["per_fault"]), size["fault_s"]
    started = time.monotonic()
    plan = lab.root / "faults.json"
    write_plan(plan, {})
    watch = Listener(lab.broker.port, STATUS, EVENT)
    daemon = lab.daemon(env={"COSYEDGE_FAULTS": str(plan)})
    publisher = Publisher(lab.broker.port)
    ids: list[str] = []
    notes = []
    walked = {site for step in FAULT_STEPS for site in step}
    # speech.render crashes: see poison(). What a start keeps in state_dir is written then
    # (and at a reload), not under a stream of alerts: tests/test_state_dir.py fails each;
    # a voice is loaded only at a start: tests/test_start.py fails and holds it.
    assert walked == set(SITES) - {"speech.render", "models.write", "state.write", "voices.load"}
    for k, step in enumerate(FAULT_STEPS):
        errno_name = "ENOSPC" if step[0].startswith("journal") else "EIO"
        write_plan(plan, {site: {"errno": errno_name} for site in step})
        batch = [alert(f"io{k}", i, text=f"Fault {k} alert {i}.") for i in range(n)]
        publisher.send_all(batch)
        ids += [json.loads(p)["id"] for _, p in batch]
        time.sleep(hold)
        if step[0] == "journal.write" and not degraded_by(watch, "journal"):
            notes.append("the journal's full disk went unnoticed in the status")
        write_plan(plan, {})
        wait_for_ids(lab, ids, 60 + 3 * n)
    recovered = lambda: any(  # noqa: E731
        isinstance(e, dict) and e.get("event") == "fault_cleared" and e.get("fault") == "journal"
        for e in watch.on(EVENT)
    )
    with contextlib.suppress(AssertionError):
        wait_until(recovered, 30, "the journal fault to clear")
    if not recovered():
        notes.append("the journal fault never cleared")
    last = watch.on(STATUS)[-1] if watch.on(STATUS) else {}
    if not isinstance(last, dict) or last.get("state") != "online":
        notes.append(f"status after the faults: {last}")
    daemon.stop()
    daemon.start()  # what was spoken while the journal failed is not spoken again
    time.sleep(3)
    publisher.close()
    watch.close()
    result = tally(lab, f"{len(FAULT_STEPS)} I/O call sites failing in turn", ids, started, None)
    result.notes += notes
    if not daemon.alive():
        result.notes.append("the daemon died")
    return result


def journal_disk_full(lab: Lab, size: dict[str, float]) -> Result:
    """The state directory's disk (a tmpfs) fills up while alerts arrive: they are still
    spoken, the status says `degraded: journal`, the broker acks wait, and once space returns
    the journal catches up by itself; a restart then says none of them again."""
    n = int(size["per_fault"]) * 3
    started = time.monotonic()
    with tmpfs(lab, "statedisk", "32m") as disk:
        watch = Listener(lab.broker.port, STATUS, EVENT)
        config = lab.config().replace(f"state_dir: {lab.root}/state", f"state_dir: {disk}")
        daemon = lab.daemon(config)
        filler = fill(disk, 1 << 20)
        publisher = Publisher(lab.broker.port)
        full = [alert("j", i, text=f"Boiler {i} pressure is high.") for i in range(n)]
        publisher.send_all(full)
        ids = [json.loads(p)["id"] for _, p in full]
        wait_until(lambda: degraded_by(watch, "journal"), 30, "the status to say degraded")
        time.sleep(size["fault_s"])
        filler.unlink()
        freed = time.monotonic()
        cleared = lambda: any(  # noqa: E731
            isinstance(e, dict) and e.get("event") == "fault_cleared" for e in watch.on(EVENT)
        )
        wait_until(cleared, 30, "the journal to write again")
        recovery = time.monotonic() - freed
        wait_for_ids(lab, ids, 60 + 3 * n)
        daemon.stop()
        daemon.start()
        time.sleep(3)
        publisher.close()
        watch.close()
        result = tally(lab, "state disk full (journal)", ids, started, recovery)
        result.notes.append("recovery: space freed to the journal writing again")
        if "No space left" not in daemon.log():
            result.notes.append("the full disk went unnoticed in the log")
        daemon.stop()
        return result


# Payloads that once raised inside the daemon: huge numbers, NaN, deep nesting, odd types.
POISON = [
    b'{"id": "p", "text": "Pump %s", "value": ' + b"7" * 5000 + b"}",
    b'{"text": "Level {x}", "value": NaN}',
    b'{"text": "Level", "value": 1e999, "ttl": 1e999}',
    b'{"text": "Level", "priority": ' + b"9" * 5000 + b"}",
    b'{"text": "x", "id": ' + b"1" * 5000 + b"}",
    b'{"text": ' + b"[" * 3000 + b"]" * 3000 + b"}",
    b'{"text": "\\ud800 lone surrogate"}',
    b'{"text": "\\u202e\\u200b\\u2066"}',
]


def poison(lab: Lab, size: dict[str, float]) -> Result:
    """Poison messages on the alert, command and Hermes topics, then an alert the daemon is
    killed while speaking, start after start: every message has one outcome, the commands
    and Hermes requests their answers, and the killing alert is quarantined after at most
    MAX_TRIES + 2 deaths instead of bricking the daemon."""
    from cosyedge.faults import write_plan
    from cosyedge.journal import MAX_TRIES

    rounds = int(size["poison"])
    started = time.monotonic()
    config = lab.config() + "hermes:\n  enabled: true\n"
    plan = lab.root / "faults.json"
    write_plan(plan, {})
    daemon = lab.daemon(config, env={"COSYEDGE_FAULTS": str(plan)})
    publisher = Publisher(lab.broker.port)
    watch = Listener(lab.broker.port, ERROR, "hermes/#")
    ids, bad = [], 0
    for r in range(rounds):
        for k, payload in enumerate(POISON):
            publisher.send(f"plant/{k % 5 + 1}/alarm", payload)
            publisher.send("cosyedge/command", payload)
            publisher.send("hermes/tts/say", payload)
            bad += 2
        topic, payload = alert("ok", r, text=f"Poison round {r} is over.")
        publisher.send(topic, payload)
        ids.append(f"ok-{r}")
    publisher.wait_acknowledged(120)
    wait_for_ids(lab, ids, 60 + 5 * rounds, extra=bad)
    answers = len(watch.on("hermes/tts/sayFinished"))
    # An alert the daemon dies speaking (an injected crash), start after start.
    write_plan(plan, {"speech.render": {"crash": True, "match": "furnace"}})
    topic, payload = alert("kill", 0, text="The furnace is overheating.", priority="low")
    publisher.send(topic, payload)
    # The first death may come before the message reached the journal: the broker then
    # delivers it again as new, so up to MAX_TRIES + 2 deaths before it is quarantined.
    for _ in range(MAX_TRIES + 2):
        settled = lambda: not daemon.alive() or "quarantined" in daemon.log()  # noqa: E731
        wait_until(settled, 60, "the injected crash or the quarantine")
        if daemon.alive():
            break
        daemon.start(wait_ready=False)
    daemon.wait_for_log(r"subscribed to \d+ topic filters", timeout=60)
    quarantined = lambda: any(  # noqa: E731
        r.get("id") == "kill-0" and "quarantined" in r.get("reason", "") for r in lab.reports()
    )
    with contextlib.suppress(AssertionError):
        wait_until(quarantined, 30, "the killing alert to be quarantined")
    after = alert("ok", rounds, text="Quarantine is done.")
    publisher.send(*after)
    ids += ["kill-0", f"ok-{rounds}"]
    wait_for_ids(lab, ids, 60, extra=bad)
    publisher.close()
    watch.close()
    result = tally(
        lab, "poison messages, and an alert that kills the daemon", ids, started, None, extra=bad
    )
    result.notes.append(f"{answers} Hermes answers for {rounds * len(POISON)} poison requests")
    if answers < rounds * len(POISON):
        result.notes.append("a Hermes request went unnoticed")
    if not quarantined():
        result.notes.append("the killing alert went unnoticed: not quarantined")
    if not (lab.root / "state" / "quarantine.jsonl").exists():
        result.notes.append("the quarantined alert went unnoticed: not kept aside")
    if not daemon.alive():
        result.notes.append("the daemon died")
    return result


def speaking_began(journal: Path, payload: str) -> bool:
    """Whether the journal of this run shows the announcer began to speak `payload` (each
    start rewrites the journal, so a `try` record is this run's)."""
    encoded = base64.b64encode(payload.encode()).decode()
    records = [json.loads(line) for line in journal.read_bytes().splitlines() if line.strip()]
    seqs = {r["in"] for r in records if r.get("payload") == encoded and "in" in r}
    return any(seqs & set(r.get("try", ())) for r in records)


def retained(lab: Lab, size: dict[str, float]) -> Result:
    """Retained alerts and a retained shelve command, across restarts and past the dedup
    window: each retained alert is said once per payload, a changed one again, and the
    retained command is never carried out."""
    started = time.monotonic()
    config = lab.config(alarms="  dedup_window_s: 1\n  flood: {threshold: 100000, end_at: 0}")
    publisher = Publisher(lab.broker.port)
    first = alert("r", 0, text="Retained alarm on line one.")
    publisher.client.publish(*first, qos=1, retain=True)
    shelve = json.dumps({"cmd": "shelve", "topic": "plant/#"})
    publisher.client.publish("cosyedge/command", shelve, qos=1, retain=True)
    watch = Listener(lab.broker.port, ERROR)
    time.sleep(0.5)
    daemon = lab.daemon(config)
    live = alert("r", 1, text="Live alarm on line two.")
    publisher.send(*live)
    wait_for_said(lab, ["r-0", "r-1"], 60)
    for _ in range(2):
        time.sleep(1.5)  # past the dedup window
        daemon.stop()
        daemon.start()
    changed = alert("r", 2, text="Retained alarm changed.")
    daemon.stop()
    publisher.client.publish(first[0], changed[1], qos=1, retain=True)
    time.sleep(1.5)
    daemon.start()
    ids = ["r-0", "r-1", "r-2"]
    # The session the broker kept has the changed alert queued, and the subscription replays
    # it retained: the copy is told at once, the alert once said.
    wait_for_said(lab, ids, 60)
    time.sleep(2)
    for topic in (first[0], "cosyedge/command"):  # leave no retained message behind
        publisher.client.publish(topic, b"", qos=1, retain=True)
    publisher.close()
    refused = [e for e in watch.on(ERROR) if isinstance(e, dict) and "retained" in e["error"]]
    watch.close()
    result = tally(lab, "retained alerts and command across 3 restarts", ids, started, None)
    replays = [r for r in lab.reports() if "retained" in r.get("reason", "")]
    result.notes.append(f"{len(replays)} replays of retained alerts not said again")
    result.notes.append(f"the retained command refused {len(refused)} times")
    if len(refused) < 4:  # each of the 4 starts subscribed, and was handed it
        result.notes.append(f"the retained command went unnoticed {4 - len(refused)} times")
    if len(replays) < 2:  # the 2 restarts between, each handed the first alert again
        result.notes.append("a restart never had the retained alert replayed")
    shelved = [r for r in lab.reports() if r["outcome"] == "shelved"]
    if shelved:
        result.notes.append(f"the retained shelve was carried out: {len(shelved)} shelved")
    return result


def damaged_journal(lab: Lab, size: dict[str, float]) -> Result:
    """Alerts left unsaid in the journal (the sound device was gone at the stop), then lines
    of it damaged between runs: the next start takes up the rest, says them, and reports each
    message whose record is damaged as `failed`, keeping the lines aside."""
    n = int(size["per_fault"]) * 4
    started = time.monotonic()
    daemon = lab.daemon()
    lab.sink.break_it("card unplugged")
    publisher = Publisher(lab.broker.port)
    messages = [alert("dj", i, text=f"Compressor {i} has tripped.") for i in range(n)]
    publisher.send_all(messages)
    publisher.wait_acknowledged()
    journal = lab.root / "state" / "journal.jsonl"
    wait_until(lambda: journal.read_bytes().count(b'"in":') >= n, 30, "the alerts journaled")
    daemon.stop()
    lines = journal.read_bytes().splitlines()
    rng = random.Random(11)
    opened = [i for i, line in enumerate(lines) if line.startswith(b'{"in":')]
    spoiled = sorted(rng.sample(opened, max(1, n // 4)))
    unreadable = []  # the ids of the messages whose records are spoiled
    for k, i in enumerate(spoiled):
        record = json.loads(lines[i])
        unreadable.append(json.loads(base64.b64decode(record["payload"]))["id"])
        record[("payload", "topic", "at")[k % 3]] = [None, 1e300, {"x": 1}][k % 3]
        lines[i] = json.dumps(record).encode()
    lines[1:1] = [b"\x00\xff garbage", b"[" * 5000, b'{"next": "soon"}']
    journal.write_bytes(b"\n".join(lines) + b"\n")
    lab.sink.restore("card unplugged")
    watch = Listener(lab.broker.port, ERROR)
    count = len(lab.listener.on(REPORT))
    daemon.start()
    recovery = time_to_next_report(lab, count, 60)
    ids = [json.loads(p)["id"] for _, p in messages]
    wait_for_ids(lab, [i for i in ids if i not in unreadable], 60 + 2 * n, extra=len(spoiled))
    publisher.close()
    result = tally(lab, f"{len(spoiled) + 3} journal lines damaged", ids, started, recovery)
    failed = [r for r in lab.reports() if "journal line" in r.get("reason", "")]
    errors = [e for e in watch.on(ERROR) if isinstance(e, dict) and "journal line" in e["error"]]
    watch.close()
    result.notes.append(
        f"{len(failed)} messages with a damaged record reported failed, "
        f"{len(errors) - len(failed)} other damaged lines on the error topic"
    )
    if len(failed) != len(spoiled):
        result.notes.append("a damaged record went unnoticed")
    kept = (lab.root / "state" / "quarantine.jsonl").read_bytes().count(b"\n")
    if kept != len(spoiled) + 3:
        result.notes.append(f"{kept} lines kept aside of {len(spoiled) + 3}: one went unnoticed")
    if not daemon.alive():
        result.notes.append("the daemon died")
    # The damaged messages have no id any more: their `failed` reports stand for them.
    result.lost = max(0, result.lost - len(failed))
    result.other["failed"] = result.other.get("failed", 0) + len(failed)
    return result


def takeover(lab: Lab, size: dict[str, float]) -> Result:
    """Two gateways by mistake with one `mqtt.client_id`, alerts arriving meanwhile: the
    takeover is named in the log, the error topic and the status of both, the reconnects back
    off instead of flapping; once the second gets its own id and is restarted, each alert has
    an outcome from one of them."""
    n = int(size["per_fault"]) * 3
    started = time.monotonic()
    shared = "  client_id: gw-shared\n  reconnect_max_s: 3\n"
    config = lab.config().replace("  reconnect_max_s: 2\n", shared)
    first = lab.daemon(config)
    # Listening before the second starts: the takeover is told the moment it happens, and
    # on a busy machine both may have told it before a listener started after them.
    watch = Listener(lab.broker.port, ERROR, STATUS)
    # Its own numbering (reports are told apart by seq): its journal's high-water mark.
    (lab.root / "s2").mkdir()
    (lab.root / "s2" / "journal.seq").write_text("1000000")
    second = lab.daemon(config.replace(f"state_dir: {lab.root}/state", f"state_dir: {lab.root}/s2"))
    said = "MQTT session taken over"
    for d in (first, second):
        d.wait_for_log(said, timeout=60)
    detected = time.monotonic()
    publisher = Publisher(lab.broker.port)
    messages = [alert("t", i, text=f"Mixer {i} is overloaded.") for i in range(n)]
    publisher.send_all(messages, gap_s=size["fault_s"] * 5 / n)
    flaps = sum(d.log().count("connected to MQTT broker") for d in (first, second))
    seconds = time.monotonic() - detected
    # What the log asks for: the second gateway gets its own id; what it took meanwhile and
    # left unsaid is said after its restart.
    second.stop()
    second.config.write_text(second.config.read_text().replace("gw-shared", "gw-second"))
    second.start()
    publisher.wait_acknowledged(120)
    ids = [json.loads(p)["id"] for _, p in messages]
    wait_for_ids(lab, ids, 90 + 2 * n)
    publisher.close()
    result = tally(lab, "two gateways on one client id", ids, started, None)
    result.notes = [n.replace("spoken twice", "spoken by both gateways") for n in result.notes]
    result.notes.append(f"{flaps} connections of both in {seconds:.0f} s with the shared id")
    named = [e for e in watch.on(ERROR) if isinstance(e, dict) and said in e["error"]]
    faulted = [s for s in watch.on(STATUS) if isinstance(s, dict) and "mqtt" in s.get("faults", {})]
    watch.close()
    if not named or not faulted:
        result.notes.append("the takeover went unnoticed on the error topic or in the status")
    if not first.alive():
        result.notes.append("the daemon died")
    return result


def broker_deaf(lab: Lab, size: dict) -> Result:
    """The broker keeps the daemon's connection but stops delivering its canary (an ACL
    reload) while alerts keep arriving: the fault `intake` is shown and said, with its tone,
    within 100 s, said again until acknowledged, its end said once delivery is back, and
    every alert is spoken."""
    n = int(size["per_fault"]) * 3
    started = time.monotonic()
    config = lab.config() + f"monitor: {size['canary']}\n"
    watch = Listener(lab.broker.port, STATUS, EVENT)
    daemon = lab.daemon(config)
    publisher = Publisher(lab.broker.port)
    messages = [alert("bd", i, text=f"Pump {i} in the tank farm stopped.") for i in range(n)]
    publisher.send_all(messages[: n // 3])
    lab.broker.set_acl(ACL_NO_CANARY)
    cut = time.monotonic()
    publisher.send_all(messages[n // 3 : 2 * n // 3])
    said = lambda: [  # noqa: E731
        e
        for e in watch.on(EVENT)
        if isinstance(e, dict)
        and e.get("event") == "fault_announcement"
        and e.get("fault") == "intake"
    ]
    notes = []
    try:
        wait_until(said, 100, "the fault to be said")
        notes.append(f"fault said {time.monotonic() - cut:.1f} s after delivery stopped")
    except AssertionError:
        notes.append("the broker going deaf went unnoticed for 100 s")
    lab.broker.set_acl(ACL_OPEN)
    back = time.monotonic()
    cleared = lambda: any(  # noqa: E731
        isinstance(e, dict) and e.get("event") == "fault_cleared" for e in watch.on(EVENT)
    )
    recovery = None
    with contextlib.suppress(AssertionError):
        wait_until(cleared, 120, "the fault to clear")
        recovery = time.monotonic() - back
    publisher.send_all(messages[2 * n // 3 :])
    ids = [json.loads(p)["id"] for _, p in messages]
    wait_for_ids(lab, ids, 60 + 2 * n)
    publisher.close()
    watch.close()
    result = tally(lab, "broker stops delivering the canary", ids, started, recovery)
    result.notes += [*notes, f"said {len(said())} times", "recovery: delivery back to cleared"]
    if recovery is None:
        result.notes.append("the fault never cleared")
    if not daemon.alive():
        result.notes.append("the daemon died")
    return result


def premium_pack(lab: Lab, size: dict) -> Path:
    """The tiny CosyVoice pack: the one the tests made (`size["premium_pack"]`), else built
    here in the conversion venv; Unavailable where it cannot be."""
    if size.get("premium_pack"):
        return Path(size["premium_pack"])
    from cosyvoice_support import PackUnavailable, build_tiny_pack

    try:
        return build_tiny_pack(lab.root)
    except PackUnavailable as exc:
        raise Unavailable(str(exc)) from None


# The premium worker runs at the lowest priority: a phrase rendered in 0.3 s on a quiet
# machine took 25-31 s at a load of 9 (2 cores). So the upgrading is waited for while it
# moves, and counted as stopped only when no phrase came for PREMIUM_STALL_S.
PREMIUM_STALL_S = 120.0
PREMIUM_CEILING_S = 120.0  # the longest wait, for each pair of phrases


def upgraded_in(daemon: Daemon) -> int:
    return len(re.findall(r"now said by cosyvoice", daemon.log()))


def wait_upgrading(daemon: Daemon, count: int, ceiling_s: float) -> int:
    """How many phrases the premium tier upgraded, once all `count` are, or once none came
    for PREMIUM_STALL_S, or at `ceiling_s`: progress, not a fixed time, is waited for."""
    deadline, moved, done = time.monotonic() + ceiling_s, time.monotonic(), upgraded_in(daemon)
    while done < count and time.monotonic() < min(deadline, moved + PREMIUM_STALL_S):
        time.sleep(0.5)
        if (now_done := upgraded_in(daemon)) > done:
            moved, done = time.monotonic(), now_done
    return done


def premium_flood(lab: Lab, size: dict) -> Result:
    """A flood of unique alerts while the premium tier upgrades declared phrases: every alert
    has its one outcome, and the upgrading goes on to the end after the flood."""
    pack = premium_pack(lab, size)
    n = int(size["flood"])
    areas = [f"area {i}" for i in range(int(size["premium_phrases"]) // 2)]
    extra = (
        '  - topic: "plant/{hall}/door"\n    text: "Door of {area} is {state}."\n'
        f"    values: {{area: {json.dumps(areas)}, state: [open, closed]}}\n"
        f"voices:\n  en: {{engine: hibari, premium: {{pack: {pack}}}}}\n"
    )
    alarms = "  flood: {threshold: 10, window_s: 600, end_at: 5, summary_interval_s: 5}"
    daemon = lab.daemon(lab.config(alarms=alarms, extra=extra))
    # A ceiling, not a speed: the first upgrade waits behind the start and, on a busy
    # machine, a niced worker (120 s was once not enough while the suite ran beside it).
    daemon.wait_for_log(r"premium: '.*' now said by cosyvoice", timeout=300)
    started = time.monotonic()
    publisher = Publisher(lab.broker.port)
    messages = [alert("p", i, text=f"Unique alert {i}: valve {i * 7 % 97} open.") for i in range(n)]
    publisher.send_all(messages, gap_s=0.05)
    publisher.wait_acknowledged(120)
    ids = [json.loads(p)["id"] for _, p in messages]
    wait_for_ids(lab, ids, 120 + n)
    during = len(re.findall(r"now said by cosyvoice", daemon.log()))
    publisher.close()
    result = tally(lab, f"flood of {n} alerts while upgrading {2 * len(areas)}", ids, started, None)
    flooded = time.monotonic()
    upgraded = wait_upgrading(daemon, 2 * len(areas), PREMIUM_CEILING_S * len(areas))
    result.notes.append(
        f"{during} of {2 * len(areas)} phrases upgraded by the flood's end, {upgraded} after "
        f"({time.monotonic() - flooded:.0f} s more)"
    )
    if upgraded < 2 * len(areas):
        result.notes.append("the upgrading never finished")
    if "Traceback" in daemon.log():
        result.notes.append("a traceback in the daemon log")
    if not daemon.alive():
        result.notes.append("the daemon died")
    return result


# -- hostile texts -----------------------------------------------------------------------------
HOSTILE_CEILING_MB = 256
# The shared alert set, beside the repository or where the benchmarks keep it.
SHARED_ALERTS = (REPO.parent / "shared/data/alerts.jsonl", Path("/work/shared/data/alerts.jsonl"))
# The chime before the speech is in an alert's audio too: 0.73 s before a critical one.
CHIME_S = 1.0


def _capitals(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_uppercase) for _ in range(n))


def _hash(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _url(rng: random.Random, n: int) -> str:
    parts = [f"{rng.choice(['line', 'PT-', 'hall'])}{rng.randrange(1000)}" for _ in range(n // 7)]
    return "https://gw.example/" + "/".join(parts)


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def _tags(rng: random.Random, n: int) -> str:
    def tag() -> str:
        kind, suffix = rng.choice(["PT", "TT", "FT", "LT"]), rng.choice(["A", "B", ""])
        return f"{kind}-{rng.randrange(100, 1000)}{suffix} at {rng.randrange(100)} %"

    tags = [tag() for _ in range(n // 16)]
    return ", ".join(tags)


def _cjk(rng: random.Random, n: int) -> str:
    return "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(n))


def _symbols(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(["%", "°C", "#", "&", "+", "@", "±"]) for _ in range(n // 2))


# Texts whose characters say little of their length as speech, and the language each is sent
# in. At 240-900 characters (under a template's max_chars, 1000) each takes well over the
# default max_spoken_s to say, so each is one the announcer must shorten.
HOSTILE_KINDS = {
    "capitals": (_capitals, "en"),
    "hash": (_hash, "en"),
    "url": (_url, "en"),
    "digits": (_digits, "en"),
    "tags": (_tags, "en"),
    "cjk": (_cjk, "zh"),
    "symbols": (_symbols, "en"),
}


def hostile_alerts(count: int, seed: int = 5) -> list[tuple[str, str]]:
    """`count` hostile alerts (topic, payload), the kinds in turn, each text generated from
    `seed` and unlike the others (none comes from the phrase cache)."""
    rng = random.Random(seed)
    kinds = list(HOSTILE_KINDS)
    messages = []
    for i in range(count):
        kind = kinds[i % len(kinds)]
        make, lang = HOSTILE_KINDS[kind]
        payload = {"id": f"hx-{kind}-{i}", "text": make(rng, rng.randrange(240, 900))}
        payload.update(lang=lang, priority=PRIORITY_MIX[i % len(PRIORITY_MIX)])
        messages.append((ALERT_TOPIC.format(line=i % 5 + 1), json.dumps(payload)))
    return messages


def shared_alerts(count: int) -> list[tuple[str, str]]:
    """`count` alerts of the shared set (topic, payload), in its order: each English one as
    the example config's template says it, each Mandarin one as its free text. Unavailable
    where the set is not."""
    from cosyedge.config import load_config
    from cosyedge.intake.alert import parse_alert
    from cosyedge.intake.templates import TemplateSet

    path = next((p for p in SHARED_ALERTS if p.exists()), None)
    if path is None:
        raise Unavailable("the shared alert set is not here")
    templates = TemplateSet(load_config(REPO / "config" / "cosyedge.yaml").templates)
    messages = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()[:count]):
        item = json.loads(line)
        text = item["payload"].get("text")
        if item["lang"] != "zh":
            template, fields = templates.find(item["topic"])
            alert = parse_alert(item["topic"], json.dumps(item["payload"]).encode())
            text = template.announcement(alert, fields).text
        priority = item["payload"].get("priority", "medium")
        payload = {"id": f"sh-{i}", "text": text, "lang": item["lang"], "priority": priority}
        messages.append((ALERT_TOPIC.format(line=i % 5 + 1), json.dumps(payload)))
    return messages


def interleaved(hostile: list, ordinary: list, every: int) -> list:
    """Each hostile message followed by the next `every` ordinary ones."""
    messages = []
    for i, message in enumerate(hostile):
        messages += [message, *ordinary[i * every : (i + 1) * every]]
    return messages


def spoken_seconds(log: str, langs: dict[str, str], rates: dict[str, int]) -> dict[str, float]:
    """Seconds of audio of each alert spoken, chime included, from the daemon's log (its
    samples at its voice's rate): what a listener hears, where the report's start and end
    are when the audio was handed to the sound device."""
    seconds = {}
    for key, samples in re.findall(r"spoke alert (\S+) source=\S+ .*?samples=(\d+)", log):
        if key in langs:
            seconds[key] = int(samples) / rates[langs[key]]
    return seconds


def hostile(lab: Lab, size: dict) -> Result:
    """Hostile texts (runs of capitals, hashes, URLs, digit strings, tag runs, Mandarin
    characters, symbols) among ordinary alerts of the shared set, under `memory.ceiling_mb`
    and RLIMIT_DATA, RSS sampled every 5 ms: each alert has its one outcome, each hostile
    text over `alarms.max_spoken_s` is shortened to it, no ordinary one is, and none after
    a hostile text is said as the generic phrase for want of memory."""
    from test_memory import limit_data

    n, every = int(size["hostile"]), int(size["ordinary_per_hostile"])
    bad = hostile_alerts(n)
    messages = interleaved(bad, shared_alerts(n * every), every)
    lab.probe.stop()
    lab.probe = Probe(lab, interval=0.005)
    started = time.monotonic()
    memory = f"memory:\n  ceiling_mb: {HOSTILE_CEILING_MB}\nstate_dir:"
    daemon = lab.daemon(
        lab.config().replace("state_dir:", memory),
        preexec=limit_data((HOSTILE_CEILING_MB + 150) * MB),
    )
    publisher = Publisher(lab.broker.port)
    publisher.send_all(messages, gap_s=0.02)
    publisher.wait_acknowledged(120)
    ids = [json.loads(p)["id"] for _, p in messages]
    wait_for_ids(lab, ids, 120 + 3 * len(ids))
    publisher.close()
    result = tally(lab, f"{n} hostile texts among {len(ids) - n} shared alerts", ids, started, None)
    reports = {r["id"]: r for r in lab.reports() if r["outcome"] == "spoken"}
    hostile_ids = {json.loads(p)["id"] for _, p in bad}
    models = lab.root / "state" / "models"  # the daemon's tables: its reading, not made again
    result.notes += hostile_notes(reports, hostile_ids, messages, daemon.log(), models)
    result.notes.append(
        f"ceiling {HOSTILE_CEILING_MB} MB, RLIMIT_DATA {HOSTILE_CEILING_MB + 150} MB, "
        "RSS sampled every 5 ms"
    )
    if "Traceback" in daemon.log():
        result.notes.append("a traceback in the daemon log")
    if not daemon.alive():
        result.notes.append("the daemon died")
    return result


def hostile_notes(
    reports: dict, hostile_ids: set[str], messages: list, log: str, models: Path
) -> list[str]:
    """What the hostile scenario shows beyond the account: shortened, degraded, longest.
    `models`: the daemon's saved tables, which its front ends read (made here, they took
    seconds of this process)."""
    from cosyedge.config import AlarmsConfig, load_config
    from cosyedge.speech.voices import load_front_end

    limit = AlarmsConfig().max_spoken_s
    config = load_config(None)  # the scenario's voices: the defaults
    fronts = {lang: load_front_end(lang, config.voices[lang], models) for lang in ("en", "zh")}
    langs = {json.loads(p)["id"]: json.loads(p)["lang"] for _, p in messages}
    over = over_the_limit(reports, langs, fronts, limit)
    rates = {lang: front.sample_rate for lang, front in fronts.items()}
    return [
        shortened_note(reports, hostile_ids, over),
        degraded_note(reports, hostile_ids),
        *longest_notes(reports, spoken_seconds(log, langs, rates), limit),
    ]


def over_the_limit(reports: dict, langs: dict[str, str], fronts: dict, limit: float) -> set[str]:
    """The ids of the alerts whose text the daemon should shorten: its own decision (`fit`
    with the voices' estimate), made again here on the text each report gives."""
    import functools

    from cosyedge.speech.cost import fit
    from cosyedge.speech.voices.mixed import mixed_estimate

    return {
        key
        for key, report in reports.items()
        if fit(
            report["text"], limit, functools.partial(mixed_estimate, fronts, langs[key])
        ).shortened
    }


def shortened_note(reports: dict, hostile_ids: set[str], over: set[str]) -> str:
    shortened = {key for key, report in reports.items() if report.get("shortened")}
    ordinary = len(reports.keys() - hostile_ids)
    note = (
        f"shortened {len(shortened & hostile_ids)} of {len(hostile_ids)} hostile texts "
        f"({len(over & hostile_ids)} over max_spoken_s as the voice estimates), "
        f"{len(shortened - hostile_ids)} of {ordinary} ordinary alerts"
    )
    if shortened != over:
        note += f"; other than the estimate says: {sorted(shortened ^ over)[:5]}"
    return note


def degraded_note(reports: dict, hostile_ids: set[str]) -> str:
    """How many ordinary alerts, said after the first hostile text began, came out as the
    generic phrase (the memory guard refusing synthesis) rather than synthesized or cached."""
    began = min((r["start"] for k, r in reports.items() if k in hostile_ids), default=0.0)
    after = [r for k, r in reports.items() if k not in hostile_ids and r["start"] > began]
    generic = sum(1 for r in after if r.get("source") == "generic")
    sources = dict(Counter(r.get("source") for r in after))
    said = dict(Counter(r.get("source") for k, r in reports.items() if k in hostile_ids))
    return (
        f"{generic} of {len(after)} ordinary alerts after a hostile one degraded "
        f"(sources {sources}; of the hostile texts {said})"
    )


def longest_notes(reports: dict, seconds: dict[str, float], limit: float) -> list[str]:
    """The longest alert as heard (seconds of audio) and as reported (end - start), and how
    much of the limit the shortened ones kept."""
    span = max((r["end"] - r["start"] for r in reports.values()), default=0.0)
    heard = max(seconds.values(), default=0.0)
    kept = [seconds[k] for k, r in reports.items() if r.get("shortened") and k in seconds]
    notes = [
        f"longest alert: {heard:.1f} s of audio, chime included (max_spoken_s {limit:g} s); "
        f"longest report span (end - start) {span:.1f} s: the file sink takes audio as fast "
        "as it is written",
        f"the shortened alerts: {min(kept, default=0):.1f}-{max(kept, default=0):.1f} s of audio",
    ]
    if heard > limit + CHIME_S:
        notes.append(f"an alert took {heard:.1f} s to say, longer than max_spoken_s")
    if len(seconds) < len(reports):
        notes.append(f"the audio of {len(reports) - len(seconds)} alerts went unnoticed in the log")
    return notes


ZONE_CHOICES = ("z1", "z2", "z3", "z4", "all", "z2,z3", None)  # None: the template's, all


def zone_sinks(directory: Path) -> dict[str, str]:
    """ALSA PCMs z1..z4, each a file sink of its own (z4b, named in the config, is none)."""
    directory.mkdir(parents=True, exist_ok=True)
    pcms = "".join(
        f'pcm.{n} {{ type file slave.pcm "null" file "{directory}/{n}.raw" format "raw" '
        "truncate false }\n"
        for n in ("z1", "z2", "z3", "z4")
    )
    (directory / "asoundrc").write_text(pcms)
    return {"ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{directory / 'asoundrc'}"}


def zones_flood(lab: Lab, size: dict[str, float]) -> Result:
    """A flood across four zones, one of whose outputs cannot play (its device is none):
    every alert ends in one outcome, told for exactly the zones it named, and the broken
    output is the fault of its own while its zone is heard on its other output."""
    n = int(size["zones"])
    started = time.monotonic()
    outputs = "".join(f"  o{i}: {{device: z{i}}}\n" for i in range(1, 5))
    zones = "".join(f"  z{i}: {{outputs: [o{i}]}}\n" for i in range(1, 4))
    extra = (
        f"outputs:\n{outputs}  o4b: {{device: no-such-card}}\n"
        f"zones:\n{zones}  z4: {{outputs: [o4, o4b]}}\n"
    )
    alarms = "  flood: {threshold: 10, window_s: 600, end_at: 5, summary_interval_s: 5}"
    daemon = lab.daemon(lab.config(alarms=alarms, extra=extra), env=zone_sinks(lab.root / "z"))
    rng = random.Random(36)
    publisher, messages, wanted = Publisher(lab.broker.port), [], {}
    for i in range(n):
        topic, payload = alert("z", i)
        zone = rng.choice(ZONE_CHOICES)
        data = json.loads(payload) | ({"zone": zone} if zone else {})
        named = {"z1", "z2", "z3", "z4"} if zone in (None, "all") else set(zone.split(","))
        wanted[data["id"]] = named
        messages.append((topic, json.dumps(data)))
    publisher.send_all(messages)
    publisher.wait_acknowledged(120)
    wait_for_ids(lab, list(wanted), 120 + n)
    publisher.close()
    result = tally(lab, f"flood of {n} alerts across 4 zones, an output failing", list(wanted),
                   started, None)  # fmt: skip
    result.notes += zone_notes(lab, wanted, daemon)
    return result


def zone_notes(lab: Lab, wanted: dict[str, set[str]], daemon: Daemon) -> list[str]:
    """What each zone made of its alerts, and where an outcome's zones were not the named."""
    notes, per_zone = [], Counter()
    wrong = [r["id"] for r in lab.reports() if r.get("id") in wanted
             and set(r.get("zones", {})) != wanted[r["id"]]]  # fmt: skip
    for report in lab.reports():
        for zone, said in report.get("zones", {}).items():
            per_zone[f"{zone} {said['outcome']}"] += 1
    notes.append(f"per zone: {dict(sorted(per_zone.items()))}")
    if wrong:
        notes.append(f"{len(wrong)} outcomes told for other zones than named, e.g. {wrong[:3]}")
    if "fault: audio:o4b" not in daemon.log():
        notes.append("the broken output o4b was never a fault")
    if not daemon.alive():
        notes.append("the daemon died")
    return notes


# -- an OPC UA server's alarms -----------------------------------------------------------------
class Alarms:
    """An asyncua server (tests/opcua_asyncua_server.py) whose alarms are raised one after
    another, each a condition of its own and a new phrase; it can be killed, and restarted
    with every condition raised so far standing (its ConditionRefresh sends them again)."""

    def __init__(self, lab: Lab) -> None:
        self.lab, self.port = lab, 0
        self.raised: dict[int, float] = {}  # alarm -> when the server's trigger returned
        self.server = self._first()

    def _first(self, tries: int = 3) -> ServerProcess:
        """The first server, on a port of our block; another test run on this machine may
        take the same port between `free_port` and the bind, so a few tries."""
        for attempt in range(tries):
            self.port = free_port()
            try:
                return self._start([])
            except AssertionError:  # it exited: the port taken meanwhile
                if attempt == tries - 1:
                    raise
        raise AssertionError("unreachable")

    def _start(self, standing: list[dict]) -> ServerProcess:
        argv = [sys.executable, str(ASYNCUA_SERVER), str(self.port)]
        env = {"OPCUA_STANDING": json.dumps(standing)}
        return ServerProcess(argv, self.lab.root / "opcua-server.log", env)

    def source(self) -> str:
        return (
            f"sources:\n  - opcua:\n      endpoint: opc.tcp://127.0.0.1:{self.port}/test\n"
            "      name: tank\n      security: {policy: None, mode: None}\n"
            "      reconnect_max_s: 2\n"
        )

    @staticmethod
    def request(i: int) -> dict:
        message = f"Alarm {i}: pressure in vessel {i} is too high"
        return {"do": "raise", "condition": f"A{i}", "severity": 700, "message": message}

    def raise_one(self, i: int) -> None:
        self.server.do(**self.request(i))
        self.raised[i] = time.time()

    def kill(self) -> None:
        self.server.kill()

    @contextlib.contextmanager
    def down(self) -> Iterator[None]:
        """The server killed, its port held meanwhile (bound, not listening: a connect is
        refused as by a server down), so no other test's `free_port` takes it; then a new
        server process on the same port, every alarm raised so far standing."""
        self.kill()
        with socket.socket() as held:
            held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            held.bind(("127.0.0.1", self.port))
            yield
        self.server = self._start([self.request(i) for i in sorted(self.raised)])


ALARM_TEXT = re.compile(r"\bAlarm (\d+): pressure in vessel")


def alarm_reports(lab: Lab) -> dict[int, list[dict]]:
    """The reports of each alarm (by the number its phrase names), deduplicated ones aside."""
    found: dict[int, list[dict]] = {}
    for report in lab.reports():
        seen = ALARM_TEXT.search(str(report.get("text", "")))
        if seen and report["outcome"] != "deduplicated":
            found.setdefault(int(seen[1]), []).append(report)
    return found


def wait_alarms_said(lab: Lab, alarms: Iterable[int], timeout: float) -> bool:
    wanted = set(alarms)
    with contextlib.suppress(AssertionError):
        wait_until(lambda: wanted <= set(alarm_reports(lab)), timeout, "alarms said", 0.05)
        return True
    return False


def subscribed(daemon: Daemon) -> int:
    return len(re.findall(r"OPC UA tank: subscribed at", daemon.log()))


def opcua(lab: Lab, size: dict) -> Result:
    """Alarms of an OPC UA server raised one after another, each said as it comes; a third of
    the way, kill -9 of the daemon just after an alarm is raised, two more raised while it is
    down, then a restart; two thirds of the way, kill -9 of the server just after an alarm,
    and a restart with the same conditions standing. Every alarm is said exactly once."""
    n, started = int(size["opcua"]), time.monotonic()
    alarms = Alarms(lab)
    daemon = lab.daemon(lab.config(extra=alarms.source()))
    daemon.wait_for_log(r"OPC UA tank: subscribed at", 60)
    daemon_kill = n // 3
    server_kill = max(2 * n // 3, daemon_kill + 3)
    affected = {daemon_kill, daemon_kill + 1, daemon_kill + 2, server_kill}
    times: dict[str, float | None] = {}
    try:
        for i in range(n):
            if i in (daemon_kill + 1, daemon_kill + 2):
                alarms.raise_one(i)  # while the daemon is down
                if i == daemon_kill + 2:
                    times["daemon"] = restart_killed(lab, daemon)
                    wait_alarms_said(lab, range(i + 1), 120)
                continue
            alarms.raise_one(i)
            if i == daemon_kill:
                daemon.process.kill()
                daemon.process.wait()
            elif i == server_kill:
                times["server"] = restart_server(alarms, daemon)
                wait_alarms_said(lab, range(i + 1), 120)
            else:
                wait_alarms_said(lab, [i], 60)
        wait_alarms_said(lab, range(n), 60 + 2 * n)
    finally:
        alarms.kill()
    return opcua_account(lab, daemon, alarms, affected, times, started)


def restart_killed(lab: Lab, daemon: Daemon) -> float | None:
    """Restart the daemon killed; seconds until its first report (back and speaking), None
    when none came."""
    count = len(lab.listener.on(REPORT))
    daemon.start(wait_ready=False)
    return time_to_next_report(lab, count, 120)


def restart_server(alarms: Alarms, daemon: Daemon, outage_s: float = 2.0) -> float | None:
    """kill -9 of the server, a restart after `outage_s` with its conditions standing; seconds
    from the restarted server listening to the source subscribed again, None when it was not."""
    before = subscribed(daemon)
    with alarms.down():
        time.sleep(outage_s)
    back = time.monotonic()
    with contextlib.suppress(AssertionError):
        wait_until(lambda: subscribed(daemon) > before, 120, "subscribed again", 0.05)
        return time.monotonic() - back
    return None


def opcua_account(
    lab: Lab, daemon: Daemon, alarms: Alarms, affected: set[int], times: dict, started: float
) -> Result:
    """Each alarm raised: one outcome, one `spoke alert` line, one alert id; the latency from
    the server's trigger to the report's `start` over the alarms no kill touched."""
    reports, log = alarm_reports(lab), daemon.log()
    kinds, twice, notes = Counter(), [], []
    for i in alarms.raised:
        ids = {r["id"] for r in reports.get(i, [])}
        spoken_lines = sum(log.count(f"spoke alert {ident} ") for ident in ids)
        if len(reports.get(i, [])) > 1 or len(ids) > 1 or spoken_lines > 1:
            twice.append(i)
        if reports.get(i):
            kinds[reports[i][0]["outcome"]] += 1
    spoken = kinds.pop("spoken", 0)
    if twice:
        notes.append(f"{len(twice)} alarms said twice or with two outcomes: {twice[:5]}")
    lat = [
        (reports[i][0]["start"] - alarms.raised[i]) * 1000
        for i in alarms.raised
        if i not in affected and reports.get(i) and reports[i][0]["outcome"] == "spoken"
    ]
    notes += latency_notes(lat, times)
    if not daemon.alive():
        notes.append("the daemon died")
    return Result(
        scenario=f"OPC UA: {len(alarms.raised)} alarms, kill -9 of the daemon and of the server",
        sent=len(alarms.raised), spoken=spoken, other=dict(sorted(kinds.items())),
        lost=sum(1 for i in alarms.raised if not reports.get(i)),
        recovery_s=None if times.get("daemon") is None else round(times["daemon"], 2),
        peak_rss_mb=round(lab.probe.peak_mb, 1),
        duration_s=round(time.monotonic() - started, 1),
        missing_reasons=sum(1 for i in alarms.raised if reports.get(i)
                            and reports[i][0]["outcome"] != "spoken"
                            and not reports[i][0].get("reason")),
        notes=notes,
    )  # fmt: skip


def latency_notes(lat: list[float], times: dict) -> list[str]:
    """The trigger-to-first-audio percentiles, and the two recoveries."""
    notes = []
    if lat:
        lat.sort()
        p99 = lat[min(len(lat) - 1, round(0.99 * (len(lat) - 1)))]
        notes.append(
            f"server's trigger to the report's start over {len(lat)} alarms no kill touched: "
            f"p50 {statistics.median(lat):.0f} ms, p99 {p99:.0f} ms, max {lat[-1]:.0f} ms"
        )
    said = {k: "never" if v is None else f"{v:.1f} s" for k, v in times.items()}
    notes.append(
        f"recovery: daemon restart to its first report {said.get('daemon', 'never')}; "
        f"restarted server listening to the source subscribed again {said.get('server', 'never')}"
    )
    return notes


def standby(lab: Lab, size: dict) -> Result:
    """A primary and its standby, the primary killed with kill -9 again and again while
    alerts flow and restarted each time, then both running (tests/scenario_standby.py)."""
    import scenario_standby

    started = time.monotonic()
    done = scenario_standby.run(lab, size, Publisher)
    try:
        fields = scenario_standby.account(done)
    finally:
        done.heard.close()
    name = (
        f"standby: primary kill -9 x{len(done.kills)} with alerts flowing, "
        f"{len(done.ids['normal'])} alerts with both running"
    )
    result = Result(name, peak_rss_mb=round(lab.probe.peak_mb, 1), duration_s=0.0, **fields)
    result.duration_s = round(time.monotonic() - started, 1)
    return result


SCENARIOS = {
    "kill9": kill9,
    "http": http_kill9,
    "broker": broker_crash,
    "device": device_lost,
    "cache": cache_damage,
    "diskfull": disk_full,
    "model": model_damage,
    "malformed": malformed,
    "flood": memory_flood,
    "soak": soak,
    "faults": io_faults,
    "journalfull": journal_disk_full,
    "poison": poison,
    "retained": retained,
    "journaldamage": damaged_journal,
    "takeover": takeover,
    "deaf": broker_deaf,
    "premium": premium_flood,
    "hostile": hostile,
    "zones": zones_flood,
    "opcua": opcua,
    "standby": standby,
}


def run(name: str, root: Path, size: dict, models: Path | None = None) -> Result:
    """Scenario `name` in `root`; `models` as for `Lab`."""
    # Only where it is needed: with an ACL file, Mosquitto 2.0.11 lost two QoS 1 messages
    # in flight across its kill -9 in the broker scenario (twice in two runs; none without).
    lab = Lab(root, acl=ACL_OPEN if name == "deaf" else None, models=models)
    try:
        return SCENARIOS[name](lab, size)
    finally:
        lab.close()
        shutil.rmtree(root / "cache", ignore_errors=True)
