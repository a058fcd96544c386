"""A standby's takeover in one process (the harness of test_standby_rules.py): the phrase
said before the alerts taken over, flood summaries held while the primary lived told only as
far as they are still news, and a standby covering some of the primary's zones."""

from __future__ import annotations

import time

import pytest
from test_policy import offer, policy
from test_standby_rules import Standby, said_by_primary

from cosyedge.config import FloodConfig
from cosyedge.model import Delivery, ItemKind

PHRASE = "Standby annunciator in service."
DEFAULT_PHRASE = (
    "Alarm system fault: the primary gateway has failed. The standby gateway has taken over."
)


def made(tmp_path, standby: str = "", more: str = "", takeover_s: float = 0.6) -> Standby:
    return Standby(tmp_path, takeover_s, standby=standby, more=more)


def said(rig: Standby, timeout: float = 0.3) -> list[tuple[str, str]]:
    """(kind, key) of each item said until nothing comes within `timeout`."""
    out = []
    while (item := rig.take(timeout)) is not None:
        out.append((item.kind.value, item.key))
    return out


def events(rig: Standby, kind: str) -> list[dict]:
    return [e for e in rig.reports("standby/event") if e.get("event") == kind]


# -- the takeover's phrase ------------------------------------------------------------------
@pytest.mark.parametrize(("key", "text"), [("", DEFAULT_PHRASE), (PHRASE, PHRASE)])
def test_a_takeover_says_its_phrase_before_every_alert_taken_over_once_each_time(
    tmp_path, rigs, key, text
):
    """The phrase goes before the alerts taken over (received before the primary went, or
    after: at once), critical ones excepted, as they go before every fault; it is the fault
    `standby`, its saying reported; the primary back, its end is said, and the next takeover
    says it again."""
    phrase = f', takeover_phrase: "{key}"' if key else ""
    rigs.append(rig := made(tmp_path, phrase))
    rig.primary("cosyedge/status", {"state": "online"})
    rig.send("old", "high")
    rig.send("fire", "critical")
    time.sleep(0.7)  # past takeover_s: due at once at the takeover
    rig.offline()
    rig.send("new", "high")
    # A critical alert waits for no fault; the phrase, then the others taken over, once.
    assert said(rig) == [
        ("alert", "fire"),
        ("fault", "fault:standby"),
        ("alert", "old"),
        ("alert", "new"),
    ]
    (told,) = events(rig, "fault_announcement")
    assert (told["fault"], told["result"], told["text"]) == ("standby", "spoken", text)
    rig.primary("cosyedge/status", {"state": "online"})
    assert said(rig) == [("fault", "fault:standby:cleared")]
    rig.offline()
    rig.send("again", "high")
    assert said(rig) == [("fault", "fault:standby"), ("alert", "again")]


def test_an_empty_takeover_phrase_says_nothing_before_the_alerts(tmp_path, rigs):
    rigs.append(rig := made(tmp_path, ', takeover_phrase: ""'))
    rig.offline()
    rig.send("new", "low")
    assert said(rig) == [("alert", "new")]
    assert events(rig, "fault_announcement") == []


def test_the_phrase_cut_short_by_a_lost_device_is_said_again_before_the_alerts(tmp_path, rigs):
    rigs.append(rig := made(tmp_path, f', takeover_phrase: "{PHRASE}"'))
    rig.offline()
    rig.send("new", "high")
    item = rig.desk.take(0.2)
    assert item is not None and item.fault == "standby"
    rig.desk.finished(item, Delivery("unplayed", {"reason": "no device"}))
    assert said(rig) == [("fault", "fault:standby"), ("alert", "new")]


# -- what is of its moment ------------------------------------------------------------------
FLOOD = "alarms:\n  flood: {threshold: 3, window_s: 1.0, end_at: 0, summary_interval_s: 0}\n"
KEYS = [f"k-{n}" for n in range(5)]


def flood(rig: Standby, told: list[str]) -> None:
    """Five alerts (a flood from the fourth) while the primary lives, `told` by it as
    summarized; then the flood ends here (a window with none) and its end waits, held."""
    rig.primary("cosyedge/status", {"state": "online"})
    for key in KEYS:
        rig.send(key, "medium")
    for key in told:
        said_by_primary(rig, key, "summarized")
    assert rig.take(1.3) is None  # the window passes: the flood is over, held
    assert rig.desk.status()["flood"] is False


def test_a_flood_end_the_primary_had_time_to_say_is_not_said_at_a_takeover_after(tmp_path, rigs):
    rigs.append(rig := made(tmp_path, ', takeover_phrase: ""', FLOOD))
    flood(rig, KEYS)
    time.sleep(0.7)  # the flood over for longer than takeover_s while the primary lived
    rig.offline()
    assert said(rig) == []  # neither "5 new alarms" it summarized nor the stale end
    assert events(rig, "summary") == []


def test_a_flood_end_just_before_the_primary_went_is_said_counting_what_it_left(tmp_path, rigs):
    rigs.append(rig := made(tmp_path, ', takeover_phrase: ""', FLOOD))
    flood(rig, KEYS[:3])
    rig.offline()  # within takeover_s of the end
    item = rig.take()
    assert item is not None and item.kind is ItemKind.SUMMARY
    assert item.text.startswith("Alarm flood: 2 new alarms.")  # k-3 and k-4 alone
    assert item.text.endswith("The alarm flood is over.")
    outcomes = {r["id"]: r["outcome"] for r in rig.reports()}
    assert outcomes == {
        **dict.fromkeys(KEYS[:3], "covered"),
        **dict.fromkeys(KEYS[3:], "summarized"),
    }


def test_a_flood_end_not_yet_said_when_another_flood_begins_is_not_said():
    """Its end is no longer true: the next summary tells the new flood alone."""
    p = policy(flood=FloodConfig(threshold=2, window_s=10, end_at=0, summary_interval_s=0))
    for n in range(3):
        p.offer(offer(f"a{n}", at=0.0), 0.0)
    item, _ = p.take(0.0)
    assert item is not None and item.kind is ItemKind.SUMMARY
    p.finished(item, Delivery("spoken"), 1.0)
    p.tick(10.5)  # the window passed: the flood is over, its end queued
    for n in range(3):
        p.offer(offer(f"b{n}", at=11.0), 11.0)  # a flood again before the end was said
    item, _ = p.take(11.0)
    assert item is not None and item.kind is ItemKind.SUMMARY
    assert "over" not in item.text and item.text.startswith("Alarm flood: 3 new alarms.")


SLOW_FLOOD = "alarms:\n  flood: {threshold: 3, window_s: 60, end_at: 0, summary_interval_s: 30}\n"


def test_a_takeovers_first_summary_and_the_next_are_the_summary_interval_apart(tmp_path, rigs):
    """The flood the primary summarized, the primary gone, two new alarms: the first is said
    in a summary at once, the second, come while that one was said, waits the interval."""
    rigs.append(rig := made(tmp_path, ', takeover_phrase: ""', SLOW_FLOOD))
    rig.primary("cosyedge/status", {"state": "online"})
    for key in KEYS:
        rig.send(key, "medium")
        said_by_primary(rig, key, "summarized")
    rig.offline()
    rig.send("after-1", "medium")
    item = rig.desk.take(0.5)
    assert item is not None and item.kind is ItemKind.SUMMARY
    assert item.text.startswith("Alarm flood: 1 new alarm.")
    rig.send("after-2", "medium")  # while the summary is being said
    rig.desk.finished(item, Delivery("spoken"))
    assert said(rig, 0.5) == []  # the next summary is due 30 s after this one
    assert [e["ids"] for e in events(rig, "summary")] == [["after-1"]]
