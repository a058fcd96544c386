"""`cosyedge quantize`: an int8 copy of a Piper VITS voice, written only if it still sounds right.

Rules that keep the audio clean (measured): weights dynamically quantized to QUInt8, except the
vocoder (`/dec/` nodes), which stays fp32: quantizing it too adds audible hiss (5.8 to 8.6 dB
log-mel distance to fp32 against 1.0 to 1.3 dB without it). Before the file is written, both
models speak the same sentences without sampling noise; a distance above the threshold is
refused unless forced. Needs the `onnx` package (`pip install 'cosyedge[quantize]'`), at
quantize time only: the daemon loads the result with onnxruntime alone.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cosyedge.config.voices import SessionConfig, VoiceConfig
from cosyedge.installed import missing_engine_package
from cosyedge.packs import evaluate

log = logging.getLogger(__name__)

MAX_DISTANCE_DB = 3.0
EVAL_TEXTS = (
    "Pressure alarm: sensor PT-173 reads 6.49 bar, limit 6.",
    "Emergency stop at packing station 3.",
    "Motor M8153 tripped, current 32.9 A.",
    "Gas alarm: ammonia at 93 parts per million.",
    "Fire door 110 is open.",
)


class QuantizeError(Exception):
    pass


@dataclass(frozen=True)
class QuantizeReport:
    source: Path
    out: Path
    source_bytes: int
    out_bytes: int
    vocoder_nodes: int
    source_rtf: float
    out_rtf: float
    distance_db: float
    duration_ratio: float
    sentences: int
    source_wer: float | None
    out_wer: float | None
    written: bool

    def lines(self) -> list[str]:
        mb = 1e6
        lines = [
            f"{self.source.name} -> {self.out} (QUInt8 weights, "
            f"{self.vocoder_nodes} vocoder /dec/ nodes kept in fp32)",
            f"size      {self.source_bytes / mb:.1f} MB -> {self.out_bytes / mb:.1f} MB "
            f"({self.out_bytes / self.source_bytes:.2f}x)",
            f"speed     real-time factor {self.source_rtf:.3f} -> {self.out_rtf:.3f} (1 thread)",
            f"distance  log-mel {self.distance_db:.2f} dB to fp32 (refused above "
            f"{MAX_DISTANCE_DB:g} dB); duration {self.duration_ratio:.3f}x",
        ]
        if self.source_wer is not None and self.out_wer is not None:
            lines.append(
                f"words     recognizer word error {self.source_wer:.2f} -> {self.out_wer:.2f} "
                f"(pocketsphinx, {self.sentences} sentences)"
            )
        else:
            lines.append("words     not checked (pocketsphinx or an English voice is missing)")
        return lines


def default_out(model: Path) -> Path:
    return Path.cwd() / f"{model.name.removesuffix('.onnx')}.int8.onnx"


def _sidecar(model: Path) -> Path:
    return Path(f"{model}.json")


@contextlib.contextmanager
def _quiet_library_warnings() -> Iterator[None]:
    # onnxruntime.quantization logs a warning per tensor it cannot type; none concerns us.
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(logging.NOTSET)


def quantize_piper(
    model: Path,
    out: Path,
    force: bool = False,
    max_distance_db: float = MAX_DISTANCE_DB,
    texts: tuple[str, ...] = EVAL_TEXTS,
) -> QuantizeReport:
    if not model.is_file():
        raise QuantizeError(f"{model}: no such file")
    if not _sidecar(model).is_file():
        raise QuantizeError(f"{model}: not a Piper voice ({_sidecar(model).name} is missing)")
    missing = missing_engine_package("piper", model)
    if missing:
        raise QuantizeError(f"the quantizer speaks with both models: {missing}")
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        raise QuantizeError(
            "the quantizer needs the onnx package: pip install 'cosyedge[quantize]'"
        ) from None
    graph = onnx.load(str(model), load_external_data=False).graph
    vocoder = [node.name for node in graph.node if "/dec/" in node.name]
    del graph
    if not vocoder:
        raise QuantizeError(
            f"{model}: no /dec/ (vocoder) nodes, so not a Piper VITS model: "
            "refusing to guess which nodes must stay fp32"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".tmp-{out.name}")
    try:
        # onnxruntime writes a shape-inferred copy beside the model it is given and removes it
        # after: beside a private copy, two quantizers of one installed voice never meet (one
        # removed the other's), and a read-only installation is no obstacle.
        with tempfile.TemporaryDirectory(prefix="cosyedge-quantize-") as private:
            source = Path(private) / model.name
            shutil.copyfile(model, source)
            with _quiet_library_warnings():
                quantize_dynamic(
                    source, tmp, weight_type=QuantType.QUInt8, nodes_to_exclude=vocoder
                )
        shutil.copyfile(_sidecar(model), _sidecar(tmp))
        report = _compare(model, tmp, out, len(vocoder), texts)
        written = force or report.distance_db <= max_distance_db
        if written:
            # The config first, so a model never appears without it.
            os.replace(_sidecar(tmp), _sidecar(out))
            os.replace(tmp, out)
    finally:
        for leftover in (tmp, _sidecar(tmp)):
            leftover.unlink(missing_ok=True)
    return dataclasses.replace(report, written=written)


def _compare(
    source: Path, quantized: Path, out: Path, vocoder_nodes: int, texts: tuple[str, ...]
) -> QuantizeReport:
    """Both models speak `texts` without sampling noise, interleaved sentence by sentence."""
    from cosyedge.speech.text import normalizer_for
    from cosyedge.speech.voices.piper import PiperVoice

    session = SessionConfig(save_optimized=False)
    normalizer = normalizer_for("en")
    voices = [
        PiperVoice.load(VoiceConfig(engine="piper", model=m, session=session), normalizer)
        for m in (source, quantized)
    ]
    english = voices[0]._piper.config.espeak_voice.startswith("en")
    listener = evaluate.Listener() if english and evaluate.recognizer_available() else None
    seconds, samples, errors = [0.0, 0.0], [0, 0], [0.0, 0.0]
    distances, reference_words = [], 0
    for text in texts:
        pcm = []
        for i, voice in enumerate(voices):
            started = time.perf_counter()
            pcm.append(np.concatenate(list(voice.synthesize(text, noise=False))))
            seconds[i] += time.perf_counter() - started
            samples[i] += len(pcm[i])
        distances.append(evaluate.log_mel_distance(pcm[0], pcm[1], voices[0].sample_rate))
        if listener is not None:
            spoken = normalizer.normalize(text)
            n = len(evaluate.words(spoken))
            reference_words += n
            for i in range(2):
                heard = listener.transcribe(pcm[i], voices[i].sample_rate)
                errors[i] += evaluate.word_error_rate(spoken, heard) * n
    rate = voices[0].sample_rate
    return QuantizeReport(
        source=source,
        out=out,
        source_bytes=source.stat().st_size,
        out_bytes=quantized.stat().st_size,
        vocoder_nodes=vocoder_nodes,
        source_rtf=seconds[0] / (samples[0] / rate),
        out_rtf=seconds[1] / (samples[1] / rate),
        distance_db=float(np.mean(distances)),
        duration_ratio=samples[1] / samples[0],
        sentences=len(texts),
        source_wer=errors[0] / reference_words if listener else None,
        out_wer=errors[1] / reference_words if listener else None,
        written=False,
    )


def run_quantize(model: Path, out: Path | None, force: bool) -> int:
    """The command: 0 written, 1 refused for distortion, 2 cannot quantize this file."""
    out = out or default_out(model)
    try:
        report = quantize_piper(model, out, force)
    except QuantizeError as exc:
        log.error("%s", exc)
        return 2
    for line in report.lines():
        print(line)
    if not report.written:
        print(
            f"refused: log-mel distance {report.distance_db:.2f} dB exceeds {MAX_DISTANCE_DB:g} dB;"
            " listen to it and use --force to write it anyway"
        )
        return 1
    print(f"wrote {out}; use it with  voices: {{en: {{engine: piper, model: {out}}}}}")
    return 0
