"""What every section of the configuration shares: a field's metadata, defaults computed from
the environment, and the checks several sections make (topics, listen addresses, secrets).
"""

from __future__ import annotations

import ipaddress
import json
import os
from pathlib import Path
from typing import Any

# What a template, a Hermes request or Home Assistant's notify may set an alert's priority to:
# ISA-18.2 style, most urgent first. The model orders its items by the same words
# (`cosyedge.model.PRIORITIES`, which imports nothing; tests/test_config.py checks they agree).
PRIORITIES = ("critical", "high", "medium", "low")


def meta(
    help: str,
    *,
    range: tuple[float, float] | None = None,
    choices: tuple[str, ...] = (),
    shown: str | None = None,
    named: bool = False,
) -> dict[str, Any]:
    """A field's metadata: its help, from which docs/config-reference.md and cosyedge.yaml(5)
    are generated (scripts/docs); the range or the choices the loader checks; for a default
    computed from the host, the environment or a factory, how the reference shows it; and, for
    a mapping, whether its keys are names the site gives (`named`) rather than language codes."""
    meta: dict[str, Any] = {"help": help}
    if named:
        meta["named"] = True
    if range is not None:
        meta["range"] = range
    if choices:
        meta["choices"] = choices
    if shown is not None:
        meta["shown"] = shown
    return meta


def default_cache_dir() -> Path:
    # systemd's CacheDirectory= sets CACHE_DIRECTORY; elsewhere follow XDG.
    if os.environ.get("CACHE_DIRECTORY"):
        return Path(os.environ["CACHE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "cosyedge"


def default_state_dir() -> Path:
    # systemd's StateDirectory= sets STATE_DIRECTORY; elsewhere follow XDG.
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "cosyedge"


def show(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return str(value)


def check_publish_topic(name: str, topic: str) -> None:
    if not topic or "+" in topic or "#" in topic:
        raise ValueError(f"{name}: must be a topic without wildcards, got {topic!r}")
    if "\0" in topic:  # MQTT forbids U+0000 in a topic: the broker drops the connection
        raise ValueError(f"{name}: a topic may not hold the character U+0000, got {topic!r}")


def check_client_id(name: str, client_id: str) -> None:
    """A client id names a gateway's canary topic's last level (`<canary_topic>/<client id>`):
    no wildcard, and no U+0000, which MQTT forbids in a topic."""
    if any(c in client_id for c in "+#\0"):
        raise ValueError(
            f"{name}: {client_id!r} names a canary topic (<monitor.canary_topic>/<client id>): "
            "it may not hold +, # or U+0000"
        )


def at_or_under(topic: str, prefix: str) -> bool:
    """Whether `topic` is `prefix` or a topic below it (the levels `prefix/...`)."""
    return topic == prefix or topic.startswith(f"{prefix}/")


def split_listen(listen: str) -> tuple[str, int]:
    """`host:port` or `[v6 address]:port` as a host and a port; ValueError names the key."""
    host, colon, port = listen.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"listen: expected host:port or [address]:port, got {show(listen)}")
    return host, int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def open_to_others(path: Path) -> str | None:
    """What users other than owner and group may do with the file, if anything."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # cannot look: whether it can be read is checked as an error
    open_to = [what for bit, what in ((0o004, "readable"), (0o002, "writable")) if mode & bit]
    if not open_to:
        return None
    return f"is {' and '.join(open_to)} by others (mode {mode & 0o7777:04o})"
