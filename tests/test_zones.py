"""Zones: the alarm rules once per zone, one outcome per message, its zones told apart."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from cosyedge.alarms.zones import Zones
from cosyedge.config import AlarmsConfig, FloodConfig
from cosyedge.config.loader import ConfigError, parse_config
from cosyedge.intake.commands import parse_command
from cosyedge.intake.templates import alert_zones
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
TWO = ("hall", "yard")


def offer(
    zones: tuple[str, ...] = (), priority: str = "medium", key: str | None = None, **timing: float
) -> Offer:
    seq = next(_seq)
    key = key or f"a{seq}"
    alert = Alert("plant/1/temp", {}, key, priority)
    said = Announcement(f"{priority} alarm {key}", "en", priority, alert, zones=zones)
    return Offer(Ticket(seq, "plant/1/temp", 1e9), key, 0.0, Timing(**timing), said)


def zones(names=TWO, **config) -> Zones:
    return Zones(AlarmsConfig(**config), names)


def said(z: Zones, zone: str, now: float = 1.0, kind: str = "spoken", **detail):
    """The next item of `zone`, finished as `kind`: (item, what was told)."""
    item, effects = z.take(zone, now)
    assert item is not None, f"nothing to say in {zone}"
    assert item.zone == zone
    return item, effects + z.finished(item, Delivery(kind, detail), now)


def outcomes(effects) -> list[Outcome]:
    return [e for e in effects if isinstance(e, Outcome)]


def test_an_alert_for_two_zones_ends_in_one_outcome_once_both_heard_it():
    z = zones()
    o = offer()
    assert z.offer(o, 0.0) == []
    _, told = said(z, "hall", start=1.0, end=2.0)
    assert outcomes(told) == []  # the yard has not heard it yet
    _, told = said(z, "yard", start=1.5, end=2.5)
    (outcome,) = outcomes(told)
    assert outcome.kind == "spoken" and outcome.detail["id"] == o.key
    assert outcome.detail["zones"] == {
        "hall": {"outcome": "spoken", "start": 1.0, "end": 2.0},
        "yard": {"outcome": "spoken", "start": 1.5, "end": 2.5},
    }


def test_each_zone_has_its_own_queue_and_preemption():
    z = zones()
    hall_low = offer(("hall",), "low")
    yard_high = offer(("yard",), "high")
    z.offer(hall_low, 0.0)
    z.offer(yard_high, 0.0)
    hall_item, _ = z.take("hall", 0.1)
    yard_item, _ = z.take("yard", 0.1)
    assert (hall_item.key, yard_item.key) == (hall_low.key, yard_high.key)  # at the same time
    z.offer(offer(("yard",), "critical"), 0.2)
    assert z.should_stop(yard_item)  # the yard gives way to its critical alert
    assert not z.should_stop(hall_item)  # the hall goes on: the critical alert is not its
    assert z.waiting("hall") == 0 and z.waiting("yard") == 1


def test_heard_in_one_zone_and_acknowledged_before_the_other_is_spoken_with_both_told():
    z = zones()
    o = offer()
    z.offer(o, 0.0)
    said(z, "hall")
    told = z.command(Command("ack", id=o.key, user="ana"), 2.0)
    (outcome,) = outcomes(told)
    assert outcome.kind == "spoken"
    assert outcome.detail["zones"]["yard"]["outcome"] == "acknowledged"
    (event,) = [e for e in told if isinstance(e, Event)]  # every zone's, told once
    assert event.kind == "command" and event.detail["ids"] == [o.key]
    assert z.take("yard", 3.0)[0] is None


def test_a_message_heard_nowhere_ends_as_its_zones_say():
    z = zones()
    o = offer()
    z.offer(o, 0.0)
    told = z.command(Command("ack", id=o.key), 1.0)
    (outcome,) = outcomes(told)
    assert outcome.kind == "acknowledged"
    assert {v["outcome"] for v in outcome.detail["zones"].values()} == {"acknowledged"}


@pytest.mark.parametrize("asked", [("all",), (), ("nowhere",)])
def test_every_zone_when_an_alert_names_all_none_or_none_known(asked):
    z = zones()
    z.offer(offer(asked), 0.0)
    assert z.waiting("hall") == 1 and z.waiting("yard") == 1


def test_critical_alerts_in_every_zone_when_configured():
    z = zones(critical_in_all_zones=True)
    z.offer(offer(("hall",), "critical"), 0.0)
    z.offer(offer(("hall",), "high"), 0.0)
    assert z.waiting("hall") == 2 and z.waiting("yard") == 1


def test_a_flood_is_each_zones_own():
    z = zones(flood=FloodConfig(threshold=3, window_s=600, end_at=1, summary_interval_s=0))
    for _ in range(5):
        z.offer(offer(("hall",)), 0.0)
    z.offer(offer(("yard",)), 0.0)
    status = z.status()
    assert status["zones"]["hall"]["flood"] and not status["zones"]["yard"]["flood"]
    item, _ = z.take("yard", 0.1)
    assert item.kind == "alert"  # the yard's alert is said as itself
    item, _ = z.take("hall", 0.1)
    assert item.kind == "summary"


def test_events_of_one_zone_name_it():
    z = zones(flood=FloodConfig(threshold=2, window_s=600, end_at=1, summary_interval_s=0))
    told = [e for _ in range(3) for e in z.offer(offer(("yard",)), 0.0)]
    (started,) = [e for e in told if isinstance(e, Event) and e.kind == "flood_started"]
    assert started.detail["zone"] == "yard"


def test_one_zone_tells_what_a_policy_tells():
    """Without zones, nothing is merged or added: the outcome is the policy's own."""
    z = zones(("default",))
    o = offer(("hall",))  # a zone the daemon does not have
    z.offer(o, 0.0)
    _, told = said(z, "default", start=1.0)
    (outcome,) = outcomes(told)
    assert outcome.kind == "spoken" and "zones" not in outcome.detail
    assert "zones" not in z.status()


def standing_in_yard() -> tuple[str, dict]:
    """A high alarm re-announced every minute, said in the yard: its key, and what
    `lasting` keeps of the standing alarms."""
    z = zones()
    o = offer(("yard",), "high", reannounce_s=60.0)
    z.offer(o, 0.0)
    said(z, "yard")
    return o.key, z.lasting()[1]


def test_standing_alarms_are_kept_once_and_taken_up_in_their_zones():
    key, alarms = standing_in_yard()
    assert list(alarms) == [key]
    again = zones()
    again.restore({}, alarms.values())
    again.tick(100.0)
    assert again.waiting("yard") == 1 and again.waiting("hall") == 0


def test_standing_alarms_held_for_their_source_wait_until_released_or_the_time_is_up():
    _, alarms = standing_in_yard()
    for ends in ("released", "time up"):
        again = zones()
        again.restore({}, alarms.values())
        again.holds.hold("plant/#", 200.0)
        again.holds.hold("other/#", 1000.0)  # another source's hold holds nothing of these
        again.tick(100.0)
        assert again.waiting("yard") == 0, ends
        if ends == "released":
            again.holds.hold("plant/#", None)
            again.tick(101.0)
        else:
            again.tick(200.0)
        assert again.waiting("yard") == 1, ends


def test_status_counts_each_alarm_once():
    z = zones()
    o = offer(reannounce_s=60.0)
    z.offer(o, 0.0)
    said(z, "hall")
    said(z, "yard")
    status = z.status()
    assert status["unacknowledged"] == 1
    assert set(status["zones"]) == set(TWO)


def test_the_board_shows_each_alarm_once_with_its_zones_and_times_said():
    z = zones()
    o = offer(reannounce_s=10.0)
    z.offer(o, 0.0)
    said(z, "hall")
    said(z, "yard")
    z.tick(11.0)  # due again in both zones; the yard says it, the hall not yet
    said(z, "yard", 11.0)
    (alarm,) = z.board()
    assert (alarm.offer.key, alarm.said, alarm.zones) == (o.key, 2, TWO)
    assert not alarm.silenced and not alarm.cleared
    z.command(Command("silence", zone="yard"), 12.0)
    (alarm,) = z.board()
    assert not alarm.silenced  # the hall still says it
    z.command(Command("ack", o.key), 13.0)
    assert z.board() == []


def test_every_message_ends_in_one_outcome_whatever_its_zones_do():
    """Random zones, priorities, commands and deliveries: one outcome per message, never
    before every zone it went to told its own."""
    import random

    rng = random.Random(7)
    z = zones(("a", "b", "c"))
    sent: dict[str, Offer] = {}
    told: list[Outcome] = []
    now = 0.0
    for _ in range(600):
        now += 0.1
        roll = rng.random()
        if roll < 0.4:
            asked = tuple(rng.sample(["a", "b", "c", "x"], rng.randint(0, 2)))
            priority = rng.choice(["critical", "high", "medium", "low"])
            o = offer(asked, priority, ttl_s=rng.choice([0, 5]))
            sent[o.key] = o
            told += outcomes(z.offer(o, now))
        elif roll < 0.5 and sent:
            key = rng.choice(list(sent))
            told += outcomes(z.command(Command(rng.choice(["ack", "silence"]), id=key), now))
        else:
            zone = rng.choice("abc")
            item, effects = z.take(zone, now)
            told += outcomes(effects)
            if item is not None:
                kind = rng.choice(["spoken", "spoken", "failed", "stopped", "unplayed"])
                told += outcomes(z.finished(item, Delivery(kind), now))
        told += outcomes(z.tick(now))
    for _ in range(2000):  # speak out what is left
        now += 1.0
        for zone in "abc":
            item, effects = z.take(zone, now)
            told += outcomes(effects)
            if item is not None:
                told += outcomes(z.finished(item, Delivery("spoken"), now))
        told += outcomes(z.tick(now))
    ids = [o.detail["id"] for o in told if not o.copy]
    assert len(ids) == len(set(ids)), "a message told twice"
    assert set(ids) == set(sent), f"never told: {sorted(set(sent) - set(ids))[:5]}"


def test_an_alerts_zone_field_names_its_zones_and_what_is_unknown_is_told():
    def zones_of(value, own=()):
        alert = Alert("t", {"zone": value} if value is not None else {}, "i")
        return alert_zones(alert, own, TWO)

    assert zones_of("yard") == (("yard",), None)
    assert zones_of(" Hall , yard,hall") == (("hall", "yard"), None)
    assert zones_of("all") == (("all",), None)
    assert zones_of(None, ("hall",)) == (("hall",), None)
    used, note = zones_of("roof", ("hall",))
    assert used == ("hall",) and "no zone 'roof' here; said in hall" in note
    used, note = zones_of("roof,yard")
    assert used == ("yard",) and "roof" in note
    used, note = zones_of(3)
    assert used == () and note == "zone: expected a zone name, got a number; said in every zone"
    wrong = Alert("t", {}, "i", wrong={"zone": "an array"})
    assert alert_zones(wrong, (), TWO) == (
        (),
        "zone: expected a zone name, got an array; said in every zone",
    )
    assert alert_zones(Alert("t", {"zone": "roof"}, "i"), (), ()) == ((), None)  # no zones here


ZONED = """
outputs:
  hall-amp: {device: hall}
  yard-horns: {device: yard}
zones:
  hall: {outputs: [hall-amp]}
  yard: {outputs: [yard-horns]}
"""


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("zones: {hall: {outputs: [gone]}}", 'zones.hall.outputs: no output "gone"'),
        ("outputs: {a: {}}", "outputs: no zone plays on them"),
        ("outputs: {a: {}, b: {}}\nzones: {h: {outputs: [a]}}", "outputs.b: in no zone"),
        ("outputs: {a: {}}\nzones: {h: {outputs: [a]}, y: {outputs: [a]}}", "belongs to one zone"),
        ("outputs: {a: {}}\nzones: {all: {outputs: [a]}}", "zones.all: a name of"),
        ("outputs: {A B: {}}\nzones: {h: {outputs: [A B]}}", "outputs.A B: a name of"),
        ("outputs: {a: {}}\nzones: {h: {outputs: []}}", "zones.h.outputs: a zone needs"),
        (
            "outputs: {a: {device: x, rtp: {address: 239.1.1.1}}}\nzones: {h: {outputs: [a]}}",
            "outputs.a.device: a sound device or a network output (rtp), not both",
        ),
        (
            "outputs: {a: {rtp: {address: 239.1.1.1, port: 0}}}\nzones: {h: {outputs: [a]}}",
            "outputs.a.rtp.port: expected an integer 1-65535, got 0",
        ),
        ("templates: [{topic: t, text: x, zones: [roof]}]", 'templates[0].zones: no zone "roof"'),
        (ZONED + "templates: [{topic: t, text: x, zones: [roof]}]", "(zones: hall, yard)"),
    ],
)
def test_zones_that_cannot_be_are_refused_naming_the_key(text, reason):
    with pytest.raises(ConfigError) as refused:
        parse_config(text)
    assert reason in str(refused.value)


def test_a_zoned_configuration_is_read():
    config = parse_config(ZONED + "templates: [{topic: t, text: x, zones: [yard, all]}]")
    assert config.zones["hall"].outputs == ("hall-amp",)
    assert config.outputs["yard-horns"].device == "yard"
    assert config.templates[0].zones == ("yard", "all")
    horns = parse_config(
        "outputs: {horns: {rtp: {address: 239.1.1.1}}}\nzones: {yard: {outputs: [horns]}}"
    ).outputs["horns"]
    assert horns.rtp is not None and horns.rtp.name == "horns"  # named by its key
    assert replace(config.alarms, critical_in_all_zones=True).critical_in_all_zones


def test_a_command_may_be_limited_to_one_zone():
    z = zones()
    o = offer(reannounce_s=30.0)
    z.offer(o, 0.0)
    said(z, "hall")
    told = z.command(Command("ack", id=o.key, zone="yard"), 1.0)
    (event,) = [e for e in told if isinstance(e, Event)]
    assert event.detail["zone"] == "yard" and event.detail["ids"] == [o.key]
    (outcome,) = outcomes(told)  # the yard's part was the last: heard in the hall, acked here
    assert outcome.kind == "spoken"
    assert outcome.detail["zones"]["yard"]["outcome"] == "acknowledged"
    z.tick(40.0)  # the hall re-announces its unacknowledged alarm; the yard does not
    assert (z.waiting("hall"), z.waiting("yard")) == (1, 0)


@pytest.mark.parametrize(
    ("names", "zone", "reason"),
    [(TWO, "roof", "zone: no zone 'roof' (zones: hall, yard)"),
     (("default",), "hall", "zone: no zone 'hall' (zones: none: `zones` is not configured)")],
)  # fmt: skip
def test_a_command_for_a_zone_that_is_not_is_refused(names, zone, reason):
    with pytest.raises(BadCommand, match=re.escape(reason)):
        zones(names).command(Command("ack", id="x", zone=zone), 0.0)


@pytest.mark.parametrize(
    ("payload", "reason"),
    [('{"cmd": "shelve", "topic": "a/#", "zone": "hall"}', "zone: a shelve applies in every"),
     ('{"cmd": "ack", "id": "x", "zone": 3}', "zone: expected a zone's name, got 3"),
     ('{"cmd": "ack", "id": "x", "zone": "  "}', "zone: expected a zone's name"),
     ('{"cmd": "ack", "id": "x", "zone": "' + "h" * 65 + '"}', "zone: expected a zone's name")],
)  # fmt: skip
def test_a_commands_zone_is_checked(payload, reason):
    with pytest.raises(BadCommand, match=re.escape(reason)):
        parse_command(payload.encode())
    assert parse_command(b'{"cmd": "ack", "id": "x", "zone": " Hall "}').zone == "hall"


@pytest.mark.parametrize(
    ("zone", "zones", "reason"),
    [("roof", TWO, "zone: no zone 'roof' (zones: hall, yard)"),
     (" , ", TWO, "zone: no zone named (zones: hall, yard)"),
     (["hall"], TWO, "zone: expected a zone's name"),
     ("hall", (), "zone: this gateway has no zones")],
)  # fmt: skip
def test_an_http_say_requests_zone_is_checked(zone, zones, reason):
    from cosyedge.config.voices import default_voices
    from cosyedge.intake.local import BadField, say_request

    with pytest.raises(BadField, match=re.escape(reason)):
        say_request({"text": "Hello.", "zone": zone}, default_voices(), zones)
    asked = say_request({"text": "Hello.", "zone": "Yard, all"}, default_voices(), TWO)
    assert asked.zones == ("yard", "all") and b'"zone": "yard,all"' in asked.payload


def test_check_names_a_recorded_message_that_cannot_be_played(tmp_path):
    from support import cosyedge

    (tmp_path / "evac.wav").write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunk")
    config = tmp_path / "site.yaml"
    config.write_text(
        f"templates: [{{topic: t, text: x, recorded: {{file: {tmp_path / 'evac.wav'}}}}}]\n"
    )
    done = cosyedge("check", "--config", str(config))
    assert done.returncode == 0, done.stderr  # the daemon runs it, with the fault `recorded`
    assert f"would say without templates[0].recorded: recorded message {tmp_path}" in done.stdout


def test_a_zone_that_cannot_play_does_not_hold_back_the_report_of_what_another_heard():
    z = zones()
    heard_first, waiting = offer(), offer()
    z.offer(heard_first, 0.0)
    z.offer(waiting, 0.0)
    _, told = said(z, "yard", kind="unplayed", reason="no output device matching 'gone'")
    assert outcomes(told) == []  # kept: nobody heard it yet, the yard may be back
    _, told = said(z, "hall", start=1.0, end=2.0)
    (outcome,) = outcomes(told)
    assert outcome.kind == "spoken" and outcome.detail["id"] == heard_first.key
    yard = outcome.detail["zones"]["yard"]
    assert yard["outcome"] == "failed" and "outputs cannot play" in yard["reason"]
    assert "matching 'gone'" in yard["reason"]
    assert z.waiting("yard") == 1  # the other message waits for the yard, as it was
    _, told = said(z, "yard", start=3.0)  # the yard is back: the hall's next is not given up
    assert outcomes(told) == []
    _, told = said(z, "hall", start=4.0)
    assert outcomes(told)[0].detail["zones"]["yard"]["outcome"] == "spoken"


def test_a_messages_times_span_the_zones_that_heard_it():
    z = zones()
    z.offer(offer(), 0.0)
    said(z, "hall", start=2.0, end=5.0, latency_ms=2000)
    _, told = said(z, "yard", start=1.0, end=4.0, latency_ms=1000)
    (outcome,) = outcomes(told)
    assert (outcome.detail["start"], outcome.detail["end"]) == (1.0, 5.0)
    assert outcome.detail["latency_ms"] == 1000


def test_an_id_heard_in_one_zone_is_a_copy_when_it_names_another():
    z = zones()
    first = offer(("hall",), key="dup-1")
    z.offer(first, 0.0)
    said(z, "hall")
    again = replace(offer(("yard",)), key="dup-1")
    (copy,) = outcomes(z.offer(again, 1.0))
    assert copy.kind == "deduplicated" and copy.copy
    assert z.waiting("yard") == 0


def test_blank_or_unknown_zone_fields_are_told_and_a_topic_level_names_zones_too():
    from cosyedge.config.templates import TemplateConfig
    from cosyedge.intake.templates import Template

    blank = alert_zones(Alert("t", {"zone": " , "}, "i"), ("hall",), TWO)
    assert blank == (("hall",), "zone: no zone named in ' , '; said in hall")
    used, note = alert_zones(Alert("t", {"zone": "all,roof"}, "i"), (), TWO)
    assert used == ("all",) and note.endswith("said in every zone")
    template = Template(TemplateConfig(topic="plant/{zone}/alarm", text="{text}"), TWO)
    said = template.announcement(
        Alert("plant/yard/alarm", {"text": "Gate open."}, "i"), {"zone": "yard"}
    )
    assert said.zones == ("yard",)
    payload_wins = Alert("plant/yard/alarm", {"text": "x", "zone": "hall"}, "i")
    assert template.announcement(payload_wins, {"zone": "yard"}).zones == ("hall",)


@pytest.mark.parametrize(
    "devices",
    [
        '{device: "USB Audio"}, b: {device: "usb audio"}',
        "{}, b: {device: null}",
        '{device: null}, b: {device: " Default"}',  # ALSA's default device, named
    ],
)
def test_one_sound_device_in_two_outputs_is_refused(devices):
    text = f"outputs: {{a: {devices}}}\nzones: {{x: {{outputs: [a]}}, y: {{outputs: [b]}}}}"
    with pytest.raises(ConfigError, match=r"outputs\.b\.device: .* is output \"a\"'s already"):
        parse_config(text)


def test_two_outputs_paging_one_group_and_port_are_refused():
    pages = "{rtp: {address: 239.1.1.1, port: 5004}}, b: {rtp: {address: 239.1.1.1, codec: pcma}}"
    text = f"outputs: {{a: {pages}}}\nzones: {{x: {{outputs: [a]}}, y: {{outputs: [b]}}}}"
    with pytest.raises(ConfigError, match=r"outputs\.b\.rtp: 239\.1\.1\.1:5004 is output \"a\"'s"):
        parse_config(text)
    parse_config(text.replace("codec: pcma", "port: 5006"))  # another port: other speakers


def test_a_zone_name_that_is_no_name_is_told_so():
    with pytest.raises(ConfigError, match=r'zones: "?1"? is not a name'):
        parse_config("zones: {1: {outputs: [a]}}\noutputs: {a: {}}")


def test_a_message_heard_in_one_zone_before_a_restart_is_said_after_it_only_where_owed():
    before = zones()
    o = offer()
    before.offer(o, 0.0)
    assert before.told_apart() == []
    said(before, "hall", start=1.0, end=2.0, latency_ms=5, source="cache")
    ((seq, zone, told),) = before.told_apart()  # what the journal keeps
    assert (seq, zone, told) == (
        o.ticket.seq,
        "hall",
        {"outcome": "spoken", "start": 1.0, "end": 2.0, "latency_ms": 5, "source": "cache"},
    )
    assert before.told_apart() == []

    after = zones()  # the next start, its journal taken up
    after.told_before(seq, {zone: told})
    assert after.offer(o, 10.0) == []
    assert after.take("hall", 10.0)[0] is None  # heard there already
    _, effects = said(after, "yard", now=11.0, start=11.0, end=12.0)
    (outcome,) = outcomes(effects)
    assert (outcome.kind, outcome.detail["id"], outcome.detail["priority"]) == (
        "spoken",
        o.key,
        "medium",
    )
    assert outcome.detail["zones"] == {
        "hall": {"outcome": "spoken", "start": 1.0, "end": 2.0, "latency_ms": 5, "source": "cache"},
        "yard": {"outcome": "spoken", "start": 11.0, "end": 12.0},
    }
    assert (outcome.detail["start"], outcome.detail["end"]) == (1.0, 12.0)
    assert after.told_apart() == []  # its outcome ends it: nothing more to keep apart


def test_what_a_zone_no_longer_configured_told_ends_the_message_at_once():
    before = zones(("hall", "yard", "dock"))
    o = offer()
    before.offer(o, 0.0)
    said(before, "hall", start=1.0, end=2.0)
    said(before, "yard", kind="failed", reason="r" * 5000)
    told = {zone: detail for _, zone, detail in before.told_apart()}
    assert len(told["yard"]["reason"]) == 2000  # bounded as the journal keeps it
    after = zones(("hall", "yard", "lobby"))  # the dock is gone, the lobby new
    after.told_before(o.ticket.seq, {**told, "dock": {"outcome": "spoken"}})
    (outcome,) = outcomes(
        after.offer(replace(o, announcement=replace(o.announcement, zones=("hall", "yard"))), 5.0)
    )
    assert outcome.kind == "spoken" and set(outcome.detail["zones"]) == {"hall", "yard"}
    assert outcome.detail["text"] == o.announcement.text


def test_a_reload_adding_a_zone_and_a_template_for_it_is_refused_naming_both():
    from cosyedge.service.reload import effective_config

    running = parse_config(
        "outputs: {a: {device: a}, b: {device: b}}\n"
        "zones: {hall: {outputs: [a]}, yard: {outputs: [b]}}\n"
    )
    grown = (
        "outputs: {a: {device: a}, b: {device: b}, c: {device: c}}\n"
        "zones: {hall: {outputs: [a]}, yard: {outputs: [b]}, roof: {outputs: [c]}}\n"
    )
    new = parse_config(grown + "templates: [{topic: plant/roof, text: Roof., zones: [roof]}]")
    with pytest.raises(ConfigError) as refused:
        effective_config(running, new)
    (problem,) = refused.value.problems
    assert problem.startswith('templates[0].zones: no zone "roof" (zones: hall, yard)'), problem
    assert "outputs, zones change only at a restart" in problem
    config, waiting = effective_config(running, parse_config(grown))  # no template: waits
    assert waiting == ["outputs", "zones"] and set(config.zones) == {"hall", "yard"}
