"""The CosyVoice LM step as the converter exported it before its cache was kept in place, for
`bench.cosyvoice_lm`'s side-by-side timing (not in CI; conversion venv).

That step took its cache (layers, heads, K, 3 d_k: keys, values and projected distances) in
and gave a new one (K+T positions) back: onnxruntime's Concat and Split copied it at every
token. Its attention and its position terms were those of the step now; only the cache's
way in and out differs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cosyedge.packs.cosyvoice_lm_step import by_rows


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


def export_before(llm: Any, path: Path, opset: int) -> None:
    """Write the step as exported before (inputs xs, att_cache, mask; outputs logp,
    att_cache_out) to `path`."""
    import warnings

    import torch

    class Before(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.llm = llm

        def forward(self, xs, att_cache, mask):
            y, cache = position_cached_chunk(llm.llm, xs, att_cache, mask)
            return llm.llm_decoder(y[:, -1]).log_softmax(dim=-1), cache

    attn = llm.llm.encoders[0].self_attn
    d = llm.llm_embedding.weight.shape[1]
    example = (torch.randn(1, 3, d), torch.randn(len(llm.llm.encoders), attn.h, 13, 3 * attn.d_k),
               torch.ones((1, 3, 16), dtype=torch.bool))  # fmt: skip
    dynamic = {"xs": {1: "T"}, "att_cache": {2: "C"}, "mask": {1: "T", 2: "K"},
               "att_cache_out": {2: "K"}}  # fmt: skip
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Before().eval(), example, str(path), opset_version=opset, dynamo=False,
                          input_names=["xs", "att_cache", "mask"],
                          output_names=["logp", "att_cache_out"], dynamic_axes=dynamic)  # fmt: skip
