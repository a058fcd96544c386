"""`cosyedge warm` and `cosyedge cache …` as users run them (the round trip in this process);
the daemon playing warmed audio."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import wave
from pathlib import Path

import numpy as np
import pytest
from support import cosyedge, cosyedge_here, publish, unrunnable_as_nobody, wait_until

from cosyedge.audio.sound import chime
from cosyedge.ops.cache_transfer import ArchiveError, export_cache, import_cache
from cosyedge.speech.cache import Clip, PhraseCache, cache_key


def site_config(port: int, cache_dir: Path) -> str:
    return f"""
mqtt:
  port: {port}
  local_broker: false
cache:
  dir: {cache_dir}
templates:
  - topic: "plant/{{line}}/door"
    text: "Door on line {{line}} is {{state}}."
    values:
      line: 1..2
      state: [open, closed]
  - topic: plant/evacuate
    text: "Please leave the building."
    priority: critical
  - topic: cosyedge/say
    text: "{{text}}"
"""


def test_warmed_phrase_plays_with_no_synthesis(broker, alsa_sink, make_daemon, tmp_path):
    daemon = make_daemon(site_config(broker.port, tmp_path / "cache"), start=False)
    warmed = cosyedge("warm", "--config", str(daemon.config))
    assert warmed.returncode == 0, warmed.stderr
    lines = warmed.stdout.splitlines()
    assert lines[0].startswith("[1/5] new: Door on line 1 is open.")
    assert lines[-1].startswith("warm: 5 phrases: 5 new, 0 already cached, 0 failed in ")

    daemon.start()
    daemon.wait_for_log(r"background warm: 5 phrases: 0 new, 5 already cached, 0 failed")
    publish(broker.port, "plant/2/door", json.dumps({"state": "closed", "id": "d-1"}))
    daemon.wait_for_log(r"spoke alert d-1 source=cache")
    (played,) = wait_until(lambda: alsa_sink.streams() or None, 5, "captured audio")
    assert daemon.stop() == 0
    assert "source=synth" not in daemon.log()

    # Piper's output varies run to run: equal samples can only come from the warmed file.
    cache = PhraseCache(tmp_path / "cache")
    rows = {row.text: row for row in cache.rows()}
    assert len(rows) == 5 and all(row.pinned for row in rows.values())
    with wave.open(str(cache.path(rows["Door on line 2 is closed."].key))) as w:
        lead = chime("medium", w.getframerate())  # the priority's chime, then the phrase
        assert np.array_equal(played[len(lead) :], np.frombuffer(w.readframes(-1), "<i2"))
    cache.close()

    stats = cosyedge("cache", "stats", "--config", str(daemon.config))
    assert stats.returncode == 0, stats.stderr
    assert "entries    5 (5 pinned)" in stats.stdout
    assert "hit rate   100.0% (1 hits of 1 lookups)" in stats.stdout


@pytest.mark.system
def test_export_import_round_trip_and_refusal_of_another_voice(tmp_path, capfd):
    """The commands in this process (as users run them: the test above's `warm` and `stats`)."""
    source = tmp_path / "source.yaml"
    source.write_text(site_config(1883, tmp_path / "rendered"))
    assert cosyedge_here(capfd, "warm", "--config", str(source)).returncode == 0
    archive = tmp_path / "fleet.tar"
    exported = cosyedge_here(capfd, "cache", "export", str(archive), "--config", str(source))
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.startswith("exported 5 entries")

    receiver = tmp_path / "receiver.yaml"
    receiver.write_text(site_config(1883, tmp_path / "received"))
    imported = cosyedge_here(capfd, "cache", "import", str(archive), "--config", str(receiver))
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == "imported 5 entries, 0 already cached"
    sent, got = PhraseCache(tmp_path / "rendered"), PhraseCache(tmp_path / "received")
    for row in sent.rows():
        assert np.array_equal(sent.get(row.key).pcm, got.get(row.key).pcm)
    assert cosyedge_here(
        capfd, "cache", "import", str(archive), "--config", str(receiver)
    ).stdout.strip() == ("imported 0 entries, 5 already cached")

    # An archive rendered with another voice model or settings is refused, entry by entry.
    other = PhraseCache(tmp_path / "other-voice")
    key = cache_key("Door on line 1 is open.", "f" * 64, "en")
    sound = np.ones(16000, np.int16)
    other.put(key, Clip(22050, sound), voice="f" * 64, lang="en", text="Door on line 1 is open.")
    foreign = tmp_path / "foreign.tar"
    export_cache(other, foreign)
    refused = cosyedge_here(capfd, "cache", "import", str(foreign), "--config", str(receiver))
    assert refused.returncode == 1
    assert refused.stdout.strip() == "imported 0 entries, 0 already cached"
    assert f"refused 1 entries made with voice {'f' * 12}: this gateway speaks with " in (
        refused.stderr
    )
    assert not got.contains(key)

    # A damaged archive member is caught by its checksum and not imported.
    damaged = tmp_path / "damaged.tar"
    data = bytearray(archive.read_bytes())
    data[data.index(b"RIFF") + 600] ^= 0xFF
    damaged.write_bytes(bytes(data))
    ours = {row.voice: "joe" for row in sent.rows()}
    done = import_cache(PhraseCache(tmp_path / "fresh"), damaged, ours)
    assert done.imported == 4 and len(done.damaged) == 1
    assert done.damaged[0].endswith("checksum differs from the manifest")
    with pytest.raises(ArchiveError, match="not a readable tar archive"):
        import_cache(PhraseCache(tmp_path / "fresh"), source, ours)  # a YAML file


def test_daemon_keeps_speaking_on_a_full_disk_and_caches_again_when_space_returns(
    broker, alsa_sink, make_daemon, tiny_fs
):
    daemon = make_daemon(site_config(broker.port, tiny_fs / "cache"), start=False)
    daemon.start()
    filler = tiny_fs / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        with contextlib.suppress(OSError):
            for _ in range(100):
                os.write(fd, bytes(65536))
    finally:
        os.close(fd)

    for n, text in enumerate(["Crane one is moving.", "Crane two is moving."], start=1):
        publish(broker.port, "cosyedge/say", json.dumps({"text": text, "id": f"full-{n}"}))
        daemon.wait_for_log(rf"spoke alert full-{n} source=synth")
    log = daemon.log()
    assert (
        len(
            re.findall(r"cosyedge.speech.cache: cannot write the phrase cache .*No space left", log)
        )
        == 1
    ), log
    # Both alerts spoken in full, and the fault `cache` said (see test_selfwatch.py).
    daemon.wait_for_log(r"spoke fault fault:cache source=ahead")
    # Both alerts and the fault heard in full. The fault may come first and cut the first
    # alert short (a short stream), which is then said again whole; should a cache write fit
    # in for a moment, the fault's end is said as well.
    wait_until(
        lambda: sum(len(x) > 22050 for x in alsa_sink.streams()) >= 3,
        10,
        f"three streams of speech over half a second: {[len(x) for x in alsa_sink.streams()]}",
    )

    filler.unlink()
    publish(broker.port, "cosyedge/say", json.dumps({"text": "Crane one is moving.", "id": "r"}))
    daemon.wait_for_log(r"spoke alert r source=synth")
    daemon.wait_for_log(r"phrase cache in .* is writable again")
    publish(broker.port, "cosyedge/say", json.dumps({"text": "Crane one is moving.", "id": "c"}))
    daemon.wait_for_log(r"spoke alert c source=cache")


@pytest.mark.system
@pytest.mark.skipif(os.geteuid() != 0, reason="runs the cache commands as root")
def test_cache_commands_run_as_root_leave_the_service_its_cache(tmp_path, request):
    """`sudo cosyedge warm`, `say` and `cache import` on a gateway: what they add to the
    service's cache belongs to the service user, not to root, or the daemon could not read it."""
    if (why := unrunnable_as_nobody()) is not None:  # the commands drop to the cache's owner
        pytest.skip(why)
    # Where its owner can reach it, as /var/cache is (pytest's own temporary tree is root's).
    reachable = Path(tempfile.mkdtemp(prefix="cosyedge-owned-"))
    reachable.chmod(0o755)
    request.addfinalizer(lambda: shutil.rmtree(reachable))
    cache = reachable / "cache"
    cache.mkdir(mode=0o700)
    os.chown(cache, 65534, 65534)  # the service user's: here nobody's
    config = tmp_path / "c.yaml"
    config.write_text(site_config(1883, cache) + f"state_dir: {tmp_path / 'state'}\n")
    assert cosyedge("warm", "--config", str(config)).returncode == 0
    said = cosyedge(
        "say", "Crane one is moving.", "--out", str(tmp_path / "x.wav"), "--config", str(config)
    )
    assert said.returncode == 0, said.stderr
    archive = tmp_path / "cache.tar"
    assert cosyedge("cache", "export", str(archive), "--config", str(config)).returncode == 0
    shutil.rmtree(cache)
    cache.mkdir(mode=0o700)
    os.chown(cache, 65534, 65534)
    imported = cosyedge("cache", "import", str(archive), "--config", str(config))
    assert imported.returncode == 0, imported.stderr
    files = list(cache.rglob("*"))
    assert len([f for f in files if f.suffix == ".wav"]) == 6  # 4 doors, evacuate, the crane
    assert {f.lstat().st_uid for f in files} == {65534}, [f for f in files if f.lstat().st_uid]
    assert (tmp_path / "x.wav").stat().st_uid == 0  # what root asked for elsewhere stays root's
