"""What a Sparkplug source keeps across its restarts, in `state_dir/sparkplug/<group>.json`:
each node's last birth (its bdSeq, devices and the aliases their births gave) and whether it
was alive when last heard, and each alarm standing (its occurrence id).

So a restarted daemon knows the nodes it heard before: an NDEATH queued by the broker while it
was down ends the life whose bdSeq it kept, its data is read by the aliases kept, and a return
to normal ends the occurrence it said.
Every record read back may be damaged (a disk, a hand edit, another version): each is checked
on its own, a bad one left out, and a file that is not ours at all set aside beside it under
a `.damaged-<time>` name; reading never raises.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cosyedge.journal.files import replace_file
from cosyedge.regular import SITE_RECORD_MAX, load_record, read_record

log = logging.getLogger(__name__)

OCCURRENCE = re.compile(r"(spb-[A-Za-z0-9_.-]+-[0-9a-f]{12})-[0-9]{1,20}\Z")


MAX_ALIASES = 100_000  # kept for one node at most (a birth is refused over `max_metrics`)
MAX_NAME = 1024  # characters of a metric's name kept


@dataclass(frozen=True)
class NodeRecord:
    """A node as last heard: its birth's bdSeq (None: its birth gave none), its devices
    born since, whether it was alive (born, not dead), and the aliases its births gave, by
    device ("" the node's own): what its data after a restart is read by."""

    bd_seq: int | None
    alive: bool
    devices: tuple[str, ...] = ()
    aliases: dict[str, dict[int, str]] = field(default_factory=dict)


@dataclass
class Kept:
    """The state: nodes by id, and the standing alarms' occurrence ids by their alarm id."""

    nodes: dict[str, NodeRecord] = field(default_factory=dict)
    alarms: dict[str, str] = field(default_factory=dict)


def base_id(occurrence: str) -> str | None:
    """The alarm id an occurrence id belongs to (`spb-<rule>-<digest>-<n>`), or None."""
    matched = OCCURRENCE.match(occurrence)
    return matched.group(1) if matched else None


def load(path: Path) -> Kept:
    """The state the last run kept; none for a missing file; never raises."""
    try:
        data = load_record(path, SITE_RECORD_MAX)
    except FileNotFoundError:
        return Kept()
    except (OSError, ValueError) as exc:
        return _aside(path, f"unreadable: {exc}")
    if not isinstance(data, dict):
        return _aside(path, "not a JSON object")
    kept, bad = Kept(), []
    for name, record in _items(data.get("nodes")):
        node = _node(record)
        if node is None or not name:
            bad.append(f"node {name!r}")
        else:
            kept.nodes[name] = node
    for alarm, occurrence in _items(data.get("alarms")):
        if isinstance(occurrence, str) and base_id(occurrence) == alarm:
            kept.alarms[alarm] = occurrence
        else:
            bad.append(f"alarm {alarm!r}")
    if bad:
        _copy_aside(path, f"{len(bad)} damaged record(s) left out: {', '.join(bad[:5])}")
    return kept


def keep(path: Path, kept: Kept) -> None:
    """Write the state whole (temporary file, fsync, rename); OSError when it cannot."""
    nodes = {name: _record(r) for name, r in kept.nodes.items()}
    body = {"nodes": nodes, "alarms": kept.alarms}
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, json.dumps(body, sort_keys=True).encode())


def _record(r: NodeRecord) -> dict[str, Any]:
    aliases = {d: {str(a): n for a, n in by.items()} for d, by in r.aliases.items()}
    return {"bdSeq": r.bd_seq, "alive": r.alive, "devices": list(r.devices), "aliases": aliases}


def _items(section: Any) -> list[tuple[str, Any]]:
    return [(str(k), v) for k, v in section.items()] if isinstance(section, dict) else []


def _node(record: Any) -> NodeRecord | None:
    """A node's record if it is whole and of the right types, else None."""
    if not isinstance(record, dict):
        return None
    bd_seq, alive, devices = record.get("bdSeq"), record.get("alive"), record.get("devices")
    if bd_seq is not None and (type(bd_seq) is not int or not 0 <= bd_seq < 1 << 64):
        return None
    if type(alive) is not bool or not isinstance(devices, list):
        return None
    if not all(isinstance(d, str) and d for d in devices):
        return None
    aliases = _aliases(record.get("aliases", {}))
    return None if aliases is None else NodeRecord(bd_seq, alive, tuple(devices), aliases)


def _aliases(section: Any) -> dict[str, dict[int, str]] | None:
    """The alias maps by device if whole, bounded and of the right types, else None (a
    record from before they were kept has none: {})."""
    if not isinstance(section, dict):
        return None
    found: dict[str, dict[int, str]] = {}
    for device, by in section.items():
        if not isinstance(by, dict) or sum(map(len, found.values())) + len(by) > MAX_ALIASES:
            return None
        found[device] = {}
        for alias, name in by.items():
            if not (alias.isdigit() and len(alias) < 21 and int(alias) < 1 << 64):
                return None
            if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
                return None
            found[device][int(alias)] = name
    return found


def _aside(path: Path, why: str) -> Kept:
    """A file that is not the state: renamed aside, so the next write does not lose it."""
    aside = path.with_name(f"{path.name}.damaged-{int(time.time())}")
    try:
        path.rename(aside)
    except OSError as exc:
        log.error("sparkplug: state %s is %s; cannot set it aside: %s", path, why, exc)
        return Kept()
    log.error("sparkplug: state %s is %s: set aside as %s, starting without it", path, why, aside)
    return Kept()


def _copy_aside(path: Path, why: str) -> None:
    aside = path.with_name(f"{path.name}.damaged-{int(time.time())}")
    try:
        aside.write_bytes(read_record(path, SITE_RECORD_MAX))
    except OSError as exc:
        log.error("sparkplug: state %s: %s; cannot copy it aside: %s", path, why, exc)
        return
    log.error("sparkplug: state %s: %s (the file as read kept as %s)", path, why, aside)
