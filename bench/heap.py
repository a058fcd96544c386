"""Is a rising RSS in the soak a leak, or free memory the allocator keeps?

    python -m bench.heap [--phrases N] [--engine hibari|piper]

Synthesizes N unique alert phrases with the default voice, in process, and at each step
prints RSS, then RSS after the memory guard has dropped buffers (`gc.collect()` and glibc's
`malloc_trim(0)`, what it does at 60 % of the ceiling), and the Python heap as tracemalloc
counts it. A leak keeps
RSS up after the trim; memory glibc merely kept for reuse is given back by it.
"""

from __future__ import annotations

import argparse
import json
import random
import tracemalloc

from bench.texts import REPO
from cosyedge.config import VoiceConfig
from cosyedge.speech.memory import MemoryGuard, rss_mb
from cosyedge.speech.voices import load_voice

RESULTS = REPO / "bench" / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phrases", type=int, default=1600)
    parser.add_argument("--engine", default="hibari", choices=("hibari", "piper"))
    args = parser.parse_args()
    guard = MemoryGuard(ceiling_mb=65536)  # no voices of its own: forced, it drops buffers
    voice = load_voice("en", VoiceConfig(engine=args.engine))
    rng = random.Random(1)
    list(voice.synthesize("The voice is warmed up once."))
    guard.check(force=True)
    tracemalloc.start()
    rows = [{"phrases": 0, "rss_mb": rss_mb(), "trimmed_mb": rss_mb(), "python_heap_mb": 0.0}]
    step = max(1, args.phrases // 4)
    for i in range(1, args.phrases + 1):
        list(voice.synthesize(f"Unit {i} reports pressure {rng.randint(1, 999)} bar."))
        if i % step == 0:
            before = rss_mb()
            trimmed = guard.check(force=True)
            heap = tracemalloc.get_traced_memory()[0] / (1 << 20)
            rows.append(
                {"phrases": i, "rss_mb": before, "trimmed_mb": trimmed, "python_heap_mb": heap}
            )
    print(f"| unique phrases ({args.engine}) | RSS | after gc + malloc_trim | Python heap |")
    print("|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['phrases']} | {r['rss_mb']:.1f} MB | {r['trimmed_mb']:.1f} MB "
            f"| {r['python_heap_mb']:.1f} MB |"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "heap.json").write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
