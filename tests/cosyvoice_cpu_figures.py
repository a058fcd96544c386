"""The int8 gate's figures graph by graph, printed as JSON, for running on this CPU and under
`qemu-x86_64-static -cpu Haswell` (tests/test_cosyvoice_pack.py): for each int8 graph alone in
the fp32 pack, the log-mel distance (dB) of the audio of the first parity sentence's first
AUDIO_TOKENS speech tokens to fp32's from the same tokens and noise (emulation makes every
second of audio cost about two of CPU), and the share of the int8 LM's choices that are
fp32's when it is fed fp32's tokens.

    python tests/cosyvoice_cpu_figures.py FP32_PACK INT8_PACK
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from cosyedge.packs.cosyvoice_int8 import distance_db, forced_choices, load_models, speak
from cosyedge.packs.cosyvoice_parity import SENTENCES
from cosyedge.speech.voices.cosypack import CosyPack
from cosyedge.speech.voices.cosytokens import BpeTokenizer
from cosyedge.speech.voices.cosyvoice import greedy_sampler

AUDIO_GRAPHS = ("flow_encoder", "estimator", "hift_core")
LM_GRAPHS = ("text_encoder", "llm_step")
AUDIO_TOKENS = 80


def figures(fp32_dir: Path, int8_dir: Path) -> dict[str, float]:
    pack, int8 = CosyPack.open(fp32_dir), CosyPack.open(int8_dir)
    ids = BpeTokenizer.load(pack.path("tokenizer")).encode(SENTENCES[0])
    fp32 = load_models(pack)
    tokens = fp32.speech_tokens(ids, greedy_sampler(fp32.eos))
    reference = speak(fp32, tokens[:AUDIO_TOKENS], 0)
    found = {}
    for role in AUDIO_GRAPHS:
        audio = speak(load_models(pack, {role: int8.path(role)}), tokens[:AUDIO_TOKENS], 0)
        found[role] = distance_db(reference, audio, pack.sample_rate)
    lm = load_models(pack, {role: int8.path(role) for role in LM_GRAPHS})
    found["forced_token_agreement"] = float(np.mean(forced_choices(lm, ids, tokens)))
    return found


if __name__ == "__main__":
    print(json.dumps(figures(Path(sys.argv[1]), Path(sys.argv[2]))))
