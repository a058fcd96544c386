"""Export CosyVoice-300M's three PyTorch models into the ONNX graphs of a voice pack.

Conversion only (torch and the reference classes). What is exported, and why so:

- the LLM as two graphs: the text encoder, and one step of the speech-token LM with an
  explicit cache in and out, used for the prompt (empty cache) and then for each token
  (onnxruntime never recomputes the past, and the LM's weights exist once). Per layer and
  head the cache holds each position's key and value and, beside them, the relative-position
  projection (`linear_pos` of the ESPnet rel-pos attention) of the distance of the same
  index: the reference projects all 2K-1 distances of a K-long context at every step
  (11.5 GFLOP a token at full size and context 190), a step here projects only the one new
  distance, so a token costs the same late in a clause as early (`position_cached_attention`);
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

log = logging.getLogger(__name__)

OPSET = 17
# Graph name → its input and output names; the runtime feeds them by these names. The LM
# step's cache is (layers, heads, positions, 3 * d_k): keys, values, projected distances.
GRAPHS = {
    "text_encoder": (("text",), ("encoded",)),
    "llm_step": (("xs", "att_cache", "mask"), ("logp", "att_cache_out")),
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


def chunk_positions(cached: Any, new: Any) -> Any:
    """The relative distances whose projections a chunk of `new` queries after `cached`
    positions lacks, ascending: the negative ones -(new-1)..-1 (the chunk's queries look
    ahead at one another; a causal mask then hides them) and the new non-negative ones
    cached..cached+new-1 (every smaller one is in the cache already)."""
    import torch

    negative = torch.arange(1 - new, 0, dtype=torch.int64)
    return torch.cat([negative, torch.arange(cached, cached + new, dtype=torch.int64)])


def relative_scores(q_v: Any, table: Any, keys: int) -> Any:
    """(1, h, T, K) position scores from `q_v` (1, h, T, d_k) and `table` (1, h, K+T-1, d_k),
    the projections of distances -(T-1)..K-1 ascending: query i (at K-T+i) and key j are
    K-T+i-j apart, row K-1+i-j of the table. The reference's rel_shift of its 2K-1 columns
    (distances K-1..-(K-1)) gives the same entries."""
    import torch

    bd = by_rows(table, q_v)  # (1, h, K+T-1, T)
    queries = q_v.shape[2]
    rows = torch.arange(keys, dtype=torch.int64).unsqueeze(1)
    cols = torch.arange(queries, dtype=torch.int64).unsqueeze(0)
    index = (keys - 1 + cols - rows).expand(bd.shape[0], bd.shape[1], keys, queries)
    return torch.gather(bd, 2, index).transpose(-2, -1)


def by_rows(rows: Any, queries: Any) -> Any:
    """(1, h, N, T): each of `rows` (1, h, N, d_k) dotted with each of `queries` (1, h, T, d_k).
    The same products as queries @ rows^T, but the transposed operand is the queries (one row
    a step), not the cache (K rows): onnxruntime copies a transposed operand whole, which at
    full size and context 220 took 13 ms a step."""
    import torch

    return torch.matmul(rows, queries.transpose(-2, -1))


def position_cached_attention(attn: Any) -> Any:
    """A module computing what `attn` (the reference's RelPositionMultiHeadedAttention)
    computes, with its cache (1, h, C, 3 d_k) holding the projected distances 0..C-1 beside
    keys and values, and `pos_emb` the sinusoids of `chunk_positions` alone (2T-1 rows)."""
    import math

    import torch

    class PositionCachedAttention(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.attn = attn

        def forward(self, query, key, value, mask, pos_emb, cache):
            q, k, v = attn.forward_qkv(query, key, value)  # (1, h, T, d_k)
            queries = q.shape[2]
            p = attn.linear_pos(pos_emb).view(1, -1, attn.h, attn.d_k).transpose(1, 2)
            full = joined_cache(cache, k, v, p[:, :, queries - 1 :])
            k, v, distances = torch.split(full, attn.d_k, dim=-1)
            table = torch.cat([p[:, :, : queries - 1], distances], dim=2)
            return attn.forward_attention(v, self.scores(q, k, table), mask), full

        def scores(self, q, k, table):
            """Content and position terms, as the reference adds and scales them."""
            q = q.transpose(1, 2)
            q_u = (q + attn.pos_bias_u).transpose(1, 2)
            q_v = (q + attn.pos_bias_v).transpose(1, 2)
            ac = by_rows(k, q_u).transpose(-2, -1)  # (1, h, T, K)
            return (ac + relative_scores(q_v, table, k.shape[2])) / math.sqrt(attn.d_k)

    return PositionCachedAttention()


def joined_cache(cache: Any, k: Any, v: Any, distances: Any) -> Any:
    """(1, h, C+T, 3 d_k): the cache with the new positions' keys, values and projected
    distances. The new rows are joined first, then to the cache: the whole cache is copied
    once, where keys, values and distances each joined to their part and put together again
    would copy it twice more (the cache's copies are what still grows with the context)."""
    import torch

    return torch.cat([cache, torch.cat([k, v, distances], dim=-1)], dim=2)


def position_cached_chunk(encoder: Any, xs: Any, att_cache: Any, mask: Any) -> tuple[Any, Any]:
    """The reference TransformerEncoder's forward_chunk (whole history kept, no CNN cache)
    with `position_cached_attention` in every layer: output (1, T, D) and the cache
    (layers, h, C+T, 3 d_k). The encoder's layers are given back their own attention after."""
    import torch

    if encoder.global_cmvn is not None:
        raise ValueError("the LM's encoder has a global CMVN; CosyVoice-300M's has none")
    cached, new = att_cache.shape[2], xs.shape[1]
    ones = torch.ones(1, 1, new, dtype=torch.bool)
    xs, _, _ = encoder.embed(xs, ones, cached)  # the input scaling; its positions unused
    pe = encoder.embed.pos_enc.pe[0]  # distance r at row centre - r (the reference's layout)
    pos_emb = pe[pe.shape[0] // 2 - chunk_positions(cached, new)].unsqueeze(0)
    originals = [layer.self_attn for layer in encoder.encoders]
    caches = []
    try:
        for i, layer in enumerate(encoder.encoders):
            layer.self_attn = position_cached_attention(originals[i])
            xs, _, layer_cache, _ = layer(xs, mask, pos_emb, att_cache=att_cache[i : i + 1])
            caches.append(layer_cache)
    finally:
        for layer, original in zip(encoder.encoders, originals, strict=True):
            layer.self_attn = original
    if encoder.normalize_before:
        xs = encoder.after_norm(xs)
    return xs, torch.cat(caches, dim=0)


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
        """Prefill (empty cache, causal mask) and each decode step (one token, all-true
        mask) alike: one graph, so the LLM's weights are loaded once."""

        def forward(self, xs, att_cache, mask):
            y, cache = position_cached_chunk(llm.llm, xs, att_cache, mask)
            return llm.llm_decoder(y[:, -1]).log_softmax(dim=-1), cache

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

    d = llm.llm_embedding.weight.shape[1]
    layers = len(llm.llm.encoders)
    heads = llm.llm.encoders[0].self_attn.h
    d_k = llm.llm.encoders[0].self_attn.d_k
    frames, stft_frames = 23, 23 * 64 + 1
    samples = frames * 256
    return {
        "text_encoder": (torch.randint(0, 1000, (1, 7)),),
        "llm_step": (
            torch.randn(1, 3, d),
            torch.randn(layers, heads, 13, 3 * d_k),
            torch.ones((1, 3, 16), dtype=torch.bool),
        ),
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
    "llm_step": {
        "xs": {1: "T"},
        "att_cache": {2: "C"},
        "mask": {1: "T", 2: "K"},
        "att_cache_out": {2: "K"},
    },
    "flow_encoder": {"token": {1: "N"}, "h": {1: "N"}},
    "flow_regulator": {"x": {2: "M"}, "mu": {1: "M"}},
    "estimator": {k: {2: "M"} for k in ("x", "mask", "mu", "cond", "dphi_dt")},
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
                dynamic_axes=_DYNAMIC[name],
                opset_version=OPSET,
                dynamo=False,
            )
        log.info("exported %s (%.1f MB)", path.name, path.stat().st_size / 1e6)
        written[name] = path
    return written
