"""The alarms:, reports: and hermes: sections and the template timing fields."""

from __future__ import annotations

from support import config_problems

from cosyedge.config import parse_config


def test_defaults_follow_isa_18_2():
    config = parse_config("", "site.yaml")
    flood = config.alarms.flood
    assert (flood.threshold, flood.window_s) == (10, 600)
    assert config.alarms.quiet_hours is None
    assert config.alarms.priorities.of("critical").chime
    assert config.reports.status_topic == "cosyedge/status"
    assert not config.hermes.enabled


def test_sections_and_template_fields_are_read():
    config = parse_config(
        "alarms:\n"
        "  max_shelve_s: 600\n"
        "  flood: {threshold: 20, end_at: 3}\n"
        "  priorities: {low: {chime: false, volume: 0.5}, critical: {reannounce_s: 30}}\n"
        "  quiet_hours: {start: '22:00', end: '06:30', volume: 0.3}\n"
        "hermes: {enabled: true, site_id: hall}\n"
        "templates:\n"
        "  - topic: a/b\n"
        "    text: hi\n"
        "    ttl_s: 30\n"
        "    on_delay_s: 2\n"
        "    clear_if: state=ok\n",
        "site.yaml",
    )
    assert config.alarms.priorities.low.volume == 0.5
    assert config.alarms.priorities.critical.reannounce_s == 30
    assert config.alarms.quiet_hours.end == "06:30"
    assert config.hermes.site_id == "hall"
    (template,) = config.templates
    assert (template.ttl_s, template.on_delay_s, template.reannounce_s) == (30, 2, None)


def test_bad_values_name_file_key_and_reason():
    found = config_problems(
        "alarms:\n"
        "  flood: {threshold: 5, end_at: 5}\n"
        "  priorities: {high: {volume: 2}}\n"
        "  quiet_hours: {start: '25:00', end: '06:00'}\n"
        "  command_topic: 'cosyedge/#'\n"
        "reports: {status_topic: ''}\n"
        "hermes: {priority: urgent}\n"
        "templates:\n"
        "  - {topic: a, text: b, clear_if: state, on_delay_s: -1}\n"
    )
    assert found == [
        "site.yaml: templates[0].on_delay_s: expected a number 0-3600, got -1",
        "site.yaml: alarms.flood.end_at: must be below threshold",
        "site.yaml: alarms.priorities.high.volume: expected a number 0-1, got 2",
        "site.yaml: alarms.quiet_hours.start: expected a time HH:MM, got '25:00'",
        "site.yaml: reports.status_topic: must be a topic without wildcards, got ''",
        'site.yaml: hermes.priority: expected one of critical, high, medium, low, got "urgent"',
    ]


def test_clear_if_and_command_topic_are_checked():
    assert config_problems("templates:\n  - {topic: a, text: b, clear_if: state}\n") == [
        "site.yaml: templates[0].clear_if: expected field=value, got 'state'"
    ]
    assert config_problems("alarms: {command_topic: 'cosyedge/#'}\n") == [
        "site.yaml: alarms.command_topic: must be a topic without wildcards, got 'cosyedge/#'"
    ]
