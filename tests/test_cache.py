"""The phrase cache on real files and a real SQLite index: atomic, verified, bounded."""

from __future__ import annotations

import logging
import os
import signal
import stat
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from support import mount, wait_until

from cosyedge.speech.cache import CacheEvent, Clip, Limits, PhraseCache, cache_key
from cosyedge.speech.cache.entry import decode
from cosyedge.speech.cache.store import INDEX_NAME


def pcm(seed: int, samples: int = 8000) -> np.ndarray:
    return np.random.default_rng(seed).integers(-9000, 9000, samples, dtype=np.int16)


def put(cache: PhraseCache, text: str, samples: int = 8000, voice: str = "v") -> str:
    key = cache_key(text, voice, "en")
    assert cache.put(
        key, Clip(16000, pcm(zlib.crc32(text.encode()), samples)), voice=voice, lang="en", text=text
    )
    return key


def wavs(directory: Path) -> list[Path]:
    return sorted(directory.glob("??/*.wav"))


def temps(directory: Path) -> list[Path]:
    return sorted(directory.glob("??/.tmp-*"))


def test_round_trip_and_permissions(tmp_path):
    cache = PhraseCache(tmp_path / "c")
    key = cache_key("Gas alarm in zone B.", "voice-a", "en")
    assert cache.get(key) is None
    sound = pcm(1)
    assert cache.put(
        key, Clip(16000, sound), voice="voice-a", lang="en", text="Gas alarm in zone B."
    )
    clip = cache.get(key)
    assert clip is not None and clip.sample_rate == 16000
    assert np.array_equal(clip.pcm, sound)
    (path,) = wavs(tmp_path / "c")
    assert stat.S_IMODE(os.stat(tmp_path / "c").st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "c" / INDEX_NAME).st_mode) == 0o600
    assert temps(tmp_path / "c") == []
    # The entry is an ordinary WAV file that any player reads.
    import wave

    with wave.open(str(path)) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 16000)
        assert w.readframes(w.getnframes()) == sound.tobytes()
    totals = cache.stats()
    assert (totals.entries, totals.lookups, totals.hits) == (1, 2, 1)


def test_key_covers_voice_language_and_normalizes_spacing():
    assert cache_key("a  b", "v", "en") == cache_key(" a b ", "v", "en")
    assert cache_key("caf\u00e9", "v", "en") == cache_key("cafe\u0301", "v", "en")  # NFC
    assert cache_key("a b", "v", "en") != cache_key("a b", "w", "en")
    assert cache_key("a b", "v", "en") != cache_key("a b", "v", "de")
    assert cache_key("a b", "v", "en") != cache_key("a c", "v", "en")


def _flip(offset: int):
    def damage(path: Path) -> None:
        data = bytearray(path.read_bytes())
        data[offset] ^= 0x40
        path.write_bytes(bytes(data))

    return damage


DAMAGE = {
    "zero-length": ("empty", lambda p: p.write_bytes(b"")),
    "truncated": ("truncated", lambda p: p.write_bytes(p.read_bytes()[:-1000])),
    "flipped sample": ("corrupt", _flip(-500)),
    "flipped sample rate": ("corrupt", _flip(25)),
    "trailing garbage": ("corrupt", lambda p: p.write_bytes(p.read_bytes() + b"junk")),
    "deleted": ("missing", lambda p: p.unlink()),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_each_kind_of_damage_is_detected_removed_reported_and_healed(tmp_path, damage):
    events: list[CacheEvent] = []
    cache = PhraseCache(tmp_path, on_event=events.append)
    key = put(cache, "Compressor two tripped.")
    kind, do_damage = DAMAGE[damage]
    do_damage(cache.path(key))

    assert cache.get(key) is None
    assert [(e.kind, e.key) for e in events] == [(kind, key)]
    assert not cache.path(key).exists()
    assert not cache.contains(key)
    # Healed: the next render stores a whole entry again and it is served.
    put(cache, "Compressor two tripped.")
    assert cache.get(key) is not None
    assert len(events) == 1


def test_an_entry_copied_over_another_is_not_served(tmp_path):
    events: list[CacheEvent] = []
    cache = PhraseCache(tmp_path, on_event=events.append)
    a = put(cache, "Valve A open.")
    b = put(cache, "Valve B open.")
    cache.path(a).write_bytes(cache.path(b).read_bytes())  # same size, other content
    assert cache.get(a) is None
    assert [e.key for e in events] == [a]
    assert cache.get(b) is not None


WRITER = """
import sys
from pathlib import Path
import numpy as np
from cosyedge.speech.cache import Clip, Limits, PhraseCache, cache_key
cache = PhraseCache(Path(sys.argv[1]), Limits(max_bytes=1 << 40))
rng = np.random.default_rng(int(sys.argv[2]))
for i in range(1000):
    text = f"phrase {sys.argv[2]} {i}"
    sound = rng.integers(-3000, 3000, 3_000_000, dtype=np.int16)
    cache.put(cache_key(text, "v", "en"), Clip(16000, sound), voice="v", lang="en", text=text)
"""


@pytest.mark.system
def test_a_writer_killed_mid_write_leaves_whole_entries_or_none(tmp_path):
    directory = tmp_path / "c"
    caught_mid_write = 0
    for round_ in range(8):
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(directory), str(round_)])
        try:
            # Kill it while a temp file is open: the write is under way.
            wait_until(
                lambda: directory.exists() and temps(directory), 30, "a write in progress", 0
            )
            os.kill(writer.pid, signal.SIGKILL)
        finally:
            writer.kill()
            writer.wait()
        caught_mid_write += bool(temps(directory))
        if caught_mid_write >= 2:
            break
    assert caught_mid_write >= 1, "never killed the writer mid-write"

    # Before anything heals it: every entry file on disk is whole.
    files = wavs(directory)
    for path in files:
        decoded = decode(path.read_bytes())
        assert decoded.meta.key == path.stem
    events: list[CacheEvent] = []
    cache = PhraseCache(directory, on_event=events.append)
    done = cache.reconcile()
    assert done.removed_temp >= 1 and temps(directory) == []
    assert done.removed_damaged == 0 and events == []
    assert cache.stats().entries == len(files)  # files renamed but not yet indexed are adopted
    for path in files:
        assert cache.get(path.stem) is not None


def test_eviction_keeps_the_bound_the_recently_used_and_the_pinned(tmp_path):
    cache = PhraseCache(tmp_path, Limits(max_bytes=1 << 30, max_entries=20))
    pinned = [put(cache, f"Fixed phrase {i}.") for i in range(5)]
    assert cache.set_pins(pinned) == 5
    hot = put(cache, "A phrase said every few seconds.")
    order = []
    for i in range(200):  # a flood of unique phrases
        order.append(put(cache, f"Unique phrase number {i}."))
        if i % 10 == 0:
            assert cache.get(hot) is not None
        if cache.upkeep_wanted.is_set():
            cache.evict()
            assert cache.stats().entries <= 20
    totals = cache.stats()
    assert totals.entries == 20 and totals.pinned == 5
    left = {p.stem for p in wavs(tmp_path)}
    assert left == {*pinned, hot, *order[-14:]}
    # Pinned entries were the least recently used of all, yet they stay.
    assert all(cache.get(k) is not None for k in pinned)

    byte_bound = PhraseCache(tmp_path / "b", Limits(max_bytes=300_000))
    for i in range(60):
        put(byte_bound, f"Phrase {i} of a byte-bounded cache.")
        byte_bound.evict()
        assert byte_bound.stats().bytes <= 300_000
    assert sum(p.stat().st_size for p in wavs(tmp_path / "b")) <= 300_000


def test_lost_or_corrupt_index_is_rebuilt_from_the_files(tmp_path):
    cache = PhraseCache(tmp_path)
    keys = [put(cache, f"Phrase {i}.") for i in range(10)]
    damaged = keys.pop()
    cache.close()
    cache.path(damaged).write_bytes(cache.path(damaged).read_bytes()[:-10])

    for suffix in ("", "-wal", "-shm"):
        Path(f"{tmp_path / INDEX_NAME}{suffix}").unlink(missing_ok=True)
    events: list[CacheEvent] = []
    rebuilt = PhraseCache(tmp_path, on_event=events.append)
    assert rebuilt.stats().entries == 9
    assert [(e.kind, e.key) for e in events] == [("truncated", damaged)]
    assert all(rebuilt.get(k) is not None for k in keys)
    rebuilt.close()

    (tmp_path / INDEX_NAME).write_bytes(b"this is not a database" * 300)
    events.clear()
    again = PhraseCache(tmp_path, on_event=events.append)
    assert [e.kind for e in events] == ["index-rebuilt"]
    assert again.stats().entries == 9
    assert all(again.get(k) is not None for k in keys)


def test_disk_full_is_reported_once_and_recovers_when_space_returns(tiny_fs):
    events: list[CacheEvent] = []
    cache = PhraseCache(tiny_fs / "cache", on_event=events.append)
    early = put(cache, "Before the disk filled up.", samples=40_000)
    filler = tiny_fs / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        with pytest.raises(OSError, match="No space left"):
            for _ in range(100):
                os.write(fd, bytes(65536))
    finally:
        os.close(fd)
    for i in range(3):
        key = cache_key(f"No room {i}.", "v", "en")
        assert not cache.put(key, Clip(16000, pcm(i, 40_000)), voice="v", lang="en", text="x")
        assert cache.get(key) is None
    assert [e.kind for e in events] == ["unwritable"]
    assert "No space left" in events[0].detail
    assert cache.get(early) is not None  # what is cached still plays
    assert temps(tiny_fs / "cache") == []

    filler.unlink()
    put(cache, "Space is back.", samples=40_000)
    assert [e.kind for e in events] == ["unwritable", "writable"]


@pytest.mark.system
def test_read_only_cache_keeps_serving_and_recovers(tmp_path):
    source = tmp_path / "cache"
    early = put(PhraseCache(source), "Written while writable.")
    view = tmp_path / "view"
    view.mkdir()
    mount("--bind", str(source), str(view))
    try:
        mount("-o", "remount,bind,ro", str(view))
        events: list[CacheEvent] = []
        cache = PhraseCache(view, on_event=events.append)
        assert cache.get(early) is not None  # served from the file and the checksum it carries
        key = cache_key("Read-only now.", "v", "en")
        for _ in range(2):
            assert not cache.put(key, Clip(16000, pcm(2)), voice="v", lang="en", text="x")
        assert [e.kind for e in events] == ["unwritable"]
        assert "Read-only" in events[0].detail

        mount("-o", "remount,bind,rw", str(view))
        put(cache, "Read-only now.")
        assert [e.kind for e in events] == ["unwritable", "writable"]
        assert cache.get(early) is not None and cache.get(key) is not None
    finally:
        subprocess.run(["umount", "-l", str(view)], check=True)


def test_usage_is_recorded_off_the_hot_path(tmp_path):
    cache = PhraseCache(tmp_path)
    key = put(cache, "Counted.")
    for _ in range(3):
        cache.get(key)
    cache.get(cache_key("never stored", "v", "en"))
    totals = cache.stats()  # flushes what get() only noted in memory
    assert (totals.lookups, totals.hits) == (4, 3)


def plain_wav(seconds: float = 0.2) -> bytes:
    """An ordinary WAV as any recorder writes it: no `cosy` chunk."""
    import io
    import wave

    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(pcm(7, int(16000 * seconds)).tobytes())
    return out.getvalue()


def test_files_the_cache_did_not_write_are_never_deleted_or_replaced(tmp_path, caplog):
    directory = tmp_path / "c"
    cache = PhraseCache(directory, Limits(max_entries=2))
    ours = [put(cache, f"Our phrase {i}.") for i in range(3)]
    named_like_ours = cache_key("Never cached.", "v", "en")
    other = cache_key("Another phrase.", "v", "en")
    strangers = {
        "no/notes.wav": plain_wav(),  # the folder is the name's first two letters
        "ab/abc.wav": plain_wav(),
        f"{named_like_ours[:2]}/{named_like_ours}.wav": plain_wav(),  # a key's name, no chunk
        f"{other[:2]}/{other}.wav": cache.path(ours[0]).read_bytes(),  # an entry, misnamed
        f"{ours[1][:2]}/.tmp-notes": b"my notes",
        f"{ours[2][:2]}/.tmp-999999999-abcdefgh": b"named as our temp, holds something else",
    }
    for name, data in strangers.items():
        (directory / name).parent.mkdir(exist_ok=True)
        (directory / name).write_bytes(data)
    abandoned = directory / ours[2][:2] / ".tmp-999999999-zyxwvuts"  # ours: a writer died
    abandoned.write_bytes(cache.path(ours[2]).read_bytes()[:3000])
    cache.close()
    for suffix in ("", "-wal", "-shm"):  # the index is lost: rebuilt by walking the files
        Path(f"{directory / INDEX_NAME}{suffix}").unlink(missing_ok=True)

    def untouched() -> list[str]:
        here = {name: directory / name for name in strangers}
        return [n for n, p in here.items() if p.exists() and p.read_bytes() == strangers[n]]

    caplog.set_level(logging.INFO, logger="cosyedge.speech.cache")
    cache = PhraseCache(directory, Limits(max_entries=2))
    assert untouched() == list(strangers)
    assert not abandoned.exists()
    assert cache.stats().entries == 3  # our entries were adopted again
    assert cache.reconcile().left_alone == 5  # all but no/notes.wav, outside a hex folder
    assert cache.get(named_like_ours) is None
    assert not cache.put(
        named_like_ours, Clip(16000, pcm(3)), voice="v", lang="en", text="Never cached."
    )
    assert cache.get(other) is None
    assert cache.evict() == 1
    assert not cache.path(ours[0]).exists()  # evicted: its own entry
    assert untouched() == list(strangers)
    assert f"{directory / named_like_ours[:2] / named_like_ours}.wav is not a phrase cache" in (
        caplog.text
    )
    assert "left alone 5 files in the phrase cache" in caplog.text
    with pytest.raises(ValueError, match="not a phrase cache key"):
        cache.path("../../etc/passwd")


def test_a_cache_dir_behind_a_symlink_is_made_private(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    real.chmod(0o755)
    link = tmp_path / "link"
    link.symlink_to(real)
    put(PhraseCache(link), "Behind a symlink.")
    assert stat.S_IMODE(real.stat().st_mode) == 0o700
    existing = tmp_path / "existing"
    existing.mkdir()
    existing.chmod(0o750)
    put(PhraseCache(existing), "In a directory made before.")
    assert stat.S_IMODE(existing.stat().st_mode) == 0o700


def test_a_cache_dir_owned_by_another_user_is_refused(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root to give a directory to another user")
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(theirs, 4321, 4321)
    theirs.chmod(0o777)
    link = tmp_path / "link"
    link.symlink_to(theirs)
    events: list[CacheEvent] = []
    cache = PhraseCache(link, on_event=events.append)
    key = cache_key("Not there.", "v", "en")
    assert not cache.put(key, Clip(16000, pcm(4)), voice="v", lang="en", text="Not there.")
    assert [e.kind for e in events] == ["unwritable"]
    assert f"{theirs} belongs to uid 4321, not to this service (uid 0)" in events[0].detail
    assert list(theirs.iterdir()) == []
    assert stat.S_IMODE(theirs.stat().st_mode) == 0o777


DEEP = b"[" * 100_000 + b"]" * 100_000


def test_metadata_nested_too_deeply_is_a_damaged_entry_not_a_recursion_error():
    from cosyedge.speech.cache.entry import _CHUNK, _FMT, META_CHUNK, DamagedEntry, claimed_key

    samples = np.zeros(100, "<i2").tobytes()
    riff_size = 4 + (8 + 16) + (8 + len(DEEP)) + (8 + len(samples))
    header = _FMT.pack(b"RIFF", riff_size, b"WAVE", b"fmt ", 16, 1, 1, 22050, 44100, 2, 16)
    data = header + _CHUNK.pack(META_CHUNK, len(DEEP)) + DEEP
    data += _CHUNK.pack(b"data", len(samples)) + samples
    with pytest.raises(DamagedEntry, match="unreadable metadata"):
        decode(data)
    assert claimed_key(data) is None


def test_an_archive_manifest_nested_too_deeply_is_refused(tmp_path: Path):
    import io
    import tarfile

    from cosyedge.ops.cache_transfer import MANIFEST, ArchiveError, import_cache

    archive = tmp_path / "deep.tar"
    with tarfile.open(archive, "w") as tar:
        member = tarfile.TarInfo(MANIFEST)
        member.size = len(DEEP)
        tar.addfile(member, io.BytesIO(DEEP))
    with pytest.raises(ArchiveError, match=r"no readable manifest\.json"):
        import_cache(PhraseCache(tmp_path / "cache"), archive, {})


def test_a_lone_surrogate_is_no_part_of_a_key():
    assert cache_key("\ud800 Pump 5 bar", "v", "en") == cache_key("Pump 5 bar", "v", "en")
    assert cache_key("温度\udfff5℃", "v", "zh") == cache_key("温度5℃", "v", "zh")
