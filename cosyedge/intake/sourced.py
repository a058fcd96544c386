"""Alerts from the plant-system sources (`sources:`; cosyedge/sources/), as they are journaled.

A source decides what is an alarm by its own rules and hands the door a message like any other:
on a topic under `PREFIX` (its kind, then where the alarm is), whose payload is the alarm in
canonical JSON (`SourceAlert.payload`), the phrase already made. So a restart reads it back
from the journal exactly as it was first read, without the source. No message from the broker
is read as one (intake.py refuses the prefix there): only a source makes them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from cosyedge.intake.alert import InvalidJson, load_json
from cosyedge.model import PRIORITIES, RejectedAlert

PREFIX = "cosyedge/source/"
RETURN = ":return"  # a return to normal's key: the alarm's id with this after it


@dataclass(frozen=True)
class SourceAlert:
    """An alarm begun (`text` set) or returned to normal (`text` None), by its stable id."""

    id: str
    text: str | None
    priority: str = "high"
    lang: str = "en"
    fields: Mapping[str, str] = field(default_factory=dict)
    reason: str | None = None  # a return to normal's, when the source has one: its outcome's note

    @property
    def key(self) -> str:
        """The de-duplication key: the id, or for a return to normal the id and `RETURN`,
        so a return is never taken for a copy of its alarm."""
        return self.id if self.text is not None else self.id + RETURN

    @property
    def payload(self) -> bytes:
        if self.text is None:
            body: dict[str, object] = {"id": self.id, "clear": True}
            body |= {"reason": self.reason} if self.reason else {}
        else:
            body = {"id": self.id, "text": self.text, "priority": self.priority}
            body |= {"lang": self.lang, "fields": dict(self.fields)}
        return json.dumps(body, ensure_ascii=False, sort_keys=True).encode()


def is_sourced(topic: str) -> bool:
    return topic.startswith(PREFIX)


def read(payload: bytes) -> SourceAlert:
    """A journaled source alert; RejectedAlert when it is not one (a hand-made journal line)."""
    try:
        data = load_json(payload)
    except InvalidJson:
        raise RejectedAlert("not a source's alert: invalid JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        raise RejectedAlert("not a source's alert: no id")
    if data.get("clear") is True:
        reason = data.get("reason")
        return SourceAlert(data["id"], None, reason=reason if isinstance(reason, str) else None)
    text, priority, lang = data.get("text"), data.get("priority"), data.get("lang")
    fields = data.get("fields", {})
    if not isinstance(text, str) or priority not in PRIORITIES or not isinstance(lang, str):
        raise RejectedAlert("not a source's alert: text, priority and lang needed")
    if not isinstance(fields, dict):
        raise RejectedAlert("not a source's alert: fields must be an object")
    return SourceAlert(data["id"], text, priority, lang, {k: str(v) for k, v in fields.items()})
