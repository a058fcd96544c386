"""Generated hostile input, in process: payloads through intake and templates, and mutated
configurations through the loader. Nothing may raise anything but a reasoned rejection."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosyedge.config import ConfigError, parse_config
from cosyedge.intake import hermes
from cosyedge.intake.commands import parse_command
from cosyedge.intake.intake import Intake
from cosyedge.model import BadCommand, Refusal

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = int(os.environ.get("COSYEDGE_FUZZ_EXAMPLES", "300"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))

CONFIG = """
templates:
  - topic: "plant/{line}/alarm"
    text: "{text}"
    payload: json
  - topic: "plant/{line}/level"
    text: "Tank {tank} on line {line} is at {level:.1f} percent."
    priority: low
  - topic: "say/#"
    text: "{text}"
    payload: text
hermes:
  enabled: true
"""
TOPICS = ["plant/3/alarm", "plant/x/level", "say/it", "hermes/tts/say"]
INJECTIONS = [
    "{0.__class__}",
    "{text.__init__.__globals__}",
    "{0[0]}",
    "{level.__class__.__mro__}",
    "%(text)s",
    "{{text}}",
    "${text}",
    "{text!r:>{9999}}",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(INJECTIONS),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
field_names = st.sampled_from(["text", "id", "priority", "ttl", "level", "tank", "lang", "x"])
objects = st.dictionaries(field_names | st.text(max_size=10), values, max_size=8)


def _json(obj) -> bytes:
    return json.dumps(obj, allow_nan=True).encode()


# Numbers and characters that once went past the parser or the templates: integers longer
# than Python converts, literals that become infinities or NaN, format characters and lone
# surrogates (escaped in JSON) that cannot be written out as UTF-8.
poison_numbers = st.one_of(
    st.integers(4000, 6000).map(lambda n: "7" * n),
    st.integers(16, 400).map(lambda n: "-" + "9" * n),
    st.sampled_from(["1e400", "-1e400", "NaN", "Infinity", "-Infinity", "5e-324", "1e15"]),
)
odd_text = st.lists(
    st.sampled_from(["\\ud800", "\\udfff", "\\u202e", "\\u200b", "\\u0085", "7", " ", "x", "é"]),
    max_size=12,
).map("".join)


@st.composite
def poisoned(draw) -> bytes:
    name = draw(field_names)
    fields = [f'"{name}": {draw(poison_numbers)}']
    fields.append(f'"{draw(field_names)}": "{draw(odd_text)}"')
    if draw(st.booleans()):
        fields.append(f'"text": "{draw(odd_text)}"')
    return ("{" + ", ".join(draw(st.permutations(fields))) + "}").encode()


payloads = st.one_of(
    poisoned(),
    objects.map(_json),
    values.map(_json),
    st.binary(max_size=200),
    st.text(max_size=200).map(str.encode),
    st.integers(1, 3000).map(lambda d: ('{"text":' * d + '"x"' + "}" * d).encode()),
    st.integers(16000, 40000).map(lambda n: _json({"text": "A" * n})),
    st.sampled_from(INJECTIONS).map(lambda s: _json({"text": s, "level": 5, "tank": s})),
    st.binary(min_size=1, max_size=50).map(lambda b: b'{"text": "' + b + b'\xff"}'),
)


def test_every_generated_payload_is_accepted_or_rejected_with_a_reason():
    intake = Intake(parse_config(CONFIG))
    seen = {"accepted": 0, "rejected": 0}

    @FUZZ
    @given(topic=st.sampled_from(TOPICS), payload=payloads)
    def check(topic: str, payload: bytes) -> None:
        message = intake.message(topic, payload)
        assert message is not None
        offer = intake.read(message, 1, 0.0, 0.0)
        if isinstance(offer, Refusal):  # and never `failed`: nothing a payload holds raises
            assert offer.kind == "rejected" and offer.reason.strip(), offer
            seen["rejected"] += 1
            return
        seen["accepted"] += 1
        if offer.announcement is not None:
            text = offer.announcement.text
            assert text.strip()
            # Placeholders in payload values are spoken as written, never evaluated.
            assert not re.search(r"<(class|function|built-in|module)", text), text
            # Templates cut at their max_chars (at most 10000), Hermes texts at
            # hermes.max_chars, and say so.
            limit = 1000 if topic == "hermes/tts/say" else 10000
            assert len(text) <= limit
            if len(text) == limit:
                assert any(n.startswith("shortened:") for n in offer.announcement.notes)
            # Whatever is reported or cached can be written out, and holds nothing invisible.
            for said in (text, offer.key, *offer.announcement.notes):
                said.encode()
                assert not [c for c in said if unicodedata.category(c) in ("Cf", "Cc")], said

    check()
    print(f"intake fuzz: {seen}")
    assert seen["accepted"] and seen["rejected"]


def test_every_generated_command_or_hermes_request_is_read_or_refused_with_a_reason():
    seen = {"commands": 0, "refused": 0}

    @FUZZ
    @given(payload=payloads | poisoned().map(lambda p: p.replace(b"{", b'{"cmd": "shelve", ', 1)))
    def check(payload: bytes) -> None:
        request = hermes.request_of(payload)
        assert request is None or isinstance(request.site_id, str)
        try:
            command = parse_command(payload)
        except BadCommand as exc:
            assert str(exc).strip()
            seen["refused"] += 1
            return
        if command.id is not None:
            command.id.encode()  # an id the reports can name
        seen["commands"] += 1

    check()
    print(f"command fuzz: {seen}")
    assert seen["refused"]


# A template reads only the fields its text names: a payload's other keys, and every shape of
# payload, are the first test's (drawing them here was most of this test's CPU).
template_fields = st.dictionaries(field_names, values, max_size=4)


@FUZZ
@given(text=st.text(max_size=60) | st.sampled_from(INJECTIONS), fields=template_fields)
def test_generated_template_texts_are_refused_at_load_or_render_safely(text, fields):
    try:
        config = parse_config(yaml.safe_dump({"templates": [{"topic": "t/{line}", "text": text}]}))
    except ConfigError as exc:
        assert all(p.startswith("<config>: templates[0].") for p in exc.problems), exc.problems
        return
    intake = Intake(config)
    payload = _json(fields)
    offer = intake.read_journaled(1, "t/7", payload, 0.0, 0.0)
    if isinstance(offer, Refusal):
        assert offer.kind == "rejected" and offer.reason.strip(), offer
        return
    if offer.announcement is not None:
        assert not re.search(r"<(class|function|built-in|module)", offer.announcement.text)


# -- configuration mutations ----------------------------------------------------------------
BASE = yaml.safe_load((REPO / "config" / "cosyedge.yaml").read_text())
PROBLEM = re.compile(r"^fuzz\.yaml: [^\s:][^:]*: \S.*$")


def paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from paths(value, (*prefix, i))


ALL_PATHS = [p for p in paths(BASE) if p]
replacements = st.one_of(
    scalars,
    st.lists(scalars, max_size=3),
    st.dictionaries(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), scalars, max_size=3),
    st.integers(-(10**12), 10**12),
    st.sampled_from(["", "  ", "-1", "1e400", "plant/#", "{", "é" * 300]),
)


@st.composite
def mutated(draw):
    config = json.loads(json.dumps(BASE))
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(ALL_PATHS))
        parent = config
        try:
            for key in path[:-1]:
                parent = parent[key]
            action = draw(st.sampled_from(["replace", "delete", "add"]))
            if action == "replace":
                parent[path[-1]] = draw(replacements)
            elif action == "delete" and isinstance(parent, dict):
                parent.pop(path[-1], None)
            elif isinstance(parent, dict):
                parent[draw(st.from_regex(r"[a-z_]{1,12}", fullmatch=True))] = draw(scalars)
        except (KeyError, IndexError, TypeError):
            pass  # an earlier mutation removed or replaced this part
    return config


@settings(max_examples=EXAMPLES // 5, deadline=None, suppress_health_check=list(HealthCheck))
@given(config=mutated())
def test_mutated_configs_are_accepted_or_rejected_with_file_key_and_reason(config):
    text = yaml.safe_dump(config, allow_unicode=True)
    try:
        parse_config(text, "fuzz.yaml")
    except ConfigError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert PROBLEM.match(problem), problem


def check_lines_are_reasons(path: Path, stderr: str) -> None:
    """Each line `check` wrote is `file: key: reason`."""
    for line in stderr.strip().splitlines():
        assert line.startswith(f"{path}: "), line
        assert PROBLEM.match(line.replace(str(path), "fuzz.yaml", 1)), line


@pytest.mark.system
def test_cosyedge_check_on_mutated_files_never_shows_a_traceback(tmp_path, capfd, monkeypatch):
    """`cosyedge check` on each file, in this process (a traceback would be raised here), and
    the first it refuses once more as a command, as a user sees it."""
    import logging
    import random

    from cosyedge.cli import main

    # A check that passes sets up the command's logging: the root's handlers put back after.
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))
    rng = random.Random(5)
    refused: list[tuple[Path, str]] = []
    for i in range(6):
        config = json.loads(json.dumps(BASE))
        section = rng.choice(sorted(config))
        if isinstance(config[section], dict) and config[section]:
            key = rng.choice(sorted(config[section]))
            config[section][key] = rng.choice(["many", -5, [1], {"a": 1}, None, 10**9])
        else:
            config[section] = rng.choice(["x", 3, None])
        path = tmp_path / f"fuzz{i}.yaml"
        path.write_text(yaml.safe_dump(config))
        status = main(["check", "--config", str(path)])
        stderr = capfd.readouterr().err
        if status:
            assert status == 2
            check_lines_are_reasons(path, stderr)
            refused.append((path, stderr))
    assert refused
    path, stderr = refused[0]
    done = subprocess.run(
        [sys.executable, "-m", "cosyedge", "check", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in done.stderr + done.stdout
    assert (done.returncode, done.stderr) == (2, stderr)
