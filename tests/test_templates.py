from __future__ import annotations

import pytest

from cosyedge.alerts.alert import Alert, RejectedAlert, parse_alert
from cosyedge.announcements.templates import TemplateSet, check_template
from cosyedge.config import TemplateConfig


def render(topic_filter: str, text: str, topic: str, body: bytes, **kw):
    templates = TemplateSet([TemplateConfig(topic=topic_filter, text=text, **kw)])
    template, captured = templates.find(topic)
    alert = parse_alert(topic, body, template.config.payload)
    return template.render(alert, captured)


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


def test_output_length_is_bounded_per_value_and_per_phrase():
    long_word = "word " * 400
    a = render(
        "t", "{a} {b}", "t", f'{{"a": "{long_word}", "b": "{long_word}"}}'.encode(), max_chars=300
    )
    assert len(a.text) <= 300
    assert a.text.startswith("word word")


def test_missing_field_is_rejected_with_its_name():
    with pytest.raises(RejectedAlert, match="missing field 'value' for template 't'"):
        render("t", "{value}", "t", b'{"other": 1}')


def test_nested_values_are_not_fields():
    with pytest.raises(RejectedAlert, match="missing field 'obj'"):
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
