"""A standby and a primary's status that no longer beats: one real daemon (the standby) on a
real Mosquitto with persistence, the primary played by the test. A primary that died while
the broker was down left no Last Will: the broker's persistence file gives back its last
retained `online`, which no beat follows. The standby speaks once the silence outlasts
`takeover_s` + 2 beats; a primary that beats again makes it hold again."""

from __future__ import annotations

import json
import threading
import time

from support import AlsaSink, Listener, publish, wait_until
from test_standby import STANDBY, alert, gateway, outcomes

TAKEOVER_S = 1.5
BEAT_S = 0.5  # the primary's, as its status tells it: silent past 1.5 + 2 x 0.5 = 2.5 s
ONLINE = json.dumps({"state": "online", "faults": {}, "beat_s": BEAT_S})


def beating(port: int, stop: threading.Event) -> threading.Thread:
    """The primary's beat: its retained `online` again every BEAT_S, until `stop`."""

    def beat() -> None:
        while not stop.is_set():
            publish(port, "cosyedge/status", ONLINE, retain=True)
            stop.wait(BEAT_S)

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    return thread


def test_a_stale_retained_online_after_a_broker_restart_is_not_a_primary_alive(
    broker, make_daemon, tmp_path
):
    standby_sink = AlsaSink(tmp_path / "alsa-standby")
    heard = Listener(broker.port, "standby/report", "standby/status", persistent=True)
    stop = threading.Event()
    beat = beating(broker.port, stop)
    make_daemon(gateway(broker.port, tmp_path / "s", STANDBY, TAKEOVER_S), env=standby_sink.env)
    heard.wait_for("standby/status", lambda s: s[-1]["state"] == "online", 60, "the standby up")
    alert(broker.port, "h-1")
    time.sleep(TAKEOVER_S + 2 * BEAT_S + 1.0)  # beating: held, however long
    assert "h-1" not in outcomes(heard, "standby/report", "spoken")
    # The primary dies as the broker goes down; the broker comes back with its `online`.
    stop.set()
    beat.join()
    broker.stop()  # Mosquitto saves the retained status as it stops
    broker.start()
    died = time.monotonic()
    wait_until(lambda: "h-1" in outcomes(heard, "standby/report", "spoken"), 60, "h-1 said")
    took = time.monotonic() - died
    status = heard.wait_for("standby/status", lambda s: s[-1]["state"] == "degraded", 10)[-1]
    assert status["standby"]["primary"] == "silent", status
    assert "no status from it for 2.5 s" in status["faults"]["standby"], status
    print(f"broker back to the standby's h-1 said: {took:.1f} s (silent past 2.5 s)")
    # The primary back, beating: the standby holds again.
    stop.clear()
    beat = beating(broker.port, stop)
    heard.wait_for("standby/status", lambda s: "standby" not in s[-1]["faults"], 30)
    alert(broker.port, "h-2")
    time.sleep(TAKEOVER_S + 2 * BEAT_S + 1.0)
    assert "h-2" not in outcomes(heard, "standby/report", "spoken")
    stop.set()
    beat.join()
    heard.close()
