"""Measurements inside this process, every system interleaved text by text, so that a busy
machine slows all of them alike."""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from bench.systems import Speaker, System
from bench.texts import SHORT


def timed(stream: Iterator[np.ndarray]) -> tuple[float, float, int, float]:
    """(time to the first chunk, time to the last chunk, samples, process CPU seconds) of one
    utterance. The clock stops at the last chunk: what a system does after all audio is out
    (cosyedge writes its phrase cache) does not delay the listener."""
    cpu, started = time.process_time(), time.perf_counter()
    first, last, samples, cpu_used = None, 0.0, 0, 0.0
    for chunk in stream:
        last = time.perf_counter() - started
        cpu_used = time.process_time() - cpu
        if first is None:
            first = last
        samples += len(chunk)
    return first or 0.0, last, samples, cpu_used


def speed(
    all_systems: list[System], threads: list[int], texts: dict[str, str], reps: int
) -> list[dict]:
    speakers: dict[tuple[str, int], Speaker] = {}
    repeats: dict[str, int] = {}
    for n in threads:
        for system in all_systems:
            speakers[system.key, n] = speaker = system.load(n)
            list(speaker.stream(SHORT))  # warm-up: first-call allocations are not the subject
            # Calls far shorter than the scheduler's noise are repeated within a measurement.
            seconds = timed(speaker.stream(SHORT))[1]
            repeats[system.family] = max(repeats.get(system.family, 1), min(10, int(0.3 / seconds)))
    runs: dict[tuple[str, int, str], list[tuple[float, float, float, float]]] = defaultdict(list)
    for rep in range(reps):
        for n in threads:
            for name, text in texts.items():
                turn = rep % len(all_systems)  # who goes first rotates from run to run
                order = all_systems[turn:] + all_systems[:turn]
                for system in order:
                    speaker = speakers[system.key, n]
                    for _ in range(repeats[system.family]):
                        first, total, samples, cpu = timed(speaker.stream(text))
                        audio = samples / speaker.sample_rate
                        runs[system.key, n, name].append((first, total, audio, cpu))
    rows = []
    for (key, n, name), values in runs.items():
        first, total, audio, cpu = (statistics.median(v) for v in zip(*values, strict=True))
        rows.append(
            {
                "system": key,
                "threads": n,
                "text": name,
                "first_audio_s": first,
                "total_s": total,
                "audio_s": audio,
                "rtf": total / audio,
                "cpu_per_audio_s": cpu / audio,
                "runs": len(values),
            }
        )
    return rows


def quality(all_systems: list[System], texts: list[str]) -> list[dict]:
    """pocketsphinx word error against what the operator should hear (cosyedge's English
    reading of the text), for every system on the same texts."""
    from cosyedge.packs.evaluate import Listener, word_error_rate, words
    from cosyedge.speech.text.english import normalize

    listener = Listener()
    speakers = {s.key: s.load(1) for s in all_systems}
    errors: dict[str, float] = defaultdict(float)
    reference_words = 0
    for text in texts:
        spoken = normalize(text)
        n = len(words(spoken))
        reference_words += n
        for system in all_systems:
            speaker = speakers[system.key]
            pcm = np.concatenate(list(speaker.stream(text)))
            heard = listener.transcribe(pcm, speaker.sample_rate)
            errors[system.key] += word_error_rate(spoken, heard) * n
    return [
        {"system": s.key, "wer": errors[s.key] / reference_words, "texts": len(texts)}
        for s in all_systems
    ]


def session_settings(all_systems: list[System], texts: dict[str, str], reps: int) -> list[dict]:
    """Our voices under each session setting that has a choice, interleaved."""
    from cosyedge.config import SessionConfig, VoiceConfig
    from cosyedge.speech.voices import load_voice

    variants = {
        "1 thread": SessionConfig(),
        "1 thread, no arena": SessionConfig(memory_arena=False),
        "1 thread, extended": SessionConfig(graph_optimization="extended"),
        "1 thread, basic": SessionConfig(graph_optimization="basic"),
        "2 threads": SessionConfig(intra_op_threads=2),
        "2 threads, spinning": SessionConfig(intra_op_threads=2, allow_spinning=True),
        "2 threads, parallel": SessionConfig(
            intra_op_threads=2, inter_op_threads=2, execution_mode="parallel"
        ),
    }
    ours = [s for s in all_systems if s.ours]
    voices = {}
    for system in ours:
        for name, settings in variants.items():
            model = None if system.model is None else Path(system.model)
            config = VoiceConfig(engine=system.family, model=model, session=settings)
            voices[system.key, name] = load_voice("en", config)
    runs: dict[tuple[str, str], list[tuple[float, float, float]]] = defaultdict(list)
    for _ in range(reps):
        for text in texts.values():
            for (key, name), voice in voices.items():
                _, total, samples, cpu = timed(voice.synthesize(text))
                runs[key, name].append((total, samples / voice.sample_rate, cpu))
    rows = []
    for (key, name), values in runs.items():
        total = sum(v[0] for v in values)
        audio = sum(v[1] for v in values)
        cpu = sum(v[2] for v in values)
        rows.append(
            {"system": key, "setting": name, "rtf": total / audio, "cpu_per_audio_s": cpu / audio}
        )
    return rows
