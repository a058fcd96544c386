"""The alarm history and what is read from it: the ISA-18.2 figures of a known history,
computed by hand, through `cosyedge report kpi` as a user runs it (the other reports run the
same command line in this process); the audit trail; damaged lines of every kind passed over
and counted; retention, the size cap and a failing disk."""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import struct
import subprocess
import time
from pathlib import Path

import pytest
from support import cosyedge, cosyedge_here, wait_until

from cosyedge.alarms.history import (
    DAY_S,
    MAX_LINE,
    History,
    Skipped,
    audit,
    day_of,
    read_facts,
)
from cosyedge.alarms.kpi import Annunciation, RecentAlarms, figures
from cosyedge.alarms.review import audit_rows, csv_text
from cosyedge.faults import Faults, write_plan
from cosyedge.observe import Observer

S = 1_764_000_000.0  # 2025-11-24 16:00 UTC, on a 10-minute boundary
E = S + 7200.0  # two hours: twelve 10-minute periods
SINCE, UNTIL = "2025-11-24T16:00+00:00", "2025-11-24T18:00+00:00"


class Troubles(Observer):
    """Keeps each trouble the history tells (a reason, or None once it writes again)."""

    def __init__(self, told: list) -> None:
        self.told = told

    def trouble(self, part: str, reason: str | None) -> None:
        self.told.append(reason)


def known_history() -> list[tuple[str, dict]]:
    """(kind, fact) in the order they happened, with the figures worked out below."""
    facts: list[tuple[str, dict]] = []

    def outcome(at: float, topic: str, kind: str = "spoken", priority: str = "high") -> None:
        fact = {"t": at + 1, "seq": len(facts), "id": f"i{len(facts)}", "topic": topic}
        facts.append(("outcome", {**fact, "priority": priority, "outcome": kind, "received": at}))

    facts.append(("standing", {"t": S - 5000, "id": "s4", "topic": "plant/s4", "since": E - 2e5}))
    outcome(S - 1, "plant/a", priority="critical")  # before the window
    for at in (10, 30, 65):  # three within 55 s: chattering
        outcome(S + at, "plant/a", priority="critical")
    standing = [{"id": "s1", "topic": "plant/s1", "since": E - 90000}]
    facts.append(("state", {"t": S + 100, "standing": standing, "shelved": {}}))  # s4 is gone
    facts.append(("standing", {"t": S + 200, "id": "s2", "topic": "plant/s2", "since": E - 3600}))
    facts.append(("standing", {"t": S + 300, "id": "s3", "topic": "plant/s3", "since": E - 1e5}))
    facts.append(("settled", {"t": S + 400, "id": "s3"}))
    facts.append(("standing", {"t": S + 401, "id": "s6", "topic": "plant/s6", "since": E - 1e5}))
    facts.append(("returned", {"t": S + 402, "id": "s6"}))  # to normal: no longer active
    facts.append(("shelf", {"t": S + 500, "topic": "plant/x", "until": E + 3600}))
    facts.append(("shelf", {"t": S + 501, "topic": "plant/z", "until": E - 10}))
    facts.append(("shelf", {"t": S + 502, "topic": "plant/w", "until": E + 100}))
    facts.append(("shelf", {"t": S + 503, "topic": "plant/w", "until": None}))
    for k in range(11):  # period 1: a flood of eleven, on eleven topics
        outcome(S + 600 + k * 50, f"plant/n{k}")
    for j in range(3):  # period 5: fifteen, the peak; five topics each thrice, 150 s apart
        for i in range(5):
            outcome(S + 3000 + j * 150 + i * 20, f"plant/c{i + 1}", priority="medium")
    for at, topic, kind in (
        (4800, "plant/d", "summarized"),
        (4810, "plant/d", "summarized"),
        (4820, "plant/e", "acknowledged"),
        (4830, "plant/f", "silenced"),
    ):
        outcome(S + at, topic, kind, priority="low")
    for kind in ("deduplicated", "shelved", "cleared", "expired", "return_to_normal", "rejected"):
        outcome(S + 5000, "plant/a", kind)  # not annunciated: none counts
    outcome(S + 5001, "plant/a", "failed")
    for at in (6000, 6030, 6060):  # exactly 60 s from first to third: chattering
        outcome(S + at, "plant/g", priority="low")
    outcome(E, "plant/a")  # the window's end is not in it
    facts.append(("standing", {"t": E + 10, "id": "s5", "topic": "plant/s5", "since": E - 1e5}))
    facts.append(
        ("command", {"t": S + 4825, "cmd": "ack", "id": "i40", "ids": ["i40"], "user": "ana"})
    )
    facts.append(("command_refused", {"t": S + 4900, "reason": "command: id: no", "command": "{}"}))
    return facts


EXPECTED = {
    "alarms": 36,
    "alarms_per_10_min": 3.0,
    "alarms_per_hour": 18.0,
    "periods": 12,
    "flood_periods": 2,
    "flood_period_percent": 100 * 2 / 12,
    "peak_alarms_per_10_min": 15,
    "top10_percent": 100 * 25 / 36,
    "chattering": ["plant/a", "plant/g"],
    "stale": ["plant/s1"],
    "shelved": ["plant/x"],
    "by_priority": {"critical": 3, "high": 11, "medium": 15, "low": 7},
}
TOP10 = [
    ["plant/a", 3],
    *([f"plant/c{i}", 3] for i in range(1, 6)),
    ["plant/g", 3],
    ["plant/d", 2],
    ["plant/e", 1],
    ["plant/f", 1],
]


def write_history(directory: Path, facts: list[tuple[str, dict]]) -> None:
    history = History(directory, keep_days=3660, max_bytes=10**9, clock=lambda: E)
    history.start()
    for kind, fact in facts:
        history.record(kind, **fact)
    history.stop(timeout=10)
    assert history.trouble is None


@pytest.fixture
def site(tmp_path: Path) -> Path:
    config = tmp_path / "site.yaml"
    config.write_text(f"state_dir: {tmp_path}/state\n")
    write_history(tmp_path / "state" / "history", known_history())
    return config


def report(config: Path, *args: str, here=None) -> str:
    """`cosyedge report` as a command, or in this process with `here` (pytest's capfd)."""
    command = ("report", *args, "--config", str(config), "--since", SINCE, "--until", UNTIL)
    done = cosyedge(*command) if here is None else cosyedge_here(here, *command)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_kpi_figures_of_a_known_history_match_the_hand_count(site):
    found = json.loads(report(site, "kpi", "--format", "json"))
    for name, value in EXPECTED.items():
        got = found[name]
        assert math.isclose(got, value) if isinstance(value, float) else got == value, name
    assert found["top10"] == TOP10
    counts = [n for _, n in found["per_period"]]
    assert counts == [3, 11, 0, 0, 0, 15, 0, 0, 4, 0, 3, 0]
    assert found["damaged_lines"] == {}


def test_kpi_as_a_table_and_as_csv(site, capfd):
    table = report(site, "kpi", here=capfd)
    assert "36 alarms annunciated, 12 periods of 10 minutes" in table
    assert "peak_alarms_per_10_min  15" in table and "Stale: plant/s1" in table
    rows = list(csv.DictReader(io.StringIO(report(site, "kpi", "--format", "csv", here=capfd))))
    figures_ = {r["name"]: r["value"] for r in rows if r["kind"] == "figure"}
    assert figures_["alarms"] == "36" and float(figures_["flood_period_percent"]) == 16.67
    assert [(r["name"], int(r["value"])) for r in rows if r["kind"] == "top10"] == [
        tuple(t) for t in TOP10
    ]
    assert sorted(r["name"] for r in rows if r["kind"] == "chattering") == EXPECTED["chattering"]
    assert sum(int(r["value"]) for r in rows if r["kind"] == "period") == 36


def test_kpi_plot_is_a_png_of_the_window(site, tmp_path, capfd):
    pytest.importorskip("matplotlib", reason="the report extra is not installed")
    out = tmp_path / "alarms.png"
    report(site, "kpi", "--plot", str(out), here=capfd)
    head = out.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", head[16:24])
    assert width > 500 and height > 200


def test_kpi_plot_from_a_history_copied_off_the_gateway(site, tmp_path, capfd):
    """docs/operations.md's way to the plot for a gateway without matplotlib: its history/
    copied to a workstation, read there through a file whose state_dir holds it, gives the
    gateway's figures and plot."""
    pytest.importorskip("matplotlib", reason="the report extra is not installed")
    shutil.copytree(tmp_path / "state" / "history", tmp_path / "gw1" / "history")
    workstation = tmp_path / "gw1.yaml"
    workstation.write_text(f"state_dir: {tmp_path}/gw1\n")
    assert report(workstation, "kpi", "--format", "csv", here=capfd) == report(
        site, "kpi", "--format", "csv", here=capfd
    )
    out = tmp_path / "kpi.png"
    report(workstation, "kpi", "--plot", str(out), here=capfd)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_audit_lists_commands_refusals_who_and_why(site, capfd):
    rows = list(csv.DictReader(io.StringIO(report(site, "audit", "--format", "csv", here=capfd))))
    assert [(r["who"], r["what"], r["target"], r["alarms"]) for r in rows] == [
        ("ana", "ack", "id i40", "i40"),
        ("operator", "refused", "{}", ""),
    ]
    assert rows[1]["why"] == "command: id: no"


def test_csv_cells_a_spreadsheet_would_run_as_formulas_are_made_text():
    cells = ["=1+1", "+1", "-1", "@SUM(A1)", "a=b", "ok, too", "", 7]
    (row,) = csv.reader(io.StringIO(csv_text([cells])))
    assert row == ["'=1+1", "'+1", "'-1", "'@SUM(A1)", "a=b", "ok, too", "", "7"]


def test_report_refuses_bad_windows_and_a_missing_history(tmp_path, site, capfd):
    bad = cosyedge_here(capfd, "report", "kpi", "--config", str(site), "--since", "last tuesday")
    assert bad.returncode == 2 and "--since: expected a span such as 7d" in bad.stderr
    empty = cosyedge_here(
        capfd, "report", "kpi", "--config", str(site), "--since", "1h", "--until", "2h"
    )
    assert empty.returncode == 2 and "the window is empty" in empty.stderr
    other = tmp_path / "other.yaml"
    other.write_text(f"state_dir: {tmp_path}/nowhere\n")
    none = cosyedge_here(capfd, "report", "audit", "--config", str(other))
    assert none.returncode == 2 and f"no alarm history in {tmp_path}/nowhere" in none.stderr


def test_free_text_is_not_an_alarm_and_the_period_covered_is_said(tmp_path, capfd):
    """Three phrases within a minute on a say topic are three announcements, not a chattering
    alarm, whether the fact names its alarm (null: an announcement) or was written before
    facts did (known by its topic: the say topics' are announcements); an alarm is its
    template's: its topic, or its topic and phrase. A window that began before the history
    did is cut to where it begins, and the report says so."""
    now = time.time()
    begun = now - 900  # a gateway installed 15 minutes ago
    facts: list[tuple[str, dict]] = [("start", {"t": begun, "version": "0.1.0"})]

    def said(at: float, topic: str, **alarm: str | None) -> None:
        fact = {"t": at + 1, "seq": len(facts), "topic": topic, "priority": "medium"}
        facts.append(("outcome", {**fact, "outcome": "spoken", "received": at, **alarm}))

    say_topics = ("cosyedge/say", "cosyedge/http/say", "cosyedge/notify", "hermes/tts/say")
    for i, topic in enumerate(say_topics):
        for k in range(3):
            said(begun + 60 + i * 100 + k * 10, topic, alarm=None)
            said(begun + 61 + i * 100 + k * 10, topic)
    for k in range(3):  # one source thrice within a minute: chattering
        said(begun + 600 + k * 10, "plant/3/temperature", alarm="plant/3/temperature")
    for text in ("Belt stopped.", "Belt stopped.", "Belt running."):  # `alarm: phrase`
        said(begun + 700, "plant/board", alarm=f"plant/board: {text}")
    write_history(tmp_path / "state" / "history", facts)
    config = tmp_path / "site.yaml"
    config.write_text(f"state_dir: {tmp_path}/state\n")

    def kpi(*args: str) -> subprocess.CompletedProcess[str]:
        return cosyedge_here(capfd, "report", "kpi", "--config", str(config), *args)

    found = json.loads(kpi("--since", "7d", "--format", "json").stdout)
    assert found["alarms"] == 6 and found["chattering"] == ["plant/3/temperature"]
    assert dict(found["top10"]) == {
        "plant/3/temperature": 3,
        "plant/board: Belt stopped.": 2,
        "plant/board: Belt running.": 1,
    }
    assert found["start"] == found["history_begins"] == begun
    assert found["asked_start"] < begun - 6 * DAY_S and found["periods"] <= 3
    assert math.isclose(found["alarms_per_hour"], 6 / ((found["end"] - begun) / 3600))
    table = kpi("--since", "7d").stdout
    assert "Only 15 min of the 7 d asked for" in table, table
    assert "is covered: the alarm history begins" in table
    ahead = kpi("--since", "1h", "--until", "2099-01-01")
    assert "the rest is still to come" in ahead.stdout, ahead.stderr
    before = kpi("--since", "30d", "--until", "20d")
    assert before.returncode == 2 and "after the window asked for ends" in before.stderr


DAMAGE = [
    b"{not json\n",
    b"[1, 2]\n",  # not an object
    b'{"t": 1764000100}\n',  # no kind
    b'{"e": "outcome", "t": "soon"}\n',  # a time that is not a number
    b'{"e": "outcome", "t": NaN}\n',  # nor a finite one
    b'{"e": "outcome", "t": true}\n',
    b"[" * 60_000 + b"\n",  # deeper than the parser goes
    b'{"e": "x", "t": 1764000100, "pad": "' + b"x" * (MAX_LINE * 2) + b'"}\n',  # too long
    b"\xff\xfe\n",  # not UTF-8
]


def test_damaged_lines_are_passed_over_and_counted_not_trusted(site, tmp_path, capfd):
    day = tmp_path / "state" / "history" / f"{day_of(S)}.jsonl"
    clean = json.loads(report(site, "kpi", "--format", "json", here=capfd))
    with day.open("ab") as f:
        f.writelines(DAMAGE)
        # Facts whose fields are of the wrong type: read, but nothing wrong taken from them.
        for fact in (
            {"e": "outcome", "t": S + 9, "outcome": "spoken", "topic": 7, "received": S + 9},
            {"e": "outcome", "t": S + 9, "outcome": "spoken", "topic": "t", "received": "x"},
            {"e": "standing", "t": S + 9, "id": ["s"], "since": E - 1e6},
            {"e": "state", "t": E - 5, "standing": "all", "shelved": ["plant/x"]},
            {"e": "shelf", "t": S + 9, "topic": "plant/q", "until": "forever"},
        ):
            f.write(json.dumps(fact).encode() + b"\n")
        f.write(b'{"e": "outcome", "t": 17640')  # torn: the last line a crash left
    found = json.loads(report(site, "kpi", "--format", "json", here=capfd))
    # The long line is read in three pieces; every other damaged line is one.
    assert found["damaged_lines"] == {day.name: len(DAMAGE) + 2 + 1}
    # "topic": "t" with an unusable receipt counts at the fact's own time; the restate
    # without usable lists leaves nothing standing or shelved.
    assert found["alarms"] == clean["alarms"] + 1
    assert found["stale"] == [] and found["shelved"] == []
    assert "damaged lines passed over" in report(site, "kpi", here=capfd)


# -- the writer -------------------------------------------------------------------------------
def facts_in(directory: Path) -> list[dict]:
    return list(read_facts(directory, 0.0, Skipped()))


def test_days_past_keep_days_go_and_today_stays(tmp_path):
    directory = tmp_path / "history"
    directory.mkdir()
    now = S + 0.5 * DAY_S
    for days_ago in (0, 1, 2, 3, 10):
        name = day_of(now - days_ago * DAY_S)
        (directory / f"{name}.jsonl").write_text(json.dumps({"e": "x", "t": now}) + "\n")
    (directory / "notes.txt").write_text("not ours")
    history = History(directory, keep_days=2, max_bytes=10**6, clock=lambda: now)
    history.start()
    history.record("start")
    history.stop()
    kept = sorted(p.name for p in directory.iterdir())
    days = [day_of(now - d * DAY_S) + ".jsonl" for d in (2, 1, 0)]
    assert kept == sorted([*days, "notes.txt"])


def test_the_size_cap_removes_old_days_then_stops_today_and_says_so(tmp_path):
    directory = tmp_path / "history"
    directory.mkdir()
    yesterday = directory / f"{day_of(S - DAY_S)}.jsonl"
    yesterday.write_bytes(b"x" * 6000)
    told: list[str | None] = []
    history = History(
        directory, keep_days=30, max_bytes=5000, clock=lambda: S, observer=Troubles(told)
    )
    history.start()
    for i in range(100):  # about 150 bytes each: some fit, the rest do not
        history.record("outcome", n=i, pad="x" * 100)
    history.stop()
    assert not yesterday.exists()  # over the cap, older than today: removed first
    written = facts_in(directory)
    assert 0 < len(written) < 100 and [f["n"] for f in written] == list(range(len(written)))
    assert (directory / f"{day_of(S)}.jsonl").stat().st_size <= 5000
    assert told and f"{100 - len(written)} facts not recorded" in told[-1]
    assert "alarms.history_mb" in told[-1]


def test_a_refusing_disk_keeps_facts_in_memory_and_writes_them_once_it_takes_them(tmp_path):
    plan = tmp_path / "faults.json"
    write_plan(plan, {"history.write": {"errno": "ENOSPC"}})
    told: list[str | None] = []
    history = History(tmp_path / "history", 30, 10**6, faults=Faults(plan), observer=Troubles(told))
    history.start()
    for i in range(50):
        history.record("outcome", n=i)
    wait_until(lambda: told, 5, "the refused write to be told")
    assert told and "cannot write" in str(told[0]) and "No space left" in str(told[0])
    write_plan(plan, {})
    for i in range(50, 60):
        history.record("outcome", n=i)
    history.stop(timeout=10)  # the retry comes within RETRY_S
    assert [f["n"] for f in facts_in(tmp_path / "history")] == list(range(60))
    assert told[-1] is None


def test_a_fact_too_long_for_a_line_keeps_its_counts(tmp_path):
    history = History(tmp_path / "history", 30, 10**8)
    history.start()
    history.record("event", kind="summary", ids=[f"id-{i}" for i in range(20_000)], text="x")
    history.stop()
    (fact,) = facts_in(tmp_path / "history")
    assert fact["ids_count"] == 20_000 and fact["kind"] == "summary" and "ids" not in fact


# -- the live figures ---------------------------------------------------------------------------
def spoken(at: float, topic: str = "plant/a") -> dict:
    return {"e": "outcome", "t": at, "outcome": "spoken", "topic": topic, "received": at}


def test_recent_alarms_seeded_and_heard_count_the_last_day_once():
    recent = RecentAlarms()
    now = S + DAY_S
    recent.heard(spoken(now - 10))
    recent.heard({"e": "outcome", "t": now - 5, "outcome": "deduplicated", "topic": "plant/a"})
    older = [Annunciation(now - 3600, "plant/b", "low"), Annunciation(S - 1, "x", "low")]
    recent.seed(older, now, begins=S - 5000)
    assert recent.figures(now).alarms == 2 and recent.figures(now).start == now - DAY_S
    assert recent.count(now - 600) == 1 and recent.complete(now)
    assert figures([], now - 600, now).peak_alarms_per_10_min == 0


def test_recent_alarms_of_a_history_younger_than_a_day_cover_only_its_time():
    recent = RecentAlarms()
    now = S + 1200  # the history began 20 minutes ago: two 10-minute periods, both floods
    recent.seed([Annunciation(S + i * 50, f"plant/{i}", "low") for i in range(24)], now, S)
    day = recent.figures(now)
    assert (day.start, day.end, day.periods, day.alarms) == (S, now, 2, 24)
    assert day.flood_periods / day.periods == 1.0  # not 2 of the 144 periods of a day
    assert day.alarms_per_hour == 72.0


def test_recent_alarms_past_their_room_say_the_day_is_not_all_there():
    recent = RecentAlarms(most=100)
    for i in range(150):
        recent.heard(spoken(S + i))
    assert recent.figures(S + 200).alarms == 100
    assert not recent.complete(S + 200)
    assert recent.complete(S + 149 + DAY_S + 1)  # once what was let go has aged out


def test_a_test_announcement_is_in_the_audit_under_the_operators_name(tmp_path):
    """The page's test announcements were in no audit and carried no name."""
    history = History(tmp_path, keep_days=2, max_bytes=10**6)
    history.start()
    history.record("test_announcement", user="ana", seq=7, request='{"text": "Test."}')
    history.record("outcome", seq=7, id=None, topic="cosyedge/http/say", outcome="spoken")
    history.stop(timeout=10)
    facts, _ = audit(tmp_path, 0, time.time() + 1)
    (row,) = audit_rows(facts)
    assert row[1:] == ("ana", "test announcement", "seq 7", "", '{"text": "Test."}')
