"""Alert → Announcement: topic-filter matching and a formatter that can only fill in plain values.

Template text uses `{name}` placeholders and, for numbers, `{name:.Nf}`. Unlike `str.format`
there is no attribute or index access, no conversions and no padding, so a payload can never
reach into Python objects or blow up the phrase length.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cosyedge.alerts.alert import Alert, RejectedAlert, Scalar

if TYPE_CHECKING:
    from cosyedge.config import TemplateConfig

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SPEC = re.compile(r"\.(\d)f\Z")
_LANG = re.compile(r"[a-z]{2,3}\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
MAX_VALUE_CHARS = 200


@dataclass(frozen=True)
class Announcement:
    """What to say, for whom and how urgently."""

    text: str
    lang: str
    priority: str
    alert: Alert


@dataclass(frozen=True)
class _Part:
    literal: str
    name: str | None = None
    decimals: int | None = None


def _parse_text(text: str) -> list[_Part]:
    parts = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise ValueError(f"text: {exc} (write a literal brace as {{{{ or }}}})") from None
    for literal, name, spec, conversion in parsed:
        if name is None:
            parts.append(_Part(literal))
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
        parts.append(_Part(literal, name, decimals))
    return parts


def _parse_filter(topic: str) -> tuple[str, list[str | None]]:
    """Subscription filter and, per level, the field name a `{name}` level captures."""
    if not topic or len(topic.encode()) > 65535:
        raise ValueError("topic: must be a non-empty MQTT topic filter")
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
    _, names = _parse_filter(topic)
    _parse_text(text)
    if len([n for n in names if n]) != len({n for n in names if n}):
        raise ValueError("topic: the same {name} appears twice")


class Template:
    def __init__(self, config: TemplateConfig) -> None:
        self.config = config
        self.filter, self._names = _parse_filter(config.topic)
        self._parts = _parse_text(config.text)

    def match(self, topic: str) -> dict[str, str] | None:
        """Fields taken from the topic's levels, or None when the topic does not match."""
        levels = topic.split("/")
        captured: dict[str, str] = {}
        pattern = self.filter.split("/")
        for i, want in enumerate(pattern):
            if want == "#":
                return captured
            if i >= len(levels):
                return None
            if want == "+":
                name = self._names[i]
                if name:
                    captured[name] = levels[i]
            elif want != levels[i]:
                return None
        return captured if len(levels) == len(pattern) else None

    def render(self, alert: Alert, topic_fields: Mapping[str, str]) -> Announcement:
        fields: dict[str, Scalar] = {**alert.fields, **topic_fields}
        out = []
        for part in self._parts:
            out.append(part.literal)
            if part.name is None:
                continue
            if part.name not in fields:
                raise RejectedAlert(
                    f"missing field {part.name!r} for template {self.config.topic!r}"
                )
            out.append(_value_text(fields[part.name], part.decimals))
        text = " ".join("".join(out).split())
        if not text:
            raise RejectedAlert(f"template {self.config.topic!r} rendered an empty phrase")
        return Announcement(
            text=_shorten(text, self.config.max_chars),
            lang=_alert_lang(alert) or self.config.lang,
            priority=alert.priority or self.config.priority,
            alert=alert,
        )


def _alert_lang(alert: Alert) -> str | None:
    """An alert may name its language (`"lang": "zh"`), as Hermes `tts/say` messages do."""
    value = alert.fields.get("lang")
    if isinstance(value, str) and _LANG.match(value.strip().lower()):
        return value.strip().lower()
    return None


def _value_text(value: Scalar, decimals: int | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if decimals is not None:
        try:
            return f"{float(value):.{decimals}f}"
        except (TypeError, ValueError, OverflowError):
            pass
    return plain_text(str(value), MAX_VALUE_CHARS)


def plain_text(text: str, limit: int) -> str:
    """Text from outside made fit to speak: no control characters, single spaces, bounded."""
    return _shorten(" ".join(_CONTROL.sub(" ", text).split()), limit)


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit + 1)
    return text[: cut if cut > limit // 2 else limit].rstrip()


class TemplateSet:
    """The configured templates; the first whose topic filter matches wins."""

    def __init__(self, configs: Iterable[TemplateConfig]) -> None:
        self.templates = [Template(c) for c in configs]

    @property
    def filters(self) -> list[str]:
        return list(dict.fromkeys(t.filter for t in self.templates))

    def find(self, topic: str) -> tuple[Template, dict[str, str]]:
        for template in self.templates:
            captured = template.match(topic)
            if captured is not None:
                return template, captured
        raise RejectedAlert("no template matches this topic")
