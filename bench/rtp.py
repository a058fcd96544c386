"""The CPU and memory of the network outputs, 1, 4 and 16 streaming one rendering at once
(a thread each), against the sound device's player playing the same audio to an ALSA file
sink (whose slave is `null`), side by side in one run.

    python -m bench.rtp [--seconds S] [--reps N] [--codec pcmu|pcma|l16]

Each case runs in a process of its own, the cases taking turns `--reps` times: the audio
(S seconds at 22.05 kHz, a voice's rate, in 2048-sample chunks as a voice yields them) is
made first, then the CPU (user and system, `getrusage`) of playing it is measured, and the
process's peak RSS after. The outputs send to 127.0.0.1, to a socket nobody reads (the
kernel drops what its buffer cannot hold; the sender never waits for it). Medians, and each
case's ratio to the player's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
CASES = ("player", "rtp:1", "rtp:4", "rtp:16")
RATE = 22050


def audio(seconds: float) -> list[np.ndarray]:
    """Speech-like int16 at RATE: noise shaped by a syllable-rate envelope, over two tones."""
    rng = np.random.default_rng(7)
    t = np.arange(int(seconds * RATE)) / RATE
    envelope = 0.5 + 0.5 * np.sin(2 * np.pi * 4 * t)
    signal = envelope * (0.3 * rng.standard_normal(len(t)) + np.sin(2 * np.pi * 220 * t))
    pcm = (np.clip(signal * 0.4, -1, 1) * 32767).astype(np.int16)
    return [pcm[i : i + 2048] for i in range(0, len(pcm), 2048)]


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def play_rtp(outputs: int, chunks: list[np.ndarray], codec: str) -> None:
    from cosyedge.audio.rtp import RtpOutput
    from cosyedge.config.outputs import RtpOutputConfig

    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind(("127.0.0.1", 0))
    rate = 16000 if codec == "l16" else None
    made = [
        RtpOutput(
            RtpOutputConfig(
                name=f"o{i}",
                address="127.0.0.1",
                port=sink.getsockname()[1],
                codec=codec,
                rate=rate,
            )
        )
        for i in range(outputs)
    ]
    threads = [threading.Thread(target=o.play, args=(RATE, chunks)) for o in made]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for output in made:
        output.stop()
    sink.close()


def play_device(chunks: list[np.ndarray]) -> None:
    from cosyedge.audio.player import Player

    Player(None, 100).play(RATE, chunks)


def child(case: str, seconds: float, codec: str) -> None:
    """One case in this process; its figures as JSON on stdout. Only the case's own modules
    are imported (sounddevice and PortAudio for the player, soxr for the outputs), after
    the bare process's RSS (Python, numpy, the audio) is taken, and before the CPU of
    playing is."""
    chunks = audio(seconds)
    Path("/proc/self/clear_refs").write_text("5")  # the peak so far (making the audio) reset
    bare = status_kb("VmRSS")
    if case == "player":
        import sounddevice  # noqa: F401 (PortAudio starts here, as in the daemon's start)
    else:
        import cosyedge.audio.rtp  # noqa: F401 (imports are not what is measured)
    before, began = cpu(), time.monotonic()
    if case == "player":
        play_device(chunks)
    else:
        play_rtp(int(case.split(":")[1]), chunks, codec)
    used, took = cpu() - before, time.monotonic() - began
    peak = status_kb("VmHWM")
    figures = {"cpu_s": used, "wall_s": took, "peak_rss_mb": peak / 1024}
    print(json.dumps({**figures, "added_mb": (peak - bare) / 1024}))


def status_kb(field: str) -> int:
    """A memory figure of this process from /proc/self/status, in kB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise LookupError(field)


def alsa_env(directory: Path) -> dict[str, str]:
    conf = directory / "asoundrc"
    conf.write_text(
        'pcm.!default {\n  type file\n  slave.pcm "null"\n'
        f'  file "{directory}/play.raw"\n  format "raw"\n}}\n'
    )
    return {"ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{conf}"}


def run(case: str, seconds: float, codec: str, env: dict[str, str]) -> dict:
    argv = [sys.executable, "-m", "bench.rtp", "--child", case, "--seconds", str(seconds)]
    done = subprocess.run(
        [*argv, "--codec", codec], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--codec", default="pcmu", choices=("pcmu", "pcma", "l16"))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.seconds, args.codec)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
        env = {**os.environ, **alsa_env(Path(tmp)), "PYTHONPATH": path}
        load = os.getloadavg()[0]
        runs: dict[str, list[dict]] = {case: [] for case in CASES}
        for _ in range(args.reps):
            for case in CASES:  # taking turns, so a change of load falls on every case alike
                runs[case].append(run(case, args.seconds, args.codec, env))
        print(table(runs, args.seconds, args.codec))
        print(
            f"\nload average {load:.2f} at start, {os.getloadavg()[0]:.2f} at end; {args.reps} runs"
        )


def table(runs: dict[str, list[dict]], seconds: float, codec: str) -> str:
    def median(case: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[case])

    base_cpu, base_rss = median("player", "cpu_s"), median("player", "peak_rss_mb")
    rows = [
        f"| case ({seconds:g} s of 22.05 kHz audio; outputs: {codec}) | CPU ms per s of audio "
        "| per output | CPU vs the player | wall / audio | peak RSS MB | vs the player "
        "| MB over the bare process |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for case in CASES:
        outputs = int(case.split(":")[1]) if ":" in case else 1
        per_s = median(case, "cpu_s") / seconds * 1000
        name = "the player, ALSA file sink" if case == "player" else f"{outputs} network outputs"
        rows.append(
            f"| {name} | {per_s:.1f} | {per_s / outputs:.1f} | "
            f"{median(case, 'cpu_s') / base_cpu:.1f} | {median(case, 'wall_s') / seconds:.3f} | "
            f"{median(case, 'peak_rss_mb'):.1f} | {median(case, 'peak_rss_mb') / base_rss:.2f} | "
            f"{median(case, 'added_mb'):.1f} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    main()
