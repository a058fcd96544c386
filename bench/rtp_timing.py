"""The network outputs' packets where they arrive: 1, 4 and 16 outputs saying one
announcement at once (a thread each, in one process, as a zone's outputs are), each heard by
a plain socket joined to the group on a port of its own, in a network namespace of the
bench's own (tests/rtp_netns.py, the receiver of tests/rtp_receiver.py).

    python -m bench.rtp_timing [--seconds S] [--reps N] [--codec pcmu|pcma|l16]

The audio is bench/rtp.py's (S seconds of speech-like sound at 22.05 kHz, in 2048-sample
chunks). Each case runs `--reps` times, the cases taking turns. Arrival times are the
kernel's (SO_TIMESTAMPNS); the receiver is another process than the senders. Per case, over
every output's packets of every run: the gap between consecutive packets (p50, p99, the
largest), RFC 3550's interarrival jitter J (§6.4.1, A.8; the value a receiver report would
carry at the stream's end, its median and largest over the outputs, and its largest after
the first second, once the lead of the first three packets has decayed), talkspurts begun
again because the sender fell behind, and the time from the first packet to the last over
the audio's length. Needs root (a network namespace: `unshare -n`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

from bench.rtp import RATE, audio

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

import rtp_netns  # noqa: E402  (the tests' namespace and receiver, measured the same way)
from rtp_receiver import interarrival_jitter  # noqa: E402

CASES = (1, 4, 16)
CLOCK = {"pcmu": 8000, "pcma": 8000, "l16": 16000}


def run(outputs: int, codec: str, sent: Path, directory: Path) -> list[dict]:
    """One case once: each output's figures."""
    heard = directory / f"heard-{outputs}.npz"
    report = rtp_netns.inside("page", codec, str(outputs), str(sent), "0", str(heard), timeout=300)
    if report["sender"]:
        raise RuntimeError(report["sender_err"])
    packets = np.load(heard)
    return [
        figures(packets[f"o{i}_at"], packets[f"o{i}_ts"], CLOCK[codec]) | {"gaps": gaps}
        for i, gaps in enumerate(report["gaps"])
    ]


def figures(at: np.ndarray, ts: np.ndarray, rate: int) -> dict:
    """One output's stream: its gaps (ms), J at its end and J's largest after 1 s (ms), the
    span from its first packet to its last (s)."""
    jitter = interarrival_jitter(at, ts, rate) * 1000
    later = jitter[at - at[0] > 1.0]
    return {
        "gap_ms": np.diff(at) * 1000,
        "jitter_end_ms": float(jitter[-1]),
        "jitter_later_ms": float(later.max()) if len(later) else 0.0,
        "span_s": float(at[-1] - at[0]),
        "packets": len(at),
    }


def row(outputs: int, runs: list[dict], seconds: float) -> str:
    gaps = np.concatenate([r["gap_ms"] for r in runs])
    ends = [r["jitter_end_ms"] for r in runs]
    p50, p99 = np.percentile(gaps, [50, 99])
    return (
        f"| {outputs} | {sum(r['packets'] for r in runs)} | {p50:.2f} | {p99:.2f} "
        f"| {gaps.max():.1f} | {statistics.median(ends):.3f} | {max(ends):.3f} "
        f"| {max(r['jitter_later_ms'] for r in runs):.2f} | {sum(r['gaps'] for r in runs)} "
        f"| {statistics.median(r['span_s'] for r in runs) / seconds:.3f} |"
    )


def table(results: dict[int, list[dict]], seconds: float, codec: str) -> str:
    head = [
        f"| outputs at once ({seconds:g} s, {codec}) | packets heard | gap p50 ms | gap p99 ms "
        "| largest gap ms | J at the end ms (median) | (largest) | J's largest after 1 s ms "
        "| talkspurts begun again | first to last packet / audio |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    return "\n".join(head + [row(n, results[n], seconds) for n in CASES])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--codec", default="pcmu", choices=sorted(CLOCK))
    args = parser.parse_args()
    if problem := rtp_netns.namespace_problem():
        sys.exit(f"bench.rtp_timing {problem}")
    results: dict[int, list[dict]] = {n: [] for n in CASES}
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        sent = Path(tmp) / "sent.npz"
        np.savez(sent, rate=RATE, a0=np.concatenate(audio(args.seconds)))
        for _ in range(args.reps):
            for n in CASES:  # taking turns, so a change of load falls on every case alike
                results[n].extend(run(n, args.codec, sent, Path(tmp)))
    print(table(results, args.seconds, args.codec))
    print(f"\nload average {load:.2f} at start, {os.getloadavg()[0]:.2f} at end; {args.reps} runs")


if __name__ == "__main__":
    main()
