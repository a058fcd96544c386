"""One measurement in a fresh process (load time and peak memory need one each).

`python -m bench.probe JSON` with {"system", "model", "threads", "state_dir", "text"}: imports,
loads, speaks a short phrase, prints `READY {...}` (the parent times the whole start-up from
spawn to this line), then speaks `text` if given and prints `DONE {...}` with peak RSS.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

import numpy as np


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def peak_rss_mb() -> float:
    """VmHWM, not ru_maxrss: Linux carries ru_maxrss over fork and exec, so a probe started by a
    large parent would report the parent's peak."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def main(spec: dict) -> None:
    from bench.inprocess import timed
    from bench.systems import System
    from bench.texts import SHORT

    started = time.perf_counter()
    system = System(**spec["system"])
    if system.ours:
        import cosyedge.speech.render
        import cosyedge.speech.voices.hibari
        import cosyedge.speech.voices.piper  # noqa: F401
    import hibari  # noqa: F401
    import onnxruntime  # noqa: F401
    import piper.voice  # noqa: F401

    imported = time.perf_counter()
    state_dir = Path(spec["state_dir"]) if spec.get("state_dir") else None
    speaker = system.load(spec.get("threads"), state_dir)
    loaded = time.perf_counter()
    after_load = rss_mb()
    _, first_phrase, samples, _ = timed(speaker.stream(SHORT))  # until its last chunk is out
    report = {
        "import_s": imported - started,
        "load_s": loaded - imported,
        "first_phrase_s": first_phrase,
        "rss_after_load_mb": after_load,
        "first_phrase_audio_s": samples / speaker.sample_rate,
    }
    print("READY " + json.dumps(report), flush=True)
    if spec.get("text"):
        before = peak_rss_mb()
        samples = sum(len(np.asarray(c)) for c in speaker.stream(spec["text"]))
        report |= {
            "audio_s": samples / speaker.sample_rate,
            "peak_rss_mb": peak_rss_mb(),
            "peak_rss_before_text_mb": before,
            "rss_after_text_mb": rss_mb(),
        }
    print("DONE " + json.dumps(report), flush=True)


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
