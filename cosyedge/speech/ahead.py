"""Phrases rendered ahead of need (the generic and fault phrases, `fallback.py`), kept in the
saved-models directory between starts: a restart reads them instead of synthesizing them
again (0.7 s of CPU at every start on a 2-core x86 machine, more on an arm64 gateway), so the
daemon is ready that much sooner.

A file is kept as the tables are (`kept.py`): named by, and recorded with, what made it (the
phrases' cache keys, which name each text, its language and the voice's identity) and its
own sha256, checked at every read. The audio read back is checked too: one mono array a
phrase, not empty and at most a minute long, of the samples a voice gives and the player
takes (int16), at 8-48 kHz, in members stored as written (not compressed); it is kept as
the voice gave it. A file that does not pass is removed and its
phrases rendered again; one that cannot be written is not kept (said, and told as not kept),
and its phrases are rendered at every start, as they would be without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cosyedge.regular import regular_only
from cosyedge.speech.kept import SavedDir, commit, problem_of, problem_with, remove_with_record

log = logging.getLogger(__name__)

FORMAT = 1
WHAT = "phrases rendered ahead"
Pcm = tuple[int, np.ndarray]  # a phrase's sample rate and audio
# What a kept phrase read back may be: generic and fault phrases last seconds, and voices
# speak at 8-48 kHz.
LONGEST_S = 60
RATES = (8000, 48000)


@dataclass(frozen=True)
class Held:
    """A phrase rendered ahead, held in memory packed until it is said: its int16 samples as
    the zlib-compressed differences between neighbours (speech's are small: the English fault
    phrases, 94 s of audio, take 2.7 MB held so against 4.5 MB as samples). Lossless:
    `samples` gives back the very samples packed."""

    sample_rate: int
    packed: bytes

    @classmethod
    def of(cls, pcm: Pcm) -> Held:
        """Raises ValueError for samples that are not int16, which no voice gives."""
        rate, samples = pcm
        if samples.dtype != np.int16 or samples.ndim != 1:
            raise ValueError(f"a phrase is mono int16, not {samples.dtype} of {samples.shape}")
        steps = np.diff(samples, prepend=np.int16(0))  # int16 arithmetic: wraps, as cumsum undoes
        return cls(rate, zlib.compress(steps.tobytes(), 1))

    def samples(self) -> np.ndarray:
        steps = np.frombuffer(zlib.decompress(self.packed), np.int16)
        return np.cumsum(steps, dtype=np.int16)


def rendered_ahead(
    saved: SavedDir | None, family: str, keys: list[str], render: Callable[[int], Pcm | None]
) -> list[Pcm | None]:
    """The phrases whose cache keys are `keys`, in order: from the kept file when it holds
    them all, else each made by `render(i)` (None: it could not be, said by the caller), and
    then, when every one was, kept for the next start."""
    kept = None if saved is None else AheadFile(saved, family, tuple(keys))
    found = None if kept is None else kept.read()
    if found is not None:
        return list(found)
    made = [render(i) for i in range(len(keys))]
    if kept is not None and all(pcm is not None for pcm in made):
        kept.keep([pcm for pcm in made if pcm is not None])
    return made


@dataclass(frozen=True)
class AheadFile:
    """The kept renderings of one set of phrases (`family`: "generic-en", "faults-en"), whose
    cache keys are `keys`, in their order."""

    saved: SavedDir
    family: str
    keys: tuple[str, ...]

    @property
    def made_from(self) -> dict[str, object]:
        return {"format": FORMAT, "keys": list(self.keys)}

    @property
    def what(self) -> str:
        """What is told as (not) kept: each set apart, so one kept does not clear another."""
        return f"{WHAT} for {self.family}"

    @property
    def path(self) -> Path:
        digest = hashlib.sha256(json.dumps(self.made_from).encode()).hexdigest()[:16]
        return self.saved.path / f"ahead-{self.family}-{digest}.npz"

    def read(self) -> list[Pcm] | None:
        """The phrases' audio, in the order of `keys`, if a whole and current file holds it;
        else None (a file that does not pass is removed, and said)."""
        if not self.path.exists():
            return None
        try:
            problem = problem_with(self.path, self.made_from)
            found = None if problem else _loaded(self.path, len(self.keys))
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            problem, found = problem_of(exc), None
        if found is None:
            log.warning("%s in %s are not usable (%s): rendering them again", WHAT, self.path,
                        problem or "their audio is not what was kept")  # fmt: skip
            remove_with_record(self.path)
        return found

    def keep(self, renderings: list[Pcm]) -> None:
        """Write `renderings` (one for each key, in order) for the next start; a failure is
        said and told as not kept, and the file of an earlier set is removed once this is."""
        try:
            tmp = self.saved.temp(".npz")
            try:
                _write(tmp, renderings)
                commit(self.saved, self.made_from, tmp, self.path)
            finally:
                with contextlib.suppress(OSError):
                    tmp.unlink()
        except OSError as exc:
            log.warning("cannot keep %s in %s (%s)", self.what, self.saved.path, problem_of(exc))
            self.saved.unkept(self.what, problem_of(exc))
            return
        self.saved.unkept(self.what, None)
        for old in self.saved.path.glob(f"ahead-{self.family}-*.npz"):
            if old != self.path:
                remove_with_record(old)


def _write(path: Path, renderings: list[Pcm]) -> None:
    arrays = {f"pcm{i}": np.asarray(pcm) for i, (_, pcm) in enumerate(renderings)}
    with path.open("wb") as f:
        np.savez(f, rates=np.array([rate for rate, _ in renderings], dtype=np.int64), **arrays)


def _loaded(path: Path, count: int) -> list[Pcm] | None:
    """The `count` renderings in the file at `path`, or None if it does not hold exactly
    that (`_phrase`), or holds compressed members (what `_write` makes is stored: a
    compressed one could unpack to any size). Raises what numpy raises for a file it cannot
    read (OSError, ValueError, KeyError, EOFError, BadZipFile)."""
    with open(path, "rb", opener=regular_only) as f:
        with zipfile.ZipFile(f) as members:
            if any(m.compress_type != zipfile.ZIP_STORED for m in members.infolist()):
                return None
        f.seek(0)
        with np.load(f, allow_pickle=False) as data:
            rates = data["rates"] if "rates" in data.files else np.zeros(0)
            if len(data.files) != count + 1 or rates.shape != (count,):
                return None
            found = [(int(rate), data[f"pcm{i}"]) for i, rate in enumerate(rates)]
    return found if all(_phrase(rate, pcm) for rate, pcm in found) else None


def _phrase(rate: int, pcm: np.ndarray) -> bool:
    """Whether `pcm` at `rate` is a phrase a voice could have given: one channel of int16
    samples (what every voice gives and the player takes: float samples fail when played,
    the generic or fault phrase unheard), not empty (said as silence), at most LONGEST_S
    long, at a rate between those of a telephone and a studio."""
    if not RATES[0] <= rate <= RATES[1] or pcm.ndim != 1 or not 0 < pcm.size <= rate * LONGEST_S:
        return False
    return pcm.dtype == np.int16
