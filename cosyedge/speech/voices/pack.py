"""A voice pack: a directory of model files and a manifest naming, sizing and hashing each,
so a pack is checked before it is trusted, and saying under which terms it may be used.

Each format (zhpack.py, cosypack.py) names its files, its manifest's format and the command
that makes it; opening, checking and the identity of a pack are the same for all.
"""

from __future__ import annotations

import hashlib
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Self

from cosyedge.regular import SITE_RECORD_MAX, load_record

MANIFEST = "manifest.json"


class PackError(RuntimeError):
    """A voice pack that is missing, incomplete, altered or of an unknown format (a
    RuntimeError: a command refused for it says why in one line, cli.py)."""


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class Pack:
    directory: Path
    manifest: dict

    FORMAT: ClassVar[str]
    FORMAT_VERSION: ClassVar[int]
    FILES: ClassVar[Mapping[str, str]]  # role -> file name
    MADE_BY: ClassVar[str]  # the command that makes one

    @property
    def sample_rate(self) -> int:
        return int(self.manifest["sample_rate"])  # checked as the pack is opened

    def path(self, role: str) -> Path:
        return self.directory / self.manifest["files"][role]["name"]

    def digest(self) -> str:
        """One hash over the files' hashes: the pack's part of the voice identity."""
        files = self.manifest["files"]
        return hashlib.sha256(
            "\0".join(f"{role}={files[role]['sha256']}" for role in sorted(files)).encode()
        ).hexdigest()

    @classmethod
    def open(cls, directory: Path, verify: bool = True) -> Self:
        """The pack in `directory`, its files hashed against the manifest unless `verify`
        is false; PackError naming the first thing wrong."""
        pack = cls.described(directory)
        for role in cls.FILES:
            path = pack.path(role)
            if not path.exists():
                raise PackError(f"{path}: missing from the voice pack")
            if not path.is_file():  # a FIFO would never end, a directory is no graph
                raise PackError(f"{path}: not a regular file")
            if verify and file_sha256(path) != pack.manifest["files"][role]["sha256"]:
                raise PackError(f"{path}: SHA-256 differs from the manifest; reconvert the pack")
        return pack

    @classmethod
    def described(cls, directory: Path) -> Self:
        """The pack as its manifest describes it, its files neither read nor looked for: enough
        for its identity (a gateway may carry the manifest of a pack it cannot run)."""
        pack = cls(directory, cls._manifest(directory))
        files = pack.manifest.get("files")
        for role in cls.FILES:
            if not isinstance(files, dict) or role not in files:
                raise PackError(f"{directory / MANIFEST}: files.{role} missing")
        for role in files:  # every entry: each makes the pack's identity (`digest`)
            pack._entry(role)
        rate = pack.manifest.get("sample_rate")
        if isinstance(rate, bool) or not isinstance(rate, int) or not 8_000 <= rate <= 192_000:
            raise PackError(
                f"{directory / MANIFEST}: sample_rate {rate!r:.40}, not an integer from 8000 "
                "to 192000"
            )
        return pack

    def _entry(self, role: str) -> None:
        """PackError unless the manifest names `role`'s file as a plain name in the pack (a
        path out of it, `../x`, is refused) with its SHA-256 and size."""
        entry = self.manifest["files"][role]
        where = f"{self.directory / MANIFEST}: files.{role if role.isprintable() else repr(role)}"
        if not isinstance(entry, dict):
            raise PackError(f"{where}: not a table")
        name, size, digest = entry.get("name"), entry.get("bytes", 0), entry.get("sha256")
        plain = isinstance(name, str) and name.isprintable() and Path(name).name == name
        if not plain or name in ("", ".", ".."):
            raise PackError(f"{where}.name {name!r:.60}: not a file name in the pack")
        if not isinstance(digest, str) or len(digest) != 64:
            raise PackError(f"{where}.sha256 {digest!r:.70}: not a SHA-256 in hex")
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise PackError(f"{where}.bytes {size!r:.40}: not a size in bytes")

    @classmethod
    def _manifest(cls, directory: Path) -> dict:
        path = directory / MANIFEST
        try:
            manifest = load_record(path, SITE_RECORD_MAX)
        except FileNotFoundError:
            raise PackError(
                f"{directory}: no {MANIFEST}; make a pack with `{cls.MADE_BY}`"
            ) from None
        except (OSError, ValueError) as exc:  # nested too deeply too (`load_record`)
            raise PackError(f"{path}: unreadable: {exc}") from None
        if not isinstance(manifest, dict):
            raise PackError(f"{path}: not a voice pack manifest (a JSON object)")
        form, version = manifest.get("format"), manifest.get("format_version")
        if form != cls.FORMAT or version != cls.FORMAT_VERSION:
            raise PackError(
                f"{path}: not a {cls.FORMAT} v{cls.FORMAT_VERSION} manifest "
                f"(format={form!r}, version={version!r})"
            )
        return manifest

    def files_and_licence(self) -> list[str]:
        """The lines of `describe` every pack shares: its files, then its licence."""
        lines = []
        for role, entry in sorted(self.manifest["files"].items()):
            size = entry.get("bytes", 0) / 1e6
            lines.append(f"{role}: {entry['name']} ({size:.1f} MB) sha256 {entry['sha256'][:16]}…")
        lines.append(f"licence: {self.manifest['licence']['summary']}")
        return lines + textwrap.wrap(self.manifest["licence"]["notes"], 96)
