"""A receiver of RTP pages written apart from the network output's code, for the tests and
bench/rtp_timing.py: a plain UDP socket joined to the group that keeps each packet's header
with the kernel's time of its arrival, and what a receiver measures of a stream by RFC 3550
(interarrival jitter, section 6.4.1 and appendix A.8) and how the packets follow each other.

Arrival times are the kernel's (SO_TIMESTAMPNS, stamped as the datagram is queued on the
socket), not the time a Python thread got round to reading it: on a loaded machine the
reading thread waits for the CPU, the stamp does not.
"""

from __future__ import annotations

import socket
import struct
import threading
from dataclasses import dataclass, field

import numpy as np

SO_TIMESTAMPNS = 35  # Linux's <asm-generic/socket.h> (amd64, arm64); Python's socket lacks it
_TIMESPEC = struct.Struct("@qq")  # a 64-bit struct timespec
FIELDS = ("at", "seq", "ts", "marker", "pt", "ssrc", "size")


@dataclass
class Arrivals:
    """The packets one socket received, in arrival order, a column a header field: `at` the
    kernel's arrival time (s), `size` the payload's bytes."""

    at: list[float] = field(default_factory=list)
    seq: list[int] = field(default_factory=list)
    ts: list[int] = field(default_factory=list)
    marker: list[bool] = field(default_factory=list)
    pt: list[int] = field(default_factory=list)
    ssrc: list[int] = field(default_factory=list)
    size: list[int] = field(default_factory=list)

    def add(self, at: float, data: bytes) -> None:
        """One datagram: its 12-byte header read (CSRCs and extensions are not expected)."""
        _, second, seq, ts, ssrc = struct.unpack("!BBHII", data[:12])
        row = (at, seq, ts, bool(second >> 7), second & 127, ssrc, len(data) - 12)
        for name, value in zip(FIELDS, row, strict=True):
            getattr(self, name).append(value)

    def arrays(self, prefix: str = "") -> dict[str, np.ndarray]:
        """The columns as arrays (for np.savez), each name after `prefix`."""
        return {f"{prefix}{name}": np.array(getattr(self, name)) for name in FIELDS}


class Listener:
    """A member of `group` on `port` that records every packet until stop(). Bound with
    SO_REUSEADDR, as FFmpeg's receiver is, so both hear the same page."""

    def __init__(self, group: str, port: int) -> None:
        self.arrivals = Arrivals()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.bind((group, port))
        join = socket.inet_aton(group) + socket.inet_aton("0.0.0.0")
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, join)
        self.sock.settimeout(0.05)
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._done.is_set():
            try:
                data, ancillary, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(16))
            except TimeoutError:
                continue
            self.arrivals.add(_stamp(ancillary), data)

    def stop(self) -> Arrivals:
        """Stop reading (what is queued is read first: the socket is drained) and close."""
        self._done.set()
        self._thread.join()
        self.sock.settimeout(0)
        while True:
            try:
                data, ancillary, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(16))
            except BlockingIOError:
                break
            self.arrivals.add(_stamp(ancillary), data)
        self.sock.close()
        return self.arrivals


def _stamp(ancillary: list[tuple[int, int, bytes]]) -> float:
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
            seconds, nanoseconds = _TIMESPEC.unpack(data[: _TIMESPEC.size])
            return seconds + nanoseconds / 1e9
    raise LookupError("a datagram without its arrival time (SO_TIMESTAMPNS)")


def interarrival_jitter(at: np.ndarray, ts: np.ndarray, rate: int) -> np.ndarray:
    """RFC 3550's estimate J after each packet, in seconds (§6.4.1, A.8): the transit time
    (arrival on the RTP clock minus the timestamp) of consecutive packets differs by D, and
    J += (|D| - J) / 16. Timestamps are unwrapped first; J starts at 0."""
    stamps = np.unwrap(np.asarray(ts, dtype=np.float64), period=2**32)
    transit = np.asarray(at, dtype=np.float64) * rate - stamps
    jitter, running = np.zeros(len(transit)), 0.0
    for i, d in enumerate(np.abs(np.diff(transit)), 1):
        running += (d - running) / 16
        jitter[i] = running
    return jitter / rate


def continuity(seq: np.ndarray, ts: np.ndarray, marker: np.ndarray, size: int) -> dict:
    """How a stream's packets follow each other: the sequence numbers' steps that are not 1
    (mod 2^16), the indices where a talkspurt begins (the timestamp steps by other than one
    packet's `size` samples, or the first packet), the marker bits' indices, and the
    timestamp step into each talkspurt after the first (in samples, mod 2^32)."""
    seq_steps = np.diff(np.asarray(seq, dtype=np.int64)) % 2**16
    ts_steps = np.diff(np.asarray(ts, dtype=np.int64)) % 2**32
    begins = [0, *(np.flatnonzero(ts_steps != size) + 1).tolist()]
    return {
        "seq_jumps": int(np.sum(seq_steps != 1)),
        "talkspurts": begins,
        "markers": np.flatnonzero(np.asarray(marker)).tolist(),
        "skips": [int(ts_steps[i - 1]) for i in begins[1:]],
    }
