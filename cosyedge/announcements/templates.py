"""Alert → Announcement: topic-filter matching and a formatter that can only fill in plain values.

Template text uses `{name}` placeholders and, for numbers, `{name:.Nf}`. Unlike `str.format`
there is no attribute or index access, no conversions and no padding, so a payload can never
reach into Python objects or blow up the phrase length. Numbers are held to what can be said
(finite, below 1e15, at most 20 characters as written), and a digit or a symbol counts as ten
characters toward a length limit, since each is said as a word or more.
"""

from __future__ import annotations

import math
import re
import string
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from cosyedge.alerts.alert import Alert, RejectedAlert, Scalar, brief, clean_text, priority_note

if TYPE_CHECKING:
    from cosyedge.config import TemplateConfig

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SPEC = re.compile(r"\.(\d)f\Z")
_LANG = re.compile(r"[a-z]{2,3}\Z")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")  # as the text front ends read one number
MAX_VALUE_CHARS = 200
MAX_NUMBER = 1e15  # a number's size: up to "nine hundred ninety nine trillion ..."
MAX_NUMBER_CHARS = 20  # a number as written, sign and decimals included
# What a digit or a symbol counts toward a length limit. Said as words, a digit takes up to
# 0.74 s ("777,777,777,777,777"), a symbol about as long ("-7 °C": minus seven degrees
# Celsius), where a letter of ordinary text takes 0.07 s (hibari): so counted, numbers and
# units cannot make a phrase much longer to say than max_chars of words.
WORD_CHARS = 10
_SAID_AS_WORDS = frozenset("%‰#&@")  # punctuation by category, said as words all the same


@dataclass(frozen=True)
class Announcement:
    """What to say, for whom and how urgently."""

    text: str
    lang: str
    priority: str
    alert: Alert
    notes: tuple[str, ...] = ()  # what was not taken as given, for the outcome report


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
            out.append(_value_text(part.name, fields[part.name], part.decimals))
        lang = _alert_lang(alert) or self.config.lang
        topic = self.config.topic
        text = plain_text("".join(out), self.config.max_chars, f"template {topic!r}")
        if not text:
            raise RejectedAlert(f"nothing to say in {lang}: template {topic!r} rendered nothing")
        note = priority_note(alert.fields, self.config.priority)
        return Announcement(
            text=text,
            lang=lang,
            priority=alert.priority or self.config.priority,
            alert=alert,
            notes=(note,) if note else (),
        )


def _alert_lang(alert: Alert) -> str | None:
    """An alert may name its language (`"lang": "zh"`), as Hermes `tts/say` messages do."""
    value = alert.fields.get("lang")
    if isinstance(value, str) and _LANG.match(value.strip().lower()):
        return value.strip().lower()
    return None


def _value_text(name: str, value: Scalar, decimals: int | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _number_text(name, value, decimals)
    if decimals is not None:
        try:
            number = float(value)
        except ValueError:  # a word where a number was expected is said as it is
            return plain_text(value, MAX_VALUE_CHARS, f"field {name!r}")
        return _number_text(name, number, decimals)
    return plain_text(value, MAX_VALUE_CHARS, f"field {name!r}")


def _number_text(name: str, number: int | float, decimals: int | None) -> str:
    """The number as written for the phrase; RejectedAlert naming the field when it cannot
    be said: not finite, not below MAX_NUMBER, or longer than MAX_NUMBER_CHARS written."""
    if isinstance(number, float) and not math.isfinite(number):
        raise RejectedAlert(f"field {name!r}: not a finite number")
    if abs(number) >= MAX_NUMBER:
        raise RejectedAlert(
            f"field {name!r}: number {brief(number)} out of range (it must be below 1e15)"
        )
    written = _written(number, decimals)
    if len(written) > MAX_NUMBER_CHARS:
        raise RejectedAlert(
            f"field {name!r}: number {written} too long to say "
            f"(more than {MAX_NUMBER_CHARS} characters; round it with :.Nf)"
        )
    return written


def _written(number: int | float, decimals: int | None) -> str:
    if decimals is not None:
        return f"{number:.{decimals}f}"
    if isinstance(number, int):
        return str(number)
    return format(Decimal(repr(number)), "f")  # 1e-05 as 0.00001: an exponent is not said


def plain_text(text: str, limit: int, what: str) -> str:
    """Text from outside made fit to speak: no control or invisible format characters, single
    spaces, at most `limit` by spoken_length. RejectedAlert naming `what` when the limit leaves
    nothing of it, which only a number too long for the limit at its start can do."""
    clean = clean_text(text)
    short = _shorten(clean, limit)
    if clean and not short:
        raise RejectedAlert(
            f"{what}: begins with a number too long to say within {limit} characters "
            f"(a digit counts {WORD_CHARS})"
        )
    return short


def spoken_length(text: str) -> int:
    """The length a limit counts: characters, a digit or symbol as WORD_CHARS of them."""
    return sum(_weight(c) for c in text)


def _weight(c: str) -> int:
    if c.isascii() and c.isalpha():  # the common case, without a table lookup
        return 1
    wordy = c.isdigit() or c in _SAID_AS_WORDS or unicodedata.category(c)[0] == "S"
    return WORD_CHARS if wordy else 1


def _shorten(text: str, limit: int) -> str:
    """At most `limit` by spoken_length, cut at the last space if that keeps over half, else
    within a word, but never within a number: part of a number would say another one."""
    end = _fitting(text, limit)
    if end == len(text):
        return text
    cut = text.rfind(" ", 0, end + 1)
    if cut <= end // 2:
        straddling = (m for m in _NUMBER.finditer(text) if m.start() < end < m.end())
        cut = next((m.start() for m in straddling), end)
    return text[:cut].rstrip()


def _fitting(text: str, limit: int) -> int:
    """How many characters from the start fit within `limit` by spoken_length."""
    used = 0
    for i, c in enumerate(text):
        used += _weight(c)
        if used > limit:
            return i
    return len(text)


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
