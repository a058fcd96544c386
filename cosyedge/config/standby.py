"""A standby gateway (`standby`), off by default: the primary it stands by for, named by what
it publishes on the broker; on a primary, the standby that speaks for it while it is gone
(`reports_of`), whose reports its restart takes up (docs/standby.md, "Handback").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass, field

from cosyedge.config.fields import at_or_under, check_client_id, check_publish_topic, meta, show
from cosyedge.config.mqtt import MqttConfig, ReportsConfig
from cosyedge.config.sources import overlap
from cosyedge.config.zones import ALL, NAME

PHRASE_MAX = 500  # characters of a takeover phrase: a sentence or two, said before alerts


@dataclass(frozen=True)
class StandbyConfig:
    """This gateway stands by for a primary on the same broker: it takes in, journals and
    decides every alert, and speaks only while the primary is gone; or, on the primary,
    the standby whose reports its restart takes up (docs/standby.md)."""

    enabled: bool = field(
        default=False,
        metadata=meta("stand by for the primary named below; off: this gateway speaks itself"),
    )
    mutual: bool = field(
        default=False,
        metadata=meta(
            "two active gateways in one place, each naming the other here: the one whose "
            "`mqtt.client_id` sorts first speaks, as a primary taking up the other's reports "
            "(`reports_of`: the other's `report_topic`); the other stands by for it"
        ),
    )
    client_id: str = field(
        default="",
        metadata=meta(
            "the primary's `mqtt.client_id` (needed when enabled): this gateway's must differ",
        ),
    )
    status_topic: str = field(
        default="cosyedge/status",
        metadata=meta(
            "the primary's retained status topic (its `reports.status_topic`, on which the "
            "broker publishes its Last Will `offline`); this gateway's must differ"
        ),
    )
    report_topic: str = field(
        default="cosyedge/report",
        metadata=meta(
            "the primary's outcome topic (its `reports.outcome_topic`): its outcome of an "
            "alert ends this gateway's copy as `covered`; this gateway's must differ"
        ),
    )
    error_topic: str = field(
        default="cosyedge/error",
        metadata=meta("the primary's error topic (its `reports.error_topic`); ours must differ"),
    )
    event_topic: str = field(
        default="cosyedge/event",
        metadata=meta(
            "the primary's event topic (its `reports.event_topic`): an operator's `ack` or "
            "`silence` it carried out (from its page or HTTP API too) is carried out here for "
            "the same ids; this gateway's must differ"
        ),
    )
    takeover_s: float = field(
        default=5.0,
        metadata=meta(
            "with the primary gone, an alert received while it was alive is said once it has "
            "waited this long, in seconds, without the primary's outcome; also how long a "
            "primary with no status at all is waited for after the first message heard; with "
            "2 of its beats (`beat_s` in its status), how long its status may stay silent",
            range=(0.5, 600),
        ),
    )
    link_topic: str = field(
        default="",
        metadata=meta(
            "with the other gateway on another broker bridged to ours: the topic on which our "
            "broker tells whether the bridge is up (Mosquitto's bridge `notifications`: "
            "`$SYS/broker/connection/<name>/state`, `1` up, `0` down); on a standby, down for "
            "`takeover_s` counts as the primary gone; on a primary (`reports_of`), the bridge "
            "back after it was down holds what this gateway would say for `handback_s`, for the "
            "standby's reports of what it said meanwhile; empty: both on our broker"
        ),
    )
    takeover_phrase: str | None = field(
        default=None,
        metadata=meta(
            "said at each takeover before the alerts taken over, as the fault `standby` (said "
            'again as every fault is, until acknowledged); null: "Alarm system fault: the '
            "primary gateway has failed. The standby gateway has taken over.\" in the faults' "
            "language; empty: none (the fault is shown, not said)"
        ),
    )
    zones: tuple[str, ...] = field(
        default=(),
        metadata=meta(
            "the primary's zones this gateway covers, by name: each is said in this "
            "gateway's zone of the same name (without `zones`, on its one sound device); an "
            "alert naming none of them is the primary's alone, never said here; empty: every "
            'zone (docs/standby.md, "Zones")'
        ),
    )
    reports_of: str = field(
        default="",
        metadata=meta(
            "on a primary (not `enabled`): its standby's outcome topic (the standby's "
            "`reports.outcome_topic`); what the standby said while this gateway was gone is "
            "not said again here at its restart; empty: no standby known"
        ),
    )
    handback_s: float = field(
        default=5.0,
        metadata=meta(
            "with `reports_of`, how long a start holds what it would say, at most, in seconds, "
            "until what the broker kept for this gateway (the standby's reports among it) is "
            "in; then it speaks, whatever is missing",
            range=(0.5, 60),
        ),
    )

    def __post_init__(self) -> None:
        for name in ("status_topic", "report_topic", "error_topic", "event_topic"):
            check_publish_topic(name, getattr(self, name))
        for name in ("reports_of", "link_topic"):
            if getattr(self, name):
                check_publish_topic(name, getattr(self, name))
        if self.enabled and not self.client_id:
            raise ValueError("client_id: the primary's client id is needed with `enabled`")
        check_client_id("client_id", self.client_id)
        if self.takeover_phrase is not None and len(self.takeover_phrase) > PHRASE_MAX:
            raise ValueError(f"takeover_phrase: at most {PHRASE_MAX} characters")
        for name in self.zones:
            if name == ALL or not NAME.match(name):
                raise ValueError(f"zones: {show(name)} is not a zone's name")
        if len(set(self.zones)) < len(self.zones):
            twice = next(z for z in self.zones if self.zones.count(z) > 1)
            raise ValueError(f"zones: {show(twice)} named twice")
        if self.zones and not self.enabled:
            raise ValueError("zones: a standby's key (`enabled`): the primary's zones it covers")
        if self.mutual and not (self.enabled or self.reports_of):
            raise ValueError("mutual: with `enabled` and the other gateway named")
        if self.enabled and self.reports_of:
            raise ValueError(
                "reports_of: a primary's key (its standby's outcome topic); a standby "
                "(`enabled`) takes its primary's reports by `report_topic`"
            )

    def role(self, own_id: str) -> StandbyConfig:
        """This gateway's part: with `mutual`, the primary's (speaking, taking up the other's
        reports at its restart) when its client id `own_id` sorts before the other's, else
        the standby's; as configured otherwise."""
        if not self.mutual or not self.enabled or own_id > self.client_id:
            return self
        return dataclasses.replace(self, enabled=False, reports_of=self.report_topic, zones=())


def check_standby(standby: StandbyConfig, mqtt: MqttConfig, reports: ReportsConfig) -> None:
    """Two gateways on one broker each need their own client id and report topics: a
    ValueError naming this gateway's key that would share one with the primary (or, on a
    primary, the standby's outcome topic that is one of its own)."""
    if standby.reports_of:
        _not_ours(standby.reports_of, reports)
    if not standby.enabled:
        return
    if mqtt.client_id == standby.client_id:
        raise ValueError(
            f"mqtt.client_id: {show(mqtt.client_id)} is the primary's (standby.client_id); "
            "each gateway needs its own"
        )
    theirs = {
        standby.status_topic: "standby.status_topic",
        standby.report_topic: "standby.report_topic",
        standby.error_topic: "standby.error_topic",
        standby.event_topic: "standby.event_topic",
        **({standby.link_topic: "standby.link_topic"} if standby.link_topic else {}),
    }
    for f in dataclasses.fields(reports):
        topic = getattr(reports, f.name)
        if topic in theirs:
            raise ValueError(
                f"reports.{f.name}: {show(topic)} is the primary's ({theirs[topic]}); "
                "each gateway needs its own report topics"
            )


def check_covered(standby: StandbyConfig, zones: Collection[str]) -> None:
    """A standby covering some of its primary's zones says each in its own zone of the same
    name: a ValueError naming the key where one of them, or one of its own, has no match."""
    if not standby.zones or not zones:
        return
    for name in standby.zones:
        if name not in zones:
            raise ValueError(
                f"standby.zones: no zone {show(name)} here (zones: {', '.join(zones)}); a "
                "covered zone is said in this gateway's zone of the same name"
            )
    for name in zones:
        if name not in standby.zones:
            raise ValueError(
                f"zones.{name}: not among standby.zones ({', '.join(standby.zones)}); a "
                "standby covering some zones speaks in those alone"
            )


def _not_ours(topic: str, reports: ReportsConfig) -> None:
    """A primary's `reports_of` must be the standby's topic, not one of its own report topics:
    else it would take its own outcomes for the standby's."""
    for f in dataclasses.fields(reports):
        if getattr(reports, f.name) == topic:
            raise ValueError(
                f"standby.reports_of: {show(topic)} is this gateway's own reports.{f.name}; "
                "name the standby's outcome topic"
            )


def check_crossing(
    standby: StandbyConfig,
    client_id: str,
    command_topic: str,
    canary_topic: str,
    filters: list[str],
    reports: ReportsConfig,
) -> None:
    """The topics one gateway names for the other are apart from all it takes otherwise: a
    ValueError naming the key. A primary's `reports_of` is not its alert filters, command
    topic or handback marker topic (it would take its own messages for the standby's
    reports); a standby's topics of the primary are not one another, its status, report and
    link topics fall under no template's filter but a `#` one, and its `event_topic` is not
    the command topic (docs/standby.md)."""
    marker = f"{canary_topic}/{client_id}/handback"
    own = {
        command_topic: "alarms.command_topic",
        f"{canary_topic}/{client_id}": "canary topic (monitor.canary_topic/<client id>)",
        marker: "handback marker topic",
    }
    if standby.reports_of:
        taken = dict(own)
        taken.update({f: f"templates[{i}].topic" for i, f in reversed(list(enumerate(filters)))})
        if standby.reports_of in taken:
            raise ValueError(
                f"standby.reports_of: {show(standby.reports_of)} is this gateway's "
                f"{taken[standby.reports_of]}; name the standby's outcome topic"
            )
        _reports_of_apart(standby.reports_of, canary_topic)
        if standby.link_topic:
            taken[standby.reports_of] = "standby.reports_of"
            _link_apart(standby.link_topic, taken, reports, canary_topic)
    if standby.enabled or standby.reports_of:
        _own_apart(reports, filters)
    if standby.enabled:
        _apart(standby, command_topic, filters)
        _not_own(standby, own)
        _not_canaries(standby, canary_topic)


def _reports_of_apart(topic: str, canary_topic: str) -> None:
    """A primary's `reports_of` is not at or under the canary topic: no standby's outcome
    topic may be there (its own canaries would be taken for reports)."""
    if at_or_under(topic, canary_topic):
        raise ValueError(
            f"standby.reports_of: {show(topic)} is under monitor.canary_topic "
            f"({show(canary_topic)}), where no gateway's outcomes go; name the standby's "
            "outcome topic"
        )


def _link_apart(
    link: str, taken: dict[str, str], reports: ReportsConfig, canary_topic: str
) -> None:
    """A primary's `link_topic` is the bridge's state alone: none of its own topics (`taken`:
    topic -> its key: commands, canaries, marker, alert filters, the standby's reports; and
    its report topics), under no alert filter and not under the canary topic: their messages
    would be taken for the bridge's state."""
    own = {getattr(reports, f.name): f"reports.{f.name}" for f in dataclasses.fields(reports)}
    own.update(taken)
    if link in own:
        raise ValueError(
            f"standby.link_topic: {show(link)} is this gateway's {own[link]}; name the "
            "bridge's state topic"
        )
    under = _under(link, list(own))
    if under is not None:
        topic = list(own)[under]
        raise ValueError(
            f"standby.link_topic: {show(link)} falls under this gateway's {own[topic]} "
            f"({show(topic)}); name the bridge's state topic"
        )
    if at_or_under(link, canary_topic):
        raise ValueError(
            f"standby.link_topic: {show(link)} is under monitor.canary_topic "
            f"({show(canary_topic)}); name the bridge's state topic"
        )


def _not_own(standby: StandbyConfig, own: dict[str, str]) -> None:
    """A standby's status, report and link topics of its primary are none of this gateway's
    own topics (its commands, canaries, handback marker): it would take its own messages, or
    an operator's command, for the primary's status or reports."""
    for name in ("status_topic", "report_topic", "link_topic"):
        topic = getattr(standby, name)
        if topic in own:
            raise ValueError(
                f"standby.{name}: {show(topic)} is this gateway's {own[topic]}; name the "
                "primary's topic"
            )


def _under(topic: str, filters: list[str]) -> int | None:
    """The first template filter other than a `#` one that `topic` falls under, by index.
    Under a `#` filter (one that hears everything below it) a gateway's report topics are kept
    from the alerts by the intake; under a narrower one, an alert topic was meant."""
    return next(
        (i for i, f in enumerate(filters) if topic and not f.endswith("#") and overlap(topic, f)),
        None,
    )


def _own_apart(reports: ReportsConfig, filters: list[str]) -> None:
    """A gateway of a pair keeps its own status and outcome topics out of its alert filters,
    as its partner, with the same templates, must keep them (`_apart`)."""
    for name in ("status_topic", "outcome_topic"):
        topic = getattr(reports, name)
        if (under := _under(topic, filters)) is not None:
            raise ValueError(
                f"reports.{name}: {show(topic)} falls under templates[{under}].topic "
                f"({show(filters[under])}); the other gateway, with the same templates, would "
                "hear it as alerts: give report topics outside the alert filters"
            )


def _not_canaries(standby: StandbyConfig, canary_topic: str) -> None:
    """A standby's topics of its primary are not at or under the canary topic, where the
    primary's canaries and handback marker go (`<canary_topic>/<its client id>`): canaries
    taken for its status would make it look as if it had none, and the standby speak."""
    for name in ("status_topic", "report_topic", "error_topic", "event_topic", "link_topic"):
        topic = getattr(standby, name)
        if at_or_under(topic, canary_topic):
            raise ValueError(
                f"standby.{name}: {show(topic)} is under monitor.canary_topic "
                f"({show(canary_topic)}), where the primary's canaries go; name the primary's "
                "topic"
            )


def _apart(standby: StandbyConfig, command_topic: str, filters: list[str]) -> None:
    """A standby's topics of its primary: each its own, none an alert or a command."""
    seen: dict[str, str] = {}
    for name in ("status_topic", "report_topic", "error_topic", "event_topic", "link_topic"):
        topic, key = getattr(standby, name), f"standby.{name}"
        if topic and topic in seen:
            raise ValueError(f"{key}: {show(topic)} is {seen[topic]} too; each needs its own")
        seen[topic] = key
        under = _under(topic, filters)
        if under is not None and name in ("status_topic", "report_topic", "link_topic"):
            raise ValueError(
                f"{key}: {show(topic)} falls under templates[{under}].topic "
                f"({show(filters[under])}); give the primary's topics outside the alert filters"
            )
    for name in ("event_topic", "error_topic"):
        if getattr(standby, name) == command_topic:
            raise ValueError(
                f"standby.{name}: {show(command_topic)} is this gateway's "
                "alarms.command_topic; name the primary's topic"
            )
