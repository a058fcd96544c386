"""MQTT message → Offer: which messages are ours, and what each one asks of the alarm rules.

Alert topics go through the templates, `hermes/tts/say` through the Hermes mapping; a message
that cannot become an alert raises RejectedAlert with the reason. Timing (time to live,
on/off-delay, re-announcement) is settled here from payload, template and the alarms: section,
so the rules only see numbers.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Mapping

from cosyedge.alerts.alert import RejectedAlert, Scalar, parse_alert
from cosyedge.alerts.policy import Offer, Ticket, Timing
from cosyedge.announcements.templates import Announcement, TemplateSet, plain_text
from cosyedge.config import Config, TemplateConfig
from cosyedge.mqtt import hermes

log = logging.getLogger(__name__)


class Intake:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.templates = TemplateSet(config.templates)
        reports = config.reports
        self._own_topics = {
            reports.outcome_topic,
            reports.event_topic,
            reports.error_topic,
            reports.status_topic,
            *hermes.ANSWER_TOPICS,
        }

    @property
    def filters(self) -> list[str]:
        extra = [self.config.alarms.command_topic]
        if self.config.hermes.enabled:
            extra.append(hermes.SAY)
        return list(dict.fromkeys([*self.templates.filters, *extra]))

    def is_command(self, topic: str) -> bool:
        return topic == self.config.alarms.command_topic

    def wants(self, topic: str, payload: bytes) -> bool:
        """False for our own reports (a `#` template would hear them) and other Hermes sites."""
        if topic in self._own_topics:
            return False
        if self._is_hermes(topic):
            request = hermes.request_of(payload)
            return request is None or request.site_id == self.config.hermes.site_id
        return True

    def ticket(self, seq: int, topic: str, payload: bytes, received: float) -> Ticket:
        request = None
        if self._is_hermes(topic):
            try:
                request = hermes.request_of(payload)
            except Exception:  # whatever it holds, the caller still gets its answer
                request = None
            request = request or hermes.HermesRequest(self.config.hermes.site_id)
        return Ticket(seq, topic, received, request, payload)

    def offer(self, ticket: Ticket, payload: bytes, at: float) -> Offer:
        max_bytes = self.config.mqtt.max_payload_bytes
        alarms = self.config.alarms
        if self._is_hermes(ticket.topic):
            return self._say(ticket, payload, at)
        template, topic_fields = self.templates.find(ticket.topic)
        t = template.config
        alert = parse_alert(ticket.topic, payload, t.payload, max_bytes)
        if _is_clear(t, alert.fields):
            return Offer(ticket, alert.id, at, Timing(off_delay_s=t.off_delay_s))
        announcement = template.render(alert, topic_fields)
        if announcement.lang not in self.config.voices:  # the alert named one we cannot speak
            announcement = dataclasses.replace(announcement, lang=t.lang)
        reannounce = t.reannounce_s
        if reannounce is None:
            reannounce = alarms.priorities.of(announcement.priority).reannounce_s
        default_ttl = alarms.ttl_s if t.ttl_s is None else t.ttl_s
        timing = Timing(
            ttl_s=_ttl(alert.fields, default_ttl),
            on_delay_s=t.on_delay_s,
            off_delay_s=t.off_delay_s,
            reannounce_s=reannounce,
        )
        return Offer(ticket, alert.id, at, timing, announcement)

    def _say(self, ticket: Ticket, payload: bytes, at: float) -> Offer:
        """A Hermes say request: its own voice and timing, and de-duplicated only against a
        redelivery of the same message (see `hermes`)."""
        alarms = self.config.alarms
        say = hermes.say_alert(payload, self.config.mqtt.max_payload_bytes, self.config.voices)
        alert = say.alert
        priority = alert.priority or self.config.hermes.priority
        text = plain_text(str(alert.fields["text"]), self.config.hermes.max_chars)
        if not text:
            raise RejectedAlert("hermes/tts/say: text has nothing to speak")
        request_id = ticket.hermes.request_id if ticket.hermes else None
        key = hermes.dedup_key(payload, request_id)
        if say.note is not None:
            log.warning("hermes/tts/say %s: %s", key, say.note)
        timing = Timing(
            ttl_s=_ttl(alert.fields, alarms.ttl_s),
            reannounce_s=alarms.priorities.of(priority).reannounce_s,
        )
        announcement = Announcement(text, say.lang, priority, alert)
        return Offer(ticket, key, at, timing, announcement, say.volume, say.note)

    def _is_hermes(self, topic: str) -> bool:
        return self.config.hermes.enabled and topic == hermes.SAY


def _ttl(fields: Mapping[str, Scalar], default: float) -> float:
    """A payload `ttl` (seconds) overrides the configured time to live."""
    value = fields.get("ttl")
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RejectedAlert(f"ttl: expected seconds as a number, got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise RejectedAlert(f"ttl: expected seconds above 0, got {value!r}")
    return float(value)


def _is_clear(template: TemplateConfig, fields: Mapping[str, Scalar]) -> bool:
    name, _, expected = template.clear_if.partition("=")
    value = fields.get(name.strip())
    if value is None:
        return False
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return text.strip().lower() == expected.strip().lower()
