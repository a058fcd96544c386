"""Who is signed in to the operator page, and how fast anyone may guess the token
(docs/page.md, "Security").

A session is a random id the sign-in gives as a cookie, held here in memory: it ends
SESSION_S after the sign-in (a shift), at sign-out, when the token changes (at a reload) and
when the daemon restarts, whichever comes first. A cookie derived from the token would be the
same for every sign-in, survive restarts and never end until the token did.

Failed sign-ins and wrong bearer tokens are counted per client and in all over the last
WINDOW_S: past either limit, a client's next tries are answered 429 without being checked, so
guessing gains nothing; tools on the gateway itself (loopback) are held only by their own count,
so a guesser on the network cannot lock them out.
"""

from __future__ import annotations

import ipaddress
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass, field

SESSION_S = 12 * 3600.0  # a shift: signed in at its start, asked again at the next
MAX_SESSIONS = 1024  # beyond it, the oldest ends: each sign-in needs the token all the same
WINDOW_S = 60.0  # failed tries are counted over this long
PER_CLIENT = 5  # failed tries from one address within WINDOW_S before it must wait
OVERALL = 30  # failed tries from all addresses within WINDOW_S before every address must wait
TEST_EVERY_S = 10.0  # one test announcement from the page this often, per session


@dataclass
class Sessions:
    """Open sessions: id → when it ends (monotonic). Any thread."""

    lifetime_s: float = SESSION_S
    _ends: dict[str, float] = field(default_factory=dict)  # oldest first
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def open(self) -> str:
        """A new session's id (256 random bits)."""
        sid = secrets.token_urlsafe(32)
        now = time.monotonic()
        with self._lock:
            self._prune(now)
            if len(self._ends) >= MAX_SESSIONS:
                del self._ends[next(iter(self._ends))]
            self._ends[sid] = now + self.lifetime_s
        return sid

    def valid(self, sid: str | None) -> bool:
        """Whether `sid` is an open session that has not ended."""
        if not sid:
            return False
        with self._lock:
            end = self._ends.get(sid)
            return end is not None and time.monotonic() < end

    def close(self, sid: str | None) -> None:
        with self._lock:
            self._ends.pop(sid or "", None)

    def clear(self) -> int:
        """End every session (the token changed); how many there were."""
        with self._lock:
            count = len(self._ends)
            self._ends.clear()
            return count

    def _prune(self, now: float) -> None:
        for sid in [s for s, end in self._ends.items() if end <= now]:
            del self._ends[sid]


@dataclass
class Throttle:
    """Failed tries of the token, per client address and in all. Any thread."""

    per_client: int = PER_CLIENT
    overall: int = OVERALL
    window_s: float = WINDOW_S
    _clients: dict[str, deque[float]] = field(default_factory=dict)
    _all: deque[float] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wait_s(self, client: str) -> float:
        """How long `client` must wait before its next try is checked; 0: now."""
        now = time.monotonic()
        with self._lock:
            self._prune(now)
            own = self._clients.get(client)
            waits = [own[0] + self.window_s - now] if own and len(own) >= self.per_client else []
            if len(self._all) >= self.overall and not _loopback(client):
                waits.append(self._all[0] + self.window_s - now)
            return max([0.0, *waits])

    def failed(self, client: str) -> int:
        """Count a failed try; how many `client` made within the window."""
        now = time.monotonic()
        with self._lock:
            self._prune(now)
            own = self._clients.setdefault(client, deque())
            own.append(now)
            self._all.append(now)
            return len(own)

    def _prune(self, now: float) -> None:
        since = now - self.window_s
        while self._all and self._all[0] <= since:
            self._all.popleft()
        for client in list(self._clients):
            tries = self._clients[client]
            while tries and tries[0] <= since:
                tries.popleft()
            if not tries:
                del self._clients[client]


@dataclass
class Spacing:
    """At most one of something per key every `every_s` (the page's test announcements, per
    session). Any thread."""

    every_s: float
    _last: dict[str, float] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, key: str) -> float:
        """0 when `key` may go now (and it is counted), else how long it must wait."""
        now = time.monotonic()
        with self._lock:
            for old in [k for k, t in self._last.items() if now - t >= self.every_s]:
                del self._last[old]
            last = self._last.get(key)
            if last is not None:
                return self.every_s - (now - last)
            self._last[key] = now
            return 0.0


def _loopback(client: str) -> bool:
    try:
        return ipaddress.ip_address(client).is_loopback
    except ValueError:
        return False
