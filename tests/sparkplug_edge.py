"""A Sparkplug B edge node made with pysparkplug (an implementation independent of cosyedge's),
run in `.venv-sparkplug` (pysparkplug needs paho-mqtt<2) by tests/test_sparkplug_daemon.py.

Usage: python sparkplug_edge.py PORT GROUP NODE DEVICE
Reads one JSON command a line on stdin and prints `ok <op>` once done; prints `ncmd <names>`
when a node command arrives, and answers a `Node Control/Rebirth` with its births.
  {"op": "data", "device": "" | "<id>", "metrics": {"name": value, ...}, "qos": 0 | 1}
  {"op": "ndeath"}               its NDEATH (the birth's bdSeq) at QoS 1, as the spec has its
                                 will (pysparkplug's is QoS 0): a host's persistent session
                                 holds it while the host is down
  {"op": "skip"}                 a seq number used and nothing sent: the next message shows a gap
  {"op": "alias", "alias": 99}   an NDATA with a metric by an alias no birth gave
  {"op": "rebirth"}              NBIRTH and DBIRTH again, as after a rebirth request
A kill -9 leaves the broker its will: the NDEATH with the birth's bdSeq.
Or: python sparkplug_edge.py encode — prints hex payloads (NBIRTH, NDATA) for decoding tests.
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time

from pysparkplug import (
    Client,
    DataType,
    DBirth,
    DData,
    Device,
    EdgeNode,
    Message,
    MessageType,
    Metric,
    NBirth,
    NData,
    NDeath,
    QoS,
    Topic,
)

METRICS = {  # name: (datatype, initial value, alias)
    "Fault": (DataType.BOOLEAN, False, 1),
    "Temperature": (DataType.DOUBLE, 20.0, 2),
    "Message": (DataType.STRING, "", 3),
    "Level": (DataType.INT16, 0, 4),
}
OUT = threading.Lock()


def say(text: str) -> None:
    with OUT:
        print(text, flush=True)


def metric(name: str, value: object, alias: bool = True) -> Metric:
    datatype, _, number = METRICS[name]
    return Metric(
        timestamp=None, name=name, datatype=datatype, value=value, alias=number if alias else None
    )


class Edge:
    def __init__(self, port: int, group: str, node: str, device: str) -> None:
        self.group, self.node_id, self.device_id = group, node, device
        self.values = {name: initial for name, (_, initial, _) in METRICS.items()}
        self.client = Client(client_id=f"edge-{node}")
        start = [metric(n, v) for n, v in self.values.items()]
        self.node = EdgeNode(group, node, start, client=self.client, cmd_callback=self.command)
        self.node.register(Device(device, [metric(n, v) for n, v in self.values.items()]))
        self.node.connect("127.0.0.1", port=port, blocking=False)
        self.bd_seq = 0  # pysparkplug's first connection's
        # Its births are published on connecting, on paho's thread, and then the bdSeq metric
        # for the next connection is made: until then a data message could precede the birth.
        will = self.node._bd_seq_metric
        deadline = time.monotonic() + 20
        while self.node._bd_seq_metric is will and time.monotonic() < deadline:
            time.sleep(0.01)

    def command(self, _node: EdgeNode, message: Message) -> None:
        names = [m.name for m in message.payload.metrics]
        say(f"ncmd {','.join(str(n) for n in names)}")
        if "Node Control/Rebirth" in names:
            self.rebirth()

    def seq(self) -> int:
        return self.node._seq  # the node's own counter, moved on as its own messages move it

    def rebirth(self) -> None:
        self.node._EdgeNode__seq_cycler = itertools.cycle(range(256))
        ms = [metric(n, v) for n, v in self.values.items()]
        bd = Metric(timestamp=None, name="bdSeq", datatype=DataType.INT64, value=self.bd_seq)
        self.publish(self.topic(MessageType.NBIRTH), NBirth(0, self.seq(), (*ms, bd)), True)
        ds = [metric(n, v) for n, v in self.values.items()]
        topic = self.topic(MessageType.DBIRTH, self.device_id)
        self.publish(topic, DBirth(0, self.seq(), tuple(ds)), True)

    def topic(self, kind: MessageType, device: str | None = None) -> Topic:
        return Topic(
            group_id=self.group, message_type=kind, edge_node_id=self.node_id, device_id=device
        )

    def publish(
        self, topic: Topic, payload: object, dtypes: bool = False, qos: QoS = QoS.AT_MOST_ONCE
    ) -> None:
        self.client.publish(Message(topic, payload, qos, False), include_dtypes=dtypes)

    def death(self) -> None:
        bd = Metric(timestamp=None, name="bdSeq", datatype=DataType.INT64, value=self.bd_seq)
        self.publish(self.topic(MessageType.NDEATH), NDeath(0, bd), qos=QoS.AT_LEAST_ONCE)

    def data(self, device: str, values: dict[str, object], qos: int = 0) -> None:
        self.values.update(values)
        ms = tuple(metric(n, v, alias=True) for n, v in values.items())
        ms = tuple(Metric(None, None, m.datatype, value=m.value, alias=m.alias) for m in ms)
        level = QoS.AT_LEAST_ONCE if qos else QoS.AT_MOST_ONCE
        if device:
            topic = self.topic(MessageType.DDATA, device)
            self.publish(topic, DData(0, self.seq(), ms), qos=level)
        else:
            self.publish(self.topic(MessageType.NDATA), NData(0, self.seq(), ms), qos=level)

    def alias(self, number: int) -> None:
        ms = (Metric(None, None, DataType.BOOLEAN, value=True, alias=number),)
        self.publish(self.topic(MessageType.NDATA), NData(0, self.seq(), ms))


def encode() -> None:
    """Payloads made by pysparkplug for the decoding tests, hex, one a line as JSON."""
    ms = [
        metric(n, v)
        for n, v in (
            ("Fault", True),
            ("Temperature", -12.5),
            ("Message", "Pump 2 tripped"),
            ("Level", -300),
        )
    ]
    null = Metric(None, "Fault", DataType.BOOLEAN, value=None, alias=1)
    birth = NBirth(1700000000000, 0, (*ms, Metric(None, "bdSeq", DataType.INT64, value=7)))
    data = NData(1700000000001, 1, (null, Metric(None, None, DataType.INT16, value=-2, alias=4)))
    print(
        json.dumps(
            {"nbirth": birth.encode(include_dtypes=True).hex(), "ndata": data.encode().hex()}
        )
    )


def main() -> None:
    if sys.argv[1] == "encode":
        encode()
        return
    port, group, node, device = int(sys.argv[1]), *sys.argv[2:5]
    edge = Edge(port, group, node, device)
    say("ok start")
    for line in sys.stdin:
        command = json.loads(line)
        op = command["op"]
        if op == "data":
            edge.data(command.get("device", ""), command["metrics"], command.get("qos", 0))
        elif op == "ndeath":
            edge.death()
        elif op == "skip":
            edge.seq()
        elif op == "alias":
            edge.alias(command["alias"])
        elif op == "rebirth":
            edge.rebirth()
        say(f"ok {op}")


if __name__ == "__main__":
    main()
