"""The alarm rules alone, with time passed in: fast and exact."""

from __future__ import annotations

import gc
import json
import random
import re
import weakref
from collections import Counter
from dataclasses import replace

import pytest

from cosyedge.alarms.policy import AlarmPolicy
from cosyedge.config import AlarmsConfig, FloodConfig
from cosyedge.intake.commands import parse_command
from cosyedge.model import (
    Alert,
    Announcement,
    BadCommand,
    Command,
    Delivery,
    Event,
    Offer,
    Outcome,
    Ticket,
    Timing,
)

_seq = iter(range(1, 10**9))


def offer(
    key: str | None = None,
    priority: str = "medium",
    at: float = 0.0,
    topic: str = "plant/1/temp",
    clear: bool = False,
    lang: str = "en",
    **timing: float,
) -> Offer:
    seq = next(_seq)
    key = key or f"a{seq}"
    alert = Alert(topic, {}, key, priority)
    text = f"{priority} alarm {key}"
    announcement = None if clear else Announcement(text, lang, priority, alert)
    return Offer(Ticket(seq, topic, 1e9 + at), key, at, Timing(**timing), announcement)


def outcomes(effects) -> list[tuple[str, str]]:
    return [(e.kind, e.detail["id"]) for e in effects if isinstance(e, Outcome)]


def events(effects) -> list[str]:
    return [e.kind for e in effects if isinstance(e, Event)]


def speak_next(policy: AlarmPolicy, now: float, kind: str = "spoken"):
    item, effects = policy.take(now)
    assert item is not None
    return item, effects + policy.finished(item, Delivery(kind), now)


def policy(**config) -> AlarmPolicy:
    return AlarmPolicy(AlarmsConfig(**config))


def test_most_urgent_first_then_first_come():
    p = policy()
    low, high1, crit, high2 = (
        offer(priority="low"),
        offer(priority="high"),
        offer(priority="critical"),
        offer(priority="high"),
    )
    for o in (low, high1, crit, high2):
        assert p.offer(o, 0) == []
    order = [speak_next(p, 1)[0].key for _ in range(4)]
    assert order == [crit.key, high1.key, high2.key, low.key]


def test_same_id_within_window_is_spoken_once():
    p = policy(dedup_window_s=60)
    first = offer("boiler-1")
    assert p.offer(first, 0) == []
    assert outcomes(p.offer(offer("boiler-1", at=5), 5)) == [("deduplicated", "boiler-1")]
    assert p.offer(offer("boiler-1", at=61), 61) == []  # a new occurrence after the window


def test_higher_priority_preempts_and_interrupted_one_is_replayed_from_start():
    p = policy()
    low = offer(priority="low")
    p.offer(low, 0)
    item, _ = p.take(0)
    assert not p.should_stop(item)
    p.offer(offer(priority="medium"), 1)
    assert p.should_stop(item)
    assert p.finished(item, Delivery("stopped"), 1) == []  # no outcome: it will be said again
    medium, _ = speak_next(p, 1)
    assert medium.priority == "medium"
    again, effects = speak_next(p, 2)
    assert again is item and again.text == item.text
    assert outcomes(effects) == [("spoken", low.key)]


def test_equal_priority_does_not_preempt():
    p = policy()
    p.offer(offer(priority="high"), 0)
    item, _ = p.take(0)
    p.offer(offer(priority="high"), 0)
    assert not p.should_stop(item)


def test_interrupted_alert_that_expired_is_not_replayed():
    p = policy()
    low = offer(priority="low", ttl_s=5)
    p.offer(low, 0)
    item, _ = p.take(0)
    p.offer(offer(priority="critical"), 4)
    assert outcomes(p.finished(item, Delivery("stopped"), 6)) == [("expired", low.key)]


def test_ttl_expires_waiting_alerts_on_the_clock():
    p = policy()
    stale = offer(ttl_s=2)
    p.offer(stale, 0)
    assert p.tick(1) == []
    assert outcomes(p.tick(2.5)) == [("expired", stale.key)]
    assert p.take(3) == (None, [])
    late = offer(ttl_s=1, at=0)
    assert outcomes(p.offer(late, 5)) == [("expired", late.key)]  # stale on arrival


def test_on_delay_holds_and_a_clear_within_it_cancels():
    p = policy()
    held = offer(on_delay_s=3, topic="plant/2/level")
    assert p.offer(held, 0) == []
    assert p.tick(1) == [] and p.take(1) == (None, [])
    effects = p.offer(offer(clear=True, topic="plant/2/level", at=2), 2)
    assert ("cleared", held.key) in outcomes(effects)
    assert any(e.kind == "return_to_normal" for e in effects if isinstance(e, Outcome))
    persisting = offer(on_delay_s=3, topic="plant/2/level", at=5)
    p.offer(persisting, 5)
    p.tick(7.9)
    assert p.take(7.9) == (None, [])
    p.tick(8)
    item, _ = p.take(8)
    assert item.key == persisting.key


def test_off_delay_treats_a_quick_return_as_the_same_alarm():
    p = policy()
    first = offer(topic="plant/3/door", reannounce_s=10)
    p.offer(first, 0)
    speak_next(p, 0)
    p.offer(offer(clear=True, topic="plant/3/door", off_delay_s=5, at=1), 1)
    back = offer(topic="plant/3/door", at=3)
    effects = p.offer(back, 3)
    assert outcomes(effects) == [("deduplicated", back.key)]
    p.tick(10)  # the clear was cancelled: the first alarm is still re-announced
    item, _ = p.take(10)
    assert item.kind == "reannounce" and item.key == first.key
    p.finished(item, Delivery("spoken"), 10)
    # a clear that holds for its off-delay ends the alarm
    p.offer(offer(clear=True, topic="plant/3/door", off_delay_s=5, at=11), 11)
    assert "cleared" in events(p.tick(16))
    assert p.tick(40) == [] and p.take(40) == (None, [])


def test_clear_without_off_delay_withdraws_unspoken_alerts_of_its_topic():
    p = policy()
    a, b = offer(topic="plant/4/gas"), offer(topic="plant/5/gas")
    p.offer(a, 0)
    p.offer(b, 0)
    effects = p.offer(offer(clear=True, topic="plant/4/gas", at=1), 1)
    assert ("cleared", a.key) in outcomes(effects)
    assert speak_next(p, 1)[0].key == b.key


def test_flood_summarizes_speaks_criticals_and_announces_its_end():
    p = policy(flood=FloodConfig(threshold=3, window_s=10, end_at=1, summary_interval_s=5))
    mediums = [offer(priority="medium", at=i * 0.1) for i in range(5)]
    critical = offer(priority="critical", at=0.6)
    effects = []
    for o in mediums[:3]:
        effects += p.offer(o, o.at)
    assert effects == []
    effects += p.offer(mediums[3], 0.3)
    assert events(effects) == ["flood_started"]
    effects += p.offer(mediums[4], 0.4) + p.offer(critical, 0.6)
    first, more = speak_next(p, 1)
    assert first.key == critical.key
    summary, more2 = speak_next(p, 2)
    assert summary.kind == "summary"
    assert summary.text == (
        f"Alarm flood: 6 new alarms, 1 critical. Highest: critical alarm {critical.key}."
    )
    settled = Counter(outcomes(effects + more + more2))
    assert settled == Counter([("spoken", critical.key)] + [("summarized", o.key) for o in mediums])
    # Alarms during the flood wait for the next summary, not before its interval.
    late = offer(priority="low", at=3)
    p.offer(late, 3)
    assert p.take(3) == (None, [])
    p.tick(7.1)
    summary2, _ = speak_next(p, 7.1)
    assert summary2.text.startswith("Alarm flood: 1 new alarm.")
    ended = p.tick(11)
    assert events(ended) == ["flood_ended"]
    final, _ = speak_next(p, 11)
    assert final.text == "The alarm flood is over."
    assert not p.flood.active


def test_a_flood_keeps_no_alarm_told_though_its_summary_was_not_heard():
    """A summary that fails leaves its alarms to be counted by the next one, which must not
    keep the alarms themselves (message, fields): a flood while no summary can be said
    held every alarm of it after its outcome was told, about 3 KB each."""
    p = policy(flood=FloodConfig(threshold=2, window_s=10, end_at=0, summary_interval_s=5))
    floods = [offer(priority="medium", at=i * 0.01) for i in range(50)]
    for o in floods:
        p.offer(o, o.at)
    summary, effects = speak_next(p, 1, "failed")
    assert Counter(kind for kind, _ in outcomes(effects)) == {"failed": 50}
    kept = [weakref.ref(o) for o in floods]
    del floods, summary, effects, o
    gc.collect()
    assert [r for r in kept if r() is not None] == []
    p.offer(offer(priority="high", at=6), 6)  # the next summary counts them all the same
    again, _ = speak_next(p, 6)
    assert again.text.startswith("Alarm flood: 51 new alarms. Highest: high alarm ")


def test_a_flood_of_mandarin_alarms_is_summarized_in_mandarin():
    p = policy(flood=FloodConfig(threshold=2, window_s=10, end_at=0, summary_interval_s=5))
    zh = [offer(priority="high", at=i * 0.1, lang="zh") for i in range(3)]
    en = offer(priority="low", at=0.3)
    for o in [*zh, en]:
        p.offer(o, o.at)
    summary, _ = speak_next(p, 1)
    assert summary.lang == "zh"
    assert summary.text == f"报警泛滥：4条新报警。最高：high alarm {zh[0].key}。"  # noqa: RUF001
    p.tick(11)
    final, _ = speak_next(p, 11)
    assert (final.lang, final.text) == ("zh", "报警泛滥已结束。")


def test_ack_stops_reannouncement():
    p = policy()
    alarm = offer("gas-1", priority="critical", reannounce_s=10)
    p.offer(alarm, 0)
    speak_next(p, 0)
    assert p.take(5)[0] is None
    p.tick(10)
    item, effects = speak_next(p, 10)
    assert item.kind == "reannounce" and "reannounced" in events(effects)
    effects = p.command(Command("ack", id="gas-1"), 12)
    assert events(effects) == ["command"] and effects[-1].detail["ids"] == ["gas-1"]
    p.tick(25)
    assert p.take(25) == (None, [])


def test_ack_cuts_the_alert_being_spoken():
    p = policy()
    a = offer("belt-2", priority="high", reannounce_s=5)
    p.offer(a, 0)
    item, _ = p.take(0)
    p.command(Command("ack", id="belt-2"), 1)
    assert p.should_stop(item)
    assert outcomes(p.finished(item, Delivery("stopped"), 1)) == [("acknowledged", "belt-2")]
    p.tick(10)
    assert p.take(10) == (None, [])  # and it is not re-announced


def test_ack_of_an_unspoken_alert_settles_it():
    p = policy()
    a = offer("door-7", priority="low")
    p.offer(a, 0)
    effects = p.command(parse_command(b'{"cmd":"ack","topic":"plant/#"}'), 1)
    assert outcomes(effects) == [("acknowledged", "door-7")]


def test_shelve_is_capped_mutes_its_source_and_ends():
    p = policy(max_shelve_s=60)
    queued = offer(topic="plant/6/motor")
    p.offer(queued, 0)
    effects = p.command(Command("shelve", topic="plant/6/+", duration_s=1000), 1)
    assert outcomes(effects) == [("shelved", queued.key)]
    assert effects[-1].detail["duration_s"] == 60
    muted = offer(topic="plant/6/motor", at=30)
    assert outcomes(p.offer(muted, 30)) == [("shelved", muted.key)]
    assert p.offer(offer(topic="plant/7/motor", at=30), 30) == []  # other sources speak
    assert events(p.tick(61)) == ["unshelved"]
    assert p.offer(offer(topic="plant/6/motor", at=62), 62) == []


def test_shelve_by_unknown_id_is_refused():
    with pytest.raises(BadCommand, match="no recent alert with id 'nope'"):
        policy().command(Command("shelve", id="nope"), 0)


def test_silence_stops_the_phrase_and_reannouncement_without_ack():
    p = policy()
    a = offer("fire-1", priority="critical", reannounce_s=5)
    p.offer(a, 0)
    speak_next(p, 0)
    p.tick(5)
    item, _ = p.take(5)
    p.command(Command("silence"), 6)
    assert p.should_stop(item)
    assert events(p.finished(item, Delivery("stopped"), 6)) == ["reannouncement_silenced"]
    p.tick(20)
    assert p.take(20) == (None, [])
    assert p.status()["unacknowledged"] == 1


@pytest.mark.parametrize(
    "payload, reason",
    [
        (b"ack", "not a JSON object"),
        (b'{"cmd":"reset"}', "cmd: expected one of"),
        (b'{"cmd":"ack"}', "ack: needs an id or a topic"),
        (
            b'{"cmd":"shelve","topic":"a","duration_s":-1}',
            "duration_s: expected seconds, at least 1",
        ),
    ],
)
def test_bad_commands_say_why(payload, reason):
    with pytest.raises(BadCommand, match=reason):
        parse_command(payload)


@pytest.mark.parametrize(
    "payload, reason",
    [
        (b'{"cmd":"ack","id":' + b"7" * 5000 + b"}", "a number with more than 4300 digits"),
        (
            b'{"cmd":"shelve","topic":"a","duration_s":' + b"9" * 400 + b"}",
            "expected seconds, at least 1",
        ),
        (b'{"cmd":"shelve","topic":"a","duration_s":Infinity}', "expected seconds, at least 1"),
        (b'{"cmd":"shelve","topic":"a","duration_s":NaN}', "expected seconds, at least 1"),
    ],
)
def test_poison_numbers_in_commands_are_refused_with_a_reason(payload, reason):
    with pytest.raises(BadCommand, match=reason):
        parse_command(payload)


def test_a_command_names_an_id_the_way_the_alert_named_it():
    from cosyedge.intake.alert import parse_alert

    for given in ("Pump\u200b7", "line-3/" * 40):
        alert = parse_alert("t", f'{{"id": "{given}"}}'.encode())
        command = parse_command(f'{{"cmd": "ack", "id": "{given}"}}'.encode())
        assert command.id == alert.id
    assert parse_command(b'{"cmd": "ack", "id": "Pump\\u200b7"}').id == "Pump7"


def test_every_outcome_of_an_alert_carries_its_notes():
    p = policy()
    noted = offer("n1")
    announcement = replace(noted.announcement, notes=("priority: unknown value 'x', used medium",))
    noted = replace(noted, announcement=announcement)
    p.offer(noted, 0)
    _, effects = speak_next(p, 1)
    (spoken,) = [e for e in effects if isinstance(e, Outcome)]
    assert spoken.kind == "spoken"
    assert spoken.detail["notes"] == ["priority: unknown value 'x', used medium"]
    duplicate = p.offer(replace(noted, ticket=Ticket(next(_seq), "plant/1/temp", 1e9)), 2)
    assert [(o.kind, o.detail["notes"]) for o in duplicate] == [
        ("deduplicated", ["priority: unknown value 'x', used medium"])
    ]
    p.offer(offer("n2"), 3)
    _, effects = speak_next(p, 3)
    assert effects[-1].kind == "spoken" and "notes" not in effects[-1].detail


def test_every_offer_gets_exactly_one_outcome_whatever_happens():
    """A random mix of arrivals, duplicates, clears, commands and interruptions."""
    rng = random.Random(7)
    p = policy(
        dedup_window_s=5,
        max_shelve_s=3,
        flood=FloodConfig(threshold=6, window_s=4, end_at=2, summary_interval_s=1),
    )
    offered: list[Offer] = []
    effects: list = []
    playing = None
    topics = [f"plant/{i}/x" for i in range(5)]
    for step in range(3000):
        now = step * 0.05
        roll = rng.random()
        if roll < 0.25:
            o = offer(
                key=rng.choice([None, None, f"k{rng.randrange(30)}"]),
                priority=rng.choice(["critical", "high", "medium", "low"]),
                topic=rng.choice(topics),
                clear=rng.random() < 0.1,
                at=now,
                ttl_s=rng.choice([0, 0.5, 3]),
                on_delay_s=rng.choice([0, 0, 0.3]),
                off_delay_s=rng.choice([0, 0.4]),
                reannounce_s=rng.choice([0, 0, 1]),
            )
            offered.append(o)
            effects += p.offer(o, now)
        elif roll < 0.30:
            cmd = rng.choice(["ack", "silence", "shelve", "unshelve"])
            effects += p.command(Command(cmd, topic=rng.choice(topics)), now)
        elif roll < 0.55:
            effects += p.tick(now)
        elif playing is None:
            playing, more = p.take(now)
            effects += more
        else:
            kind = "spoken"
            if p.should_stop(playing) or rng.random() < 0.2:
                kind = rng.choice(["stopped", "unplayed", "failed"])
            effects += p.finished(playing, Delivery(kind), now)
            playing = None
    if playing is not None:
        effects += p.finished(playing, Delivery("spoken"), now)
    for _ in range(200):  # let everything run out
        now += 1
        effects += p.tick(now)
        while True:
            item, more = p.take(now)
            effects += more
            if item is None:
                break
            effects += p.finished(item, Delivery("spoken"), now)
    per_seq = Counter(e.ticket.seq for e in effects if isinstance(e, Outcome))
    assert sorted(per_seq) == sorted(o.ticket.seq for o in offered)
    assert set(per_seq.values()) == {1}
    kinds = Counter(e.kind for e in effects if isinstance(e, Outcome))
    assert {"spoken", "summarized", "deduplicated", "expired", "shelved"} <= set(kinds), kinds


# -- the alarm system's own faults ----------------------------------------------------------


def test_a_fault_is_said_again_until_acknowledged_and_its_end_said_once():
    p = policy()
    p.fault("intake", "Alarm system fault: no alerts from the broker.", "en", every_s=10)
    item, effects = speak_next(p, 0.0)
    assert (item.kind, item.key, item.priority) == ("fault", "fault:intake", "high")
    assert events(effects) == ["fault_announcement"]
    assert p.take(5.0)[0] is None  # not before its interval
    p.tick(10.0)
    again, _ = speak_next(p, 10.0)
    assert again.key == "fault:intake"
    ack = p.command(Command("ack", id="fault:intake"), 11.0)
    assert ack[-1].detail["ids"] == ["fault:intake"]
    p.tick(30.0)
    assert p.take(30.0)[0] is None  # acknowledged: not said again while it lasts
    p.fault_cleared("intake", "Alarm system fault cleared.", "en")
    cleared, _ = speak_next(p, 31.0)
    assert (cleared.text, cleared.priority) == ("Alarm system fault cleared.", "low")
    p.tick(100.0)
    assert p.take(100.0)[0] is None


def test_a_critical_alert_cuts_into_a_fault_which_is_said_again_after_it():
    p = policy()
    p.fault("journal", "Alarm system fault: alerts cannot be saved.", "en", every_s=0)
    item, _ = p.take(0.0)
    p.offer(offer(priority="critical"), 0.1)
    assert p.should_stop(item)
    p.finished(item, Delivery("stopped"), 0.2)
    first, _ = speak_next(p, 0.3)
    assert first.priority == "critical"
    second, _ = speak_next(p, 0.4)
    assert second.key == "fault:journal"
    p.tick(1000.0)
    assert p.take(1000.0)[0] is None  # every_s 0: said once


def test_a_fault_that_clears_before_it_is_said_is_not_said():
    p = policy()
    p.offer(offer(priority="medium"), 0.0)
    p.fault("reports", "Alarm system fault: reports cannot be sent.", "en", every_s=10)
    p.fault_cleared("reports", None, "en")
    item, _ = speak_next(p, 0.1)
    assert item.kind == "alert"
    assert p.take(0.2)[0] is None


# -- returned to normal unacknowledged, confirm, who and why --------------------------------
def test_a_standing_alarm_that_returns_to_normal_waits_for_confirm_not_said_again():
    p = policy()
    p.offer(offer("gas-1", priority="critical", reannounce_s=10), 0)
    speak_next(p, 0)
    effects = p.offer(offer(clear=True, at=5), 5)
    assert tuple(e.kind for e in effects if isinstance(e, Event)) == ("cleared",)
    assert p.status()["unacknowledged"] == 1 and p.status()["cleared_unacknowledged"] == 1
    p.tick(30)
    assert p.take(30) == (None, [])  # over: not re-announced as if it still were
    still = p.command(Command("confirm", topic="plant/2/#"), 31)  # names nothing cleared
    assert still[-1].detail["ids"] == [] and p.status()["unacknowledged"] == 1
    done = p.command(Command("confirm", id="gas-1", user="Ana"), 32)
    assert done[-1].detail == {"cmd": "confirm", "id": "gas-1", "ids": ["gas-1"], "user": "Ana"}
    assert p.status()["unacknowledged"] == 0


def test_confirm_leaves_an_active_alarm_to_ack_and_ack_settles_a_cleared_one():
    p = policy()
    p.offer(offer("gas-1", priority="critical", reannounce_s=10, topic="plant/1/gas"), 0)
    p.offer(offer("gas-2", priority="critical", reannounce_s=10, topic="plant/2/gas"), 0)
    speak_next(p, 0)
    speak_next(p, 0)
    p.offer(offer(clear=True, at=1, topic="plant/2/gas"), 1)
    assert p.command(Command("confirm"), 2)[-1].detail["ids"] == ["gas-2"]
    p.tick(10)
    assert speak_next(p, 10)[0].key == "gas-1"  # still active: still re-announced
    p.offer(offer(clear=True, at=11, topic="plant/1/gas"), 11)
    assert p.command(Command("ack", id="gas-1"), 12)[-1].detail["ids"] == ["gas-1"]
    assert p.status()["unacknowledged"] == 0


def test_who_and_why_go_with_the_outcomes_a_command_settles():
    p = policy()
    waiting = offer("door-1", priority="low")
    speaking = offer("belt-2", priority="high")
    p.offer(waiting, 0)
    p.offer(speaking, 0)
    item, _ = p.take(0)
    by = {"user": "Li Wei 李伟", "comment": "checked on site"}
    effects = p.command(Command("ack", topic="plant/#", **by), 1)
    (settled,) = [e for e in effects if isinstance(e, Outcome)]
    assert settled.kind == "acknowledged" and settled.detail["user"] == "Li Wei 李伟"
    assert effects[-1].detail["comment"] == "checked on site"
    (cut,) = p.finished(item, Delivery("stopped"), 1)
    assert (cut.kind, cut.detail["user"], cut.detail["comment"]) == ("acknowledged", *by.values())
    p.offer(offer("x", topic="plant/5/a"), 2)
    effects = p.command(Command("shelve", topic="plant/5/#", user="bo"), 3)
    assert [e.detail.get("user") for e in effects] == ["bo", "bo"]


@pytest.mark.parametrize(
    "field, value, reason",
    [
        ("user", 7, "user: expected text"),
        ("user", "   ", "user: expected text"),
        ("user", "x" * 65, "user: at most 64 characters, got 65"),
        ("comment", "y" * 501, "comment: at most 500 characters, got 501"),
        ("comment", "ok\nFAKE LOG LINE", "comment: control character U+000A at 2"),
        ("user", "ana\x1b[2J", "user: control character U+001B at 3"),
        ("user", "ana\u202eadmin", "user: control character U+202E at 3"),  # bidi override
        ("comment", "a\x85b", "comment: control character U+0085 at 1"),
        ("comment", ["a"], "comment: expected text"),
    ],
)
def test_user_and_comment_are_checked(field, value, reason):
    payload = json.dumps({"cmd": "ack", "id": "a", field: value}).encode()
    with pytest.raises(BadCommand, match=re.escape(reason)):
        parse_command(payload)


def test_user_and_comment_of_any_script_are_taken_as_given():
    got = parse_command('{"cmd":"confirm","user":" 王芳 ","comment":"Pumpe geprüft"}'.encode())
    assert (got.cmd, got.user, got.comment, got.id, got.topic) == (
        "confirm",
        "王芳",
        "Pumpe geprüft",
        None,
        None,
    )
