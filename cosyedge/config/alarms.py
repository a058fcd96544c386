"""The alarm rules (`alarms`: priorities, floods, quiet hours, shelving, the alarm history)
and the alarm system watching itself (`monitor`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cosyedge.config.fields import check_publish_topic, meta


@dataclass(frozen=True)
class PriorityConfig:
    """How alerts of one priority are announced (`alarms.priorities.<priority>`): the chime
    before them, their volume, how often one not acknowledged is said again."""

    chime: bool = field(
        default=True,
        metadata=meta(
            "a generated chime before the announcement: critical three beeps at 1760 Hz, high "
            "two at 1319 Hz, medium one at 988 Hz, low one at 659 Hz"
        ),
    )
    volume: float = field(default=1.0, metadata=meta("scales chime and speech", range=(0, 1)))
    reannounce_s: float = field(
        default=0.0,
        metadata=meta(
            "re-announce unacknowledged alerts this often, in seconds; 0: never",
            range=(0, 86400),
        ),
    )


@dataclass(frozen=True)
class PrioritiesConfig:
    """The announcing of each of the four priorities (`alarms.priorities`)."""

    critical: PriorityConfig = field(
        default_factory=PriorityConfig, metadata=meta("critical alerts")
    )
    high: PriorityConfig = field(default_factory=PriorityConfig, metadata=meta("high alerts"))
    medium: PriorityConfig = field(default_factory=PriorityConfig, metadata=meta("medium alerts"))
    low: PriorityConfig = field(default_factory=PriorityConfig, metadata=meta("low alerts"))

    def of(self, priority: str) -> PriorityConfig:
        return getattr(self, priority)


@dataclass(frozen=True)
class FloodConfig:
    """When many alerts at once are a flood, summarized instead of said one by one, and when
    the flood is over (`alarms.flood`)."""

    threshold: int = field(
        default=10,
        metadata=meta("more than this many alerts within the window is a flood", range=(1, 100000)),
    )
    window_s: float = field(
        default=600.0,
        metadata=meta("the window alerts are counted in, in seconds", range=(0.1, 86400)),
    )
    end_at: int = field(
        default=5,
        metadata=meta(
            "the flood ends when at most this many remain within the window; below `threshold`",
            range=(0, 100000),
        ),
    )
    summary_interval_s: float = field(
        default=30.0,
        metadata=meta("least time between two flood summaries, in seconds", range=(0, 3600)),
    )

    def __post_init__(self) -> None:
        if self.end_at >= self.threshold:
            raise ValueError("end_at: must be below threshold")


@dataclass(frozen=True)
class QuietHoursConfig:
    """A daily window of local time in which alerts below critical are played more quietly
    (`alarms.quiet_hours`)."""

    start: str = field(metadata=meta("start of the window, `HH:MM` local time"))
    end: str = field(
        metadata=meta("end of the window, `HH:MM` local time; one before `start` spans midnight")
    )
    volume: float = field(
        default=0.5,
        metadata=meta(
            "factor on the volume of every non-critical alert in the window", range=(0, 1)
        ),
    )

    def __post_init__(self) -> None:
        for name in ("start", "end"):
            value = getattr(self, name)
            hours, colon, minutes = value.partition(":")
            if not (colon and hours.isdigit() and minutes.isdigit() and len(minutes) == 2) or (
                int(hours) > 23 or int(minutes) > 59
            ):
                raise ValueError(f"{name}: expected a time HH:MM, got {value!r}")


@dataclass(frozen=True)
class AlarmsConfig:
    """Alarm management in the manner of ISA-18.2 (`alarms`): commands, de-duplication, how
    long an alert may wait and be said, shelving, floods, each priority's announcing, quiet
    hours, the alarm history kept."""

    command_topic: str = field(
        default="cosyedge/command",
        metadata=meta(
            "where commands arrive (`ack`, `silence`, `shelve`, `unshelve`: docs/alarms.md); "
            "a topic without wildcards"
        ),
    )
    dedup_window_s: float = field(
        default=60.0,
        metadata=meta("an id seen again within this many seconds is a duplicate", range=(0, 86400)),
    )
    ttl_s: float = field(
        default=0.0,
        metadata=meta(
            "default time to live of an alert, in seconds, when neither the payload's `ttl` "
            "nor the template's `ttl_s` sets one; 0: alerts never expire",
            range=(0, 7 * 86400),
        ),
    )
    max_spoken_s: float = field(
        default=30.0,
        metadata=meta(
            "longest an alert's phrase may take to say, in seconds, as the voice's own reading "
            "estimates it (a template's `max_spoken_s` overrides it); a longer one is said up to "
            "the last clause or word boundary that fits, never cut inside a number, a code or "
            "an address, and its report says `shortened` and what was left out; at least 20, "
            "so the longest number a field may hold (13 s) is never cut",
            range=(20, 600),
        ),
    )
    max_shelve_s: float = field(
        default=8 * 3600.0,
        metadata=meta(
            "longest shelve, in seconds; longer requests are cut to it", range=(0.1, 7 * 86400)
        ),
    )
    flood: FloodConfig = field(
        default_factory=FloodConfig,
        metadata=meta(
            "flood handling: past the threshold, non-critical alerts are gathered into summaries"
        ),
    )
    priorities: PrioritiesConfig = field(
        default_factory=PrioritiesConfig,
        metadata=meta("chime, volume and re-announcement of each priority"),
    )
    quiet_hours: QuietHoursConfig | None = field(
        default=None,
        metadata=meta(
            "a daily window in which non-critical alerts are quieter, e.g. "
            '`{start: "22:00", end: "06:00", volume: 0.5}`; null: none'
        ),
    )
    critical_in_all_zones: bool = field(
        default=False,
        metadata=meta(
            "a critical alert is said in every zone, whatever zones its template or its "
            "`zone` field name (docs/zones.md)"
        ),
    )
    history_days: int = field(
        default=400,
        metadata=meta(
            "days of alarm history kept in `state_dir/history` for the ISA-18.2 figures and "
            "the audit (`cosyedge report`); a year and a month by default, so a yearly "
            "review sees the whole year",
            range=(1, 3660),
        ),
    )
    history_mb: int = field(
        default=200,
        metadata=meta(
            "largest size of the alarm history, in MB: past it the oldest days are removed, "
            "and a single day that reaches it is not written further (a flood must not fill "
            "the disk the journal and the cache need)",
            range=(1, 100000),
        ),
    )

    def __post_init__(self) -> None:
        check_publish_topic("command_topic", self.command_topic)


@dataclass(frozen=True)
class MonitorConfig:
    """The alarm system watching itself (see docs/alarms.md, "The alarm system's own faults")."""

    canary_interval_s: float = field(
        default=30.0,
        metadata=meta(
            "each subscribed topic filter gets a signed canary through the broker this often, "
            "in seconds (sent in turn, spread over it); 0: off",
            range=(0, 3600),
        ),
    )
    canary_timeout_s: float = field(
        default=75.0,
        metadata=meta(
            "a filter with no canary back for this long, in seconds, is the fault `intake` "
            "naming it; above the interval",
            range=(1, 3600),
        ),
    )
    canary_topic: str = field(
        default="cosyedge/canary",
        metadata=meta(
            "a topic of the daemon's own, plus `/<client id>`, subscribed and proven like the "
            "alert topics; each filter's canaries are QoS 1, not retained"
        ),
    )
    canary_max_rate: float = field(
        default=20.0,
        metadata=meta(
            "at most this many canaries a second, however many topic filters; a round through "
            "every filter then takes the longer of canary_interval_s and filters / this rate",
            range=(0.1, 1000),
        ),
    )
    stuck_s: float = field(
        default=60.0,
        metadata=meta(
            "a busy stage (announcer, player, journal writer) without progress this long, in "
            "seconds, is a fault",
            range=(5, 3600),
        ),
    )
    reannounce_s: float = field(
        default=300.0,
        metadata=meta(
            "a fault is said again this often, in seconds, until acknowledged; 0: once",
            range=(0, 86400),
        ),
    )
    say_cleared: bool = field(
        default=True,
        metadata=meta('say "Alarm system fault cleared." when a fault ends'),
    )

    def __post_init__(self) -> None:
        check_publish_topic("canary_topic", self.canary_topic)
        if self.canary_interval_s and self.canary_timeout_s <= self.canary_interval_s:
            raise ValueError("canary_timeout_s: must be above canary_interval_s")
