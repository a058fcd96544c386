"""`python -m bench.cost`: how well a phrase's cost is known before it is said.

For each default voice (and Piper's joe, when installed), every alert of the shared set and a
seeded set of hostile texts (runs of letters and capitals, digit strings, codes, hashes, URLs,
CJK runs, symbols) are read by the voice's front end and synthesized for real. Printed: the
pace fitted by least squares on these measurements beside the one the code ships, the
estimate's error with the shipped pace, the 20 longest shared alerts by estimated seconds,
and how many the default `alarms.max_spoken_s` would shorten.

Options: --hostile N (default 60 per language), --seed S.
"""

from __future__ import annotations

import argparse
import json
import random
import string
import time

import numpy as np

from bench.texts import ALERTS, alert_texts
from cosyedge.config import VoiceConfig


def zh_alert_texts() -> list[str]:
    """The Mandarin alerts of the shared set, as their free text."""
    texts = []
    for line in ALERTS.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item["lang"] == "zh":
            texts.append(item["payload"]["text"])
    return texts


def hostile_texts(count: int, lang: str, seed: int) -> list[str]:
    """Texts whose characters say little of their length as speech, generated from `seed`."""
    rng = random.Random(seed)
    makers = [
        lambda n: "".join(rng.choice(string.ascii_uppercase) for _ in range(n)),
        lambda n: "".join(rng.choice(string.ascii_lowercase) for _ in range(n)),
        lambda n: "".join(rng.choice(string.digits) for _ in range(n)),
        lambda n: "-".join(f"{rng.randrange(1000)}" for _ in range(max(1, n // 4))),
        lambda n: "".join(rng.choice("0123456789abcdef") for _ in range(n)),
        lambda n: (
            "https://"
            + "/".join(
                "".join(rng.choice(string.ascii_lowercase) for _ in range(5)) for _ in range(n // 6)
            )
        ),
        lambda n: " ".join(
            "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(6))
            for _ in range(max(1, n // 7))
        ),
        lambda n: "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(n)),
        lambda n: " ".join(rng.choice(["%", "°C", "#", "&", "+", "@"]) for _ in range(n // 2)),
    ]
    if lang == "zh":
        makers = makers[2:4] + makers[7:8] * 4
    return [rng.choice(makers)(rng.randrange(5, 120)) for _ in range(count)]


def measure(lang: str, engine: str, texts: list[str]) -> list[tuple[tuple[int, int, int], float]]:
    """Each text's (sounds, pauses, steps) as the voice's front end counts them, and the
    seconds of audio the voice makes of it."""
    from cosyedge.speech.voices import load_voice

    voice = load_voice(lang, voice_config(lang, engine))
    rows = []
    for text in texts:
        units = list(voice.front.units(text))
        counts = [voice.front.pace.sounds_of(unit) for unit in units]
        features = (sum(c[0] for c in counts), sum(c[1] for c in counts), len(units))
        samples = sum(len(pcm) for pcm in voice.synthesize(text))
        rows.append((features, samples / voice.sample_rate))
    return rows


def voice_config(lang: str, engine: str) -> VoiceConfig:
    from cosyedge.config import parse_config

    voices = {"en": "hibari", lang: engine}  # English is always configured
    listed = ", ".join(f"{code}: {{engine: {name}}}" for code, name in voices.items())
    config = parse_config(f"voices: {{{listed}}}")
    return config.voices[lang]


def fitted_pace(rows: list[tuple[tuple[int, int, int], float]]) -> np.ndarray:
    """Seconds per sound, per pause and per step, by least squares (none below zero)."""
    features = np.array([r[0] for r in rows], float)
    seconds = np.array([r[1] for r in rows], float)
    coefficients, *_ = np.linalg.lstsq(features, seconds, rcond=None)
    return np.maximum(coefficients, 0.0)


def error_table(name: str, rows: list, pace: object) -> str:
    estimated = np.array([pace.sound * s + pace.pause * p + pace.step * n for (s, p, n), _ in rows])
    measured = np.array([r[1] for r in rows])
    relative = (estimated - measured) / np.maximum(measured, 0.5)
    absolute = np.abs(estimated - measured)
    return (
        f"| {name} | {len(rows)} | {np.median(np.abs(relative)) * 100:.0f} % | "
        f"{np.percentile(np.abs(relative), 95) * 100:.0f} % | {relative.min() * 100:+.0f} % | "
        f"{relative.max() * 100:+.0f} % | {absolute.max():.1f} s |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.cost")
    parser.add_argument("--hostile", type=int, default=60)
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()
    from cosyedge.speech.voices import load_front_end

    voices = [("en", "hibari", alert_texts(60)), ("zh", "espeak-pinyin", zh_alert_texts())]
    try:
        import piper  # noqa: F401

        voices.append(("en", "piper", alert_texts(60)))
    except ImportError:
        pass
    print("| voice | texts | median error | 95th pct | lowest | highest | largest |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    fits = []
    for lang, engine, shared in voices:
        hostile = hostile_texts(args.hostile, lang, args.seed)
        started = time.monotonic()
        rows = measure(lang, engine, shared + hostile)
        front = load_front_end(lang, voice_config(lang, engine))
        print(error_table(f"{engine} shared", rows[: len(shared)], front.pace))
        print(error_table(f"{engine} hostile", rows[len(shared) :], front.pace))
        fits.append((engine, fitted_pace(rows), front.pace, time.monotonic() - started))
    for engine, fit, pace, took in fits:
        print(
            f"{engine}: fitted sound {fit[0]:.3f} pause {fit[1]:.3f} step {fit[2]:.3f}; "
            f"shipped {pace.sound} {pace.pause} {pace.step} ({took:.0f} s)"
        )
    longest_table()


def longest_table() -> None:
    """The 20 longest shared alerts by estimated seconds, and how many would be shortened."""
    from cosyedge.config import AlarmsConfig, load_config
    from cosyedge.speech.voices import load_front_end

    config = load_config(None)
    rows = []
    for lang, texts in (("en", alert_texts(60)), ("zh", zh_alert_texts())):
        front = load_front_end(lang, config.voices[lang])
        rows += [(front.estimate(text).seconds, lang, text) for text in texts]
    limit = AlarmsConfig().max_spoken_s
    over = sum(1 for seconds, _, _ in rows if seconds > limit)
    print(f"\n{len(rows)} shared alerts, {over} over max_spoken_s {limit:.0f} s\n")
    print("| estimated | lang | text |\n|---:|---|---|")
    for seconds, lang, text in sorted(rows, reverse=True)[:20]:
        print(f"| {seconds:.1f} s | {lang} | {text} |")


if __name__ == "__main__":
    main()
