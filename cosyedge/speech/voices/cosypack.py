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
        if not isinstance(int8, dict):
            raise PackError(f"voice pack {directory}: its manifest's int8 is not a table")
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
