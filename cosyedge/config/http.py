"""The local HTTP API (`http`), off by default."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from cosyedge.config.fields import is_loopback, meta, open_to_others, show, split_listen


@dataclass(frozen=True)
class HttpConfig:
    """The local HTTP API (docs/http.md): alerts, synthesis, status, health and metrics."""

    enabled: bool = field(default=False, metadata=meta("serve the local HTTP API"))
    listen: str = field(
        default="127.0.0.1:8088",
        metadata=meta(
            "address and port, `host:port` or `[address]:port`; an address other than "
            "loopback needs `token_file`"
        ),
    )
    token_file: Path | None = field(
        default=None,
        metadata=meta(
            "file holding the bearer token every request must carry, at least 16 characters "
            "(an empty, whitespace-only or shorter one is refused); it must be readable, and "
            "one others may read or write is warned about by `check` and at start"
        ),
    )
    hosts: tuple[str, ...] = field(
        default=(),
        metadata=meta(
            "names the API is reached by, beyond its addresses, `localhost`, the listen "
            "address and the host's own name: the gateway's DNS name, e.g. "
            "`[gateway1.plant.example]`; a request whose Host is another name is refused (421)"
        ),
    )
    max_body_bytes: int = field(
        default=16384,
        metadata=meta("larger request bodies are refused (413)", range=(256, 1 << 20)),
    )
    max_clients: int = field(
        default=8,
        metadata=meta("requests served at once; one more is answered 503 at once", range=(1, 256)),
    )
    max_connections: int = field(
        default=256,
        metadata=meta(
            "connections open at once whose requests have not all arrived; one more closes "
            "the oldest of them, so idle or slow clients never keep a request out",
            range=(16, 4096),
        ),
    )
    timeout_s: float = field(
        default=10.0,
        metadata=meta(
            "a request whose headers and body have not all arrived this long, in seconds, "
            "after its connection was made is dropped (it holds no thread meanwhile); also "
            "the longest wait for the journal and for the client to take each part of an answer",
            range=(0.5, 300),
        ),
    )
    max_wait_s: float = field(
        default=300.0,
        metadata=meta(
            "the longest `?wait=` a say request may ask for, in seconds", range=(0, 3600)
        ),
    )

    def __post_init__(self) -> None:
        host, _ = split_listen(self.listen)
        for name in self.hosts:
            if not name or any(c.isspace() or c in ":/[]@" for c in name):
                raise ValueError(f"hosts: expected a host name, got {show(name)}")
        if self.token_file is not None and not os.access(self.token_file, os.R_OK):
            raise ValueError(f"token_file: cannot read {show(str(self.token_file))}")
        if self.token_file is not None:
            problem = weak_token(self.token_file)
            if problem is not None:
                raise ValueError(f"token_file: {show(str(self.token_file))} {problem}")
        if self.token_file is None and not is_loopback(host):
            raise ValueError(f"token_file: needed to listen on {show(host)}, which is not loopback")

    @property
    def names(self) -> frozenset[str]:
        """The names a request's Host may give beside an address and `localhost`."""
        listen = self.address[0].lower()
        name = os.uname().nodename.lower()  # the host's name, as socket.gethostname() gives it
        return frozenset({listen, name, *(h.lower() for h in self.hosts)})

    @property
    def address(self) -> tuple[str, int]:
        return split_listen(self.listen)

    def exposed_secrets(self) -> list[str]:
        problem = open_to_others(self.token_file) if self.token_file is not None else None
        return [f"http.token_file: {self.token_file} {problem}; chmod o-rwx it"] if problem else []


MIN_TOKEN = 16  # characters: guessing one of 16 hex digits takes 2^64 tries


def weak_token(path: Path) -> str | None:
    """Why the token in `path` cannot guard the API (empty, whitespace only, too short), or
    None. Its surrounding whitespace is not part of it, as the server reads it."""
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        return f"cannot be read: {exc}"
    if not token:
        return "holds no token (it is empty or only whitespace)"
    if len(token) < MIN_TOKEN:
        return (
            f"holds a token of {len(token)} characters; at least {MIN_TOKEN} are needed "
            "(e.g. `openssl rand -hex 16`)"
        )
    return None
