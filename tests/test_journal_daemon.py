"""The journal with the real daemon and Mosquitto: alerts accepted and acknowledged, then
`kill -9`, and a restart that must say them, whatever came between."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from support import Listener, SwappableSink, publish, site_yaml, wait_until

from cosyedge.faults import write_plan

REPORT = "cosyedge/report"
TEMPLATES = """templates:
  - topic: "plant/{line}/temperature"
    text: "Temperature alarm on line {line}: {value} degrees."
    payload: json
    priority: high
"""


def queued(make_daemon, broker, tmp_path: Path, sink: SwappableSink):
    """A daemon whose sound device is broken, so what it accepts stays queued."""
    sink.break_it("card unplugged")
    config = site_yaml(broker.port, tmp_path) + TEMPLATES
    return make_daemon(config, env=sink.env)


def accept(daemon, broker, ids: list[str]) -> None:
    for n, ident in enumerate(ids, 1):
        alert = {"value": 90 + n, "priority": "critical", "id": ident}
        publish(broker.port, f"plant/{n}/temperature", json.dumps(alert))  # acked: journaled
        daemon.wait_for_log(rf"accepted alert {ident} ")


def killed(daemon) -> None:
    daemon.process.kill()
    daemon.process.wait()


def decided_on_disk(journal: Path) -> set[int]:
    """The seqs whose outcome the journal file holds (a line torn by a kill left out)."""
    decided = set()
    for line in journal.read_bytes().splitlines():
        try:
            decided.add(json.loads(line)["out"])
        except (ValueError, KeyError):
            continue
    return decided


def spoken(reports: Listener, ids: list[str]) -> list[dict]:
    """The `spoken` report of each of `ids`, once there is one for each; a message the broker
    delivers again after the crash (its acknowledgement died with the process) has a report
    `deduplicated` of its own beside it, and none may be spoken twice."""

    def said(told: list[dict]) -> list[dict]:
        return [r for r in told if r["id"] in ids and r["outcome"] == "spoken"]

    reports.wait_for(REPORT, lambda r: {x["id"] for x in said(r)} >= set(ids), 90)
    time.sleep(1)  # a second spoken report of one of them would be here by now
    once = said(reports.on(REPORT))
    assert sorted(r["id"] for r in once) == sorted(ids), once
    return once


def test_alerts_accepted_around_an_emptied_state_dir_survive_a_crash_on_the_safe_core(
    broker, make_daemon, tmp_path
):
    """Alerts accepted, the state directory emptied under the running daemon (its journal
    written again from what it holds), one more accepted, then `kill -9`; the next start
    finds its configuration broken and the last good one damaged, and says them all on the
    safe core, the numbering gone on."""
    sink = SwappableSink(tmp_path / "sound")
    reports = Listener(broker.port, REPORT)
    daemon = queued(make_daemon, broker, tmp_path, sink)
    ids = ["torn1", "torn2", "torn3"]
    accept(daemon, broker, ids)
    state = tmp_path / "state"
    for path in state.iterdir():
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    daemon.wait_for_log(r"journal .*: cannot write \(the file was removed while in use")
    daemon.wait_for_log(r"journal .*: writing again")
    publish(broker.port, "plant/2/temperature", json.dumps({"value": 92, "id": "after"}))
    daemon.wait_for_log(r"accepted alert after ")
    wait_until(lambda: b'"in":4' in (state / "journal.jsonl").read_bytes(), 5, "on disk")
    killed(daemon)
    (state / "last-good.json").write_text("{damaged")
    daemon.config.write_text(daemon.config.read_text().replace("templates:", "templatez:"))
    sink.restore("card unplugged")
    daemon.start()
    told = {r["id"]: r for r in spoken(reports, [*ids, "after"])}
    assert sorted((i, told[i]["outcome"], told[i]["priority"]) for i in ids) == [
        (i, "spoken", "critical") for i in ids
    ], told
    assert (told["after"]["outcome"], told["after"]["priority"]) == ("spoken", "high"), told
    assert told["after"]["seq"] == told["torn3"]["seq"] + 1  # numbering went on
    assert "safe core" in daemon.log()
    reports.close()


def test_an_outcome_told_before_a_kill_is_on_disk_and_not_decided_again(
    broker, make_daemon, tmp_path
):
    """An outcome report goes out only once the journal has the outcome on disk. The disk is
    slow here (each write 1.5 s late, as under load), so a report sent ahead of its record
    would be caught by the kill: the alert left open, decided again by the next start."""
    plan = tmp_path / "faults.json"
    write_plan(plan, {"journal.write": {"hang": 1.5}})
    reports = Listener(broker.port, REPORT)
    config = site_yaml(broker.port, tmp_path) + TEMPLATES
    daemon = make_daemon(config, env={"COSYEDGE_FAULTS": str(plan)})
    publish(broker.port, "plant/1/temperature", json.dumps({"value": 91, "id": "told"}))
    told = reports.wait_for(REPORT, lambda r: any(x["id"] == "told" for x in r), 60)
    killed(daemon)
    assert told[0]["seq"] in decided_on_disk(tmp_path / "state" / "journal.jsonl")
    daemon.start()
    assert "left unsaid by the last run" not in daemon.log()
