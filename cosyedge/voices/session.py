"""The one place ONNX sessions are made, so every model obeys the same thread limits."""

from __future__ import annotations

from pathlib import Path

import onnxruntime as ort


def make_session(model: Path, threads: int, memory_arena: bool = True) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.enable_cpu_mem_arena = memory_arena
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
