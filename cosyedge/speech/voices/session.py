"""The one place ONNX sessions are made, so every model obeys the same settings.

Graph optimization costs most of a model's load time, so the optimized graph is saved on first
load and reused later (see `optimized.py`). A graph that cannot be saved costs a slower start,
never the voice: the model is then optimized in memory.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from cosyedge.config.voices import SessionConfig
from cosyedge.speech.kept import SavedDir
from cosyedge.speech.voices.onnxnames import declared
from cosyedge.speech.voices.optimized import SavedModels, file_digest

if TYPE_CHECKING:
    import onnxruntime as ort

log = logging.getLogger(__name__)

# onnxruntime's names for the config's values. onnxruntime itself is imported only where a
# session is made: a phrase said from the cache never needs it (0.15 s of CPU to import).
_LEVELS = {
    "disabled": "ORT_DISABLE_ALL",
    "basic": "ORT_ENABLE_BASIC",
    "extended": "ORT_ENABLE_EXTENDED",
    "all": "ORT_ENABLE_ALL",
}
_MODES = {"sequential": "ORT_SEQUENTIAL", "parallel": "ORT_PARALLEL"}
PROVIDERS = ["CPUExecutionProvider"]


def with_engine_defaults(settings: SessionConfig, memory_arena: bool) -> SessionConfig:
    """Fill in what the config leaves to the engine (measured per engine: docs/measurements.md)."""
    if settings.memory_arena is None:
        return dataclasses.replace(settings, memory_arena=memory_arena)
    return settings


def session_options(
    settings: SessionConfig, entries: Mapping[str, str] | None = None
) -> ort.SessionOptions:
    """Options from the config, plus the engine's own session config `entries` (what its
    models need of onnxruntime to compute the same on every CPU)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = settings.intra_op_threads
    options.inter_op_num_threads = settings.inter_op_threads
    options.execution_mode = getattr(ort.ExecutionMode, _MODES[settings.execution_mode])
    level = _LEVELS[settings.graph_optimization]
    options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
    options.enable_cpu_mem_arena = settings.memory_arena is not False
    options.add_session_config_entry(
        "session.intra_op.allow_spinning", "1" if settings.allow_spinning else "0"
    )
    options.add_session_config_entry(
        "session.inter_op.allow_spinning", "1" if settings.allow_spinning else "0"
    )
    for key, value in (entries or {}).items():
        options.add_session_config_entry(key, value)
    options.log_severity_level = 3
    return options


def model_digest(model: Path, saved_dir: SavedDir | None) -> str:
    """sha256 of a model file; with a saved-models directory, remembered between starts."""
    return SavedModels(saved_dir).source_digest(model) if saved_dir else file_digest(model)


def make_session(
    model: Path,
    settings: SessionConfig,
    saved_dir: SavedDir | None,
    digest: str | None = None,
    entries: Mapping[str, str] | None = None,
) -> ort.InferenceSession:
    """A session for `model`; with `saved_dir`, through the saved optimized graph.

    `digest` is the model's sha256 when the caller has it already (it is part of the voice
    identity), so the file is not hashed twice. `entries` are session config entries of the
    engine's own; they shape the optimized graph, so they are part of its saved key.
    """
    saving = settings.save_optimized and settings.graph_optimization != "disabled"
    if saved_dir is None or not saving:
        return _session(model, settings, entries)
    saved = SavedModels(saved_dir)
    key = saved.key(digest or file_digest(model), settings.graph_optimization, entries)
    reusable = saved.find(model, key)
    session = _reused(saved, reusable, model, settings, entries) if reusable is not None else None
    if session is not None:
        return session
    return _optimized(saved, model, key, settings, entries)


def _session(
    model: Path,
    settings: SessionConfig,
    entries: Mapping[str, str] | None,
    save_to: Path | None = None,
) -> ort.InferenceSession:
    """`model` optimized as configured, in memory; with `save_to`, the optimized graph
    written there too."""
    import onnxruntime as ort

    options = session_options(settings, entries)
    if save_to is not None:
        options.optimized_model_filepath = str(save_to)
    return ort.InferenceSession(str(model), options, providers=PROVIDERS)


def _reused(
    saved: SavedModels,
    graph: Path,
    model: Path,
    settings: SessionConfig,
    entries: Mapping[str, str] | None,
) -> ort.InferenceSession | None:
    """A session on the saved optimized `graph`, not optimized again; None when onnxruntime
    cannot load it, or it takes or gives other inputs or outputs than the model it was saved
    for (it is removed, and made again)."""
    import onnxruntime as ort

    options = session_options(settings, entries)
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        session = ort.InferenceSession(str(graph), options, providers=PROVIDERS)
    except Exception as exc:  # onnxruntime raises its own exception types
        if _out_of_memory(exc):
            raise  # the file is intact (its sha256 matched): the process is short of memory
        saved.discard(graph, f"onnxruntime cannot load it ({exc})")
        return None
    problem = _not_graph_of(session, model)
    if problem is not None:  # another model's graph, its record edited to match
        saved.discard(graph, problem)
        return None
    log.debug("%s: reused saved optimized model %s", graph.name, graph)
    return session


def _not_graph_of(session: ort.InferenceSession, model: Path) -> str | None:
    """Why `session` is not a graph of `model`: other outputs, or inputs the model does not
    declare (onnxruntime lists no initializer as an input); None when it is one."""
    try:
        wanted = declared(model)
    except (OSError, ValueError) as exc:  # made again from the model, which says what is wrong
        return f"the inputs and outputs of {model} cannot be read ({exc})"
    inputs = {arg.name for arg in session.get_inputs()}
    outputs = tuple(arg.name for arg in session.get_outputs())
    if outputs != wanted.outputs or not inputs <= set(wanted.inputs):
        return f"its inputs and outputs are not those of {model.name}"
    return None


def _optimized(
    saved: SavedModels,
    model: Path,
    key: str,
    settings: SessionConfig,
    entries: Mapping[str, str] | None,
) -> ort.InferenceSession:
    """`model` optimized now, its graph saved under `key` for later starts, and the session
    then made from the saved graph as a later start makes it (`_as_saved`). onnxruntime fails
    the whole session when it cannot write the graph (a full disk: `InvalidProtobuf`, a short
    write), so the model is then optimized again in memory; what that raises is the model's
    own trouble, and only once it loaded is the graph told as not saved."""
    target = saved.target(model)
    if target is None:
        return _session(model, settings, entries)
    try:
        session = _session(model, settings, entries, target)
    except Exception as exc:  # onnxruntime raises its own exception types
        saved.drop(target)
        if _out_of_memory(exc):
            raise
        session = _session(model, settings, entries)
        saved.unsaved(model, exc)
        return session
    saved.commit(model, key, target)
    graph = saved.find(model, key)
    if graph is None:  # nothing to optimize, or it could not be kept
        return session
    del session  # one copy of the model at a time: a first start's peak stays a restart's
    return _as_saved(saved, graph, model, settings, entries)


def _as_saved(
    saved: SavedModels,
    graph: Path,
    model: Path,
    settings: SessionConfig,
    entries: Mapping[str, str] | None,
) -> ort.InferenceSession:
    """A session on the `graph` just saved for `model`. The session that optimized the model
    keeps what optimizing left for as long as it lives (hibari's model: 21 MB of heap against
    13 MB from the saved graph), so a first start, and every start after a graph was made
    again, held that much more until the next restart. Where the saved graph does not load
    (it is removed), `model` is optimized again in memory."""
    return _reused(saved, graph, model, settings, entries) or _session(model, settings, entries)


def _out_of_memory(exc: Exception) -> bool:
    text = str(exc)
    return isinstance(exc, MemoryError) or "bad_alloc" in text or "allocate memory" in text
