"""A converted CosyVoice-300M voice pack: ONNX graphs, the text tokenizer's ranks, the
precomputed speaker and a manifest with the SHA-256 of every file.

Made by `cosyedge voice convert-cosyvoice`; a pack whose files do not match its manifest is
refused, as is one of another format.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Self

from cosyedge.speech.voices.cosycache import LM_CACHE
from cosyedge.speech.voices.pack import MANIFEST, Pack, PackError, file_sha256

log = logging.getLogger(__name__)

FORMAT = "cosyedge-cosyvoice-pack"
FORMAT_VERSION = 1
GRAPH_ROLES = (
    "text_encoder",
    "llm_step",
    "flow_encoder",
    "flow_regulator",
    "estimator",
    "hift_source",
    "hift_core",
)
FILES = {
    **{role: f"{role}.onnx" for role in GRAPH_ROLES},
    "tokenizer": "multilingual.tiktoken",
    "speaker": "speaker.npz",
    "speech_embedding": "speech_embedding.npy",  # the LM's input table of speech tokens
}
FLOW_STEPS = 10  # the flow's Euler steps as released; a pack's `flow_steps` may say fewer
# The figures of a manifest the runtime and `voice info` read, by key path: (type, least,
# most, required). A pack whose figure is of another type or out of range is refused at
# once, by `check` as by a start, rather than misread or raising later. A group's figures
# are read only where it is: int8's in a pack with an `int8` table, parity's in a pack whose
# parity was checked.
FIGURES: dict[tuple[str, ...], tuple[type, float, float, bool]] = {
    ("speech_tokens",): (int, 1, 1_000_000, True),
    ("flow_steps",): (int, 1, FLOW_STEPS, False),
    ("flow_guidance",): (bool, 0, 1, False),
    ("memory", "load_mb"): (float, 0, 1e6, True),
    ("memory", "step_mb"): (float, 0, 1e6, True),
    ("parity", "checked"): (bool, 0, 1, False),  # missing: not checked
    ("parity", "sentences"): (int, 1, 2, False),
    ("parity", "tokens_equal"): (bool, 0, 1, True),
    ("parity", "mel_max_abs"): (float, 0, 1e6, True),
    ("parity", "audio_max_abs"): (float, 0, 1e6, True),
    ("parity", "audio_log_mel_db"): (float, 0, 1e6, False),
    ("parity", "end_to_end_log_mel_db"): (float, 0, 1e6, False),
    ("int8", "distance_db"): (float, 0, 1e6, True),
    ("int8", "hift_distance_db"): (float, 0, 1e6, False),
    ("int8", "greedy_token_agreement"): (float, 0, 1, True),
    ("int8", "forced_token_agreement"): (float, 0, 1, False),
    ("int8", "weight_bits"): (int, 2, 8, False),
}
TEXTS = (  # required but `precision`
    ("speaker", "name"),
    ("speaker", "kind"),
    ("source", "model"),
    ("source", "directory"),
    ("licence", "summary"),
    ("licence", "notes"),
    ("precision",),
)
TABLES = (("converter",), ("source", "sha256"))  # of texts, where present
SPEAKER_KINDS = ("sft", "zero-shot")  # a released speaker, or one from a recording
# The bits of an int8 pack's weights (its manifest's `int8.weight_bits`): 7, which every x86
# CPU multiplies as the converter's did (see packs/cosyvoice_int8.py); packs made before hold 8.
INT8_WEIGHT_BITS = 7

LICENCE_SUMMARY = "Apache-2.0 (CosyVoice code; the weights as their model card says)"
LICENCE_NOTES = (
    "CosyVoice's code (FunAudioLLM/CosyVoice, Alibaba Tongyi Lab) is under the Apache License "
    "2.0: its LICENSE file, checked. The CosyVoice-300M weights are published on the model "
    "hubs marked Apache-2.0; their model cards could not be read where this pack format was "
    "made, so check the licence shown with the directory you downloaded before commercial "
    "use. The text tokenizer's ranks come from openai-whisper (MIT). Apache-2.0 allows "
    "commercial use: keep this notice and the licence text with the pack. A zero-shot "
    "speaker is derived from a recording: use only a voice whose owner agreed."
)

__all__ = ["FILES", "FORMAT", "MANIFEST", "CosyPack", "PackError", "file_sha256"]


@dataclass(frozen=True)
class CosyPack(Pack):
    FORMAT: ClassVar[str] = FORMAT
    FORMAT_VERSION: ClassVar[int] = FORMAT_VERSION
    FILES: ClassVar[Mapping[str, str]] = FILES
    MADE_BY: ClassVar[str] = "cosyedge voice convert-cosyvoice"

    @classmethod
    def described(cls, directory: Path) -> Self:
        """As Pack.described, and refused when a figure, text or table the runtime or `voice
        info` reads is of another type or out of range (`figure_problems`): every reader of a
        pack, its manifest alone too (`open` goes through here), sees the same judgement."""
        pack = super().described(directory)
        if not isinstance(pack.manifest.get("int8", {}), dict):
            raise PackError(f"voice pack {directory}: its manifest's int8 is not a table")
        problems = figure_problems(pack.manifest)
        if problems:
            raise PackError(f"{directory / MANIFEST}: {problems[0]}; reconvert the pack")
        return pack

    @classmethod
    def open(cls, directory: Path, verify: bool = True) -> Self:
        """As Pack.open, and refused when its LM step is not the one the runtime runs: packs
        converted before the step kept its cache in place (their manifest has no `lm_cache`)
        give the cache back whole at every token. Their manifest alone (`described`) still
        serves: phrases rendered with them keep their identity."""
        pack = super().open(directory, verify)
        if pack.manifest.get("lm_cache") != LM_CACHE:
            raise PackError(
                f"voice pack {directory} was converted by an earlier cosyedge (its LM step "
                f"copies its cache at every token): convert it again with `{cls.MADE_BY}`"
            )
        int8 = pack.manifest.get("int8", {})
        bits = int8.get("weight_bits", 8)
        if int8 and bits != INT8_WEIGHT_BITS:
            log.warning(
                "voice pack %s has int8 weights of %r bits, not %d: CPUs without VNNI (AVX2) "
                "compute 8-bit ones otherwise than its gate did (its audio moved by up to "
                "1.8 dB log-mel there): convert it again with `%s --int8`",
                directory, bits, INT8_WEIGHT_BITS, cls.MADE_BY,
            )  # fmt: skip
        return pack

    def describe(self) -> list[str]:
        m = self.manifest
        source = m["source"]
        lines = [
            f"pack: {self.directory}",
            f"sample rate: {self.sample_rate} Hz, speaker: {m['speaker']['kind']} "
            f"{m['speaker']['name']}",
            f"source: {source['model']} ({source['directory']})",
            f"converted with: {', '.join(f'{k} {v}' for k, v in m['converter'].items())}",
        ]
        for name, digest in sorted(source.get("sha256", {}).items()):
            lines.append(f"source {name}: sha256 {digest[:16]}…")
        return lines + self.files_and_licence()


def figure_problems(manifest: Mapping) -> list[str]:
    """`key.path: why` for each of `FIGURES`, `TEXTS` and `TABLES` the manifest holds
    wrongly: of another type (a bool is no number, a number as text is none), out of range,
    not finite, or missing where required."""
    tables = ("parity", "memory")
    problems = [f"{name} is not a table" for name in tables if not _table(manifest, name)]
    if manifest.get("int8") and manifest.get("precision") == "fp32":
        problems.append("precision 'fp32' beside int8 figures")
    return problems + _wrong_figures(manifest) + _wrong_texts(manifest)


def _wrong_figures(manifest: Mapping) -> list[str]:
    problems = []
    for path, (kind, least, most, required) in FIGURES.items():
        found, value = _at(manifest, path)
        name = ".".join(path)
        if not _read(manifest, path[0]) or (not found and not required):
            continue
        if not found:
            problems.append(f"{name} missing")
        elif not _fits(value, kind, least, most):
            problems.append(f"{name} {value!r:.40}, not {_kind(kind, least, most)}")
    return problems


def _wrong_texts(manifest: Mapping) -> list[str]:
    problems = []
    for path in TEXTS:
        found, value = _at(manifest, path)
        if not found and path != ("precision",):
            problems.append(f"{'.'.join(path)} missing")
        elif found and not isinstance(value, str):
            problems.append(f"{'.'.join(path)} {value!r:.40}, not a text")
    kind = _at(manifest, ("speaker", "kind"))[1]
    if isinstance(kind, str) and kind not in SPEAKER_KINDS:
        problems.append(f"speaker.kind {kind!r:.40}, not one of {', '.join(SPEAKER_KINDS)}")
    for path in TABLES:
        found, value = _at(manifest, path)
        if found and not (isinstance(value, Mapping) and all(map(_text, value.values()))):
            problems.append(f"{'.'.join(path)} {value!r:.40}, not a table of texts")
    return problems


def _table(manifest: Mapping, name: str) -> bool:
    return name not in manifest or isinstance(manifest[name], Mapping)


def _read(manifest: Mapping, group: str) -> bool:
    """Whether the figures of `group` are read: int8's where there is an int8 table,
    parity's where parity was checked, the others always."""
    if group == "int8":
        return bool(manifest.get("int8"))
    if group == "parity":
        parity = manifest.get("parity")
        return isinstance(parity, Mapping) and parity.get("checked", False) is not False
    return True


def _text(value: object) -> bool:
    return isinstance(value, str)


def _at(manifest: Mapping, path: tuple[str, ...]) -> tuple[bool, object]:
    """Whether the manifest holds `path` (every table on the way a mapping), and its value."""
    value: object = manifest
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return False, None
        value = value[key]
    return True, value


def _fits(value: object, kind: type, least: float, most: float) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
        return False
    return least <= value <= most  # NaN compares false: refused


def _kind(kind: type, least: float, most: float) -> str:
    if kind is bool:
        return "true or false"
    return f"{'an integer' if kind is int else 'a number'} from {least:g} to {most:g}"
