from __future__ import annotations

import os
import stat

import numpy as np

from cosyedge.cache import Clip, PhraseCache, cache_key


def test_round_trip_and_permissions(tmp_path):
    cache = PhraseCache(tmp_path / "c")
    pcm = (np.sin(np.arange(8000) / 7) * 9000).astype(np.int16)
    key = cache_key("Gas alarm in zone B.", "voice-a")
    assert cache.get(key) is None
    path = cache.put(key, Clip(16000, pcm))
    clip = cache.get(key)
    assert clip is not None and clip.sample_rate == 16000
    assert np.array_equal(clip.pcm, pcm)
    assert stat.S_IMODE(os.stat(tmp_path / "c").st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp files left


def test_key_covers_voice_and_normalizes_whitespace():
    assert cache_key("a  b", "v") == cache_key(" a b ", "v")
    assert cache_key("a b", "v") != cache_key("a b", "w")
    assert cache_key("a b", "v") != cache_key("a c", "v")


def test_empty_or_corrupt_entries_are_removed_not_served(tmp_path):
    cache = PhraseCache(tmp_path)
    for damage in (b"", b"RIFF\x00\x00garbage"):
        key = cache_key(repr(damage), "v")
        path = cache.put(key, Clip(16000, np.ones(100, np.int16)))
        path.write_bytes(damage)
        assert cache.get(key) is None
        assert not path.exists()
