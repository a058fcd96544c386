"""Phrase cache speed: `python -m bench.cache [--quick]`.

Measures, in one run and side by side:
- checksums on a 3 s phrase (CRC-32 as used, BLAKE2b and SHA-256 for comparison);
- the cache-hit path, from lookup to the first PCM block handed to the player, for a real
  3 s Piper phrase, against a bare `wave` read of the same file (no checks, no index);
- index lookups with 100k entries, and one eviction pass there;
- pre-warm throughput (phrases/s) for new and for already cached phrases, against the
  voice's own synthesis rate.
Prints a table and writes JSON under bench/results/.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import statistics
import tempfile
import time
import wave
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from cosyedge.config import VoiceConfig
from cosyedge.speech.cache import Limits, PhraseCache
from cosyedge.speech.cache.index import Index, Row
from cosyedge.speech.cache.warm import Phrase, warm_one
from cosyedge.speech.render import Renderer
from cosyedge.speech.voices import load_voice

RESULTS = Path(__file__).resolve().parent / "results"
PHRASE = "Temperature alarm on line three: eighty five degrees."


def timings_ms(fn: Callable[[], object], runs: int, warmup: int = 20) -> dict[str, float]:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return {
        "runs": runs,
        "p50_ms": statistics.median(samples),
        "p99_ms": samples[min(runs - 1, int(runs * 0.99))],
        "max_ms": samples[-1],
    }


def bench_checksums(data: bytes, runs: int) -> dict[str, dict[str, float]]:
    return {
        "crc32": timings_ms(lambda: zlib.crc32(data), runs),
        "blake2b": timings_ms(lambda: hashlib.blake2b(data).digest(), runs),
        "sha256": timings_ms(lambda: hashlib.sha256(data).digest(), runs),
    }


def bench_hit_path(renderer: Renderer, runs: int) -> dict[str, object]:
    key = renderer.key(PHRASE, "en")
    path = renderer.cache.path(key)

    def hit() -> np.ndarray:
        rendering = renderer.render(PHRASE, "en")
        assert rendering.source == "cache"
        return next(rendering.chunks)

    def bare_wave_read() -> np.ndarray:
        with wave.open(str(path), "rb") as w:
            return np.frombuffer(w.readframes(w.getnframes()), "<i2")

    first = hit()
    return {
        "phrase_s": len(first) / renderer.voice.sample_rate,
        "file_bytes": path.stat().st_size,
        "verified_hit": timings_ms(hit, runs),
        "bare_wave_read": timings_ms(bare_wave_read, runs),
    }


def bench_index(directory: Path, entries: int, runs: int) -> dict[str, object]:
    directory.mkdir(mode=0o700)
    index = Index(directory / "index.sqlite3")
    rng = random.Random(7)
    keys = [f"{rng.getrandbits(256):064x}" for _ in range(entries)]
    now = time.time()
    started = time.perf_counter()
    index.add_many(
        Row(k, "v" * 64, "en", f"phrase {i}", 130_000, i, 22050, 0, now + i, now + i)
        for i, k in enumerate(keys)
    )
    fill_s = time.perf_counter() - started
    hits = timings_ms(lambda: index.lookup(rng.choice(keys)), runs)
    misses = timings_ms(lambda: index.lookup(f"{rng.getrandbits(256):064x}"), runs)
    index.close()
    cache = PhraseCache(directory, Limits(max_bytes=1 << 50, max_entries=entries - 1000))
    started = time.perf_counter()
    evicted = cache.evict()
    evict_s = time.perf_counter() - started
    cache.close()
    return {
        "entries": entries,
        "fill_s": fill_s,
        "lookup_hit": hits,
        "lookup_miss": misses,
        "evicted": evicted,
        "evict_s": evict_s,
    }


def bench_warm(renderer: Renderer, count: int) -> dict[str, float]:
    phrases = [Phrase(f"Door {i} on line {i % 7 + 1} is open.", "en") for i in range(count)]
    started = time.perf_counter()
    for p in phrases[: count // 2]:
        for _ in renderer.voice.synthesize(p.text):
            pass
    synth_rate = (count // 2) / (time.perf_counter() - started)
    started = time.perf_counter()
    outcomes = [warm_one(renderer, p) for p in phrases]
    new_rate = count / (time.perf_counter() - started)
    assert outcomes == ["new"] * count, outcomes
    started = time.perf_counter()
    outcomes = [warm_one(renderer, p) for p in phrases]
    cached_rate = count / (time.perf_counter() - started)
    assert outcomes == ["cached"] * count, outcomes
    return {
        "phrases": count,
        "synthesis_only_per_s": synth_rate,
        "warm_new_per_s": new_rate,
        "warm_cached_per_s": cached_rate,
    }


def machine() -> dict[str, object]:
    model = "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "cpu": model,
        "cores": os.cpu_count(),
        "load_1min": os.getloadavg()[0],
        "python": platform.python_version(),
        "kernel": platform.release(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs, 10k index entries")
    args = parser.parse_args()
    runs = 300 if args.quick else 3000
    entries = 10_000 if args.quick else 100_000
    report: dict[str, object] = {"machine": machine()}
    voice = load_voice("en", VoiceConfig(engine="piper"))
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as tmp:
        renderer = Renderer({"en": voice}, PhraseCache(Path(tmp) / "hit"))
        for _ in renderer.render(PHRASE, "en").chunks:
            pass
        report["hit_path"] = bench_hit_path(renderer, runs)
        data = renderer.cache.path(renderer.key(PHRASE, "en")).read_bytes()
        report["checksum"] = bench_checksums(data, runs)
        report["index"] = bench_index(Path(tmp) / "index", entries, runs)
        warm_renderer = Renderer({"en": voice}, PhraseCache(Path(tmp) / "warm"))
        report["warm"] = bench_warm(warm_renderer, 6 if args.quick else 16)
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"cache-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(report, indent=2))
    print_table(report)
    print(f"\nwritten to {out}")


def print_table(r: dict) -> None:
    m, hit, idx, warm, ck = r["machine"], r["hit_path"], r["index"], r["warm"], r["checksum"]
    print(f"{m['date']}  {m['cpu']}, {m['cores']} cores, load {m['load_1min']:.2f}")
    print(f"{'measure':<58}{'p50':>10}{'p99':>10}")

    def row(name: str, t: dict) -> None:
        print(f"{name:<58}{t['p50_ms']:>8.3f}ms{t['p99_ms']:>8.3f}ms")

    phrase = f"{hit['phrase_s']:.1f} s phrase, {hit['file_bytes'] // 1000} kB"
    row(f"cache hit: lookup to first PCM block ({phrase})", hit["verified_hit"])
    row("  same file by a bare wave read, no checks (reference)", hit["bare_wave_read"])
    ratio = hit["verified_hit"]["p50_ms"] / hit["bare_wave_read"]["p50_ms"]
    print(f"  verified hit / bare read (p50): {ratio:.2f}x")
    for name, t in ck.items():
        row(f"checksum {name} of that file", t)
    row(f"index lookup, {idx['entries']} entries, present", idx["lookup_hit"])
    row(f"index lookup, {idx['entries']} entries, absent", idx["lookup_miss"])
    print(
        f"index fill {idx['entries']} rows {idx['fill_s']:.2f} s; "
        f"eviction of {idx['evicted']} entries {idx['evict_s'] * 1000:.0f} ms"
    )
    print(
        f"warm ({warm['phrases']} phrases): new {warm['warm_new_per_s']:.2f}/s, "
        f"already cached {warm['warm_cached_per_s']:.0f}/s; "
        f"synthesis alone {warm['synthesis_only_per_s']:.2f}/s "
        f"(warm/synthesis {warm['warm_new_per_s'] / warm['synthesis_only_per_s']:.2f}x)"
    )


if __name__ == "__main__":
    main()
