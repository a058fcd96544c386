"""A model's inputs and outputs read from its ONNX file without loading it (what a saved
graph is checked against): the same names onnxruntime gives, for every model the project
ships or makes; and a clear refusal, never a hang or a traceback of another kind, for what is
not such a file."""

from __future__ import annotations

import os
from pathlib import Path

import onnxruntime as ort
import pytest

from cosyedge.speech.voices.hibari import _assets, packaged_model
from cosyedge.speech.voices.onnxnames import declared

MODELS = [packaged_model(), _assets() / "oov.onnx", _assets() / "oov_gb.onnx"]


@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.name)
def test_the_names_onnxruntime_gives(model):
    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    found = declared(model)
    assert found.outputs == tuple(a.name for a in session.get_outputs())
    assert {a.name for a in session.get_inputs()} <= set(found.inputs)
    assert found.inputs and found.outputs


def test_a_piper_voice_and_its_saved_graph(piper_voice):
    """A larger model of another family (63 MB), read in a few small reads."""
    session = piper_voice.session
    model = Path(session._model_path)
    assert declared(model).outputs == tuple(a.name for a in session.get_outputs())


@pytest.mark.parametrize(
    "damage",
    ["empty", "cut short", "random bytes", "json", "a huge varint", "FIFO", "directory"],
)
def test_what_is_not_an_onnx_file_is_refused(tmp_path, damage):
    good = packaged_model().read_bytes()
    path = tmp_path / "model.onnx"
    if damage == "FIFO":
        os.mkfifo(path)
    elif damage == "directory":
        path.mkdir()
    else:
        path.write_bytes(
            {
                "empty": b"",
                "cut short": good[: len(good) // 2],
                "random bytes": os.urandom(100_000),
                "json": b'{"graph": {"input": ["ids"]}}',
                "a huge varint": b"\x3a" + b"\xff" * 20,
            }[damage]
        )
    with pytest.raises((ValueError, OSError)):
        declared(path)
