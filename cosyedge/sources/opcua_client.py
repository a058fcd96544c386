"""What the OPC UA source says to a server, through asyncua (the `opcua` extra): the session
with its security, the event filter, ConditionRefresh, Acknowledge and Confirm, and each way
a session fails as the fault names it.

Everything here runs on the source's own event loop (sources/opcua.py).
"""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from asyncua import Client, ua
from asyncua.client.ua_client import UaClientState
from asyncua.crypto import security_policies, uacrypto

from cosyedge.config.source_opcua import OpcuaConfig
from cosyedge.sources.conditions import ConditionEvent

log = logging.getLogger(__name__)

TIMEOUT_S = 5.0  # a request the server does not answer within this is a server that is down
_O = ua.ObjectIds
# The fields selected, each with the type that defines it (OPC UA Part 9): the order is the
# order the server sends them in. The ConditionId is the condition's own NodeId (empty path).
SELECT = (
    (_O.BaseEventType, "EventId"),
    (_O.BaseEventType, "EventType"),
    (_O.BaseEventType, "SourceName"),
    (_O.BaseEventType, "Time"),
    (_O.BaseEventType, "Message"),
    (_O.BaseEventType, "Severity"),
    (_O.ConditionType, "ConditionName"),
    (_O.ConditionType, "Retain"),
    (_O.ConditionType, "EnabledState/Id"),
    (_O.ConditionType, "Quality"),
    (_O.ConditionType, "Comment"),
    (_O.ConditionType, "ClientUserId"),
    (_O.AcknowledgeableConditionType, "AckedState/Id"),
    (_O.AcknowledgeableConditionType, "ConfirmedState/Id"),
    (_O.AlarmConditionType, "ActiveState/Id"),
    (_O.AlarmConditionType, "SuppressedOrShelved"),
    (_O.ConditionType, ""),
)
REFRESH_MARKS = {_O.RefreshStartEventType: "start", _O.RefreshEndEventType: "end"}
ALREADY = ("BadConditionBranchAlreadyAcked", "BadConditionBranchAlreadyConfirmed")
NOT_SENT = "not sent"
KNOWN_ACKED = "already acknowledged at the server (not sent again)"
SEVERITY = (1, 1000)  # OPC UA Part 9's range; what is outside is taken to its nearest end


class SourceFault(Exception):
    """A session that cannot be had or kept; the text is the fault's reason."""


def event_filter() -> ua.EventFilter:
    """The select clauses of SELECT; no where clause, which some PLCs' servers refuse
    (events that are not a condition's are left aside here, by their ConditionId)."""
    clauses = []
    for type_id, path in SELECT:
        op = ua.SimpleAttributeOperand()
        op.TypeDefinitionId = ua.NodeId(type_id)
        op.BrowsePath = [ua.QualifiedName(name, 0) for name in path.split("/")] if path else []
        op.AttributeId = ua.AttributeIds.Value if path else ua.AttributeIds.NodeId
        clauses.append(op)
    return ua.EventFilter(SelectClauses=clauses)


def refresh_mark(values: list[object]) -> str | None:
    """`start` or `end` for a ConditionRefresh's RefreshStartEvent or RefreshEndEvent (by its
    EventType), else None."""
    kind = dict(zip((path for _, path in SELECT), values, strict=False)).get("EventType")
    if not isinstance(kind, ua.NodeId) or kind.NamespaceIndex != 0:
        return None
    return REFRESH_MARKS.get(kind.Identifier) if isinstance(kind.Identifier, int) else None


def severity(value: object, condition: str) -> int:
    """An event's Severity within 1-1000: a number outside is taken to its nearest end; one
    that is no number (NaN, text, none) is 1000, so an alarm whose urgency cannot be read is
    not played down. Each is logged, naming the condition."""
    low, high = SEVERITY
    number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if number is None or math.isnan(number):
        log.warning("condition %s: Severity %r is no number: taken as %d", condition, value, high)
        return high
    if not low <= number <= high:
        taken = low if number < low else high
        log.warning(
            "condition %s: Severity %r outside %d-%d: taken as %d",
            condition,
            value,
            low,
            high,
            taken,
        )
        return taken
    return int(number)


def read_event(values: list[object]) -> ConditionEvent | None:
    """The fields in SELECT's order as a ConditionEvent; None for an event that is not a
    condition's (no ConditionId), a refresh's start or end among them."""
    f = dict(zip((path or "ConditionId" for _, path in SELECT), values, strict=False))
    cond, event_id = f.get("ConditionId"), f.get("EventId")
    if not isinstance(cond, ua.NodeId) or cond.is_null() or not isinstance(event_id, bytes):
        return None
    message = f.get("Message")
    text = message.Text if isinstance(message, ua.LocalizedText) else str(message or "")
    locale = message.Locale if isinstance(message, ua.LocalizedText) else ""
    time = f.get("Time")
    confirmed = f.get("ConfirmedState/Id")
    quality, comment = f.get("Quality"), f.get("Comment")
    return ConditionEvent(
        condition=cond.to_string(),
        event_id=event_id.hex(),
        source_name=str(f.get("SourceName") or ""),
        message=text or "",
        locale=locale or "",
        severity=severity(f.get("Severity"), cond.to_string()),
        condition_name=str(f.get("ConditionName") or ""),
        time=time.isoformat() if hasattr(time, "isoformat") else "",
        enabled=f.get("EnabledState/Id") is not False,
        active=f.get("ActiveState/Id") is True,
        acked=f.get("AckedState/Id") is not False,
        confirmed=confirmed if isinstance(confirmed, bool) else None,
        shelved=f.get("SuppressedOrShelved") is True,
        retain=f.get("Retain") is not False,
        quality=quality.name if isinstance(quality, ua.StatusCode) else "Good",
        comment=comment.Text or "" if isinstance(comment, ua.LocalizedText) else "",
        user=str(f.get("ClientUserId") or ""),
    )


@dataclass(frozen=True)
class Answer:
    """The server's answer to Acknowledge or Confirm: its status code's name, or what became
    of a call it did not answer: `sent, no answer: ...` (it may have arrived and been carried
    out) or `not sent: ...` (no session: the server never heard it)."""

    status: str

    @property
    def good(self) -> bool:
        return self.status == "Good"

    @property
    def settled(self) -> bool:
        """Whether the server has it as asked: done now, or done before (already acked)."""
        return self.status in ("Good", KNOWN_ACKED, *ALREADY)

    @property
    def refused(self) -> bool:
        return self.status.startswith("Bad") and not self.settled

    @property
    def unsent(self) -> bool:
        return self.status.startswith(NOT_SENT)


class ErrorWatch(logging.Handler):
    """The server's last ErrorMessage on one thread. A server that refuses the secure channel
    (a certificate it does not trust) answers with one and closes the connection; asyncua logs
    it and raises only that the connection was lost, so it is read from asyncua's log here,
    by the thread it was logged on: the source's own."""

    LOGGER = "asyncua.client.ua_client.UASocketProtocol"

    def __init__(self, thread: str) -> None:
        super().__init__(logging.CRITICAL)
        self.thread = thread
        self.last: ua.ErrorMessage | None = None

    def emit(self, record: logging.LogRecord) -> None:
        found = record.args[0] if isinstance(record.args, tuple) and record.args else None
        if record.threadName == self.thread and isinstance(found, ua.ErrorMessage):
            self.last = found

    def __enter__(self) -> ErrorWatch:
        logging.getLogger(self.LOGGER).addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger(self.LOGGER).removeHandler(self)


async def connect(config: OpcuaConfig, errors: ErrorWatch) -> Client:
    """A session with the server as configured; SourceFault naming why there is none."""
    # asyncua probes the server every `watchdog_intervall`: at the keep-alive's pace.
    client = Client(config.endpoint, timeout=TIMEOUT_S, watchdog_intervall=config.keepalive_s)
    # asyncua would recreate a subscription it finds stale without the ConditionRefresh a new
    # subscription needs (what stood meanwhile would be missed): `watch` makes the whole
    # session anew instead, refresh included.
    client._stale_check_margin = math.inf
    client.set_locale(list(config.templates))
    certificate = config.security.certificate
    if certificate is not None:  # the URI the certificate names, which servers check
        client.application_uri = application_uri(certificate) or client.application_uri
    errors.last = None
    try:
        await _secure(client, config)
        if config.username is not None:
            client.set_user(config.username)
            client.set_password(_password(config.password_file))
        await client.connect(auto_reconnect=False)
    except SourceFault:
        raise
    except Exception as exc:
        if errors.last is not None and config.security.policy != "None":
            raise SourceFault(_refused(errors.last, config)) from None
        raise SourceFault(reason_of(exc, config.endpoint)) from None
    return client


def _refused(error: ua.ErrorMessage, config: OpcuaConfig) -> str:
    """A secure channel the server closed at once: the gateway's certificate, named."""
    certificate = config.security.certificate
    assert certificate is not None
    code = ua.StatusCode(error.Error.value)
    # Only a Bad code is told: node-opcua's ErrorMessage reads here as a counter, not a code.
    told = f" ({code.name})" if code.is_bad() else ""
    return (
        f"certificate rejected by the server: it closed the secure channel{told} when offered "
        f"this gateway's certificate {certificate} (SHA-1 {fingerprint(certificate)}); trust "
        "it at the server"
    )


async def _secure(client: Client, config: OpcuaConfig) -> None:
    security = config.security
    if security.policy == "None":
        return
    assert security.certificate is not None and security.private_key is not None
    mode = ua.MessageSecurityMode[security.mode]
    policy = getattr(security_policies, f"SecurityPolicy{security.policy}")
    presented = await _server_certificate(client, mode, policy.URI)
    _check_pinned(presented, security.server_certificate, config.name)
    await client.set_security(
        policy,
        str(security.certificate),
        str(security.private_key),
        server_certificate=presented,
        mode=mode,
    )


async def _server_certificate(client: Client, mode: ua.MessageSecurityMode, uri: str) -> bytes:
    """The certificate (DER) the server's endpoint of this policy and mode presents."""
    endpoints = await client.connect_and_get_server_endpoints()
    try:
        endpoint = Client.find_endpoint(endpoints, mode, uri)
    except ValueError:
        policy = uri.rsplit("#", 1)[-1]
        raise SourceFault(f"the server offers no endpoint with {policy} {mode.name}") from None
    return _first_der(endpoint.ServerCertificate)


def _check_pinned(presented: bytes, pinned: Path | None, name: str) -> None:
    """The server presents the certificate configured, or the session is not opened; with
    none configured, the one it presents is taken, and logged."""
    shown = _sha1_of(uacrypto.x509_from_der(presented))
    if pinned is None:  # at every connect: debug, as a retry every few seconds would repeat it
        log.debug("OPC UA %s: the server's certificate (SHA-1 %s) taken as presented", name, shown)
        return
    if shown != fingerprint(pinned):
        raise SourceFault(
            f"certificate rejected: the server presents a certificate (SHA-1 {shown}) other "
            f"than security.server_certificate {pinned}"
        )


async def subscribe(client: Client, config: OpcuaConfig, handler: object) -> object:
    """A subscription to the notifier's events with the filter, then ConditionRefresh, so
    the conditions already standing are sent again. Returns the subscription."""
    interval = config.publishing_interval_ms
    params = ua.CreateSubscriptionParameters(
        RequestedPublishingInterval=interval,
        # The server sends a keep-alive after this many empty intervals: three a keepalive_s.
        RequestedMaxKeepAliveCount=max(1, int(config.keepalive_s * 1000 / interval / 3)),
        RequestedLifetimeCount=max(3, int(config.keepalive_s * 1000 / interval)),
        MaxNotificationsPerPublish=10000,
        PublishingEnabled=True,
    )
    try:
        sub = await client.create_subscription(params, handler)
        notifier = client.get_node(ua.NodeId.from_string(config.notifier))
        await sub.subscribe_events(notifier, evfilter=event_filter(), queuesize=10000)
        # Part 9: called on the ConditionType itself, for the subscription.
        await client.get_node(ua.ObjectIds.ConditionType).call_method(
            ua.NodeId(_O.ConditionType_ConditionRefresh),
            ua.Variant(sub.subscription_id, ua.VariantType.UInt32),
        )
    except Exception as exc:
        raise SourceFault(
            f"cannot subscribe to the alarms: {reason_of(exc, config.endpoint)}"
        ) from None
    return sub


def watch(client: Client, sub: object, keepalive_s: float, now: float) -> None:
    """SourceFault when the subscription has sent nothing, not even a keep-alive, for
    `keepalive_s` (monotonic `now`), or the session is gone. A connection asyncua found dead
    while the subscription had been silent (a server frozen, a cable pulled: nothing closes
    the socket) is a keep-alive missed too; one closed at once, a session lost."""
    last = getattr(sub, "last_publish_at", None)
    silent = 0.0 if last is None else now - last
    if silent > keepalive_s:
        raise SourceFault(f"keep-alive missed: nothing from the server for {silent:.0f} s")
    if client.uaclient.state is not UaClientState.CONNECTED:
        if silent > keepalive_s / 2:  # the server keeps it alive three times a keepalive_s
            raise SourceFault(f"keep-alive missed: nothing from the server for {silent:.0f} s")
        raise SourceFault("session lost: the connection to the server was closed")


async def call(client: Client, method: str, condition: str, event_id: str, comment: str) -> Answer:
    """Acknowledge or Confirm a condition's event with a comment: the server's answer."""
    method_id = {"ack": _O.AcknowledgeableConditionType_Acknowledge}.get(
        method, _O.AcknowledgeableConditionType_Confirm
    )
    request = ua.CallMethodRequest(
        ObjectId=ua.NodeId.from_string(condition),
        MethodId=ua.NodeId(method_id),
        InputArguments=[
            ua.Variant(bytes.fromhex(event_id), ua.VariantType.ByteString),
            ua.Variant(ua.LocalizedText(comment), ua.VariantType.LocalizedText),
        ],
    )
    if not _open(client):
        return Answer(f"{NOT_SENT}: no session with the server")
    try:
        (result,) = await client.uaclient.call([request])
    except ua.UaStatusCodeError as exc:  # the server answered the whole request so
        return Answer(ua.StatusCode(exc.code).name)
    except TimeoutError:
        return Answer(f"sent, no answer within {TIMEOUT_S:g} s")
    except Exception as exc:  # written to the connection, which then failed
        return Answer(f"sent, no answer: {reason_of(exc, '')}")
    return Answer(result.StatusCode.name)


def _open(client: Client) -> bool:
    """Whether a request written now goes out: the session stands on an open connection."""
    protocol = getattr(client.uaclient, "protocol", None)
    transport = getattr(protocol, "transport", None)
    up = client.uaclient.state is UaClientState.CONNECTED
    return up and transport is not None and not transport.is_closing()


async def browse_name(client: Client, condition: str) -> str:
    """The condition node's BrowseName; empty when the server has no such node (a PLC's
    conditions may have no instance in the address space) or does not answer."""
    node = client.get_node(ua.NodeId.from_string(condition))
    try:
        name = await asyncio.wait_for(node.read_browse_name(), TIMEOUT_S)
    except Exception as exc:
        log.info("the browse name of %s cannot be read: %s", condition, reason_of(exc, ""))
        return ""
    return str(name.Name or "")


def reason_of(exc: BaseException, endpoint: str) -> str:
    """A failure as the fault names it: the server down, a certificate rejected, a login
    refused, or the status code the server answered."""
    if isinstance(exc, ua.UaStatusCodeError):
        name = ua.StatusCode(exc.code).name
        if "Certificate" in name or name == "BadSecurityChecksFailed":
            return f"certificate rejected by the server: {name}"
        if name in ("BadUserAccessDenied", "BadIdentityTokenInvalid", "BadIdentityTokenRejected"):
            return f"login refused by the server: {name}"
        return f"the server answered {name}"
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        return f"server down: {endpoint} does not answer"
    if isinstance(exc, OSError):
        return f"server down: {endpoint}: {exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"[:300]


def application_uri(certificate: Path) -> str | None:
    """The application URI a certificate names (its subjectAltName URI): asyncua sends it as
    the client's, and servers check the two agree."""
    from cryptography import x509

    cert = _load(certificate)
    try:
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return None
    uris = names.get_values_for_type(x509.UniformResourceIdentifier)
    return uris[0] if uris else None


def peer_fingerprint(client: Client) -> str:
    """The SHA-1 thumbprint of the server's certificate the session was opened with."""
    peer = getattr(client.security_policy, "peer_certificate", None)
    return _sha1_of(uacrypto.x509_from_der(peer)) if peer else "unknown"


def fingerprint(certificate: Path) -> str:
    """A certificate's SHA-1 thumbprint, as OPC UA servers list the ones they reject."""
    return _sha1_of(_load(certificate))


def _sha1_of(cert: Any) -> str:
    return str(cert.fingerprint(_sha1()).hex())


def _load(certificate: Path) -> Any:
    from cryptography import x509

    data = certificate.read_bytes()
    if b"-----BEGIN" in data:
        return x509.load_pem_x509_certificate(data)
    return x509.load_der_x509_certificate(data)


def _password(path: Path | None) -> str:
    return path.read_text(encoding="utf-8").strip() if path is not None else ""


def _first_der(chain: bytes) -> bytes:
    """The first certificate of a DER chain (a server may send its CA's after its own)."""
    from asyncua.client.client import _first_cert_from_chain

    return _first_cert_from_chain(chain)


def _sha1() -> object:
    from cryptography.hazmat.primitives import hashes

    return hashes.SHA1()
