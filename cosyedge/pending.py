"""Announcements not yet heard when the daemon stops, kept on disk for the next start.

MQTT cannot keep them for us: a QoS 1 message is acknowledged once it is queued here. So on
SIGTERM the queue (and an announcement cut off mid-phrase) is written to
`<state_dir>/pending.json`, atomically, and read back on the next start.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from cosyedge.alerts import PRIORITIES, Alert
from cosyedge.templates import Announcement

log = logging.getLogger(__name__)

FILE_NAME = "pending.json"


def save_pending(state_dir: Path, announcements: Iterable[Announcement]) -> int:
    items = [_to_json(a) for a in announcements]
    path = state_dir / FILE_NAME
    if not items:
        path.unlink(missing_ok=True)
        return 0
    state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=state_dir, prefix=".pending-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"version": 1, "announcements": items}, f, ensure_ascii=False)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(items)


def take_pending(state_dir: Path) -> list[Announcement]:
    """What the last run left unsaid; the file is removed once read."""
    path = state_dir / FILE_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        announcements = [_from_json(item) for item in data["announcements"]]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError) as exc:
        kept = path.with_suffix(".unreadable")
        log.error("%s: unreadable (%s); kept as %s", path, exc, kept.name)
        path.replace(kept)
        return []
    path.unlink()
    return announcements


def _to_json(a: Announcement) -> dict:
    alert = a.alert
    return {
        "text": a.text,
        "lang": a.lang,
        "priority": a.priority,
        "alert": {
            "topic": alert.topic,
            "id": alert.id,
            "fields": dict(alert.fields),
            "priority": alert.priority,
            "received": alert.received,
        },
    }


def _from_json(item: dict) -> Announcement:
    alert = item["alert"]
    priority = item["priority"]
    if priority not in PRIORITIES:
        raise ValueError(f"unknown priority {priority!r}")
    return Announcement(
        text=str(item["text"]),
        lang=str(item["lang"]),
        priority=priority,
        alert=Alert(
            topic=str(alert["topic"]),
            fields=dict(alert["fields"]),
            id=str(alert["id"]),
            priority=alert["priority"],
            received=float(alert["received"]),
        ),
    )
