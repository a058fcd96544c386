"""The stages wired as the daemon wires them, in one process: a message through intake, the
journal and the desk to the announcer, which renders it with the real voice and plays it on
ALSA (this run's file sink); what became of it comes back out through the reports. The
broker is the one part left out: what is published is recorded and acknowledged at once."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from support import AlsaSink, wait_until

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.policy import AlarmPolicy
from cosyedge.announce.announcer import Announcer, Speech
from cosyedge.audio.player import Player
from cosyedge.audio.sound import Sound
from cosyedge.build import build_speech
from cosyedge.config import Config, parse_config
from cosyedge.faults import Faults
from cosyedge.intake.intake import Intake
from cosyedge.journal import Journal
from cosyedge.model import Heartbeat
from cosyedge.mqtt.reports import Reporter
from cosyedge.speech.cache.background import Activity

CONFIG = """
voices:
  en: {{engine: hibari}}
cache: {{dir: {dir}/cache}}
state_dir: {dir}/state
alarms:
  priorities:
    critical: {{reannounce_s: 0.5}}
templates:
  - {{topic: "plant/{{line}}/alarm", text: "Line {{line}}: {{what}}", payload: json}}
"""


@dataclass
class Recorder:
    """Stands where the broker is: keeps what is published and acknowledges it at once."""

    messages: list[tuple[str, dict]] = field(default_factory=list)
    reporter: Reporter | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def publish(self, topic: str, payload: str, retain: bool = False) -> int:
        with self._lock:
            self.messages.append((topic, json.loads(payload)))
            mid = len(self.messages)
        if self.reporter is not None:
            self.reporter.published(mid)
        return mid

    def on(self, topic: str) -> list[dict]:
        with self._lock:
            return [payload for t, payload in self.messages if t == topic]


@dataclass
class Wired:
    config: Config
    intake: Intake
    journal: Journal
    desk: AlarmDesk
    recorder: Recorder
    stop: threading.Event
    threads: list[threading.Thread]

    def send(self, topic: str, payload: dict | bytes) -> None:
        """As the daemon's message handler does: read once, journal, hand to the desk."""
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        message = self.intake.message(topic, body)
        assert message is not None
        received, at = time.time(), time.monotonic()
        seq = self.journal.accept(topic, body, received, then=lambda: None)
        self.desk.submit(self.intake.read(message, seq, received, at))

    def outcomes(self) -> list[dict]:
        return self.recorder.on(self.config.reports.outcome_topic)

    def events(self) -> list[dict]:
        return self.recorder.on(self.config.reports.event_topic)

    def shut(self) -> None:
        self.stop.set()
        for thread in self.threads:
            if thread.ident is not None:  # started
                thread.join(timeout=10)
        self.journal.stop()


@pytest.fixture(scope="module")
def sink(tmp_path_factory) -> AlsaSink:
    """ALSA's default device, for this process, as a file: what the player plays."""
    made = AlsaSink(tmp_path_factory.mktemp("alsa"))
    with pytest.MonkeyPatch.context() as env:
        for name, value in made.env.items():
            env.setenv(name, value)
        yield made


@pytest.fixture(scope="module")
def speech(tmp_path_factory, sink) -> Speech:
    directory = tmp_path_factory.mktemp("speech")
    built = build_speech(parse_config(CONFIG.format(dir=directory)), Faults())
    yield built
    built.renderer.stop(timeout=5)
    built.renderer.cache.close()


@pytest.fixture
def wire(tmp_path: Path, speech: Speech):
    """Wire the stages over a journal in `tmp_path`; started with `run=True`."""
    made: list[Wired] = []

    def make(run: bool = True) -> Wired:
        config = parse_config(CONFIG.format(dir=tmp_path))
        recorder, stop = Recorder(), threading.Event()
        journal = Journal(config.state_dir / "journal.jsonl", config.alarms.dedup_window_s)
        reporter = recorder.reporter = Reporter(config.reports, recorder.publish, journal)
        desk = AlarmDesk(AlarmPolicy(config.alarms), reporter, journal)
        intake = Intake(config)
        desk.recover(journal.open(), intake.read_journaled)
        player = Player(config.audio.device, config.audio.block_ms)
        announcer = Announcer(
            desk, speech, player, Sound(config.alarms), stop, Activity(), Heartbeat("a")
        )
        threads = [
            threading.Thread(target=announcer.run, daemon=True),
            threading.Thread(target=desk.run_clock, args=(stop,), daemon=True),
        ]
        wired = Wired(config, intake, journal, desk, recorder, stop, threads)
        made.append(wired)
        if run:
            for thread in threads:
                thread.start()
        return wired

    yield make
    for wired in made:
        if not wired.stop.is_set():
            wired.shut()


def played(sink: AlsaSink) -> int:
    return sum(p.stat().st_size for p in sink.files())


def test_an_alert_is_spoken_on_the_device_and_reported_once(wire, sink):
    before = played(sink)
    wired = wire()
    wired.send("plant/3/alarm", {"id": "P-3", "what": "pump tripped", "priority": "high"})
    wait_until(wired.outcomes, 30, "an outcome")
    time.sleep(0.3)  # a second outcome would come at once
    [outcome] = wired.outcomes()
    assert (outcome["outcome"], outcome["id"], outcome["priority"]) == ("spoken", "P-3", "high")
    assert outcome["topic"] == "plant/3/alarm"
    # Chime and speech reached the device: over half a second of audible samples.
    pcm = np.concatenate(sink.streams())[before // 2 :]
    assert len(pcm) > 0.5 * 22050 and np.abs(pcm.astype(np.int32)).max() > 1000
    wired.shut()
    reopened = Journal(wired.config.state_dir / "journal.jsonl", 60).open()
    assert not reopened.pending and not reopened.unsent  # said, and its report confirmed


def test_a_message_that_is_no_alert_is_rejected_with_its_reason_and_never_played(wire, sink):
    wired = wire()
    before = played(sink)
    wired.send("plant/3/alarm", b'{"what": "unterminated')
    wait_until(wired.outcomes, 10, "an outcome")
    [outcome] = wired.outcomes()
    assert outcome["outcome"] == "rejected" and "invalid JSON" in outcome["reason"]
    time.sleep(0.5)
    assert played(sink) == before


def test_an_operator_ack_through_intake_ends_the_reannouncement(wire):
    wired = wire()
    wired.send("plant/1/alarm", {"id": "C-1", "what": "fire", "priority": "critical"})
    wait_until(lambda: any(e["event"] == "reannounced" for e in wired.events()), 30, "re-said")
    command = wired.intake.command(b'{"cmd": "ack", "id": "C-1"}')
    wired.desk.command(command, "ack C-1")
    acked = [e for e in wired.events() if e["event"] == "command" and "C-1" in e["ids"]]
    assert acked, wired.events()
    said = len([e for e in wired.events() if e["event"] == "reannounced"])
    time.sleep(1.5)  # three re-announcement periods
    assert len([e for e in wired.events() if e["event"] == "reannounced"]) <= said + 1


def test_a_fault_is_said_with_its_tone_until_it_clears(wire):
    wired = wire()
    wired.desk.fault("journal", "Alarm system fault: alerts cannot be saved.", "en", 0)
    wait_until(
        lambda: any(e["event"] == "fault_announcement" for e in wired.events()), 30, "the fault"
    )
    [said] = [e for e in wired.events() if e["event"] == "fault_announcement"]
    assert said["fault"] == "journal" and said["result"] == "spoken"


def test_what_one_run_left_unsaid_is_said_by_the_next(wire):
    first = wire(run=False)  # accepted and journaled, but nobody speaks
    first.send("plant/9/alarm", {"id": "L-9", "what": "level low"})
    assert not first.outcomes()
    first.shut()
    second = wire()  # the same journal, taken up at start
    wait_until(second.outcomes, 30, "an outcome")
    [outcome] = second.outcomes()
    assert (outcome["outcome"], outcome["id"]) == ("spoken", "L-9")


@pytest.mark.parametrize(("priority", "synthesized"), [("critical", True), ("high", False)])
def test_a_critical_alert_out_of_memory_is_synthesized_again_after_the_shedding(
    wire, speech, monkeypatch, priority, synthesized
):
    """An allocation failure in a critical alert's synthesis sheds every voice and buffer, and
    the alert is synthesized once more (the voice loads again) before a generic phrase could
    stand in; another alert is said as the generic phrase, as before."""
    voice = speech.renderer.voices["en"]
    synthesize, failed = voice.synthesize, []

    def out_of_memory_once(text, *args, **kwargs):
        if "furnace" in text and not failed:  # at the first step, as onnxruntime's would
            failed.append(text)
            raise MemoryError("std::bad_alloc")
        yield from synthesize(text, *args, **kwargs)

    monkeypatch.setattr(voice, "synthesize", out_of_memory_once)
    wired = wire()
    what = f"furnace overheated, {priority}"  # a phrase of its own: not from the cache
    wired.send("plant/1/alarm", {"id": "F-1", "what": what, "priority": priority})
    wait_until(wired.outcomes, 60, "an outcome")
    [outcome] = wired.outcomes()
    assert outcome["outcome"] == "spoken", outcome
    # (A worker near the memory ceiling may refuse a high alert's synthesis before it starts.)
    assert bool(failed) or not synthesized, outcome
    assert outcome["source"] == ("synth" if synthesized else "generic"), outcome
