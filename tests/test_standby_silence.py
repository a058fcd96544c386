"""A standby and a primary's status that no longer beats: one real daemon (the standby) on a
real Mosquitto with persistence, the primary played by the test. A primary that died while
the broker was down left no Last Will: the broker's persistence file gives back its last
retained `online`, which no beat follows. The standby speaks once the silence outlasts
`takeover_s` + 2 beats; a primary that beats again makes it hold again."""

from __future__ import annotations

import json
import threading
import time

import paho.mqtt.client as mqtt
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


class LivePrimary:
    """The primary's connection as a gateway's: its Last Will `offline` naming its run, its
    retained `online` at every connection and every BEAT_S, reconnecting as paho does."""

    def __init__(self, port: int) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, "gw-primary", False)
        will = json.dumps({"state": "offline", "run": "live"})
        self.client.will_set("cosyedge/status", will, qos=1, retain=True)
        self.client.reconnect_delay_set(1, 2)
        self.client.on_connect = lambda *_: self.beat()
        self.stop = threading.Event()
        self.client.connect("127.0.0.1", port, 30)
        self.client.loop_start()
        self.thread = threading.Thread(target=self._beating, daemon=True)
        self.thread.start()

    def beat(self) -> None:
        online = {"state": "online", "faults": {}, "beat_s": BEAT_S, "run": "live"}
        self.client.publish("cosyedge/status", json.dumps(online), qos=1, retain=True)

    def _beating(self) -> None:
        while not self.stop.wait(BEAT_S):
            self.beat()

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.client.loop_stop()


def test_a_broker_restarted_by_sigterm_with_the_primary_alive_is_no_takeover(
    broker, make_daemon, tmp_path
):
    """A broker stopping (SIGTERM: `systemctl restart mosquitto`) publishes every client's Last
    Will, the primary's `offline` among them, then closes the connections: the standby's own
    connection closes just after it, and it does not take over; after the restart the Will
    the broker kept is retained, and the primary, reconnecting, says its status again."""
    standby_sink = AlsaSink(tmp_path / "alsa-standby")
    heard = Listener(broker.port, "standby/report", "standby/status", persistent=True)
    primary = LivePrimary(broker.port)
    make_daemon(gateway(broker.port, tmp_path / "s", STANDBY, TAKEOVER_S), env=standby_sink.env)
    heard.wait_for("standby/status", lambda s: s[-1]["state"] == "online", 60, "the standby up")
    alert(broker.port, "r-1")
    time.sleep(TAKEOVER_S + 0.5)
    for _ in range(2):
        broker.process.terminate()  # SIGTERM: the Wills, then the connections closed
        broker.process.wait(timeout=10)
        broker.start()
        back = heard.on("standby/status")[-1:]
        heard.wait_for(
            "standby/status",
            lambda s, back=back: s[-1:] != back and s[-1]["state"] != "offline",
            30,
        )
        time.sleep(TAKEOVER_S + 2 * BEAT_S + 1.0)
    assert "r-1" not in outcomes(heard, "standby/report", "spoken")
    statuses = [s for s in heard.on("standby/status") if s["state"] != "offline"]
    assert all("standby" not in s["faults"] for s in statuses), statuses
    assert statuses[-1]["standby"]["ignored"].get("offline-at-close", 0) >= 1, statuses[-1]
    primary.close()
    heard.close()
