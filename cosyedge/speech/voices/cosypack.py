"""A converted CosyVoice-300M voice pack: ONNX graphs, the text tokenizer's ranks, the
precomputed speaker and a manifest with the SHA-256 of every file.

Made by `cosyedge voice convert-cosyvoice`; a pack whose files do not match its manifest is
refused, as is one of another format.
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from dataclasses import dataclass
from pathlib import Path

from cosyedge.speech.voices.zhpack import PackError, file_sha256

MANIFEST = "manifest.json"
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
class CosyPack:
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
    def open(cls, directory: Path, verify: bool = True) -> CosyPack:
        """The pack in `directory`, its files hashed against the manifest unless `verify`
        is false; PackError naming the first thing wrong."""
        manifest = _read_manifest(directory)
        pack = cls(directory, manifest)
        for role in FILES:
            if role not in manifest.get("files", {}):
                raise PackError(f"{directory / MANIFEST}: files.{role} missing")
            path = pack.path(role)
            if not path.is_file():
                raise PackError(f"{path}: missing from the voice pack")
            if verify and file_sha256(path) != manifest["files"][role]["sha256"]:
                raise PackError(f"{path}: SHA-256 differs from the manifest; reconvert the pack")
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
        for role, entry in sorted(m["files"].items()):
            size = entry.get("bytes", 0) / 1e6
            lines.append(f"{role}: {entry['name']} ({size:.1f} MB) sha256 {entry['sha256'][:16]}…")
        lines.append(f"licence: {m['licence']['summary']}")
        lines += textwrap.wrap(m["licence"]["notes"], 96)
        return lines


def _read_manifest(directory: Path) -> dict:
    path = directory / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PackError(
            f"{directory}: no {MANIFEST}; make a pack with `cosyedge voice convert-cosyvoice`"
        ) from None
    except (OSError, ValueError) as exc:
        raise PackError(f"{path}: unreadable: {exc}") from None
    if manifest.get("format") != FORMAT or manifest.get("format_version") != FORMAT_VERSION:
        raise PackError(
            f"{path}: not a {FORMAT} v{FORMAT_VERSION} manifest "
            f"(format={manifest.get('format')!r}, version={manifest.get('format_version')!r})"
        )
    return manifest
