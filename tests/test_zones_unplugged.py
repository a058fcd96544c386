"""A zone's sound device fails in the middle of an announcement, in the real daemon: the hall's
sink is a file PCM on a 1 MiB tmpfs that fills up while the hall speaks (the write fails with
EIO, as a USB card pulled out does), while the yard speaks on its own sink. The hall's fault
is in the status, the yard is heard in full, every message ends in exactly one outcome, and
once the disk has room again the fault clears and the hall speaks again."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from support import REPO, Daemon, Listener, fill, publish, wait_until
from test_zones_daemon import two_zones

RATE = 24000  # the default English voice's
HALL = (
    "Attention in the hall. Conveyor four has stopped with a jammed pallet at the transfer "
    "station. Keep clear of the rollers until maintenance has locked out the drive."
)
YARD = (
    "Attention in the yard. Gate two is open and the barrier is up. A truck is waiting at "
    "the weighbridge for the security guard to check its papers."
)


def sinks(hall: Path, yard: Path) -> dict[str, str]:
    """ALSA PCMs `hall` and `yard`: a raw file per stream, each in its own directory."""
    pcms = "".join(
        f'pcm.{name} {{\n  type file\n  slave.pcm "null"\n  file "{where}/{name}.raw"\n'
        '  format "raw"\n  truncate false\n}\n'
        for name, where in (("hall", hall), ("yard", yard))
    )
    conf = yard / "asoundrc"
    conf.write_text(pcms)
    return {"ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{conf}"}


def streams(directory: Path, name: str) -> list[np.ndarray]:
    files = sorted(directory.glob(f"{name}.raw*"), key=lambda p: p.stat().st_mtime_ns)
    return [np.frombuffer(p.read_bytes(), dtype="<i2") for p in files]


def heard_s(directory: Path, name: str) -> float:
    return sum(p.stat().st_size for p in directory.glob(f"{name}.raw*")) / 2 / RATE


def test_a_zones_device_failing_mid_announcement_leaves_the_other_zone_speaking(
    broker, saved_models, tiny_fs, tmp_path
):
    yard_dir = tmp_path / "yard"
    yard_dir.mkdir()
    config = two_zones(broker.port, tmp_path)
    env = {**sinks(tiny_fs, yard_dir), "PYTHONPATH": str(REPO)}
    # Paced as a card takes audio, so that the hall is still speaking when its disk fills.
    daemon = Daemon(tmp_path / "d", config, env, models=saved_models, module="bench.paced_daemon")
    seen = Listener(broker.port, "cosyedge/report", "cosyedge/status")
    try:
        daemon.start()
        publish(broker.port, "plant/hall/alarm", json.dumps({"id": "h-1", "text": HALL}))
        wait_until(lambda: heard_s(tiny_fs, "hall") > 1.0, 60, "the hall speaking")
        publish(broker.port, "plant/yard/alarm", json.dumps({"id": "y-1", "text": YARD}))
        wait_until(lambda: heard_s(yard_dir, "yard") > 0.5, 60, "the yard speaking")
        filler = fill(tiny_fs)  # the hall's sink fails at its next write
        status = seen.wait_for(
            "cosyedge/status", lambda s: "audio:hall-amp" in s[-1].get("faults", {}), 30
        )[-1]
        # Said in every zone while the hall cannot play: heard in the yard, failed in the hall.
        publish(broker.port, "plant/all/alarm", json.dumps({"id": "a-1", "text": "Shift change."}))
        told = seen.wait_for(
            "cosyedge/report", lambda r: {"y-1", "a-1"} <= {x["id"] for x in r}, 90
        )
        assert not any(r["id"] == "h-1" for r in told), told  # kept, not given up
        hall_down = heard_s(tiny_fs, "hall")
        time.sleep(2)  # the hall tries again meanwhile, and fails
        filler.unlink()  # room again: the device is back
        # Cleared as the device takes the retry's first audio, not once that has been said.
        cleared = seen.wait_for(
            "cosyedge/status", lambda s: "audio:hall-amp" not in s[-1].get("faults", {}), 30
        )[-1]
        seen.wait_for("cosyedge/report", lambda r: any(x["id"] == "h-1" for x in r), 90)
        publish(broker.port, "plant/hall/alarm", json.dumps({"id": "h-2", "text": "Tea break."}))
        # The yard's alert again, from the phrase cache: the same samples as the first time.
        publish(broker.port, "plant/yard/alarm", json.dumps({"id": "y-2", "text": YARD}))
        done = seen.wait_for(
            "cosyedge/report", lambda r: {"h-2", "y-2"} <= {x["id"] for x in r}, 90
        )
    finally:
        seen.close()
        daemon.stop()
    by_id = {r["id"]: r for r in done}
    assert sorted(r["id"] for r in done) == ["a-1", "h-1", "h-2", "y-1", "y-2"], done  # one each
    assert status["state"] == "degraded" and set(status["zones"]) == {"hall", "yard"}
    # Why, as far as it is known: PortAudio tells ALSA's reason only on the thread that
    # started it, so what it gives the hall's thread is not shown as if it were one.
    why = status["faults"]["audio:hall-amp"]
    assert why.startswith("sound device unavailable (an ALSA error, whose reason"), why
    assert "host API not found" not in why
    assert cleared["state"] == "online" and cleared["zones"]["hall"]["speaking"] == "h-1", cleared
    for key in ("h-1", "h-2", "y-1", "y-2"):
        assert by_id[key]["outcome"] == "spoken", by_id[key]
    assert by_id["a-1"]["outcome"] == "spoken"
    assert by_id["a-1"]["zones"]["yard"]["outcome"] == "spoken"
    assert by_id["a-1"]["zones"]["hall"]["outcome"] == "failed"
    assert "its outputs cannot play" in by_id["a-1"]["zones"]["hall"]["reason"]
    # The yard spoke on while the hall failed: y-1 whole, the same as its replay from the cache.
    yard = streams(yard_dir, "yard")
    assert [r["zones"]["yard"]["source"] for r in (by_id["y-1"], by_id["y-2"])] == [
        "synth",
        "cache",
    ]
    assert len(yard) == 3, [len(s) for s in yard]  # y-1, a-1, y-2
    assert np.array_equal(yard[0], yard[2])
    # The hall: h-1 cut off (on the full disk), then h-1 in full and h-2 once it had room.
    hall = [s for s in streams(tiny_fs, "hall") if len(s)]
    assert len(hall) == 3, [len(s) for s in hall]
    assert 1.0 * RATE < len(hall[0]) <= hall_down * RATE
    assert len(hall[0]) < len(hall[1])
    assert np.array_equal(hall[0], hall[1][: len(hall[0])])  # the retry said it from the start
