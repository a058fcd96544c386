"""What one synthesis step of a voice costs, measured once on this machine and kept.

The memory guard learns a voice's step by speaking a reference text at every start (a quarter
of a second of CPU before READY, each start). What it measures depends on the voice (its
identity: model, engine, normalizer, lexicon), the text, onnxruntime and the kernel, and on
nothing that changes between two starts of the same install: so the first start keeps it in
the saved-models directory (`step-<key>.json`) and later ones read it back. A record made from
anything else (another voice or version, an upgrade of onnxruntime or the kernel) has another
key and is not read; one that does not read back whole (torn, edited) is measured again. The
guard still learns from every step said (`MemoryGuard.step_mb` is the larger of the two).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
from pathlib import Path
from typing import Any

from cosyedge.regular import regular_only
from cosyedge.speech.kept import SavedDir, write_whole

log = logging.getLogger(__name__)

FORMAT = 1
STEP_MAX_MB = 65536.0  # a record claiming more is no measurement of ours


def made_from(identity: str, text: str) -> dict[str, Any]:
    """What a step measured on `text` by the voice of `identity` depends on, here."""
    import onnxruntime

    uname = os.uname()
    return {
        "format": FORMAT,
        "voice": identity,
        "text": hashlib.sha256(text.encode()).hexdigest(),
        "onnxruntime": onnxruntime.__version__,
        "kernel": f"{uname.sysname} {uname.release} {uname.machine}",
    }


def record_path(saved: SavedDir, source: dict[str, Any]) -> Path:
    key = hashlib.sha256(json.dumps(source, sort_keys=True).encode()).hexdigest()
    return saved.path / f"step-{key[:16]}.json"


def kept_step(saved: SavedDir, source: dict[str, Any]) -> float | None:
    """The step measured from `source` before, if its record reads back whole; else None."""
    try:
        with open(record_path(saved, source), "rb", opener=regular_only) as f:
            record = json.loads(f.read())
        step = float(record["step_mb"])
        if record["made_from"] == source and math.isfinite(step) and 0 < step <= STEP_MAX_MB:
            return step
    except (OSError, ValueError, TypeError, KeyError):  # none yet, torn, or edited
        pass
    return None


def keep_step(saved: SavedDir, source: dict[str, Any], step_mb: float) -> None:
    """Keep `step_mb` measured from `source`; a disk that cannot keep it (full, read-only) is
    no error: the next start measures again."""
    path = record_path(saved, source)
    try:
        saved.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        saved.check(path)
        write_whole(path, json.dumps({"made_from": source, "step_mb": step_mb}).encode())
    except OSError as exc:
        log.debug("cannot keep the measured step in %s (%s)", path, exc)
