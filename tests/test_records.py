"""Every record the daemon reads back from its own disk (state_dir, its models directory, the
phrase cache) is read bounded: a file of gigabytes where a record of kB belongs (a sparse
file, a disk's garbage, a link to /dev/zero) is refused as damaged, as one that cannot be read
is, and never read whole into memory. Each reader below is given a sparse file of 3 GiB (no
disk space) and a link to /dev/zero in its record's place."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from cosyedge.regular import RECORD_MAX, read_record

HUGE = 3 << 30


def rss_mb() -> float:
    with open("/proc/self/statm", "rb") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def sparse(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(HUGE)
    return path


def test_a_record_is_read_whole_up_to_its_limit_and_refused_past_it(tmp_path):
    exact = tmp_path / "exact"
    exact.write_bytes(b"x" * 100)
    assert read_record(exact, 100) == b"x" * 100
    with pytest.raises(OSError) as raised:
        read_record(exact, 99)
    assert raised.value.errno == errno.EFBIG and "larger than 99 bytes" in str(raised.value)
    before = rss_mb()
    with pytest.raises(OSError):
        read_record(sparse(tmp_path / "huge"))
    assert rss_mb() - before < 2 * RECORD_MAX / (1 << 20) + 8  # only the limit was read
    for not_a_file in ("/dev/zero", str(tmp_path)):
        with pytest.raises(OSError):
            read_record(not_a_file)


def _graph_sidecar(root: Path) -> Callable[[], object]:
    from cosyedge.speech.kept import SavedDir
    from cosyedge.speech.voices.optimized import SavedModels

    model = root / "model.onnx"
    model.write_bytes(b"not read")
    saved = SavedModels(SavedDir(root / "models"))
    graph = saved.path(model, "k" * 64)
    graph.parent.mkdir(parents=True)
    graph.write_bytes(b"graph")
    record = graph.with_name(graph.name + ".json")
    return lambda: (record, lambda: saved.find(model, "k" * 64), None)


def _digests(root: Path) -> Callable[[], object]:
    from cosyedge.speech.kept import SavedDir, file_digest
    from cosyedge.speech.voices.optimized import SavedModels

    model = root / "model.onnx"
    model.write_bytes(b"a model")
    saved = SavedModels(SavedDir(root / "models"))
    (root / "models").mkdir()
    return lambda: (
        root / "models" / "digests.json",
        lambda: saved.source_digest(model),
        file_digest(model),
    )


def _kept_table(root: Path) -> Callable[[], object]:
    from cosyedge.speech.kept import problem_with

    made = root / "models" / "table.sqlite"
    made.parent.mkdir(parents=True)
    made.write_bytes(b"table")
    return lambda: (
        made.with_name(made.name + ".json"),
        lambda: "unreadable" in str(problem_with(made, {"x": 1})),
        True,
    )


def _last_good(root: Path) -> Callable[[], object]:
    from cosyedge.config.lastgood import LAST_GOOD_FILE, load
    from cosyedge.config.loader import ConfigError

    def read() -> str:
        try:
            load(root)
        except ConfigError:
            return "refused"
        return "read"

    return lambda: (root / LAST_GOOD_FILE, read, "refused")


def _mqtt_filters(root: Path) -> Callable[[], object]:
    from cosyedge.mqtt.kept import KeptFilters

    path = root / "filters.json"
    return lambda: (path, lambda: KeptFilters(path).earlier("gw"), [])


def _discovery(root: Path) -> Callable[[], object]:
    from cosyedge.homeassistant.discovery import _read

    path = root / "discovery.json"
    return lambda: (path, lambda: _read(path), set())


def _reload_answer(root: Path) -> Callable[[], object]:
    from cosyedge.service.reload import read_answer

    path = root / "answer.json"
    return lambda: (path, lambda: read_answer(path), None)


def _restarts(root: Path) -> Callable[[], object]:
    from cosyedge.service.selfwatch import count_restarts

    path = root / "starts"
    return lambda: (path, lambda: count_restarts(path), 0)


def _sparkplug(root: Path) -> Callable[[], object]:
    from cosyedge.sources.spb_store import load

    path = root / "sparkplug.json"
    return lambda: (path, lambda: load(path).__class__.__name__, "Kept")


def _conditions(root: Path) -> Callable[[], object]:
    from cosyedge.sources.conditions import _load

    path = root / "conditions.json"
    return lambda: (path, lambda: _load(path), {})


READERS = {
    "optimized graph's record": _graph_sidecar,
    "models' digests": _digests,
    "kept table's record": _kept_table,
    "last good configuration": _last_good,
    "MQTT session's filters": _mqtt_filters,
    "Home Assistant discovery": _discovery,
    "reload answer": _reload_answer,
    "restart count": _restarts,
    "Sparkplug state": _sparkplug,
    "OPC UA conditions": _conditions,
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("kind", ["sparse 3 GiB", "link to /dev/zero"])
def test_every_record_reader_refuses_a_huge_file_without_reading_it(tmp_path, reader, kind):
    path, read, as_damaged = READERS[reader](tmp_path)()
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "link to /dev/zero":
        path.unlink(missing_ok=True)
        path.symlink_to("/dev/zero")
    else:
        sparse(path)
    before = rss_mb()
    assert read() == as_damaged
    assert rss_mb() - before < 40  # a record's worth, not gigabytes


def test_the_phrase_cache_does_not_read_a_huge_file_where_an_entry_belongs(tmp_path):
    from cosyedge.speech.cache import PhraseCache

    cache = PhraseCache(tmp_path / "cache")
    key = "0" * 64
    sparse(cache.path(key))
    before = rss_mb()
    assert cache.get(key) is None
    assert rss_mb() - before < 40


def in_place(path: Path, kind: str) -> None:
    """Put `kind` where the file `path` belongs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "FIFO":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "link to /dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "dangling link":
        path.symlink_to(path.parent / "gone" / "nowhere")
    elif kind == "sparse 3 GiB":
        sparse(path)
    else:  # random bytes
        path.write_bytes(os.urandom(4096))


def finishes(work: Callable[[], object], seconds: float = 20.0) -> object:
    """What `work` returns, run on a thread: a test that would block for good fails instead."""
    import threading

    done: list[object] = []
    thread = threading.Thread(target=lambda: done.append(work()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert done, f"still blocked after {seconds} s"
    return done[0]


KINDS = ["FIFO", "directory", "link to /dev/zero", "dangling link", "sparse 3 GiB", "random bytes"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["journal.jsonl", "journal.lock", "journal.seq"])
def test_the_journal_opens_whatever_is_in_its_files_place(tmp_path, name, kind):
    """The journal's files (its records, its lock, its numbers' high-water mark) replaced by
    what no run wrote: the journal opens (what is not a file set aside, what does not parse
    damaged), without blocking or reading gigabytes, and takes alerts again."""
    import time

    from cosyedge.journal.store import Journal

    in_place(tmp_path / name, kind)
    journal = Journal(tmp_path / "journal.jsonl", keep_seen_s=60)
    before = rss_mb()
    finishes(journal.open, 10.0)  # a sparse journal is set aside, not scanned
    assert rss_mb() - before < 40
    assert not (tmp_path / "gone").exists()  # a link is set aside, never followed
    acked: list[int] = []
    journal.accept("plant/1/temp", b'{"id": "a"}', time.time(), then=lambda: acked.append(1))
    finishes(lambda: journal.flush(5))
    assert acked == [1]
    journal.stop()


@pytest.mark.parametrize("kind", KINDS)
def test_the_restart_count_and_canary_key_neither_block_nor_read_whole(tmp_path, kind):
    from cosyedge.service.canary import load_key
    from cosyedge.service.selfwatch import count_restarts

    in_place(tmp_path / "starts", kind)
    assert finishes(lambda: count_restarts(tmp_path / "starts")) == 0
    in_place(tmp_path / "canary.key", kind)

    def key() -> str:
        try:
            load_key(tmp_path / "canary.key")
        except OSError as exc:
            return f"refused: {exc}"
        return "read"

    before = rss_mb()
    assert finishes(key).startswith("refused") or kind == "random bytes"
    assert rss_mb() - before < 40


def test_a_journal_moved_elsewhere_behind_a_link_is_kept(tmp_path):
    """A link to a regular file is followed (a journal moved to another disk): its records are
    read, not set aside as a link to nothing is."""
    import time

    from cosyedge.journal.store import Journal

    elsewhere = tmp_path / "other-disk" / "journal.jsonl"
    first = Journal(elsewhere, keep_seen_s=60)
    first.open()
    first.accept("plant/1/temp", b'{"id": "a"}', time.time())
    finishes(lambda: first.flush(5))
    first.stop()
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "journal.jsonl").symlink_to(elsewhere)
    second = Journal(tmp_path / "state" / "journal.jsonl", keep_seen_s=60)
    assert [p.payload for p in second.open().pending] == [b'{"id": "a"}']
    second.stop()


def _kept_table(root: Path) -> tuple[Path, Callable[[], object]]:
    """A kept file as the tables are kept (`KeptFile`): its path, and a start's `ensure`."""
    from cosyedge.speech.kept import KeptFile, SavedDir

    made = lambda p: p.write_bytes(b"t")  # noqa: E731
    kept = KeptFile(SavedDir(root), "table", "a table", "t", {"v": 1}, made)
    return kept.path, kept.ensure


def _ahead(root: Path) -> tuple[Path, Callable[[], object]]:
    """Phrases rendered ahead (`AheadFile`): the file's path, and a start's read or render."""
    import numpy as np

    from cosyedge.speech.ahead import AheadFile, rendered_ahead
    from cosyedge.speech.kept import SavedDir

    keys = ["a" * 64]
    saved = SavedDir(root)
    render = lambda i: (22050, np.ones(100, np.int16))  # noqa: E731
    return AheadFile(saved, "faults-en", tuple(keys)).path, lambda: rendered_ahead(
        saved, "faults-en", keys, render
    )


def _graph(root: Path) -> tuple[Path, Callable[[], object]]:
    """A saved optimized graph (`SavedModels`): its path, and a start's commit of a new one."""
    from cosyedge.speech.kept import SavedDir
    from cosyedge.speech.voices.optimized import SavedModels

    model = root.parent / "model.onnx"
    model.write_bytes(b"not read")
    saved = SavedModels(SavedDir(root))

    def commit() -> None:
        root.mkdir(parents=True, exist_ok=True)
        tmp = root / ".tmp-graph"
        tmp.write_bytes(b"graph")
        saved.commit(model, "k" * 64, tmp)

    return saved.path(model, "k" * 64), commit


KEPT = {"kept table": _kept_table, "phrases rendered ahead": _ahead, "saved graph": _graph}


@pytest.mark.parametrize("record", [False, True])
@pytest.mark.parametrize("kind", ["FIFO", "directory", "link to /dev/zero", "dangling link"])
@pytest.mark.parametrize("family", sorted(KEPT))
def test_what_is_no_regular_file_where_a_kept_file_goes_is_set_aside(
    tmp_path, family, kind, record
):
    """A directory (which no rename replaces; set aside, never deleted) or a FIFO or link
    where a kept file or its record goes is out of the way when the file is made, not met
    again at every start."""
    root = tmp_path / "models"
    path, start = KEPT[family](root)
    target = path.with_name(path.name + ".json") if record else path
    in_place(target, kind)
    finishes(start)
    assert path.is_file() and not path.is_symlink()
    assert target.is_file() and not target.is_symlink()
    aside = [p.name for p in root.glob(f"{target.name}.set-aside-*")]
    assert aside or kind != "directory"  # the others may be removed (not a user's tree)
    finishes(start)  # and the next start finds it whole
    assert path.is_file() and target.is_file()


def test_what_is_set_aside_never_takes_the_name_of_what_was_before(tmp_path, monkeypatch):
    """Set aside again within the same second (a start looping, or names already there): a
    name of its own each time, what was set aside before kept as it was."""
    import time

    from cosyedge.regular import set_aside

    monkeypatch.setattr(time, "time", lambda: 1_000_000.0)
    path = tmp_path / "table.sqlite"
    for n in range(3):
        path.mkdir()
        (path / "mine.txt").write_text(f"user file {n}")
        assert set_aside(path) is not None and not path.exists()
    aside = sorted(p.name for p in tmp_path.iterdir())
    assert len(aside) == 3, aside
    texts = sorted((tmp_path / name / "mine.txt").read_text() for name in aside)
    assert texts == ["user file 0", "user file 1", "user file 2"]
