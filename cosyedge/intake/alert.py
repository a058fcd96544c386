"""MQTT payload → Alert: decode, validate and reject with a reason a plant engineer can act on."""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from cosyedge.model import PRIORITIES, Alert, RejectedAlert, Scalar

MAX_ID_CHARS = 128
_ID_HASH_CHARS = 16
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]+")
# Format characters (bidi overrides, zero-width spaces and joiners, soft hyphens) are
# invisible in a log or report and silent in speech; surrogates cannot even be written out.
_INVISIBLE = ("Cf", "Cs")


class InvalidJson(ValueError):
    """Text that is not JSON cosyedge can read; the text says why."""


class Message:
    """One MQTT message on its way through intake. Its JSON is decoded at most once, when
    first asked for: a Hermes request is read for its site, who to answer and what to say."""

    def __init__(self, topic: str, payload: bytes) -> None:
        self.topic = topic
        self.payload = payload
        self._decoded: object = None
        self._error: str | None = None
        self._done = False

    def load_json(self, _text: str | bytes = b"") -> object:
        """`load_json` of the payload (whatever text is passed), decoded the first time."""
        if not self._done:
            self._done = True
            try:
                self._decoded = load_json(self.payload)
            except InvalidJson as exc:
                self._error = str(exc)
        if self._error is not None:
            raise InvalidJson(self._error)
        return self._decoded


def parse_alert(
    topic: str,
    payload: bytes,
    mode: str = "auto",
    max_bytes: int = 16384,
    load: Callable[[str], object] | None = None,
) -> Alert:
    """Decode one message; JSON objects give fields, plain text gives the field `text`.

    `auto` takes a payload as JSON when it starts with `{`, so a broken JSON object is
    rejected rather than read aloud brace by brace. `load` decodes JSON (default: load_json),
    e.g. `Message.load_json` for a payload already decoded.
    """
    if len(payload) > max_bytes:
        raise RejectedAlert(f"payload of {len(payload)} bytes exceeds {max_bytes}")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RejectedAlert(f"payload is not UTF-8 (byte {exc.start})") from None
    text = text.strip()
    if not text:
        raise RejectedAlert("empty payload")
    wrong: dict[str, str] = {}
    if mode == "json" or (mode == "auto" and text.startswith("{")):
        fields, wrong = _json_fields(text, load or load_json)
    else:
        fields = {"text": text}
    return Alert(
        topic=topic,
        fields=fields,
        id=_alert_id(topic, payload, fields),
        priority=_priority(fields),
        wrong=wrong,
    )


def load_json(
    text: str | bytes, pairs: Callable[[list[tuple[str, object]]], object] | None = None
) -> object:
    """`json.loads`, failing only with InvalidJson: bad syntax, bytes that are not UTF-8,
    nesting deeper than the interpreter recurses, or an integer longer than Python converts
    (`sys.get_int_max_str_digits()`, 4300 digits by default). `pairs`: json's
    `object_pairs_hook`, e.g. `without_surrogates`."""
    try:
        return json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        raise InvalidJson(f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except UnicodeDecodeError as exc:
        raise InvalidJson(f"not UTF-8 (byte {exc.start})") from None
    except RecursionError:
        raise InvalidJson("nested too deeply") from None
    except ValueError:  # what is left: int() refusing the digits of a poison number
        limit = sys.get_int_max_str_digits()
        raise InvalidJson(f"a number with more than {limit} digits") from None


def without_surrogates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """An object's members with lone surrogates (`"\\ud800"` in JSON, which no UTF-8 can
    hold) removed from its keys and text values, as `clean_text` removes them from MQTT text:
    a JSON object that must be written out again can then always be."""
    return {_no_surrogate(k): _no_surrogate(v) for k, v in pairs}


def _no_surrogate(value: Any) -> Any:
    if not isinstance(value, str) or value.isascii():
        return value
    return "".join(c for c in value if unicodedata.category(c) != "Cs")


def finite_number(value: object) -> float | None:
    """The value as a finite float; None for booleans, text, NaN, infinities and integers
    too large for a float (`1e400` in JSON is already infinity)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def brief(value: object) -> str:
    """A payload value as a reason quotes it: a poison number is not written out in full."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:32]}... ({len(text)} characters)"


def clean_text(text: str) -> str:
    """Text as it may be spoken, logged and reported: each run of control characters becomes
    a space, format characters and surrogates are removed, spaces are collapsed."""
    if not text.isascii():  # only non-ASCII text can hold a format character
        text = "".join(c for c in text if unicodedata.category(c) not in _INVISIBLE)
    return " ".join(_CONTROL.sub(" ", text).split())


def clean_id(raw: str) -> str:
    """An alert id as the reports, the log and the operator's commands name it: clean text of
    at most MAX_ID_CHARS; a longer id keeps a readable start and ends in a hash of all of it,
    so two long ids that share their start stay two alerts."""
    text = clean_text(raw)
    if len(text) <= MAX_ID_CHARS:
        return text
    digest = hashlib.sha256(text.encode()).hexdigest()[:_ID_HASH_CHARS]
    return f"{text[: MAX_ID_CHARS - _ID_HASH_CHARS - 1]}~{digest}"


def json_kind(value: object) -> str:
    """A JSON value's type in words, as a reason names what was given where another type
    was expected."""
    if value is None:
        return "null"
    kinds = {bool: "a boolean", str: "a string", list: "an array", dict: "an object"}
    return kinds.get(type(value), "a number")


def given_kind(alert: Alert, name: str) -> str | None:
    """The JSON type of the payload field `name` when it is one the alert cannot take as it
    is (not a string, number or boolean); None when it is one, or null, or not given: an
    optional field that is null is as if it were not given."""
    kind = alert.wrong.get(name)
    return None if kind == "null" else kind


def not_a_number(alert: Alert, name: str) -> str | None:
    """The JSON type of the payload field `name` when it is given as something that is no
    number (a boolean, a string, an array, an object); None when it is a number, null or not
    given. Whether a number is finite and in range is the caller's to judge."""
    value = alert.fields.get(name)
    kind = given_kind(alert, name)
    if kind is None and isinstance(value, (bool, str)):  # the plain values that are no number
        kind = json_kind(value)
    return kind


def priority_note(alert: Alert, used: str) -> str | None:
    """What to tell about a payload `priority` that is not one: it is ignored, not fatal."""
    value = alert.fields.get("priority")
    kind = given_kind(alert, "priority")
    if kind is None and isinstance(value, (int, float)):  # booleans too: all but a string
        kind = json_kind(value)
    if kind is not None:
        return f"priority: expected one of {', '.join(PRIORITIES)}, got {kind}; used {used}"
    if value is None or alert.priority is not None:
        return None
    return f"priority: unknown value {brief(value)}, used {used}"


def id_note(alert: Alert) -> str | None:
    """What to tell about a payload `id` of the wrong type: the alert is named by the hash of
    its topic and payload instead, as one without an id is."""
    value = alert.fields.get("id")
    kind = given_kind(alert, "id")
    if kind is None and isinstance(value, (bool, float)):
        kind = json_kind(value) if isinstance(value, bool) else brief(value)
    if kind is None:
        return None
    return f"id: expected a string or an integer, got {kind}; named by a hash of topic and payload"


def _json_fields(text: str, load: Callable[[str], object]) -> tuple[dict[str, Scalar], dict]:
    """The payload's plain values, and the JSON type of each field that is none (an array,
    an object, null): those can never be said, and their use says so (`Alert.wrong`)."""
    try:
        data = load(text)
    except InvalidJson as exc:
        raise RejectedAlert(f"invalid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise RejectedAlert(f"JSON payload must be an object, got {type(data).__name__}")
    plain = (str, int, float, bool)
    fields: dict[str, Scalar] = {k: v for k, v in data.items() if isinstance(v, plain)}
    wrong = {k: json_kind(v) for k, v in data.items() if not isinstance(v, plain)}
    return fields, wrong


def _alert_id(topic: str, payload: bytes, fields: Mapping[str, Scalar]) -> str:
    given = fields.get("id")
    if isinstance(given, (str, int)) and not isinstance(given, bool):
        cleaned = clean_id(str(given))
        if cleaned:
            return cleaned
    return hashed_id(topic, payload)


def hashed_id(topic: str, payload: bytes) -> str:
    """The id of a message that names none: a hash of its topic and payload, so only the very
    same message again is a duplicate."""
    return hashlib.sha256(topic.encode() + b"\0" + payload).hexdigest()[:16]


def _priority(fields: Mapping[str, Scalar]) -> str | None:
    value = fields.get("priority")
    if isinstance(value, str) and value.lower() in PRIORITIES:
        return value.lower()
    return None
