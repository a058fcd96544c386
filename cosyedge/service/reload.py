"""SIGHUP: which parts of a new configuration a running daemon takes over at once, and its
answer to each reload.

Templates, the site pronunciations, the MQTT connection, audio, the memory ceiling, the log
level and Home Assistant's discovery change live.
The rest (voice, cache and state directories, starting a local broker) is read only at start:
a change there is logged and waits for the next restart, so the running daemon never holds a
configuration it is not actually using.

A reload is answered in `state_dir/reload.json` once the new configuration is in force (new
subscriptions acknowledged by the broker) or was refused: `cosyedge reload`, systemd's
ExecReload, sends SIGHUP and waits for that answer, so `systemctl reload` returns only when an
alert for a newly added template would be heard, and fails on a refused configuration.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from cosyedge.config.schema import Config

log = logging.getLogger(__name__)

ANSWER_FILE = "reload.json"

LIVE_SECTIONS = frozenset(
    {"templates", "mqtt", "audio", "memory", "log_level", "pronunciations", "homeassistant"}
)


def effective_config(running: Config, new: Config) -> tuple[Config, list[str]]:
    """The configuration to run with now, and the keys whose change waits for a restart."""
    waiting: list[str] = []
    keep: dict[str, object] = {}
    for f in dataclasses.fields(Config):
        if f.name not in LIVE_SECTIONS and getattr(new, f.name) != getattr(running, f.name):
            waiting.append(f.name)
            keep[f.name] = getattr(running, f.name)
    if new.mqtt.local_broker != running.mqtt.local_broker:
        waiting.append("mqtt.local_broker")
        keep["mqtt"] = dataclasses.replace(new.mqtt, local_broker=running.mqtt.local_broker)
    return dataclasses.replace(new, **keep), waiting


@dataclass(frozen=True)
class ReloadAnswer:
    """The daemon's answer to one SIGHUP."""

    pid: int
    generation: int  # this process's reloads so far, this one included
    applied: bool
    detail: str  # why not, or what waits for a restart


def write_answer(path: Path, answer: ReloadAnswer) -> None:
    """Replace the answer at `path` whole; a failure is logged, never raised: the reload
    itself has happened either way."""
    temp = path.with_name(f".{path.name}.tmp")
    try:
        temp.write_text(json.dumps(dataclasses.asdict(answer)))
        os.replace(temp, path)
    except OSError as exc:
        log.error("cannot write the reload answer to %s: %s", path, exc)


def read_answer(path: Path) -> ReloadAnswer | None:
    """The answer at `path`, or None when there is none or it is not one."""
    try:
        data = json.loads(path.read_text())
        answer = ReloadAnswer(**data)
    except (OSError, ValueError, TypeError):
        return None
    return answer if isinstance(answer.generation, int) else None


def request_reload(path: Path, pid: int, timeout_s: float) -> ReloadAnswer | None:
    """SIGHUP `pid` and wait for its answer to this very signal: None after `timeout_s`.
    Raises OSError (ProcessLookupError, PermissionError) when `pid` cannot be signalled."""
    before = read_answer(path)
    seen = before.generation if before is not None and before.pid == pid else 0
    os.kill(pid, signal.SIGHUP)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        answer = read_answer(path)
        if answer is not None and answer.pid == pid and answer.generation > seen:
            return answer
        time.sleep(0.05)
    return None
