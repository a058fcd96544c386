"""The names of an ONNX model's inputs and outputs, read from its file without loading it.

A saved optimized graph must be the graph of the model it was saved for; its record beside it
can be edited as the graph can, so the model itself is asked. An ONNX file is a protobuf
`ModelProto`: its `graph` (field 7) is a `GraphProto`, whose `input` (11) and `output` (12)
are `ValueInfoProto`s named by their field 1 (onnx.proto, https://github.com/onnx/onnx). Only
those fields are read; everything else, the weights included, is skipped by its length, so a
model of gigabytes costs a few hundred small reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from cosyedge.regular import regular_only

GRAPH, INPUT, OUTPUT, NAME = 7, 11, 12, 1
VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5
MAX_NAME = 4096  # a tensor's name; longer is not a model this reads


@dataclass(frozen=True)
class Declared:
    """What a model's graph declares it takes and gives, by name, in order."""

    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


def declared(model: Path) -> Declared:
    """The inputs and outputs `model`'s graph declares. Raises ValueError for a file that is
    not such a protobuf (cut short, another format), OSError for one that cannot be read."""
    with open(model, "rb", opener=regular_only) as f:
        end = f.seek(0, 2)
        graph = next((span for field, span in _fields(f, 0, end) if field == GRAPH), None)
        if graph is None:
            raise ValueError(f"{model}: no graph in it")
        names: dict[int, list[str]] = {INPUT: [], OUTPUT: []}
        for field, (start, size) in _fields(f, graph[0], graph[0] + graph[1]):
            if field in names:
                names[field].append(_name(f, start, start + size))
    return Declared(tuple(names[INPUT]), tuple(names[OUTPUT]))


def _name(f: BinaryIO, start: int, end: int) -> str:
    """A `ValueInfoProto`'s name."""
    for field, (at, size) in _fields(f, start, end):
        if field == NAME:
            if size > MAX_NAME:
                raise ValueError(f"a name of {size} bytes")
            f.seek(at)
            return f.read(size).decode("utf-8")
    return ""


def _fields(f: BinaryIO, start: int, end: int) -> Iterator[tuple[int, tuple[int, int]]]:
    """The length-delimited fields of the message between `start` and `end`: each field's
    number and its value's (offset, size); other fields are passed over. The caller may read
    from `f` between fields: the next one is found from where this one ends."""
    at = start
    while at < end:
        f.seek(at)
        key, at = _varint(f, at)
        field, wire = key >> 3, key & 7
        if wire == VARINT:
            _, at = _varint(f, at)
        elif wire in (FIXED64, FIXED32):
            at += 8 if wire == FIXED64 else 4
        elif wire == LENGTH:
            size, at = _varint(f, at)
            if at + size > end:
                raise ValueError(f"a field of {size} bytes past the end of its message")
            yield field, (at, size)
            at += size
        else:
            raise ValueError(f"wire type {wire}: not a protobuf ONNX writes")
    if at != end:
        raise ValueError("a field past the end of its message")


def _varint(f: BinaryIO, at: int) -> tuple[int, int]:
    """The varint at `at` (where `f` is), and where it ends."""
    value, shift = 0, 0
    while True:
        byte = f.read(1)
        if not byte:
            raise ValueError("cut short inside a number")
        value |= (byte[0] & 0x7F) << shift
        at += 1
        if byte[0] < 0x80:
            return value, at
        shift += 7
        if shift > 63:
            raise ValueError("a number of more than 64 bits")
