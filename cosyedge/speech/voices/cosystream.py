"""A CosyVoice clause spoken in chunks while its speech tokens are decoded: the reference's
streaming inference (`CosyVoiceModel.tts(stream=True)` in CosyVoice's cli/model.py).

Once the LM has decoded `TOKEN_HOP` + `TOKEN_OVERLAP` tokens, the flow makes the mel of those
tokens alone (after the speaker's prompt) and HiFT its audio, while the LM goes on; each next
chunk starts `TOKEN_HOP` tokens further, so it repeats the last `TOKEN_OVERLAP` tokens of the
one before. What keeps the chunks from being heard as such, all as the reference does it:

- the flow starts a chunk's overlapping frames (and the prompt's) from the same noise and
  `mu` as the chunk before (the flow cache);
- the last `MEL_OVERLAP` frames of a chunk's mel are held back and faded (a Hamming window)
  into the first frames of the next one's;
- HiFT is given the last `MEL_CACHE` frames of the mel it already spoke before a chunk's own,
  with their harmonic source (so the phase runs on), and the audio they give is faded into
  the `SOURCE_CACHE` samples it held back of the chunk before.

The last chunk takes whatever tokens are left. A clause of fewer than `TOKEN_HOP` +
`TOKEN_OVERLAP` tokens is one chunk, and its audio is the whole clause's. The first audio of
a longer clause comes after 120 tokens and one chunk's flow and HiFT, instead of after all
its tokens, the flow and HiFT of the whole clause; and neither the flow nor HiFT ever works
on more than one chunk, so their memory no longer grows with the clause.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

TOKEN_RATE = 50  # speech tokens per second (the flow's input frame rate)
MEL_HOP = 256
TOKEN_HOP = 2 * TOKEN_RATE  # the reference's token_min_hop_len (its scale factor is 1)
TOKEN_OVERLAP = 20
MEL_OVERLAP = int(TOKEN_OVERLAP / TOKEN_RATE * 22050 / MEL_HOP)  # 34 frames
MEL_CACHE = 20  # mel frames HiFT is given again before a chunk
SOURCE_CACHE = MEL_CACHE * MEL_HOP  # their samples
HARMONICS = 9


class Draws(Protocol):
    """Where a chunk's random numbers come from: the flow's starting noise and the harmonic
    source's phases and noise."""

    def flow_noise(self, frames: int) -> np.ndarray:
        """(1, 80, frames) standard normal."""
        ...

    def source_draws(self, samples: int) -> tuple[np.ndarray, np.ndarray]:
        """The phases (1, 9, 1), the fundamental's 0, and the noise (1, 9, samples)."""
        ...


@dataclass
class RngDraws:
    """Draws from one numpy generator, in the order the whole-clause synthesis draws them."""

    rng: np.random.Generator

    def flow_noise(self, frames: int) -> np.ndarray:
        return self.rng.standard_normal((1, 80, frames), dtype=np.float32)

    def source_draws(self, samples: int) -> tuple[np.ndarray, np.ndarray]:
        phase = self.rng.uniform(-np.pi, np.pi, (1, HARMONICS, 1)).astype(np.float32)
        phase[:, 0] = 0  # the fundamental starts at phase 0, as in the reference
        noise = self.rng.standard_normal((1, HARMONICS, samples), dtype=np.float32)
        return phase, noise


class ChunkModels(Protocol):
    """What a chunk needs of the pack's graphs (CosyvoiceModels has it)."""

    @property
    def prompt_frames(self) -> int:
        """The speaker's prompt's mel frames, before a chunk's own."""
        ...

    def flow_condition(self, tokens: list[int]) -> tuple[np.ndarray, np.ndarray]: ...

    def solve(self, noise: np.ndarray, mu: np.ndarray, cond: np.ndarray) -> np.ndarray: ...

    def source(self, mel: np.ndarray, phase: np.ndarray, noise: np.ndarray) -> np.ndarray: ...

    def vocode(self, mel: np.ndarray, source: np.ndarray) -> np.ndarray: ...


def fade_in_out(fade_in: np.ndarray, fade_out: np.ndarray, window: np.ndarray) -> np.ndarray:
    """The reference's cross-fade: the first half-window of `fade_in` (last axis) weighted
    by the window's rising half, plus the last half-window of `fade_out` by its falling one."""
    half = len(window) // 2
    out = fade_in.copy()
    out[..., :half] = fade_in[..., :half] * window[:half] + fade_out[..., -half:] * window[half:]
    return out.astype(fade_in.dtype)


@dataclass
class ChunkState:
    """What a clause's next chunk takes from the ones before it (all None before the first)."""

    flow_noise: np.ndarray | None = None  # (1, 80, prompt + MEL_OVERLAP) the flow cache's z
    flow_mu: np.ndarray | None = None  # and its mu
    mel_overlap: np.ndarray | None = None  # (80, MEL_OVERLAP) held back, to fade in
    hift_mel: np.ndarray | None = None  # (80, MEL_CACHE) spoken, given to HiFT again
    hift_source: np.ndarray | None = None  # (SOURCE_CACHE,) their harmonic source
    hift_audio: np.ndarray | None = None  # (SOURCE_CACHE,) held back, to fade into


@dataclass
class ClauseStream:
    """One clause's chunks: `chunk` gives the audio of each in turn (token2wav's)."""

    models: ChunkModels
    draws: Draws
    state: ChunkState = field(default_factory=ChunkState)
    mel_window: np.ndarray = field(default_factory=lambda: np.hamming(2 * MEL_OVERLAP))
    audio_window: np.ndarray = field(default_factory=lambda: np.hamming(2 * SOURCE_CACHE))

    def chunk(self, tokens: list[int], final: bool) -> np.ndarray:
        """The audio of `tokens` that can be played now; all that is left when `final`."""
        st = self.state
        mel = self._mel(tokens)
        if st.mel_overlap is not None:
            mel = fade_in_out(mel, st.mel_overlap, self.mel_window)
        if st.hift_mel is not None:
            mel = np.concatenate([st.hift_mel, mel], axis=1)
        if not final:
            st.mel_overlap, mel = mel[:, -MEL_OVERLAP:], mel[:, :-MEL_OVERLAP]
        audio, source = self._vocode(mel)
        if st.hift_audio is not None:
            audio = fade_in_out(audio, st.hift_audio, self.audio_window)
        if final:
            return audio
        st.hift_mel, st.hift_source = mel[:, -MEL_CACHE:], source[-SOURCE_CACHE:]
        st.hift_audio = audio[-SOURCE_CACHE:]
        return audio[:-SOURCE_CACHE]

    def _mel(self, tokens: list[int]) -> np.ndarray:
        """The chunk's mel, its first frames (the prompt's and the overlap's) started from the
        noise and `mu` of the chunk before (the reference's flow cache)."""
        st, models = self.state, self.models
        mu, cond = models.flow_condition(tokens)
        noise = self.draws.flow_noise(mu.shape[2])
        if st.flow_noise is not None and st.flow_mu is not None:
            cached = st.flow_noise.shape[2]
            noise[:, :, :cached], mu[:, :, :cached] = st.flow_noise, st.flow_mu
        prompt = models.prompt_frames
        st.flow_noise = np.concatenate([noise[:, :, :prompt], noise[:, :, -MEL_OVERLAP:]], axis=2)
        st.flow_mu = np.concatenate([mu[:, :, :prompt], mu[:, :, -MEL_OVERLAP:]], axis=2)
        return models.solve(noise, mu, cond)

    def _vocode(self, mel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """HiFT's audio of `mel` and its harmonic source, the source's first samples those the
        chunk before gave the same frames (so the harmonics' phase runs on)."""
        phase, noise = self.draws.source_draws(mel.shape[1] * MEL_HOP)
        source = self.models.source(mel, phase, noise)
        if self.state.hift_source is not None:
            source = source.copy()
            source[: len(self.state.hift_source)] = self.state.hift_source
        return self.models.vocode(mel, source), source


def stream_clause(models: ChunkModels, tokens: Iterable[int], draws: Draws) -> Iterator[np.ndarray]:
    """The clause's audio chunk by chunk as its speech `tokens` come (the reference's loop:
    a chunk every `TOKEN_HOP` tokens once `TOKEN_HOP` + `TOKEN_OVERLAP` are there, then the
    rest); the chunks joined are the clause's audio."""
    stream = ClauseStream(models, draws)
    pending: list[int] = []
    for token in tokens:
        pending.append(token)
        if len(pending) >= TOKEN_HOP + TOKEN_OVERLAP:
            yield stream.chunk(pending[: TOKEN_HOP + TOKEN_OVERLAP], final=False)
            del pending[:TOKEN_HOP]
    yield stream.chunk(pending, final=True)
