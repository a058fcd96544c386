"""A standby on bridged brokers: the primary on one real Mosquitto, the standby on another
bridged to it (Mosquitto's own bridge, with its notifications), each gateway playing on an
ALSA file sink of its own. While the bridge is up the primary says what is published on
either broker and the standby's copies end `covered`; with the primary's broker killed the
primary's status on the standby's broker still says `online`, and only the bridge's state
tells the standby to speak; the broker back, it holds again, and the primary, told of the
bridge's return, holds for the standby's report of what it said meanwhile."""

from __future__ import annotations

from support import AlsaSink, Broker, Listener, wait_until
from test_standby import PRIMARY, REPORTS, STANDBY, alert, gateway, outcomes

BRIDGE_ID = "gw-bridge"  # the bridge's client id at the primary's broker
LINK = f"$SYS/broker/connection/{BRIDGE_ID}/state"  # where the standby's broker tells its state
TAKEOVER_S = 1.5


def bridged(directory, to: Broker) -> Broker:
    """A broker bridged to `to`: every topic both ways, its state told on LINK (`1`, `0`)."""
    broker = Broker(directory)
    with broker.conf.open("a") as conf:
        conf.write(
            f"connection to-primary\naddress 127.0.0.1:{to.port}\nremote_clientid {BRIDGE_ID}\n"
            "topic # both 1\nnotifications true\nrestart_timeout 1 2\nkeepalive_interval 5\n"
        )
    return broker.start()


def test_with_the_primarys_broker_killed_the_bridges_state_makes_the_standby_speak(
    alsa_sink, make_daemon, tmp_path
):
    near = Broker(tmp_path / "primary-broker").start()
    far = bridged(tmp_path / "standby-broker", near)
    standby_sink = AlsaSink(tmp_path / "alsa-standby")
    try:
        heard = Listener(far.port, *REPORTS, "standby/status", LINK)
        heard.wait_for(LINK, lambda s: s[-1] == 1, 20, "the bridge up")
        primary = gateway(near.port, tmp_path / "p", PRIMARY)  # told of the bridge too
        reports_of = "  reports_of: standby/report\n"
        make_daemon(primary.replace(reports_of, f'{reports_of}  link_topic: "{LINK}"\n'))
        standby = gateway(far.port, tmp_path / "s", STANDBY, TAKEOVER_S)
        standby = standby.replace("  enabled: true\n", f'  enabled: true\n  link_topic: "{LINK}"\n')
        make_daemon(standby, env=standby_sink.env)
        alert(far.port, "b-1")  # across the bridge to the primary, its report back
        wait_until(lambda: "b-1" in outcomes(heard, "cosyedge/report", "spoken"), 60, "b-1")
        wait_until(lambda: "b-1" in outcomes(heard, "standby/report", "covered"), 20, "covered")
        near.kill()  # the primary's broker: the primary is cut off, its status stays `online`
        heard.wait_for(LINK, lambda s: s[-1] == 0, 30, "the bridge down")
        alert(far.port, "b-2")
        wait_until(lambda: "b-2" in outcomes(heard, "standby/report", "spoken"), 30, "b-2 said")
        said = outcomes(heard, "standby/report", "spoken")["b-2"]
        assert said["by"] == "standby", said
        status = heard.wait_for("standby/status", lambda s: s[-1]["state"] == "degraded", 10)
        assert status[-1]["standby"]["primary"] == "unreachable", status[-1]
        assert "bridge to its broker is down" in status[-1]["faults"]["standby"]
        assert len(standby_sink.files()) >= 1
        near.start()  # back, with its kept sessions: the primary reconnects, the standby holds
        heard.wait_for(LINK, lambda s: s[-1] == 1, 30, "the bridge up again")
        heard.wait_for("standby/status", lambda s: s[-1]["state"] == "online", 30)
        alert(far.port, "b-3")
        wait_until(lambda: "b-3" in outcomes(heard, "cosyedge/report", "spoken"), 60, "b-3")
        wait_until(lambda: "b-3" in outcomes(heard, "standby/report", "covered"), 20, "covered")
        assert "b-1" not in outcomes(heard, "standby/report", "spoken")
        # b-2, said by the standby, came to the primary as the bridge returned, ahead of the
        # standby's report of it: held for that report, it is covered, not said again.
        wait_until(lambda: "b-2" in outcomes(heard, "cosyedge/report", "covered"), 20, "b-2")
        assert "b-2" not in outcomes(heard, "cosyedge/report", "spoken")
        heard.close()
    finally:
        far.kill()
        near.kill()
