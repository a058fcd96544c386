"""First audio of live alerts while the premium voice renders:
`python -m bench.premium [--pack DIR] [--alerts 60]`.

Three conditions, interleaved alert by alert in one run so the machine's noise falls on all:
- none: the premium worker exists but is stopped (no premium render in progress);
- paused: the worker is computing when the alert comes, and is stopped (SIGSTOP) as the
  announcer becomes busy: what the daemon does;
- running: the worker is computing and left running at nice 19 through the alert: what the
  stop buys.
Each alert is a unique phrase (never in the cache), rendered by the live voice (hibari, the
default) on the renderer's synthesis thread and timed from `render` to its first clause's
audio, inside `Activity.busy()` as the announcer holds it. An alert is fired only once the
worker is computing (state R), so it arrives mid-render. Without `--pack`, the tiny
random-weight pack is built in the CosyVoice conversion venv; a full-size pack gives the
figure that matters (its steps load memory and caches far more). Prints p50/p99 per
condition and writes JSON under bench/results/.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
CONDITIONS = ("none", "paused", "running")


def build_tiny_pack(directory: Path) -> Path:
    sys.path.insert(0, str(REPO / "tests"))
    from cosyvoice_support import PackUnavailable, build_tiny_pack

    try:
        return build_tiny_pack(directory)
    except PackUnavailable as exc:
        raise SystemExit(f"{exc}; give --pack DIR") from None


def state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Premium:
    """The worker kept rendering, phrase after phrase, on its own thread."""

    def __init__(self, pack: Path, models: Path) -> None:
        from cosyedge.config import SessionConfig
        from cosyedge.speech.premium.worker import PremiumWorker, WorkerSpec

        self.worker = PremiumWorker(WorkerSpec("en", pack, SessionConfig(), models, ()))
        self.worker.start(lambda: True)
        self.stop = threading.Event()
        self.rendered = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from cosyedge.speech.premium.worker import WorkerFailed

        i = 0
        while not self.stop.is_set():
            i += 1
            text = (
                f"Premium phrase {i}: the boiler feed pump on line {i % 9} has stopped, check it."
            )
            try:
                self.worker.synthesize(text, lambda: not self.stop.is_set(), 3600)
            except WorkerFailed:
                return  # closed at the end of the run
            self.rendered += 1

    def computing(self, timeout: float = 5.0) -> bool:
        """Let it run and wait until it computes (not between phrases, not stopped)."""
        self.worker.resume()
        deadline = time.monotonic() + timeout
        pid = self.worker._proc.pid  # type: ignore[union-attr]
        while time.monotonic() < deadline:
            if state(pid) == "R":
                return True
            time.sleep(0.002)
        return False

    def close(self) -> None:
        self.stop.set()
        self.worker.close()


def measure(pack: Path, alerts: int, work: Path) -> dict:
    from cosyedge.config import VoiceConfig
    from cosyedge.observe import Observer
    from cosyedge.speech.cache import PhraseCache
    from cosyedge.speech.cache.background import Activity
    from cosyedge.speech.render import Renderer
    from cosyedge.speech.voices import load_voice, mixed_voices

    voice = load_voice("en", VoiceConfig(), work / "models")
    renderer = Renderer(mixed_voices({"en": voice}), PhraseCache(work / "cache"))
    renderer.start()
    premium = Premium(pack, work / "models")
    condition = {"now": "none"}

    class Pause(Observer):
        def busy(self) -> None:
            if condition["now"] == "paused":
                premium.worker.pause()

    activity = Activity(Pause())
    firsts: dict[str, list[float]] = {c: [] for c in CONDITIONS}
    missed = 0
    rng = random.Random(7)
    try:
        for i in range(alerts * len(CONDITIONS)):
            now = condition["now"] = CONDITIONS[i % len(CONDITIONS)]
            if now == "none":
                premium.worker.pause()
                time.sleep(0.05)
            elif not premium.computing():
                missed += 1
            text = f"Alert {i}: pressure {rng.randint(10, 999)} bar on line {rng.randint(1, 40)}."
            with activity.busy():
                started = time.perf_counter()
                rendering = renderer.render(text, "en")
                next(iter(rendering.chunks))
                firsts[now].append(time.perf_counter() - started)
                rendering.close()
                rendering.wait_stopped(10)
    finally:
        worker_mb = premium.worker.rss_mb()
        premium.close()
        renderer.stop(30)
    return {
        "firsts": firsts,
        "missed": missed,
        "worker_rss_mb": worker_mb,
        "rendered": premium.rendered,
    }


def summary(firsts: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    return {
        c: {
            "alerts": len(v),
            "p50_ms": 1000 * statistics.median(v),
            "p99_ms": 1000 * percentile(v, 0.99),
            "max_ms": 1000 * max(v),
        }
        for c, v in firsts.items()
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.premium", description=__doc__)
    parser.add_argument("--pack", type=Path, help="a CosyVoice pack (default: build the tiny one)")
    parser.add_argument("--alerts", type=int, default=60, help="alerts per condition (60)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        pack = args.pack or build_tiny_pack(work)
        result = measure(pack, args.alerts, work)
    table = summary(result["firsts"])
    print("| premium render | alerts | first audio p50 | p99 | max |")
    print("|---|---:|---:|---:|---:|")
    for c, row in table.items():
        print(
            f"| {c} | {row['alerts']} | {row['p50_ms']:.1f} ms | {row['p99_ms']:.1f} ms "
            f"| {row['max_ms']:.1f} ms |"
        )
    for c in ("paused", "running"):
        added = table[c]["p99_ms"] - table["none"]["p99_ms"]
        print(f"p99 added with the render {c}: {added:+.1f} ms")
    print(
        f"worker RSS {result['worker_rss_mb']:.0f} MB, {result['rendered']} premium phrases "
        f"rendered meanwhile, {result['missed']} alerts fired without the worker computing"
    )
    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = RESULTS / f"premium-{stamp}.json"
    out.write_text(
        json.dumps(
            {
                "pack": str(pack),
                "machine": platform.machine(),
                "summary": table,
                **{k: v for k, v in result.items() if k != "firsts"},
                "firsts_s": result["firsts"],
            },
            indent=1,
        )
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
