"""asyncua's own OPC UA server with alarm conditions, driven by JSON lines on stdin (the
tests of the OPC UA source start it as a process): `raise`, `change`, `ack`, `clear`, each
triggering the AlarmConditionType event a server's alarm would, answered on stdout. A request
names its condition (`condition`, HighLevel by default; another name makes it under Tank3);
`flood` makes `count` conditions active at once (at `severity`; with `message`, each says
that one text instead of its own); `answer` sets how
Acknowledge answers from then on: a `status` other than Good, after a `delay` in seconds, or
(`drop`, once) carried out with the connections closed before the answer. `OPCUA_STANDING`
in the environment (a JSON list of requests) is carried out before the server listens: a
server restarted with its conditions standing, as a PLC's server keeps them across its restart.

Usage: opcua_asyncua_server.py PORT [CERTIFICATE KEY]  (with them: Basic256Sha256
SignAndEncrypt only; without: the policy None only)
"""

from __future__ import annotations

import asyncio
import copy
import datetime
import json
import os
import sys
import uuid

from asyncua import Server, ua


class Alarm:
    """One condition: its event generator, its event and its states."""

    def __init__(self, gen, node) -> None:
        self.gen, self.node, self.event = gen, node, gen.event
        self.event.NodeId = node.nodeid  # the ConditionId
        self.event.SourceName, self.event.ConditionName = "Tank 3", node.nodeid.Identifier[6:]
        self.state = {"ActiveState/Id": False, "AckedState/Id": True, "EnabledState/Id": True}


async def main(port: int, cert: str | None, key: str | None) -> None:
    server = Server()
    server.iserver.bind_condition_methods = True  # ConditionRefresh
    await server.init()
    server.set_endpoint(f"opc.tcp://127.0.0.1:{port}/test")
    server.set_server_name("cosyedge test server")
    if cert and key:
        server.set_security_policy([ua.SecurityPolicyType.Basic256Sha256_SignAndEncrypt])
        await server.load_certificate(cert)
        await server.load_private_key(key)
    else:
        server.set_security_policy([ua.SecurityPolicyType.NoSecurity])
    ns = await server.register_namespace("urn:cosyedge:test")
    tank = await server.nodes.objects.add_object(ns, "Tank3")
    alarms: dict[str, Alarm] = {}

    async def alarm(name: str) -> Alarm:
        if name not in alarms:
            node = await tank.add_object(ua.NodeId(f"Tank3.{name}", ns), name)
            # asyncua tells an event only to those subscribed to the node that emits it: the
            # Server object emits it, as a PLC's server passes its areas' events up to it.
            gen = await server.get_event_generator(
                ua.ObjectIds.AlarmConditionType, ua.ObjectIds.Server
            )
            gen.event.SourceNode = tank.nodeid
            alarms[name] = Alarm(gen, node)
        return alarms[name]

    first = await alarm("HighLevel")
    for request in json.loads(os.environ.get("OPCUA_STANDING", "[]")):
        await act(await alarm(request.get("condition", "HighLevel")), request)
    calls: list[dict] = []
    answer: dict = {"status": None, "delay": 0, "drop": False}

    async def acknowledge(parent, event_id, comment):
        """AcknowledgeableConditionType.Acknowledge on the condition: Part 9's answers, or
        as `answer` says."""
        found = next((a for a in alarms.values() if a.node.nodeid == parent), first)
        calls.append({"event_id": bytes(event_id.Value).hex(), "comment": comment.Value.Text})
        await asyncio.sleep(answer["delay"])
        if answer["status"]:
            return ua.StatusCode(getattr(ua.StatusCodes, answer["status"]))
        if bytes(event_id.Value) != bytes(found.event.EventId.Value):
            return ua.StatusCode(ua.StatusCodes.BadEventIdUnknown)
        if found.state["AckedState/Id"]:
            return ua.StatusCode(ua.StatusCodes.BadConditionBranchAlreadyAcked)
        if answer["drop"] == "undone":  # the connection lost before it was done (once)
            answer["drop"] = False
            for client in list(server.bserver.clients):
                client.transport.close()
            return ua.StatusCode()
        await act(found, {"do": "ack", "comment": comment.Value.Text})
        if answer["drop"]:  # done, but the caller never hears it (once)
            answer["drop"] = False
            for client in list(server.bserver.clients):
                client.transport.close()
        return ua.StatusCode()

    server.iserver.isession.add_method_callback(
        ua.NodeId(ua.ObjectIds.AcknowledgeableConditionType_Acknowledge), acknowledge
    )
    async with server:
        ready = {"ready": True, "condition": first.node.nodeid.to_string()}
        print("ANSWER", json.dumps(ready), flush=True)
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            request = json.loads(line)
            if request["do"] == "calls":
                print("ANSWER", json.dumps({"calls": calls, **first.state}), flush=True)
                continue
            if request["do"] == "flood":
                await flood(server, first.event, ns, request)
                print("ANSWER", json.dumps({"done": "flood"}), flush=True)
                continue
            if request["do"] == "answer":
                answer.update({k: v for k, v in request.items() if k != "do"})
                print("ANSWER", json.dumps({"done": "answer"}), flush=True)
                continue
            found = await alarm(request.get("condition", "HighLevel"))
            await act(found, request)
            event_id = bytes(found.event.EventId.Value).hex()
            done = {"done": request["do"], "event_id": event_id}
            print("ANSWER", json.dumps({**done, "condition": found.node.nodeid.to_string()}))
            sys.stdout.flush()


async def flood(server, like, ns: int, request: dict) -> None:
    """`count` conditions become active at once, each its own copy of `like` (Tank3.FloodN),
    as a PLC's alarms after a power failure; they have no node, so no Acknowledge."""
    for n in range(request["count"]):
        event = copy.deepcopy(like)
        event.NodeId = ua.NodeId(f"Tank3.Flood{n}", ns)
        event.EventId, event.ConditionName = uuid.uuid4().bytes, f"Flood{n}"
        event.Message = ua.LocalizedText(request.get("message", f"flood alarm {n}"), "en")
        event.Severity = request.get("severity", 700)
        for name in ("ActiveState/Id", "EnabledState/Id", "Retain"):
            setattr(event, name, True)
        setattr(event, "AckedState/Id", False)
        event.Time = event.ReceiveTime = datetime.datetime.now(datetime.UTC)
        await server.iserver.isession.subscription_service.trigger_event(event)


async def act(alarm: Alarm, request: dict) -> None:
    do, event, state = request["do"], alarm.event, alarm.state
    if do in ("raise", "change"):
        state["ActiveState/Id"] = True
        state["AckedState/Id"] = request.get("acked", False)
    elif do == "ack":
        state["AckedState/Id"] = True
        event.Comment = ua.LocalizedText(request.get("comment", ""))
        event.ClientUserId = request.get("user", "")
    elif do == "clear":
        state["ActiveState/Id"] = False
    if "source" in request:
        event.SourceName = request["source"]
    if "condition_name" in request:
        event.ConditionName = request["condition_name"]
    if "severity" in request:
        event.Severity = request["severity"]
    if "message" in request:
        event.Message = ua.LocalizedText(request["message"], request.get("locale", "en"))
    event.SuppressedOrShelved = request.get("shelved", False)
    for name, value in state.items():
        setattr(event, name, value)
    event.Retain = state["ActiveState/Id"] or not state["AckedState/Id"]
    await alarm.gen.trigger(message=None)


if __name__ == "__main__":
    port, *files = sys.argv[1:]
    asyncio.run(main(int(port), *(files or [None, None])))
