"""What a Sparkplug host knows of the edge nodes of a group: which are alive, each one's birth
(bdSeq, the aliases of its metrics), the sequence of its messages, and its devices.

Pure state: `Nodes.take` is given one message's topic and decoded payload and answers what it
means (`Seen`): metric values to judge, nodes or devices that came alive or died, and whether
the node is to be asked for a rebirth and why. The rules of the Sparkplug B specification
(Eclipse Sparkplug 3.0.0, chapters 6 and 7) it follows:

- an NBIRTH starts a node's life: seq 0, its metrics and their aliases, its `bdSeq`; every
  later message of the node (DBIRTH, NDATA, DDATA, DDEATH) counts seq on by one, modulo 256;
- an NDEATH (the node's MQTT will, or a clean disconnect) carries the `bdSeq` of the birth it
  ends; one with another bdSeq is a will left over from an earlier connection and ends nothing;
- data from a node or device not born, a seq out of order, and an alias no birth gave are
  what a host answers with a rebirth request (the source sends it only when allowed);
- an alias is unique across the node's metrics and its devices' (tck-id-payloads-alias-
  uniqueness): a birth giving one alias to two metrics, or one metric two aliases, is refused;
- a message whose seq is behind the expected one (within half the ring) is a duplicate or a
  late one: ignored, so an old value never undoes a newer one; a birth needs its bdSeq, and a
  death without one (an empty payload: a retained will cleared) ends nothing.

A node heard before this start (`NodeRecord`, kept by spb_store.py) is known: one alive then
is alive now, its data read by the aliases kept, its death (queued by the broker while the
daemon was down) ending the life its record names; a death of a node never heard is a death
all the same, its bdSeq unchecked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from cosyedge.sources.spb_payload import Metric, Payload
from cosyedge.sources.spb_store import NodeRecord

NAMESPACE = "spBv1.0"
BD_SEQ = "bdSeq"
LATE_RUN = 3  # messages in a row behind the expected seq that are no redelivery
NODE_TYPES = ("NBIRTH", "NDEATH", "NDATA")
DEVICE_TYPES = ("DBIRTH", "DDEATH", "DDATA")


@dataclass(frozen=True)
class Topic:
    """A Sparkplug B topic: spBv1.0/group/TYPE/node[/device]; device "" for the node's own."""

    group: str
    kind: str
    node: str
    device: str = ""


def parse_topic(topic: str) -> Topic | None:
    """The topic's parts, or None for what is no node's or device's message (STATE, commands,
    another namespace, a malformed topic)."""
    parts = topic.split("/")
    if len(parts) not in (4, 5) or parts[0] != NAMESPACE or not all(parts):
        return None
    kind = parts[2]
    if (len(parts) == 4 and kind in NODE_TYPES) or (len(parts) == 5 and kind in DEVICE_TYPES):
        return Topic(parts[1], kind, parts[3], parts[4] if len(parts) == 5 else "")
    return None


@dataclass(frozen=True)
class Value:
    """A metric's value as judged: named, from the node itself (device "") or a device."""

    node: str
    device: str
    name: str
    metric: Metric
    birth: bool  # from a birth certificate (a rebirth repeats what stands)


@dataclass
class Seen:
    """What one message means."""

    values: list[Value] = field(default_factory=list)
    alive: list[tuple[str, str]] = field(default_factory=list)  # (node, device) born
    dead: list[tuple[str, str]] = field(default_factory=list)  # (node, device) died
    # Devices that died with their node (its death or rebirth): no death of their own.
    implied: list[tuple[str, str]] = field(default_factory=list)
    rebirth: str | None = None  # why the node should be asked to publish its births again
    ignored: str | None = None  # why the message changed nothing
    refused: str | None = None  # why a birth was refused (a fault until a good one)
    told: str | None = None  # what the log is to say of it (a death no birth was known for)
    unreadable: str | None = None  # why data could not be read (no birth known of it)
    changed: bool = False  # what is kept across restarts (births, deaths) changed


@dataclass
class _Device:
    aliases: dict[int, str] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)


@dataclass
class _Node:
    bd_seq: int | None
    seq: int | None  # None: not known (taken up from the last run): the next seq is taken
    aliases: dict[int, str] = field(default_factory=dict)
    devices: dict[str, _Device] = field(default_factory=dict)
    late: int = 0  # messages in a row behind the expected seq


class Nodes:
    """The edge nodes of one group, alive or not. Not thread-safe: its source holds a lock."""

    def __init__(self, known: Mapping[str, NodeRecord] | None = None) -> None:
        """`known`: the nodes as the last run left them; those alive then are alive here,
        their data read by the aliases their births gave, from whatever seq comes next."""
        self._known: dict[str, NodeRecord] = dict(known or {})
        # A record without aliases is of a birth refused, or kept by an earlier version:
        # known (its death is judged by its bdSeq), not alive until its next birth.
        self._alive = {n: _taken_up(r) for n, r in self._known.items() if r.alive and r.aliases}

    def records(self) -> dict[str, NodeRecord]:
        """Every node heard, as it is to be kept across a restart."""
        return {**self._known, **{name: _record(n) for name, n in self._alive.items()}}

    def alive(self, node: str, device: str = "") -> bool:
        """Whether the node (and the device, if one is named) is alive: born and not dead."""
        state = self._alive.get(node)
        return state is not None and (not device or device in state.devices)

    def take(self, topic: Topic, payload: Payload) -> Seen:
        """One message of the group, in the order the broker delivered it."""
        if topic.kind == "NBIRTH":
            return self._node_birth(topic.node, payload)
        if topic.kind == "NDEATH":
            return self._node_death(topic.node, payload)
        node = self._alive.get(topic.node)
        if node is None:
            why = f"{topic.kind} from node {topic.node}, not born"
            return Seen(rebirth=why, ignored="unborn", unreadable="no birth of it heard")
        late = _late(node, payload)
        if late is not None:
            return late
        seen = Seen(rebirth=_gap(node, payload))
        if topic.kind == "NDATA":
            self._values(seen, topic.node, "", node.aliases, payload.metrics, False)
        elif topic.kind == "DBIRTH":
            self._device_birth(seen, topic.node, node, topic.device, payload)
        elif topic.device not in node.devices:
            seen.rebirth = seen.rebirth or f"{topic.kind} from device {topic.device}, not born"
            seen.ignored = "unborn"
            seen.unreadable = f"no birth of device {topic.device} heard"
        elif topic.kind == "DDEATH":
            del node.devices[topic.device]
            seen.dead.append((topic.node, topic.device))
            seen.changed = True
        else:
            aliases = node.devices[topic.device].aliases
            self._values(seen, topic.node, topic.device, aliases, payload.metrics, False)
        return seen

    def _node_birth(self, name: str, payload: Payload) -> Seen:
        bd_seq = _bd_seq(payload)
        if bd_seq is None:  # the spec requires it (tck-id-payloads-nbirth-bdseq): no birth
            return Seen(refused=f"NBIRTH of node {name} refused: no bdSeq metric")
        was = self._alive.pop(name, None)
        seen = Seen(changed=True)
        if was is not None:  # a rebirth: its devices are born again after it
            seen.implied += [(name, d) for d in was.devices]
        self._known[name] = NodeRecord(bd_seq, True)  # its death is known by its bdSeq
        twice = _twice(payload.metrics, {})
        if twice is not None:
            seen.refused = f"NBIRTH of node {name} refused: {twice}"
            return seen
        node = self._alive[name] = _Node(bd_seq, payload.seq or 0)
        if payload.seq not in (0, None):
            seen.told = f"NBIRTH of node {name} with seq {payload.seq} (0 expected): taken"
        seen.alive.append((name, ""))
        self._values(seen, name, "", node.aliases, payload.metrics, True)
        return seen

    def _node_death(self, name: str, payload: Payload) -> Seen:
        node, bd_seq = self._alive.get(name), _bd_seq(payload)
        if bd_seq is None:  # an empty payload (a retained will cleared) or a malformed will
            told = f"NDEATH of node {name} without a bdSeq: ends no birth"
            return Seen(ignored="no bdSeq", told=told)
        if node is None:
            return self._unborn_death(name, bd_seq)
        if None not in (bd_seq, node.bd_seq) and bd_seq != node.bd_seq:
            return Seen(ignored=f"bdSeq {bd_seq} ends no birth (alive with {node.bd_seq})")
        del self._alive[name]
        self._known[name] = NodeRecord(node.bd_seq, False)
        return Seen(dead=[(name, "")], implied=[(name, d) for d in node.devices], changed=True)

    def _unborn_death(self, name: str, bd_seq: int | None) -> Seen:
        """An NDEATH of a node not alive here: one heard before this start (its birth's
        bdSeq kept), one never heard (its bdSeq cannot be checked), or one dead already."""
        record = self._known.get(name)
        if record is None:
            told = f"NDEATH of node {name}, no birth known: bdSeq {bd_seq} cannot be checked"
        elif not record.alive and (bd_seq is None or bd_seq == record.bd_seq):
            return Seen(ignored="dead already")
        elif record.alive and None not in (bd_seq, record.bd_seq) and bd_seq != record.bd_seq:
            return Seen(ignored=f"bdSeq {bd_seq} ends no birth (born with {record.bd_seq})")
        elif record.alive:
            told = f"NDEATH of node {name}, born before this start with bdSeq {record.bd_seq}"
        else:  # dead with another bdSeq: a life between, its birth not heard
            told = f"NDEATH of node {name} with bdSeq {bd_seq}, its birth not heard"
        devices = record.devices if record is not None and record.alive else ()
        self._known[name] = NodeRecord(bd_seq, False)
        implied = [(name, d) for d in devices]
        return Seen(dead=[(name, "")], implied=implied, told=told, changed=True)

    def _device_birth(
        self, seen: Seen, name: str, node: _Node, device: str, payload: Payload
    ) -> None:
        node.devices.pop(device, None)
        taken = dict(node.aliases)
        for other in node.devices.values():
            taken |= other.aliases
        twice = _twice(payload.metrics, taken)
        seen.changed = True
        if twice is not None:
            seen.refused = f"DBIRTH of device {name}/{device} refused: {twice}"
            return
        state = node.devices[device] = _Device()
        seen.alive.append((name, device))
        self._values(seen, name, device, state.aliases, payload.metrics, True)

    def _values(
        self,
        seen: Seen,
        node: str,
        device: str,
        aliases: dict[int, str],
        metrics: tuple[Metric, ...],
        birth: bool,
    ) -> None:
        """Each metric by its name: a birth's give the aliases; data metrics may carry an
        alias alone, and one no birth gave is skipped and asks for a rebirth."""
        for metric in metrics:
            if birth and metric.name is not None and metric.alias is not None:
                aliases[metric.alias] = metric.name
            name = metric.name
            if name is None and metric.alias is not None:
                name = aliases.get(metric.alias)
                if name is None:
                    where = f"{node}/{device}" if device else node
                    seen.rebirth = seen.rebirth or f"alias {metric.alias} unknown on {where}"
                    seen.unreadable = f"alias {metric.alias} unknown on {where}"
                    continue
            if name is None or (name == BD_SEQ and not device):
                continue
            seen.values.append(Value(node, device, name, metric, birth))


def _late(node: _Node, payload: Payload) -> Seen | None:
    """What a message whose seq cannot be taken means (None: it can be): a seq outside
    0-255 is refused; one behind the expected one, within half the ring, is a message
    delivered again or late (a QoS 1 redelivery, a duplicate), its values older than those
    applied: ignored, a rebirth asked only when it is not the last message again."""
    seq = payload.seq
    if seq is not None and not 0 <= seq < 256:
        return Seen(ignored=f"seq {seq}", told=f"a message with seq {seq} (0-255) refused")
    if seq is None or node.seq is None:
        return None
    behind = (node.seq - seq) % 256  # 0: the last message's seq again
    if behind >= 128:
        node.late = 0
        return None  # the expected one, or ahead of it (messages lost: a gap)
    expected = (node.seq + 1) % 256
    why = f"seq {seq} behind the expected {expected}"
    seen = Seen(ignored=f"{why}: delivered again or late", rebirth=why if behind else None)
    node.late += 1
    if node.late >= LATE_RUN:  # no redelivery: a life whose birth was not heard, likely
        seen.unreadable = f"{node.late} messages in a row behind seq {expected}"
    return seen


def _gap(node: _Node, payload: Payload) -> str | None:
    """Why the message's seq is out of order, or None; the node's seq moves on either way, so
    one message lost is one gap, not every message after it."""
    if payload.seq is None:
        return None  # said nothing: nothing to check
    was, node.seq = node.seq, payload.seq
    if was is None:
        return None  # the first heard since a restart: the count goes on from it
    expected = (was + 1) % 256
    return None if payload.seq == expected else f"seq {payload.seq}, expected {expected}"


def _taken_up(record: NodeRecord) -> _Node:
    """A node alive when the last run ended, as its record kept it (its seq not known)."""
    aliases = record.aliases
    devices = {d: _Device(dict(aliases.get(d, {}))) for d in record.devices}
    return _Node(record.bd_seq, None, dict(aliases.get("", {})), devices)


def _record(node: _Node) -> NodeRecord:
    aliases = {"": dict(node.aliases)} | {d: dict(v.aliases) for d, v in node.devices.items()}
    return NodeRecord(node.bd_seq, True, tuple(node.devices), aliases)


def _twice(metrics: tuple[Metric, ...], taken: dict[int, str]) -> str | None:
    """The first alias a birth gives to two metrics (or to one the node's other births
    gave it to), or the first metric it gives two aliases, named; None when every alias is
    one metric's and every metric has one."""
    given, named = dict(taken), {}  # a name may be another device's metric's too
    for metric in metrics:
        if metric.alias is None or metric.name is None:
            continue
        first = given.setdefault(metric.alias, metric.name)
        if first != metric.name:
            return f"alias {metric.alias} given to both {first!r} and {metric.name!r}"
        other = named.setdefault(metric.name, metric.alias)
        if other != metric.alias:
            return f"metric {metric.name!r} given both alias {other} and {metric.alias}"
    return None


def _bd_seq(payload: Payload) -> int | None:
    for metric in payload.metrics:
        if metric.name == BD_SEQ and isinstance(metric.value, int):
            return int(metric.value)
    return None
