"""What becomes an alert: the templates that turn a plant's messages into phrases
(`templates`), and Rhasspy Hermes' say requests (`hermes`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from cosyedge.config.fields import PRIORITIES, meta
from cosyedge.config.signals import RecordedConfig, ToneConfig
from cosyedge.config.syntax import check_template
from cosyedge.config.values import expand_values, placeholders

# The topic level each wildcard of a filter becomes in its canaries' topic (service/canary.py):
# no real source may use it.
CANARY_LEVEL = "_cosyedge_canary"
CANARY_KEY = "cosyedge_canary"  # a canary's payload is a JSON object with this first key


def looks_like_canary(topic: str, payload: bytes, own: Collection[str]) -> bool:
    """Whether a message is a canary (genuine or not) rather than an alert: on a reserved
    topic, or on one of cosyedge's `own` exact topics with a payload that opens with the
    canary key. On any other topic, whatever its payload, a message is an alert, since no
    canary goes there. Cheap: called for every message."""
    if CANARY_LEVEL in topic.split("/"):
        return True
    return topic in own and payload.lstrip().startswith(f'{{"{CANARY_KEY}"'.encode())


@dataclass(frozen=True)
class TemplateConfig:
    """How alerts on a topic filter become a phrase (`templates[i]`): the text with its
    fields, language, priority and the values it may take."""

    topic: str = field(
        metadata=meta(
            "an MQTT topic filter; a level written `{name}` matches any one level and becomes "
            "a field"
        )
    )
    text: str = field(
        metadata=meta(
            "the phrase; `{field}` takes a payload or topic field, `{field:.1f}` rounds a number"
        )
    )
    payload: str = field(
        default="auto",
        metadata=meta(
            "`json` (an object whose plain values become fields), `text` (the field `text`) or "
            "`auto` (JSON when it starts with `{`, which must then be valid)",
            choices=("auto", "json", "text"),
        ),
    )
    priority: str = field(
        default="medium",
        metadata=meta(
            "priority of its alerts, unless the payload has a valid `priority` field",
            choices=PRIORITIES,
        ),
    )
    lang: str = field(
        default="en",
        metadata=meta(
            "language of script-neutral text (numbers, tags); a voice must be configured for "
            "it; an alert's `lang` field overrides it"
        ),
    )
    max_chars: int = field(
        default=1000,
        metadata=meta(
            "characters of the phrase as rendered, a bound on what arrives, not on speech: "
            "beyond it the phrase is shortened at a word boundary and the report says so",
            range=(16, 10000),
        ),
    )
    max_spoken_s: float | None = field(
        default=None,
        metadata=meta(
            "longest this template's phrase may take to say, in seconds, as the voice's own "
            "reading estimates it; a longer one is shortened at a clause or word boundary and "
            "the report says what was left out; null: `alarms.max_spoken_s`",
            range=(20, 600),
        ),
    )
    values: Mapping[str, Any] = field(
        default_factory=dict,
        metadata=meta(
            "finite values of the text's placeholders, e.g. "
            "`{line: 1..12, state: [open, closed]}`: the phrases they make are rendered ahead "
            "and pinned in the cache (docs/cache.md)"
        ),
    )
    ttl_s: float | None = field(
        default=None,
        metadata=meta(
            "time to live of this template's alerts, in seconds; null: `alarms.ttl_s`",
            range=(0, 7 * 86400),
        ),
    )
    on_delay_s: float = field(
        default=0.0,
        metadata=meta(
            "each alert is held this long, in seconds, and spoken only if no return to normal "
            "came meanwhile",
            range=(0, 3600),
        ),
    )
    off_delay_s: float = field(
        default=0.0,
        metadata=meta(
            "a return to normal takes effect only once it has held this long, in seconds; an "
            "alert meanwhile is the same alarm coming back",
            range=(0, 3600),
        ),
    )
    reannounce_s: float | None = field(
        default=None,
        metadata=meta(
            "re-announcement period of this template's alerts, in seconds; null: the "
            "priority's (`alarms.priorities.<priority>.reannounce_s`)",
            range=(0, 86400),
        ),
    )
    clear_if: str = field(
        default="clear=true",
        metadata=meta(
            'payload `field=value` that marks a return to normal (`clear=true`: `{"clear": true}`)'
        ),
    )
    zones: tuple[str, ...] = field(
        default=(),
        metadata=meta(
            "the zones its alerts are said in (`all`: every zone); an alert's `zone` field "
            "overrides it; empty: every zone (docs/zones.md)"
        ),
    )
    tone: ToneConfig | None = field(
        default=None,
        metadata=meta(
            "a standard signal tone played before the phrase, in place of the priority's "
            'chime, e.g. `{name: temporal-three, repeats: 2}` (docs/zones.md, "Signal tones '
            'and recorded messages"); null: the chime'
        ),
    )
    recorded: RecordedConfig | None = field(
        default=None,
        metadata=meta(
            "a recorded message (a WAV file) played before the phrase, or in its place "
            "(`instead_of_text`), after the tone; checked when the daemon starts and at each "
            "reload; one that cannot be played is a fault and the phrase is said; null: none"
        ),
    )
    alarm: str = field(
        default="auto",
        metadata=meta(
            "what its alerts are in the ISA-18.2 figures (docs/alarms.md): `topic`, alarms, "
            "one per topic it matches; `phrase`, alarms, one per phrase said on a topic; "
            "`none`, announcements, not counted; `auto`, `none` for free text (the text is one "
            "placeholder, such as `{text}`, with no `values`: the sender words it), else `topic`",
            choices=("auto", "topic", "phrase", "none"),
        ),
    )

    def __post_init__(self) -> None:
        check_template(self.topic, self.text)
        if CANARY_LEVEL in self.topic.split("/"):
            raise ValueError(
                f"topic: the level {CANARY_LEVEL!r} is reserved for the daemon's canaries "
                "(docs/alarms.md), so no message on it would become an alert"
            )
        object.__setattr__(self, "values", expand_values(self.text, self.values))
        name, eq, value = self.clear_if.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise ValueError(f"clear_if: expected field=value, got {self.clear_if!r}")

    @property
    def free_text(self) -> bool:
        """Whether the sender words the whole phrase: the text is one placeholder, with no
        declared values."""
        names = placeholders(self.text)
        return len(names) == 1 and self.text.strip() == f"{{{names[0]}}}" and not self.values

    @property
    def counts_as(self) -> str:
        """`alarm` with `auto` settled: `topic`, `phrase` or `none`."""
        if self.alarm != "auto":
            return self.alarm
        return "none" if self.free_text else "topic"


DEFAULT_TEMPLATES = (TemplateConfig(topic="cosyedge/say", text="{text}"),)


@dataclass(frozen=True)
class HermesConfig:
    """Rhasspy Hermes text-to-speech requests (`hermes`): whether they are taken, for which
    site, at which priority."""

    enabled: bool = field(
        default=False, metadata=meta("take Rhasspy Hermes `hermes/tts/say` requests")
    )
    site_id: str = field(
        default="default",
        metadata=meta("the Hermes site spoken for; requests for other sites are left alone"),
    )
    priority: str = field(
        default="medium",
        metadata=meta("priority Hermes requests are spoken at", choices=PRIORITIES),
    )
    max_chars: int = field(
        default=1000,
        metadata=meta(
            "characters of a say text, a bound on what arrives: beyond it the text is "
            "shortened at a word boundary and the report says so (how long it may take to say "
            "is `alarms.max_spoken_s`); control characters are spoken as spaces",
            range=(16, 10000),
        ),
    )
