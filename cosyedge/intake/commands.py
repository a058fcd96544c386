"""Operator commands from the command topic: acknowledge, silence, confirm, shelve, unshelve.

`{"cmd": "ack", "id": "boiler-7"}` names one alert; `"topic"` names alarm sources by MQTT
topic filter (`plant/line3/#`). Acknowledge ends re-announcement, silence stops what is being
said (and re-announcement) without acknowledging, confirm settles alarms that returned to
normal before they were acknowledged, shelve mutes a source for a limited time. Any of them
may say who gives it and why (`"user"`, `"comment"`), which the events, the outcomes it
settles and the audit carry: checked, since they end up in logs and reports. An ack, silence
or confirm may be limited to one zone (`"zone"`, docs/zones.md).
"""

from __future__ import annotations

import unicodedata
from typing import Any

from cosyedge.intake.alert import InvalidJson, brief, clean_id, finite_number, load_json
from cosyedge.model import BadCommand, Command

COMMANDS = ("ack", "silence", "confirm", "shelve", "unshelve")
MAX_CHARS = {"user": 64, "comment": 500}


DEFAULT_SHELVE_S = 3600  # a shelve that gives no duration_s: an hour (within max_shelve_s)
MIN_SHELVE_S = 1  # a shorter one is a mistake (1e-9 s was taken), not a shelve


def parse_command(payload: bytes) -> Command:
    try:
        data = load_json(payload)
    except InvalidJson as exc:
        raise BadCommand(f"not a JSON object: {exc}") from None
    if not isinstance(data, dict):
        raise BadCommand("not a JSON object")
    cmd = data.get("cmd")
    if cmd not in COMMANDS:
        raise BadCommand(f"cmd: expected one of {', '.join(COMMANDS)}, got {cmd!r}")
    ident, topic, duration = data.get("id"), data.get("topic"), data.get("duration_s")
    if ident is not None and not (isinstance(ident, (str, int)) and not isinstance(ident, bool)):
        raise BadCommand(f"id: expected a string, got {ident!r}")
    if topic is not None and (not isinstance(topic, str) or not topic):
        raise BadCommand(f"topic: expected a topic filter, got {topic!r}")
    if cmd in ("ack", "shelve", "unshelve") and ident is None and topic is None:
        raise BadCommand(f"{cmd}: needs an id or a topic")
    if duration is not None:
        if cmd != "shelve":
            raise BadCommand(f"duration_s: only for shelve, not {cmd}")
        seconds = finite_number(duration)
        if seconds is None or seconds < MIN_SHELVE_S:
            raise BadCommand(
                f"duration_s: expected seconds, at least {MIN_SHELVE_S}, got {brief(duration)}"
            )
    elif cmd == "shelve":  # never the longest by omission: an hour, as the event then says
        duration = DEFAULT_SHELVE_S
    # An id is named the way alerts name it, so an ack can find an alert whose id was cleaned.
    ident = None if ident is None else clean_id(str(ident))
    user, comment = (_signature(data, name) for name in ("user", "comment"))
    return Command(cmd, ident, topic, duration, user, comment, _zone(data, cmd))


def _zone(data: dict[str, Any], cmd: str) -> str | None:
    """The zone an ack, silence or confirm is limited to (a zone's name; its existence is
    the alarm desk's to check); a shelve holds a source everywhere."""
    zone = data.get("zone")
    if zone is None:
        return None
    if cmd in ("shelve", "unshelve"):
        raise BadCommand(f"zone: a {cmd} applies in every zone")
    if not isinstance(zone, str) or not zone.strip() or len(zone) > 64:
        raise BadCommand(f"zone: expected a zone's name, got {brief(zone)}")
    return zone.strip().lower()


def _signature(data: dict[str, Any], name: str) -> str | None:
    """`user` or `comment`: text of at most MAX_CHARS, without control or format characters
    (a newline would forge a log line, a bidirectional override hide what an audit says)."""
    value = data.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise BadCommand(f"{name}: expected text, got {brief(value)}")
    if len(value) > MAX_CHARS[name]:
        raise BadCommand(f"{name}: at most {MAX_CHARS[name]} characters, got {len(value)}")
    bad = next((c for c in value if unicodedata.category(c) in ("Cc", "Cf", "Cs")), None)
    if bad is not None:
        raise BadCommand(f"{name}: control character U+{ord(bad):04X} at {value.index(bad)}")
    return value.strip()


def named_in(payload: bytes) -> dict[str, str]:
    """The operator's name a command's payload gives (`user`), for the audit of one refused
    whatever is wrong with the rest: what is not printable replaced by `?`, at most 64
    characters; empty when it gives none."""
    try:
        data = load_json(payload)
    except InvalidJson:
        return {}
    user = data.get("user") if isinstance(data, dict) else None
    if not isinstance(user, str) or not user.strip():
        return {}
    return {"user": "".join(c if c.isprintable() else "?" for c in user.strip())[:64]}
