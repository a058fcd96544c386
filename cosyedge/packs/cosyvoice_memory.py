"""What a converted CosyVoice pack needs resident: the manifest's `memory`, which the premium
tier compares with `memory.ceiling_mb` before it starts its worker.

Measured as the worker runs the pack: in a fresh process that imports no torch and loads
only the pack, with the session settings the worker gets by default (one thread, no
onnxruntime arena), on the longest clause the LM may produce for `TEXT_TOKENS` text tokens
(the end of speech is never drawn, so every run decodes the same 20 speech tokens a text token),
spoken as the voice speaks it, streamed in chunks. `REPEATS` such processes, one after the
other; the manifest declares the largest figures and keeps the smallest beside them, so the
spread is on record.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

REPEATS = 3
MAX_REPEATS = 20  # each a fresh process speaking the longest clause: minutes at full size
TEXT_TOKENS = 30  # the longest clause: up to 20 speech tokens each (600, 12 s)
TIMEOUT_S = 3600


class MemoryMeasureError(Exception):
    """The pack could not speak in the measuring process."""


def measure(directory: Path, repeats: int = REPEATS) -> dict[str, object]:
    """`load_mb` and `step_mb` (the most of `repeats` fresh processes), their least
    (`load_mb_least`, `step_mb_least`), the repeats and the clause's speech tokens."""
    runs = [measure_once(directory) for _ in range(repeats)]
    loads, steps = [r["load_mb"] for r in runs], [r["step_mb"] for r in runs]
    return {
        "load_mb": max(loads),
        "step_mb": max(steps),
        "load_mb_least": min(loads),
        "step_mb_least": min(steps),
        "repeats": repeats,
        "speech_tokens": int(runs[0]["speech_tokens"]),
    }


def measure_once(directory: Path) -> dict[str, float]:
    """One fresh process's figures (MB, rounded to 0.1): the pack loaded, and the most the
    longest clause added to that."""
    done = subprocess.run(
        [sys.executable, "-m", "cosyedge.packs.cosyvoice_memory", str(directory)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        raise MemoryMeasureError(f"the converted pack cannot speak: {tail[0]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return {k: round(max(float(v), 0.0), 1) for k, v in figures.items()}


def speak_longest_clause(directory: Path) -> dict[str, float]:
    """In this process (which must be fresh, without torch): load the pack, speak the longest
    clause; resident MB after loading, and the most the clause added (the kernel's
    high-water mark, restarted after loading)."""
    from cosyedge.config.voices import SessionConfig
    from cosyedge.speech.memory import peak_rss_mb, reset_peak, rss_mb
    from cosyedge.speech.voices.cosypack import CosyPack
    from cosyedge.speech.voices.cosyvoice import CosyvoiceModels, RasSampler

    before = rss_mb()
    models = CosyvoiceModels.load(CosyPack.open(directory), SessionConfig())
    loaded = rss_mb()
    if not reset_peak():
        raise MemoryMeasureError("cannot restart the peak RSS (/proc/self/clear_refs)")
    ras = RasSampler(np.random.default_rng(1), models.eos)
    decoded: list[int] = []

    def never_ending(logp: np.ndarray, so_far: list[int], ignore_eos: bool) -> int:
        token = ras(logp, so_far, True)
        decoded.append(token)
        return token

    ids = list(range(200, 200 + TEXT_TOKENS))
    for _ in models.synthesize_ids(ids, np.random.default_rng(0), never_ending):
        pass
    step = peak_rss_mb() - loaded
    return {"load_mb": loaded - before, "step_mb": step, "speech_tokens": len(decoded)}


if __name__ == "__main__":
    print(json.dumps(speak_longest_clause(Path(sys.argv[1]))))
