"""The MQTT session: two clients with one client id are told apart from a lost connection,
named, and back off. The pattern rules with an injected clock, then real clients on a real
Mosquitto."""

from __future__ import annotations

import logging
import time

import pytest
from support import publish, wait_until

from cosyedge.config import MqttConfig
from cosyedge.mqtt.kept import KeptFilters
from cosyedge.mqtt.session import TAKEOVER_DROPS, MqttSession, TakeoverWatch


def taken_over_times(watch: TakeoverWatch, start: float, every: float, count: int) -> list[bool]:
    """`count` cycles of: closed by the broker, taken back at once `every` seconds later."""
    detected = []
    now = start
    for _ in range(count):
        watch.lost(now, closed_by_broker=True)
        now += every
        detected.append(watch.connected(now))
    return detected


def test_closes_each_taken_back_at_once_are_a_takeover_named_by_client_id():
    watch = TakeoverWatch("gw-7", 1, 30)
    watch.connected(0.0)
    detected = taken_over_times(watch, 1.0, 2.0, TAKEOVER_DROPS + 2)
    assert detected == [False] * (TAKEOVER_DROPS - 1) + [True, False, False]  # said once
    assert watch.problem is not None
    assert watch.problem.startswith(
        "MQTT session taken over: another client keeps connecting with client id 'gw-7'"
    )
    assert "two gateways must not share a client id (mqtt.client_id)" in watch.problem


def test_the_reconnect_delay_doubles_while_taken_over_up_to_the_maximum():
    watch = TakeoverWatch("gw-7", 1, 30)
    watch.connected(0.0)
    taken_over_times(watch, 1.0, 1.0, TAKEOVER_DROPS)
    now, delays = 10.0, []
    for _ in range(7):
        delays.append(watch.lost(now, closed_by_broker=True))
        now += delays[-1]
        watch.connected(now)
    assert delays == [2, 4, 8, 16, 30, 30, 30]


def test_a_connection_held_long_enough_ends_the_episode_and_the_backoff():
    watch = TakeoverWatch("gw-7", 1, 30)
    watch.connected(0.0)
    taken_over_times(watch, 1.0, 1.0, TAKEOVER_DROPS)
    connected_at = 10.0
    watch.connected(connected_at)
    assert watch.current(connected_at + watch.calm_s - 1) is not None
    assert watch.current(connected_at + watch.calm_s) is None  # the status clears by itself
    # The other client had its chance to come back: a later close is an ordinary one.
    assert watch.lost(connected_at + watch.calm_s + 5, closed_by_broker=True) is None
    assert watch.problem is None


@pytest.mark.parametrize("case", ["broker restart", "our own disconnect", "spread out"])
def test_what_is_not_a_takeover(case):
    watch = TakeoverWatch("gw-7", 1, 30)
    now = 0.0
    watch.connected(now)
    for _ in range(TAKEOVER_DROPS + 2):
        now += 1 if case != "spread out" else watch.window_s / (TAKEOVER_DROPS - 1) + 1
        watch.lost(now, closed_by_broker=case != "our own disconnect")
        if case == "broker restart":  # the first attempts fail while it is down
            watch.connect_failed()
        now += 1
        assert not watch.connected(now)
    assert watch.problem is None and watch.current(now) is None


# -- real clients on a real Mosquitto -------------------------------------------------------


class Gateway:
    """One MqttSession as the daemon builds it, recording its connections."""

    def __init__(self, config: MqttConfig) -> None:
        self.connections: list[float] = []
        self.intake = MqttSession(
            config,
            ["plant/#"],
            lambda topic, payload, ack, retained: ack(),
            on_connected=lambda: self.connections.append(time.monotonic()),
        )

    def since(self, moment: float) -> int:
        return sum(1 for t in self.connections if t >= moment)


def test_two_clients_with_one_client_id_are_told_named_and_back_off(broker, caplog):
    caplog.set_level(logging.INFO, logger="cosyedge")
    config = MqttConfig(
        port=broker.port, client_id="gw-shared", local_broker=False, reconnect_max_s=3
    )
    a, b = Gateway(config), Gateway(config)
    a.intake.start()
    try:
        wait_until(a.intake.subscribed.is_set, 10, "the first gateway subscribed")
        b.intake.start()
        # Without backoff the two take the session from each other about once a second.
        seen = lambda: a.intake.problem and b.intake.problem  # noqa: E731
        wait_until(seen, 30, "both gateways to see the takeover")
        detected = time.monotonic()
        time.sleep(12)
        flips = a.since(detected) + b.since(detected)
        assert flips <= 6, f"{flips} connections in 12 s after the takeover was seen"
        said = [r for r in caplog.records if "MQTT session taken over" in r.getMessage()]
        assert [r.levelname for r in said] == ["ERROR", "ERROR"]  # once each per episode
        named = "another client keeps connecting with client id 'gw-shared'"
        assert all(named in r.getMessage() for r in said)
        assert "mqtt.client_id" in said[0].getMessage()

        b.intake.stop()  # the other gateway goes away: the session is ours again
        calm = TakeoverWatch("gw-shared", 1, 3).calm_s
        wait_until(lambda: a.intake.connected, 10, "the first gateway back")
        wait_until(lambda: a.intake.problem is None, calm + 10, "the problem to clear")
        assert a.intake.connected
    finally:
        a.intake.stop()
        b.intake.stop()


def heard_after_a_restart(port: int, kept: KeptFilters | None) -> list[str]:
    """The topics a session resumed with one filter fewer hears, of a message published on
    the dropped filter's topic and then one on the kept filter's."""
    config = MqttConfig(port=port, client_id="gw-kept", local_broker=False)
    heard: list[str] = []

    def take(topic: str, payload: bytes, ack, retained: bool) -> None:
        heard.append(topic)
        ack()

    before = MqttSession(config, ["old/command", "plant/alarm"], take, kept=kept)
    before.start()
    wait_until(before.subscribed.is_set, 10, "the first start subscribed")
    before.stop()
    after = MqttSession(config, ["plant/alarm"], take, kept=kept)
    after.start()
    try:
        wait_until(after.subscribed.is_set, 10, "the restart subscribed")
        publish(port, "old/command", b"{}")
        publish(port, "plant/alarm", b"{}")
        wait_until(lambda: "plant/alarm" in heard, 10, "the kept filter's message")
        return heard
    finally:
        after.stop()


@pytest.mark.parametrize("noted", [True, False])
def test_a_resumed_session_drops_the_filters_an_earlier_start_subscribed(broker, tmp_path, noted):
    """The broker keeps a persistent session's subscriptions across a restart: a filter the
    new configuration no longer has (a changed command topic) would go on delivering. With
    the filters noted in the state directory they are unsubscribed at the reconnect; without
    (the control), the broker still delivers them."""
    kept = KeptFilters(tmp_path / "subscriptions.json") if noted else None
    heard = heard_after_a_restart(broker.port, kept)
    assert heard == (["plant/alarm"] if noted else ["old/command", "plant/alarm"])


def test_a_record_of_another_client_id_or_unreadable_is_none(tmp_path):
    kept = KeptFilters(tmp_path / "subscriptions.json")
    kept.keep("gw-a", ["a/#"])
    assert kept.earlier("gw-a") == ["a/#"] and kept.earlier("gw-b") == []
    for text in ("[", "[1]", '{"client_id": "gw-a", "filters": "a/#"}'):
        kept.path.write_text(text)
        assert kept.earlier("gw-a") == []
