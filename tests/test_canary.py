"""Canaries of their own for every subscribed filter: the topic each is sent on, the key that
signs them, and `check` refusing a filter no canary can prove."""

from __future__ import annotations

import stat
import threading

from support import cosyedge

from cosyedge.config.templates import looks_like_canary
from cosyedge.service.canary import (
    BadCanary,
    Signer,
    canary_topic,
    load_key,
    underivable,
    unproven,
)


def test_a_wildcard_becomes_the_reserved_level_and_an_own_exact_filter_is_its_own_topic():
    assert canary_topic("plant/+/temperature") == "plant/_cosyedge_canary/temperature"
    assert canary_topic("plant/#") == "plant/_cosyedge_canary"
    assert canary_topic("+/+/#") == "_cosyedge_canary/_cosyedge_canary/_cosyedge_canary"
    assert canary_topic("#") == "_cosyedge_canary"
    assert canary_topic("cosyedge/say", {"cosyedge/say"}) == "cosyedge/say"
    # A plant's exact alert topic: a canary there would reach its other subscribers.
    assert canary_topic("plant/line3/estop", {"cosyedge/say"}) is None
    assert "'plant/line3/+'" in unproven("plant/line3/estop")
    assert canary_topic("$SYS/broker/load/#") is None
    assert canary_topic("$share/line/plant/#") is None
    assert underivable(["a/+", "$SYS/#"]) == [
        "topic filter '$SYS/#': no canary topic can be derived (a client may not publish on "
        "topics starting with '$'), so its delivery cannot be proven"
    ]


def test_a_canary_is_told_from_an_alert_by_its_topic_or_on_our_own_topics_its_payload():
    signer = Signer(b"k" * 32)
    own = {"cosyedge/say"}
    canary = signer.payload(1, "cosyedge/say", "cosyedge/say").encode()
    assert looks_like_canary("cosyedge/say", canary, own)
    assert looks_like_canary("plant/_cosyedge_canary/t", b"anything", own)
    assert not looks_like_canary("cosyedge/say", b'{"text": "cosyedge_canary"}', own)
    assert not looks_like_canary("plant/3/t", b'{"value": 91}', own)
    # On a plant's exact topic, or Hermes', no canary goes: whatever it holds is an alert.
    assert not looks_like_canary("plant/line3/estop", canary, own)
    assert not looks_like_canary("hermes/tts/say", b'{"cosyedge_canary": 1, "text": "x"}', own)


def test_another_gateways_canary_is_told_apart_from_a_forgery_and_proves_nothing():
    ours, theirs = Signer(b"k" * 32, gateway="gw-1"), Signer(b"x" * 32, gateway="gw-3")
    payload = theirs.payload(1, "a/+", "a/_cosyedge_canary").encode()
    try:
        ours.check("a/_cosyedge_canary", payload, retained=False)
    except BadCanary as exc:
        assert exc.kind == "another-gateway"
    else:
        raise AssertionError("another gateway's canary proved a filter")


def test_a_template_topic_with_the_reserved_level_is_refused():
    from cosyedge.config import ConfigError, parse_config

    try:
        parse_config('templates:\n  - {topic: "x/_cosyedge_canary/y", text: "t"}\n')
    except ConfigError as exc:
        assert "templates[0].topic: the level '_cosyedge_canary' is reserved" in str(exc)
    else:
        raise AssertionError("a template on the reserved level was accepted")


def test_a_canary_proves_only_its_own_topic_with_this_key_and_run():
    signer = Signer(b"k" * 32, run="r1")
    payload = signer.payload(7, "a/+", "a/_cosyedge_canary").encode()
    proof = signer.check("a/_cosyedge_canary", payload, retained=False)
    assert (proof.seq, proof.topic_filter) == (7, "a/+")
    for topic, body, retained, kind in [
        ("b/_cosyedge_canary", payload, False, "forged"),  # copied onto another topic
        ("a/_cosyedge_canary", payload, True, "retained"),
        ("a/_cosyedge_canary", b'{"cosyedge_canary": 1}', False, "forged"),
        (
            "a/_cosyedge_canary",
            Signer(b"k" * 32, "r0").payload(7, "a/+", "a/_cosyedge_canary").encode(),
            False,
            "stale",
        ),
    ]:
        try:
            signer.check(topic, body, retained)
        except BadCanary as exc:
            assert exc.kind == kind, (topic, exc)
        else:
            raise AssertionError(f"{kind} canary accepted")


def test_the_key_is_made_once_private_and_whole_even_by_two_starts_at_once(tmp_path):
    path = tmp_path / "state" / "canary.key"
    keys: list[bytes] = []
    threads = [threading.Thread(target=lambda: keys.append(load_key(path))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(keys)) == 1 and len(keys[0]) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["canary.key"]  # no temporary left
    assert load_key(path) == keys[0]


def test_check_refuses_a_filter_no_canary_can_prove_and_names_it(tmp_path):
    config = tmp_path / "site.yaml"
    config.write_text(
        f"state_dir: {tmp_path}/state\ntemplates:\n"
        '  - topic: "plant/{line}/temperature"\n    text: "Line {line} is hot."\n'
        '  - topic: "$SYS/broker/clients/connected"\n    text: "{text}"\n    payload: text\n'
    )
    done = cosyedge("check", "--config", str(config))
    assert done.returncode == 2, done
    assert "topic filter '$SYS/broker/clients/connected': no canary topic" in done.stderr
    config.write_text(config.read_text().split('  - topic: "$SYS')[0])
    done = cosyedge("check", "--config", str(config))
    assert done.returncode == 0, done.stderr


def test_check_warns_of_an_exact_alert_topic_and_the_daemon_publishes_no_canary_there(tmp_path):
    """No canary goes onto a plant's exact alert topic (a Node-RED flow could act on it):
    `check` says it is not proven and how to have it proven; cosyedge's own exact topics are."""
    from cosyedge.config import parse_config
    from cosyedge.intake.intake import Intake

    site = tmp_path / "site.yaml"
    site.write_text(
        'templates:\n  - {topic: "plant/line3/estop", text: "Stop."}\n'
        '  - {topic: "cosyedge/say", text: "{text}"}\n'
    )
    done = cosyedge("check", "--config", str(site))
    assert done.returncode == 0, done.stderr
    assert "topic filter 'plant/line3/estop': not proven by canaries" in done.stderr
    assert "'plant/line3/+'" in done.stderr
    assert "'cosyedge/say': not proven" not in done.stderr
    intake = Intake(parse_config(site.read_text()))
    assert canary_topic("cosyedge/say", intake.own_topics) == "cosyedge/say"
    assert canary_topic("cosyedge/command", intake.own_topics) == "cosyedge/command"
