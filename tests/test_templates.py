from __future__ import annotations

import json
import re

import pytest

from cosyedge.config import TemplateConfig
from cosyedge.config.syntax import check_template
from cosyedge.intake.alert import MAX_ID_CHARS, parse_alert
from cosyedge.intake.templates import TemplateSet, plain_text
from cosyedge.model import PRIORITIES, Alert, RejectedAlert

KNOWN = ", ".join(PRIORITIES)


def render(topic_filter: str, text: str, topic: str, body: bytes, **kw):
    templates = TemplateSet([TemplateConfig(topic=topic_filter, text=text, **kw)])
    template, captured = templates.find(topic)
    alert = parse_alert(topic, body, template.config.payload)
    return template.announcement(alert, captured)


@pytest.mark.parametrize(
    ("pattern", "topic", "expected"),
    [
        ("plant/{line}/temp", "plant/3/temp", {"line": "3"}),
        ("plant/+/temp", "plant/3/temp", {}),
        ("plant/{line}/temp", "plant/3/temp/x", None),
        ("plant/{line}/temp", "plant/temp", None),
        ("plant/#", "plant", {}),
        ("plant/#", "plant/a/b/c", {}),
        ("{site}/#", "工厂/3号线/急停", {"site": "工厂"}),
        ("plant/{line}/{kind}", "plant/7/gas", {"line": "7", "kind": "gas"}),
        ("plant/line", "plant/line2", None),
    ],
)
def test_topic_matching(pattern, topic, expected):
    (template,) = TemplateSet([TemplateConfig(topic=pattern, text="x")]).templates
    assert template.match(topic) == expected


def test_subscription_filters_replace_names_with_plus_and_drop_duplicates():
    templates = TemplateSet(
        [
            TemplateConfig(topic="plant/{line}/temp", text="a"),
            TemplateConfig(topic="plant/+/temp", text="b"),
            TemplateConfig(topic="alarms/#", text="c"),
        ]
    )
    assert templates.filters == ["plant/+/temp", "alarms/#"]


def test_first_matching_template_wins():
    templates = TemplateSet(
        [
            TemplateConfig(topic="plant/1/temp", text="special"),
            TemplateConfig(topic="plant/{line}/temp", text="general"),
        ]
    )
    assert templates.find("plant/1/temp")[0].config.text == "special"
    assert templates.find("plant/2/temp")[0].config.text == "general"
    with pytest.raises(RejectedAlert, match="no template matches"):
        templates.find("other/topic")


def test_render_fills_topic_and_payload_fields_with_decimals():
    a = render(
        "plant/{line}/pressure",
        "Pressure on line {line}: {value:.1f} {unit}.",
        "plant/10/pressure",
        b'{"value": "6.49", "unit": "bar", "priority": "critical"}',
    )
    assert a.text == "Pressure on line 10: 6.5 bar."
    assert a.priority == "critical"
    assert a.lang == "en"


def test_plain_text_payload_is_the_text_field():
    a = render("say", "{text}", "say", b"  Forklift in aisle four.  ")
    assert a.text == "Forklift in aisle four."
    assert a.priority == "medium"


def test_decimals_on_a_word_leave_it_as_it_is():
    assert render("t", "{v:.1f}", "t", b'{"v": "high"}').text == "high"


@pytest.mark.parametrize(
    "text",
    [
        "{v.__class__}",
        "{v[0]}",
        "{0}",
        "{}",
        "{v!r}",
        "{v:>99999}",
        "{v:,}",
        "unbalanced {",
    ],
)
def test_unsafe_or_broken_placeholders_are_refused_at_load(text):
    with pytest.raises(ValueError, match=r"^text: "):
        check_template("t", text)


@pytest.mark.parametrize("topic", ["a/b+/c", "a/#/c", "a/{1x}/c", "a/{x}/{x}", ""])
def test_bad_topic_filters_are_refused_at_load(topic):
    with pytest.raises(ValueError, match=r"^topic: "):
        check_template(topic, "x")


def test_payload_values_cannot_inject_placeholders_or_control_characters():
    a = render("t", "Alarm: {text}", "t", b'{"text": "{0.__class__} \\u0007bell\\nnew line"}')
    assert a.text == "Alarm: {0.__class__} bell new line"


def test_output_length_is_bounded_per_phrase():
    long_word = "word " * 400
    a = render(
        "t", "{a} {b}", "t", f'{{"a": "{long_word}", "b": "{long_word}"}}'.encode(), max_chars=300
    )
    assert len(a.text) <= 300
    assert a.text.startswith("word word")
    assert a.notes[0].startswith("shortened: over 300 characters")


def test_missing_field_is_rejected_with_its_name():
    with pytest.raises(RejectedAlert, match="missing field 'value' for template 't'"):
        render("t", "{value}", "t", b'{"other": 1}')


def test_nested_values_are_no_values_to_say_and_say_so():
    wrong = r"field 'obj': expected a string, number or boolean, got an object"
    with pytest.raises(RejectedAlert, match=wrong):
        render("t", "{obj}", "t", b'{"obj": {"a": 1}}')


def test_payload_mode_json_refuses_plain_text_and_text_mode_reads_braces():
    with pytest.raises(RejectedAlert, match="invalid JSON"):
        render("t", "{text}", "t", b"just words", payload="json")
    assert render("t", "{text}", "t", b"{literally}", payload="text").text == "{literally}"


def test_alert_ids_come_from_the_payload_or_a_content_hash():
    assert parse_alert("t", b'{"id": "A-7"}').id == "A-7"
    same = parse_alert("t", b"boiler trip").id
    assert same == parse_alert("t", b"boiler trip").id
    assert same != parse_alert("u", b"boiler trip").id
    assert isinstance(parse_alert("t", b"x"), Alert)


@pytest.mark.parametrize(
    ("payload", "mode", "reason"),
    [
        (b"", "auto", "empty payload"),
        (b"   ", "auto", "empty payload"),
        (b"[1, 2]", "json", "JSON payload must be an object, got list"),
        (b"\xc3\x28", "auto", "payload is not UTF-8"),
        (b"x" * 20000, "text", "payload of 20000 bytes exceeds 16384"),
        (b"[" * 10000, "json", "invalid JSON: nested too deeply"),
        (b'{"a": 1', "auto", "invalid JSON: Expecting"),
    ],
)
def test_bad_payloads_are_rejected_with_reasons(payload, mode, reason):
    with pytest.raises(RejectedAlert, match=reason):
        parse_alert("t", payload, mode)


# -- poison numbers ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "payload",
    [
        b'{"value": ' + b"7" * 4301 + b"}",
        b'{"value": -' + b"9" * 5000 + b"}",
        b'{"text": "x", "nested": [1, {"n": ' + b"1" * 6000 + b"}]}",
    ],
)
def test_an_integer_longer_than_python_converts_is_rejected_with_a_reason(payload):
    with pytest.raises(RejectedAlert, match=r"^invalid JSON: a number with more than 4300 digits$"):
        parse_alert("t", payload)


@pytest.mark.parametrize(
    ("text", "payload", "reason"),
    [
        ("{value}", b'{"value": NaN}', "field 'value': not a finite number"),
        ("{value:.1f}", b'{"value": Infinity}', "field 'value': not a finite number"),
        ("{value}", b'{"value": -Infinity}', "field 'value': not a finite number"),
        ("{value:.1f}", b'{"value": 1e400}', "field 'value': not a finite number"),
        ("{value:.1f}", b'{"value": "nan"}', "field 'value': not a finite number"),
        ("{value:.1f}", b'{"value": 1e300}', r"field 'value': number 1e\+300 out of range"),
        ("{value:.1f}", b'{"value": "1e300"}', r"field 'value': number 1e\+300 out of range"),
        ("{value}", b'{"value": ' + b"9" * 199 + b"}", "field 'value': number 999.* out of range"),
        ("{value}", b'{"value": 1000000000000000}', "field 'value': number .* out of range"),
        ("{value:.9f}", b'{"value": 123456789012.5}', r"field 'value': number 123456789012\.5"),
        ("{value}", b'{"value": 5e-324}', "field 'value': number 0.0000.* too long to say"),
    ],
)
def test_numbers_that_cannot_be_said_are_rejected_naming_the_field(text, payload, reason):
    with pytest.raises(RejectedAlert, match=f"^{reason}"):
        render("t", text, "t", payload)


@pytest.mark.parametrize(
    ("text", "payload", "said"),
    [
        ("{v}", b'{"v": 999999999999999}', "999999999999999"),
        ("{v}", b'{"v": -12.5}', "-12.5"),
        ("{v}", b'{"v": 1e-05}', "0.00001"),  # an exponent is not said
        ("{v:.2f}", b'{"v": 1.2345678901234567e-05}', "0.00"),
        ("{v:.1f}", b'{"v": "6.49"}', "6.5"),
        ("{v:.1f}", b'{"v": "high"}', "high"),
    ],
)
def test_numbers_within_the_bounds_are_written_plainly(text, payload, said):
    assert render("t", text, "t", payload).text == said


def test_plant_data_is_never_cut_for_its_digits():
    """A 42-character alert with 18 digits (an address, a serial) is said whole: characters
    bound what arrives, not what a phrase takes to say."""
    text = "Gateway check bar11-127.0.0.1-2454630178."
    assert render("t", "{text}", "t", text.encode()).text == text
    assert render("t", "{text}", "t", b'{"text": "' + b"7" * 30 + b'"}').text == "7" * 30


def test_over_max_chars_the_phrase_is_cut_at_a_word_never_inside_a_number_and_noted():
    phrase = render("t", "{text}", "t", b"Tank 12 at 45.6 percent, line 3.", max_chars=20)
    assert phrase.text == "Tank 12 at 45.6"
    assert phrase.notes == ("shortened: over 20 characters, left out 'percent, line 3.'",)
    # Without a space to cut at, the cut falls before the number, never inside it.
    assert plain_text("ab1234567890123", 10) == (
        "ab",
        "shortened: over 10 characters, left out '1234567890123'",
    )
    assert plain_text("abcdefghijklmnop", 10)[0] == "abcdefghij"


# -- invisible characters and ids -------------------------------------------------------------
@pytest.mark.parametrize(
    ("written", "clean"),
    [
        ("Pump\u202e 7", "Pump 7"),  # a right-to-left override
        ("Pump\u200b7", "Pump7"),  # a zero-width space
        ("\u2066Valve\u2069 open\u00ad\ufeff", "Valve open"),  # isolates, soft hyphen, BOM
        ("Gate\x85open\x9b", "Gate open"),  # C1 controls
        ("Fan\ud800 stopped", "Fan stopped"),  # a lone surrogate (JSON "\ud800")
    ],
)
def test_format_and_control_characters_leave_phrase_and_id(written, clean):
    payload = json.dumps({"text": written, "id": written}).encode()
    alert = parse_alert("t", payload)
    assert alert.id == clean
    assert render("t", "{text}", "t", payload).text == clean


def test_long_ids_keep_a_readable_start_and_two_of_them_stay_two():
    start = "line-3/boiler-feed-pump/" * 10
    first = parse_alert("t", json.dumps({"id": start + "A"}).encode()).id
    second = parse_alert("t", json.dumps({"id": start + "B"}).encode()).id
    assert first != second
    assert len(first) == len(second) == MAX_ID_CHARS
    assert first.startswith(start[:100])
    assert re.fullmatch(r"[0-9a-f]{16}", first.split("~")[-1])
    exact = "x" * MAX_ID_CHARS
    assert parse_alert("t", json.dumps({"id": exact}).encode()).id == exact


@pytest.mark.parametrize(
    ("given", "note"),
    [
        ('"urgent"', "priority: unknown value 'urgent', used low"),
        ("5", f"priority: expected one of {KNOWN}, got a number; used low"),
        ("true", f"priority: expected one of {KNOWN}, got a boolean; used low"),
        ('["high"]', f"priority: expected one of {KNOWN}, got an array; used low"),
        ('{"level": "high"}', f"priority: expected one of {KNOWN}, got an object; used low"),
        ("null", None),  # as if not given
        ('"HIGH"', None),
    ],
)
def test_an_unknown_priority_keeps_the_templates_and_says_so(given, note):
    payload = b'{"text": "Door open", "priority": ' + given.encode() + b"}"
    phrase = render("t", "{text}", "t", payload, priority="low")
    assert phrase.priority == ("high" if given == '"HIGH"' else "low")
    assert phrase.notes == (() if note is None else (note,))


@pytest.mark.parametrize("given", ["true", "false"])
def test_a_boolean_where_a_number_is_asked_for_is_refused_naming_the_field(given):
    payload = b'{"value": ' + given.encode() + b"}"
    with pytest.raises(RejectedAlert, match=r"field 'value': expected a number, got a boolean"):
        render("t", "Temperature {value:.1f} degrees", "t", payload)
    assert render("t", "Door open: {value}", "t", payload).text == f"Door open: {given}"


@pytest.mark.parametrize(("given", "kind"), [('["high"]', "an array"), ('{"a": 1}', "an object")])
def test_a_priority_that_is_not_a_value_is_never_said(given, kind):
    payload = b'{"priority": ' + given.encode() + b"}"
    wrong = f"field 'priority': expected a string, number or boolean, got {kind}"
    with pytest.raises(RejectedAlert, match=wrong):
        render("t", "Priority {priority}", "t", payload)
