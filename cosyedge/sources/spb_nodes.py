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
  what a host answers with a rebirth request (the source sends it only when allowed).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cosyedge.sources.spb_payload import Metric, Payload

NAMESPACE = "spBv1.0"
BD_SEQ = "bdSeq"
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
    rebirth: str | None = None  # why the node should be asked to publish its births again
    ignored: str | None = None  # why the message changed nothing


@dataclass
class _Device:
    aliases: dict[int, str] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)


@dataclass
class _Node:
    bd_seq: int | None
    seq: int
    aliases: dict[int, str] = field(default_factory=dict)
    devices: dict[str, _Device] = field(default_factory=dict)


class Nodes:
    """The edge nodes of one group, alive or not. Not thread-safe: its source holds a lock."""

    def __init__(self) -> None:
        self._alive: dict[str, _Node] = {}

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
            return Seen(rebirth=f"{topic.kind} from node {topic.node}, not born", ignored="unborn")
        seen = Seen(rebirth=_gap(node, payload))
        if topic.kind == "NDATA":
            self._values(seen, topic.node, "", node.aliases, payload.metrics, False)
        elif topic.kind == "DBIRTH":
            self._device_birth(seen, topic.node, node, topic.device, payload)
        elif topic.device not in node.devices:
            seen.rebirth = seen.rebirth or f"{topic.kind} from device {topic.device}, not born"
            seen.ignored = "unborn"
        elif topic.kind == "DDEATH":
            del node.devices[topic.device]
            seen.dead.append((topic.node, topic.device))
        else:
            aliases = node.devices[topic.device].aliases
            self._values(seen, topic.node, topic.device, aliases, payload.metrics, False)
        return seen

    def _node_birth(self, name: str, payload: Payload) -> Seen:
        bd_seq = _bd_seq(payload)
        was = self._alive.pop(name, None)
        node = self._alive[name] = _Node(bd_seq, payload.seq or 0)
        seen = Seen()
        if was is not None:  # a rebirth: its devices are born again after it
            seen.dead += [(name, d) for d in was.devices]
        seen.alive.append((name, ""))
        self._values(seen, name, "", node.aliases, payload.metrics, True)
        return seen

    def _node_death(self, name: str, payload: Payload) -> Seen:
        node = self._alive.get(name)
        if node is None:
            return Seen(ignored="not alive")
        bd_seq = _bd_seq(payload)
        if None not in (bd_seq, node.bd_seq) and bd_seq != node.bd_seq:
            return Seen(ignored=f"bdSeq {bd_seq} ends no birth (alive with {node.bd_seq})")
        del self._alive[name]
        return Seen(dead=[(name, d) for d in node.devices] + [(name, "")])

    def _device_birth(
        self, seen: Seen, name: str, node: _Node, device: str, payload: Payload
    ) -> None:
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
                    continue
            if name is None or (name == BD_SEQ and not device):
                continue
            seen.values.append(Value(node, device, name, metric, birth))


def _gap(node: _Node, payload: Payload) -> str | None:
    """Why the message's seq is out of order, or None; the node's seq moves on either way, so
    one message lost is one gap, not every message after it."""
    expected = (node.seq + 1) % 256
    if payload.seq is None:
        return None  # said nothing: nothing to check
    node.seq = payload.seq
    return None if payload.seq == expected else f"seq {payload.seq}, expected {expected}"


def _bd_seq(payload: Payload) -> int | None:
    for metric in payload.metrics:
        if metric.name == BD_SEQ and isinstance(metric.value, int):
            return int(metric.value)
    return None
