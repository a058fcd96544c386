"""ISA-18.2 / IEC 62682 alarm performance figures, from the alarm history (alarms/history.py).

An alarm is *annunciated* when it is brought to the operator: spoken, covered by a spoken
flood summary, or acknowledged or silenced (the operator knew of it). Alerts deduplicated,
shelved, cleared in their on-delay, expired unheard, rejected or failed are not, nor are
re-announcements (the same alarm again) or returns to normal. Each counts at its receipt.
An alarm is known by what its template makes it (intake/templates.py `alarm_of`): its topic,
one tag per topic (a payload's `id` names one occurrence, not the alarm), or its topic and
phrase. Free text (a template that is one placeholder, a Hermes or HTTP say request, Home
Assistant's notify entity) is an announcement, not an alarm, unless its template says so:
three different phrases on the say topic are not one chattering alarm.

Figures are of the period the history covers: a window asked for that begins before the
history does (a new gateway, days pruned) is cut to where it begins, and says so.

The figures, and the benchmarks they are held against (BENCHMARKS), are ANSI/ISA-18.2's
recommended alarm performance metrics (IEC 62682 and EEMUA 191 agree), for one operator
position: alarms per 10 minutes and per hour, 10-minute periods in flood (more than 10
alarms), the peak 10-minute count, the 10 most frequent alarms' share, chattering alarms
(3 or more within 60 s), stale alarms (standing unacknowledged for over 24 h) and shelves.
"""

from __future__ import annotations

import math
import threading
from collections import Counter, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cosyedge.model import PRIORITIES

PERIOD_S = 600.0  # ISA-18.2 counts alarms per 10-minute period
FLOOD_ALARMS = 10  # more than this in a period is a flood (ISA-18.2)
CHATTER_COUNT, CHATTER_S = 3, 60.0  # this many annunciations within this many s: chattering
STALE_S = 86400.0  # standing unacknowledged for longer than this: stale
TOP = 10
DAY_S = 86400.0
MAX_RECENT = 200_000  # annunciations held for the live figures; more in a day is a flood
ANNUNCIATED = frozenset({"spoken", "summarized", "acknowledged", "silenced"})
# Facts written before alarms had an identity name only their topic; on these topics the
# default templates and requests carried free text only: announcements, read as such.
# (The HTTP API's and Hermes' say topics, the default say topic, Home Assistant's notify.)
FREE_TEXT_TOPICS = frozenset(
    {"cosyedge/http/say", "hermes/tts/say", "cosyedge/say", "cosyedge/notify"}
)

# (figure, benchmark as ISA-18.2 words it), in the order reports show them.
BENCHMARKS = {
    "alarms_per_10_min": "~1 very likely acceptable, ~2 maximum manageable",
    "alarms_per_hour": "~6 very likely acceptable, ~12 maximum manageable",
    "flood_period_percent": "< ~1 %",
    "peak_alarms_per_10_min": "<= 10",
    "top10_percent": "< ~1-5 %",
    "chattering_alarms": "0",
    "stale_alarms": "< 5 on any day",
    "shelved": "as authorized (none unauthorized)",
}


@dataclass(frozen=True)
class Annunciation:
    at: float  # wall clock, when the alert was received
    alarm: str  # its topic, or its topic and phrase
    priority: str


@dataclass
class Figures:
    """The performance of the alarm system over [start, end)."""

    start: float
    end: float
    alarms: int
    alarms_per_10_min: float
    alarms_per_hour: float
    periods: int  # 10-minute periods the window touches
    flood_periods: int
    flood_period_percent: float
    peak_alarms_per_10_min: int
    top10: list[tuple[str, int]]  # the most frequent alarms and their counts
    top10_percent: float
    chattering: list[str]  # alarms annunciated CHATTER_COUNT times within CHATTER_S
    by_priority: dict[str, int]
    stale: list[str] = field(default_factory=list)  # filled in by whoever knows the state
    shelved: list[str] = field(default_factory=list)
    per_period: list[tuple[float, int]] = field(default_factory=list)  # (period start, count)

    @property
    def chattering_alarms(self) -> int:
        return len(self.chattering)

    @property
    def stale_alarms(self) -> int:
        return len(self.stale)

    def table(self) -> list[tuple[str, Any, str]]:
        """(figure, value, benchmark) rows, for people."""
        values = {
            "alarms_per_10_min": round(self.alarms_per_10_min, 2),
            "alarms_per_hour": round(self.alarms_per_hour, 2),
            "flood_period_percent": round(self.flood_period_percent, 2),
            "peak_alarms_per_10_min": self.peak_alarms_per_10_min,
            "top10_percent": round(self.top10_percent, 2),
            "chattering_alarms": self.chattering_alarms,
            "stale_alarms": self.stale_alarms,
            "shelved": len(self.shelved),
        }
        return [(name, values[name], BENCHMARKS[name]) for name in BENCHMARKS]


def figures(annunciations: Iterable[Annunciation], start: float, end: float) -> Figures:
    """The figures of the annunciations received in [start, end); periods are aligned to
    the clock (00:00, 00:10, ...), so a window's first and last may be partial."""
    chosen = sorted((a for a in annunciations if start <= a.at < end), key=lambda a: a.at)
    first = math.floor(start / PERIOD_S)
    periods = max(1, math.ceil(end / PERIOD_S) - first)
    at = np.array([a.at for a in chosen], dtype=np.float64)
    counts = np.bincount((at // PERIOD_S).astype(np.int64) - first, minlength=periods)
    hours = max((end - start) / 3600.0, 1e-9)
    by_alarm = Counter(a.alarm for a in chosen)
    top = sorted(by_alarm.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]
    total = len(chosen)
    flood = int((counts > FLOOD_ALARMS).sum())
    return Figures(
        start=start,
        end=end,
        alarms=total,
        alarms_per_10_min=total / (hours * 6),
        alarms_per_hour=total / hours,
        periods=periods,
        flood_periods=flood,
        flood_period_percent=100.0 * flood / periods,
        peak_alarms_per_10_min=int(counts.max(initial=0)),
        top10=top,
        top10_percent=100.0 * sum(n for _, n in top) / total if total else 0.0,
        chattering=chattering(chosen),
        by_priority={p: sum(1 for a in chosen if a.priority == p) for p in PRIORITIES},
        per_period=[((first + i) * PERIOD_S, int(n)) for i, n in enumerate(counts)],
    )


def chattering(annunciations: Iterable[Annunciation]) -> list[str]:
    """Alarms annunciated CHATTER_COUNT or more times within CHATTER_S, sorted."""
    times: dict[str, list[float]] = {}
    for a in annunciations:
        times.setdefault(a.alarm, []).append(a.at)
    found = []
    for alarm, ats in times.items():
        ats.sort()
        k = CHATTER_COUNT - 1
        if any(ats[i + k] - ats[i] <= CHATTER_S for i in range(len(ats) - k)):
            found.append(alarm)
    return sorted(found)


class RecentAlarms:
    """The annunciations of the last day, for the live figures (`/metrics`): heard as the
    history records them (`heard`, a history listener) and read back from it at a start
    (`seed`). At most MAX_RECENT are held; `complete` says whether the day is all there."""

    def __init__(self, most: int = MAX_RECENT) -> None:
        self._lock = threading.Lock()
        self._recent: deque[Annunciation] = deque()
        self._most = most
        self._lost_until = -math.inf  # the latest annunciation let go for want of room
        self._begins = -math.inf  # where the history begins, once read back

    def heard(self, fact: Mapping[str, Any]) -> None:
        annunciation = annunciated(fact) if fact["e"] == "outcome" else None
        if annunciation is not None:
            with self._lock:
                self._recent.append(annunciation)
                self._trim(float(fact["t"]))

    def seed(self, older: Iterable[Annunciation], now: float, begins: float) -> None:
        """Add annunciations heard before this run (from the history's files), and where
        the history `begins` (its first fact; this run's start for a new one)."""
        with self._lock:
            self._recent = deque(sorted([*older, *self._recent], key=lambda a: a.at))
            self._begins = begins
            self._trim(now)

    def figures(self, now: float) -> Figures:
        """The figures of the last day up to `now`, or of the part of it the history
        covers."""
        with self._lock:
            self._trim(now)
            recent = list(self._recent)
        return figures(recent, min(max(now - DAY_S, self._begins), now), now)

    def count(self, since: float) -> int:
        """Annunciations received since `since`."""
        with self._lock:
            return sum(1 for a in self._recent if a.at >= since)

    def complete(self, now: float) -> bool:
        return self._lost_until < now - DAY_S

    def _trim(self, now: float) -> None:
        """Let go of what is older than a day, then of the oldest past MAX_RECENT."""
        while self._recent and self._recent[0].at < now - DAY_S:
            self._recent.popleft()
        while len(self._recent) > self._most:
            self._lost_until = max(self._lost_until, self._recent.popleft().at)


# -- from the history's facts ------------------------------------------------------------
@dataclass
class Replay:
    """The alarm history read forward: annunciations, and the standing alarms and shelves
    as of the last fact read."""

    start: float = -math.inf  # annunciations received outside [start, end) are not kept
    end: float = math.inf
    annunciations: list[Annunciation] = field(default_factory=list)
    standing: dict[str, tuple[str, float]] = field(default_factory=dict)  # id -> alarm, since
    shelved: dict[str, float] = field(default_factory=dict)  # topic filter -> until

    def read(self, fact: Mapping[str, Any]) -> None:
        """Take one fact (as alarms/history.py checked it: a kind and a finite time)."""
        kind = fact["e"]
        if kind == "outcome":
            annunciation = annunciated(fact)
            if annunciation is not None and self.start <= annunciation.at < self.end:
                self.annunciations.append(annunciation)
        elif kind == "standing":
            self._stand(fact, fact)
        elif kind in ("settled", "returned"):  # acknowledged, or no longer active
            self.standing.pop(str(fact.get("id")), None)
        elif kind == "shelf" and _text(fact.get("topic")):
            self._shelf(fact["topic"], fact.get("until"))
        elif kind == "state":
            self._restate(fact)

    def stale(self, at: float) -> list[str]:
        """The alarms standing unacknowledged for longer than STALE_S at `at`."""
        return sorted(alarm for alarm, since in self.standing.values() if at - since > STALE_S)

    def shelved_at(self, at: float) -> list[str]:
        return sorted(pattern for pattern, until in self.shelved.items() if until > at)

    def _stand(self, entry: Mapping[str, Any], fact: Mapping[str, Any]) -> None:
        alarm = alarm_of(entry)
        if _text(entry.get("id")) and alarm is not None:  # an announcement cannot be stale
            self.standing[entry["id"]] = (alarm, _time(entry.get("since"), fact))

    def _shelf(self, topic: str, until: Any) -> None:
        if _number(until):
            self.shelved[topic] = float(until)
        else:
            self.shelved.pop(topic, None)

    def _restate(self, fact: Mapping[str, Any]) -> None:
        """A start's snapshot: what stands and what is shelved, whatever was read before."""
        self.standing, self.shelved = {}, {}
        standing = fact.get("standing")
        for entry in standing if isinstance(standing, list) else []:
            if isinstance(entry, dict):
                self._stand(entry, fact)
        shelved = fact.get("shelved")
        for topic, until in (shelved if isinstance(shelved, dict) else {}).items():
            self._shelf(str(topic), until)


def annunciated(fact: Mapping[str, Any]) -> Annunciation | None:
    """The annunciation of an alarm an outcome fact tells, if it tells one."""
    alarm = alarm_of(fact)
    if fact.get("outcome") not in ANNUNCIATED or alarm is None:
        return None
    priority = fact.get("priority")
    return Annunciation(
        _time(fact.get("received"), fact), alarm, priority if priority in PRIORITIES else "low"
    )


def alarm_of(fact: Mapping[str, Any]) -> str | None:
    """The alarm a fact (an outcome, a standing alarm) is about; None for an announcement.
    A fact written before alarms had an identity is known by its topic, unless that is one
    of FREE_TEXT_TOPICS."""
    if "alarm" in fact:
        return fact["alarm"] if _text(fact["alarm"]) else None
    topic = fact.get("topic")
    return topic if _text(topic) and topic not in FREE_TEXT_TOPICS else None


def _time(value: Any, fact: Mapping[str, Any]) -> float:
    """A time a fact names, or the fact's own when it names none that is usable."""
    return float(value) if _number(value) else float(fact["t"])


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value)
