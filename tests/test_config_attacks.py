"""Configuration files an attacker (or a careless edit) shapes to be misread, on the loader,
`cosyedge check`, a start and a reload of the real daemon with a real Mosquitto: a key given
twice, a NUL byte, an empty file reloaded."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from support import Listener, cosyedge, free_port, publish, site_yaml

from cosyedge.config.loader import ConfigError, parse_config

PLANT = 'templates:\n  - topic: "plant/{line}/temperature"\n    text: "Plant {line}."\n'
SAY = 'templates:\n  - topic: cosyedge/say\n    text: "{text}"\n'


def reload(daemon) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "cosyedge", "reload", "--config", str(daemon.config)]
    command += ["--pid", str(daemon.process.pid)]
    return subprocess.run(command, capture_output=True, text=True, env=daemon.env, timeout=120)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (PLANT + SAY, "line 4: key 'templates' given twice (first at line 1)"),
        (
            "mqtt:\n  host: a\n  port: 1883\n  host: b\n",
            "line 4: key 'host' given twice (first at line 2)",
        ),
        (
            "templates:\n  - topic: a/b\n    text: x\n    topic: c/d\n",
            "line 4: key 'topic' given twice (first at line 2)",
        ),
        ("mqtt: {host: a, host: b}\n", "line 1: key 'host' given twice (first at line 1)"),
    ],
    ids=["top level", "nested", "in a list", "flow"],
)
def test_a_key_given_twice_at_any_depth_is_refused_naming_both_lines(text, said):
    with pytest.raises(ConfigError) as refused:
        parse_config(text, "site.yaml")
    assert refused.value.problems == [f"site.yaml: {said}"]


def test_a_merge_key_is_not_a_key_given_twice():
    """`<<:` (YAML's merge) names what it overrides on purpose."""
    text = "base: &b {host: a}\n"
    with pytest.raises(ConfigError, match="base: unknown key"):  # the merge itself is read
        parse_config(text + "mqtt:\n  <<: *b\n  host: c\n", "site.yaml")


def test_check_refuses_a_key_given_twice(tmp_path):
    path = tmp_path / "site.yaml"
    path.write_text(site_yaml(1883, tmp_path) + PLANT + SAY)
    result = cosyedge("check", "--config", str(path))
    assert result.returncode == 2, (result.stdout, result.stderr)
    line = PLANT.count("\n") + site_yaml(1883, tmp_path).count("\n") + 1
    first = site_yaml(1883, tmp_path).count("\n") + 1
    assert f"{path}: line {line}: key 'templates' given twice (first at line {first})" in (
        result.stderr
    )


def test_a_start_and_a_reload_refuse_a_key_given_twice(broker, make_daemon, tmp_path):
    """Started on a file with `templates:` twice, the daemon refuses it (fault `config`), as
    a reload to such a file is refused: the plant topics stay subscribed."""
    base = site_yaml(broker.port, tmp_path)
    daemon = make_daemon(base + PLANT + SAY)
    daemon.wait_for_log(r"configuration refused: .*key 'templates' given twice")
    daemon.config.write_text(base + PLANT)
    done = reload(daemon)
    assert done.returncode == 0, (done.stdout, done.stderr)
    daemon.config.write_text(base + PLANT + SAY)
    done = reload(daemon)
    assert done.returncode != 0, (done.stdout, done.stderr)
    assert "key 'templates' given twice" in done.stderr, done.stderr
    publish(broker.port, "plant/7/temperature", json.dumps({"value": 1, "id": "p-1"}))
    daemon.wait_for_log(r"spoke alert p-1 .* text='Plant 7.'")


def test_a_nul_in_a_config_file_is_named_by_line_and_column(tmp_path):
    with pytest.raises(ConfigError) as refused:
        parse_config("state_dir: /tmp/x\nlog_level: in\0fo\n", "site.yaml")
    (problem,) = refused.value.problems
    assert "\n" not in problem
    assert re.match(r"site.yaml: line 2, column 14: invalid YAML: unacceptable character", problem)


def test_an_empty_file_reloaded_is_refused_without_a_word_about_starting(
    broker, make_daemon, tmp_path
):
    daemon = make_daemon(site_yaml(broker.port, tmp_path) + SAY)
    daemon.config.write_text("")
    done = reload(daemon)
    assert done.returncode != 0, (done.stdout, done.stderr)
    assert "no setting in it" in done.stderr, done.stderr
    assert "--config" not in done.stderr.replace(f"--config {daemon.config}", ""), done.stderr


def test_what_waits_for_a_restart_after_the_safe_core_is_a_fault_until_then(
    broker, make_daemon, tmp_path
):
    """Started on a refused file (no last good one): the safe core runs, without the HTTP
    API. Reloaded onto the good file, the fault `config` clears, and the fault `restart` names
    the keys that take a restart (the HTTP API stays off until then), so the status is not
    `online` while the file is not all in force."""
    http = f"http:\n  enabled: true\n  listen: 127.0.0.1:{free_port()}\n"
    good = site_yaml(broker.port, tmp_path) + SAY + http
    watch = Listener(broker.port, "cosyedge/status")
    daemon = make_daemon(good + SAY)  # templates twice: refused
    watch.wait_for("cosyedge/status", lambda s: "config" in s[-1].get("faults", {}))
    daemon.config.write_text(good)
    done = reload(daemon)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "waiting for a restart: " in done.stdout and "http" in done.stdout, done.stdout

    def restart_only(statuses: list) -> bool:
        faults = statuses[-1].get("faults", {})
        return "config" not in faults and "restart" in faults

    statuses = watch.wait_for("cosyedge/status", restart_only)
    assert statuses[-1]["state"] == "degraded"
    assert "http" in statuses[-1]["faults"]["restart"]
    watch.close()
