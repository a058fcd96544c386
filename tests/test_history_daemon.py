"""The alarm history kept by the real daemon: the ISA-18.2 figures in `/metrics` count each
annunciated alarm once, across a restart too; `cosyedge report` (run in this process) reads
the same history beside the running daemon; and a history that cannot be written degrades the
status, quietly, while every alert is still spoken, then catches up."""

from __future__ import annotations

import json
import time
import urllib.error

from support import Listener, cosyedge_here, free_port, publish, wait_until
from test_http import call, http_config, metrics

from cosyedge.faults import write_plan

REPORT, STATUS = "cosyedge/report", "cosyedge/status"


def report(capfd, config: str, what: str):
    """`cosyedge report WHAT` of the last hour, in JSON."""
    return cosyedge_here(
        capfd, "report", what, "--config", config, "--since", "1h", "--format", "json"
    )


def alert(line: int, n: int) -> str:
    return json.dumps({"line": line, "value": 90 + n, "id": f"a{line}-{n}"})


def isa(port: int) -> dict[str, float]:
    """The alarm figures of one scrape, by name (the top alarms by `top:<alarm>`); none
    while the API is not listening yet."""
    try:
        scraped = metrics(port)
    except urllib.error.URLError:
        return {}
    found = {}
    for (name, labels), value in scraped.items():
        if name.startswith("cosyedge_alarm"):
            found[f"top:{dict(labels)['alarm']}" if labels else name] = value
    return found


def spoken(reports: Listener, count: int) -> None:
    reports.wait_for(
        REPORT, lambda r: sum(x["outcome"] == "spoken" for x in r) >= count, timeout=120
    )


def test_figures_count_each_alarm_once_across_a_restart_and_match_the_report(
    broker, make_daemon, tmp_path, capfd
):
    http_port = free_port()
    reports = Listener(broker.port, REPORT, persistent=True)
    daemon = make_daemon(http_config(broker.port, tmp_path, http_port))
    for n in range(3):  # one topic thrice within a minute: a chattering alarm
        publish(broker.port, "plant/1/temperature", alert(1, n))
    publish(broker.port, "plant/2/temperature", alert(2, 0))
    publish(broker.port, "plant/2/temperature", alert(2, 0))  # a duplicate: not an alarm
    publish(broker.port, "cosyedge/command", json.dumps({"cmd": "shelve", "topic": "plant/9/#"}))
    spoken(reports, 4)
    wait_until(lambda: isa(http_port).get("cosyedge_alarms_last_10m") == 4, 10, "4 alarms")
    before = isa(http_port)
    assert before["cosyedge_alarms_chattering"] == 1
    assert before["top:plant/1/temperature"] == 3 and before["top:plant/2/temperature"] == 1
    assert before["cosyedge_alarms_shelved"] == 1 and before["cosyedge_alarms_stale"] == 0
    assert before["cosyedge_alarm_history_complete"] == 1

    daemon.stop()
    daemon.start()  # the last day is read back from the history, not counted anew
    wait_until(lambda: isa(http_port).get("cosyedge_alarms_last_10m") == 4, 20, "4 read back")
    publish(broker.port, "plant/3/temperature", alert(3, 0))
    spoken(reports, 5)
    wait_until(lambda: isa(http_port).get("cosyedge_alarms_last_10m") == 5, 10, "5 alarms")
    assert isa(http_port)["cosyedge_alarms_last_day"] == 5

    config = str(daemon.config)
    done = report(capfd, config, "kpi")
    assert done.returncode == 0, done.stderr
    kpi = json.loads(done.stdout)
    assert kpi["alarms"] == 5 and kpi["chattering"] == ["plant/1/temperature"]
    assert kpi["shelved"] == ["plant/9/#"] and kpi["damaged_lines"] == {}
    done = report(capfd, config, "audit")
    assert done.returncode == 0, done.stderr
    trail = [(f["e"], f.get("cmd")) for f in json.loads(done.stdout)]
    assert trail == [("start", None), ("command", "shelve"), ("stop", None), ("start", None)]


def test_free_text_is_announced_and_not_counted_as_an_alarm(broker, make_daemon, tmp_path, capfd):
    """Three phrases on the say topic within a minute, and a say request over HTTP: said,
    and none of them an alarm in the figures; a template marked `alarm: phrase` counts each
    phrase as its own alarm."""
    http_port = free_port()
    reports = Listener(broker.port, REPORT, persistent=True)
    board = '  - topic: plant/board\n    text: "{text}"\n    alarm: phrase\n'
    config = http_config(broker.port, tmp_path, http_port).replace(
        "templates:\n", f"templates:\n{board}"
    )
    daemon = make_daemon(config)
    for n, text in enumerate(("Forklift in aisle four.", "Lunch is served.", "Shift change.")):
        publish(broker.port, "cosyedge/say", json.dumps({"text": text, "id": f"say-{n}"}))
    status, _, _ = call(http_port, "POST", "/v1/say", {"text": "Visitors at gate two."})
    assert status == 202
    for n, text in enumerate(("Belt stopped.", "Belt stopped.", "Belt running.")):
        publish(broker.port, "plant/board", json.dumps({"text": text, "id": f"board-{n}"}))
    publish(broker.port, "plant/1/temperature", alert(1, 0))
    spoken(reports, 8)
    wait_until(lambda: isa(http_port).get("cosyedge_alarms_last_10m") == 4, 10, "4 alarms")
    figures = isa(http_port)
    assert figures["cosyedge_alarms_chattering"] == 0
    assert {k: v for k, v in figures.items() if k.startswith("top:")} == {
        "top:plant/board: Belt stopped.": 2,
        "top:plant/board: Belt running.": 1,
        "top:plant/1/temperature": 1,
    }
    assert 0 < figures["cosyedge_alarm_window_seconds"] < 3600  # a history minutes old

    done = cosyedge_here(capfd, "report", "kpi", "--config", str(daemon.config), "--since", "7d")
    assert done.returncode == 0, done.stderr
    assert "(4 alarms annunciated" in done.stdout and "Chattering: none" in done.stdout
    assert "of the 7 d asked for" in done.stdout and "cosyedge/say" not in done.stdout


def test_a_history_that_cannot_be_written_degrades_quietly_and_catches_up(
    broker, make_daemon, tmp_path, capfd
):
    http_port = free_port()
    plan = tmp_path / "faults.json"
    write_plan(plan, {"history.write": {"errno": "EIO"}})
    reports = Listener(broker.port, REPORT, STATUS, persistent=True)
    daemon = make_daemon(
        http_config(broker.port, tmp_path, http_port), env={"COSYEDGE_FAULTS": str(plan)}
    )
    reports.wait_for(STATUS, lambda s: any("history" in x.get("faults", {}) for x in s), timeout=30)
    for n in range(3):
        publish(broker.port, "plant/1/temperature", alert(1, n))
    spoken(reports, 3)  # the alarm path does not wait for the history
    assert "Alarm system fault" not in daemon.log()  # quiet: shown, not said
    write_plan(plan, {})
    reports.wait_for(STATUS, lambda s: s[-1].get("state") == "online", timeout=30)
    time.sleep(0.5)
    config = str(daemon.config)
    done = report(capfd, config, "kpi")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["alarms"] == 3
