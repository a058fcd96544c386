"""`cosyedge voice convert-cosyvoice`: a released CosyVoice-300M directory → a voice pack.

Runs in the CosyVoice conversion venv (torch, the reference classes, whisper's tokenizer
ranks; `scripts/setup test` makes `.venv-cosyvoice`). Speaking with the pack needs none of
them. The pack is written into a temporary directory beside `--out` and renamed into place
only when everything, parity with the reference included, has passed: a failed conversion
leaves nothing behind.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import logging
import platform
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cosyedge.packs.cosyvoice_memory import MAX_REPEATS, REPEATS
from cosyedge.packs.cosyvoice_parity import SENTENCES, SPOKEN
from cosyedge.packs.cosyvoice_reference import (
    INSTALL_HINT,
    V1_CLASSES,
    ModelDirError,
    build_models,
    read_yaml,
    tokenizer_settings,
)
from cosyedge.packs.staging import refused_out, staged_dir
from cosyedge.speech.voices.cosycache import LM_CACHE
from cosyedge.speech.voices.cosypack import (
    FILES,
    FORMAT,
    FORMAT_VERSION,
    GRAPH_ROLES,
    LICENCE_NOTES,
    LICENCE_SUMMARY,
    MANIFEST,
    CosyPack,
    file_sha256,
)
from cosyedge.speech.voices.cosyvoice import FLOW_STEPS
from cosyedge.speech.voices.pack import PackError

log = logging.getLogger(__name__)

MODEL_FILES = ("cosyvoice.yaml", "llm.pt", "flow.pt", "hift.pt", "campplus.onnx",
               "speech_tokenizer_v1.onnx")  # fmt: skip
SPEAKERS_FILE = "spk2info.pt"
SAMPLE_RATE = 22050
EMBEDDING_DIM = 192
# A zero-shot prompt: mono, 16-bit, long enough to carry a voice, short enough for the
# speech tokenizer (30 s), and not silence.
PROMPT_MIN_S, PROMPT_MAX_S = 3.0, 30.0
PROMPT_MIN_RMS = 100.0
# What conversion imports beyond cosyedge's own dependencies (import names).
CONVERSION_MODULES = ("torch", "cosyvoice", "whisper", "onnx", "onnxruntime")


class ConversionError(Exception):
    """Conversion cannot run on this input or here; the message is one line."""


@dataclass(frozen=True)
class SpeakerChoice:
    name: str | None = None  # an SFT speaker of spk2info.pt
    prompt_wav: Path | None = None
    prompt_text: str | None = None


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def check_conversion_modules() -> None:
    """Refuse, in one line, to convert in a Python that lacks what conversion imports (the
    gateway's venv has no torch): before anything is read or written."""
    missing = [name for name in CONVERSION_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise ConversionError(
            f"{sys.executable} lacks {', '.join(missing)}: run the conversion in the CosyVoice "
            f"conversion venv ({INSTALL_HINT})"
        )


def check_model_dir(model_dir: Path, choice: SpeakerChoice) -> dict[str, Any]:
    """The yaml's entries, once the directory is known to be a complete CosyVoice-300M one."""
    if not model_dir.is_dir():
        raise ConversionError(f"{model_dir}: not a directory")
    if (model_dir / "cosyvoice2.yaml").is_file() or (model_dir / "cosyvoice3.yaml").is_file():
        raise ConversionError(f"{model_dir}: a CosyVoice2/3 directory; only CosyVoice-300M (v1)")
    needed = [*MODEL_FILES, *([SPEAKERS_FILE] if choice.name else [])]
    missing = [name for name in needed if not (model_dir / name).is_file()]
    if missing:
        raise ConversionError(f"{model_dir}: missing {', '.join(missing)}")
    try:
        config = read_yaml(model_dir / "cosyvoice.yaml")
        from cosyedge.packs.cosyvoice_reference import check_version

        check_version(config, model_dir / "cosyvoice.yaml")
        tokenizer_settings(config)
    except ModelDirError as exc:
        raise ConversionError(str(exc)) from None
    return config


def load_weights(path: Path) -> Any:
    """A released `.pt` file's contents (tensors only), or a one-line refusal naming it: an
    empty, truncated or foreign file makes torch raise any of several types, with pages of
    advice about `weights_only` that do not apply to a damaged download."""
    import torch

    if path.stat().st_size == 0:
        raise ConversionError(f"{path}: empty; download it again")
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises UnpicklingError, EOFError, RuntimeError, ...
        raise ConversionError(
            f"{path}: not a readable PyTorch weight file ({type(exc).__name__}: damaged or "
            "truncated); download it again"
        ) from None


def load_models(model_dir: Path) -> dict[str, Any]:
    """The reference models with the directory's weights; wrong shapes are one line."""

    try:
        models = build_models(model_dir / "cosyvoice.yaml")
    except ModelDirError as exc:
        raise ConversionError(str(exc)) from None
    for part, model in models.items():
        state = load_weights(model_dir / f"{part}.pt")
        if part == "hift":
            state = {k.replace("generator.", ""): v for k, v in state.items()}
        try:
            model.load_state_dict(state, strict=True)
        except RuntimeError as exc:
            detail = " ".join(str(exc).split("\n\t")[1:2]).strip() or str(exc).splitlines()[0]
            raise ConversionError(f"{model_dir / f'{part}.pt'}: does not fit {detail}") from None
        model.eval()
    return models


def check_onnx_models(model_dir: Path) -> None:
    """campplus and the speech tokenizer must take and give what the reference frontend
    feeds and reads (by position): fbank (1, T, 80) → (1, 192); log-mel (1, 128, T) and its
    length → token ids."""
    import onnxruntime as ort

    expected = (("campplus.onnx", (3,), 80), ("speech_tokenizer_v1.onnx", (3, 1), 128))
    for name, ranks, last in expected:
        path = model_dir / name
        try:
            session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own types
            first = str(exc).splitlines()[0]
            raise ConversionError(f"{path}: unreadable: {first}") from None
        inputs = session.get_inputs()
        shapes = [tuple(i.shape) for i in inputs]
        feature_dim = shapes[0][2] if name == "campplus.onnx" else shapes[0][1]
        if tuple(len(s) for s in shapes) != ranks or feature_dim != last:
            raise ConversionError(f"{model_dir / name}: inputs {shapes}, not the released ones")


def check_prompt_wav(path: Path) -> tuple[np.ndarray, int]:
    """A zero-shot prompt's samples, or why the recording cannot be a prompt."""
    import wave

    try:
        with wave.open(str(path), "rb") as w:
            channels, width, rate = w.getnchannels(), w.getsampwidth(), w.getframerate()
            data = w.readframes(w.getnframes())
    except (OSError, EOFError, wave.Error) as exc:
        raise ConversionError(f"{path}: not a readable WAV file ({exc})") from None
    if channels != 1:
        raise ConversionError(f"{path}: {channels} channels; the prompt must be mono")
    if width != 2:
        raise ConversionError(f"{path}: {8 * width}-bit samples; the prompt must be 16-bit PCM")
    pcm = np.frombuffer(data, dtype="<i2")
    seconds = len(pcm) / rate
    if not PROMPT_MIN_S <= seconds <= PROMPT_MAX_S:
        raise ConversionError(
            f"{path}: {seconds:.1f} s long; a prompt takes {PROMPT_MIN_S:.0f}-"
            f"{PROMPT_MAX_S:.0f} s (5-10 s of clear speech is best)"
        )
    if np.sqrt(np.mean(pcm.astype(np.float64) ** 2)) < PROMPT_MIN_RMS:
        raise ConversionError(f"{path}: silent (RMS under {PROMPT_MIN_RMS:.0f}); record speech")
    return pcm, rate


def sft_embedding(model_dir: Path, name: str) -> Any:
    speakers = load_weights(model_dir / SPEAKERS_FILE)
    if name not in speakers:
        known = ", ".join(sorted(speakers))
        raise ConversionError(f"{model_dir / SPEAKERS_FILE}: no speaker {name!r} (has {known})")
    embedding = speakers[name]["embedding"].reshape(1, -1).float()
    if embedding.shape[1] != EMBEDDING_DIM:
        raise ConversionError(f"speaker {name!r}: embedding of {embedding.shape[1]}, not 192")
    return embedding


@dataclass(frozen=True)
class SpeakerInput:
    """The speaker as the reference's inference takes it: an embedding, and for a zero-shot
    prompt its transcript's text tokens, its speech tokens and its mel."""

    embedding: Any  # torch (1, 192)
    prompt_text: np.ndarray  # (Tp,) int64
    prompt_tokens: np.ndarray  # (P,) int64
    prompt_feat: np.ndarray  # (F, 80) float32


def _speaker(
    model_dir: Path, config: dict, choice: SpeakerChoice, prompt: tuple[np.ndarray, int] | None
) -> SpeakerInput:
    if prompt is None:
        embedding = sft_embedding(model_dir, choice.name or "")
        none = np.zeros(0, dtype=np.int64)
        return SpeakerInput(embedding, none, none, np.zeros((0, 80), dtype=np.float32))
    import torch

    from cosyedge.packs import cosyvoice_parity
    from cosyedge.packs.cosyvoice_prompt import prompt_features

    features = prompt_features(*prompt, model_dir, cosyvoice_parity.whisper_mel_filters())
    tokenizer = cosyvoice_parity.whisper_tokenizer(tokenizer_settings(config))
    text = tokenizer.encode(normalize_prompt_text(choice.prompt_text or ""))
    embedding = torch.from_numpy(features.embedding).float()
    return SpeakerInput(embedding, np.array(text, dtype=np.int64), features.speech_tokens,
                        features.feat)  # fmt: skip


def normalize_prompt_text(text: str) -> str:
    """The transcript as our front ends would give it: Mandarin if it has Chinese characters."""
    if any("\u4e00" <= c <= "\u9fff" for c in text):
        from cosyedge.speech.zh.normalize import MandarinNormalizer

        return MandarinNormalizer().normalize(text)
    from cosyedge.speech.text import normalizer_for

    return normalizer_for("en").normalize(text)


def speaker_arrays(models: dict[str, Any], speaker: SpeakerInput) -> dict[str, np.ndarray]:
    """What the runtime needs of the speaker, computed once: the LLM's prompt prefix (sos,
    speaker) and suffix (task id, the prompt's speech tokens), the prompt's text tokens, and
    the flow's speaker projection, prompt tokens and mel."""
    import torch
    import torch.nn.functional as F

    llm, flow = models["llm"], models["flow"]
    with torch.no_grad():
        normalized = F.normalize(speaker.embedding, dim=1)
        spk = llm.spk_embed_affine_layer(normalized)
        table = llm.llm_embedding.weight
        prefix = torch.stack([table[llm.sos_eos], spk[0]])[None]
        tokens = torch.from_numpy(speaker.prompt_tokens)
        suffix = torch.cat([table[llm.task_id][None], llm.speech_embedding(tokens)])[None]
        flow_spks = flow.spk_embed_affine_layer(normalized)[0]
    return {
        "llm_prefix": prefix.numpy().astype(np.float32),
        "llm_suffix": suffix.numpy().astype(np.float32),
        "prompt_text": speaker.prompt_text,
        "flow_prompt_tokens": speaker.prompt_tokens,
        "prompt_feat": speaker.prompt_feat.astype(np.float32),
        "flow_spks": flow_spks.numpy().astype(np.float32),
    }


def _measure_memory(directory: Path, repeats: int) -> dict[str, object]:
    """The pack's memory as the premium worker runs it (cosyvoice_memory: `repeats` fresh
    processes without torch, the longest clause, the most of them)."""
    from cosyedge.packs.cosyvoice_memory import MemoryMeasureError, measure

    try:
        return measure(directory, repeats)
    except MemoryMeasureError as exc:
        raise ConversionError(str(exc)) from None


def _sources(model_dir: Path, choice: SpeakerChoice) -> dict[str, str]:
    names = [*MODEL_FILES, *([SPEAKERS_FILE] if choice.name else [])]
    digests = {name: file_sha256(model_dir / name) for name in names}
    if choice.prompt_wav:
        digests[choice.prompt_wav.name] = file_sha256(choice.prompt_wav)
    return digests


def _files(work: Path) -> dict[str, dict]:
    files = {}
    for role, name in FILES.items():
        path = work / name
        files[role] = {"name": name, "sha256": file_sha256(path), "bytes": path.stat().st_size}
    return files


def _manifest(model_dir: Path, choice: SpeakerChoice, work: Path, models: dict) -> dict:
    files = _files(work)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "sample_rate": SAMPLE_RATE,
        "speech_tokens": int(models["llm"].speech_token_size),
        "lm_cache": LM_CACHE,  # the LM step the runtime's LmCache runs
        "files": files,
        "speaker": _speaker_entry(choice),
        "source": {
            "model": "CosyVoice-300M (" + ", ".join(V1_CLASSES.values()) + ")",
            "directory": str(model_dir),
            "sha256": _sources(model_dir, choice),
            "parameters": sum(p.numel() for m in models.values() for p in m.parameters()),
        },
        "converter": {
            "torch": _version("torch"),
            "cosyvoice2-eu": _version("cosyvoice2-eu"),
            "onnx": _version("onnx"),
            "onnxruntime": _version("onnxruntime"),
            "python": platform.python_version(),
        },
        "licence": {"summary": LICENCE_SUMMARY, "notes": LICENCE_NOTES},
    }


def _speaker_entry(choice: SpeakerChoice) -> dict[str, str]:
    if choice.name:
        return {"kind": "sft", "name": choice.name}
    assert choice.prompt_wav is not None
    return {"kind": "zero-shot", "name": choice.prompt_wav.stem, "text": choice.prompt_text or ""}


def _write_manifest(work: Path, manifest: dict) -> None:
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    (work / MANIFEST).write_text(text, encoding="utf-8")


def convert(
    model_dir: Path, out: Path, choice: SpeakerChoice, force: bool = False, int8: bool = False,
    flow_steps: int = FLOW_STEPS, guidance: bool = True, parity_sentences: int = SPOKEN,
    memory_repeats: int = REPEATS, graphs_from: Path | None = None,
) -> CosyPack:  # fmt: skip
    """Convert into `out` (created; replaced only with `force`) and return the opened pack;
    with `int8`, the transformer graphs' weights in int8 if the gate lets them; the flow
    runs `flow_steps` Euler steps (1 to 10; fewer than 10 measured against 10), with
    classifier-free guidance unless `guidance` is false (measured against guidance). Parity
    and those measures speak the first `parity_sentences` (1 to SPOKEN) of the parity
    sentences, and the memory is the most of `memory_repeats` fresh processes; the manifest
    records both counts. With `graphs_from`, a pack converted from the same model files, its
    graphs are copied instead of exported again (they do not depend on the speaker); the new
    pack is checked against the reference all the same."""
    check_conversion_modules()
    if not 1 <= flow_steps <= FLOW_STEPS:
        raise ConversionError(f"--flow-steps {flow_steps}: 1 to {FLOW_STEPS}")
    if not 1 <= parity_sentences <= SPOKEN:
        raise ConversionError(f"--parity-sentences {parity_sentences}: 1 to {SPOKEN}")
    if not 1 <= memory_repeats <= MAX_REPEATS:
        raise ConversionError(f"--memory-repeats {memory_repeats}: 1 to {MAX_REPEATS}")
    refused = refused_out(out, force)
    if refused is not None:
        raise ConversionError(refused)
    prompt = check_prompt_wav(choice.prompt_wav) if choice.prompt_wav is not None else None
    if prompt is not None and not (choice.prompt_text or "").strip():
        raise ConversionError("--prompt-wav needs --prompt-text, the words said in it")
    config = check_model_dir(model_dir, choice)
    check_onnx_models(model_dir)
    if graphs_from is not None:
        check_graphs_source(graphs_from, model_dir)
    speaker = _speaker(model_dir, config, choice, prompt)
    with staged_dir(out) as work:
        options = Options(int8, flow_steps, guidance, parity_sentences, memory_repeats, graphs_from)
        _build(model_dir, config, choice, speaker, work, options)
    return CosyPack.open(out)


def check_graphs_source(pack_dir: Path, model_dir: Path) -> None:
    """Refuse, in one line, graphs that cannot stand for `model_dir`'s own export: a
    pack that does not open (damaged, of another format or LM step), of other model files
    (their SHA-256 in its manifest), or whose graphs were made int8."""
    try:
        manifest = CosyPack.open(pack_dir).manifest
    except PackError as exc:
        raise ConversionError(f"--graphs-from {exc}") from None
    recorded = manifest.get("source", {}).get("sha256", {})
    differ = [n for n in MODEL_FILES if recorded.get(n) != file_sha256(model_dir / n)]
    if differ:
        raise ConversionError(
            f"--graphs-from {pack_dir}: converted from other model files ({', '.join(differ)} "
            f"differ from {model_dir}'s)"
        )
    if manifest.get("precision", "fp32") != "fp32":
        raise ConversionError(f"--graphs-from {pack_dir}: its graphs are int8; name an fp32 pack")


@dataclass(frozen=True)
class Options:
    """What the pack is made with beyond the model and the speaker."""

    int8: bool = False
    flow_steps: int = FLOW_STEPS
    guidance: bool = True
    parity_sentences: int = SPOKEN  # spoken by the parity check and the flow's measures
    memory_repeats: int = REPEATS  # fresh processes measuring the memory
    graphs_from: Path | None = None  # a pack of the same model whose graphs are copied


def _build(
    model_dir: Path, config: dict, choice: SpeakerChoice, speaker: SpeakerInput, work: Path,
    options: Options,
) -> None:  # fmt: skip
    from cosyedge.packs import cosyvoice_parity
    from cosyedge.packs.cosyvoice_export import export_all

    reference = load_models(model_dir)
    np.savez(work / FILES["speaker"], **speaker_arrays(reference, speaker))
    table = reference["llm"].speech_embedding.weight.detach().numpy().astype(np.float32)
    np.save(work / FILES["speech_embedding"], table)
    try:
        shutil.copyfile(cosyvoice_parity.whisper_ranks_file(), work / FILES["tokenizer"])
    except RuntimeError as exc:
        raise ConversionError(str(exc)) from None
    if options.graphs_from is None:
        export_all(load_models(model_dir), work)
    else:
        for role in GRAPH_ROLES:
            shutil.copyfile(options.graphs_from / FILES[role], work / FILES[role])
    manifest = _manifest(model_dir, choice, work, reference)
    manifest["memory"] = {"load_mb": 0.0, "step_mb": 0.0}
    _write_manifest(work, manifest)
    pack = CosyPack.open(work)
    tokenizer = cosyvoice_parity.whisper_tokenizer(tokenizer_settings(config))
    parity = cosyvoice_parity.check(
        pack, reference, speaker.embedding, tokenizer, spoken=options.parity_sentences
    )
    if parity.problems():
        raise ConversionError(f"the pack disagrees with the reference: {parity.problems()}")
    log.info("parity with the reference: %s", parity.as_dict())
    manifest["parity"] = {"checked": True, **parity.as_dict()}
    manifest["precision"] = "fp32"
    if options.int8:
        manifest["int8"] = _int8(work)
        manifest["precision"] = "int8 weights (transformers), int8 HiFT convolutions"
        manifest["files"] = _files(work)
        _write_manifest(work, manifest)
    manifest.update(_flow(work, options))
    _write_manifest(work, manifest)
    manifest["memory"] = _measure_memory(work, options.memory_repeats)
    _write_manifest(work, manifest)
    (work / "LICENCE.txt").write_text(LICENCE_NOTES + "\n", encoding="utf-8")


def _flow(work: Path, options: Options) -> dict:
    """The manifest's flow steps and guidance and, when they are not the released 10 steps
    with guidance, how far their audio is from those's (mean log-mel dB over the parity
    sentences the conversion speaks, same tokens and noise): `flow_steps_log_mel_db` for
    fewer steps with guidance, `flow_guidance_log_mel_db` without guidance (at the pack's
    steps)."""
    steps, guidance = options.flow_steps, options.guidance
    if steps == FLOW_STEPS and guidance:
        return {"flow_steps": steps}
    from cosyedge.packs.cosyvoice_flow import distances_to_released

    sentences = SENTENCES[: options.parity_sentences]
    pack = CosyPack.open(work)
    distance = distances_to_released(pack, (steps,), sentences, guidance)[steps]
    log.info("%d flow steps, guidance %s, against %d with guidance: %.3f dB log-mel", steps,
             "on" if guidance else "off", FLOW_STEPS, distance)  # fmt: skip
    if guidance:
        return {"flow_steps": steps, "flow_steps_log_mel_db": distance}
    return {"flow_steps": steps, "flow_guidance": False, "flow_guidance_log_mel_db": distance}


def _int8(work: Path) -> dict:
    """Quantize behind the gate (parity above was checked in fp32, against the reference)."""
    from cosyedge.packs.cosyvoice_int8 import Int8Refused, quantize_pack

    try:
        return quantize_pack(work).as_dict()
    except Int8Refused as exc:
        raise ConversionError(str(exc)) from None
