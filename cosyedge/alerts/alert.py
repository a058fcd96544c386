"""MQTT payload → Alert: decode, validate and reject with a reason a plant engineer can act on."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

Scalar = str | int | float | bool
PRIORITIES = ("critical", "high", "medium", "low")  # ISA-18.2 style, most urgent first


class RejectedAlert(Exception):
    """A message that cannot become an alert; the text says why."""


@dataclass(frozen=True)
class Alert:
    topic: str
    fields: Mapping[str, Scalar]
    id: str
    priority: str | None = None
    received: float = field(default_factory=time.time)


def parse_alert(topic: str, payload: bytes, mode: str = "auto", max_bytes: int = 16384) -> Alert:
    """Decode one message; JSON objects give fields, plain text gives the field `text`.

    `auto` takes a payload as JSON when it starts with `{`, so a broken JSON object is
    rejected rather than read aloud brace by brace.
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
    if mode == "json" or (mode == "auto" and text.startswith("{")):
        fields = _json_fields(text)
    else:
        fields = {"text": text}
    return Alert(
        topic=topic,
        fields=fields,
        id=_alert_id(topic, payload, fields),
        priority=_priority(fields),
    )


def _json_fields(text: str) -> dict[str, Scalar]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RejectedAlert(
            f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise RejectedAlert("invalid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise RejectedAlert(f"JSON payload must be an object, got {type(data).__name__}")
    # Only plain values can be spoken; nested objects and lists are left out on purpose.
    return {k: v for k, v in data.items() if isinstance(v, (str, int, float, bool))}


def _alert_id(topic: str, payload: bytes, fields: Mapping[str, Scalar]) -> str:
    given = fields.get("id")
    if isinstance(given, (str, int)) and not isinstance(given, bool) and str(given).strip():
        return str(given).strip()[:128]
    return hashlib.sha256(topic.encode() + b"\0" + payload).hexdigest()[:16]


def _priority(fields: Mapping[str, Scalar]) -> str | None:
    value = fields.get("priority")
    if isinstance(value, str) and value.lower() in PRIORITIES:
        return value.lower()
    return None
