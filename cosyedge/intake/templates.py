"""Alert → Announcement: topic-filter matching and a formatter that can only fill in plain values.

Template text uses `{name}` placeholders and, for numbers, `{name:.Nf}`. Unlike `str.format`
there is no attribute or index access, no conversions and no padding, so a payload can never
reach into Python objects or blow up the phrase length. Numbers are held to what can be said
(finite, below 1e15, at most 20 characters as written). The phrase's characters are bounded
by `max_chars`, a bound on what arrives; how long it takes to say is bounded where the voice
reads it (`speech/cost.py`, `alarms.max_spoken_s`), since characters tell little of that.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING

from cosyedge.config.syntax import parse_filter, parse_text
from cosyedge.config.values import combinations, placeholders
from cosyedge.config.zones import ALL, zone_names
from cosyedge.intake.alert import (
    brief,
    clean_text,
    given_kind,
    id_note,
    json_kind,
    priority_note,
)
from cosyedge.model import Alert, Announcement, Prelude, RejectedAlert, Scalar
from cosyedge.speech.cache.warm import Phrase
from cosyedge.speech.lang import says_anything, split_runs

if TYPE_CHECKING:
    from cosyedge.config.templates import TemplateConfig

_LANG = re.compile(r"[a-z]{2,3}\Z")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")  # as the text front ends read one number
MAX_NUMBER = 1e15  # a number's size: up to "nine hundred ninety nine trillion ..."
MAX_NUMBER_CHARS = 20  # a number as written, sign and decimals included


class Template:
    def __init__(
        self, config: TemplateConfig, zones: Collection[str] = (), any_zone: bool = False
    ) -> None:
        """`any_zone`: every name a `zone` field gives is kept, none noted as no zone's (a
        standby covering some of its primary's zones: the others' names it cannot list)."""
        self.config = config
        self.zones = zones  # the zones configured: what an alert's `zone` field may name
        self.any_zone = any_zone
        self.filter, self._names = parse_filter(config.topic)
        self._parts = parse_text(config.text)

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

    def announcement(self, alert: Alert, topic_fields: Mapping[str, str]) -> Announcement:
        """The phrase the alert's fields and the topic's levels fill in; RejectedAlert naming
        the field when one is missing or cannot be said. A field that holds nothing to say
        (an empty topic level, text of spaces or invisible characters) is missing: a topic
        level that is empty gives no field (the payload's of that name may still fill it)."""
        levels = {name: value for name, value in topic_fields.items() if clean_text(value)}
        fields: dict[str, Scalar] = {**alert.fields, **levels}
        out = []
        for part in self._parts:
            out.append(part.literal)
            if part.name is None:
                continue
            value = fields.get(part.name)
            kind = alert.wrong.get(part.name)
            if value is None and kind is not None:  # given, but as no value to say
                raise RejectedAlert(_wrong_type(part.name, kind, part.decimals))
            if value is None or (isinstance(value, str) and not clean_text(value)):
                raise RejectedAlert(self._missing(part.name, topic_fields, fields))
            out.append(_value_text(part.name, value, part.decimals))
        lang = _alert_lang(alert) or self.config.lang
        topic = self.config.topic
        text, left_out = plain_text("".join(out), self.config.max_chars)
        if not text:
            raise RejectedAlert(f"nothing to say in {lang}: template {topic!r} rendered nothing")
        priority = alert.priority or self.config.priority
        # A topic level named `zone` names zones as a payload field does (the payload's wins).
        zoned = (
            alert
            if "zone" not in levels
            else replace(alert, fields={"zone": levels["zone"], **alert.fields})
        )
        zones, zone_note = alert_zones(zoned, self.config.zones, self.zones, self.any_zone)
        notes = (
            priority_note(alert, priority),
            _lang_note(alert, lang),
            id_note(alert),
            left_out,
            zone_note,
        )
        return Announcement(
            text=text,
            lang=lang,
            priority=priority,
            alert=alert,
            notes=tuple(note for note in notes if note),
            max_spoken_s=self.config.max_spoken_s,
            alarm=alarm_of(self.config, alert.topic, text),
            zones=zones,
            prelude=Prelude(self.config.tone, self.config.recorded),
        )

    def _missing(self, name: str, levels: Mapping[str, str], fields: Mapping[str, Scalar]) -> str:
        """Why the field `name` is missing: not given, given empty, or its level empty."""
        why = ""
        if name in fields:
            why = " (it is empty)"
        elif name in levels:
            why = " (its topic level is empty)"
        return f"missing field {name!r} for template {self.config.topic!r}{why}"


def alarm_of(config: TemplateConfig, topic: str, text: str) -> str | None:
    """The alarm an alert of this template is in the ISA-18.2 figures: its topic (the
    source), or its topic and phrase; None for an announcement (see TemplateConfig.alarm)."""
    kind = config.counts_as
    if kind == "none":
        return None
    return topic if kind == "topic" else f"{topic}: {text}"


def alert_zones(
    alert: Alert, own: tuple[str, ...], known: Collection[str], any_zone: bool = False
) -> tuple[tuple[str, ...], str | None]:
    """The zones an alert is said in: those its `zone` field names (one name, several with
    commas, or `all`), else its template's (`own`; empty: every zone); and what to tell of
    names no zone has, which are left out. Without zones (`known` empty) the field is not
    read: the one output says everything. With `any_zone` every name is kept."""
    if not (known or any_zone) or ("zone" not in alert.fields and "zone" not in alert.wrong):
        return own, None
    used = ", ".join(own) if own else "every zone"
    value = alert.fields.get("zone")
    if not isinstance(value, str):
        kind = alert.wrong.get("zone") or json_kind(value)
        return own, f"zone: expected a zone name, got {kind}; said in {used}"
    names = zone_names(value)
    if not names:
        return own, f"zone: no zone named in {brief(value)}; said in {used}"
    unknown = [] if any_zone else [n for n in names if n != ALL and n not in known]
    given = tuple(n for n in names if n not in unknown)
    if not unknown:
        return given, None
    said = ("every zone" if ALL in given else ", ".join(given)) if given else used
    return given or own, f"zone: no zone {brief(', '.join(unknown))} here; said in {said}"


def _alert_lang(alert: Alert) -> str | None:
    """An alert may name its language (`"lang": "zh"`), as Hermes `tts/say` messages do."""
    value = alert.fields.get("lang")
    if isinstance(value, str) and _LANG.match(value.strip().lower()):
        return value.strip().lower()
    return None


def _lang_note(alert: Alert, used: str) -> str | None:
    """What to tell about a payload `lang` that is not a language code: it is ignored."""
    value = alert.fields.get("lang")
    kind = given_kind(alert, "lang")
    if kind is None and value is not None and _alert_lang(alert) is None:
        kind = brief(value) if isinstance(value, str) else json_kind(value)
    if kind is None:
        return None
    return f"lang: expected a language code such as en, got {kind}; used {used}"


def _wrong_type(name: str, kind: str, decimals: int | None) -> str:
    """Why a field given with the wrong JSON type cannot fill its placeholder."""
    expected = "a number" if decimals is not None else "a string, number or boolean"
    return f"field {name!r}: expected {expected}, got {kind}"


def _value_text(name: str, value: Scalar, decimals: int | None) -> str:
    """A field's value as the phrase says it; RejectedAlert naming the field when it is not
    one to say there: a boolean where a number is asked for (`:.1f`), or a number that
    cannot be said (see `_number_text`)."""
    if isinstance(value, bool):
        if decimals is not None:  # "true degrees" would hide that the number is missing
            raise RejectedAlert(_wrong_type(name, json_kind(value), decimals))
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _number_text(name, value, decimals)
    if decimals is not None:
        try:
            number = float(value)
        except ValueError:  # a word where a number was expected is said as it is
            return clean_text(value)
        return _number_text(name, number, decimals)
    return clean_text(value)


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


def plain_text(text: str, limit: int) -> tuple[str, str]:
    """Text from outside made fit to speak: no control or invisible format characters, single
    spaces, at most `limit` characters; with a note naming what was left out when it was
    longer (empty when nothing was). The cut falls at the last space, else before a number
    it would go through (part of a number would say another one), else at the limit."""
    clean = clean_text(text)
    if len(clean) <= limit:
        return clean, ""
    cut = clean.rfind(" ", 0, limit + 1)
    if cut <= 0:
        straddling = (m for m in _NUMBER.finditer(clean) if m.start() < limit < m.end())
        cut = next((m.start() for m in straddling), limit) or limit
    kept = clean[:cut].rstrip()
    return kept, f"shortened: over {limit} characters, left out {_quoted(clean[cut:].strip())}"


def _quoted(text: str, limit: int = 200) -> str:
    """`text` quoted for a note, its middle left out past `limit` characters."""
    if len(text) <= limit:
        return repr(text)
    return repr(f"{text[: limit // 2]}...{text[-limit // 2 :]}")


class TemplateSet:
    """The configured templates; the first whose topic filter matches wins."""

    def __init__(
        self, configs: Iterable[TemplateConfig], zones: Collection[str] = (), any_zone: bool = False
    ) -> None:
        self.templates = [Template(c, zones, any_zone) for c in configs]

    @property
    def filters(self) -> list[str]:
        return list(dict.fromkeys(t.filter for t in self.templates))

    def find(self, topic: str) -> tuple[Template, dict[str, str]]:
        for template in self.templates:
            captured = template.match(topic)
            if captured is not None:
                return template, captured
        raise RejectedAlert("no template matches this topic")


def declared_phrases(templates: Iterable[TemplateConfig]) -> list[Phrase]:
    """Every phrase the templates can say, for those whose phrases form a finite set: a
    template with no placeholders says one fixed phrase, one whose every placeholder has
    declared `values` says their combinations (rendered ahead into the cache). A phrase
    with no word or number in it (punctuation only) is not one: its alert is rejected as
    `nothing to say`, whatever the language, so it is never rendered nor counted."""
    phrases: dict[Phrase, None] = {}
    for config in templates:
        if placeholders(config.text) and not config.values:
            continue
        template = Template(config)
        for fields in combinations(config.values):
            alert = Alert(topic=config.topic, fields=fields, id="warm", received=0.0)
            try:
                announcement = template.announcement(alert, {})
            except RejectedAlert:
                continue
            if says_anything(split_runs(announcement.text, announcement.lang)):
                phrases[Phrase(announcement.text, announcement.lang)] = None
    return list(phrases)
