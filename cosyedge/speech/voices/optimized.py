"""Saved optimized ONNX graphs: written on first load, reused later, never trusted blindly.

A saved graph is only valid for the same source model, onnxruntime version, optimization level,
CPU (level `all` may bake in layouts for the CPU's vector width) and the engine's session config
entries, so all five make its key.
A JSON sidecar records the graph's own sha256; a file that does not match it (torn write, disk
error, edits) is deleted and rebuilt from the source model, as is one that loads as a graph
of other inputs or outputs than the model's (another model's graph put in its place, its
record edited to match: `session.py` asks the model, `onnxnames.py`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import platform
from collections.abc import Mapping
from pathlib import Path

from cosyedge.regular import load_record
from cosyedge.speech.kept import (
    SavedDir,
    clear_way,
    file_digest,
    problem_of,
    short_of_space,
    write_whole,
)

log = logging.getLogger(__name__)

_CPU_FIELDS = ("model name", "flags", "Features", "CPU implementer", "CPU part")


def onnxruntime_version() -> str:
    """onnxruntime's version, imported here only: a phrase said from the cache never needs it."""
    import onnxruntime

    return str(onnxruntime.__version__)


def cpu_identity() -> str:
    """A short hash of what makes optimized graphs CPU-specific: architecture, model and flags."""
    fields = {"machine": platform.machine()}
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        cpuinfo = platform.processor()
    for line in cpuinfo.splitlines():
        name, _, value = line.partition(":")
        name = name.strip()
        if name in _CPU_FIELDS and name not in fields:
            fields[name] = " ".join(sorted(value.split()))
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]


DIGESTS = "the models' digests"


class SavedModels:
    def __init__(self, saved: SavedDir) -> None:
        self.saved = saved
        self.directory = saved.path

    def source_digest(self, model: Path) -> str:
        """The model's sha256, remembered by path, size, mtime and inode, so that an unchanged
        model is not read again at every start (63 MB take 45 ms here)."""
        record_path = self.directory / "digests.json"
        try:
            records = load_record(record_path)
        except (OSError, ValueError):
            records = {}
        stat = model.stat()
        where = str(model.resolve())
        seen = [stat.st_size, stat.st_mtime_ns, stat.st_ino]
        known = records.get(where) if isinstance(records, dict) else None
        if isinstance(known, dict) and known.get("stat") == seen and known.get("sha256"):
            return str(known["sha256"])
        digest = file_digest(model)
        records = records if isinstance(records, dict) else {}
        records[where] = {"stat": seen, "sha256": digest}
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.saved.check(record_path)
            write_whole(record_path, json.dumps(records, indent=1).encode())
        except OSError as exc:  # the model is read again at the next start
            log.warning("cannot keep %s in %s (%s)", DIGESTS, self.directory, problem_of(exc))
            self.saved.unkept(DIGESTS, problem_of(exc))
        else:
            self.saved.unkept(DIGESTS, None)
        return digest

    def key(self, source_digest: str, level: str, entries: Mapping[str, str] | None = None) -> str:
        """The key of a saved graph; session config `entries` (which change what the optimizer
        writes, e.g. MatMulNBits' compute type) are part of it, none keeps the older keys."""
        parts = [source_digest, onnxruntime_version(), cpu_identity(), level]
        parts += [f"{k}={v}" for k, v in sorted((entries or {}).items())]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()

    def _prefix(self, model: Path) -> str:
        # One family of files per source path, so a replaced model's old graphs can be pruned.
        where = hashlib.sha256(str(model.resolve()).encode()).hexdigest()[:8]
        return f"{model.stem}-{where}-"

    def path(self, model: Path, key: str) -> Path:
        return self.directory / f"{self._prefix(model)}{key[:16]}.onnx"

    @staticmethod
    def _sidecar(path: Path) -> Path:
        return path.with_name(path.name + ".json")

    def find(self, model: Path, key: str) -> Path | None:
        """The saved graph for this key if it is intact; a damaged one is removed."""
        path = self.path(model, key)
        try:
            if not path.exists():
                return None
        except OSError as exc:  # an unreadable state_dir: slower starts, not a failed one
            log.warning("cannot read saved optimized models in %s (%s)", self.directory, exc)
            return None
        try:
            record = load_record(self._sidecar(path))
            expected, recorded_key = record["sha256"], record["key"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            self.discard(path, f"its record is missing or unreadable ({exc})")
            return None
        if recorded_key != key:
            self.discard(path, "it was made from another model, runtime or CPU")
            return None
        try:
            actual = file_digest(path)
        except OSError as exc:
            self.discard(path, f"it cannot be read ({exc})")
            return None
        if actual != expected:
            self.discard(path, "its sha256 does not match the one recorded when it was saved")
            return None
        return path

    def discard(self, path: Path, reason: str) -> None:
        log.warning("saved optimized model %s is not usable: %s; rebuilding it", path, reason)
        for p in (path, self._sidecar(path)):
            with contextlib.suppress(OSError):
                p.unlink()

    def target(self, model: Path) -> Path | None:
        """A temporary path for onnxruntime to write `model`'s optimized graph to, for
        `commit` or `drop`; None (told) when the directory takes no file: the model then
        loads as before, only slower. Temporary files of writers that are gone are removed."""
        self.saved.sweep()
        try:
            return self.saved.temp(".onnx")
        except OSError as exc:
            self.unsaved(model, exc)
            return None

    def unsaved(self, model: Path, exc: BaseException) -> None:
        """`model`'s optimized graph was not saved, for `exc`: said, and told as not kept.
        onnxruntime's words for a full disk are not those (`Protobuf serialization failed`):
        when less is free than a graph about the model's size, the reason is no space."""
        what = graph_of(model)
        problem = problem_of(exc)
        if not isinstance(exc, OSError):
            problem = short_of_space(self.directory, _size(model)) or problem
        log.warning("cannot save %s in %s (%s)", what, self.directory, problem)
        self.saved.unkept(what, problem)

    @staticmethod
    def drop(tmp: Path) -> None:
        with contextlib.suppress(OSError):
            tmp.unlink()

    def commit(self, model: Path, key: str, tmp: Path) -> None:
        """Keep the graph onnxruntime wrote to `tmp` under `key`; a failure is told and keeps
        no graph. `tmp` is gone either way."""
        try:
            if tmp.stat().st_size == 0:
                return  # onnxruntime did not write it (nothing to optimize): nothing to keep
            path = self._place(model, key, tmp)
        except OSError as exc:
            self.unsaved(model, exc)
            return
        finally:
            self.drop(tmp)
        log.info("saved optimized model for %s in %s", model.name, path)
        self.saved.unkept(graph_of(model), None)
        self._prune(model, path)

    def _place(self, model: Path, key: str, tmp: Path) -> Path:
        """Its record first, then the graph renamed into place: a reader that finds the graph
        finds its record, and a record without its graph is never read."""
        path = self.path(model, key)
        self.saved.check(path)
        record = {"key": key, "sha256": file_digest(tmp), "source": str(model)}
        record["onnxruntime"] = onnxruntime_version()
        clear_way(self._sidecar(path), path)
        write_whole(self._sidecar(path), json.dumps(record, indent=1).encode())
        os.replace(tmp, path)
        return path

    def _prune(self, model: Path, kept: Path) -> None:
        for old in self.directory.glob(f"{self._prefix(model)}*.onnx"):
            if old != kept:
                log.info("removing optimized model of an earlier version: %s", old)
                for p in (old, self._sidecar(old)):
                    with contextlib.suppress(OSError):
                        p.unlink()


def graph_of(model: Path) -> str:
    """How the fault names a model's saved graph."""
    return f"the optimized graph of {model.name}"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # gone meanwhile: nothing to compare with
        return 0
