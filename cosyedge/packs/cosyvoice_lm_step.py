"""The CosyVoice-300M LM step as exported: the reference's forward_chunk, its cache kept in place.

Conversion only (torch and the reference classes). The LM's attention is ESPnet's relative-
position attention: each layer adds to its scores a term from a projection (`linear_pos`) of a
sinusoidal embedding of each query-key distance. The reference projects all 2K-1 distances of
a K-long context at every step; here each layer keeps, beside each position's key and value,
the projection of the distance of the same index, so a step projects only its new distances.

The cache is three buffers a layer (keys, values, projected distances; (1, heads, capacity,
d_k) each) and `offset`, the positions already written. A step writes its T new rows at
offset..offset+T-1 with ScatterND and attends over the whole capacity, rows past its own
position masked: the runtime binds each buffer as input and output on the same memory, and
onnxruntime's ScatterND then writes the new rows only (cosyedge.speech.voices.cosycache).
The graph's input buffers feed nothing but their ScatterND: everything else reads the
written buffer, so no node sees a row half written.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from cosyedge.speech.voices.cosycache import OUT_SUFFIX, cache_names


def step_io(layers: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The step graph's input and output names."""
    names = cache_names(layers)
    return ("xs", "offset", *names), ("logp", *(name + OUT_SUFFIX for name in names))


def step_dynamic_axes(layers: int) -> dict[str, dict[int, str]]:
    names = cache_names(layers)
    buffers = (*names, *(name + OUT_SUFFIX for name in names))
    return {"xs": {1: "T"}, **{name: {2: "capacity"} for name in buffers}}


def step_example(llm: Any, capacity: int = 19) -> tuple:
    """Inputs to trace with: 3 new positions after 13, in buffers of `capacity` (lengths that
    differ from one another, so none is taken for another)."""
    import torch

    attn = llm.llm.encoders[0].self_attn
    d = llm.llm_embedding.weight.shape[1]
    layers = len(llm.llm.encoders)
    buffers = [torch.randn(1, attn.h, capacity, attn.d_k) for _ in cache_names(layers)]
    return (torch.randn(1, 3, d), torch.tensor(13, dtype=torch.int64), *buffers)


@functools.cache
def _scatter_rows() -> Any:
    import torch

    class ScatterRows(torch.autograd.Function):
        """`buffer` with `rows` (1, h, T, d) written at `index` (1, h, T, 3: batch, head,
        position): exported as ScatterND, which runs in place on a buffer bound as its
        output too."""

        @staticmethod
        def forward(ctx, buffer, index, rows):
            out = buffer.clone()
            out[index[..., 0], index[..., 1], index[..., 2]] = rows
            return out

        @staticmethod
        def symbolic(g, buffer, index, rows):
            return g.op("ScatterND", buffer, index, rows)

    return ScatterRows


def by_rows(rows: Any, queries: Any) -> Any:
    """(1, h, N, T): each of `rows` (1, h, N, d_k) dotted with each of `queries` (1, h, T, d_k).
    The same products as queries @ rows^T, but the transposed operand is the queries (T rows),
    not the cache (N rows): onnxruntime copies a transposed operand whole."""
    import torch

    return torch.matmul(rows, queries.transpose(-2, -1))


def distance_scores(q_v: Any, table: Any, offset: Any) -> Any:
    """(1, h, T, capacity) position scores of queries at offset..offset+T-1 from `q_v`
    (1, h, T, d_k) and `table` (1, h, capacity, d_k), row r the projection of distance r:
    query t and key j are offset+t-j apart. A key after its query (a negative distance) takes
    row 0: the causal mask hides it, as it hides the reference's negative distances."""
    import torch

    bd = by_rows(table, q_v)  # (1, h, capacity, T)
    keys, queries = table.shape[2], q_v.shape[2]
    rows = torch.arange(keys, dtype=torch.int64).unsqueeze(1)
    cols = torch.arange(queries, dtype=torch.int64).unsqueeze(0)
    index = torch.clamp(offset + cols - rows, min=0).expand(bd.shape[0], bd.shape[1], keys, queries)
    return torch.gather(bd, 2, index).transpose(-2, -1)


def in_place_attention(attn: Any) -> Any:
    """A module computing what `attn` (the reference's RelPositionMultiHeadedAttention)
    computes, its cache the tuple (keys, values, distances, index, offset): the buffers, the
    ScatterND index of the new rows and their first position. `pos_emb` holds the sinusoids
    of the new rows' distances. Gives back the output and the three written buffers."""
    import torch

    class InPlaceAttention(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.attn = attn

        def forward(self, query, key, value, mask, pos_emb, cache):
            keys, values, table, index, offset = cache
            q, k, v = attn.forward_qkv(query, key, value)  # (1, h, T, d_k)
            p = attn.linear_pos(pos_emb).view(1, -1, attn.h, attn.d_k).transpose(1, 2)
            write = _scatter_rows().apply
            keys, values = write(keys, index, k), write(values, index, v)
            table = write(table, index, p)
            q = q.transpose(1, 2)
            q_u = (q + attn.pos_bias_u).transpose(1, 2)
            q_v = (q + attn.pos_bias_v).transpose(1, 2)
            ac = by_rows(keys, q_u).transpose(-2, -1)  # (1, h, T, capacity)
            scores = (ac + distance_scores(q_v, table, offset)) / math.sqrt(attn.d_k)
            return attn.forward_attention(values, scores, mask), (keys, values, table)

    return InPlaceAttention()


def in_place_chunk(encoder: Any, xs: Any, offset: Any, buffers: tuple) -> tuple[Any, list]:
    """The reference TransformerEncoder's forward_chunk (whole history kept, no CNN cache,
    causal) with `in_place_attention` in every layer: output (1, T, D) and the written
    buffers, three a layer. The encoder's layers are given back their own attention after."""
    import torch

    if encoder.global_cmvn is not None:
        raise ValueError("the LM's encoder has a global CMVN; CosyVoice-300M's has none")
    new, capacity = xs.shape[1], buffers[0].shape[2]
    heads = buffers[0].shape[1]
    positions = offset + torch.arange(new, dtype=torch.int64)
    # Key j is seen by the query at position p when j <= p: its own and earlier positions.
    mask = torch.arange(capacity, dtype=torch.int64).view(1, 1, -1) <= positions.view(1, -1, 1)
    xs, _, _ = encoder.embed(xs, torch.ones(1, 1, new, dtype=torch.bool), 0)  # the scaling
    pe = encoder.embed.pos_enc.pe[0]  # distance r at row centre - r (the reference's layout)
    pos_emb = pe[pe.shape[0] // 2 - positions].unsqueeze(0)
    grid = [torch.zeros_like(positions).view(1, 1, -1).expand(1, heads, new),
            torch.arange(heads, dtype=torch.int64).view(1, -1, 1).expand(1, heads, new),
            positions.view(1, 1, -1).expand(1, heads, new)]  # fmt: skip
    index = torch.stack(grid, dim=-1)  # (1, h, T, 3)
    originals = [layer.self_attn for layer in encoder.encoders]
    written: list = []
    try:
        for i, layer in enumerate(encoder.encoders):
            layer.self_attn = in_place_attention(originals[i])
            cache = (*buffers[3 * i : 3 * i + 3], index, offset)
            xs, _, layer_buffers, _ = layer(xs, mask, pos_emb, att_cache=cache)
            written.extend(layer_buffers)
    finally:
        for layer, original in zip(encoder.encoders, originals, strict=True):
            layer.self_attn = original
    if encoder.normalize_before:
        xs = encoder.after_norm(xs)
    return xs, written
