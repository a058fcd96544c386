"""The nouns every stage shares, in the order an alert meets them.

- `Alert`: one MQTT message decoded into fields, with its id and priority (intake/alert.py).
- `Announcement`: the phrase a template (or a Hermes request) makes of an alert: text,
  language, priority and notes of what was not taken as given (intake/templates.py).
- `Ticket`: one accepted message as every report about it names it: journal sequence
  number, topic, receipt time, payload, and who to answer for a Hermes request.
- `Offer`: what intake hands the alarm desk: a ticket with its de-duplication key, timing
  and announcement (none for a return to normal). A message that cannot be one becomes a
  `Refusal` instead; either is a `Verdict` (intake/intake.py → alarms/desk.py).
- `Command`: an operator's acknowledge, silence, confirm, shelve or unshelve, and who gave
  it and why (intake/commands.py).
- `Item`: what the alarm rules queue to be said: an alert, its re-announcement, a flood
  summary or one of the alarm system's own faults (alarms/policy.py → announce/announcer.py).
- `Delivery`: what the announcer made of an item: spoken, stopped, unplayed or failed.
- `Outcome`: the one final report per accepted message (see OUTCOMES); `Event`: anything
  else worth telling (flood, shelve, fault). Both go out through mqtt/reports.py.
- `Heartbeat`: a worker's sign of progress, read by the watchdog and the self-watch.
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

Scalar = str | int | float | bool
PRIORITIES = ("critical", "high", "medium", "low")  # ISA-18.2 style, most urgent first
T = TypeVar("T")


class RejectedAlert(Exception):
    """A message that cannot become an alert; the text says why."""


class BadCommand(Exception):
    """A command that cannot be carried out; the text says why."""


class NothingMatched(BadCommand):
    """A command that named nothing it could act on now: an id unknown or settled already
    (another operator's command came first), a topic nothing standing is on."""


@dataclass(frozen=True)
class CommandAnswer:
    """What became of an operator command: the alerts' ids it acted on, or why it was refused
    (`refused`), and whether that was because it matched nothing (`unmatched`: a conflict
    with what stands now, rather than a command that is wrong in itself)."""

    ids: tuple[str, ...] = ()
    refused: str | None = None
    unmatched: bool = False


@dataclass(frozen=True)
class Alert:
    topic: str
    fields: Mapping[str, Scalar]
    id: str
    priority: str | None = None
    received: float = field(default_factory=time.time)
    # Payload fields no phrase can hold (arrays, objects, null), by name: their JSON type in
    # words. Kept apart from `fields`, so that what uses one says it has the wrong type
    # rather than that it is missing.
    wrong: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Prelude:
    """What its template plays before the phrase: a standard signal tone in place of the
    priority's chime, then a recorded message, which may stand in for the phrase."""

    # The template's sections as they are (config/signals.py's ToneConfig, RecordedConfig):
    # the model imports nothing of the stages it names.
    tone: Any = None
    recorded: Any = None


@dataclass(frozen=True)
class Announcement:
    """What to say, for whom and how urgently."""

    text: str
    lang: str
    priority: str
    alert: Alert
    notes: tuple[str, ...] = ()  # what was not taken as given, for the outcome report
    max_spoken_s: float | None = None  # its template's; None: alarms.max_spoken_s
    # The alarm it is in the ISA-18.2 figures (alarms/kpi.py): its topic, or its topic and
    # phrase; None: an announcement (free text, a Hermes or HTTP say request), not an alarm.
    alarm: str | None = None
    # The zones it is said in, by name (its template's, or the alert's `zone` field); empty:
    # every zone (alarms/zones.py).
    zones: tuple[str, ...] = ()
    prelude: Prelude = Prelude()


@dataclass(frozen=True)
class HermesRequest:
    """Who to answer for a `hermes/tts/say` request."""

    site_id: str
    session_id: str | None = None
    request_id: str | None = None


@dataclass(frozen=True)
class Command:
    cmd: str
    id: str | None = None
    topic: str | None = None
    duration_s: float | None = None
    user: str | None = None  # who gave it, as the plant names its operators
    comment: str | None = None  # why
    zone: str | None = None  # the one zone it applies in (ack, silence, confirm); None: all

    @property
    def by(self) -> dict[str, str]:
        """Who and why, as events, outcomes and the audit carry them: only what was given."""
        given = {"user": self.user, "comment": self.comment}
        return {k: v for k, v in given.items() if v is not None}


@dataclass(frozen=True)
class Timing:
    ttl_s: float = 0.0  # 0: never expires
    on_delay_s: float = 0.0
    off_delay_s: float = 0.0
    reannounce_s: float = 0.0  # 0: said once


@dataclass(frozen=True)
class Ticket:
    """One accepted message, as every report about it names it."""

    seq: int
    topic: str
    received: float  # wall clock
    hermes: HermesRequest | None = None
    payload: bytes = b""  # kept so an unacknowledged alarm can be taken up after a restart


@dataclass(frozen=True)
class Offer:
    """An accepted alert (or, without an announcement, a return to normal) for the rules."""

    ticket: Ticket
    key: str  # the de-duplication key: payload id, else a hash of topic and payload
    at: float  # receipt, on the policy's clock
    timing: Timing = Timing()
    announcement: Announcement | None = None
    volume: float | None = None
    note: str | None = None  # taken, but not as asked (another voice): in every outcome

    @property
    def source(self) -> str:
        return self.ticket.topic

    @property
    def priority(self) -> str:
        return self.announcement.priority if self.announcement else "low"

    @property
    def expires(self) -> float:
        return self.at + self.timing.ttl_s if self.timing.ttl_s else math.inf


@dataclass(frozen=True)
class Refusal:
    """A message that does not reach the rules, and the outcome it ends in: `rejected` (it
    cannot be an alert) or `failed` (reading it raised)."""

    ticket: Ticket
    kind: str
    reason: str
    detail: Mapping[str, Any] = field(default_factory=dict)  # what is known of it: its id


Verdict = Offer | Refusal
# (seq, topic, payload, received wall time, receipt on the rules' clock, what was decided at
# its acceptance as the journal kept it, or None) → Verdict
Reader = Callable[[int, str, bytes, float, float, Mapping[str, Any] | None], Verdict]


@dataclass(frozen=True)
class Outcome:
    ticket: Ticket
    kind: str  # see OUTCOMES
    detail: Mapping[str, Any]
    alarm: str | None = None  # its announcement's alarm, for the alarm history
    # A copy of an alert heard before (same id, a retained message replayed): its id stays
    # that alert's. The journal keeps the id as handled only from the alert's own outcome,
    # so that a copy's outcome never makes an original the journal hands back unsaid (a
    # stop before it was said) a duplicate of its own copy.
    copy: bool = False


@dataclass(frozen=True)
class Event:
    kind: str
    detail: Mapping[str, Any]


Effect = Outcome | Event

OUTCOMES = (
    "spoken",
    "summarized",  # covered by a spoken flood summary
    "expired",
    "deduplicated",
    "shelved",
    "acknowledged",  # before it was spoken, or while it was
    "silenced",  # cut short by the silence command
    "cleared",  # returned to normal before it was spoken
    "return_to_normal",  # the clear message itself
    "rejected",
    "failed",
    "covered",  # a standby's copy, ended by the gateway it stands by for (its outcome in it)
)


@dataclass(frozen=True)
class Delivery:
    """What the announcer made of an item."""

    kind: str  # spoken, stopped (cut short), unplayed (no sound device), failed
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Counted:
    """An alarm as a flood summary counts it: what the summary says of it, kept in its place
    until a summary is heard, so that the alarm's message and fields go once its outcome is
    told (a flood whose summaries fail keeps one of these for each of its alarms)."""

    priority: str
    at: float  # receipt, on the policy's clock
    text: str | None  # its phrase, said when it is the highest
    lang: str | None
    key: str = ""  # its alert's id: another gateway that told it takes it out of the count

    @classmethod
    def of(cls, offer: Offer) -> Counted:
        said = offer.announcement
        if said is None:
            return cls(offer.priority, offer.at, None, None, offer.key)
        return cls(offer.priority, offer.at, said.text, said.lang, offer.key)


class ItemKind(enum.StrEnum):
    ALERT = "alert"
    REANNOUNCE = "reannounce"  # an unacknowledged alarm said again
    SUMMARY = "summary"  # a flood summary standing for several alerts
    FAULT = "fault"  # one of the alarm system's own faults


@dataclass(eq=False)
class Item:
    """Something to say: an alert, its re-announcement, a flood summary or a fault."""

    kind: ItemKind
    priority: str
    order: int
    offers: list[Offer]  # alert and reannounce: one; summary: the alerts it stands for
    text: str = ""
    final: bool = False  # a summary that also says the flood is over
    tally: list[Counted] = field(default_factory=list)  # summary: the alarms its text counted
    summary_lang: str = "en"  # summary, fault: the language it is said in
    fault: str = ""  # fault: which of the alarm system's own faults it tells
    zone: str = ""  # the zone it is said in; "" where the daemon has no zones

    def __post_init__(self) -> None:
        self.kind = ItemKind(self.kind)  # "summary" as well as ItemKind.SUMMARY

    @property
    def rank(self) -> int:
        return PRIORITIES.index(self.priority)

    @property
    def speaks_offer(self) -> bool:
        """An alert or its re-announcement: said from its offer's announcement."""
        return self.kind in (ItemKind.ALERT, ItemKind.REANNOUNCE)

    @property
    def key(self) -> str:
        if self.kind is ItemKind.FAULT:
            return f"fault:{self.fault}"
        return self.offers[0].key if self.kind is not ItemKind.SUMMARY else f"summary-{self.order}"

    @property
    def expires(self) -> float:
        return self.offers[0].expires if self.offers and self.speaks_offer else math.inf

    @property
    def volume(self) -> float | None:
        return self.offers[0].volume if self.offers and self.speaks_offer else None

    @property
    def lang(self) -> str:
        if not self.speaks_offer:
            return self.summary_lang
        announcement = self.offers[0].announcement
        return announcement.lang if announcement else "en"


def error_text(exc: BaseException) -> str:
    """An exception as a report tells it: its type and message, bounded."""
    return f"{type(exc).__name__}: {exc}"[:300]


def on_clock(wall: float) -> float:
    """A wall-clock time on the monotonic clock the rules and workers run on."""
    return time.monotonic() - (time.time() - wall)


def on_wall(clock: float) -> float:
    """A monotonic time as wall-clock time, for the journal and what is reported."""
    return time.time() - (time.monotonic() - clock)


class Heartbeat:
    """A worker's sign of progress; `resting` means waiting for work, which is not being stuck."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._last = time.monotonic()
        self._resting = True

    def beat(self) -> None:
        self._last = time.monotonic()
        self._resting = False

    def rest(self) -> None:
        self._last = time.monotonic()
        self._resting = True

    def silent_for(self, now: float) -> float:
        """Seconds without progress while busy; 0 while resting."""
        return 0.0 if self._resting else max(0.0, now - self._last)

    def beating(self, items: Iterable[T]) -> Iterator[T]:
        """Pass items through, beating once per item: progress of whoever produces them."""
        for item in items:
            self.beat()
            yield item
