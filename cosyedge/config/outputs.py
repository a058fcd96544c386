"""A network output (one entry of `outputs`): an RTP stream to IP speakers, horns and phones.

Not yet a section of `Config`: the zones that speak through outputs will add `outputs:`, a
mapping of names to these. Until then a section is validated by itself with
`config.loader.build_section` (its problems named `outputs.NAME.key: reason`).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

from cosyedge.config.fields import meta, show

# RFC 3551's static payload types of the 8 kHz G.711 laws; L16 takes a dynamic one.
STATIC_PAYLOAD_TYPES = {"pcmu": 0, "pcma": 8}
L16_RATES = (8000, 16000)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}\Z")
# 224.0.0.0/24 carries routing protocols' own traffic, and is never forwarded.
_LOCAL_CONTROL = ipaddress.ip_network("224.0.0.0/24")


@dataclass(frozen=True)
class RtpOutputConfig:
    """One network output (docs/zones.md, "IP speakers (RTP multicast pages)")."""

    address: str = field(
        metadata=meta(
            "IPv4 address the stream is sent to: a multicast group (`239.x.x.x`, the "
            "organization-local scope, for a plant's pages) or one device's unicast address"
        ),
    )
    port: int = field(
        default=5004,
        metadata=meta(
            "UDP port the speakers listen on (RFC 3551's default for RTP is 5004)",
            range=(1, 65535),
        ),
    )
    codec: str = field(
        default="pcmu",
        metadata=meta(
            "`pcmu` (G.711 µ-law, payload type 0) and `pcma` (A-law, 8), both 8 kHz, which "
            "every paging device plays; `l16`: 16-bit linear, wider band where a device takes it",
            choices=("pcmu", "pcma", "l16"),
        ),
    )
    rate: int | None = field(
        default=None,
        metadata=meta(
            "the sample rate of `l16`, 8000 or 16000 (null: 16000); G.711 is 8000 only",
            shown="`null`",
        ),
    )
    ttl: int = field(
        default=8,
        metadata=meta(
            "hops a multicast packet may cross (IP_MULTICAST_TTL): 8 reaches speakers a few "
            "routers away in a plant and stays under the usual site thresholds (16, 32); 1 "
            "keeps pages on the gateway's own network",
            range=(1, 255),
        ),
    )
    dscp: int = field(
        default=46,
        metadata=meta(
            "DiffServ code point of every packet (IP_TOS): 46 is Expedited Forwarding, the "
            "class networks give voice; 0 for none",
            range=(0, 63),
        ),
    )
    ptime_ms: int = field(
        default=20,
        metadata=meta(
            "audio a packet carries, in milliseconds; 20 is what devices expect unless told",
            range=(10, 60),
        ),
    )
    interface: str | None = field(
        default=None,
        metadata=meta(
            "IPv4 address of the gateway's interface to send multicast from "
            "(IP_MULTICAST_IF); null: as the routing table says"
        ),
    )
    payload_type: int | None = field(
        default=None,
        metadata=meta(
            "the dynamic payload type of `l16`, 96-127 (null: 96); G.711's are fixed",
            range=(96, 127),
            shown="`null`",
        ),
    )

    name: str = field(
        default="",
        metadata=meta("its key under `outputs`, filled in from it: leave it out"),
    )

    def __post_init__(self) -> None:
        if self.name and not _NAME.match(self.name):
            raise ValueError(
                f"name: {show(self.name)} is not a name of letters, digits, - and _ (at most 32)"
            )
        _check_address("address", self.address)
        if self.interface is not None:
            _check_interface(self.interface)
        self._check_codec()

    def _check_codec(self) -> None:
        if self.codec == "l16":
            if self.rate is not None and self.rate not in L16_RATES:
                raise ValueError(f"rate: must be 8000 or 16000 for l16, got {show(self.rate)}")
            return
        if self.rate not in (None, 8000):
            raise ValueError(f"rate: {self.codec} is 8000 Hz only, got {show(self.rate)}")
        if self.payload_type is not None:
            fixed = STATIC_PAYLOAD_TYPES[self.codec]
            raise ValueError(f"payload_type: only for l16 ({self.codec} is always {fixed})")

    @property
    def clock_rate(self) -> int:
        """Samples a second on the wire, which is also the RTP timestamp's clock."""
        return (self.rate or 16000) if self.codec == "l16" else 8000

    @property
    def pt(self) -> int:
        """The RTP payload type of every packet."""
        if self.codec == "l16":
            return 96 if self.payload_type is None else self.payload_type
        return STATIC_PAYLOAD_TYPES[self.codec]

    @property
    def multicast(self) -> bool:
        return ipaddress.IPv4Address(self.address).is_multicast

    @property
    def where(self) -> str:
        """The output as a reason names it: `NAME (address:port)`."""
        return f"{self.name} ({self.address}:{self.port})"


def _check_address(key: str, value: str) -> None:
    try:
        address = ipaddress.IPv4Address(value)
    except ValueError:
        raise ValueError(
            f"{key}: expected an IPv4 address (a multicast group or a device), got {show(value)}"
        ) from None
    if address in _LOCAL_CONTROL:
        raise ValueError(
            f"{key}: {value} is reserved for routing protocols (224.0.0.0/24); "
            "use a group of 239.0.0.0/8"
        )
    if address.is_unspecified or address == ipaddress.IPv4Address("255.255.255.255"):
        raise ValueError(f"{key}: {value} reaches no device; name a group or a device")


def _check_interface(value: str) -> None:
    try:
        address = ipaddress.IPv4Address(value)
    except ValueError:
        raise ValueError(
            f"interface: expected the IPv4 address of one of the gateway's interfaces, "
            f"got {show(value)}"
        ) from None
    if address.is_multicast or address.is_unspecified:
        raise ValueError(f"interface: {value} is no interface's address")
