"""asyncua's own OPC UA server with one alarm condition, driven by JSON lines on stdin (the
tests of the OPC UA source start it as a process): `raise`, `change`, `ack`, `clear`, each
triggering the AlarmConditionType event a server's alarm would, answered on stdout.

Usage: opcua_asyncua_server.py PORT [CERTIFICATE KEY]  (with them: Basic256Sha256
SignAndEncrypt only; without: the policy None only)
"""

from __future__ import annotations

import asyncio
import json
import sys

from asyncua import Server, ua


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
    objects = server.nodes.objects
    tank = await objects.add_object(ns, "Tank3")
    condition = await tank.add_object(ns, "HighLevel")
    # asyncua tells an event only to those subscribed to the node that emits it: the Server
    # object emits it, as a PLC's server passes its areas' events up to it.
    gen = await server.get_event_generator(ua.ObjectIds.AlarmConditionType, ua.ObjectIds.Server)
    event = gen.event
    event.SourceNode = tank.nodeid
    event.NodeId = condition.nodeid  # the ConditionId
    event.SourceName, event.ConditionName = "Tank 3", "HighLevel"
    state = {"ActiveState/Id": False, "AckedState/Id": True, "EnabledState/Id": True}
    calls: list[dict] = []

    async def acknowledge(parent, event_id, comment):
        """AcknowledgeableConditionType.Acknowledge on the condition: Part 9's answers."""
        calls.append({"event_id": bytes(event_id.Value).hex(), "comment": comment.Value.Text})
        if bytes(event_id.Value) != bytes(event.EventId.Value):
            return ua.StatusCode(ua.StatusCodes.BadEventIdUnknown)
        if state["AckedState/Id"]:
            return ua.StatusCode(ua.StatusCodes.BadConditionBranchAlreadyAcked)
        await act(gen, event, state, {"do": "ack", "comment": comment.Value.Text})
        return ua.StatusCode()

    server.iserver.isession.add_method_callback(
        ua.NodeId(ua.ObjectIds.AcknowledgeableConditionType_Acknowledge), acknowledge
    )
    async with server:
        print(
            "ANSWER",
            json.dumps({"ready": True, "condition": condition.nodeid.to_string()}),
            flush=True,
        )
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            request = json.loads(line)
            if request["do"] == "calls":
                print("ANSWER", json.dumps({"calls": calls, **state}), flush=True)
                continue
            await act(gen, event, state, request)
            event_id = bytes(event.EventId.Value).hex()
            print("ANSWER", json.dumps({"done": request["do"], "event_id": event_id}), flush=True)


async def act(gen, event, state, request) -> None:
    do = request["do"]
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
    await gen.trigger(message=None)


if __name__ == "__main__":
    port, *files = sys.argv[1:]
    asyncio.run(main(int(port), *(files or [None, None])))
