"""The phrase cache's hit rate, as the status, `/metrics` and `cosyedge cache stats` show it:
counted exactly and a rate from 0 to 1, whatever the sequence of hits, misses, evictions,
restarts and other processes using the same cache."""

from __future__ import annotations

import os
import tempfile
import zlib
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from cosyedge.alarms.snapshot import Snapshot, status_detail
from cosyedge.http.metrics import Metrics
from cosyedge.speech.cache import Clip, Limits, PhraseCache, cache_key

EXAMPLES = int(os.environ.get("COSYEDGE_FUZZ_EXAMPLES", "300")) // 3
OPS = st.lists(
    st.sampled_from(["hit", "miss", "put", "evict", "restart", "other", "unrecorded", "look"]),
    max_size=40,
)


class Counted:
    """A real cache in a directory of its own, and what its lookups should have counted."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.cache = self._open()
        self.keys: list[str] = []
        self.lookups = self.hits = 0

    def _open(self) -> PhraseCache:
        return PhraseCache(self.directory, Limits(max_bytes=1 << 30, max_entries=3))

    def do(self, op: str) -> None:
        getattr(self, f"_{op}")()

    def _hit(self) -> None:
        found = [k for k in self.keys if self.cache.contains(k)]
        if found:
            assert self.cache.get(found[-1]) is not None
            self.lookups, self.hits = self.lookups + 1, self.hits + 1

    def _miss(self) -> None:
        assert self.cache.get(cache_key(f"absent {self.lookups}", "v", "en")) is None
        self.lookups += 1

    def _put(self) -> None:
        text = f"Phrase {len(self.keys)}."
        key = cache_key(text, "v", "en")
        sound = np.full(800, zlib.crc32(text.encode()) % 9000, np.int16)
        assert self.cache.put(key, Clip(16000, sound), voice="v", lang="en", text=text)
        self.keys.append(key)

    def _evict(self) -> None:  # beyond max_entries, the least recently used go
        self.cache.evict()

    def _restart(self) -> None:
        self.cache.close()
        self.cache = self._open()

    def _other(self) -> None:
        """Another process on the same cache (`cosyedge say`, `warm`) looks a phrase up."""
        other = self._open()
        found = other.get_any([cache_key("absent", "p", "en"), *self.keys[-1:]])
        other.close()
        self.lookups, self.hits = self.lookups + 1, self.hits + (found is not None)

    def _unrecorded(self) -> None:  # warming and export look phrases up without counting
        for key in self.keys:
            self.cache.get(key, record=False)

    def _look(self) -> None:
        self.check()

    def check(self) -> None:
        totals = self.cache.stats()
        assert totals is not None
        assert (totals.lookups, totals.hits) == (self.lookups, self.hits)
        snapshot = Snapshot(
            0, totals.entries, totals.bytes, totals.lookups, totals.hits, 0, 0, True, True, 0
        )
        rate = status_detail(snapshot)["cache_hit_rate"]
        if self.lookups == 0:
            assert rate is None
        else:
            assert 0 <= rate <= 1 and abs(rate - self.hits / self.lookups) < 0.001, rate
        misses = _metric(Metrics(lambda: snapshot).text(), "cosyedge_cache_misses_total")
        assert misses == self.lookups - self.hits >= 0


def _metric(text: bytes, name: str) -> float:
    families = text_string_to_metric_families(text.decode())
    return next(s.value for f in families for s in f.samples if s.name == name)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(OPS)
def test_the_hit_rate_is_counted_exactly_and_stays_within_0_and_1(ops):
    with tempfile.TemporaryDirectory() as directory:
        counted = Counted(Path(directory) / "cache")
        try:
            for op in ops:
                counted.do(op)
            counted.check()
        finally:
            counted.cache.close()


def test_a_fresh_cache_has_no_rate_then_the_share_of_its_lookups_that_hit(tmp_path):
    counted = Counted(tmp_path / "cache")
    counted.check()  # no lookup yet: null, not zero
    for op in ("miss", "put", "hit", "hit", "miss", "hit", "restart", "hit"):
        counted.do(op)
    counted.check()
    totals = counted.cache.stats()
    assert totals is not None and totals.hit_rate == 4 / 6
    counted.cache.close()
