"""The fallback Mandarin voice: espeak-ng reading tone-numbered pinyin.

espeak-ng's `cmn` voice reads Chinese characters with its own, often wrong, readings (转 as
zhuan3 in 转每分); fed pinyin from our front end through `cmn-latn-pinyin` it says the tones
we chose. espeak-ng runs as a separate process per clause: the copy bundled in piper-tts
holds process-wide state that Piper's phonemizer changes from other threads.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import wave
from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from cosyedge.speech.kept import SavedDir
from cosyedge.speech.lexicon import NO_LEXICON, Lexicon
from cosyedge.speech.voices import FrontedVoice, FrontEnd, identity_of
from cosyedge.speech.voices.zhfront import mandarin_front_end
from cosyedge.speech.zh import FRONT_END_VERSION

ENGINE_VERSION = "espeak-pinyin-1"
ESPEAK_VOICE = "cmn-latn-pinyin"
VOICE_NAME = "espeak-ng-" + ESPEAK_VOICE
CLAUSE_PAUSE_S = 0.15
NO_SOUND_SERVER = "unix:/dev/null"  # a PulseAudio server address that refuses at once
WORDS_PER_MINUTE = 150  # espeak's default of 175 runs tone syllables together
TIMEOUT_S = 20


class EspeakUnavailable(RuntimeError):
    """espeak-ng or its Mandarin pinyin voice is not installed."""


def find_espeak() -> str:
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise EspeakUnavailable(
            "espeak-ng is not installed (Debian: apt-get install espeak-ng); "
            "it is needed for the espeak-pinyin Mandarin voice"
        )
    return exe


def espeak_version(exe: str) -> str:
    out = subprocess.run(
        [exe, "--version"], capture_output=True, text=True, timeout=TIMEOUT_S, env=_environment()
    )
    return out.stdout.strip()


def front_end(
    lexicon: Lexicon = NO_LEXICON, saved_dir: SavedDir | None = None, prepare: bool = False
) -> FrontEnd:
    """The voice's front end; espeak-ng speaks once, for its sample rate. `saved_dir` and
    `prepare`: see `mandarin_front_end`."""
    exe = find_espeak()
    sample_rate, _ = _run(exe, "ni3 hao3")
    identity = identity_of(
        ENGINE_VERSION, FRONT_END_VERSION, espeak_version(exe), str(WORDS_PER_MINUTE)
    )
    return mandarin_front_end(VOICE_NAME, sample_rate, identity, lexicon, saved_dir, prepare)


@dataclass
class EspeakPinyinVoice(FrontedVoice):
    front: FrontEnd
    _exe: str

    @classmethod
    def load(
        cls, lexicon: Lexicon = NO_LEXICON, saved_dir: SavedDir | None = None
    ) -> EspeakPinyinVoice:
        # The reading tables are opened now (made, the first time, in a process of their own),
        # not at the first alert; open, they cost this process well under 1 MB, so this default
        # voice costs a site that never says Chinese next to nothing.
        return cls(front=front_end(lexicon, saved_dir, prepare=True), _exe=find_espeak())

    def with_lexicon(self, lexicon: Lexicon) -> EspeakPinyinVoice:
        return replace(self, front=self.front.with_lexicon(lexicon))

    def pinyin(self, text: str) -> list[str]:
        """The pinyin espeak-ng is given, one string per clause."""
        return list(self.front.units(text))

    def synthesize(self, text: str) -> Iterator[np.ndarray]:
        pause = np.zeros(int(CLAUSE_PAUSE_S * self.sample_rate), dtype=np.int16)
        for i, clause in enumerate(self.front.units(text)):
            _, pcm = _run(self._exe, clause)
            yield np.concatenate([pause, pcm]) if i else pcm


def _environment() -> dict[str, str]:
    """espeak-ng's environment: Debian's opens its sound output even with `--stdout`, and
    PulseAudio's client then links a runtime directory under ~/.config; told there is no sound
    server, it writes nothing (the daemon writes only its own directories)."""
    return {**os.environ, "PULSE_SERVER": NO_SOUND_SERVER}


def _run(exe: str, pinyin: str) -> tuple[int, np.ndarray]:
    try:
        done = subprocess.run(
            [exe, "-v", ESPEAK_VOICE, "-s", str(WORDS_PER_MINUTE), "--stdout", "--", pinyin],
            capture_output=True,
            timeout=TIMEOUT_S,
            check=True,
            env=_environment(),
        )
    except subprocess.CalledProcessError as exc:
        detail = exc.stderr.decode(errors="replace").strip()
        raise EspeakUnavailable(f"espeak-ng -v {ESPEAK_VOICE} failed: {detail}") from None
    with wave.open(io.BytesIO(done.stdout), "rb") as w:
        # espeak-ng writes a streaming header whose length field is a placeholder.
        rate, frames = w.getframerate(), w.readframes(w.getnframes())
    return rate, np.frombuffer(frames, dtype="<i2").copy()
