"""The CosyVoice-300M voice, from a converted pack: onnxruntime and numpy only.

Per clause: our text front end (English or Mandarin normalization), whisper's BPE tokens,
the LLM's speech tokens (50 a second: prefill, then one decode step per token, its attention
cache kept in place (cosycache), sampled as the reference samples), the flow's mel (the pack's Euler
steps of the estimator with classifier-free guidance, 10 as released), then HiFT's audio
(22.05 kHz). A clause is spoken in chunks while the LM decodes it, as the reference streams
(cosystream): its first audio comes after 120 tokens, not after all of them.

Every random draw comes from one numpy generator seeded per clause from the voice's seed and
the clause's text, so a phrase renders the same way twice. CosyVoice is far slower than real
time on a gateway's CPU (docs/cosyvoice.md): it renders phrases ahead, it is not a live voice.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from cosyedge.config.voices import SessionConfig
from cosyedge.speech import rx
from cosyedge.speech.cost import CHARACTER_PACE
from cosyedge.speech.kept import SavedDir
from cosyedge.speech.lexicon import NO_LEXICON, Applied, Lexicon
from cosyedge.speech.text import Normalizer
from cosyedge.speech.voices import FrontedVoice, FrontEnd, identity_of, to_int16
from cosyedge.speech.voices.clauses import (
    MAX_CLAUSE_CHARS,
    ParagraphRules,
    even_pieces,
    paragraph_clauses,
    split_clauses,
)
from cosyedge.speech.voices.cosycache import LmCache
from cosyedge.speech.voices.cosypack import FLOW_STEPS, GRAPH_ROLES, CosyPack
from cosyedge.speech.voices.cosystream import (
    MEL_HOP,
    TOKEN_RATE,
    Draws,
    RngDraws,
    stream_clause,
)
from cosyedge.speech.voices.cosytokens import BpeTokenizer
from cosyedge.speech.voices.session import make_session, with_engine_defaults

log = logging.getLogger(__name__)

# Bump when our processing around the models changes, so cached audio is not reused.
ENGINE_VERSION = "cosyvoice-2"  # 2: clauses streamed in chunks (cosystream)
CLAUSE_PAUSE_S = 0.2
MEMORY_ARENA = False
# The reference's decoding: lengths bound by the text, ras_sampling(top_p, top_k, win, tau_r).
MIN_TOKENS_PER_TEXT_TOKEN = 2
MAX_TOKENS_PER_TEXT_TOKEN = 20
TOP_P, TOP_K, WIN_SIZE, TAU_R = 0.8, 25, 10, 0.1
MAX_EOS_REDRAWS = 100
# The flow: Euler steps on a cosine schedule (the released 10 unless the pack's manifest says
# fewer: `flow_steps`), guidance weight, the regulator's edges.
CFG_RATE = 0.7
REGULATOR_EDGE_TOKENS = 20
# HiFT's inverse STFT and output limit.
N_FFT, HOP = 16, 4
AUDIO_LIMIT = 0.99
MAX_MAGNITUDE = 1e2
# The longest Chinese one step takes: about 12 s of speech, as long as the 120 characters
# split_clauses leaves of other text.
ZH_UNIT_CHARS = 40
# Chinese clauses as the reference frontend cuts and joins them (split_paragraph, its Chinese
# profile), its lengths (80, 60 characters) brought within one step (40, and 30 for its 3:4).
ZH_CLAUSES = ParagraphRules(max_len=ZH_UNIT_CHARS, min_len=ZH_UNIT_CHARS * 3 // 4)
# In a Chinese voice's identity: its clauses are no longer cut at every comma and colon, so
# its cached audio is made again (an English voice's clauses, and its cache, are as they were).
ZH_CLAUSES_VERSION = "zh-clauses-2"
# Where a clause longer than one step is cut first: after any mark, commas included (the
# reference's own joining can leave one of 40-60 characters: a short last sentence joins it).
_ZH_BREAK = rx.compile(r"(?<=[，。！？；：,.!?;:])")


class CosyvoiceError(Exception):
    """The voice cannot run with what it was given (memory ceiling, decoding failure)."""


Sampler = Callable[[np.ndarray, list[int], bool], int]


@dataclass(frozen=True)
class Speaker:
    """What the converter precomputed for one speaker (SFT or zero-shot prompt)."""

    llm_prefix: np.ndarray  # (1, 2, D): sos/eos and the speaker embedding's projection
    llm_suffix: np.ndarray  # (1, 1 + P, D): task id, then the prompt's speech tokens
    prompt_text: np.ndarray  # (Tp,) text tokens of the prompt's transcript
    flow_prompt_tokens: np.ndarray  # (P,)
    prompt_feat: np.ndarray  # (F1, 80) the prompt's mel
    flow_spks: np.ndarray  # (80,) the speaker embedding's projection for the flow

    @classmethod
    def load(cls, path: Path) -> Speaker:
        with np.load(path) as data:
            return cls(**{name: data[name] for name in cls.__dataclass_fields__})


def softmax(scores: np.ndarray) -> np.ndarray:
    e = np.exp(scores.astype(np.float64) - np.max(scores))
    return e / e.sum()


def nucleus_sampling(probs: np.ndarray, rng: np.random.Generator, top_p: float, top_k: int):
    """The most likely tokens while their mass is under `top_p` and fewer than `top_k`."""
    order = np.argsort(-probs, kind="stable")
    cumulative = np.cumsum(probs[order])
    # Token i is taken when the mass before it is under top_p (so the first always is).
    count = min(top_k, int(np.searchsorted(cumulative, top_p, side="left")) + 1)
    chosen = order[:count]
    p = probs[chosen] / probs[chosen].sum()
    return int(chosen[rng.choice(count, p=p)])


@dataclass
class RasSampler:
    """The reference's repetition-aware sampling: nucleus sampling, but a token already among
    the last `WIN_SIZE` often enough is redrawn from the whole distribution."""

    rng: np.random.Generator
    eos: int

    def __call__(self, logp: np.ndarray, decoded: list[int], ignore_eos: bool) -> int:
        for _ in range(MAX_EOS_REDRAWS + 1):
            probs = softmax(logp)
            top = nucleus_sampling(probs, self.rng, TOP_P, TOP_K)
            if decoded[-WIN_SIZE:].count(top) >= WIN_SIZE * TAU_R:
                top = int(self.rng.choice(len(probs), p=probs))
            if not (ignore_eos and top == self.eos):
                return top
        raise CosyvoiceError("decoding kept drawing the end of speech before its minimum length")


def greedy_sampler(eos: int) -> Sampler:
    """The most likely token; while the end is not allowed yet, the most likely other one
    (what the reference's redraw-until-not-end rule gives for a deterministic choice)."""

    def sample(logp: np.ndarray, decoded: list[int], ignore_eos: bool) -> int:
        scores = logp.copy()
        if ignore_eos:
            scores[eos] = -np.inf
        return int(np.argmax(scores))

    return sample


def interpolate_linear(x: np.ndarray, size: int) -> np.ndarray:
    """(C, T) → (C, size), as torch's linear interpolation with align_corners=False."""
    length = x.shape[1]
    scale = np.float32(length) / np.float32(size)
    src = np.maximum((np.arange(size, dtype=np.float32) + 0.5) * scale - 0.5, 0)
    i0 = src.astype(np.int64)
    i1 = np.minimum(i0 + 1, length - 1)
    w1 = (src - i0).astype(np.float32)
    return x[:, i0] * (1 - w1) + x[:, i1] * w1


def regulate(h: np.ndarray, mel_len: int) -> np.ndarray:
    """The length regulator's interpolation of new tokens' encodings (N, 80) to `mel_len`
    frames (80, mel_len): head and tail of 20 tokens apart, as the reference."""
    x = h.T
    edge = REGULATOR_EDGE_TOKENS
    if h.shape[0] <= 2 * edge:
        return interpolate_linear(x, mel_len)
    edge_frames = int(edge / TOKEN_RATE * 22050 / MEL_HOP)
    return np.concatenate(
        [
            interpolate_linear(x[:, :edge], edge_frames),
            interpolate_linear(x[:, edge:-edge], mel_len - 2 * edge_frames),
            interpolate_linear(x[:, -edge:], edge_frames),
        ],
        axis=1,
    )


def hann(n: int) -> np.ndarray:
    """The periodic Hann window (scipy's get_window('hann', n, fftbins=True))."""
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)).astype(np.float32)


def stft(signal: np.ndarray) -> np.ndarray:
    """torch.stft(n_fft=16, hop=4, hann, center, reflect padding): real and imaginary parts
    stacked, (18, frames)."""
    padded = np.pad(signal, N_FFT // 2, mode="reflect")
    frames = 1 + (len(padded) - N_FFT) // HOP
    index = np.arange(N_FFT)[None, :] + HOP * np.arange(frames)[:, None]
    spectrum = np.fft.rfft(padded[index] * hann(N_FFT), axis=1).T
    return np.concatenate([spectrum.real, spectrum.imag]).astype(np.float32)


def istft(magnitude: np.ndarray, phase: np.ndarray) -> np.ndarray:
    """torch.istft of magnitude·e^(i·phase) (9, frames): overlap-add of windowed frames over
    the window's squared envelope, centre padding trimmed."""
    magnitude = np.minimum(magnitude, MAX_MAGNITUDE).astype(np.float64)
    spectrum = magnitude * np.cos(phase) + 1j * magnitude * np.sin(phase)
    window = hann(N_FFT).astype(np.float64)
    frames = np.fft.irfft(spectrum.T, n=N_FFT, axis=1) * window
    count = frames.shape[0]
    length = N_FFT + HOP * (count - 1)
    out, envelope = _overlap_add(frames), _overlap_add(np.broadcast_to(window**2, frames.shape))
    half = N_FFT // 2
    trimmed = slice(half, length - half)
    return (out[trimmed] / np.maximum(envelope[trimmed], 1e-11)).astype(np.float32)


def _overlap_add(frames: np.ndarray) -> np.ndarray:
    """Frames (count, N_FFT) laid HOP apart and summed, a hop-wide slice of every frame at a
    time: N_FFT / HOP numpy steps, where a step a frame made the inverse STFT of a 5 s clause
    take 0.13 s of CPU (0.02 so). Each sample gets its frames' values in the frames' order,
    so the sum is the frame-by-frame one to the bit."""
    count, slices = frames.shape[0], N_FFT // HOP
    out = np.zeros((count + slices - 1, HOP))
    for k in reversed(range(slices)):  # frame i's slice k lands on hop i + k
        out[k : k + count] += frames[:, k * HOP : (k + 1) * HOP]
    return out.reshape(-1)


def pack_flow_guidance(pack: CosyPack) -> bool:
    """Whether the pack's flow runs classifier-free guidance (the estimator as a batch of two,
    as released): its manifest's `flow_guidance` (checked as the pack is read: cosypack.py
    `FIGURES`), true for a pack that does not say."""
    return pack.manifest.get("flow_guidance", True)


def pack_flow_steps(pack: CosyPack) -> int:
    """The pack's Euler steps for the flow: its manifest's `flow_steps` (1 to FLOW_STEPS,
    checked as the pack is read), FLOW_STEPS (the released count) for a pack that does not
    say."""
    return pack.manifest.get("flow_steps", FLOW_STEPS)


@dataclass
class CosyvoiceModels:
    """The pack's graphs and speaker: text tokens in, speech tokens, mel and audio out."""

    sessions: dict[str, object]  # role → onnxruntime.InferenceSession
    speaker: Speaker
    speech_embedding: np.ndarray  # (4096, D): the LM's input for each speech token
    eos: int
    flow_steps: int = FLOW_STEPS  # the Euler steps of the flow (the pack's `flow_steps`)
    guidance: bool = True  # classifier-free guidance (the pack's `flow_guidance`)

    @classmethod
    def load(
        cls,
        pack: CosyPack,
        settings: SessionConfig | None = None,
        saved_dir: SavedDir | None = None,
    ) -> CosyvoiceModels:
        settings = with_engine_defaults(settings or SessionConfig(), memory_arena=MEMORY_ARENA)
        files = pack.manifest["files"]
        sessions = {
            role: make_session(pack.path(role), settings, saved_dir, files[role]["sha256"])
            for role in GRAPH_ROLES
        }
        speaker = Speaker.load(pack.path("speaker"))
        table = np.load(pack.path("speech_embedding"))
        speech_tokens = int(pack.manifest["speech_tokens"])
        steps, guidance = pack_flow_steps(pack), pack_flow_guidance(pack)
        return cls(sessions, speaker, table, speech_tokens, steps, guidance)

    def _run(self, role: str, **feeds: np.ndarray) -> list[np.ndarray]:
        return self.sessions[role].run(None, feeds)

    def speech_tokens(self, text_ids: list[int], sample: Sampler) -> list[int]:
        """The LLM's speech tokens for the text (after the speaker's prompt text)."""
        return list(self.speech_token_stream(text_ids, sample))

    def speech_token_stream(self, text_ids: list[int], sample: Sampler) -> Iterator[int]:
        """The LLM's speech tokens as they are decoded: the prompt in one step under a causal
        mask, then one step per token, the cache kept in place."""
        sp = self.speaker
        text = np.array([[*sp.prompt_text.tolist(), *text_ids]], dtype=np.int64)
        (encoded,) = self._run("text_encoder", text=text)
        xs = np.concatenate([sp.llm_prefix, encoded, sp.llm_suffix], axis=1).astype(np.float32)
        cache = LmCache(self.sessions["llm_step"])
        logp = cache.step(xs)
        out: list[int] = []
        for i in range(len(text_ids) * MAX_TOKENS_PER_TEXT_TOKEN):
            scores = logp[0]
            if i == 0:
                scores[self.eos] = -np.inf  # the reference never ends before the first token
            top = sample(scores, out, i < len(text_ids) * MIN_TOKENS_PER_TEXT_TOKEN)
            if top == self.eos:
                return
            out.append(top)
            yield top
            logp = cache.step(self.speech_embedding[top].reshape(1, 1, -1))

    @property
    def prompt_frames(self) -> int:
        """The speaker's prompt's mel frames (0 for an SFT speaker)."""
        return int(self.speaker.prompt_feat.shape[0])

    def mel_frames(self, tokens: int) -> int:
        return int(tokens / TOKEN_RATE * 22050 / MEL_HOP)

    def mel(self, tokens: list[int], noise: np.ndarray) -> np.ndarray:
        """(80, frames) mel for the speech tokens; `noise` (1, 80, prompt + frames) is the
        flow's starting point."""
        mu, cond = self.flow_condition(tokens)
        return self.solve(noise, mu, cond)

    def flow_condition(self, tokens: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """The flow's `mu` and `cond`, each (1, 80, prompt + frames), for the speech tokens
        after the speaker's prompt: what the Euler steps start from besides the noise."""
        sp = self.speaker
        prompt = sp.flow_prompt_tokens.astype(np.int64)
        token = np.concatenate([prompt, np.array(tokens, dtype=np.int64)])[None]
        (h,) = self._run("flow_encoder", token=token)
        h = h[0]
        prompt_frames, frames = sp.prompt_feat.shape[0], self.mel_frames(len(tokens))
        parts = [regulate(h[len(prompt) :], frames)]
        if len(prompt):
            parts.insert(0, interpolate_linear(h[: len(prompt)].T, prompt_frames))
        x = np.concatenate(parts, axis=1)[None].astype(np.float32)
        (mu,) = self._run("flow_regulator", x=x)
        cond = np.zeros_like(x)
        cond[0, :, :prompt_frames] = sp.prompt_feat.T
        return np.ascontiguousarray(mu.transpose(0, 2, 1)), cond

    def solve(self, noise: np.ndarray, mu: np.ndarray, cond: np.ndarray) -> np.ndarray:
        """(80, frames) mel: the Euler steps from `noise` under `mu` and `cond` (each
        (1, 80, prompt + frames)), the prompt's frames dropped."""
        result = self._euler(noise.astype(np.float32), mu, cond)
        return result[0, :, self.speaker.prompt_feat.shape[0] :]

    def _euler(self, x: np.ndarray, mu: np.ndarray, cond: np.ndarray) -> np.ndarray:
        """The reference's Euler solver on a cosine schedule, the estimator run as a batch of
        two: with conditions, and without (classifier-free guidance). Without guidance, the
        first alone: what the reference computes with a guidance weight of 0, at half the
        estimator's work."""
        steps = self.flow_steps
        t_span = np.linspace(0, 1, steps + 1, dtype=np.float32)
        t_span = (1 - np.cos(t_span * np.float32(0.5 * np.pi))).astype(np.float32)
        t, dt = t_span[0], t_span[1] - t_span[0]
        frames = x.shape[2]
        batch = 2 if self.guidance else 1
        mask = np.ones((batch, 1, frames), dtype=np.float32)
        mu_in = np.concatenate([mu, np.zeros_like(mu)])[:batch]
        spks = np.stack([self.speaker.flow_spks, np.zeros_like(self.speaker.flow_spks)])[:batch]
        cond_in = np.concatenate([cond, np.zeros_like(cond)])[:batch]
        for step in range(1, steps + 1):
            (dphi,) = self._run(
                "estimator",
                x=np.concatenate([x] * batch),
                mask=mask,
                mu=mu_in,
                t=np.full(batch, t, dtype=np.float32),
                spks=spks.astype(np.float32),
                cond=cond_in,
            )
            if self.guidance:
                dphi = (1.0 + CFG_RATE) * dphi[:1] - CFG_RATE * dphi[1:]
            x = x + dt * dphi
            t = t + dt
            if step < steps:
                dt = t_span[step + 1] - t
        return x.astype(np.float32)

    def audio(self, mel: np.ndarray, phase: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """Float audio for `mel` (80, frames); `phase` (1, 9, 1) and `noise` (1, 9, samples)
        are the harmonic source's random draws."""
        return self.vocode(mel, self.source(mel, phase, noise))

    def source(self, mel: np.ndarray, phase: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """HiFT's harmonic source for `mel` (80, frames): (samples,), 256 a frame."""
        mel = mel[None].astype(np.float32)
        (source,) = self._run("hift_source", mel=mel, phase=phase, noise=noise)
        return source[0, 0]

    def vocode(self, mel: np.ndarray, source: np.ndarray) -> np.ndarray:
        """Float audio for `mel` (80, frames) from its harmonic `source` (samples,)."""
        spectrum = stft(source)[None]
        magnitude, phase_out = self._run("hift_core", mel=mel[None].astype(np.float32),
                                         source_stft=spectrum)  # fmt: skip
        audio = istft(magnitude[0], phase_out[0])
        return np.clip(audio, -AUDIO_LIMIT, AUDIO_LIMIT)

    def whole_clause(self, tokens: list[int], draws: Draws) -> np.ndarray:
        """Float audio of `tokens` made in one piece (the flow and HiFT over the whole clause,
        not in chunks), every random number from `draws`: two models given the same tokens
        and draws differ only by their graphs."""
        mel = self.mel(tokens, draws.flow_noise(self.prompt_frames + self.mel_frames(len(tokens))))
        phase, noise = draws.source_draws(mel.shape[1] * MEL_HOP)
        return self.audio(mel, phase, noise)

    def synthesize_ids(
        self, text_ids: list[int], rng: np.random.Generator, sample: Sampler | None = None
    ) -> Iterator[np.ndarray]:
        """The clause's audio chunk by chunk while the LM decodes (cosystream: the reference's
        streaming); the LM samples from one generator spawned from `rng` (with `sample`, when
        given, instead), the chunks' noise comes from another, so the tokens do not depend on
        where the chunks fall."""
        lm_rng, noise_rng = rng.spawn(2)
        tokens = self.speech_token_stream(text_ids, sample or RasSampler(lm_rng, self.eos))
        return stream_clause(self, tokens, RngDraws(noise_rng))


def text_units(lang: str) -> Callable[[str, Lexicon, list[Applied]], Iterator[str]]:
    """Clauses of normalized text: the tokenizer reads text, so the lexicon's `say` entries
    apply (in the words) and its phoneme or pinyin entries cannot. A clause longer than a
    step may be with nothing to cut at (a run of characters without punctuation, one
    enormous word) is said in even pieces: the language model's memory grows with it."""
    chinese = lang.split("-")[0] == "zh"

    def clauses(words: str) -> Iterator[str]:
        if chinese:
            yield from (part.strip() for part in paragraph_clauses(words, ZH_CLAUSES))
        else:
            yield from split_clauses(words)

    def units(words: str, lexicon: Lexicon, applied: list[Applied]) -> Iterator[str]:
        limit = ZH_UNIT_CHARS if chinese else MAX_CLAUSE_CHARS
        for clause in clauses(words):
            for part in within_step(clause, limit) if chinese else [clause]:
                yield from even_pieces(part, limit)

    return units


def within_step(clause: str, limit: int) -> list[str]:
    """`clause` whole if within `limit` characters, else its pieces after each mark (commas
    included) joined while they fit; a piece longer than `limit` stays as it is."""
    if len(clause) <= limit:
        return [clause]
    parts: list[str] = []
    for piece in (p for p in _ZH_BREAK.split(clause) if p.strip()):
        if parts and len(parts[-1]) + len(piece) <= limit:
            parts[-1] += piece
        else:
            parts.append(piece)
    return [part.strip() for part in parts]


def front_end(lang: str, pack_dir: Path, lexicon: Lexicon = NO_LEXICON, seed: int = 0) -> FrontEnd:
    """The voice's front end alone, from the pack's manifest: no graph is loaded or looked
    for, so a pack of which only the manifest is here gives the same identity."""
    return _front_end(lang, CosyPack.described(pack_dir), lexicon, seed)


def _normalizer(lang: str) -> Normalizer:
    if lang.split("-")[0] == "zh":
        from cosyedge.speech.zh import FRONT_END_VERSION
        from cosyedge.speech.zh.normalize import MandarinNormalizer

        mandarin = MandarinNormalizer()
        return Normalizer(FRONT_END_VERSION, mandarin.normalize, mandarin.explain)
    from cosyedge.speech.text import normalizer_for

    return normalizer_for(lang)


def _identity_parts(lang: str, pack: CosyPack, seed: int) -> list[str]:
    """What, beside the engine and the normalizer, decides the audio of a phrase."""
    parts = [pack.digest(), f"seed={seed}"]
    if lang.split("-")[0] == "zh":
        parts.append(ZH_CLAUSES_VERSION)
    steps = pack_flow_steps(pack)
    if steps != FLOW_STEPS:  # packs at the released count keep the audio they had cached
        parts.append(f"flow_steps={steps}")
    if not pack_flow_guidance(pack):
        parts.append("flow_guidance=off")
    return parts


def _front_end(lang: str, pack: CosyPack, lexicon: Lexicon, seed: int) -> FrontEnd:
    normalizer = _normalizer(lang)
    identity = identity_of(ENGINE_VERSION, normalizer.version, *_identity_parts(lang, pack, seed))
    name = f"cosyvoice-{pack.manifest['speaker']['name']}"
    return FrontEnd(
        name,
        pack.sample_rate,
        identity,
        lexicon,
        normalizer.normalize,
        text_units(lang),
        CHARACTER_PACE,
        normalizer.explain,
    )


def clause_rng(seed: int, clause: str) -> np.random.Generator:
    """The same clause draws the same numbers, whatever was said before it."""
    digest = hashlib.sha256(f"{seed}\0{clause}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def memory_needed_mb(pack: CosyPack) -> float:
    """What the voice needs resident to speak: its graphs' weights (onnxruntime keeps about
    one copy) plus the largest step's working memory the converter measured."""
    return float(pack.manifest["memory"]["load_mb"]) + float(pack.manifest["memory"]["step_mb"])


@dataclass
class CosyvoiceVoice(FrontedVoice):
    pack: CosyPack
    front: FrontEnd
    tokenizer: BpeTokenizer
    seed: int
    step_mb: float  # what one clause's synthesis adds to RSS at most (declared for the guard)
    _models: CosyvoiceModels

    @classmethod
    def load(
        cls,
        lang: str,
        pack_dir: Path,
        settings: SessionConfig | None = None,
        saved_dir: SavedDir | None = None,
        lexicon: Lexicon = NO_LEXICON,
        seed: int = 0,
        ceiling_mb: float | None = None,
    ) -> CosyvoiceVoice:
        """Load the pack; refuse, before loading anything, when `ceiling_mb` is below what the
        voice needs (its manifest's measured figures)."""
        pack = CosyPack.open(pack_dir)
        needed = memory_needed_mb(pack)
        if ceiling_mb is not None and needed > ceiling_mb:
            raise CosyvoiceError(
                f"voice pack {pack_dir} needs about {needed:.0f} MB to speak, above "
                f"memory.ceiling_mb {ceiling_mb:.0f}: raise the ceiling or use another voice"
            )
        return cls(
            pack=pack,
            front=_front_end(lang, pack, lexicon, seed),
            tokenizer=BpeTokenizer.load(pack.path("tokenizer")),
            seed=seed,
            step_mb=float(pack.manifest["memory"]["step_mb"]),
            _models=CosyvoiceModels.load(pack, settings, saved_dir),
        )

    def with_lexicon(self, lexicon: Lexicon) -> CosyvoiceVoice:
        return replace(self, front=self.front.with_lexicon(lexicon))

    def synthesize(self, text: str) -> Iterator[np.ndarray]:
        pause = np.zeros(int(CLAUSE_PAUSE_S * self.sample_rate), dtype=np.int16)
        for i, clause in enumerate(self.front.units(text)):
            ids = self.tokenizer.encode(clause)
            chunks = self._models.synthesize_ids(ids, clause_rng(self.seed, clause))
            for j, audio in enumerate(chunks):
                pcm = to_int16(audio)
                yield np.concatenate([pause, pcm]) if i and not j else pcm
