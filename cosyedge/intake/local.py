"""Alerts asked for over the local HTTP API (docs/http.md), read strictly.

A say request is either a phrase, `{"text", "priority", "lang", "id", "ttl", "volume"}`, or a
template and the fields an MQTT publisher would send, `{"template", "fields"}`. Either becomes
one message, journaled and read like any other: a phrase on the reserved topic `SAY_TOPIC`
(never taken from the broker), whose payload is the request in canonical JSON; a template
request on the topic its fields fill in, with the payload a publisher would have sent. So a
restart takes an HTTP alert back from the journal exactly as it takes an MQTT one.

Unlike a published payload, which is taken as far as it can be, a request with an unknown
field, a wrong type or a value out of range is refused whole (`BadField`, naming the field).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from cosyedge.config.voices import VoiceConfig
from cosyedge.config.zones import ALL, zone_names
from cosyedge.intake.alert import (
    InvalidJson,
    clean_text,
    json_kind,
    load_json,
    without_surrogates,
)
from cosyedge.intake.templates import TemplateSet
from cosyedge.model import PRIORITIES, RejectedAlert
from cosyedge.speech.tags import matching_voice

SAY_TOPIC = "cosyedge/http/say"
DEFAULT_PRIORITY = "medium"
MAX_CHARS = 1000  # as a template's default max_chars
SAY_FIELDS = ("text", "priority", "lang", "id", "ttl", "volume", "zone")
# /v1/audio/speech as OpenAI's clients send it (OpenAI's API reference, "Create speech"): its
# fields, its built-in voices and the range of `speed`. None of its voices is one here: each
# stands for the configured voice that reads the input's script, as no `voice` does.
SPEECH_FIELDS = ("model", "input", "voice", "response_format", "speed", "instructions")
SPEECH_FIELDS = (*SPEECH_FIELDS, "stream_format")
OPENAI_VOICES = ("alloy", "ash", "ballad", "cedar", "coral", "echo", "fable", "marin", "nova")
OPENAI_VOICES = (*OPENAI_VOICES, "onyx", "sage", "shimmer", "verse")
SPEED = (0.25, 4.0)
TEMPLATE_FIELDS = ("template", "fields")
_LANG = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*\Z")
_LEVEL_BAD = re.compile(r"[/+#\x00]")


class BadField(RejectedAlert):
    """A request refused whole: which field, and why."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


@dataclass(frozen=True)
class SayRequest:
    """A phrase to say, as checked; `payload` is its canonical JSON."""

    text: str
    priority: str
    lang: str | None
    id: str | None
    ttl: float | None
    volume: float | None
    zone: str | None = None  # the zones it is said in, by name, joined by commas

    @property
    def zones(self) -> tuple[str, ...]:
        """The zones it is said in; empty: every zone."""
        return tuple(self.zone.split(",")) if self.zone else ()

    @property
    def payload(self) -> bytes:
        fields = {k: getattr(self, k) for k in SAY_FIELDS if getattr(self, k) is not None}
        return json.dumps(fields, ensure_ascii=False, sort_keys=True).encode()

    def key(self) -> str:
        """The de-duplication key: the id, else a hash of topic and payload, as for MQTT."""
        if self.id is not None:
            return self.id
        return hashlib.sha256(SAY_TOPIC.encode() + b"\0" + self.payload).hexdigest()[:16]


@dataclass(frozen=True)
class Speak:
    """Text to render as audio for the caller (not an alert): checked, language not chosen
    yet (None: by its script)."""

    text: str
    lang: str | None
    format: str  # wav, or pcm: the samples alone
    field: str = "text"  # the request's field that holds the text
    ignored: tuple[str, ...] = ()  # fields taken but not applied, which the answer names


def request_object(body: bytes) -> dict[str, Any]:
    """The body as a JSON object, without lone surrogates (see `without_surrogates`): its text
    becomes a journaled payload and answers, written as UTF-8. BadField when it is not one."""
    try:
        data = load_json(body, without_surrogates)
    except InvalidJson as exc:
        raise BadField("body", f"invalid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise BadField("body", f"expected a JSON object, got {json_kind(data)}")
    return data


def say_request(
    data: Mapping[str, Any], voices: Mapping[str, VoiceConfig], zones: Collection[str] = ()
) -> SayRequest:
    """A phrase request checked field by field; BadField names the first wrong one. `zones`:
    the zones configured, which its `zone` may name."""
    _known(data, SAY_FIELDS)
    text = _text(data, "text")
    priority = data.get("priority", DEFAULT_PRIORITY)
    if priority not in PRIORITIES:
        raise BadField("priority", f"expected one of {', '.join(PRIORITIES)}")
    return SayRequest(
        text=text,
        priority=priority,
        lang=_lang(data.get("lang"), voices),
        id=_id(data.get("id")),
        ttl=_number(data, "ttl", 0, 7 * 86400),
        volume=_number(data, "volume", 0, 1),
        zone=_zone(data.get("zone"), zones),
    )


def _zone(value: object, zones: Collection[str]) -> str | None:
    """The zones a request names (`hall`, `hall,yard`, `all`), each one the gateway has."""
    if value is None:
        return None
    if not zones:
        raise BadField("zone", "this gateway has no zones")
    if not isinstance(value, str) or len(value) > 1000:
        raise BadField("zone", "expected a zone's name, or several joined by commas")
    names = zone_names(value)
    unknown = [n for n in names if n != ALL and n not in zones]
    if not names or unknown:
        what = f"no zone {unknown[0]!r}" if unknown else "no zone named"
        raise BadField("zone", f"{what} (zones: {', '.join(zones)})")
    return ",".join(names)


def synthesis_request(data: Mapping[str, Any], voices: Mapping[str, VoiceConfig]) -> Speak:
    """`/v1/synthesize`: `{"text", "lang"}`, said as WAV."""
    _known(data, ("text", "lang"))
    return Speak(_text(data, "text"), _lang(data.get("lang"), voices), "wav")


def speech_request(data: Mapping[str, Any], voices: Mapping[str, VoiceConfig]) -> Speak:
    """`/v1/audio/speech`, the OpenAI shape: `input`; `voice`, a configured language or one of
    OPENAI_VOICES (the voice that reads the input); `response_format` wav or pcm. `model` is
    taken and not used (there is one per voice); `speed` (in SPEED) and `instructions` are
    taken and not applied (the voices speak at their own pace), which `ignored` says; a
    `stream_format` other than OpenAI's `audio` is refused."""
    _known(data, SPEECH_FIELDS)
    for name in ("model", "instructions"):
        if not isinstance(data.get(name, ""), str):
            raise BadField(name, "expected a string")
    form = data.get("response_format", "wav")
    if form not in ("wav", "pcm"):
        raise BadField("response_format", "expected wav or pcm")
    if data.get("stream_format", "audio") != "audio":
        raise BadField("stream_format", "expected audio (the audio itself, streamed)")
    voice = _voice(data.get("voice"), voices)
    return Speak(_text(data, "input"), voice, form, "input", _ignored(data))


def _voice(value: object, voices: Mapping[str, VoiceConfig]) -> str | None:
    """The configured language a `voice` names; None (by the input's script) for none or
    one of OpenAI's."""
    if value is None or value in OPENAI_VOICES:
        return None
    if not isinstance(value, str) or value not in voices:
        known = ", ".join([*voices, *OPENAI_VOICES])
        raise BadField("voice", f"expected a configured language or an OpenAI voice: {known}")
    return value


def _ignored(data: Mapping[str, Any]) -> tuple[str, ...]:
    """The fields that ask for what is not done: a `speed` other than 1, `instructions`."""
    speed = _number(data, "speed", *SPEED)
    ignored = ("speed",) if speed is not None and speed != 1.0 else ()
    return ignored + (("instructions",) if str(data.get("instructions", "")).strip() else ())


def template_message(data: Mapping[str, Any], templates: TemplateSet) -> tuple[str, bytes]:
    """The topic and payload an MQTT publisher would send for a template request."""
    _known(data, TEMPLATE_FIELDS)
    written = data.get("template")
    found = [t for t in templates.templates if t.config.topic == written]
    if not isinstance(written, str) or not found:
        known = ", ".join(t.config.topic for t in templates.templates)
        raise BadField("template", f"expected a configured template's topic ({known})")
    fields = data.get("fields", {})
    if not isinstance(fields, dict):
        raise BadField("fields", f"expected a JSON object, got {json_kind(fields)}")
    for name, value in fields.items():
        if isinstance(value, (dict, list)) or value is None:
            wanted = "expected a string, number or boolean"
            raise BadField(f"fields.{name}", f"{wanted}, got {json_kind(value)}")
    template = found[0]
    topic, rest = _topic(written, fields)
    if templates.find(topic)[0] is not template:
        raise BadField("template", f"topic {topic!r} is taken by an earlier template")
    if template.config.payload == "text":
        if set(rest) != {"text"} or not isinstance(rest["text"], str):
            raise BadField("fields", "a text template takes only the field text, a string")
        return topic, rest["text"].encode()
    return topic, json.dumps(rest, ensure_ascii=False).encode()


def _topic(written: str, fields: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The template's topic with each `{name}` level filled from `fields`, and the fields left."""
    rest = dict(fields)
    levels = []
    for level in written.split("/"):
        if level in ("+", "#"):
            raise BadField("template", "a level without a name cannot be filled; publish on MQTT")
        if level.startswith("{") and level.endswith("}"):
            name = level[1:-1]
            value = rest.pop(name, None)
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                raise BadField(f"fields.{name}", "required by the topic: a string or integer")
            level = str(value)
            if not clean_text(level) or _LEVEL_BAD.search(level):
                # Empty (spaces, invisible characters) would be read as a missing field.
                raise BadField(f"fields.{name}", "a topic level: not empty, no / + # or NUL")
        levels.append(level)
    return "/".join(levels), rest


def _text(data: Mapping[str, Any], name: str) -> str:
    text = data.get(name)
    if text is not None and not isinstance(text, str):
        raise BadField(name, f"expected a string (the phrase to say), got {json_kind(text)}")
    if text is None or not clean_text(text):
        raise BadField(name, _why_empty(text or ""))
    return text


def _why_empty(text: str) -> str:
    """Why a text is no phrase: none given, or (a lone surrogate, which no UTF-8 can hold,
    that a JSON reader passed on) not valid Unicode, so nothing is left to say."""
    if any("\ud800" <= c <= "\udfff" for c in text):
        return "not valid Unicode (a lone surrogate): nothing left to say"
    return "required: the phrase to say, a non-empty string"


def _known(data: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    for name in data:
        if name not in allowed:
            raise BadField(name, f"unknown field (known: {', '.join(allowed)})")


def _lang(value: object, voices: Mapping[str, VoiceConfig]) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not _LANG.match(value):
        raise BadField("lang", "expected a language code like en or zh-CN")
    if matching_voice(value, voices) is None:
        raise BadField("lang", f"no voice for it (voices: {', '.join(voices)})")
    return value


def _id(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
        raise BadField("id", "expected a non-empty string or an integer")
    return str(value)


def _number(data: Mapping[str, Any], name: str, low: float, high: float) -> float | None:
    value = data.get(name)
    if value is None:
        return None
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or not low <= value <= high:
        raise BadField(name, f"expected a number {low:g}-{high:g}")
    return float(value)
