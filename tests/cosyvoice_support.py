"""The CosyVoice conversion venv, for the tests that build a tiny pack in it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "cosyvoice_tiny.py"
SPEAKER = "英文女"


def cosyvoice_python() -> Path:
    return Path(os.environ.get("COSYEDGE_COSYVOICE_PYTHON", REPO / ".venv-cosyvoice/bin/python"))


def conversion_unavailable() -> str | None:
    """Why a CosyVoice pack cannot be converted here, or None when it can."""
    python = cosyvoice_python()
    if not python.exists():
        return f"no CosyVoice conversion venv at {python} (scripts/setup test makes it)"
    probe = (
        "import importlib.util as u; "
        "print(*[m for m in ('torch', 'cosyvoice', 'whisper', 'onnx') if not u.find_spec(m)])"
    )
    missing = subprocess.run([python, "-c", probe], capture_output=True, text=True).stdout.split()
    return f"{python} lacks {', '.join(missing)}" if missing else None


def run_cosyvoice_python(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run code in the conversion venv, on one thread (the machine is shared)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(REPO / "tests")}
    return subprocess.run(
        ["nice", "-n", "10", str(cosyvoice_python()), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        env=env,
    )
