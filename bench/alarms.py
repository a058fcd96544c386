"""Alarm management speed, measured side by side in one run.

1. Ingest throughput of the policy stage (no audio): the shared alert set, repeated with
   fresh ids, through intake + rules alone, and through the daemon's path with the fsynced
   journal and the outcome reports, with and without the flood summary.
2. Preemption delay: a critical alert's arrival at the broker to the start of its chime while
   a low alert plays, with the daemon as a subprocess on a real Mosquitto and a sound device
   paced to real time (bench/paced_daemon.py), for a low alert from the phrase cache and one
   being synthesized.

    python -m bench.alarms [--alerts FILE] [--messages N] [--trials N]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.history import History
from cosyedge.alarms.policy import AlarmPolicy
from cosyedge.config import AlarmsConfig, Config, FloodConfig, TemplateConfig, load_config
from cosyedge.intake.alert import Message
from cosyedge.intake.intake import Intake
from cosyedge.journal import Journal
from cosyedge.model import Offer
from cosyedge.mqtt.broker import LocalBroker
from cosyedge.mqtt.reports import Reporter

REPO = Path(__file__).resolve().parent.parent
ALERTS = Path("/work/shared/data/alerts.jsonl")
RESULTS = REPO / "bench" / "results"
NO_FLOOD = FloodConfig(threshold=100000, end_at=0)


# -- 1. ingest ----------------------------------------------------------------------------
def messages(alerts: Path, count: int) -> list[tuple[str, bytes]]:
    rows = [json.loads(line) for line in alerts.read_text(encoding="utf-8").splitlines()]
    out = []
    for i in range(count):
        row = rows[i % len(rows)]
        payload = row["payload"]
        if isinstance(payload, dict):
            payload = json.dumps({**payload, "id": f"{payload.get('id', 'x')}-{i}"})
        out.append((row["topic"], payload.encode()))
    return out


def site_config(flood: FloodConfig, state: Path) -> Config:
    config = load_config(REPO / "config" / "cosyedge.yaml")
    mandarin = TemplateConfig(topic="工厂/#", text="{text}", lang="zh")
    return dataclasses.replace(
        config,
        templates=(*config.templates, mandarin),
        alarms=dataclasses.replace(AlarmsConfig(), flood=flood),
        state_dir=state,
    )


def rules_only(config: Config, batch: list[tuple[str, bytes]]) -> float:
    intake, policy = Intake(config), AlarmPolicy(config.alarms)
    started = time.perf_counter()
    for seq, (topic, payload) in enumerate(batch):
        now = time.monotonic()
        reading = intake.read(Message(topic, payload), seq, time.time(), now)
        if isinstance(reading, Offer):  # a refusal is counted, as the daemon counts them
            policy.offer(reading, now)
    return len(batch) / (time.perf_counter() - started)


def with_journal(config: Config, batch: list[tuple[str, bytes]], kept: bool = False) -> float:
    """The daemon's intake path: journal (group-committed fsync), desk, reports (discarded);
    `kept`: with the alarm history the daemon keeps too."""
    journal = Journal(config.state_dir / "journal.jsonl", config.alarms.dedup_window_s)
    journal.open()
    history = History(config.state_dir / "history", 400, 10**9) if kept else None
    if history is not None:
        history.start()

    def publish(topic: str, payload: str, retain: bool = False) -> None:
        pass

    reporter = Reporter(config.reports, publish, journal)
    policy = AlarmPolicy(config.alarms)
    intake, desk = Intake(config), AlarmDesk(policy, reporter, journal, history=history)
    acked = threading.Semaphore(0)
    started = time.perf_counter()
    for topic, payload in batch:
        received, at = time.time(), time.monotonic()
        seq = journal.accept(topic, payload, received, then=acked.release)
        desk.submit(intake.read(Message(topic, payload), seq, received, at))
    for _ in batch:
        acked.acquire()
    rate = len(batch) / (time.perf_counter() - started)
    journal.stop()
    if history is not None:
        history.stop()
    return rate


def ingest(alerts: Path, count: int) -> dict:
    batch = messages(alerts, count)
    result = {"messages": count}
    with tempfile.TemporaryDirectory() as tmp:
        for name, flood in (("flood", FloodConfig()), ("no_flood", NO_FLOOD)):
            config = site_config(flood, Path(tmp) / name)
            result[f"rules_{name}"] = rules_only(config, batch)
            result[f"journal_{name}"] = with_journal(config, batch)
            config = dataclasses.replace(config, state_dir=Path(tmp) / f"{name}-kept")
            result[f"history_{name}"] = with_journal(config, batch, kept=True)
    return result


# -- 2. preemption ------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Watch:
    """Reports and status from the daemon, as it publishes them."""

    def __init__(self, port: int) -> None:
        self.reports: dict[str, dict] = {}
        self.speaking: str | None = None
        self.online = False
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-watch")
        client.on_message = self._message
        client.connect("127.0.0.1", port)
        client.subscribe([("cosyedge/report", 1), ("cosyedge/status", 1)])
        client.loop_start()
        self.client = client

    def _message(self, client, userdata, message) -> None:
        data = json.loads(message.payload)
        if message.topic == "cosyedge/status":
            self.online = data.get("state") == "online"
            self.speaking = data.get("speaking")
        else:
            self.reports[data["id"]] = data

    def publish(self, ident: str, text: str, priority: str) -> float:
        payload = json.dumps({"id": ident, "text": text, "priority": priority})
        sent = time.time()
        self.client.publish("bench/1/alarm", payload, qos=1).wait_for_publish(5)
        return sent

    def command(self, **command: str) -> None:
        self.client.publish("cosyedge/command", json.dumps(command), qos=1).wait_for_publish(5)

    def until(self, predicate, timeout: float, what: str):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if result := predicate():
                return result
            time.sleep(0.005)
        raise TimeoutError(f"timed out waiting for {what}")


def preemption(trials: int) -> dict:
    low_text = (
        "Tank farm notice: the level in tank twelve is slowly rising, please plan to check "
        "the transfer pump during the next round of the shift."
    )
    critical_text = "Emergency stop at packing station three."
    result: dict[str, list[dict]] = {"cached": [], "synthesized": []}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        port = free_port()
        broker = LocalBroker("127.0.0.1", port, tmp / "broker")
        broker.start()
        asoundrc = tmp / "asoundrc"
        asoundrc.write_text(
            f'pcm.!default {{ type file\n slave.pcm "null"\n file "{tmp}/play.raw"\n'
            ' format "raw"\n truncate false }\n'
        )
        config = tmp / "cosyedge.yaml"
        config.write_text(
            f"mqtt: {{port: {port}, local_broker: false}}\n"
            f"cache: {{dir: {tmp}/cache}}\nstate_dir: {tmp}/state\n"
            "alarms: {flood: {threshold: 100000}}\n"
            'templates:\n  - {topic: "bench/{n}/alarm", text: "{text}", payload: json}\n'
        )
        env = {**os.environ, "ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{asoundrc}"}
        log = tmp / "daemon.log"
        daemon = subprocess.Popen(
            [sys.executable, "-m", "bench.paced_daemon", "run", "--config", str(config)],
            cwd=REPO,
            env=env,
            stderr=log.open("wb"),
        )
        watch = Watch(port)
        try:
            watch.until(lambda: watch.online, 60, "the daemon")
            for ident, text in (("warm-c", critical_text), ("warm-l", low_text)):
                watch.publish(ident, text, "critical")  # into the phrase cache
                watch.until(lambda i=ident: i in watch.reports, 60, "warm-up")
            rng = random.Random(1)
            for trial in range(trials):
                for case in ("cached", "synthesized"):
                    text = low_text if case == "cached" else f"Trial {trial}. {low_text}"
                    low, crit = f"low-{case}-{trial}", f"crit-{case}-{trial}"
                    watch.publish(low, text, "low")
                    watch.until(lambda low=low: watch.speaking == low, 30, "the low alert")
                    time.sleep(rng.uniform(0.2, 0.8))
                    sent = watch.publish(crit, critical_text, "critical")
                    report = watch.until(lambda c=crit: watch.reports.get(c), 30, crit)
                    watch.command(cmd="ack", id=low)  # no need to hear it again
                    watch.until(lambda low=low: low in watch.reports, 60, "the low report")
                    result[case].append(
                        {
                            "arrival_to_chime_ms": (report["start"] - sent) * 1000,
                            "receipt_to_chime_ms": report["latency_ms"],
                        }
                    )
        except TimeoutError:
            print(log.read_text(errors="replace")[-3000:], file=sys.stderr)
            raise
        finally:
            daemon.terminate()
            daemon.wait(timeout=20)
            watch.client.loop_stop()
            broker.stop()
    return result


# -- report -------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alerts", type=Path, default=ALERTS)
    parser.add_argument("--messages", type=int, default=20000)
    parser.add_argument("--trials", type=int, default=5)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)

    flow = ingest(args.alerts, args.messages)
    cut = preemption(args.trials)
    rows = [
        ("ingest, intake + rules, flood summary on", f"{flow['rules_flood']:,.0f} alerts/s"),
        ("ingest, intake + rules, flood summary off", f"{flow['rules_no_flood']:,.0f} alerts/s"),
        (
            "ingest, + fsynced journal + reports, flood on",
            f"{flow['journal_flood']:,.0f} alerts/s "
            f"({flow['journal_flood'] / flow['rules_flood']:.2f} x rules only)",
        ),
        (
            "ingest, + fsynced journal + reports, flood off",
            f"{flow['journal_no_flood']:,.0f} alerts/s "
            f"({flow['journal_no_flood'] / flow['rules_no_flood']:.2f} x rules only)",
        ),
        *(
            (
                f"ingest, + journal + reports + alarm history, flood {on}",
                f"{flow[f'history_{name}']:,.0f} alerts/s "
                f"({flow[f'history_{name}'] / flow[f'journal_{name}']:.2f} x without it)",
            )
            for name, on in (("flood", "on"), ("no_flood", "off"))
        ),
    ]
    for case, trials in cut.items():
        delays = [t["arrival_to_chime_ms"] for t in trials]
        rows.append(
            (
                f"preemption, critical arrival to chime, {case} low alert",
                f"median {statistics.median(delays):.0f} ms, max {max(delays):.0f} ms "
                f"({len(delays)} trials)",
            )
        )
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  value\n{'-' * width}  -----")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"alarms-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps({"ingest": flow, "preemption": cut}, indent=2))
    print(f"\nwritten to {out.relative_to(REPO)}")


if __name__ == "__main__":
    main()
