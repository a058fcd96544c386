"""Fewer Euler steps, or no guidance, for a CosyVoice pack's flow, measured against the
released 10 steps with guidance.

The flow's mel is the estimator run `flow_steps` times (a batch of two, for classifier-free
guidance): at full size 0.2-0.4 s a step for 2 s of speech (docs/cosyvoice.md), about as
much as the LM. A pack may say fewer steps in its manifest (`convert-cosyvoice
--flow-steps N`); what that costs is measured here the way the int8 gate measures int8: the
parity sentences' greedy tokens spoken at 10 steps and at N with the same noise, the mean
log-mel distance (dB) of the two audios recorded in the manifest. Without classifier-free
guidance (`--no-guidance`) the estimator runs once a step instead of as a batch of two, and
its audio is measured the same way. Random weights (the tests, the benchmark) say how the
schedule behaves, not how released weights sound with it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from cosyedge.config.voices import SessionConfig
from cosyedge.packs import evaluate
from cosyedge.packs.cosyvoice_int8 import pcm16, speak
from cosyedge.packs.cosyvoice_parity import SENTENCES, SPOKEN
from cosyedge.speech.voices.cosypack import CosyPack
from cosyedge.speech.voices.cosytokens import BpeTokenizer
from cosyedge.speech.voices.cosyvoice import FLOW_STEPS, CosyvoiceModels, greedy_sampler


def distances_to_released(
    pack: CosyPack,
    counts: tuple[int, ...],
    sentences: tuple[str, ...] = SENTENCES[:SPOKEN],
    guidance: bool = True,
) -> dict[int, float]:
    """Step count → mean log-mel distance (dB) of its audio, with or without `guidance`, to
    the audio of FLOW_STEPS steps with guidance, over `sentences` (greedy tokens, one seed a
    sentence for every count)."""
    loaded = CosyvoiceModels.load(pack, SessionConfig(save_optimized=False))
    released = replace(loaded, flow_steps=FLOW_STEPS, guidance=True)
    bpe = BpeTokenizer.load(pack.path("tokenizer"))
    spoken = []
    for i, sentence in enumerate(sentences):
        tokens = released.speech_tokens(bpe.encode(sentence), greedy_sampler(released.eos))
        spoken.append((tokens, pcm16(speak(released, tokens, i))))
    return {
        n: _mean_distance(replace(released, flow_steps=n, guidance=guidance), spoken, pack)
        for n in counts
    }


def _mean_distance(models: CosyvoiceModels, spoken: list, pack: CosyPack) -> float:
    distances = [
        evaluate.log_mel_distance(reference, pcm16(speak(models, tokens, i)), pack.sample_rate)
        for i, (tokens, reference) in enumerate(spoken)
    ]
    return round(float(np.mean(distances)), 3)
