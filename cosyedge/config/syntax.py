"""The template language: `{name}` placeholders in the text and `{name}` levels in the topic.

Parsed here, apart from filling in values (intake/templates.py), so the configuration can
check a template's syntax when it is loaded without depending on the intake stage.
Placeholders are plain field names, optionally `{name:.Nf}` for a number's decimals: no
attribute or index access, no conversions and no padding.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SPEC = re.compile(r"\.(\d)f\Z")


@dataclass(frozen=True)
class Part:
    """One piece of a template's text: literal text, then the field named in `{name}` (with
    the decimals it is said with, if given), or no field at the end."""

    literal: str
    name: str | None = None
    decimals: int | None = None


def parse_text(text: str) -> list[Part]:
    parts = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise ValueError(f"text: {exc} (write a literal brace as {{{{ or }}}})") from None
    for literal, name, spec, conversion in parsed:
        if name is None:
            parts.append(Part(literal))
            continue
        if not _NAME.match(name):
            raise ValueError(f"text: placeholder {{{name}}} must be a plain field name")
        if conversion:
            raise ValueError(f"text: placeholder {{{name}!{conversion}}}: conversions not allowed")
        decimals = None
        if spec:
            m = _SPEC.match(spec)
            if not m:
                raise ValueError(f"text: placeholder {{{name}:{spec}}}: only :.Nf is allowed")
            decimals = int(m.group(1))
        parts.append(Part(literal, name, decimals))
    return parts


def parse_filter(topic: str) -> tuple[str, list[str | None]]:
    """Subscription filter and, per level, the field name a `{name}` level captures."""
    if not topic or len(topic.encode()) > 65535:
        raise ValueError("topic: must be a non-empty MQTT topic filter")
    if "\0" in topic:  # MQTT forbids U+0000 in a filter: the broker drops the connection
        raise ValueError("topic: an MQTT topic filter may not hold the character U+0000")
    levels = topic.split("/")
    names: list[str | None] = []
    out = []
    for i, level in enumerate(levels):
        if level.startswith("{") and level.endswith("}"):
            name = level[1:-1]
            if not _NAME.match(name):
                raise ValueError(f"topic: level {level} must be {{name}} with a plain name")
            names.append(name)
            out.append("+")
            continue
        if level == "#" and i != len(levels) - 1:
            raise ValueError("topic: # is only allowed as the last level")
        if level not in ("+", "#") and ("+" in level or "#" in level or "{" in level):
            raise ValueError(f"topic: wildcard in level {level!r} must fill the whole level")
        names.append(None)
        out.append(level)
    return "/".join(out), names


def check_template(topic: str, text: str) -> None:
    """Raise ValueError("key: reason") for a template that could not work."""
    _, names = parse_filter(topic)
    parse_text(text)
    if len([n for n in names if n]) != len({n for n in names if n}):
        raise ValueError("topic: the same {name} appears twice")
