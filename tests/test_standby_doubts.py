"""What a standby does not take from its primary's topics, in one process (the alert path of
test_standby_rules.py): an `offline` its own connection's loss follows (a broker stopping
publishes every Will first), a status of another run while the primary's run goes on, a
primary that stands by for it too, commands and retained events it could not have sent, and
the configurations that would make its own topics the primary's."""

from __future__ import annotations

import time

import pytest
from test_standby_rules import Standby

from cosyedge.alarms.standby import OFFLINE_GRACE_S

TAKEOVER_S = 0.6
BEAT = 0.1  # silent past TAKEOVER_S + 2 beats = 0.8 s
ONLINE = {"state": "online", "faults": {}, "beat_s": BEAT, "run": "r1"}


@pytest.fixture
def standby(tmp_path):
    made = Standby(tmp_path, takeover_s=TAKEOVER_S, standby=', takeover_phrase: ""')
    yield made
    made.journal.stop()


def fault(standby: Standby) -> str | None:
    standby.desk.tick()
    return standby.desk.standby_fault()


def ignored(standby: Standby) -> dict[str, int]:
    return standby.desk.status()["standby"].get("ignored", {})


def test_an_offline_our_connection_loss_follows_is_the_brokers_stop_not_the_primarys(standby):
    """A broker stopping publishes every client's Last Will, then closes the connections: the
    primary, alive, reconnects as we do; its offline is not acted on."""
    standby.primary("cosyedge/status", ONLINE)
    standby.send("A", "critical")
    time.sleep(TAKEOVER_S)
    standby.primary("cosyedge/status", {"state": "offline", "run": "r1"})
    assert fault(standby) is None and standby.take(0.05) is None  # within the grace
    standby.tap.lost()  # the broker closes our connection, as it stops
    time.sleep(OFFLINE_GRACE_S + 0.1)
    assert fault(standby) is None and standby.take(0.05) is None
    assert ignored(standby) == {"offline-at-close": 1}
    standby.tap.connected()  # the reconnect: its statuses decide
    standby.primary("cosyedge/status", ONLINE)
    assert fault(standby) is None and standby.take(0.3) is None


def test_an_offline_counts_once_our_connection_stayed_up_for_the_grace(standby):
    standby.primary("cosyedge/status", ONLINE)
    standby.send("A", "critical")
    time.sleep(TAKEOVER_S)
    went = time.time()
    standby.primary("cosyedge/status", {"state": "offline", "run": "r1"})
    time.sleep(OFFLINE_GRACE_S + 0.05)
    standby.tap.lost()  # after the grace: the primary's death stands
    assert str(fault(standby)).endswith("(its status is offline); speaking for it")
    assert abs(standby.desk.status()["standby"]["since"] - went) < 0.1  # since the offline
    took = standby.take()
    assert took is not None and took.key == "A"


def test_a_retained_offline_at_a_new_subscription_waits_takeover_s_for_the_primary(standby):
    """After a broker's restart it hands over the Will it kept as it stopped: the primary,
    alive, has `takeover_s` to reconnect and say its status again."""
    standby.send("A", "critical")
    standby.tap.claim("cosyedge/status", b'{"state": "offline", "run": "r1"}', retained=True)
    time.sleep(OFFLINE_GRACE_S + 0.05)
    assert fault(standby) is None
    standby.primary("cosyedge/status", ONLINE)  # reconnected
    time.sleep(TAKEOVER_S)
    standby.primary("cosyedge/status", ONLINE)
    assert fault(standby) is None and standby.take(0.05) is None
    standby.tap.connected()
    standby.tap.claim("cosyedge/status", b'{"state": "offline", "run": "r1"}', retained=True)
    time.sleep(TAKEOVER_S + 0.05)  # it did not come back: gone
    assert str(fault(standby)).endswith("(its status is offline); speaking for it")


def test_a_status_of_another_run_is_ignored_while_the_primarys_run_goes_on(standby):
    """Two forged statuses of a new run (`online`, then `offline`) do not end a primary that
    beats; nor does a second box publishing its own status on the primary's topic."""
    standby.primary("cosyedge/status", ONLINE)
    standby.send("A", "critical")
    standby.primary("cosyedge/status", {**ONLINE, "run": "forged"})
    standby.offline("forged")
    standby.primary("cosyedge/status", {**ONLINE, "run": "box-2", "state": "degraded"})
    standby.primary("cosyedge/status", ONLINE)  # the primary's beat
    assert fault(standby) is None and standby.take(0.05) is None
    assert ignored(standby) == {"another-run": 3}
    assert standby.desk.status()["standby"]["primary"] == "online"


def test_a_real_restart_ends_the_old_run_first_by_its_offline_or_its_silence(standby):
    standby.primary("cosyedge/status", ONLINE)
    standby.offline("r1")  # stopped (or killed: its Will)
    assert fault(standby) is not None
    standby.primary("cosyedge/status", {**ONLINE, "run": "r2", "state": "starting"})
    assert fault(standby) is None  # its new run
    time.sleep(TAKEOVER_S + 2 * BEAT + 0.05)  # r2 died with its Will lost: silent
    standby.send("B")  # the subscription works
    assert str(fault(standby)).startswith("primary silent since ")
    standby.primary("cosyedge/status", {**ONLINE, "run": "r3"})
    assert fault(standby) is None and ignored(standby) == {}


def test_the_first_status_of_a_new_subscription_names_the_run(standby):
    """The primary restarted while we were cut off: the broker's retained status of its new
    run, at our reconnect, is taken."""
    standby.primary("cosyedge/status", ONLINE)
    standby.tap.connected()
    standby.primary("cosyedge/status", {**ONLINE, "run": "r2"})
    standby.primary("cosyedge/status", {**ONLINE, "run": "r2"})
    assert ignored(standby) == {}


@pytest.mark.parametrize(("own", "speaks"), [("gw-a", True), ("gw-standby", False)])
def test_a_primary_that_stands_by_for_us_too_leaves_the_first_client_id_to_speak(
    tmp_path, own, speaks
):
    """Two gateways each the other's standby, without `mutual` on both: both would hold for
    good. The one whose client id sorts first speaks; both show the misconfiguration."""
    made = Standby(tmp_path, TAKEOVER_S, ', takeover_phrase: ""', own=own)
    try:
        standby_of_us = {"role": "standby", "primary": "online", "held": 0}
        made.primary("cosyedge/status", {**ONLINE, "standby": standby_of_us})
        made.send("A")
        took = made.take(0.1)
        assert (took is not None and took.key == "A") is speaks
        faults = made.tap.tick(time.monotonic())
        assert "stands by for this gateway" in str(faults["standby-loop"])
        first = "gw-a" if speaks else "gw-primary"
        assert f"{first} speaks meanwhile" in str(faults["standby-loop"])
        assert (faults["standby"] is not None) is speaks
        made.primary("cosyedge/status", ONLINE)  # the other fixed: a primary again
        assert made.tap.tick(time.monotonic())["standby-loop"] is None
    finally:
        made.journal.stop()


def test_the_gateway_speaking_in_a_loop_says_no_takeover_phrase(tmp_path):
    """In a loop no gateway failed: the one that speaks says its alerts without "the primary
    gateway has failed" (the fault `standby-loop` says what is wrong)."""
    made = Standby(tmp_path, TAKEOVER_S, own="gw-a")  # the default takeover phrase
    try:
        standby_of_us = {"role": "standby", "primary": "online", "held": 0}
        made.primary("cosyedge/status", {**ONLINE, "standby": standby_of_us})
        made.send("A")
        took = made.take(0.2)
        assert took is not None and (took.kind.value, took.key) == ("alert", "A")
        assert made.take(0.1) is None
    finally:
        made.journal.stop()


def test_commands_and_retained_events_the_primary_could_not_have_sent_are_counted(standby):
    standby.primary("cosyedge/status", ONLINE)
    assert standby.tap.claim("cosyedge/event", b'{"event": "command"}', retained=True)
    assert ignored(standby) == {"retained": 1}  # it publishes no event retained
    for stray in (b"garbage", b"[]", b""):  # no event of its: counted as the status's are
        assert standby.tap.claim("cosyedge/event", stray, retained=False)
    assert ignored(standby) == {"event": 3, "retained": 1}
    shelve = {"event": "command", "cmd": "shelve", "topic": "plant/1/alarm", "duration_s": 60}
    standby.offline("r1")
    standby.primary("cosyedge/event", {**shelve, "ids": []})  # its connection is gone
    assert standby.desk.board()["shelved"] == []
    assert ignored(standby) == {"command-offline": 1, "event": 3, "retained": 1}


@pytest.mark.parametrize("run", [None, "r-other"])
def test_reports_and_events_of_another_run_end_and_command_nothing(standby, run):
    """Another publisher on the primary's report and event topics (a gateway of another pair on
    the default topics, a test tool): its `spoken` does not cover our copy, its shelve does
    not shelve here; both are counted. The primary's own, naming its run, do."""
    standby.primary("cosyedge/status", ONLINE)
    stranger = {"run": run} if run else {}
    report = {"id": "A", "outcome": "spoken", "seq": 3, "end": time.time(), **stranger}
    standby.primary("cosyedge/report", report)
    shelve = {"event": "command", "cmd": "shelve", "topic": "#", "duration_s": 600, **stranger}
    standby.primary("cosyedge/event", shelve)
    assert ignored(standby) == {"report-another-run": 1, "command-another-run": 1}
    standby.offline("r1")
    time.sleep(TAKEOVER_S)
    standby.send("A")  # neither covered by the stranger's report nor shelved by its event
    took = standby.take(1.0)
    assert took is not None and (took.kind.value, took.key) == ("alert", "A")
    standby.primary("cosyedge/status", {**ONLINE, "run": "r2"})
    standby.send("B")
    standby.primary("cosyedge/report", {**report, "id": "B", "run": "r2"})
    assert standby.take(0.3) is None  # the primary's own report, of its run, covers


@pytest.mark.parametrize("state", [["online"], {"a": 1}, 3, None])
def test_a_status_whose_state_is_no_text_is_counted_not_raised(standby, state):
    standby.primary("cosyedge/status", {"state": state, "run": "r1"})
    assert ignored(standby) == {"status": 1}
