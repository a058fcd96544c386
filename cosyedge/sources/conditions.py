"""What an OPC UA condition's events mean here: the state of each condition (by ConditionId),
and which event is an alert, a return to normal, an acknowledgement or a shelve.

Pure state, no I/O but the file it is kept in: the OPC UA client (sources/opcua_client.py)
hands in each event as a `ConditionEvent`, and acts on the `Step`s it gets back. The rules,
after OPC UA Part 9 and ISA-18.2:

- an event of an enabled condition that is active, not acknowledged and not shelved or
  suppressed is an alert when the condition was not known active, or its Severity or Message
  changed (a new phrase, at the priority of the new Severity);
- a condition said here that becomes inactive is a return to normal;
- AckedState true arriving from the server acknowledges it here (its re-announcement ends);
- a condition said here that is shelved or suppressed at the server is shelved here, and
  unshelved with it, or when the server drops or forgets it;
- a new Severity or Message supersedes the alert said before: it ends here (acknowledged by
  the source, its comment naming the new alert's id) as the new one is raised;
- an event already handled (the same ConditionId and EventId, as ConditionRefresh sends the
  condition's last event again after every reconnect and restart) changes nothing and is
  never said twice. The state is kept in a file, written once a burst is handled (what it
  decided is journaled first: an event whose state a kill lost is decided again, the same
  alert id, a duplicate), so a restart knows what it knew.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from paho.mqtt.client import topic_matches_sub

from cosyedge.intake import sourced
from cosyedge.regular import SITE_RECORD_MAX, load_record

log = logging.getLogger(__name__)

FORGOTTEN = "the server no longer has the condition (not in its ConditionRefresh)"
DROPPED = "the server dropped the condition (over, not retained)"
KEPT_EVENT_IDS = 8  # per condition: refresh and a late copy repeat only the last few
_UNSAFE = re.compile(r"[^A-Za-z0-9=;:._-]+")  # what a topic level and an id do not hold


@dataclass(frozen=True)
class ConditionEvent:
    """One event of a condition, its fields as the event filter selected them."""

    condition: str  # ConditionId, as a NodeId's string form
    event_id: str  # EventId, hex
    source_name: str = ""
    message: str = ""
    locale: str = ""  # the Message's locale, `de-DE`
    severity: int = 0
    condition_name: str = ""
    time: str = ""  # ISO 8601
    enabled: bool = True
    active: bool = False
    acked: bool = True
    confirmed: bool | None = None  # None: the condition has no ConfirmedState
    shelved: bool = False  # shelved or suppressed
    retain: bool = True
    quality: str = "Good"
    comment: str = ""  # the last Comment: an acknowledgement's, at the HMI
    user: str = ""  # ClientUserId: who made the last change (an acknowledgement)
    browse_name: str = ""  # read from the server only when nothing else of it has words

    @property
    def shown(self) -> bool:
        """Whether the plant wants it heard: active, enabled, not acknowledged, not shelved."""
        return self.active and self.enabled and not self.acked and not self.shelved


@dataclass
class Condition:
    """What is known of one condition: its last event, and the alert said of it, if any."""

    event_id: str
    active: bool
    acked: bool
    shelved: bool
    severity: int
    message: str
    confirmed: bool | None = None
    said: str | None = None  # the id of the alert said of it while it stands
    events: list[str] = field(default_factory=list)  # its last EventIds, oldest first
    # The ids of the alerts said of it, kept until the server forgets it: a confirm names
    # an alarm that returned to normal by the id it was said with.
    ids: list[str] = field(default_factory=list)
    # The alert said of it: [text, priority, lang], said again when the server refuses an
    # operator's acknowledgement (the alarm stands).
    phrase: list[str] | None = None


@dataclass(frozen=True)
class Step:
    """What the source does for one event: `raise` an alert (`id`), say it has `returned` to
    normal, `ack` it here, `shelve` or `unshelve` it here, or end the alert said before as
    `supersede`d by the one raised next (a new Severity or Message: one condition, one
    standing alarm)."""

    kind: str
    condition: str
    id: str
    event: ConditionEvent
    reason: str | None = None  # why, when the server did not say it (a return to normal)


class Tracker:
    """The conditions of one source, kept in `path` (JSON, replaced atomically)."""

    def __init__(self, name: str, path: Path) -> None:
        self.name, self.path = name, path
        self.conditions: dict[str, Condition] = _load(path)

    def topic(self, condition: str) -> str:
        """The topic a condition's alerts are journaled and shelved under (a source's,
        intake/sourced.py: never heard on the broker)."""
        return f"{sourced.PREFIX}opcua/{self.name}/{level(condition)}"

    def alert_id(self, event: ConditionEvent) -> str:
        """The alert id of one event: the source, the condition and the EventId, so the same
        event is the same id whenever it comes (the desk's duplicates, across restarts)."""
        return f"opcua-{self.name}-{_digest(event.condition)}-{_digest(event.event_id, 16)}"

    def handled(self, event: ConditionEvent) -> bool:
        """Whether the event was handled before (ConditionRefresh sends a condition's last
        event again, at every connect and after a restart). The last EventId again with
        another ActiveState or AckedState is news: a server that reuses EventIds."""
        old = self.conditions.get(event.condition)
        if old is None or event.event_id not in old.events:
            return False
        return event.event_id != old.event_id or (event.active, event.acked) == (
            old.active, old.acked,
        )  # fmt: skip

    def handle(self, event: ConditionEvent) -> list[Step]:
        """The steps one event asks for; the state is updated (not yet kept: `keep`)."""
        old = self.conditions.get(event.condition)
        if self.handled(event):
            return []
        steps = list(self._steps(old, event))
        said = _said_after(old, steps)
        events = [*(old.events if old else []), event.event_id][-KEPT_EVENT_IDS:]
        raised = [step.id for step in steps if step.kind == "raise"]
        ids = [*(old.ids if old else []), *raised][-KEPT_EVENT_IDS:]
        now = Condition(
            event.event_id, event.active, event.acked, event.shelved, event.severity,
            event.message, event.confirmed, said, events, ids, old.phrase if old else None,
        )  # fmt: skip
        if event.retain or event.active or said is not None:
            self.conditions[event.condition] = now
        else:  # over and not retained: the server forgets it too, and its shelf is lifted
            self.conditions.pop(event.condition, None)
            if old is not None and old.shelved:
                steps.append(Step("unshelve", event.condition, old.said or "", event, DROPPED))
        return steps

    def _steps(self, old: Condition | None, event: ConditionEvent) -> Iterator[Step]:
        cond, new_id = event.condition, self.alert_id(event)
        said = old.said if old else None
        if said is not None and not event.active:
            yield Step("returned", cond, new_id, event)
            return
        if said is not None and event.shelved and not (old and old.shelved):
            yield Step("shelve", cond, said, event)
        if old is not None and old.shelved and not event.shelved and said is not None:
            yield Step("unshelve", cond, said, event)
        if said is not None and event.acked and not (old and old.acked):
            yield Step("ack", cond, said, event)
        if event.shown and (said is None or _changed(old, event)):
            if said is not None:  # one condition, one standing alarm: the new one replaces it
                yield Step("supersede", cond, said, event, f"superseded by {new_id}")
            yield Step("raise", cond, new_id, event)

    def said(self, condition: str) -> str | None:
        known = self.conditions.get(condition)
        return known.said if known else None

    def keep(self) -> None:
        """Write the state: a new file, synced, then renamed over the old one."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {cond: asdict(c) for cond, c in self.conditions.items()}
        temporary = self.path.with_suffix(".tmp")
        with open(temporary, "w", encoding="utf-8") as f:
            json.dump({"conditions": data}, f, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, self.path)

    def phrased(self, condition: str, text: str, priority: str, lang: str) -> None:
        """The phrase of the alert said of it (kept with it: said again if it stands)."""
        known = self.conditions.get(condition)
        if known is not None:
            known.phrase = [text, priority, lang]

    def again(self, condition: str) -> str:
        """A new id for the alert of a condition that stands still (an operator's
        acknowledgement the server refused): its said alert from now on."""
        known = self.conditions[condition]
        new = f"{self.alert_id(ConditionEvent(condition, known.event_id))}-{len(known.ids)}"
        known.said, known.ids = new, [*known.ids, new][-KEPT_EVENT_IDS:]
        return new

    def forget(self, standing: AbstractSet[str]) -> list[Step]:
        """The server's ConditionRefresh sent only `standing`: every other condition known
        here is forgotten (a restarted server's lost state); one said here returns to normal."""
        steps = []
        for cond in [c for c in self.conditions if c not in standing]:
            known = self.conditions.pop(cond)
            gone = ConditionEvent(cond, known.event_id)
            if known.shelved:  # the shelf set for it is lifted with it
                steps.append(Step("unshelve", cond, known.said or "", gone, FORGOTTEN))
            if known.said is not None:
                steps.append(Step("returned", cond, self.alert_id(gone), gone, FORGOTTEN))
        return steps

    def acknowledged(self, condition: str) -> None:
        """Acknowledged from here: what the server then says of it is no news."""
        known = self.conditions.get(condition)
        if known is not None:
            self.conditions[condition] = replace(known, acked=True)

    def named(self, ids: AbstractSet[str], topic: str | None) -> list[str]:
        """The conditions an operator command names: by their standing alert's id, or by a
        topic filter their topic matches."""
        found = []
        for cond, known in list(self.conditions.items()):  # also asked from the desk's thread
            by_id = not ids.isdisjoint(known.ids)
            if by_id or (topic is not None and topic_matches_sub(topic, self.topic(cond))):
                found.append(cond)
        return found


def _changed(old: Condition | None, event: ConditionEvent) -> bool:
    """While it stands: a new Severity or Message is a new phrase; one it did not stand at
    (it was inactive, acknowledged or shelved when last heard) is new again."""
    if old is None or not old.active or old.acked or old.shelved:
        return True
    return old.severity != event.severity or old.message != event.message


def _said_after(old: Condition | None, steps: list[Step]) -> str | None:
    said = old.said if old else None
    for step in steps:
        if step.kind == "raise":
            said = step.id
        elif step.kind == "returned":
            said = None
    return said


def level(condition: str) -> str:
    """A ConditionId as one topic level and id part: what a topic cannot hold is replaced,
    and a long one shortened with its digest, so two stay apart."""
    safe = _UNSAFE.sub("_", condition).strip("_") or "condition"
    return safe if len(safe) <= 80 else f"{safe[:60]}-{_digest(condition)}"


def _digest(text: str, chars: int = 10) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:chars]


def _load(path: Path) -> dict[str, Condition]:
    """The state kept by the last run; a missing file is none, a damaged one is set aside."""
    try:
        data = load_record(path, SITE_RECORD_MAX)
        return {cond: Condition(**c) for cond, c in data["conditions"].items()}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.error("OPC UA condition state %s cannot be read (%s): starting without it", path, exc)
        return {}
