"""Rhasspy Hermes text-to-speech, so Rhasspy and Node-RED flows can use cosyedge as their voice.

`hermes/tts/say` `{"text","siteId","lang","id","sessionId","volume"}` for our siteId is an
alert like any other; whatever becomes of it, the caller gets `hermes/tts/sayFinished`
`{"siteId","sessionId","id"}`, preceded by `hermes/error/tts` when it was not spoken as asked
(not spoken at all, or spoken by another language's voice).

`id` is the client's request id, not an alarm identity: two requests with the same id are two
requests. Only MQTT's redelivery of the very same message is a duplicate, so the
de-duplication key is a hash of the whole payload.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cosyedge.config.voices import VoiceConfig
from cosyedge.intake.alert import (
    InvalidJson,
    brief,
    clean_id,
    finite_number,
    json_kind,
    load_json,
    not_a_number,
    parse_alert,
)
from cosyedge.model import Alert, HermesRequest, RejectedAlert
from cosyedge.speech.tags import reading_voice

SAY = "hermes/tts/say"
FINISHED = "hermes/tts/sayFinished"
ERROR = "hermes/error/tts"
ANSWER_TOPICS = (FINISHED, ERROR)
SPOKEN = "spoken"  # the one outcome that is not an error, unless it carries a note
# Why a request was not spoken, for outcomes whose report gives no reason of its own.
REASONS = {
    "summarized": "said only as part of a flood summary",
    "acknowledged": "acknowledged by an operator",
    "silenced": "silenced by an operator",
    "shelved": "its source is shelved",
}
# Only a redelivery is a duplicate here (see dedup_key), whatever the alarm rules call it.
DUPLICATE = "the very same message came again (an MQTT redelivery) and was answered before"


@dataclass(frozen=True)
class Say:
    """A say request as the alarm rules take it."""

    alert: Alert
    lang: str  # the configured voice that says it
    volume: float | None  # 0-1, replacing the priority's volume
    note: str | None = None  # said, but not as asked: why (reported, and told the caller)


def request_of(payload: bytes, load: Callable[[bytes], object] = load_json) -> HermesRequest | None:
    """Who to answer, read leniently so that even a request we reject gets its answer."""
    try:
        data = load(payload)
    except InvalidJson:
        return None
    if not isinstance(data, dict):
        return None
    return HermesRequest(
        site_id=_text(data.get("siteId")) or "default",
        session_id=_text(data.get("sessionId")),
        request_id=_text(data.get("id")),
    )


def dedup_key(payload: bytes, request_id: str | None) -> str:
    """The de-duplication key of one request: a hash of the whole payload, so only the very
    same message (an MQTT redelivery) is a duplicate, never another request reusing an id.
    The client's id leads it, so reports and operator commands can be matched to requests."""
    digest = hashlib.sha256(SAY.encode() + b"\0" + payload).hexdigest()[:16]
    shown = clean_id(request_id) if request_id else ""  # as alert ids are: no invisible marks
    return f"{shown[:100]}#{digest}" if shown else digest


def say_alert(
    payload: bytes,
    max_bytes: int,
    voices: Mapping[str, VoiceConfig],
    load: Callable[[str], object] | None = None,
) -> Say:
    """The request as an alert, with the voice that says it; RejectedAlert says why not.
    `load`: see `parse_alert`."""
    alert = parse_alert(SAY, payload, "json", max_bytes, load)
    text, volume = _said_text(alert), _volume(alert)
    lang = alert.fields.get("lang")
    try:
        voice, note = reading_voice(lang if isinstance(lang, str) else "", text, voices)
    except RejectedAlert as exc:
        raise RejectedAlert(f"hermes/tts/say: {exc}") from None
    return Say(alert, voice, volume, note)


def _said_text(alert: Alert) -> str:
    """The request's text; RejectedAlert when it is missing, empty or not a string."""
    text = alert.fields.get("text")
    kind = alert.wrong.get("text")  # null too: the text is not optional
    if kind is None and text is not None and not isinstance(text, str):
        kind = json_kind(text)
    if kind is not None:
        raise RejectedAlert(f"hermes/tts/say: text: expected a string, got {kind}")
    if not isinstance(text, str) or not text.strip():
        raise RejectedAlert("hermes/tts/say: text is missing or empty")
    return text


def _volume(alert: Alert) -> float | None:
    """The request's volume, 0-1, if it gives one; RejectedAlert when it is not one."""
    volume = alert.fields.get("volume")
    kind = not_a_number(alert, "volume")
    if kind is not None:
        raise RejectedAlert(f"hermes/tts/say: volume must be a number 0-1, got {kind}")
    if volume is None:
        return None
    level = finite_number(volume)
    if level is None or not 0 <= level <= 1:
        raise RejectedAlert(f"hermes/tts/say: volume must be 0-1, got {brief(volume)}")
    return level


def answers(
    request: HermesRequest, outcome: str, detail: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """The messages that close one request: an error first unless it was spoken as asked
    (a duplicate, expiry, an operator's command, another voice: each says why), then
    sayFinished."""
    messages = []
    problem = _problem(outcome, detail)
    if problem is not None:
        error = {
            "error": f"{outcome}: {problem}",
            "siteId": request.site_id,
            "context": detail.get("text") or request.request_id,
            "sessionId": request.session_id,
        }
        messages.append((ERROR, json.dumps(error, ensure_ascii=False)))
    finished = {
        "siteId": request.site_id,
        "sessionId": request.session_id,
        "id": request.request_id,
    }
    messages.append((FINISHED, json.dumps(finished, ensure_ascii=False)))
    return messages


def _problem(outcome: str, detail: Mapping[str, Any]) -> str | None:
    """Why a request was not spoken as asked; None when it was."""
    if outcome == SPOKEN:
        return detail.get("note") or None
    if outcome == "deduplicated":
        return DUPLICATE
    return detail.get("reason") or REASONS.get(outcome, outcome)


def _text(value: object) -> str | None:
    if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
        # A lone surrogate (JSON `\ud800`) cannot be sent back as UTF-8: escaped instead.
        return str(value).encode("utf-8", "backslashreplace").decode()
    return None
