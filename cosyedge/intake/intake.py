"""MQTT message → Offer: which messages are ours, and what each one asks of the alarm rules.

Alert topics go through the templates, `hermes/tts/say` through the Hermes mapping, the
command topic through `commands`. Each message is read once, on the network thread, after it
is journaled: `read` gives the desk an Offer, or a Refusal with the reason a message cannot
become an alert. Timing (time to live,
on/off-delay, re-announcement) is settled here from payload, template and the alarms: section,
so the rules only see numbers. A phrase the configured voices can say nothing of (emoji only,
a script none of them reads) is rejected as `nothing to say in <lang>`; what they would leave
out of a phrase, or a payload value not taken as given, becomes a note in its reports.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Mapping
from typing import Any

from cosyedge.config.schema import Config
from cosyedge.config.sources import broker_prefixes
from cosyedge.config.standby import StandbyConfig
from cosyedge.config.templates import (
    CANARY_KEY,
    CANARY_LEVEL,
    DEFAULT_TEMPLATES,
    TemplateConfig,
    looks_like_canary,
)
from cosyedge.intake import hermes, local, sourced
from cosyedge.intake.alert import (
    Message,
    brief,
    finite_number,
    hashed_id,
    not_a_number,
    parse_alert,
    priority_note,
)
from cosyedge.intake.commands import parse_command
from cosyedge.intake.templates import TemplateSet, plain_text
from cosyedge.model import (
    Alert,
    Announcement,
    BadCommand,
    Command,
    HermesRequest,
    Offer,
    Refusal,
    RejectedAlert,
    Scalar,
    Ticket,
    Timing,
    Verdict,
    error_text,
)
from cosyedge.speech.lang import Run, says_anything, split_runs, why_unsaid
from cosyedge.speech.tags import reading_voice

log = logging.getLogger(__name__)

# Why a message that looks like a canary reaches the intake: the self-watch takes only those
# signed with this daemon's key (service/selfwatch.py `claim`).
_NOT_OUR_CANARY = (
    f"not a canary of this daemon (forged, or another gateway's), on what is reserved for "
    f"canaries: a topic level {CANARY_LEVEL!r}, or a payload opening with {CANARY_KEY!r} on "
    "cosyedge's own topics"
)


def _peer_topics(standby: StandbyConfig) -> tuple[str, ...]:
    """The other gateway's report topics this one names: its outcomes, status, errors and
    events are read by the standby's watch or the primary's handback, never as alerts (a `#`
    template would hear them)."""
    theirs = (standby.status_topic, standby.report_topic, standby.error_topic, standby.event_topic)
    return (*(theirs if standby.enabled else ()), *filter(None, (standby.reports_of,)))


class Intake:
    def __init__(self, config: Config) -> None:
        self.config = config
        templates = (*notify_templates(config), *config.templates)
        # A standby covering some zones keeps every zone name: its rules tell the primary's
        # others apart (alarms/covered.py).
        covering = bool(config.standby.zones)
        self.templates = TemplateSet(templates, tuple(config.zones), covering)
        # Where the daemon's canary to itself goes (see service/selfwatch.py), if it does.
        monitor = config.monitor
        self.canary_topic: str | None = (
            f"{monitor.canary_topic}/{config.mqtt.client_id}" if monitor.canary_interval_s else None
        )
        self._sources = broker_prefixes(config.sources)
        reports = config.reports
        self._own_topics = {
            reports.outcome_topic,
            reports.event_topic,
            reports.error_topic,
            reports.status_topic,
            *hermes.ANSWER_TOPICS,
            local.SAY_TOPIC,  # reserved for the HTTP API: a published copy is not its request
            *_peer_topics(config.standby),
        }

    @property
    def filters(self) -> list[str]:
        extra = [self.config.alarms.command_topic]
        if self.canary_topic is not None:
            extra.append(self.canary_topic)
        if self.config.hermes.enabled:
            extra.append(hermes.SAY)
        return list(dict.fromkeys([*self.templates.filters, *extra]))

    @functools.cached_property
    def own_topics(self) -> frozenset[str]:
        """The exact topics cosyedge defines, which no other system is expected to hear:
        its command and canary topics, the default say topic, Home Assistant's notify topic
        (a canary may go there; service/canary.py)."""
        ha = self.config.homeassistant
        own = {self.config.alarms.command_topic, *(t.topic for t in DEFAULT_TEMPLATES)}
        own |= {self.canary_topic} if self.canary_topic else set()
        return frozenset(own | ({ha.notify_topic} if ha.discovery else set()))

    def is_command(self, topic: str) -> bool:
        return topic == self.config.alarms.command_topic

    def command(self, payload: bytes, retained: bool = False) -> Command | BadCommand:
        """The operator command in a payload, or the BadCommand saying why it is none; never
        raises. A retained command is none: the broker would replay it at every start."""
        if retained:
            return BadCommand("retained commands are not carried out; clear the retained one")
        try:
            return parse_command(payload)
        except BadCommand as exc:
            return exc
        except Exception as exc:
            log.exception("cannot read the command %r", payload[:100])
            return BadCommand(f"cannot read it: {error_text(exc)}")

    def for_a_source(self, topic: str) -> bool:
        """Whether the topic is a source's on the broker (a Sparkplug group's), which only
        its source reads."""
        return topic.startswith(self._sources)

    def message(self, topic: str, payload: bytes) -> Message | None:
        """The message, or None when it is not ours: our own reports (a `#` template would
        hear them) and Hermes requests for another site."""
        if topic in self._own_topics or sourced.is_sourced(topic):
            return None  # a source's topics are its own: a published copy is not its alert
        if topic.startswith(self._sources):
            return None  # a source's broker messages: heard by it once it runs, else dropped
        message = Message(topic, payload)
        if self._is_hermes(topic):
            request = hermes.request_of(payload, message.load_json)
            if request is not None and request.site_id != self.config.hermes.site_id:
                return None
        return message

    def local_message(self, body: bytes) -> Message:
        """An HTTP say request as the message it is journaled as (see `local`); BadField when
        it is refused: malformed, or what reading it would reject."""
        data = local.request_object(body)
        if "template" in data:
            message = Message(*local.template_message(data, self.templates))
        else:
            request = local.say_request(data, self.config.voices, tuple(self.config.zones))
            message = Message(local.SAY_TOPIC, request.payload)
        try:  # read now as it will be once journaled, so nothing is accepted only to be rejected
            self.offer(message, self.ticket(message, 0, 0.0), 0.0)
        except local.BadField:
            raise
        except RejectedAlert as exc:
            raise local.BadField("template" if "template" in data else "text", str(exc)) from None
        return message

    def read(self, message: Message, seq: int, received: float, at: float) -> Verdict:
        """The journaled message `seq` as the rules take it: an Offer, or a Refusal saying
        why not (`rejected`, or `failed` when reading it raised); never raises. `at`: its
        receipt on the rules' clock."""
        ticket = self._ticket(message, seq, received)
        try:
            return self.offer(message, ticket, at)
        except RejectedAlert as exc:
            log.warning("rejected message on %r: %s", message.topic, exc)
            return Refusal(ticket, "rejected", str(exc), self._known(message))
        except Exception as exc:
            log.exception("cannot handle message %d on %r", seq, message.topic)
            reason = f"cannot handle this message: {error_text(exc)}"
            return Refusal(ticket, "failed", reason, self._known(message))

    def read_journaled(
        self,
        seq: int,
        topic: str,
        payload: bytes,
        received: float,
        at: float,
        said: Mapping[str, Any] | None = None,
    ) -> Verdict:
        """`read` for a message taken back from the journal (a `Reader`). An accepted message
        is never unsaid by the configuration in force now: when it no longer reads as an
        alert (a reload removed its template, the safe core runs, its template's fields
        changed) and the journal kept what was decided at its acceptance (`said`, see
        `decided`), it is said as decided then, with a note of why."""
        verdict = self.read(Message(topic, payload), seq, received, at)
        if not isinstance(verdict, Refusal) or verdict.kind != "rejected" or said is None:
            return verdict
        log.warning("message %d on %r: %s; said as accepted", seq, topic, verdict.reason)
        try:
            return self._as_decided(verdict, said, at)
        except RejectedAlert:  # no voice now says anything of it: as refused
            return verdict

    def _as_decided(self, refused: Refusal, said: Mapping[str, Any], at: float) -> Offer:
        """The offer kept in `said`, for a message the configuration now refuses."""
        ticket, key = refused.ticket, str(said["key"])
        if said.get("clear"):
            return Offer(ticket, key, at)
        priority = str(said["priority"])
        note = f"said as accepted; the configuration now refuses it: {refused.reason}"
        alert = Alert(ticket.topic, {}, key, priority, ticket.received)
        said_now = Announcement(str(said["text"]), str(said["lang"]), priority, alert, (note,))
        first = next(iter(self.config.voices))
        announcement = self._sayable(said_now, "en" if "en" in self.config.voices else first)
        timing = Timing(ttl_s=float(said["ttl"]), reannounce_s=float(said["reannounce"]))
        return Offer(ticket, key, at, timing, announcement)

    def _ticket(self, message: Message, seq: int, received: float) -> Ticket:
        try:
            return self.ticket(message, seq, received)
        except Exception:  # who to answer is a courtesy; the outcome is what counts
            log.exception("cannot read who sent message %d on %r", seq, message.topic)
            return Ticket(seq, message.topic, received, None, message.payload)

    def ticket(self, message: Message, seq: int, received: float) -> Ticket:
        request = None
        if self._is_hermes(message.topic):
            try:
                request = hermes.request_of(message.payload, message.load_json)
            except Exception:  # whatever it holds, the caller still gets its answer
                request = None
            request = request or HermesRequest(self.config.hermes.site_id)
        return Ticket(seq, message.topic, received, request, message.payload)

    def offer(self, message: Message, ticket: Ticket, at: float) -> Offer:
        """The message as an offer to the rules; RejectedAlert says why it cannot be one."""
        if looks_like_canary(ticket.topic, message.payload, self.own_topics):
            raise RejectedAlert(_NOT_OUR_CANARY)
        if self._is_hermes(ticket.topic):
            return self._say(ticket, message, at)
        if ticket.topic == local.SAY_TOPIC:
            return self._local_say(ticket, message, at)
        if sourced.is_sourced(ticket.topic):
            return self._sourced(ticket, message, at)
        payload = message.payload
        max_bytes = self.config.mqtt.max_payload_bytes
        alarms = self.config.alarms
        template, topic_fields = self.templates.find(ticket.topic)
        t = template.config
        alert = parse_alert(ticket.topic, payload, t.payload, max_bytes)
        if _is_clear(t, alert.fields):
            return Offer(ticket, alert.id, at, Timing(off_delay_s=t.off_delay_s))
        announcement = self._sayable(template.announcement(alert, topic_fields), t.lang)
        reannounce = t.reannounce_s
        if reannounce is None:
            reannounce = alarms.priorities.of(announcement.priority).reannounce_s
        default_ttl = alarms.ttl_s if t.ttl_s is None else t.ttl_s
        timing = Timing(
            ttl_s=_ttl(alert, default_ttl),
            on_delay_s=t.on_delay_s,
            off_delay_s=t.off_delay_s,
            reannounce_s=reannounce,
        )
        return Offer(ticket, alert.id, at, timing, announcement)

    def _say(self, ticket: Ticket, message: Message, at: float) -> Offer:
        """A Hermes say request: its own voice and timing, and de-duplicated only against a
        redelivery of the same message (see `hermes`)."""
        alarms, payload = self.config.alarms, message.payload
        max_bytes, voices = self.config.mqtt.max_payload_bytes, self.config.voices
        say = hermes.say_alert(payload, max_bytes, voices, message.load_json)
        alert = say.alert
        priority = alert.priority or self.config.hermes.priority
        text, left_out = plain_text(str(alert.fields["text"]), self.config.hermes.max_chars)
        request_id = ticket.hermes.request_id if ticket.hermes else None
        key = hermes.dedup_key(payload, request_id)
        if say.note is not None:
            log.warning("hermes/tts/say %s: %s", key, say.note)
        notes = tuple(n for n in (priority_note(alert, priority), left_out) if n)
        announcement = self._sayable(Announcement(text, say.lang, priority, alert, notes), say.lang)
        timing = Timing(
            ttl_s=_ttl(alert, alarms.ttl_s),
            reannounce_s=alarms.priorities.of(priority).reannounce_s,
        )
        return Offer(ticket, key, at, timing, announcement, say.volume, say.note)

    def _local_say(self, ticket: Ticket, message: Message, at: float) -> Offer:
        """An HTTP say request (journaled in canonical form, so read as strictly again)."""
        voices, alarms = self.config.voices, self.config.alarms
        data = local.request_object(message.payload)
        request = local.say_request(data, voices, tuple(self.config.zones))
        lang = reading_voice(request.lang or "", request.text, voices)[0]
        text, left_out = plain_text(request.text, local.MAX_CHARS)
        fields = {"text": request.text, "priority": request.priority}
        alert = Alert(ticket.topic, fields, request.key(), request.priority, ticket.received)
        notes = (left_out,) if left_out else ()
        said = Announcement(text, lang, request.priority, alert, notes, zones=request.zones)
        announcement = self._sayable(said, lang)
        timing = Timing(
            ttl_s=alarms.ttl_s if request.ttl is None else request.ttl,
            reannounce_s=alarms.priorities.of(request.priority).reannounce_s,
        )
        return Offer(ticket, alert.id, at, timing, announcement, request.volume)

    def _sourced(self, ticket: Ticket, message: Message, at: float) -> Offer:
        """An alarm a source decided (`sourced`): said as the source made it, timed as the
        alarms: section times its priority; an alarm in the ISA-18.2 figures by its topic."""
        got = sourced.read(message.payload)
        if got.text is None:
            return Offer(ticket, got.key, at, note=got.reason)
        alert = Alert(ticket.topic, dict(got.fields), got.id, got.priority, ticket.received)
        said = Announcement(got.text, got.lang, got.priority, alert, alarm=ticket.topic)
        timing = Timing(
            ttl_s=self.config.alarms.ttl_s,
            reannounce_s=self.config.alarms.priorities.of(got.priority).reannounce_s,
        )
        return Offer(ticket, got.key, at, timing, self._sayable(said, got.lang))

    def sayable(self, text: str, asked: str, default: str) -> tuple[str, tuple[str, ...]]:
        """The one rule for what may be spoken, whichever door the text came in by (an
        alert's phrase from MQTT, a say request, a synthesis for a caller of the HTTP API or
        the Wyoming server; door.py): the language of the voice that says it (`asked` if it
        has one, else `default`) and notes of what is not taken as given (no voice for the
        language, parts no voice reads). RejectedAlert `nothing to say in <lang>` when the
        voices can say no word or number of it: emoji, symbols, punctuation, a script none
        of them reads."""
        lang, notes = self._voice_lang(asked, default)
        runs = split_runs(text, lang, self.config.voices)
        left_out = _left_out(runs)
        if not says_anything(runs):
            detail = f" ({'; '.join(left_out)})" if left_out else ""
            raise RejectedAlert(f"nothing to say in {lang}{detail}")
        return lang, (*notes, *left_out)

    def _sayable(self, announcement: Announcement, default_lang: str) -> Announcement:
        """The announcement held to `sayable`, in a language that has a voice, with notes of
        what was not taken as given."""
        lang, noted = self.sayable(announcement.text, announcement.lang, default_lang)
        notes = (*announcement.notes, *noted)
        if notes:
            log.warning("alert %s: %s", announcement.alert.id, "; ".join(notes))
        return dataclasses.replace(announcement, lang=lang, notes=notes)

    def _voice_lang(self, asked: str, default: str) -> tuple[str, tuple[str, ...]]:
        """The language asked for if it has a voice, or its primary subtag (en-GB: en), or
        the default, said in a note."""
        for lang in (asked, asked.split("-")[0].lower()):
            if lang in self.config.voices:
                return lang, ()
        return default, (f"lang: no voice for {brief(asked)}, used {default}",)

    def _known(self, message: Message) -> dict[str, str | None]:
        """What the reports of a refused message can say of it, as those of an alert do: the
        id it would have had (its payload's `id`, else the hash of topic and payload; a Hermes
        request's key), so its publisher can tell which message it is, and its priority (the
        payload's, else its template's); None where it cannot be told. Never raises."""
        try:
            alert: Alert | None = parse_alert(
                message.topic, message.payload, load=message.load_json
            )
        except Exception:  # unreadable: named as a message without an id is
            alert = None
        ident = alert.id if alert else hashed_id(message.topic, message.payload)
        if self._is_hermes(message.topic):
            request = self.ticket(message, 0, 0.0).hermes
            ident = hermes.dedup_key(message.payload, request.request_id if request else None)
        return {"id": ident, "priority": (alert and alert.priority) or self._priority(message)}

    def _priority(self, message: Message) -> str | None:
        """The priority a message on its topic is said at when its payload names none."""
        if self._is_hermes(message.topic):
            return self.config.hermes.priority
        if message.topic == local.SAY_TOPIC:
            return local.DEFAULT_PRIORITY
        try:
            return self.templates.find(message.topic)[0].config.priority
        except RejectedAlert:  # no template matches: it has none
            return None

    def _is_hermes(self, topic: str) -> bool:
        return self.config.hermes.enabled and topic == hermes.SAY


def decided(verdict: Verdict) -> dict[str, Any] | None:
    """What reading a message decided, as the journal keeps it beside the message
    (journal/records.py `said_valid`): the offer's key and phrase, language, priority and
    timing, or that it is a return to normal; None for a refusal."""
    if isinstance(verdict, Refusal):
        return None
    said = verdict.announcement
    if said is None:
        return {"key": verdict.key, "clear": True}
    return {
        "key": verdict.key,
        "text": said.text,
        "lang": said.lang,
        "priority": said.priority,
        "ttl": verdict.timing.ttl_s,
        "reannounce": verdict.timing.reannounce_s,
    }


def notify_templates(config: Config) -> tuple[TemplateConfig, ...]:
    """With Home Assistant's discovery on, its notify entity publishes the message as plain
    text on `homeassistant.notify_topic`: an alert like any other, said at
    `notify_priority` (docs/homeassistant.md). First, so a site's `#` template does not take it."""
    ha = config.homeassistant
    if not ha.discovery:
        return ()
    lang = "en" if "en" in config.voices else next(iter(config.voices))
    template = TemplateConfig(
        topic=ha.notify_topic, text="{text}", payload="text", priority=ha.notify_priority, lang=lang
    )
    return (template,)


def _left_out(runs: list[Run]) -> tuple[str, ...]:
    """One note per reason a part of the phrase is not said, quoting the parts."""
    parts: dict[str, list[str]] = {}
    for run in runs:
        if not run.said:
            parts.setdefault(why_unsaid(run), []).append(repr(run.text))
    return tuple(f"left out, {why}: {_bounded(', '.join(texts))}" for why, texts in parts.items())


def _bounded(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def _ttl(alert: Alert, default: float) -> float:
    """A payload `ttl` (seconds) overrides the configured time to live; 0 means the alert
    never expires, as `alarms.ttl_s: 0` does; null, as if it were not given."""
    value = alert.fields.get("ttl")
    kind = not_a_number(alert, "ttl")
    if kind is not None:
        raise RejectedAlert(f"ttl: expected seconds as a number, got {kind}")
    if value is None:
        return default
    seconds = finite_number(value)
    if seconds is None or seconds < 0:
        raise RejectedAlert(
            f"ttl: expected seconds, 0 or more (0: never expires), got {brief(value)}"
        )
    return seconds


def _is_clear(template: TemplateConfig, fields: Mapping[str, Scalar]) -> bool:
    name, _, expected = template.clear_if.partition("=")
    value = fields.get(name.strip())
    if value is None:
        return False
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return text.strip().lower() == expected.strip().lower()
