"""Sparkplug B payloads: the protobuf `Payload` message built here from the field numbers of the
Sparkplug B specification (Eclipse Sparkplug 3.0.0, chapter 6.4 "Payload", and the datatype
codes of 6.4.16), decoded by Google's `protobuf` package into plain values.

No generated module and no copied .proto: the descriptor is made at first use with
descriptor_pb2, so the only dependency is the maintained `protobuf` runtime (the `sparkplug`
extra). What the decoding leaves aside: DataSet, Template and extension values (a metric
holding one decodes with no value), PropertySetList properties and the payload's `body`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

PACKAGE = "cosyedge.sparkplug"

# Sparkplug datatype codes (spec 6.4.16) the rules can read a value of.
INT8, INT16, INT32, INT64 = 1, 2, 3, 4
UINT8, UINT16, UINT32, UINT64 = 5, 6, 7, 8
FLOAT, DOUBLE, BOOLEAN, STRING = 9, 10, 11, 12
DATETIME, TEXT, UUID = 13, 14, 15
_SIGNED_BITS = {INT8: 8, INT16: 16, INT32: 32, INT64: 64}
DATATYPE_NAMES = {
    0: "Unknown", 1: "Int8", 2: "Int16", 3: "Int32", 4: "Int64", 5: "UInt8", 6: "UInt16",
    7: "UInt32", 8: "UInt64", 9: "Float", 10: "Double", 11: "Boolean", 12: "String",
    13: "DateTime", 14: "Text", 15: "UUID", 16: "DataSet", 17: "Bytes", 18: "File",
    19: "Template", 20: "PropertySet", 21: "PropertySetList",
}  # fmt: skip

Value = bool | int | float | str | bytes | None

# (message, [(name, number, label, type, type name)]): label 1 optional, 3 repeated; types as
# descriptor_pb2.FieldDescriptorProto numbers them (4 uint64, 13 uint32, 2 float, 1 double,
# 8 bool, 9 string, 12 bytes, 11 message). Sparkplug's .proto is proto2.
_OPT, _REP = 1, 3
_U64, _U32, _FLT, _DBL, _BOOL, _STR, _BYT, _MSG = 4, 13, 2, 1, 8, 9, 12, 11
_MESSAGES: tuple[tuple[str, tuple[tuple[str, int, int, int, str], ...]], ...] = (
    ("PropertyValue", (
        ("type", 1, _OPT, _U32, ""), ("is_null", 2, _OPT, _BOOL, ""),
        ("int_value", 3, _OPT, _U32, ""), ("long_value", 4, _OPT, _U64, ""),
        ("float_value", 5, _OPT, _FLT, ""), ("double_value", 6, _OPT, _DBL, ""),
        ("boolean_value", 7, _OPT, _BOOL, ""), ("string_value", 8, _OPT, _STR, ""),
        ("propertyset_value", 9, _OPT, _MSG, "PropertySet"),
    )),
    ("PropertySet", (
        ("keys", 1, _REP, _STR, ""), ("values", 2, _REP, _MSG, "PropertyValue"),
    )),
    ("MetaData", (
        ("is_multi_part", 1, _OPT, _BOOL, ""), ("content_type", 2, _OPT, _STR, ""),
        ("size", 3, _OPT, _U64, ""), ("seq", 4, _OPT, _U64, ""),
        ("file_name", 5, _OPT, _STR, ""), ("file_type", 6, _OPT, _STR, ""),
        ("md5", 7, _OPT, _STR, ""), ("description", 8, _OPT, _STR, ""),
    )),
    ("Metric", (
        ("name", 1, _OPT, _STR, ""), ("alias", 2, _OPT, _U64, ""),
        ("timestamp", 3, _OPT, _U64, ""), ("datatype", 4, _OPT, _U32, ""),
        ("is_historical", 5, _OPT, _BOOL, ""), ("is_transient", 6, _OPT, _BOOL, ""),
        ("is_null", 7, _OPT, _BOOL, ""), ("metadata", 8, _OPT, _MSG, "MetaData"),
        ("properties", 9, _OPT, _MSG, "PropertySet"),
        ("int_value", 10, _OPT, _U32, ""), ("long_value", 11, _OPT, _U64, ""),
        ("float_value", 12, _OPT, _FLT, ""), ("double_value", 13, _OPT, _DBL, ""),
        ("boolean_value", 14, _OPT, _BOOL, ""), ("string_value", 15, _OPT, _STR, ""),
        ("bytes_value", 16, _OPT, _BYT, ""),
    )),
    ("Payload", (
        ("timestamp", 1, _OPT, _U64, ""), ("metrics", 2, _REP, _MSG, "Metric"),
        ("seq", 3, _OPT, _U64, ""), ("uuid", 4, _OPT, _STR, ""), ("body", 5, _OPT, _BYT, ""),
    )),
)  # fmt: skip
# The value fields of a metric and of a property value, each one member of a oneof `value`.
_VALUE_FIELDS = {
    "Metric": ("int_value", "long_value", "float_value", "double_value", "boolean_value",
               "string_value", "bytes_value"),
    "PropertyValue": ("int_value", "long_value", "float_value", "double_value",
                      "boolean_value", "string_value", "propertyset_value"),
}  # fmt: skip


class BadPayload(Exception):
    """Not a Sparkplug B payload: the protobuf does not parse."""


class TooBig(BadPayload):
    """A payload of more metrics than the source takes (`max_metrics`)."""


@dataclass(frozen=True)
class Metric:
    """One metric as received: a value only for the scalar datatypes (`datatype` 0 when the
    message did not say, as data messages need not), `properties` the scalar ones by key."""

    name: str | None
    alias: int | None
    datatype: int
    value: Value
    timestamp: int | None = None
    is_null: bool = False
    is_historical: bool = False
    is_transient: bool = False
    properties: dict[str, Value] = field(default_factory=dict)


@dataclass(frozen=True)
class Payload:
    timestamp: int | None
    seq: int | None
    metrics: tuple[Metric, ...]


@functools.cache
def message_classes() -> dict[str, Any]:
    """The protobuf message classes, by name; made once a process (the protobuf runtime
    keeps them in its pool anyway)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    proto = descriptor_pb2.FileDescriptorProto(
        name="cosyedge_sparkplug_b.proto", package=PACKAGE, syntax="proto2"
    )
    for name, fields in _MESSAGES:
        message = proto.message_type.add(name=name)
        oneof = name in _VALUE_FIELDS
        if oneof:
            message.oneof_decl.add(name="value")
        for fname, number, label, ftype, tname in fields:
            added = message.field.add(name=fname, number=number, label=label, type=ftype)
            if tname:
                added.type_name = f".{PACKAGE}.{tname}"
            if oneof and fname in _VALUE_FIELDS[name]:
                added.oneof_index = 0
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{PACKAGE}.{name}"))
        for name, _ in _MESSAGES
    }


def decode(raw: bytes, max_metrics: int | None = None) -> Payload:
    """A Sparkplug B payload's timestamp, seq and metrics; BadPayload when it does not parse,
    TooBig when it has more than `max_metrics` metrics: counted after the parse (in C, a few
    milliseconds a megabyte) and before each is made a `Metric` (in Python, about 30 us each),
    so a huge birth costs no more than its parse."""
    from google.protobuf.message import DecodeError

    message = message_classes()["Payload"]()
    try:
        message.ParseFromString(raw)
    except DecodeError as exc:
        raise BadPayload(f"not a Sparkplug B payload: {exc}") from None
    if max_metrics is not None and len(message.metrics) > max_metrics:
        raise TooBig(f"{len(message.metrics)} metrics, over max_metrics {max_metrics}")
    metrics = tuple(_metric(m) for m in message.metrics)
    return Payload(_opt(message, "timestamp"), _opt(message, "seq"), metrics)


def _opt(message: Any, name: str) -> Any:
    return getattr(message, name) if message.HasField(name) else None


def _metric(m: Any) -> Metric:
    datatype = m.datatype if m.HasField("datatype") else 0
    properties = _properties(m.properties) if m.HasField("properties") else {}
    return Metric(
        name=_opt(m, "name"),
        alias=_opt(m, "alias"),
        datatype=datatype,
        value=None if m.is_null else typed(datatype, _raw(m)),
        timestamp=_opt(m, "timestamp"),
        is_null=m.is_null,
        is_historical=m.is_historical,
        is_transient=m.is_transient,
        properties=properties,
    )


def _raw(message: Any) -> Value:
    which = message.WhichOneof("value")
    return None if which is None else getattr(message, which)


def _properties(pset: Any) -> dict[str, Value]:
    """The scalar properties by key (a nested set or a null one has no value here)."""
    found: dict[str, Value] = {}
    for key, value in zip(pset.keys, pset.values, strict=False):
        raw = None if value.is_null else _raw(value)
        found[key] = None if hasattr(raw, "ListFields") else typed(value.type, raw)
    return found


def typed(datatype: int, raw: Value) -> Value:
    """A raw value as its datatype means it: the signed integers are carried unsigned, as two's
    complement of their width (spec 6.4.16), and a value is read back with its sign."""
    bits = _SIGNED_BITS.get(datatype)
    if bits is None or not isinstance(raw, int) or isinstance(raw, bool):
        return raw
    raw &= (1 << bits) - 1
    return raw - (1 << bits) if raw >> (bits - 1) else raw


def rebirth_request(timestamp_ms: int) -> bytes:
    """An NCMD payload asking an edge node to publish its births again: the Boolean metric
    `Node Control/Rebirth` true (spec 6.4.7 and 7.1.2)."""
    payload = message_classes()["Payload"](timestamp=timestamp_ms)
    metric = payload.metrics.add(name="Node Control/Rebirth", timestamp=timestamp_ms)
    metric.datatype = BOOLEAN
    metric.boolean_value = True
    return payload.SerializeToString()
