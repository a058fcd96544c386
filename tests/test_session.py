"""The ONNX session factory: settings reach onnxruntime, saved optimized graphs are reused and
never trusted when damaged."""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from support import once_per_run

from cosyedge.config import SessionConfig, VoiceConfig
from cosyedge.speech.kept import SavedDir
from cosyedge.speech.voices import load_voice
from cosyedge.speech.voices.hibari import packaged_model
from cosyedge.speech.voices.session import make_session

MODEL = packaged_model()  # hibari's 7.9 MB model: the quickest real one to load


def os_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def test_settings_reach_the_session():
    settings = SessionConfig(
        intra_op_threads=2,
        inter_op_threads=2,
        execution_mode="parallel",
        graph_optimization="basic",
        allow_spinning=True,
        memory_arena=False,
    )
    options = make_session(MODEL, settings, None).get_session_options()
    assert options.intra_op_num_threads == 2
    assert options.inter_op_num_threads == 2
    assert options.execution_mode == ort.ExecutionMode.ORT_PARALLEL
    assert options.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    assert options.enable_cpu_mem_arena is False
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "1"
    default = make_session(MODEL, SessionConfig(), None).get_session_options()
    assert default.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert default.execution_mode == ort.ExecutionMode.ORT_SEQUENTIAL


@pytest.mark.parametrize("threads", [1, 3])
def test_intra_op_threads_is_the_number_of_threads_onnxruntime_computes_on(threads):
    before = os_threads()
    session = make_session(MODEL, SessionConfig(intra_op_threads=threads), None)
    # onnxruntime computes on the calling thread plus a pool of threads - 1.
    assert os_threads() - before == threads - 1
    del session


def saved_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.glob("*.onnx") if not p.name.startswith("."))


def speaks(voice) -> bool:
    pcm = np.concatenate(list(voice.synthesize("Pump two stopped.")))
    return len(pcm) > 0.5 * voice.sample_rate and np.abs(pcm.astype(float)).mean() > 100


def test_an_engines_session_entries_reach_the_session_and_key_its_saved_graph(tmp_path):
    entries = {"session.qdq_matmulnbits_accuracy_level": "1"}
    session = make_session(MODEL, SessionConfig(), SavedDir(tmp_path), entries=entries)
    options = session.get_session_options()
    assert options.get_session_config_entry("session.qdq_matmulnbits_accuracy_level") == "1"
    (with_entries,) = saved_files(tmp_path)
    make_session(MODEL, SessionConfig(), SavedDir(tmp_path))  # without them: made again, not reused
    (without,) = saved_files(tmp_path)
    assert without != with_entries


def test_optimized_graph_is_saved_once_then_reused(tmp_path, caplog):
    caplog.set_level(logging.DEBUG, logger="cosyedge")
    config = VoiceConfig(engine="piper")
    first = load_voice("en", config, tmp_path)
    (saved,) = saved_files(tmp_path)
    record = json.loads(Path(f"{saved}.json").read_text())
    assert record["onnxruntime"] == ort.__version__
    stamp = saved.stat().st_mtime_ns
    # Once saved, the first load too runs the saved graph, as every later one does.
    assert first.session.get_session_options().graph_optimization_level == (
        ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    assert speaks(first)

    again = load_voice("en", config, tmp_path)
    assert saved_files(tmp_path) == [saved]
    assert saved.stat().st_mtime_ns == stamp
    # The reused graph is loaded as it is: nothing left to optimize.
    assert again.session.get_session_options().graph_optimization_level == (
        ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    assert "reused saved optimized model" in caplog.text
    assert speaks(again)


@pytest.fixture(scope="session")
def hibari_kept(tmp_path_factory) -> Path:
    """What hibari's first load keeps (its optimized graphs and G2P tables), made once per run
    by the first worker to ask; a test that damages one copies them all (made in each test,
    the G2P tables were most of its CPU)."""

    def make(directory: Path) -> None:
        load_voice("en", VoiceConfig(engine="hibari"), directory / "models")

    return once_per_run(tmp_path_factory.getbasetemp(), "hibari-kept", make) / "models"


@pytest.mark.parametrize("damage", ["flip", "truncate", "sidecar"])
def test_damaged_saved_graph_is_detected_and_rebuilt(tmp_path, caplog, damage, hibari_kept):
    config = VoiceConfig(engine="hibari")
    shutil.copytree(hibari_kept, tmp_path, dirs_exist_ok=True)
    saved = next(p for p in saved_files(tmp_path) if p.name.startswith("hibari-"))
    good = saved.read_bytes()
    if damage == "flip":  # one weight byte changed: onnxruntime itself would not notice
        data = bytearray(good)
        data[len(data) // 2] ^= 0xFF
        saved.write_bytes(bytes(data))
    elif damage == "truncate":
        saved.write_bytes(good[: len(good) // 3])
    else:
        Path(f"{saved}.json").write_text("{not json")

    caplog.set_level(logging.WARNING, logger="cosyedge")
    voice = load_voice("en", config, tmp_path)
    assert f"saved optimized model {saved} is not usable" in caplog.text
    assert saved.read_bytes() == good  # rebuilt: the same optimization of the same model
    record = json.loads(Path(f"{saved}.json").read_text())
    assert len(record["sha256"]) == 64
    # Rebuilt, then run as saved: the graph made again, as a later start would load it.
    assert voice.session.get_session_options().graph_optimization_level == (
        ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    assert speaks(voice)


@pytest.mark.parametrize(("put", "over"), [("oov-", "hibari-"), ("hibari-", "oov-")])
def test_another_models_graph_with_its_record_made_to_match_is_rebuilt(
    tmp_path, caplog, hibari_kept, put, over
):
    """A graph put in another's place with its record edited to match (sha256, key and all)
    passes every check of the file and loads, but takes and gives what another model does:
    the model itself is asked, and the graph is removed and made again, not run (hibari's
    first phrase failed, and every start with it; the G2P's failed at every unknown word)."""
    from cosyedge.speech.kept import file_digest

    shutil.copytree(hibari_kept, tmp_path, dirs_exist_ok=True)
    target = next(p for p in saved_files(tmp_path) if p.name.startswith(over))
    source = next(p for p in saved_files(tmp_path) if p.name.startswith(put))
    good = target.read_bytes()
    shutil.copyfile(source, target)
    record = json.loads(Path(f"{source}.json").read_text())
    record |= {"key": json.loads(Path(f"{target}.json").read_text())["key"]}
    Path(f"{target}.json").write_text(json.dumps(record | {"sha256": file_digest(target)}))

    caplog.set_level(logging.WARNING, logger="cosyedge")
    voice = load_voice("en", VoiceConfig(engine="hibari"), tmp_path)
    assert f"saved optimized model {target} is not usable: its inputs and outputs" in caplog.text
    assert target.read_bytes() == good
    assert speaks(voice)
    pcm = np.concatenate(list(voice.synthesize("Zorblaxitude qwerkin pump stopped.")))
    assert len(pcm) > voice.sample_rate  # unknown words: the G2P's own net runs


def test_graph_saved_for_another_model_version_is_replaced(tmp_path):
    model = tmp_path / "voice" / "model.onnx"
    model.parent.mkdir()
    model.write_bytes(MODEL.read_bytes())
    store = SavedDir(tmp_path / "models")
    make_session(model, SessionConfig(), store)
    (old,) = saved_files(store.path)
    # A new model at the same path (an update): its graph gets a new key, the old one goes.
    import onnx

    proto = onnx.load(str(MODEL))
    proto.doc_string = "updated"
    onnx.save(proto, str(model))
    make_session(model, SessionConfig(), store)
    (new,) = saved_files(store.path)
    assert new != old
    assert not Path(f"{old}.json").exists()


def test_unwritable_store_still_loads(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    caplog.set_level(logging.WARNING, logger="cosyedge")
    session = make_session(MODEL, SessionConfig(), SavedDir(blocker / "models"))
    assert session.get_inputs()[0].name == "ids"
    assert "cannot save the optimized graph of hibari.onnx" in caplog.text


def test_each_engine_has_its_measured_arena_default_and_config_overrides_it(
    piper_voice, hibari_voice
):
    assert piper_voice.session.get_session_options().enable_cpu_mem_arena is True
    assert hibari_voice.session.get_session_options().enable_cpu_mem_arena is False
    forced = VoiceConfig(engine="hibari", session=SessionConfig(memory_arena=True))
    assert load_voice("en", forced).session.get_session_options().enable_cpu_mem_arena is True


def test_a_model_changed_in_place_gets_a_new_identity(tmp_path, hibari_kept):
    import onnx

    model = tmp_path / "heart.onnx"
    model.write_bytes(MODEL.read_bytes())
    config = VoiceConfig(engine="hibari", model=model)
    store = SavedDir(shutil.copytree(hibari_kept, tmp_path / "models"))  # the G2P tables
    before = load_voice("en", config, store).identity
    assert load_voice("en", config, store).identity == before  # remembered, not re-read
    proto = onnx.load(str(model))
    proto.doc_string = "retrained"
    onnx.save(proto, str(model))
    assert load_voice("en", config, store).identity != before


@pytest.mark.system
def test_running_out_of_memory_while_loading_keeps_the_saved_graph(tmp_path):
    """A graph whose sha256 matched is intact: failing to load it for want of memory must not
    delete it (rebuilding it from the source model would need even more memory)."""
    import subprocess
    import sys

    load_voice("en", VoiceConfig(engine="piper"), tmp_path)
    (saved,) = saved_files(tmp_path)
    good = saved.read_bytes()
    script = (
        "import resource, sys\n"
        "from pathlib import Path\n"
        "import numpy, onnxruntime, piper.voice\n"
        "from cosyedge.config import VoiceConfig\n"
        "from cosyedge.speech.voices import load_voice\n"
        "resource.setrlimit(resource.RLIMIT_DATA, (140 << 20, 140 << 20))\n"
        "load_voice('en', VoiceConfig(engine='piper'), Path(sys.argv[1]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True
    )
    assert result.returncode != 0
    # onnxruntime says bad_alloc, or (in about one run in ten here) glibc aborts it on a
    # pointer its failed allocation left: either way the process was out of memory.
    aborted = result.returncode < 0 and "munmap_chunk" in result.stderr
    said = "bad_alloc" in result.stderr or "allocate" in result.stderr
    assert said or aborted, result.stderr[-2000:]
    assert "not usable" not in result.stderr
    assert saved.read_bytes() == good


SESSION_HEAP = """
import ctypes, gc, sys
from pathlib import Path
from cosyedge.config import SessionConfig
from cosyedge.speech.kept import SavedDir
from cosyedge.speech.voices.hibari import packaged_model
from cosyedge.speech.voices.session import make_session
import onnxruntime

def anon_mb():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024

def settled():
    gc.collect()
    ctypes.CDLL(None).malloc_trim(0)
    return anon_mb()

before = settled()
session = make_session(packaged_model(), SessionConfig(), SavedDir(Path(sys.argv[1])))
print(settled() - before)
"""


def test_a_first_load_holds_what_a_later_one_holds(tmp_path):
    """The session that optimized a model keeps what optimizing left (8 MB of heap for
    hibari's model) for as long as it lives: a first load, which saves the graph, holds the
    session a later load makes from it instead, so a first start is not the larger for the
    whole of its run. Each load in a process of its own."""
    import subprocess
    import sys

    def held(directory: Path) -> float:
        done = subprocess.run(
            [sys.executable, "-c", SESSION_HEAP, str(directory)],
            capture_output=True,
            text=True,
            check=True,
        )
        return float(done.stdout.split()[-1])

    first = held(tmp_path)
    assert len(saved_files(tmp_path)) == 1
    later = held(tmp_path)
    assert first < later + 3, (first, later)
    assert later > 5  # the model's weights, at least: the measure sees a session
