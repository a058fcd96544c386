"""Rhasspy Hermes text-to-speech, so Rhasspy and Node-RED flows can use cosyedge as their voice.

`hermes/tts/say` `{"text","siteId","lang","id","sessionId","volume"}` for our siteId is an
alert like any other; whatever becomes of it, the caller gets `hermes/tts/sayFinished`
`{"siteId","sessionId","id"}`, preceded by `hermes/error/tts` when it could not be spoken.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cosyedge.alerts.alert import (
    Alert,
    InvalidJson,
    RejectedAlert,
    brief,
    finite_number,
    load_json,
    parse_alert,
)

SAY = "hermes/tts/say"
FINISHED = "hermes/tts/sayFinished"
ERROR = "hermes/error/tts"
ANSWER_TOPICS = (FINISHED, ERROR)
FAILURES = ("rejected", "failed", "expired")


@dataclass(frozen=True)
class HermesRequest:
    site_id: str
    session_id: str | None = None
    request_id: str | None = None


def request_of(payload: bytes) -> HermesRequest | None:
    """Who to answer, read leniently so that even a request we reject gets its answer."""
    try:
        data = load_json(payload)
    except InvalidJson:
        return None
    if not isinstance(data, dict):
        return None
    return HermesRequest(
        site_id=_text(data.get("siteId")) or "default",
        session_id=_text(data.get("sessionId")),
        request_id=_text(data.get("id")),
    )


def say_alert(payload: bytes, max_bytes: int) -> tuple[Alert, str, float | None]:
    """The alert, its language and its volume (0-1, if given)."""
    alert = parse_alert(SAY, payload, "json", max_bytes)
    text = alert.fields.get("text")
    if not isinstance(text, str) or not text.strip():
        raise RejectedAlert("hermes/tts/say: text is missing or empty")
    lang = alert.fields.get("lang")
    volume = alert.fields.get("volume")
    if volume is not None:
        if isinstance(volume, bool) or not isinstance(volume, (int, float)):
            raise RejectedAlert(f"hermes/tts/say: volume must be a number 0-1, got {volume!r}")
        level = finite_number(volume)
        if level is None or not 0 <= level <= 1:
            raise RejectedAlert(f"hermes/tts/say: volume must be 0-1, got {brief(volume)}")
    return alert, lang if isinstance(lang, str) and lang else "en", volume


def answers(request: HermesRequest, outcome: str, detail: dict[str, Any]) -> list[tuple[str, str]]:
    """The messages that close one request: an error first if it failed, then sayFinished."""
    messages = []
    if outcome in FAILURES:
        error = {
            "error": f"{outcome}: {detail.get('reason', outcome)}",
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


def _text(value: object) -> str | None:
    if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
        # A lone surrogate (JSON `\ud800`) cannot be sent back as UTF-8: escaped instead.
        return str(value).encode("utf-8", "backslashreplace").decode()
    return None
