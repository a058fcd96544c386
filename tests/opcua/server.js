// node-opcua as an independent OPC UA server with a real alarm, for the tests of cosyedge's
// OPC UA source (tests/test_opcua_nodeopcua.py): a tank's level variable, and an
// ExclusiveLimitAlarm on it that node-opcua's address space evaluates itself as the level
// changes. Driven by JSON lines on stdin, answered one line `ANSWER {...}` each on stdout:
//   {"do": "level", "value": 85}   set the level (the alarm follows)
//   {"do": "state"}                the alarm's ActiveState, AckedState, ConfirmedState, comment
// Usage: node server.js PORT CERTIFICATE KEY PKI_DIR TRUSTED_CLIENT_CERTIFICATE
"use strict";
const fs = require("fs");
const readline = require("readline");
const opcua = require("node-opcua");

async function main() {
    const [port, certificateFile, privateKeyFile, pki, trusted] = process.argv.slice(2);
    const serverCertificateManager = new opcua.OPCUACertificateManager({
        rootFolder: pki,
        automaticallyAcceptUnknownCertificate: false,
    });
    await serverCertificateManager.initialize();
    await serverCertificateManager.trustCertificate(fs.readFileSync(trusted));
    const server = new opcua.OPCUAServer({
        port: Number(port),
        hostname: "127.0.0.1",
        resourcePath: "/test",
        certificateFile,
        privateKeyFile,
        serverCertificateManager,
        securityPolicies: [opcua.SecurityPolicy.Basic256Sha256],
        securityModes: [opcua.MessageSecurityMode.SignAndEncrypt],
        allowAnonymous: true,
        serverInfo: { applicationUri: "urn:cosyedge:node-opcua-test" },
    });
    await server.initialize();
    const addressSpace = server.engine.addressSpace;
    addressSpace.installAlarmsAndConditionsService(); // binds ConditionRefresh, Acknowledge, ...
    const namespace = addressSpace.getOwnNamespace();
    const tank = namespace.addObject({
        browseName: "Tank3",
        organizedBy: addressSpace.rootFolder.objects,
        eventSourceOf: addressSpace.rootFolder.objects.server,
    });
    const level = namespace.addVariable({
        browseName: "Level",
        componentOf: tank,
        dataType: "Double",
        value: { dataType: opcua.DataType.Double, value: 50 },
    });
    const alarm = namespace.instantiateExclusiveLimitAlarm("ExclusiveLimitAlarmType", {
        browseName: "HighLevel",
        componentOf: tank,
        conditionSource: tank,
        inputNode: level,
        optionals: ["ConfirmedState", "Confirm"],
        highHighLimit: 90,
        highLimit: 80,
        lowLimit: 10,
    });
    await server.start();
    const answer = (what) => process.stdout.write("ANSWER " + JSON.stringify(what) + "\n");
    answer({ ready: true, condition: alarm.nodeId.toString(), endpoint: server.getEndpointUrl() });
    const lines = readline.createInterface({ input: process.stdin });
    for await (const line of lines) {
        const request = JSON.parse(line);
        if (request.do === "level") {
            level.setValueFromSource({ dataType: opcua.DataType.Double, value: request.value });
            answer({ done: "level" });
        } else if (request.do === "state") {
            const value = (variable) => variable.readValue().value.value;
            answer({
                active: value(alarm.activeState.id),
                acked: value(alarm.ackedState.id),
                confirmed: alarm.confirmedState ? value(alarm.confirmedState.id) : null,
                comment: value(alarm.comment).text,
                user: value(alarm.clientUserId),
                severity: value(alarm.severity),
            });
        }
    }
    await server.shutdown(0);
}

main().catch((err) => {
    process.stderr.write(String(err && err.stack ? err.stack : err) + "\n");
    process.exit(1);
});
