"""`cosyedge quantize` on the real Piper voice: the int8 model loads, speaks like the fp32 one,
and a model that would sound worse than the threshold is refused."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
from speech import transcribe
from support import once_per_run

from cosyedge.config import VoiceConfig
from cosyedge.packs.quantize import EVAL_TEXTS, MAX_DISTANCE_DB, QuantizeReport, quantize_piper
from cosyedge.speech.text.english import normalize
from cosyedge.speech.voices import load_voice
from cosyedge.speech.voices.hibari import packaged_model as hibari_model
from cosyedge.speech.voices.piper import packaged_model

# pocketsphinx hears 60-80 % of these words from either model across runs (8 runs each).
TEXT = "Emergency stop at packing station three. Call the shift leader."


@pytest.fixture(scope="session")
def quantized(tmp_path_factory) -> QuantizeReport:
    """The packaged voice quantized once for the whole run, by the first worker to ask, and
    measured on the first two of the command's five sentences (14 s of CPU with the WER; the
    five took 24: each is spoken by both models and heard by the recognizer twice); the others
    read its report."""

    def make(directory: Path) -> None:
        texts = EVAL_TEXTS[:2]
        report = quantize_piper(packaged_model(), directory / "joe.int8.onnx", texts=texts)
        (directory / "report.json").write_text(json.dumps(asdict(report), default=str))

    made = once_per_run(tmp_path_factory.getbasetemp(), "quantized", make)
    fields = json.loads((made / "report.json").read_text())
    paths = {name: Path(fields[name]) for name in ("source", "out")}
    return QuantizeReport(**{**fields, **paths})


def test_report_and_file(quantized):
    assert quantized.written
    assert quantized.out.is_file()
    assert Path(f"{quantized.out}.json").is_file()  # a Piper voice: the config travels with it
    assert quantized.out_bytes < 0.4 * quantized.source_bytes
    assert quantized.distance_db < MAX_DISTANCE_DB
    assert 0.95 < quantized.duration_ratio < 1.05
    assert quantized.source_wer is not None and quantized.out_wer is not None
    assert quantized.out_wer < quantized.source_wer + 0.25


def test_weights_are_int8_except_the_vocoder(quantized):
    import onnx  # not at the top: every worker collects this file, and onnx takes 2.7 s

    graph = onnx.load(str(quantized.out)).graph
    integer_ops = {n.op_type for n in graph.node if n.op_type.endswith("Integer")}
    assert integer_ops & {"ConvInteger", "MatMulInteger"}
    vocoder = [n for n in graph.node if "/dec/" in n.name]
    assert vocoder and not any(n.op_type.endswith("Integer") for n in vocoder)
    assert any(n.op_type == "Conv" for n in vocoder)


def test_quantized_voice_speaks_like_the_fp32_one(quantized, piper_voice):
    int8 = load_voice("en", VoiceConfig(engine="piper", model=quantized.out))
    assert int8.identity != piper_voice.identity
    pcm = np.concatenate(list(int8.synthesize(TEXT)))
    exact = np.concatenate(list(int8.synthesize(TEXT, noise=False)))
    reference = np.concatenate(list(piper_voice.synthesize(TEXT, noise=False)))
    assert np.abs(pcm.astype(np.float32)).mean() > 300  # speech, not silence
    assert abs(len(exact) / len(reference) - 1) < 0.05
    words = set(normalize(TEXT).lower().replace(".", "").split())
    heard = set(transcribe(pcm, int8.sample_rate).split())
    assert len(words & heard) >= 0.4 * len(words), heard


def test_too_much_distortion_is_refused_and_nothing_written(tmp_path, monkeypatch):
    """The distance refuses, not the words: here without the recognizer (loaded and run 1.4 s
    of CPU), whose word error `test_report_and_file` checks."""
    from cosyedge.packs import evaluate

    monkeypatch.setattr(evaluate, "recognizer_available", lambda: False)
    out = tmp_path / "strict.onnx"
    # One short sentence: any int8 copy is further than 0.05 dB from fp32 on it.
    report = quantize_piper(packaged_model(), out, max_distance_db=0.05, texts=EVAL_TEXTS[-1:])
    assert not report.written
    assert report.distance_db > 0.05
    assert list(tmp_path.iterdir()) == []


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cosyedge", "quantize", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
    )


@pytest.mark.system
def test_cli_refuses_what_is_not_a_piper_voice(tmp_path):
    result = run_cli(str(hibari_model()), cwd=tmp_path)
    assert result.returncode == 2
    assert f"{hibari_model()}: not a Piper voice (hibari.onnx.json is missing)" in result.stderr
    missing = run_cli(str(tmp_path / "nope.onnx"), cwd=tmp_path)
    assert missing.returncode == 2
    assert "nope.onnx: no such file" in missing.stderr
    assert list(tmp_path.iterdir()) == []
