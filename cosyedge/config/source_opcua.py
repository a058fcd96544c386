"""An OPC UA Alarms & Conditions server as a source of alerts (`sources[i].opcua`).

The session's security, who the gateway logs in as, which notifier it subscribes to, how an
event's Severity (1-1000) becomes a priority and which phrase it makes, per language.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cosyedge.config.fields import PRIORITIES, meta, open_to_others, show
from cosyedge.config.syntax import Part, parse_text

POLICIES = ("Basic256Sha256", "Aes128_Sha256_RsaOaep", "Aes256_Sha256_RsaPss", "None")
MODES = ("SignAndEncrypt", "Sign", "None")
# OPC UA Part 9 leaves the meaning of Severity to the server, but the range it recommends
# servers map onto (its table for OPC Classic A&E, and what Ignition, Kepware and WinCC OA
# use) has five bands of 200: 801-1000 High, 601-800 Medium High, 401-600 Medium, 201-400
# Medium Low, 1-200 Low. Four ISA-18.2 priorities take the upper three as they are and the
# two low bands as `low`: both mean "for information" on an HMI.
DEFAULT_BANDS = {"critical": 801, "high": 601, "medium": 401, "low": 1}
FIELDS = (
    "SourceName",
    "Message",
    "Severity",
    "ConditionName",
    "ConditionId",
    "EventId",
    "Time",
    "Quality",
)
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}\Z")


@dataclass(frozen=True)
class SecurityConfig:
    """How the session is secured (`sources[i].opcua.security`)."""

    policy: str = field(
        default="Basic256Sha256",
        metadata=meta(
            "the security policy; `None` (no signature, no encryption: anyone on the network "
            "can read and forge alarms and acknowledgements) only when written here, and "
            "warned about",
            choices=POLICIES,
        ),
    )
    mode: str = field(
        default="SignAndEncrypt",
        metadata=meta("the message security mode; `None` with the policy `None`", choices=MODES),
    )
    certificate: Path | None = field(
        default=None,
        metadata=meta(
            "the gateway's application instance certificate (DER or PEM); the server must "
            "trust it. Needed unless the policy is `None`"
        ),
    )
    private_key: Path | None = field(
        default=None,
        metadata=meta("its private key (PEM); others must not read it (warned about)"),
    )
    server_certificate: Path | None = field(
        default=None,
        metadata=meta(
            "the server's certificate (DER or PEM): the session is opened only with a server "
            "that presents this one (the fault names a certificate rejected); null: the one "
            "the server's endpoint presents is taken as it is, and logged"
        ),
    )

    def __post_init__(self) -> None:
        _check_pair(self.policy, self.mode)
        for name in ("certificate", "private_key", "server_certificate"):
            path = getattr(self, name)
            if path is not None and not os.access(path, os.R_OK):
                raise ValueError(f"{name}: cannot read {show(str(path))}")


@dataclass(frozen=True)
class OpcuaConfig:
    """One OPC UA server's alarms and conditions (`sources[i].opcua`, docs/opcua.md)."""

    endpoint: str = field(
        metadata=meta(
            "the server's endpoint, `opc.tcp://host:4840/path`; no two sources on one "
            "endpoint with the same `notifier` (each alarm would be said twice)"
        )
    )
    name: str = field(
        default="opcua",
        metadata=meta(
            "the source's name: its alerts' topics are `cosyedge/source/opcua/<name>/"
            "<condition>` (what commands and shelves name), its fault `opcua:<name>`; "
            "lowercase letters, digits, `-` and `_`, unique among the OPC UA sources"
        ),
    )
    security: SecurityConfig = field(
        default_factory=SecurityConfig, metadata=meta("the session's security")
    )
    username: str | None = field(
        default=None, metadata=meta("the user the gateway logs in as; null: anonymous")
    )
    password_file: Path | None = field(
        default=None,
        metadata=meta("file holding the password (needs `username`); others must not read it"),
    )
    notifier: str = field(
        default="i=2253",
        metadata=meta(
            "the NodeId of the object whose events are subscribed to; `i=2253` is the Server "
            "object, which every server's alarms reach"
        ),
    )
    priorities: dict[str, int] = field(
        default_factory=lambda: dict(DEFAULT_BANDS),
        metadata=meta(
            "the lowest Severity (1-1000) of each priority's band; an event below every band "
            "is `low`. The default follows OPC UA Part 9's five bands of 200, the two lowest "
            "taken together (docs/opcua.md)",
            shown="`{critical: 801, high: 601, medium: 401, low: 1}`",
            named=True,
        ),
    )
    templates: dict[str, str] = field(
        default_factory=lambda: {"en": "{SourceName}: {Message}"},
        metadata=meta(
            "the phrase per language, with the event's fields "
            f"({', '.join(f'`{{{n}}}`' for n in FIELDS)}); an event whose Message is in a "
            "language listed is said with that language's phrase, any other with the first",
            shown='`{en: "{SourceName}: {Message}"}`',
        ),
    )
    publishing_interval_ms: int = field(
        default=250,
        metadata=meta("how often the server sends what its events queued", range=(50, 10000)),
    )
    keepalive_s: float = field(
        default=10.0,
        metadata=meta(
            "a subscription that has sent nothing, not even a keep-alive, for this long is "
            "taken as lost (the fault `opcua:<name>`), and the session is made anew",
            range=(2, 600),
        ),
    )
    reconnect_min_s: float = field(
        default=1.0, metadata=meta("first wait before connecting again", range=(0.1, 600))
    )
    reconnect_max_s: float = field(
        default=30.0,
        metadata=meta("the wait doubles after each failure up to this", range=(1, 3600)),
    )

    def __post_init__(self) -> None:
        security = self.security
        if security.policy != "None" and None in (security.certificate, security.private_key):
            # Checked here, so that leaving `security` out (its defaults) says what is missing.
            missing = "certificate" if security.certificate is None else "private_key"
            raise ValueError(f"security.{missing}: needed with the policy {security.policy}")
        if not self.endpoint.startswith("opc.tcp://"):
            raise ValueError(f"endpoint: expected opc.tcp://host:port, got {show(self.endpoint)}")
        if not _NAME.match(self.name):
            raise ValueError(
                f"name: expected lowercase letters, digits, - or _, got {show(self.name)}"
            )
        if self.password_file is not None and self.username is None:
            raise ValueError("password_file: needs a username")
        if self.password_file is not None and not os.access(self.password_file, os.R_OK):
            raise ValueError(f"password_file: cannot read {show(str(self.password_file))}")
        if self.reconnect_max_s < self.reconnect_min_s:
            raise ValueError("reconnect_max_s: must not be below reconnect_min_s")
        _check_bands(self.priorities)
        _check_templates(self.templates)

    def priority(self, severity: int) -> str:
        """The priority of an event of `severity`: the band it falls in, most urgent first."""
        for name in PRIORITIES:
            if name in self.priorities and severity >= self.priorities[name]:
                return name
        return "low"

    def warnings(self, path: str) -> list[str]:
        """What is allowed but unwise: a session without security, secrets others may read."""
        found = []
        if self.security.policy == "None":
            found.append(
                f"{path}.security.policy: None: alarms and acknowledgements travel unsigned "
                "and unencrypted; anyone on the network can read and forge them"
            )
        for where, file in (
            ("security.private_key", self.security.private_key),
            ("password_file", self.password_file),
        ):
            problem = open_to_others(file) if file is not None else None
            if problem:
                found.append(f"{path}.{where}: {file} {problem}; chmod o-rwx it")
        return found


def _check_pair(policy: str, mode: str) -> None:
    """The policy `None` with the mode `None`, and only with it; the message names the key to
    change: the mode, unless it is `None` under the default policy (the policy left out)."""
    default = SecurityConfig.__dataclass_fields__["policy"].default
    if policy == "None" and mode != "None":
        raise ValueError(f"mode: expected None with the policy None (no security), got {mode}")
    if policy != "None" and mode == "None" and policy == default:
        raise ValueError(
            f"policy: {policy} (the default) cannot go with the mode None: write `policy: None` "
            "for no security, or the mode Sign or SignAndEncrypt"
        )
    if policy != "None" and mode == "None":
        raise ValueError(
            f"mode: expected Sign or SignAndEncrypt with the policy {policy}, got None"
        )


def _check_bands(bands: Mapping[str, int]) -> None:
    for name, lowest in bands.items():
        if name not in PRIORITIES:
            raise ValueError(f"priorities.{name}: expected one of {', '.join(PRIORITIES)}")
        if isinstance(lowest, bool) or not isinstance(lowest, int) or not 1 <= lowest <= 1000:
            raise ValueError(f"priorities.{name}: expected a Severity 1-1000, got {show(lowest)}")
    given = [bands[p] for p in PRIORITIES if p in bands]
    if given != sorted(given, reverse=True) or len(set(given)) != len(given):
        raise ValueError("priorities: each band must start above the next less urgent one")


def _check_templates(templates: dict[str, str]) -> None:
    if not templates:
        raise ValueError("templates: at least one language's phrase is needed")
    for lang, text in templates.items():
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"templates.{lang}: expected a phrase, got {show(text)}")
        try:
            parts = parse_text(text)
        except ValueError as exc:
            raise ValueError(f"templates.{lang}: {exc}") from None
        unknown = [p for p in _names(parts) if p not in FIELDS]
        if unknown:
            raise ValueError(
                f"templates.{lang}: no event field {show(unknown[0])} (known: {', '.join(FIELDS)})"
            )


def _names(parts: list[Part]) -> list[str]:
    return [p.name for p in parts if p.name]
