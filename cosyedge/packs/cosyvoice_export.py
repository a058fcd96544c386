"""Export CosyVoice-300M's three PyTorch models into the ONNX graphs of a voice pack.

Conversion only (torch and the reference classes). What is exported, and why so:

- the LLM as two graphs: the text encoder, and one step of the speech-token LM, used for the
  prompt and then for each token (onnxruntime never recomputes the past, and the LM's
  weights exist once). Its cache is kept in place: buffers the step writes its new rows
  into, which the runtime binds as input and output (`cosyvoice_lm_step`). Beside each
  position's key and value it keeps the relative-position projection of the distance of the
  same index: the reference projects all 2K-1 distances of a K-long context at every step
  (11.5 GFLOP a token at full size and context 190), a step here only its new ones;
- the flow's token encoder, its length regulator's convolutions, and the flow-matching
  estimator alone: the Euler loop, classifier-free guidance and the linear interpolation
  of the regulator run in numpy, and the starting noise is an input, so a parity check can
  give both sides the same noise;
- HiFT in two graphs, the F0 predictor with the harmonic source (its random phases and
  noise as inputs) and the convolution core; the STFT of the source and the final inverse
  STFT run in numpy (onnxruntime has no inverse STFT, and numpy's is exact).

Weight norm is removed first (the exported weights are what the forward pass computes).
The legacy TorchScript-based exporter is used: it exports these models with dynamic lengths.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path
from typing import Any

from cosyedge.packs.cosyvoice_lm_step import (
    in_place_chunk,
    step_dynamic_axes,
    step_example,
    step_io,
)

log = logging.getLogger(__name__)

OPSET = 17
# Graph name → its input and output names; the runtime feeds them by these names. The LM
# step's depend on its layers (three cache buffers a layer): `step_io`.
GRAPHS = {
    "text_encoder": (("text",), ("encoded",)),
    "llm_step": ((), ()),
    "flow_encoder": (("token",), ("h",)),
    "flow_regulator": (("x",), ("mu",)),
    "estimator": (("x", "mask", "mu", "t", "spks", "cond"), ("dphi_dt",)),
    "hift_source": (("mel", "phase", "noise"), ("source",)),
    "hift_core": (("mel", "source_stft"), ("magnitude", "phase")),
}


def remove_weight_norm(model: Any) -> None:
    """Fold weight norm into plain weights, whichever API the classes used."""
    from torch.nn.utils import parametrize

    for module in model.modules():
        if parametrize.is_parametrized(module, "weight"):
            parametrize.remove_parametrizations(module, "weight", leave_parametrized=True)
        elif hasattr(module, "weight_g"):
            import torch

            torch.nn.utils.remove_weight_norm(module)


def phase_cycles(f_mat: Any) -> Any:
    """The running sum of cycles per sample, summed in float64 and given back in float32: what
    torch's CPU cumsum computes for float32 (it accumulates in double). onnxruntime's float32
    CumSum accumulates in float32, and over a voiced clause of seconds (10^5 samples, sums in
    the hundreds of cycles) its phase drifts by hundredths of a cycle: audio off by 0.02-0.2."""
    import torch

    return torch.cumsum(f_mat.to(torch.float64), dim=-1).to(f_mat.dtype)


def _wrappers(llm: Any, flow: Any, hift: Any) -> dict[str, Any]:
    """torch modules whose forward is exactly one graph of `GRAPHS`."""
    import math

    import torch
    import torch.nn.functional as F

    class Part(torch.nn.Module):
        """Holds the models as submodules, so their weights are the graph's initializers
        (named, quantizable), not anonymous constants."""

        def __init__(self) -> None:
            super().__init__()
            self.models = torch.nn.ModuleList([llm, flow, hift])

    class TextEncoder(Part):
        def forward(self, text: torch.Tensor) -> torch.Tensor:
            emb = llm.text_embedding(text)
            lengths = torch.ones_like(text[:, 0]) * text.shape[1]
            return llm.encode(emb, lengths)[0]

    class LlmStep(Part):
        """The prompt (offset 0) and each decode step (one token) alike: one graph, so the
        LLM's weights are loaded once."""

        def forward(self, xs, offset, *buffers):
            y, written = in_place_chunk(llm.llm, xs, offset, buffers)
            return (llm.llm_decoder(y[:, -1]).log_softmax(dim=-1), *written)

    class FlowEncoder(Part):
        def forward(self, token: torch.Tensor) -> torch.Tensor:
            lengths = torch.ones_like(token[:, 0]) * token.shape[1]
            h, _ = flow.encoder(flow.input_embedding(torch.clamp(token, min=0)), lengths)
            return flow.encoder_proj(h)

    class Regulator(Part):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return flow.length_regulator.model(x).transpose(1, 2)

    class Estimator(Part):
        def forward(self, x, mask, mu, t, spks, cond):
            return flow.decoder.estimator(x, mask, mu, t, spks, cond)

    source = hift.m_source

    class HiftSource(Part):
        """The reference's SineGen and source module, with their random draws as inputs."""

        def forward(self, mel, phase, noise):
            f0 = hift.f0_upsamp(hift.f0_predictor(mel)[:, None])  # (1, 1, samples)
            sine = source.l_sin_gen
            harmonics = torch.arange(1, sine.harmonic_num + 2, dtype=mel.dtype).reshape(1, -1, 1)
            f_mat = f0 * harmonics / sine.sampling_rate
            theta = 2 * math.pi * (phase_cycles(f_mat) % 1)
            waves = sine.sine_amp * torch.sin(theta + phase)
            uv = (f0 > sine.voiced_threshold).to(mel.dtype)
            noise_amp = uv * sine.noise_std + (1 - uv) * sine.sine_amp / 3
            waves = waves * uv + noise_amp * noise
            return source.l_tanh(source.l_linear(waves.transpose(1, 2))).transpose(1, 2)

    class HiftCore(Part):
        def forward(self, mel, source_stft):
            x = hift.conv_pre(mel)
            for i in range(hift.num_upsamples):
                x = hift.ups[i](F.leaky_relu(x, hift.lrelu_slope))
                if i == hift.num_upsamples - 1:
                    x = hift.reflection_pad(x)
                si = hift.source_resblocks[i](hift.source_downs[i](source_stft))
                x = x + si
                k = hift.num_kernels
                x = sum(hift.resblocks[i * k + j](x) for j in range(k)) / k
            x = hift.conv_post(F.leaky_relu(x))
            bins = hift.istft_params["n_fft"] // 2 + 1
            return torch.exp(x[:, :bins, :]), torch.sin(x[:, bins:, :])

    return {
        "text_encoder": TextEncoder(),
        "llm_step": LlmStep(),
        "flow_encoder": FlowEncoder(),
        "flow_regulator": Regulator(),
        "estimator": Estimator(),
        "hift_source": HiftSource(),
        "hift_core": HiftCore(),
    }


def _examples(llm: Any, hift: Any) -> dict[str, tuple]:
    """Inputs to trace with; lengths differ from one another so none is taken for another."""
    import torch

    frames, stft_frames = 23, 23 * 64 + 1
    samples = frames * 256
    return {
        "text_encoder": (torch.randint(0, 1000, (1, 7)),),
        "llm_step": step_example(llm),
        "flow_encoder": (torch.randint(0, 4096, (1, 17)),),
        "flow_regulator": (torch.randn(1, 80, 29),),
        "estimator": (
            torch.randn(2, 80, 31),
            torch.ones(2, 1, 31),
            torch.randn(2, 80, 31),
            torch.rand(2),
            torch.randn(2, 80),
            torch.randn(2, 80, 31),
        ),
        "hift_source": (
            torch.randn(1, 80, frames),
            torch.rand(1, hift.nb_harmonics + 1, 1),
            torch.randn(1, hift.nb_harmonics + 1, samples),
        ),
        "hift_core": (torch.randn(1, 80, frames), torch.randn(1, 18, stft_frames)),
    }


_DYNAMIC = {
    "text_encoder": {"text": {1: "T"}, "encoded": {1: "T"}},
    "llm_step": {},  # step_dynamic_axes
    "flow_encoder": {"token": {1: "N"}, "h": {1: "N"}},
    "flow_regulator": {"x": {2: "M"}, "mu": {1: "M"}},
    # A batch of 2 with guidance, 1 without (a pack's `flow_guidance`).
    "estimator": {
        **{k: {0: "B", 2: "M"} for k in ("x", "mask", "mu", "cond", "dphi_dt")},
        "t": {0: "B"},
        "spks": {0: "B"},
    },
    "hift_source": {"mel": {2: "F"}, "noise": {2: "S"}, "source": {2: "S"}},
    "hift_core": {
        "mel": {2: "F"},
        "source_stft": {2: "G"},
        "magnitude": {2: "G"},
        "phase": {2: "G"},
    },
}


def export_all(
    models: dict[str, Any], out: Path, names: tuple[str, ...] = tuple(GRAPHS)
) -> dict[str, Path]:
    """Write the graphs `names` (every graph of `GRAPHS` by default) into `out`; returns graph
    name → file. HiFT's weight norm is folded in place."""
    import torch

    for model in models.values():
        model.eval()
    remove_weight_norm(models["hift"])
    wrappers = _wrappers(models["llm"], models["flow"], models["hift"])
    examples = _examples(models["llm"], models["hift"])
    written = {}
    for name in names:
        inputs, outputs = GRAPHS[name]
        dynamic = _DYNAMIC[name]
        if name == "llm_step":
            layers = len(models["llm"].llm.encoders)
            (inputs, outputs), dynamic = step_io(layers), step_dynamic_axes(layers)
        path = out / f"{name}.onnx"
        # The exporter gives the module its mode back afterwards: a wrapper left in training
        # mode (a new Module's) would put the models under it into training mode (dropout).
        wrappers[name].eval()
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's notes on shapes it keeps dynamic
            torch.onnx.export(
                wrappers[name],
                examples[name],
                str(path),
                input_names=list(inputs),
                output_names=list(outputs),
                dynamic_axes=dynamic,
                opset_version=OPSET,
                dynamo=False,
            )
        log.info("exported %s (%.1f MB)", path.name, path.stat().st_size / 1e6)
        written[name] = path
    return written
