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
    """Run code in the conversion venv, on one thread (the machine is shared). At the
    suite's own priority: at nice 10 beside five busy workers it waited minutes for the CPU,
    and the run waited for it at its end."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(REPO / "tests")}
    return subprocess.run(
        [str(cosyvoice_python()), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        env=env,
    )


class PackUnavailable(Exception):
    """The tiny pack cannot be built here; the message says why."""


def build_tiny_pack(directory: Path) -> Path:
    """The tiny random-weight model (seed 7) converted into a pack under `directory`, by the
    real converter in the conversion venv; PackUnavailable where it cannot be."""
    reason = conversion_unavailable()
    if reason:
        raise PackUnavailable(reason)
    model, pack = directory / "cosyvoice-model", directory / "cosyvoice-pack"
    for args in (
        (str(TINY), str(model), "--seed", "7"),
        ("-m", "cosyedge", "voice", "convert-cosyvoice", "--model-dir", str(model),
         "--out", str(pack), "--speaker", SPEAKER),
    ):  # fmt: skip
        done = run_cosyvoice_python(*args)
        if done.returncode:
            raise PackUnavailable(f"cannot build the CosyVoice pack: {done.stderr[-300:]}")
    return pack
