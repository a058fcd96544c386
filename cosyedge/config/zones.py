"""Where announcements are heard: the outputs sound goes to (`outputs`) and the zones made of
them (`zones`). Without zones the daemon speaks through `audio.device` alone, as one zone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from cosyedge.config.fields import meta, show
from cosyedge.config.outputs import RtpOutputConfig

# A zone's or an output's name: what an alert's `zone` field, a report and a metric carry.
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}\Z")
ALL = "all"  # names every zone in an alert's `zone` field; no zone may be called so
DEFAULT_ZONE = "default"  # the one zone of a daemon without `zones`


def zone_names(value: str) -> tuple[str, ...]:
    """The zones a `zone` field or request names (`"Hall, yard"`): each once, in lowercase,
    blanks left out."""
    return tuple(dict.fromkeys(n.strip().lower() for n in value.split(",") if n.strip()))


@dataclass(frozen=True)
class OutputConfig:
    """Where a zone's announcements are played (`outputs.NAME`): a sound device of the
    gateway, or the plant's IP speakers (`rtp`)."""

    device: str | None = field(
        default=None,
        metadata=meta(
            "PortAudio output device name (a substring) or index; null: the ALSA default "
            "(unless `rtp` is given)"
        ),
    )
    rtp: RtpOutputConfig | None = field(
        default=None,
        metadata=meta(
            "a network output instead: an RTP page to IP speakers, e.g. `{address: "
            '239.10.0.1, port: 5004, codec: pcmu}` (docs/zones.md, "IP speakers")'
        ),
    )
    channel: int | None = field(
        default=None,
        metadata=meta(
            "one channel of a multi-channel `device`, counted from 1 as the card's manual "
            "does; several outputs may then share the device, each on its own channel; "
            "null: every channel plays the same",
            range=(1, 64),
            shown="`null`",
        ),
    )

    def __post_init__(self) -> None:
        if self.rtp is not None and self.device is not None:
            raise ValueError("device: a sound device or a network output (rtp), not both")
        if self.rtp is not None and self.channel is not None:
            raise ValueError("channel: a channel of a sound device, not of a network output")

    def named(self, name: str) -> OutputConfig:
        """The output with its key as its network output's name."""
        if self.rtp is None or self.rtp.name == name:
            return self
        return replace(self, rtp=replace(self.rtp, name=name))


@dataclass(frozen=True)
class ZoneConfig:
    """A place announcements are made in (`zones.NAME`): its outputs, each playing the same."""

    outputs: tuple[str, ...] = field(
        metadata=meta("the outputs (names under `outputs`) the zone's announcements play on")
    )
    tone_level_db: float = field(
        default=0.0,
        metadata=meta(
            "the level of a template's signal tone in this zone, in dB below the tone's own "
            "(`templates[i].tone.level_dbfs`): lower for a low ceiling or a quiet office",
            range=(-40, 0),
        ),
    )

    def __post_init__(self) -> None:
        if not self.outputs:
            raise ValueError("outputs: a zone needs at least one output")


def check_zones(outputs: Mapping[str, OutputConfig], zones: Mapping[str, ZoneConfig]) -> None:
    """Names that can be said and carried, every output of a zone defined, each output in
    exactly one zone (a sound device opened by two zones at once would be busy for one).
    A ValueError naming the key."""
    for section, names in (("outputs", outputs), ("zones", zones)):
        for name in names:
            if name == ALL or not NAME.match(name):
                raise ValueError(
                    f"{section}.{name}: a name of lowercase letters, digits, - and _ "
                    f"(at most 32), not {show(ALL)}"
                )
    if outputs and not zones:
        raise ValueError("outputs: no zone plays on them (name them in `zones`)")
    owner: dict[str, str] = {}
    for zone, config in zones.items():
        for output in config.outputs:
            if output not in outputs:
                raise ValueError(f"zones.{zone}.outputs: no output {show(output)} in `outputs`")
            if output in owner:
                raise ValueError(
                    f"zones.{zone}.outputs: {show(output)} is in zone {show(owner[output])} "
                    "already; an output belongs to one zone"
                )
            owner[output] = zone
    unused = sorted(outputs.keys() - owner.keys())
    if unused:
        raise ValueError(f"outputs.{unused[0]}: in no zone")
    _check_devices(outputs)


def _check_devices(outputs: Mapping[str, OutputConfig]) -> None:
    """No sound device twice, as far as a name shows it (null and `default`: ALSA's default
    device), unless each of its outputs plays one channel of it, each another; no network
    destination twice (two zones' pages on one group and port interleave, and a device set
    to one law plays the other as noise). A substring or an index naming the same card
    cannot be told here."""
    shared: dict[str, list[str]] = {}
    sent: dict[tuple[str, int], str] = {}
    for name, output in outputs.items():
        if output.rtp is None:
            device = (output.device or "default").strip().lower()
            shared.setdefault(device, []).append(name)
            continue
        where = (output.rtp.address, output.rtp.port)
        if where in sent:
            raise ValueError(
                f"outputs.{name}.rtp: {where[0]}:{where[1]} is output {show(sent[where])}'s "
                "already; the speakers there would hear both zones' pages at once"
            )
        sent[where] = name
    for names in shared.values():
        if len(names) > 1:
            _check_channels(outputs, names)


def _check_channels(outputs: Mapping[str, OutputConfig], names: list[str]) -> None:
    """The outputs `names`, on one device: each on a channel of its own."""
    device = outputs[names[0]].device
    shown = show(device) if device else "the default device (null, `default`)"
    if all(outputs[n].channel is None for n in names):
        raise ValueError(
            f"outputs.{names[1]}.device: {shown} is output {show(names[0])}'s already; a "
            "sound device opened for two zones would be busy for one of them (give each "
            "output its `channel` to share a multi-channel card)"
        )
    taken: dict[int, str] = {}
    for name in names:
        channel = outputs[name].channel
        if channel is None:
            others = ", ".join(n for n in names if n != name)
            raise ValueError(
                f"outputs.{name}.channel: missing; outputs {others} play on channels of "
                f"{shown}, so each output of it names its channel"
            )
        if channel in taken:
            raise ValueError(
                f"outputs.{name}.channel: channel {channel} of {shown} is output "
                f"{show(taken[channel])}'s already"
            )
        taken[channel] = name


def check_template_zones(
    index: int, asked: tuple[str, ...], zones: Mapping[str, ZoneConfig]
) -> None:
    """A template's zones exist (or are `all`)."""
    for name in asked:
        if name != ALL and name not in zones:
            known = ", ".join(sorted(zones)) or "none: `zones` is not configured"
            raise ValueError(f"templates[{index}].zones: no zone {show(name)} (zones: {known})")
