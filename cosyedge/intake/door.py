"""The door: every received message, from MQTT or the HTTP API, to an Offer or a Refusal.

A message on MQTT (paho's network thread, which only records and hands over) is first offered
to the taps (the self-watch takes its canaries and the broker's drop count), then the command
topic goes to the desk, and what is ours (intake.py `Intake.message`) is accepted: journaled
(the broker is acknowledged once it is on disk), read into a Verdict and handed to the rules.
An HTTP say request is read strictly (local.py), then accepted the same way. So both sources
end in one `accept`, and a restart reads a journaled message exactly as its first arrival was.
Text a caller asks to hear beside the alerts (HTTP synthesis, Wyoming) comes in by `speech`,
held to the same rule as an alert's phrase: no door speaks what another refuses.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.component import Component
from cosyedge.config.schema import Config
from cosyedge.config.sources import broker_prefixes
from cosyedge.config.templates import looks_like_canary
from cosyedge.intake.alert import Message, clean_text
from cosyedge.intake.commands import named_in
from cosyedge.intake.intake import Intake, decided
from cosyedge.journal import Journal
from cosyedge.model import CommandAnswer, Offer, Verdict
from cosyedge.observe import Observer
from cosyedge.speech.tags import reading_voice

log = logging.getLogger(__name__)

# A source's broker messages held until its tap is added (a persistent session's, delivered at
# connect while the voices load): at most this many and bytes, the oldest dropped first.
HELD, HELD_BYTES = 10_000, 32 << 20


class Unavailable(Exception):
    """The daemon cannot take the request now (an HTTP 503); the text says why."""


@dataclass(frozen=True)
class Accepted:
    """A say request journaled: how its outcome report will name it."""

    seq: int
    id: str | None
    topic: str
    priority: str | None = None


class Tap(Protocol):
    """Takes its own messages before the intake sees them (the self-watch's canaries)."""

    topics: list[str]  # subscribed beside the intake's filters

    def use(self, intake: Intake) -> None: ...  # the intake in force, at start and reload

    def claim(self, topic: str, payload: bytes, retained: bool) -> bool:
        """Whether the message is the tap's (then it is acknowledged and goes no further)."""
        ...


class Door(Component):
    """Where every message comes in; `on_message` and `say` may run on any thread."""

    def __init__(
        self,
        config: Config,
        journal: Journal,
        desk: AlarmDesk,
        taps: tuple[Tap, ...] = (),
        observer: Observer | None = None,
    ) -> None:
        """`observer` is told each alert received and each accepted."""
        self.journal, self.desk, self.taps = journal, desk, taps
        self.observer = observer or Observer()
        self._held: deque[tuple[str, bytes, bool]] = deque()
        self._held_bytes = 0
        self._dropped: dict[str, int] = {}  # held messages dropped, by their topic's prefix
        self._held_lock = threading.Lock()  # a held message and a tap added: one or the other
        self.reconfigure(config)

    @property
    def filters(self) -> list[str]:
        """What the session subscribes to: the intake's filters, the sources' topics (from
        the connect on, though their source starts later: what comes meanwhile is held for
        it), then the taps' topics."""
        sources = (f"{prefix}#" for prefix in broker_prefixes(self.intake.config.sources))
        taps = (t for tap in self.taps for t in tap.topics)
        return list(dict.fromkeys([*self.intake.filters, *sources, *taps]))

    def add_tap(self, tap: Tap) -> None:
        """A tap that starts after the door (a source of alerts, features.py): it takes its
        messages from now on, first those of its topics that came before it (held, in the
        order they came); the link subscribes its topics once asked to follow."""
        tap.use(self.intake)
        with self._held_lock:
            self.taps = (*self.taps, tap)  # one assignment: paho's thread reads either tuple
            held, self._held, self._held_bytes = self._held, deque(), 0
            taken = 0
            for topic, payload, retained in held:
                if tap.claim(topic, payload, retained):
                    taken += 1
                else:
                    self._held.append((topic, payload, retained))
                    self._held_bytes += len(payload)
        if taken:
            log.info("%d messages that came before their source started, taken by it now", taken)

    def _hold(self, topic: str, payload: bytes, retained: bool) -> None:
        """A source's message before its tap is added: kept for it (a tap added meanwhile
        takes it at once)."""
        with self._held_lock:
            if any(tap.claim(topic, payload, retained) for tap in self.taps):
                return
            self._held.append((topic, payload, retained))
            self._held_bytes += len(payload)
            first = not self._dropped
            while len(self._held) > HELD or self._held_bytes > HELD_BYTES:
                gone, payload, _ = self._held.popleft()
                self._held_bytes -= len(payload)
                prefix = self._prefix_of(gone)
                self._dropped[prefix] = self._dropped.get(prefix, 0) + 1
        if first and self._dropped:  # one line a burst; its source tells how many at start
            log.warning("sources' messages dropped, oldest first: over %d wait to start", HELD)

    def _prefix_of(self, topic: str) -> str:
        prefixes = broker_prefixes(self.intake.config.sources)
        return next((p for p in prefixes if topic.startswith(p)), "")

    def dropped(self, prefix: str) -> int:
        """How many held messages under the topic prefix were dropped before their source
        took them (counted once: the count starts again)."""
        with self._held_lock:
            return self._dropped.pop(prefix, 0)

    def reconfigure(self, config: Config) -> None:
        self.intake = Intake(config)
        for tap in self.taps:
            tap.use(self.intake)

    # -- MQTT: runs on paho's network thread, so it only records and hands over -------------
    def on_message(
        self, topic: str, payload: bytes, ack: Callable[[], None], retained: bool = False
    ) -> None:
        if any(tap.claim(topic, payload, retained) for tap in self.taps):
            ack()
            return
        if self.intake.for_a_source(topic):
            self._hold(topic, payload, retained)
            ack()
            return
        if not payload:
            # How MQTT clears a retained message; a broker passes the clearing on to the
            # subscribers, without the retain flag, so no empty message is one to answer.
            log.debug("empty message on %r (a retained message cleared): not an alert", topic)
            ack()
            return
        intake = self.intake
        if intake.is_command(topic) and looks_like_canary(topic, payload, intake.own_topics):
            # Another gateway's canary on a command topic both share (a standby and its
            # primary): never a command, and no error either, or each canary round of one
            # would be an error on the other. The self-watch counted it (`canaries_rejected`).
            log.debug("a canary not ours on the command topic %r: not a command", topic)
            ack()
            return
        if intake.is_command(topic):
            self.command(payload, ack, retained)
            return
        message = self._message(intake, topic, payload)
        if message is None:
            ack()
            return
        self.observer.received("mqtt")
        # A retained message the broker replays (at a start or a new subscription) is said
        # once per payload: if it was heard on its topic before, it is not said again.
        again = retained and self.journal.heard(topic, payload)
        # Acknowledged to the broker only once on disk; spoken meanwhile all the same.
        self.accept(message, ack, "mqtt", again=again)

    def command(
        self, payload: bytes, written: Callable[[], None], retained: bool = False
    ) -> CommandAnswer:
        """An operator command's payload, from the command topic or the operator page: carried
        out by the desk (events, outcomes, the audit), `written` run once what it changed is
        on disk. Returns the ids it acted on, or why it was refused."""
        text = payload[:500].decode("utf-8", "replace")
        who = named_in(payload)
        refused = self.desk.command(self.intake.command(payload, retained), text, who)
        self.journal.when_written(written)
        return refused

    def _message(self, intake: Intake, topic: str, payload: bytes) -> Message | None:
        try:
            return intake.message(topic, payload)
        except Exception:  # taken in: what is wrong with it then shows in its outcome
            log.exception("cannot tell whether the message on %r is for us", topic)
            return Message(topic, payload)

    # -- HTTP --------------------------------------------------------------------------------
    def say(
        self, body: bytes, written: Callable[[], None], watch: Callable[[int], None] | None
    ) -> Accepted:
        """A say request taken as the MQTT side takes a message (http/server.py `Backend`).
        BadField when it is refused, Unavailable while the journal cannot write: it would be
        spoken, but a crash could lose it."""
        trouble = self.journal.trouble
        if trouble is not None:
            raise Unavailable(f"not accepting alerts: {trouble}")
        message = self.intake.local_message(body)
        verdict = self.accept(message, written, "http", watch=watch)
        if isinstance(verdict, Offer):
            priority = verdict.announcement.priority if verdict.announcement else None
            return Accepted(verdict.ticket.seq, verdict.key, verdict.ticket.topic, priority)
        return Accepted(verdict.ticket.seq, verdict.detail.get("id"), verdict.ticket.topic)

    def speech(self, text: str, lang: str | None) -> tuple[str, str]:
        """Text a caller asks to hear outside the alerts (HTTP synthesis, the Wyoming server),
        held to the rule every alert's phrase is (`Intake.sayable`), so a text the voices can
        say nothing of is refused at every door alike: the text cleaned, and the language of
        the voice that reads it (`lang`, or by its script). RejectedAlert when it cannot be
        said."""
        voices = self.intake.config.voices
        chosen = reading_voice(lang or "", text, voices)[0]
        cleaned = clean_text(text)
        self.intake.sayable(cleaned, chosen, chosen)
        return cleaned, chosen

    # -- both --------------------------------------------------------------------------------
    def accept(
        self,
        message: Message,
        then: Callable[[], None],
        via: str,
        again: bool = False,
        watch: Callable[[int], None] | None = None,
    ) -> Verdict:
        """The one way in for an alert, from MQTT or HTTP: journaled (`then` runs once it is
        on disk), then read and handed to the rules; `watch` learns its seq before they do."""
        received, at = time.time(), time.monotonic()
        # Read before it is journaled, so what was decided is journaled with it: a restart
        # under another configuration says it as decided now (`Intake.read_journaled`).
        read = self.intake.read(message, 0, received, at)
        said = decided(read)
        seq = self.journal.accept(
            message.topic, message.payload, received, then=then, again=again, said=said
        )
        self.observer.accepted(via)
        if watch is not None:
            watch(seq)
        verdict = dataclasses.replace(read, ticket=dataclasses.replace(read.ticket, seq=seq))
        self.desk.submit(verdict, again)
        return verdict
