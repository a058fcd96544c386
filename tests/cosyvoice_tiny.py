"""Build a tiny random-weight CosyVoice-300M model directory in the released layout.

Run in the CosyVoice conversion venv (it needs torch and the reference classes):

    .venv-cosyvoice/bin/python tests/cosyvoice_tiny.py OUT [--seed N] [--full-size]

The directory holds what a released CosyVoice-300M(-SFT) directory holds: `cosyvoice.yaml`
(the released file with small widths and depths; `--full-size` keeps the released ones),
`llm.pt`, `flow.pt`, `hift.pt` (state dicts of the reference classes, weight-normed as
trained), `spk2info.pt` with two SFT speakers, and `campplus.onnx` /
`speech_tokenizer_v1.onnx` stand-ins with the released inputs and outputs (fbank (1, T, 80)
→ embedding (1, 192); whisper log-mel (1, 128, T) and its length → tokens (1, T / 2)).
The weights are random, seeded: the same seed gives the same files. They are scaled as
trained weights behave (`trained_like`), not left as initialized: an initialized model's F0
predictor says 1-5 Hz, so HiFT's harmonic source is never voiced, and its LM's token
distributions are nearly flat; neither tests what the released weights will exercise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

SPEAKERS = ("英文女", "中文男")

# The released cosyvoice.yaml, model part, with {placeholders} for the sizes that shrink.
YAML = """\
# set random seed, so that you may reproduce your result.
__set_seed1: !apply:random.seed [1986]
__set_seed2: !apply:numpy.random.seed [1986]
__set_seed3: !apply:torch.manual_seed [1986]

# fixed params
sample_rate: 22050
text_encoder_input_size: {text_in}
llm_input_size: {llm}
llm_output_size: {llm}
spk_embed_dim: 192

llm: !new:cosyvoice.llm.llm.TransformerLM
    text_encoder_input_size: !ref <text_encoder_input_size>
    llm_input_size: !ref <llm_input_size>
    llm_output_size: !ref <llm_output_size>
    text_token_size: 51866
    speech_token_size: 4096
    length_normalized_loss: True
    lsm_weight: 0
    spk_embed_dim: !ref <spk_embed_dim>
    text_encoder: !new:cosyvoice.transformer.encoder.ConformerEncoder
        input_size: !ref <text_encoder_input_size>
        output_size: {llm}
        attention_heads: {llm_heads}
        linear_units: {llm_units}
        num_blocks: {text_blocks}
        dropout_rate: 0.1
        positional_dropout_rate: 0.1
        attention_dropout_rate: 0.0
        normalize_before: True
        input_layer: 'linear'
        pos_enc_layer_type: 'rel_pos_espnet'
        selfattention_layer_type: 'rel_selfattn'
        use_cnn_module: False
        macaron_style: False
        use_dynamic_chunk: False
        use_dynamic_left_chunk: False
        static_chunk_size: 1
    llm: !new:cosyvoice.transformer.encoder.TransformerEncoder
        input_size: !ref <llm_input_size>
        output_size: !ref <llm_output_size>
        attention_heads: {llm_heads}
        linear_units: {llm_units}
        num_blocks: {llm_blocks}
        dropout_rate: 0.1
        positional_dropout_rate: 0.1
        attention_dropout_rate: 0.0
        input_layer: 'linear_legacy'
        pos_enc_layer_type: 'rel_pos_espnet'
        selfattention_layer_type: 'rel_selfattn'
        static_chunk_size: 1
    sampling: !name:cosyvoice.utils.common.ras_sampling
        top_p: 0.8
        top_k: 25
        win_size: 10
        tau_r: 0.1

flow: !new:cosyvoice.flow.flow.MaskedDiffWithXvec
    input_size: {flow}
    output_size: 80
    spk_embed_dim: !ref <spk_embed_dim>
    output_type: 'mel'
    vocab_size: 4096
    input_frame_rate: 50
    only_mask_loss: True
    encoder: !new:cosyvoice.transformer.encoder.ConformerEncoder
        output_size: {flow}
        attention_heads: {flow_heads}
        linear_units: {flow_units}
        num_blocks: {flow_blocks}
        dropout_rate: 0.1
        positional_dropout_rate: 0.1
        attention_dropout_rate: 0.1
        normalize_before: True
        input_layer: 'linear'
        pos_enc_layer_type: 'rel_pos_espnet'
        selfattention_layer_type: 'rel_selfattn'
        input_size: {flow}
        use_cnn_module: False
        macaron_style: False
    length_regulator: !new:cosyvoice.flow.length_regulator.InterpolateRegulator
        channels: 80
        sampling_ratios: [1, 1, 1, 1]
    decoder: !new:cosyvoice.flow.flow_matching.ConditionalCFM
        in_channels: 240
        n_spks: 1
        spk_emb_dim: 80
        cfm_params: !new:omegaconf.DictConfig
            content:
                sigma_min: 1e-06
                solver: 'euler'
                t_scheduler: 'cosine'
                training_cfg_rate: 0.2
                inference_cfg_rate: 0.7
                reg_loss_type: 'l1'
        estimator: !new:cosyvoice.flow.decoder.ConditionalDecoder
            in_channels: 320
            out_channels: 80
            channels: [{est}, {est}]
            dropout: 0.0
            attention_head_dim: {est_head}
            n_blocks: {est_blocks}
            num_mid_blocks: {est_mid}
            num_heads: {est_heads}
            act_fn: 'gelu'

hift: !new:cosyvoice.hifigan.generator.HiFTGenerator
    in_channels: 80
    base_channels: {hift}
    nb_harmonics: 8
    sampling_rate: !ref <sample_rate>
    nsf_alpha: 0.1
    nsf_sigma: 0.003
    nsf_voiced_threshold: 10
    upsample_rates: [8, 8]
    upsample_kernel_sizes: [16, 16]
    istft_params:
        n_fft: 16
        hop_len: 4
    resblock_kernel_sizes: [3, 7, 11]
    resblock_dilation_sizes: [[1, 3, 5], [1, 3, 5], [1, 3, 5]]
    source_resblock_kernel_sizes: [7, 11]
    source_resblock_dilation_sizes: [[1, 3, 5], [1, 3, 5]]
    lrelu_slope: 0.1
    audio_limit: 0.99
    f0_predictor: !new:cosyvoice.hifigan.f0_predictor.ConvRNNF0Predictor
        num_class: 1
        in_channels: 80
        cond_channels: {hift}

# processor functions
get_tokenizer: !name:whisper.tokenizer.get_tokenizer
    multilingual: True
    num_languages: 100
    language: 'en'
    task: 'transcribe'
allowed_special: 'all'
"""

TINY = dict(
    text_in=32, llm=64, llm_heads=4, llm_units=128, text_blocks=2, llm_blocks=2,
    flow=32, flow_heads=2, flow_units=64, flow_blocks=2,
    est=32, est_head=16, est_blocks=1, est_mid=1, est_heads=2, hift=32,
)  # fmt: skip
FULL = dict(
    text_in=512, llm=1024, llm_heads=16, llm_units=4096, text_blocks=6, llm_blocks=14,
    flow=512, flow_heads=8, flow_units=2048, flow_blocks=6,
    est=256, est_head=64, est_blocks=4, est_mid=12, est_heads=8, hift=512,
)  # fmt: skip


# What trained weights look like, where initialization differs in kind (measured figures of
# released models are not to be had here; these are the ranges the issue names):
F0_MEAN_HZ, F0_STD_HZ = 150.0, 15.0  # a speaking voice, 90-210 Hz within four deviations
LOGIT_STD = 10.0  # the LM's logits: the best token well ahead of the rest (top-1 p ~ 0.9)
NORM_SPREAD = 0.1  # layer/group norm gains 1 ± this, their biases ± this
BIAS_SPREAD = 0.02  # biases of linear and convolution layers (initialized to 0 or tiny)
CALIBRATION_TOKENS = 150


def write_model(out: Path, seed: int, sizes: dict[str, int]) -> None:
    """The three PyTorch parts, built from the yaml by the converter's own loader and scaled
    as trained weights behave."""
    import torch

    from cosyedge.packs.cosyvoice_reference import build_models

    torch.manual_seed(seed)
    (out / "cosyvoice.yaml").write_text(YAML.format(**sizes), encoding="utf-8")
    models = build_models(out / "cosyvoice.yaml")
    generator = torch.Generator().manual_seed(seed + 1)
    speakers = {name: {"embedding": torch.randn(1, 192, generator=generator)} for name in SPEAKERS}
    trained_like(models, speakers[SPEAKERS[0]]["embedding"], torch.Generator().manual_seed(seed))
    for part, model in models.items():
        torch.save(model.state_dict(), out / f"{part}.pt")
    torch.save(speakers, out / "spk2info.pt")


def trained_like(models: dict, embedding, generator) -> None:
    """Scale freshly built models in place so that they behave as trained ones do where it
    matters to a conversion: norms and biases away from their initial 1 and 0, a peaked LM
    (logits of spread LOGIT_STD) and an F0 predictor that says a speaking voice's 90-210 Hz
    on the mel the flow makes (so HiFT's harmonic source is voiced throughout)."""
    import torch

    with torch.no_grad():
        for model in models.values():
            _spread_norms_and_biases(model, generator)
        decoder = models["llm"].llm_decoder
        d = decoder.weight.shape[1]
        decoder.weight.copy_(torch.randn(decoder.weight.shape, generator=generator) / d**0.5)
        decoder.weight.mul_(LOGIT_STD)
        _voice_f0(models, embedding, generator)


def _spread_norms_and_biases(model, generator) -> None:
    import torch

    norms = (torch.nn.LayerNorm, torch.nn.GroupNorm, torch.nn.BatchNorm1d)
    for module in model.modules():
        if isinstance(module, norms) and module.weight is not None:
            module.weight.add_(NORM_SPREAD * torch.randn(module.weight.shape, generator=generator))
            module.bias.add_(NORM_SPREAD * torch.randn(module.bias.shape, generator=generator))
        elif isinstance(getattr(module, "bias", None), torch.nn.Parameter):
            module.bias.add_(BIAS_SPREAD * torch.randn(module.bias.shape, generator=generator))


def _voice_f0(models: dict, embedding, generator) -> None:
    """Set the F0 classifier so that, on the flow's mel of random tokens, its output has mean
    F0_MEAN_HZ and deviation F0_STD_HZ (the F0 is the absolute value of that output)."""
    import torch

    flow, predictor = models["flow"], models["hift"].f0_predictor
    tokens = torch.randint(0, 4096, (1, CALIBRATION_TOKENS), generator=generator)
    none = torch.zeros(1, 0, dtype=torch.int32)
    for model in models.values():
        model.eval()
    mel, _ = flow.inference(
        tokens, torch.tensor([CALIBRATION_TOKENS]), none, torch.tensor([0]),
        torch.zeros(1, 0, 80), torch.tensor([0]), embedding, torch.zeros(1, 80, 0, 2),
    )  # fmt: skip
    hidden = predictor.condnet(mel).transpose(1, 2)
    classifier = predictor.classifier
    raw = hidden @ classifier.weight[0]
    classifier.weight.mul_(F0_STD_HZ / raw.std())
    classifier.bias.fill_(F0_MEAN_HZ - float((hidden @ classifier.weight[0]).mean()))


def write_campplus(path: Path, seed: int) -> None:
    """fbank (1, T, 80) → embedding (1, 192): the mean over time, projected."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    weight = np.random.default_rng(seed).normal(0, 0.1, (80, 192)).astype(np.float32)
    nodes = [
        helper.make_node("ReduceMean", ["input"], ["mean"], axes=[1], keepdims=0),
        helper.make_node("MatMul", ["mean", "w"], ["output"]),
    ]
    graph = helper.make_graph(
        nodes,
        "campplus",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, "T", 80])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 192])],
        [numpy_helper.from_array(weight, "w")],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def write_speech_tokenizer(path: Path, seed: int) -> None:
    """log-mel (1, 128, T), length (1,) → tokens (1, T // 2): every other frame, projected
    onto 4096 codes."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    weight = np.random.default_rng(seed).normal(0, 1, (128, 4096)).astype(np.float32)
    nodes = [
        helper.make_node("Transpose", ["feats"], ["t"], perm=[0, 2, 1]),
        helper.make_node("Slice", ["t", "start", "end", "axis", "step"], ["half"]),
        helper.make_node("MatMul", ["half", "w"], ["scores"]),
        helper.make_node("ArgMax", ["scores"], ["idx"], axis=2, keepdims=0),
        helper.make_node("Cast", ["idx"], ["indices"], to=TensorProto.INT32),
    ]
    consts = [
        numpy_helper.from_array(weight, "w"),
        numpy_helper.from_array(np.array([1], np.int64), "start"),
        numpy_helper.from_array(np.array([1 << 30], np.int64), "end"),
        numpy_helper.from_array(np.array([1], np.int64), "axis"),
        numpy_helper.from_array(np.array([2], np.int64), "step"),
    ]
    graph = helper.make_graph(
        nodes,
        "speech_tokenizer_v1",
        [
            helper.make_tensor_value_info("feats", TensorProto.FLOAT, [1, 128, "T"]),
            helper.make_tensor_value_info("feats_length", TensorProto.INT32, [1]),
        ],
        [helper.make_tensor_value_info("indices", TensorProto.INT32, [1, "T2"])],
        consts,
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def build(out: Path, seed: int = 0, full_size: bool = False) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    write_model(out, seed, FULL if full_size else TINY)
    write_campplus(out / "campplus.onnx", seed)
    write_speech_tokenizer(out / "speech_tokenizer_v1.onnx", seed)
    return out


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--full-size", action="store_true")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    build(args.out, args.seed, args.full_size)


if __name__ == "__main__":
    main(sys.argv[1:])
