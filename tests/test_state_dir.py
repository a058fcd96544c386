"""A state directory that is nearly full, read-only or failing costs the annunciator nothing it
needs: every write into it at start (optimized graphs, tables, the models' digests, the last
good configuration, the canary key, the start and drop counts, the reload answer, the journal,
the history) is held in memory or done without, and is the fault `state` naming the directory
and its free space; nothing is written anywhere else, and what a full disk left half-written
is found and made again at the next start.

The daemon's own tests put `state_dir` on a real 1 MiB tmpfs (as root; they skip naming why
otherwise); the save paths are failed in turn by fault injection (cosyedge.faults)."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from support import Daemon, Listener, fill, mount, publish, wait_until

from cosyedge.alarms.history import History, Skipped, read_facts
from cosyedge.config import SessionConfig, lastgood, parse_config
from cosyedge.faults import Faults, write_plan
from cosyedge.journal import Journal
from cosyedge.service.canary import load_key
from cosyedge.service.reload import ReloadAnswer, read_answer, write_answer
from cosyedge.service.selfwatch import DropWatch, count_restarts
from cosyedge.service.statedir import StateWatch
from cosyedge.speech.kept import SavedDir, file_digest
from cosyedge.speech.voices.hibari import packaged_model
from cosyedge.speech.voices.session import make_session, model_digest
from cosyedge.speech.zh.readings import load_readings, pypinyin_readings

MODEL = packaged_model()  # hibari's 7.9 MB model: the quickest real one to load


def planned(tmp_path: Path, plan: dict) -> Faults:
    """Fault injection following `plan` (cosyedge.faults)."""
    path = tmp_path / "faults.json"
    write_plan(path, plan)
    return Faults(path)


def injected(strerror: str, site: str) -> str:
    """What an OSError injected at `site` says (cosyedge.faults)."""
    return f"{strerror} (injected at {site})"


def leftovers(directory: Path) -> list[Path]:
    """Temporary files left in `directory`, at any depth."""
    return sorted(p for p in directory.rglob(".*") if p.is_file())


# -- the optimized graphs, the models' digests and the tables ------------------------------------


@pytest.mark.parametrize("failing", ["/.onnx", "/hibari-"])  # its temporary file; the graph kept
def test_a_graph_that_cannot_be_saved_is_optimized_in_memory_and_is_the_fault(tmp_path, failing):
    models = tmp_path / "models"
    faults = planned(tmp_path, {"models.write": {"errno": "ENOSPC", "match": failing}})
    watch = StateWatch(tmp_path)
    session = make_session(MODEL, SessionConfig(), SavedDir(models, faults, watch))
    assert session.get_inputs()[0].name == "ids"
    why = injected("No space left on device", "models.write")
    assert re.fullmatch(
        rf"state_dir {tmp_path} \([^)]+ free of [^)]+\): cannot keep the optimized graph of "
        rf"hibari\.onnx \({re.escape(why)}\); held in memory or done without",
        watch.reason or "",
    )
    assert list(models.iterdir()) == []  # neither graph, record nor temporary file
    write_plan(tmp_path / "faults.json", {})  # the disk has room again: the next load keeps it
    make_session(MODEL, SessionConfig(), SavedDir(models, faults, watch))
    assert watch.reason is None
    assert len(list(models.glob("hibari-*.onnx"))) == 1


def test_onnxruntime_that_cannot_write_a_graph_on_a_full_disk_loads_it_all_the_same(tiny_fs):
    """The attack's own failure: onnxruntime writes the graph itself, and a disk too small for
    it fails the whole session (InvalidProtobuf), which used to refuse the voice."""
    watch = StateWatch(tiny_fs)
    session = make_session(MODEL, SessionConfig(), SavedDir(tiny_fs / "models", observer=watch))
    assert session.get_inputs()[0].name == "ids"
    # onnxruntime's own words ("Protobuf serialization failed") do not say the disk is full:
    # a graph about the model's size does not fit in what is free, and the reason says so.
    assert re.search(
        r"cannot keep the optimized graph of hibari\.onnx \(no space left on device: about "
        r"7\.\d MB to write, (\d+ bytes|\d+ kB|1\.0 MB) free\)",
        watch.reason or "",
    ), watch.reason
    assert "Protobuf" not in watch.reason
    assert leftovers(tiny_fs) == [] and list((tiny_fs / "models").iterdir()) == []


def test_the_free_space_the_fault_names_is_measured_again_at_each_tick(tiny_fs):
    watch = StateWatch(tiny_fs)
    watch.unkept("the canary key", "No space left on device")
    assert f"state_dir {tiny_fs} (1.0 MB free of 1.0 MB)" in watch.tick(0.0)["state"]
    filler = fill(tiny_fs)
    assert f"state_dir {tiny_fs} (0 bytes free of 1.0 MB)" in watch.tick(1.0)["state"]
    assert watch.reason == watch.tick(2.0)["state"]
    filler.unlink()
    assert "(1.0 MB free of 1.0 MB)" in watch.tick(3.0)["state"]


def test_the_models_digests_that_cannot_be_kept_are_read_again_next_time(tmp_path):
    models = tmp_path / "models"
    faults = planned(tmp_path, {"models.write": {"errno": "EIO", "match": "digests.json"}})
    watch = StateWatch(tmp_path)
    assert model_digest(MODEL, SavedDir(models, faults, watch)) == file_digest(MODEL)
    why = injected("Input/output error", "models.write")
    assert f"cannot keep the models' digests ({why})" in watch.reason
    assert list(models.iterdir()) == []


@pytest.mark.parametrize("failing", ["/.sqlite", "/pypinyin-readings-"])  # temporary; kept
def test_tables_that_cannot_be_kept_are_read_in_memory_and_are_the_fault(tmp_path, failing):
    models = tmp_path / "models"
    faults = planned(tmp_path, {"models.write": {"errno": "ENOSPC", "match": failing}})
    watch = StateWatch(tmp_path)
    assert load_readings(SavedDir(models, faults, watch)) is pypinyin_readings
    why = injected("No space left on device", "models.write")
    assert f"cannot keep pypinyin's reading tables ({why})" in watch.reason
    assert list(models.iterdir()) == []  # no table, record, temporary or SQLite journal


def test_what_a_writer_killed_mid_write_left_is_removed_at_the_next_start(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    gone = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True).stdout.strip()
    killed = models / f".tmp-{gone}-k7q2m9x1.onnx"  # a graph cut short by a kill or power cut
    killed.write_bytes(b"half a graph")
    writing = models / f".tmp-{os.getpid()}-w3e8r5t0.onnx"  # this process: still writing
    writing.write_bytes(b"being written")
    older = models / ".tmp-a1b2c3d4.sqlite"  # an earlier version's name, untouched for hours
    older.write_bytes(b"half a table")
    os.utime(older, (time.time() - 7200, time.time() - 7200))
    make_session(MODEL, SessionConfig(), SavedDir(models))
    assert not killed.exists() and not older.exists()
    assert writing.exists()


def test_a_graph_whose_record_has_no_graph_or_a_graph_cut_short_is_made_again(tmp_path):
    """What a full disk or a power cut leaves at the final names: found by the record's
    sha256, and made again, never loaded."""
    models = tmp_path / "models"
    make_session(MODEL, SessionConfig(), SavedDir(models))
    (graph,) = models.glob("hibari-*.onnx")
    good = graph.read_bytes()
    graph.write_bytes(good[: len(good) // 2])
    make_session(MODEL, SessionConfig(), SavedDir(models))
    assert graph.read_bytes() == good
    graph.unlink()  # its record stays: the rename of the graph is what did not happen
    make_session(MODEL, SessionConfig(), SavedDir(models))
    assert graph.read_bytes() == good


# -- the small files ----------------------------------------------------------------------------


def test_a_last_good_configuration_that_cannot_be_kept_leaves_the_one_before(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    before = parse_config(f"state_dir: {state}\n")
    lastgood.save(before, None)
    faults = planned(tmp_path, {"state.write": {"errno": "EIO", "match": "last-good"}})
    watch = StateWatch(state)
    lastgood.save(parse_config(f"state_dir: {state}\nlog_level: debug\n"), None, watch, faults)
    assert lastgood.load(state).config == before
    why = injected("Input/output error", "state.write")
    assert f"cannot keep the last good configuration ({why})" in watch.reason
    lastgood.save(before, None, watch, Faults())
    assert watch.reason is None


def test_a_last_good_configuration_cut_short_by_a_full_disk_leaves_no_temporary_file(tiny_fs):
    watch = StateWatch(tiny_fs)
    (tiny_fs / "state").mkdir()
    filler = fill(tiny_fs)
    lastgood.save(parse_config(f"state_dir: {tiny_fs}/state\n"), None, watch)
    assert "cannot keep the last good configuration (No space left on device)" in watch.reason
    assert "(0 bytes free of 1.0 MB)" in watch.reason
    filler.unlink()
    assert leftovers(tiny_fs) == []
    with pytest.raises(FileNotFoundError):
        lastgood.load(tiny_fs / "state")


def test_the_start_and_drop_counts_and_the_reload_answer_are_done_without(tmp_path):
    faults = planned(tmp_path, {"state.write": {"errno": "EROFS"}})
    watch = StateWatch(tmp_path)
    assert count_restarts(tmp_path / "starts", watch, faults) == 0
    drops = DropWatch(tmp_path / "broker-dropped.json", "b:1883", observer=watch, faults=faults)
    drops.heard(b"12")
    answer = ReloadAnswer(os.getpid(), 1, True, "applied")
    write_answer(tmp_path / "reload.json", answer, watch, faults)
    why = injected("Read-only file system", "state.write")
    assert watch.reason.endswith(
        f"cannot keep the start count ({why}), the broker's drop count ({why}), the reload "
        f"answer ({why}); held in memory or done without"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["faults.json"]
    write_plan(tmp_path / "faults.json", {})
    write_answer(tmp_path / "reload.json", answer, watch, faults)
    assert read_answer(tmp_path / "reload.json") == answer
    assert "the reload answer" not in watch.reason  # kept again: no longer in the fault


def test_a_canary_key_that_cannot_be_made_raises_and_leaves_nothing(tmp_path):
    faults = planned(tmp_path, {"state.write": {"errno": "ENOSPC", "match": "canary.key"}})
    with pytest.raises(OSError, match="No space left on device"):
        load_key(tmp_path / "canary.key", faults)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["faults.json"]


@pytest.fixture
def readonly_fs(tmp_path: Path):
    """An empty tmpfs mounted read-only (needs root)."""
    directory = tmp_path / "readonly"
    directory.mkdir()
    mount("-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(directory))
    subprocess.run(["mount", "-o", "remount,ro", str(directory)], check=True)
    yield directory
    subprocess.run(["umount", "-l", str(directory)], check=True)


def test_a_read_only_state_dir_opens_the_journal_in_memory_and_still_locks_it(readonly_fs):
    journal = Journal(readonly_fs / "journal.jsonl", 60.0)
    journal.open()  # the lock on the directory: no file can be made there
    try:
        assert "Read-only file system" in (journal.trouble or "")
        assert journal.accept("plant/1/alarm", b"{}", time.time()) == 1
        with pytest.raises(RuntimeError, match="another cosyedge is using it"):
            Journal(readonly_fs / "journal.jsonl", 60.0).open()
    finally:
        journal.stop()


def test_a_history_write_cut_short_by_a_full_disk_leaves_whole_lines(tiny_fs):
    history = History(tiny_fs / "history", keep_days=7, max_bytes=10_000_000)
    history.start()
    history.record("start", version="t")
    wait_until(lambda: any((tiny_fs / "history").glob("*.jsonl")), 10, "the first fact")
    wait_until(lambda: history.trouble is None, 10, "the first write")
    filler = fill(tiny_fs, 4096)
    for i in range(200):  # past the room left in the page the file already has
        history.record("alert", id=f"a-{i}", text="Boiler pressure high. " * 4)
    wait_until(lambda: history.trouble is not None, 10, "the full disk")
    filler.unlink()
    wait_until(lambda: history.trouble is None, 15, "writing again")
    history.stop()
    skipped = Skipped()
    facts = list(read_facts(tiny_fs / "history", 0.0, skipped))
    assert skipped.damaged == {}
    assert [f["id"] for f in facts if f["e"] == "alert"] == [f"a-{i}" for i in range(200)]


def test_the_fault_names_the_directory_its_space_and_at_most_three_things(tmp_path):
    watch = StateWatch(tmp_path / "not-yet")  # its free space: that of its nearest parent
    assert watch.tick(0.0) == {"state": None}
    for what in ("a", "b", "c", "d"):
        watch.unkept(what, "No space left on device")
    reason = watch.tick(0.0)["state"]
    assert reason.startswith(f"state_dir {tmp_path / 'not-yet'} (")
    assert " free of " in reason
    assert reason.endswith(
        "cannot keep a (No space left on device), b (No space left on device), c (No space "
        "left on device) and 1 more; held in memory or done without"
    )
    for what in ("a", "b", "c", "d"):
        watch.unkept(what, None)
    assert watch.tick(0.0) == {"state": None}


# -- the daemon ---------------------------------------------------------------------------------

STATUS, REPORT = "cosyedge/status", "cosyedge/report"


@pytest.mark.parametrize("disk", ["tiny", "full"])
def test_a_daemon_on_a_tiny_or_full_state_dir_speaks_says_why_and_writes_nowhere_else(
    disk, tmp_path, tiny_fs, broker, alsa_sink
):
    """The attack: state_dir (and the phrase cache) on a 1 MiB tmpfs, empty (nothing the
    voices make fits) or full to the last byte. The voices load from their own models, the
    alert is spoken, the fault `state` names the directory and its free space, the file runs
    (not the safe core, no broker of its own), and HOME and TMPDIR stay empty."""
    home, temp = tmp_path / "home", tmp_path / "temp"
    home.mkdir()
    temp.mkdir()
    if disk == "full":
        fill(tiny_fs, 4096)
    config = (
        f"mqtt:\n  port: {broker.port}\n  local_broker: false\n"
        f"cache:\n  dir: {tiny_fs}/cache\nstate_dir: {tiny_fs}/state\n"
    )
    nowhere = {name: str(home / name) for name in ("XDG_CACHE_HOME", "XDG_STATE_HOME")}
    nowhere |= {"XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / "data")}
    nowhere |= {"STATE_DIRECTORY": "", "CACHE_DIRECTORY": "", "XDG_RUNTIME_DIR": str(home / "run")}
    env = {**alsa_sink.env, **nowhere, "HOME": str(home), "TMPDIR": str(temp)}
    watch = Listener(broker.port, STATUS, REPORT)
    daemon = Daemon(tmp_path / "daemon", config, env).start()
    try:
        statuses = watch.wait_for(STATUS, lambda s: "state" in s[-1].get("faults", {}), 30)
        reason = statuses[-1]["faults"]["state"]
        assert reason.startswith(f"state_dir {tiny_fs}/state (")
        assert " free of 1.0 MB" in reason and "; held in memory or done without" in reason
        daemon.wait_for_log(r"spoke fault fault:state .*state directory is full")
        publish(broker.port, "cosyedge/say", "Forklift in aisle four.")
        reports = watch.wait_for(REPORT, lambda r: any(x.get("outcome") for x in r), 30)
        (said,) = [r for r in reports if r.get("outcome")]
        assert (said["outcome"], said["text"]) == ("spoken", "Forklift in aisle four.")
        played = wait_until(lambda: len(alsa_sink.streams()) >= 2 and alsa_sink.streams(), 10, "")
        assert np.abs(played[-1].astype(np.float32)).mean() > 300  # speech, not silence
        log = daemon.log()
        assert "configuration refused" not in log and "starting local Mosquitto" not in log
        assert "voice hibari-heart loaded for en" in log
    finally:
        assert daemon.stop() == 0
        watch.close()
    assert sorted(home.rglob("*")) == [] and sorted(temp.rglob("*")) == []
    assert leftovers(tiny_fs) == []  # nothing half-written left on the small disk either


def test_many_half_written_files_are_removed_in_one_line(tmp_path, caplog):
    """What killed writers left is removed at the next write, and said once, not a line a
    file (5,000 junk files made 1,235 warnings at one start)."""
    import logging

    from cosyedge.speech.kept import TEMP_PREFIX, SavedDir

    saved = SavedDir(tmp_path)
    dead = 2**22 + 12345  # above pid_max's default: no process has it
    for n in range(500):
        (tmp_path / f"{TEMP_PREFIX}{dead}-{n:04d}.onnx").write_bytes(b"half")
    (tmp_path / "kept.onnx").write_bytes(b"whole")
    caplog.set_level(logging.WARNING, logger="cosyedge")
    saved.sweep()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.onnx"]
    lines = [r for r in caplog.records if "half-written" in r.getMessage()]
    assert len(lines) == 1 and "removed 500 files" in lines[0].getMessage()
