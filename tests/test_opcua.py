"""The OPC UA source's rules, in process: its section of the configuration, which condition
event is an alert, a return to normal, an acknowledgement or a shelve, what is kept across a
restart, the phrase per language, and the fields as asyncua's client reads them from the
select clauses (tests/test_opcua_daemon.py and test_opcua_nodeopcua.py run it against the
independent servers)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from asyncua import ua

from cosyedge.config.loader import ConfigError, parse_config
from cosyedge.config.schema import config_warnings
from cosyedge.intake.intake import Intake
from cosyedge.sources.conditions import FORGOTTEN, ConditionEvent, Tracker, level
from cosyedge.sources.opcua_client import SELECT, event_filter, read_event, severity
from cosyedge.sources.phrase import phrase

COND = "ns=2;s=Tank3/HighLevel"


def config_text(section: str) -> str:
    return f"sources:\n  - opcua:\n{section}"


def refused(section: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_config(config_text(section))
    return str(caught.value)


def test_the_section_is_read_and_its_errors_name_the_key(tmp_path: Path):
    cert, key = tmp_path / "c.der", tmp_path / "k.pem"
    cert.write_bytes(b"x")
    key.write_bytes(b"x")
    security = f"      security: {{certificate: {cert}, private_key: {key}}}\n"
    good = f"      endpoint: opc.tcp://plc:4840\n{security}"
    config = parse_config(config_text(good))
    (source,) = config.sources
    assert source.kind == "opcua" and source.opcua is not None
    assert source.opcua.security.policy == "Basic256Sha256"
    assert source.opcua.security.mode == "SignAndEncrypt"
    # The source's topics are not subscribed to on MQTT, nor heard there.
    intake = Intake(config)
    assert not any(f.startswith("cosyedge/source/") for f in intake.filters)
    forged = Tracker("opcua", tmp_path / "state.json").topic("ns=2;i=5")
    assert intake.message(forged, b'{"text": "forged"}') is None
    assert "sources[0].opcua.endpoint: expected opc.tcp" in refused(
        "      endpoint: http://plc\n      security: {policy: None, mode: None}\n"
    )
    # Security is never off unless written so: the default policy wants a certificate.
    assert "sources[0].opcua.security.certificate: needed" in refused(
        "      endpoint: opc.tcp://plc:4840\n"
    )
    assert "sources[0].opcua.security.mode" in refused(
        "      endpoint: opc.tcp://plc:4840\n      security: {policy: None}\n"
    )
    plain = "      endpoint: opc.tcp://plc:4840\n      security: {policy: None, mode: None}\n"
    bad_field = f"{plain}      templates: {{en: '{{Tag}}'}}\n"
    assert 'sources[0].opcua.templates.en: no event field "Tag"' in refused(bad_field)
    twice = f"{plain}  - opcua:\n      endpoint: opc.tcp://PLC:4840/\n      name: b\n"
    twice += "      security: {policy: None, mode: None}\n"
    told = refused(twice)  # one server's alarms, each said twice
    assert "sources[1].opcua.endpoint:" in told and "sources[0]'s too" in told, told
    bands = f"{plain}      priorities: {{high: 900, critical: 800}}\n"
    assert "sources[0].opcua.priorities: each band" in refused(bands)
    with pytest.raises(ConfigError, match=r"sources\[0\]\.kind: expected exactly one key"):
        parse_config("sources:\n  - {}\n")
    with pytest.raises(ConfigError, match=r"sources\[0\]\.modbus: unknown key"):
        parse_config("sources:\n  - modbus: {}\n")


def test_security_none_only_when_written_and_warned_about():
    text = config_text(
        "      endpoint: opc.tcp://plc:4840\n      security: {policy: None, mode: None}\n"
    )
    warnings = config_warnings(parse_config(text))
    assert any(w.startswith("sources[0].opcua.security.policy: None") for w in warnings)


def test_default_severity_bands():
    section = (
        parse_config(
            config_text(
                "      endpoint: opc.tcp://plc:4840\n      security: {policy: None, mode: None}\n"
            )
        )
        .sources[0]
        .opcua
    )
    assert section is not None
    got = {s: section.priority(s) for s in (1, 200, 400, 401, 600, 601, 800, 801, 1000, 0)}
    assert got == {
        1: "low", 200: "low", 400: "low", 401: "medium", 600: "medium",
        601: "high", 800: "high", 801: "critical", 1000: "critical", 0: "low",
    }  # fmt: skip


def event(n: int, **given: object) -> ConditionEvent:
    fields = {"condition": COND, "event_id": f"{n:04x}", "source_name": "Tank 3"}
    fields |= {"message": "Level high", "severity": 700, "active": True, "acked": False}
    return ConditionEvent(**{**fields, **given})  # type: ignore[arg-type]


def kinds(tracker: Tracker, e: ConditionEvent) -> list[str]:
    return [step.kind for step in tracker.handle(e)]


def test_condition_events_become_alerts_acks_and_returns(tmp_path: Path):
    t = Tracker("tank", tmp_path / "state.json")
    first = event(1)
    steps = t.handle(first)
    assert [s.kind for s in steps] == ["raise"]
    raised = steps[0].id
    assert t.said(COND) == raised and raised == t.alert_id(first)
    assert kinds(t, event(1)) == []  # the same EventId again: nothing
    assert kinds(t, event(1, active=False)) == ["returned"]  # reused, another state: news
    assert kinds(t, event(1)) == ["raise"]  # active again (the same id: a copy at the desk)
    assert kinds(t, event(2)) == []  # a new event, nothing changed that is said
    # A new Severity supersedes the alert said: it ends, naming the new one, as that is raised.
    ended, changed = t.handle(event(3, severity=900))
    assert (ended.kind, ended.id, changed.kind) == ("supersede", raised, "raise")
    assert changed.id != raised and ended.reason == f"superseded by {changed.id}"
    assert kinds(t, event(4, severity=900, message="Level very high")) == ["supersede", "raise"]
    assert kinds(t, event(5, severity=900, message="Level very high", acked=True)) == ["ack"]
    assert kinds(t, event(6, active=False, acked=True)) == ["returned"]
    assert t.said(COND) is None
    # Over and not retained: forgotten, as the server forgets it.
    assert kinds(t, event(7, active=False, acked=True, retain=False)) == []
    assert COND not in t.conditions


def test_shelved_and_disabled_conditions_are_not_said(tmp_path: Path):
    t = Tracker("tank", tmp_path / "state.json")
    assert kinds(t, event(1, shelved=True)) == []
    assert kinds(t, event(2, enabled=False)) == []
    assert kinds(t, event(3, acked=True)) == []  # acknowledged at the HMI before it was heard
    assert kinds(t, event(4)) == ["raise"]
    assert kinds(t, event(5, shelved=True)) == ["shelve"]
    assert kinds(t, event(6, shelved=True, severity=950)) == []
    # Unshelved while it stands: it is said again, as ISA-18.2 wants.
    assert kinds(t, event(7)) == ["unshelve", "supersede", "raise"]


def test_the_shelf_set_for_a_condition_is_lifted_when_the_server_drops_or_forgets_it(
    tmp_path: Path,
):
    t = Tracker("tank", tmp_path / "state.json")
    assert kinds(t, event(1)) == ["raise"]
    assert kinds(t, event(2, shelved=True)) == ["shelve"]
    (lifted, returned) = t.forget(set())  # a restarted server's refresh without it
    assert (lifted.kind, returned.kind) == ("unshelve", "returned")
    assert lifted.reason == returned.reason == FORGOTTEN
    assert kinds(t, event(3)) == ["raise"]
    assert kinds(t, event(4, shelved=True)) == ["shelve"]
    over = event(5, shelved=True, active=False, acked=True, retain=False)
    assert kinds(t, over) == ["returned", "unshelve"]  # dropped: over, not retained


def test_what_was_handled_is_known_after_a_restart(tmp_path: Path):
    path = tmp_path / "opcua" / "tank.json"
    t = Tracker("tank", path)
    assert kinds(t, event(1)) == ["raise"]
    t.keep()
    again = Tracker("tank", path)
    # ConditionRefresh sends the condition's last event again: known, not said twice.
    assert again.handled(event(1)) and kinds(again, event(1)) == []
    assert again.said(COND) == t.said(COND)
    assert kinds(again, event(2, active=False)) == ["returned"]
    path.write_text("{not json")
    assert Tracker("tank", path).conditions == {}  # a damaged file: started without it


def test_operator_commands_name_conditions_by_id_or_topic(tmp_path: Path):
    t = Tracker("tank", tmp_path / "state.json")
    t.handle(event(1))
    said = t.said(COND)
    assert said is not None
    assert t.named({said}, None) == [COND]
    assert t.named({"other"}, None) == []
    assert t.named(set(), "cosyedge/source/opcua/tank/#") == [COND]
    t.handle(event(2, active=False))  # returned to normal: a confirm still names it by its id
    assert t.named({said}, None) == [COND]
    assert t.named(set(), "cosyedge/source/opcua/other/#") == []
    assert t.topic(COND) == "cosyedge/source/opcua/tank/ns=2;s=Tank3_HighLevel"
    assert level("x" * 200) != level("x" * 199) and len(level("x" * 200)) <= 80


def test_the_phrase_is_in_the_message_language():
    templates = {"en": "{SourceName}: {Message}", "de": "{SourceName} meldet {Message}"}
    fields = {"SourceName": "Tank 3", "Message": "Füllstand hoch", "Severity": 700}
    assert phrase(templates, fields, "de-DE") == ("de", "Tank 3 meldet Füllstand hoch")
    assert phrase(templates, fields, "fr-FR")[0] == "en"
    assert phrase({"en": "{Severity:.1f} {Message}"}, {"Severity": 7}, "")[1] == "7.0"


def test_the_fields_are_read_as_the_filter_selects_them():
    clauses = event_filter().SelectClauses
    assert len(clauses) == len(SELECT)
    names = ["/".join(q.Name for q in c.BrowsePath) for c in clauses]
    assert names[-1] == "" and clauses[-1].AttributeId == ua.AttributeIds.NodeId
    values = {
        "EventId": b"\x01\x02", "SourceName": "Tank 3", "Severity": 650,
        "Message": ua.LocalizedText("Level high", "en-US"), "ActiveState/Id": True,
        "AckedState/Id": False, "SuppressedOrShelved": False, "Retain": True,
        "": ua.NodeId(5, 2),
    }  # fmt: skip
    read = read_event([values.get(name) for name in names])
    assert read is not None
    assert (read.condition, read.event_id, read.locale) == ("ns=2;i=5", "0102", "en-US")
    assert read.active and not read.acked and read.severity == 650 and read.confirmed is None
    values[""] = None  # a refresh's start or end, or any event not a condition's
    assert read_event([values.get(name) for name in names]) is None


def test_a_severity_out_of_range_or_no_number_is_taken_within_1_to_1000():
    given = [0, 1, 1000, 1001, -5, 2**40, 500.7, float("nan"), float("inf"), "high", None, True]
    taken = [severity(value, COND) for value in given]
    assert taken == [1, 1, 1000, 1000, 1, 1000, 500, 1000, 1000, 1000, 1000, 1000]


def test_a_security_policy_and_mode_that_do_not_go_together_name_the_key_to_change():
    cases = {
        "{policy: None}": "security.mode: expected None with the policy None",
        "{policy: None, mode: Sign}": "security.mode: expected None with the policy None",
        "{mode: None}": "security.policy: Basic256Sha256 (the default) cannot go with the mode",
        "{policy: Aes256_Sha256_RsaPss, mode: None}": "security.mode: expected Sign or Sign",
    }
    for security, named in cases.items():
        assert f"sources[0].opcua.{named}" in refused(
            f"      endpoint: opc.tcp://plc:4840\n      security: {security}\n"
        ), security


def test_check_refuses_an_opcua_source_without_asyncua_naming_what_to_install(tmp_path: Path):
    """The interpreter's packages less asyncua (each linked into a directory of its own, the
    site directory left out): as on a gateway whose .deb does not ship it."""
    site = Path(ua.__file__).resolve().parents[2]
    shelf = tmp_path / "site"
    shelf.mkdir()
    for entry in site.iterdir():
        if not entry.name.lower().startswith("asyncua"):
            (shelf / entry.name).symlink_to(entry)
    config = tmp_path / "c.yaml"
    config.write_text(
        "sources:\n  - opcua:\n      endpoint: opc.tcp://plc:4840\n"
        "      security: {policy: None, mode: None}\n"
    )
    repo = Path(__file__).resolve().parents[1]
    argv = [sys.executable, "-S", "-m", "cosyedge", "check", "--config", str(config)]
    env = {**os.environ, "PYTHONPATH": f"{repo}:{shelf}"}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    # One line, after the warning that security is off.
    (line,) = [x for x in done.stderr.splitlines() if ": warning: " not in x]
    assert line.startswith(f"{config}: sources[0].opcua: an OPC UA source needs the asyncua ")
    assert "pip install" in line and "asyncua" in line.split("pip install")[1]
