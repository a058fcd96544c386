"""The CosyVoice LM step's attention cache, kept in place between steps.

The step graph takes, per layer, three buffers of `capacity` positions (keys, values and the
projected relative distances, each (1, heads, capacity, d_k)) and the number of positions
already written (`offset`). It writes its new rows into them with ScatterND and attends over
the whole buffer under a causal mask that hides every row not written yet. Each buffer is
bound with onnxruntime's I/O binding as the graph's input and as its output, on the same
memory: onnxruntime's ScatterND copies its input to its output only when the two differ, so a
step writes its own rows and copies nothing else. A graph that gave the cache back whole
copied it at every token, and at a context of 220 that was half of an int8 step's time.

The buffers grow by `BLOCK` positions when a step needs more (the written rows are copied
into the new ones once): the graph's attention runs over the whole capacity, so capacity
beyond what is written costs time at every step, and growing one position at a time would
copy the cache at every step again.
"""

from __future__ import annotations

import numpy as np

# Graph names shared with the converter (cosyedge.packs.cosyvoice_export).
CACHE_PREFIX = "cache_"
OUT_SUFFIX = "_out"
CACHE_KINDS = ("k", "v", "p")  # keys, values, projected distances
# What a pack's manifest says of its LM step (`lm_cache`); a pack without it gives back its
# cache whole at every step and is refused (cosyvoice.check_lm_cache).
LM_CACHE = "in-place-1"
# Positions the buffers grow by: at full size 172 KB a position, so 5.5 MB a block.
BLOCK = 32


def cache_names(layers: int) -> list[str]:
    """The step graph's cache inputs, layer by layer; each output is the name + OUT_SUFFIX."""
    return [f"{CACHE_PREFIX}{kind}_{i}" for i in range(layers) for kind in CACHE_KINDS]


def capacity_for(positions: int) -> int:
    """The capacity that holds `positions`: the next multiple of BLOCK, at least one block."""
    return max(BLOCK, -(-positions // BLOCK) * BLOCK)


class LmCache:
    """One clause's cache for an onnxruntime session of the step graph. `step` runs the graph
    on new positions (a prompt, then one token at a time) and returns their last position's
    log-probabilities; the cache then holds every position given so far."""

    def __init__(self, session) -> None:
        import onnxruntime as ort

        self._ort = ort
        self.session = session
        inputs = [i for i in session.get_inputs() if i.name.startswith(CACHE_PREFIX)]
        self.names = [i.name for i in inputs]
        self.shapes = [(1, int(i.shape[1]), int(i.shape[3])) for i in inputs]  # capacity apart
        self.length = 0
        self.buffers: list[np.ndarray] = []
        self.binding = session.io_binding()
        self.binding.bind_output("logp")
        self._grow(BLOCK)

    @property
    def capacity(self) -> int:
        return self.buffers[0].shape[2]

    def step(self, xs: np.ndarray) -> np.ndarray:
        """(1, vocabulary) log-probabilities after `xs` (1, T, D), the embeddings of the next
        T positions; every position attends to itself and those before it."""
        new = xs.shape[1]
        if self.length + new > self.capacity:
            self._grow(capacity_for(self.length + new))
        self.binding.bind_cpu_input("xs", np.ascontiguousarray(xs, dtype=np.float32))
        self.binding.bind_cpu_input("offset", np.array(self.length, dtype=np.int64))
        self.session.run_with_iobinding(self.binding)
        self.length += new
        return self.binding.get_outputs()[0].numpy()

    def written(self, name: str) -> np.ndarray:
        """The rows of buffer `name` written so far, (1, heads, length, d_k) (a view)."""
        return self.buffers[self.names.index(name)][:, :, : self.length]

    def _grow(self, capacity: int) -> None:
        """New zeroed buffers of `capacity` positions holding the rows written so far, bound
        as input and output. Zeros, not empty memory: the attention multiplies the rows past
        `length` by probabilities of exactly 0, and 0 * NaN would be NaN."""
        buffers = []
        for name, (batch, heads, width), old in zip(
            self.names, self.shapes, self.buffers or [None] * len(self.names), strict=True
        ):
            buffer = np.zeros((batch, heads, capacity, width), dtype=np.float32)
            if old is not None:
                buffer[:, :, : self.length] = old[:, :, : self.length]
            value = self._ort.OrtValue.ortvalue_from_numpy(buffer)
            self.binding.bind_ortvalue_input(name, value)
            self.binding.bind_ortvalue_output(name + OUT_SUFFIX, value)
            buffers.append(buffer)
        self.buffers = buffers
