"""What is refused in one line, with nothing written: a damaged download given to
`convert-cosyvoice`, a text with nothing to say given to `cosyedge say` or `read`, a pack
whose files no longer match its manifest. Most run in process; the conversion ones share
one fork of the conversion venv (tests/cosyvoice_support.py) and stop before any model runs."""

from __future__ import annotations

import json
import os
import shutil
import stat

import pytest

from cosyedge.cli import main
from cosyedge.config.templates import TemplateConfig
from cosyedge.intake.templates import declared_phrases

DAMAGED = """
import json, shutil, sys
from pathlib import Path
from cosyedge.packs.convert_cosyvoice import ConversionError, SpeakerChoice, convert

good, work = Path(sys.argv[1]), Path(sys.argv[2])
damage = {
    "garbage": lambda data: b"\\x80\\x02garbage",
    "empty": lambda data: b"",
    "truncated": lambda data: data[: len(data) // 3],
}
results = {}
for part in ("llm.pt", "flow.pt", "hift.pt", "spk2info.pt"):
    for how, damaged in damage.items():
        model = work / "model"
        shutil.rmtree(model, ignore_errors=True)
        shutil.copytree(good, model)
        (model / part).write_bytes(damaged((good / part).read_bytes()))
        out = work / "out" / "pack"
        try:
            convert(model, out, SpeakerChoice("英文女"))
            results[f"{part} {how}"] = "converted"
        except ConversionError as exc:
            results[f"{part} {how}"] = str(exc)
        assert not (work / "out").exists() or not any((work / "out").iterdir())
print(json.dumps(results, ensure_ascii=False))
"""


def test_a_damaged_weight_file_is_refused_in_one_line_naming_it(tiny_model, tmp_path):
    from cosyvoice_support import run_cosyvoice_python

    done = run_cosyvoice_python("-c", DAMAGED, str(tiny_model), str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(results) == 12
    for case, message in results.items():
        part = case.split()[0]
        assert f"model/{part}: " in message, (case, message)
        assert "\n" not in message and "weights_only" not in message, (case, message)


NOTHING = ["", "   ", "!!!", "。。。！？", "?! ...", "🔥🔥"]


@pytest.mark.parametrize("text", NOTHING)
@pytest.mark.parametrize("command", ["say", "read"])
def test_a_text_with_nothing_to_say_is_refused_in_one_line(command, text, tmp_path, capfd):
    config = tmp_path / "cosyedge.yaml"
    config.write_text("voices:\n  en:\n    engine: hibari\n")
    out = tmp_path / "said.wav"
    args = [command, "--config", str(config), *(["--out", str(out)] if command == "say" else [])]
    assert main([*args, text]) == 2
    err = capfd.readouterr().err.strip()
    assert err == f"cosyedge {command}: nothing to say in en: {text!r}"
    assert not out.exists()


def test_a_template_of_punctuation_only_is_not_warmed_in_either_language():
    templates = [
        TemplateConfig(topic="t/a", text="Line three stopped."),
        TemplateConfig(topic="t/b", text="!!!"),
        TemplateConfig(topic="t/c", text="。。。！？", lang="zh"),
        TemplateConfig(topic="t/d", text="三号线停了。", lang="zh"),
    ]
    texts = [p.text for p in declared_phrases(templates)]
    assert texts == ["Line three stopped.", "三号线停了。"]


def test_a_cosyvoice2_directory_is_named_in_a_plain_sentence(tmp_path):
    from cosyedge.packs.cosyvoice_reference import ModelDirError, check_version, read_yaml

    path = tmp_path / "cosyvoice.yaml"
    path.write_text(
        "llm: !new:cosyvoice.llm.llm.Qwen2LM\n  x: 1\n"
        "flow: !new:cosyvoice.flow.flow.CausalMaskedDiffWithXvec\n  x: 1\n"
    )
    with pytest.raises(ModelDirError) as refused:
        check_version(read_yaml(path), path)
    assert str(refused.value) == (
        f"{path}: llm is cosyvoice.llm.llm.Qwen2LM, not cosyvoice.llm.llm.TransformerLM: "
        "a CosyVoice2/3 model directory, not a CosyVoice-300M (v1) one"
    )


def test_a_converted_pack_is_readable_by_every_user_whatever_the_umask(tmp_path):
    from cosyedge.packs.staging import staged_dir

    out = tmp_path / "packs" / "voice"
    previous = os.umask(0o077)
    try:
        with staged_dir(out) as work:
            (work / "model.onnx").write_bytes(b"weights")
            (work / "speakers").mkdir()
            (work / "speakers" / "a.npy").write_bytes(b"x")
    finally:
        os.umask(previous)
    modes = {p.relative_to(out).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in out.rglob("*")}
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    assert modes == {"model.onnx": 0o644, "speakers": 0o755, "speakers/a.npy": 0o644}


def test_check_and_say_refuse_a_pack_whose_file_no_longer_matches(cosyvoice_pack, tmp_path, capfd):
    pack = tmp_path / "pack"
    shutil.copytree(cosyvoice_pack.directory, pack)
    config = tmp_path / "cosyedge.yaml"
    config.write_text(f"voices:\n  en:\n    engine: cosyvoice\n    pack: {pack}\n")
    assert main(["check", "--config", str(config)]) == 0
    capfd.readouterr()
    damaged = pack / "hift_core.onnx"
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    assert main(["check", "--config", str(config)]) == 2
    said = f"{damaged}: SHA-256 differs from the manifest; reconvert the pack"
    assert capfd.readouterr().err == f"{config}: voices.en.pack: {said}\n"
    out = tmp_path / "said.wav"
    assert main(["say", "--config", str(config), "--out", str(out), "Line three stopped."]) == 1
    err = capfd.readouterr().err.strip()
    assert err.startswith("cosyedge say: nothing was said: ") and err.endswith(said), err
    assert "\n" not in err and not out.exists()


LM_GATE = """
import json, sys
from pathlib import Path
import numpy as np, onnx
from onnx import numpy_helper
from cosyedge.packs.cosyvoice_int8 import Int8Refused, gate, quantize_graph
from cosyedge.speech.voices.cosypack import CosyPack

pack, work = CosyPack.open(Path(sys.argv[1])), Path(sys.argv[2])
int8 = {role: work / f"{role}.onnx" for role in ("text_encoder", "llm_step")}
for role, path in int8.items():
    quantize_graph(pack.path(role), path)
results = {"int8": gate(pack, int8).as_dict()}
# The LM step with its largest weight's values shuffled: a broken LM the audio gate, which
# speaks fp32's tokens, cannot hear.
model = onnx.load(str(pack.path("llm_step")))
largest = max(model.graph.initializer, key=lambda t: int(np.prod(t.dims)))
values = numpy_helper.to_array(largest).copy()
np.random.default_rng(0).shuffle(values.reshape(-1))
largest.CopyFrom(numpy_helper.from_array(values, largest.name))
broken = work / "broken_llm_step.onnx"
onnx.save(model, str(broken))
try:
    results["broken"] = gate(pack, {"llm_step": broken}).as_dict()
except Int8Refused as exc:
    results["broken"] = str(exc)
print(json.dumps(results))
"""


def test_the_int8_gate_refuses_an_lm_that_chooses_other_tokens(cosyvoice_pack, tmp_path):
    from cosyvoice_support import run_cosyvoice_python

    done = run_cosyvoice_python("-c", LM_GATE, str(cosyvoice_pack.directory), str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert results["int8"]["forced_token_agreement"] >= 0.5, results["int8"]
    assert isinstance(results["broken"], str), results["broken"]
    assert results["broken"].startswith("the int8 LM, fed fp32's tokens, chooses them at ")
    assert "limit 50 %" in results["broken"]
