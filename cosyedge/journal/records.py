"""The journal's lines: what each record type holds, the checks every line read back passes,
and what a start takes up of them (`Recovered`)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cosyedge.config.fields import PRIORITIES

MAX_SEQ = 1 << 63
# The start of an `in` line as `line_of` writes it: its seq, then (if not cut off) its topic.
_TORN_IN = re.compile(
    rb'\{"in":(?P<seq>[0-9]{1,19}),(?:"at":[0-9.eE+-]+,"topic":"(?P<topic>(?:[^"\\]|\\.)*)")?'
)


@dataclass(frozen=True)
class Pending:
    """An accepted message with no outcome yet."""

    seq: int
    topic: str
    payload: bytes
    received: float  # wall clock
    again: bool = False  # a retained message already heard before it was accepted
    tries: int = 0  # starts at which the announcer began to speak it and the daemon died
    # What was decided when it was accepted (its phrase, language, priority, timing; see
    # `said_valid`), so a configuration that no longer matches it cannot unsay it.
    said: dict[str, Any] | None = None
    # With zones: what became of it in the zones that told theirs before the run ended (zone
    # -> {"outcome": kind, its times...}), so a start says it only where it is still owed.
    zones: dict[str, dict[str, Any]] | None = None


@dataclass(frozen=True)
class Unsent:
    """An outcome whose reports the broker may not have received."""

    seq: int
    messages: list[tuple[str, str]]  # (topic, payload)


@dataclass(frozen=True)
class Seen:
    key: str
    received: float
    topic: str


@dataclass(frozen=True)
class Unacknowledged:
    """A spoken alarm that was still re-announced when the last run ended."""

    key: str
    seq: int
    topic: str
    payload: bytes
    received: float  # wall clock
    due: float  # wall clock: its next re-announcement
    cleared: bool = False  # returned to normal unacknowledged: awaits confirmation


@dataclass(frozen=True)
class Damaged:
    """A journal line that could not be taken up; kept aside in the quarantine file. `seq`:
    the accepted message it recorded, when that much of it could still be read and no
    outcome of it followed; that message gets a `failed` outcome."""

    line: int
    reason: str
    seq: int | None = None
    topic: str = ""


@dataclass
class Recovered:
    pending: list[Pending] = field(default_factory=list)
    unsent: list[Unsent] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    shelved: dict[str, float] = field(default_factory=dict)  # topic filter -> until, wall clock
    unacknowledged: list[Unacknowledged] = field(default_factory=list)
    damaged: list[Damaged] = field(default_factory=list)
    lost: str | None = None  # why what the last run left may be gone


# -- what a valid line looks like ------------------------------------------------------------


def _seq(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 < v < MAX_SEQ


def _time(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < 1e11


def _text(v: Any) -> bool:
    return isinstance(v, str)


def _b64(v: Any) -> bool:
    try:
        base64.b64decode(v, validate=True)
    except (TypeError, ValueError):
        return False
    return isinstance(v, str)


def _sends(v: Any) -> bool:
    return isinstance(v, list) and all(
        isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m) for m in v
    )


_SAID: dict[str, Callable[[Any], bool]] = {
    "key": _text,
    "text": _text,
    "lang": _text,
    "priority": lambda v: v in PRIORITIES,
    "ttl": _time,
    "reannounce": _time,
    "clear": lambda v: v is True,
}


# What one zone's outcome of a message keeps in the journal (alarms/zones.py ZONE_FIELDS).
_TOLD_TEXT = ("outcome", "source", "reason", "summary")
_TOLD_TIME = ("start", "end", "latency_ms", "speech_latency_ms")


def told_valid(v: Any) -> bool:
    """One zone's outcome: its kind, and of its times and words only what a zone tells."""
    if not isinstance(v, dict) or not _text(v.get("outcome")):
        return False
    if not set(v) <= {*_TOLD_TEXT, *_TOLD_TIME}:
        return False
    texts = all(_text(v[k]) and len(v[k]) <= 2000 for k in _TOLD_TEXT if k in v)
    return texts and all(_number(v[k]) for k in _TOLD_TIME if k in v)


def _number(v: Any) -> bool:
    """A time or a latency: a latency may be below 0 when the wall clock was set back."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) < 1e11


def zones_valid(v: Any) -> bool:
    """An `in` line's `zones`: zone name -> what it told."""
    if not isinstance(v, dict) or len(v) > 256:
        return False
    return all(_text(name) and len(name) <= 64 and told_valid(t) for name, t in v.items())


def said_valid(v: Any) -> bool:
    """An `in` line's `said`: the key, and either the phrase (text, lang, priority, ttl,
    reannounce, all present) or `clear`; nothing else."""
    if not isinstance(v, dict) or "key" not in v or not set(v) <= set(_SAID):
        return False
    phrase = {"text", "lang", "priority", "ttl", "reannounce"}
    if set(v) - {"key"} not in (phrase, {"clear"}):
        return False
    return all(_SAID[name](value) for name, value in v.items())


_SCHEMA: dict[str, dict[str, Callable[[Any], bool]]] = {
    "in": {"in": _seq, "at": _time, "topic": _text, "payload": _b64},
    "out": {"out": _seq, "topic": _text, "at": _time, "send": _sends},
    "sent": {"sent": _seq},
    "seen": {"seen": _text, "at": _time, "topic": _text},
    "heard": {"heard": _text, "hashes": lambda v: isinstance(v, list) and all(map(_text, v))},
    "try": {"try": lambda v: isinstance(v, list) and all(map(_seq, v))},
    "zoned": {"zoned": _seq, "zone": lambda v: _text(v) and len(v) <= 64, "told": told_valid},
    "shelf": {"shelf": _text, "until": lambda v: v is None or _time(v)},
    "alarm": {"alarm": _text},
    "next": {"next": _seq},
}
_ALARM = {"seq": _seq, "topic": _text, "payload": _b64, "at": _time, "due": _time}
_OPTIONAL: dict[str, Callable[[Any], bool]] = {
    "key": lambda v: v is None or _text(v),
    "again": lambda v: isinstance(v, bool),
    "tries": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1000,
    "end": lambda v: v is True,
    "cleared": lambda v: v is True,
    "said": said_valid,
    "zones": zones_valid,
}


def check_record(record: Any) -> None:
    """Raise ValueError naming what is wrong with a journal line read back from disk."""
    if not isinstance(record, dict):
        raise ValueError(f"not a JSON object but {type(record).__name__}")
    kind = next((k for k in _SCHEMA if k in record), None)
    if kind is None:
        raise ValueError("no record type")
    schema = dict(_SCHEMA[kind])
    if kind == "alarm" and not record.get("end"):
        schema.update(_ALARM)
    for name, valid in schema.items():
        if name not in record:
            raise ValueError(f"{kind} record without {name!r}")
        if not valid(record[name]):
            raise ValueError(f"{kind} record: bad {name!r}: {str(record[name])[:60]!r}")
    for name, valid in _OPTIONAL.items():
        if name in record and not valid(record[name]):
            raise ValueError(f"{kind} record: bad {name!r}: {str(record[name])[:60]!r}")


def damaged_line(line: int, reason: str, record: Any, raw: bytes) -> Damaged:
    """What can still be read of a damaged line: the seq and topic of an `in` record, also
    from the start of a line that is not JSON any more (torn, or bytes overwritten)."""
    if not isinstance(record, dict):
        record = _torn_in(raw)
    if isinstance(record, dict) and "in" in record and _seq(record["in"]):
        topic = record.get("topic")
        return Damaged(line, reason, record["in"], topic if isinstance(topic, str) else "")
    return Damaged(line, reason)


def _torn_in(raw: bytes) -> dict[str, Any] | None:
    """The seq and topic an `in` line starts with, as `line_of` writes it; None when its seq
    is not all there (a comma follows a whole number), as it may be cut short."""
    found = _TORN_IN.match(raw)
    if found is None:
        return None
    record: dict[str, Any] = {"in": int(found["seq"])}
    if found["topic"] is not None:
        with contextlib.suppress(ValueError):  # a topic cut or mangled stays unnamed
            record["topic"] = json.loads(b'"' + found["topic"] + b'"')
    return record


def payload_hash(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()[:16]


def line_of(record: dict) -> bytes:
    # ASCII escapes: a lone surrogate from a payload is still written (and read back) as is.
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def recovered_from(
    pending: dict[int, dict],
    unsent: dict[int, dict],
    seen: dict[str, dict],
    shelved: dict[str, float],
    alarms: dict[str, dict],
    damaged: list[Damaged],
) -> Recovered:
    """What a start takes up, from the records read (each checked by `check_record`, so
    nothing here can fail): open messages and unsent reports by seq, known ids, shelves still
    running, unacknowledged alarms."""
    return Recovered(
        pending=[
            Pending(
                seq,
                r["topic"],
                base64.b64decode(r["payload"]),
                r["at"],
                r.get("again", False),
                r.get("tries", 0),
                r.get("said"),
                r.get("zones"),
            )
            for seq, r in sorted(pending.items())
        ],
        unsent=[Unsent(seq, [(t, p) for t, p in r["send"]]) for seq, r in sorted(unsent.items())],
        seen=[Seen(key, r["at"], r["topic"]) for key, r in seen.items()],
        shelved={p: until for p, until in shelved.items() if until > time.time()},
        unacknowledged=[
            Unacknowledged(
                key,
                r["seq"],
                r["topic"],
                base64.b64decode(r["payload"]),
                r["at"],
                r["due"],
                r.get("cleared", False),
            )
            for key, r in alarms.items()
        ],
        damaged=damaged,
    )
