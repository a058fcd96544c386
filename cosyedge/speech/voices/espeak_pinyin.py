"""The fallback Mandarin voice: espeak-ng reading tone-numbered pinyin.

espeak-ng's `cmn` voice reads Chinese characters with its own, often wrong, readings (转 as
zhuan3 in 转每分); fed pinyin from our front end through `cmn-latn-pinyin` it says the tones
we chose. espeak-ng runs as a separate process per clause: the copy bundled in piper-tts
holds process-wide state that Piper's phonemizer changes from other threads.
"""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import subprocess
import wave
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from cosyedge.regular import load_record
from cosyedge.speech.kept import SavedDir, write_whole
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
FACTS_FILE = "espeak-ng-facts.json"  # in the saved-models directory (`espeak_facts`)
PHONEME_TABLE = "phontab"  # in espeak-ng's data directory: replaced by every upgrade of it

log = logging.getLogger(__name__)


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
    """The voice's front end, made of espeak-ng's facts (`espeak_facts`). `saved_dir` and
    `prepare`: see `mandarin_front_end`."""
    exe = find_espeak()
    facts = espeak_facts(exe, saved_dir)
    identity = identity_of(ENGINE_VERSION, FRONT_END_VERSION, facts.version, str(WORDS_PER_MINUTE))
    return mandarin_front_end(VOICE_NAME, facts.sample_rate, identity, lexicon, saved_dir, prepare)


@dataclass(frozen=True)
class EspeakFacts:
    """What the voice's identity and sample rate are made of, as espeak-ng tells them."""

    version: str  # `espeak-ng --version`: its version and where its data is
    sample_rate: int  # of what the pinyin voice writes


def espeak_facts(exe: str, saved_dir: SavedDir | None) -> EspeakFacts:
    """espeak-ng's facts. Asking costs two runs of it (25 ms of CPU), which every command
    needing the voice's identity would pay, a phrase said from the cache among them; so they
    are kept in `saved_dir`, with the identity (path, size, mtime, inode) of the executable
    and of its data's phoneme table. A record that cannot be read, or names files other than
    those found now (an upgrade replaces both), is asked again and written anew; one that
    cannot be written is not kept, and asked for again next time."""
    if saved_dir is None:
        return _asked_facts(exe)
    record = saved_dir.path / FACTS_FILE
    facts = _kept_facts(record, exe)
    if facts is None:
        facts = _asked_facts(exe)
        _keep_facts(saved_dir, record, exe, facts)
    return facts


def _asked_facts(exe: str) -> EspeakFacts:
    rate, _ = _run(exe, "ni3 hao3")
    return EspeakFacts(espeak_version(exe), rate)


def _kept_facts(record: Path, exe: str) -> EspeakFacts | None:
    """The facts `record` holds if it is whole and names the files found now; else None."""
    try:
        kept = load_record(record)
        facts = EspeakFacts(str(kept["version"]), int(kept["sample_rate"]))
        if facts.sample_rate > 0 and kept["files"] == _file_identities(exe, facts.version):
            return facts
    except (OSError, ValueError, TypeError, KeyError):  # none yet, torn, or edited
        pass
    return None


def _keep_facts(saved_dir: SavedDir, record: Path, exe: str, facts: EspeakFacts) -> None:
    files = _file_identities(exe, facts.version)
    data = {"version": facts.version, "sample_rate": facts.sample_rate, "files": files}
    try:
        saved_dir.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        saved_dir.check(record)
        write_whole(record, json.dumps(data, indent=1).encode())
    except OSError as exc:  # a full or read-only disk: asked again at the next start
        log.debug("cannot keep espeak-ng's facts in %s (%s)", record, exc)


def _file_identities(exe: str, version: str) -> list[list[object] | None]:
    """The identity of the executable and of the phoneme table in the data directory its
    version line names (`Data at: ...`); None for a file that is not there."""
    data = version.rpartition("Data at:")[2].strip()
    return [_identity(Path(exe)), _identity(Path(data) / PHONEME_TABLE) if data else None]


def _identity(path: Path) -> list[object] | None:
    try:
        found = path.resolve()
        st = found.stat()
    except OSError:
        return None
    return [str(found), st.st_size, st.st_mtime_ns, st.st_ino]


@dataclass
class EspeakPinyinVoice(FrontedVoice):
    """espeak-ng reading the front end's tone-numbered pinyin, one process per clause."""

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
