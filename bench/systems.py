"""The speech systems compared, each behind the same two calls: load, then stream a text.

cosyedge's voices are measured through `Renderer`, the path the daemon takes (synthesis thread,
bounded queue). The reference runtimes are piper-tts's `PiperVoice` and hibari's `Hibari`, used
as their documentation shows. `PiperVoice.load()` takes no session options, so for the speed
table at a given thread count its session is made as `load()` makes it plus the thread count;
load times use `PiperVoice.load()` itself.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

PIPER_FAMILY = "piper"
HIBARI_FAMILY = "hibari"


@dataclass
class Speaker:
    sample_rate: int
    stream: Callable[[str], Iterator[np.ndarray]]


@dataclass(frozen=True)
class System:
    key: str
    label: str
    family: str
    precision: str
    ours: bool
    model: str | None = None  # piper: the .onnx file

    def load(self, threads: int | None, state_dir: Path | None = None) -> Speaker:
        """threads None: the runtime's own defaults (used for load time)."""
        if self.ours:
            return _load_ours(self, threads or 1, state_dir)
        if self.family == PIPER_FAMILY:
            return _load_piper_tts(Path(str(self.model)), threads)
        return _load_hibari(threads)


def systems(int8_model: Path) -> list[System]:
    from cosyedge.speech.voices.piper import packaged_model

    fp32 = str(packaged_model())
    int8 = str(int8_model)
    return [
        System("ours-hibari", "cosyedge hibari", HIBARI_FAMILY, "int8", True),
        System("hibari", "hibari Hibari", HIBARI_FAMILY, "int8", False),
        System("ours-piper-fp32", "cosyedge piper", PIPER_FAMILY, "fp32", True, fp32),
        System("piper-fp32", "piper-tts PiperVoice", PIPER_FAMILY, "fp32", False, fp32),
        System("ours-piper-int8", "cosyedge piper", PIPER_FAMILY, "int8", True, int8),
        System("piper-int8", "piper-tts PiperVoice", PIPER_FAMILY, "int8", False, int8),
    ]


def reference_of(system: System, all_systems: list[System]) -> System:
    """The family's own runtime on the same model."""
    return next(
        s
        for s in all_systems
        if not s.ours and s.family == system.family and s.precision == system.precision
    )


def _load_ours(system: System, threads: int, state_dir: Path | None) -> Speaker:
    from cosyedge.config import SessionConfig, VoiceConfig
    from cosyedge.speech.cache import PhraseCache
    from cosyedge.speech.render import Renderer
    from cosyedge.speech.voices import load_voices

    config = VoiceConfig(
        engine=system.family,
        model=Path(system.model) if system.model else None,
        session=SessionConfig(intra_op_threads=threads),
    )
    # As the daemon loads and starts them, memory settling and the synthesis thread included.
    voice = load_voices({"en": config}, state_dir / "models" if state_dir else None)["en"]
    cache_dir = Path(tempfile.mkdtemp(prefix="bench-cache-"))
    renderer = Renderer({"en": voice}, PhraseCache(Path(tempfile.mkdtemp(dir=cache_dir))))
    renderer.start()

    def stream(text: str) -> Iterator[np.ndarray]:
        # A fresh cache per call, so every call synthesizes; opened here, before the caller's
        # clock starts (opening a cache is not synthesis).
        renderer.cache.close()
        renderer.cache = PhraseCache(Path(tempfile.mkdtemp(dir=cache_dir)))

        def chunks() -> Iterator[np.ndarray]:
            rendering = renderer.render(text)
            try:
                yield from rendering.chunks
            finally:
                rendering.close()

        return chunks()

    return Speaker(voice.sample_rate, stream)


def _load_piper_tts(model: Path, threads: int | None) -> Speaker:
    import onnxruntime as ort
    from piper.config import PiperConfig
    from piper.voice import PiperVoice

    if threads is None:
        voice = PiperVoice.load(model)
    else:
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        config = PiperConfig.from_dict(json.loads(Path(f"{model}.json").read_text()))
        voice = PiperVoice(session=session, config=config)

    def stream(text: str) -> Iterator[np.ndarray]:
        for chunk in voice.synthesize(text):
            yield chunk.audio_int16_array

    return Speaker(voice.config.sample_rate, stream)


def _load_hibari(threads: int | None) -> Speaker:
    from hibari import Hibari

    tts = Hibari(threads=threads or 1)

    def stream(text: str) -> Iterator[np.ndarray]:
        for audio in tts.stream(text):
            yield (np.clip(audio, -1.0, 1.0) * 32767).astype(np.int16)

    return Speaker(tts.sample_rate, stream)
