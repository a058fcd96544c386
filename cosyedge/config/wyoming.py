"""The Wyoming text-to-speech server (`wyoming`), off by default."""

from __future__ import annotations

from dataclasses import dataclass, field

from cosyedge.config.fields import meta, show, split_listen


@dataclass(frozen=True)
class WyomingConfig:
    """The Wyoming text-to-speech server (docs/homeassistant.md, "Wyoming")."""

    enabled: bool = field(
        default=False,
        metadata=meta(
            "serve text-to-speech over the Wyoming protocol; needs the wyoming package, which "
            "the .deb ships (from source, the `wyoming` extra): without it the daemon runs "
            "without the server, with the fault `wyoming`"
        ),
    )
    listen: str = field(
        default="tcp://127.0.0.1:10200",
        metadata=meta(
            "`tcp://host:port` or `tcp://[address]:port`; the protocol has no authentication, "
            "so an address other than loopback serves anyone who can reach it"
        ),
    )
    max_clients: int = field(
        default=4,
        metadata=meta(
            "connections open at once; one more closes the one that has waited longest for "
            "its next event (none waiting: it is refused `busy`)",
            range=(1, 64),
        ),
    )
    max_chars: int = field(
        default=1000,
        metadata=meta("longer texts are refused with an error event", range=(16, 10000)),
    )
    timeout_s: float = field(
        default=30.0,
        metadata=meta(
            "a client that sends no event, or reads no audio, for this long, in seconds, is "
            "disconnected",
            range=(1, 3600),
        ),
    )
    zeroconf: bool = field(
        default=True,
        metadata=meta(
            "announce the server as `_wyoming._tcp` when the `zeroconf` package is installed "
            "and the address is not loopback"
        ),
    )

    def __post_init__(self) -> None:
        self.address  # noqa: B018 (checks the form)

    @property
    def address(self) -> tuple[str, int]:
        scheme, sep, rest = self.listen.partition("://")
        if scheme != "tcp" or not sep:
            raise ValueError(f"listen: expected tcp://host:port, got {show(self.listen)}")
        return split_listen(rest)
