"""`cosyedge warm` and `cosyedge cache …` as users run them; the daemon playing warmed audio."""

from __future__ import annotations

import json
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
from support import publish, wait_until

from cosyedge.cache import Clip, PhraseCache, cache_key
from cosyedge.cache.transfer import export_cache


def cosyedge(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cosyedge", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


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
        assert np.array_equal(played, np.frombuffer(w.readframes(w.getnframes()), "<i2"))
    cache.close()

    stats = cosyedge("cache", "stats", "--config", str(daemon.config))
    assert stats.returncode == 0, stats.stderr
    assert "entries    5 (5 pinned)" in stats.stdout
    assert "hit rate   100.0% (1 hits of 1 lookups)" in stats.stdout


def test_export_import_round_trip_and_refusal_of_another_voice(tmp_path):
    source = tmp_path / "source.yaml"
    source.write_text(site_config(1883, tmp_path / "rendered"))
    assert cosyedge("warm", "--config", str(source)).returncode == 0
    archive = tmp_path / "fleet.tar"
    exported = cosyedge("cache", "export", str(archive), "--config", str(source))
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.startswith("exported 5 entries")

    receiver = tmp_path / "receiver.yaml"
    receiver.write_text(site_config(1883, tmp_path / "received"))
    imported = cosyedge("cache", "import", str(archive), "--config", str(receiver))
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == "imported 5 entries, 0 already cached"
    sent, got = PhraseCache(tmp_path / "rendered"), PhraseCache(tmp_path / "received")
    for row in sent.rows():
        assert np.array_equal(sent.get(row.key).pcm, got.get(row.key).pcm)
    assert cosyedge("cache", "import", str(archive), "--config", str(receiver)).stdout.strip() == (
        "imported 0 entries, 5 already cached"
    )

    # An archive rendered with another voice model or settings is refused, entry by entry.
    other = PhraseCache(tmp_path / "other-voice")
    key = cache_key("Door on line 1 is open.", "f" * 64, "en")
    sound = np.ones(16000, np.int16)
    other.put(key, Clip(22050, sound), voice="f" * 64, lang="en", text="Door on line 1 is open.")
    foreign = tmp_path / "foreign.tar"
    export_cache(other, foreign)
    refused = cosyedge("cache", "import", str(foreign), "--config", str(receiver))
    assert refused.returncode == 1
    assert refused.stdout.strip() == "imported 0 entries, 0 already cached"
    assert f"refused 1 entries made with voice {'f' * 12}: this gateway speaks with " in (
        refused.stderr
    )
    assert not got.contains(key)

    # A damaged archive member is caught by its checksum and not imported.
    damaged = tmp_path / "damaged.tar"
    data = bytearray(archive.read_bytes())
    first_entry = data.index(b"RIFF")
    data[first_entry + 600] ^= 0xFF
    damaged.write_bytes(bytes(data))
    fresh = tmp_path / "fresh.yaml"
    fresh.write_text(site_config(1883, tmp_path / "fresh"))
    partial = cosyedge("cache", "import", str(damaged), "--config", str(fresh))
    assert partial.returncode == 1
    assert partial.stdout.strip() == "imported 4 entries, 0 already cached"
    assert "checksum differs from the manifest" in partial.stderr

    not_tar = tmp_path / "notes.txt"
    not_tar.write_text("hello")
    bad = cosyedge("cache", "import", str(not_tar), "--config", str(fresh))
    assert bad.returncode == 2 and "not a readable tar archive" in bad.stderr
