"""What an RTP stream is made of (RFC 3550, RFC 3551): its header's counters, the clock its
packets are sent by, and an announcement's audio cut into packets at the codec's rate.

Resampling is done with soxr (libsoxr), once per announcement, by one streaming resampler
(`soxr.ResampleStream`) that takes the voice's chunks as they arrive, so the first packet
does not wait for the whole phrase and no chunk boundary is heard (resampling each chunk
apart would restart the filter at every boundary). soxr because its filters are proper
band-limited ones (the `HQ` setting: 20-bit precision, the passband flat to 91 % of the
lower Nyquist frequency, so 22.05 kHz speech becomes 8 kHz G.711 with no aliasing into the
telephone band), because it is fast (a compiled library, about 1 ms of CPU for a second of
22.05 kHz audio to 8 kHz; docs/measurements.md), and because it is a small, well-kept
binding with wheels for amd64 and arm64 and nothing but numpy beside it. Linear
interpolation aliases audibly; scipy's polyphase filters would bring all of scipy to a
gateway and resample whole arrays, not a stream.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import soxr

VERSION = 2
SEQ_MOD = 1 << 16
TS_MOD = 1 << 32
# Packets sent ahead of the clock: the first LEAD + 1 go at once, so a receiver's jitter
# buffer starts with 40 ms (at 20 ms a packet) in hand; every later packet waits for its time.
LEAD = 2
# A packet this late is sent at once with those after it that are due (at most 5 at 20 ms);
# later, the stream starts a new talkspurt from now (Pacer.late).
CATCH_UP_S = 0.1
_HEADER = struct.Struct("!BBHII")  # V/P/X/CC, M/PT, sequence number, timestamp, SSRC


@dataclass
class RtpCounters:
    """One synchronization source's header state, kept for the output's life: its SSRC, the
    sequence number and timestamp of the next packet (random at first, RFC 3550 §5.1, and
    continuing across announcements), and when the audio sent so far ends."""

    ssrc: int
    seq: int
    ts: int
    ended: float | None = None  # time.monotonic() at which the audio sent so far ends

    @classmethod
    def random(cls, bits: Callable[[int], int]) -> RtpCounters:
        return cls(ssrc=bits(32), seq=bits(16), ts=bits(32))

    def header(self, payload_type: int, marker: bool) -> bytes:
        """The 12-byte header of the next packet (no padding, extension or CSRC)."""
        second = (0x80 if marker else 0) | payload_type
        return _HEADER.pack(VERSION << 6, second, self.seq, self.ts, self.ssrc)

    def sent(self, samples: int) -> None:
        """The next packet was sent, holding `samples` samples."""
        self.seq = (self.seq + 1) % SEQ_MOD
        self.ts = (self.ts + samples) % TS_MOD

    def skip(self, seconds: float, rate: int) -> None:
        """Time without audio (between announcements, or the voice falling behind): the
        timestamp moves on with it, so a receiver plays the gap as silence (RFC 3551 §4.1)."""
        self.ts = (self.ts + round(max(0.0, seconds) * rate)) % TS_MOD


class Pacer:
    """The send times of one announcement's packets: packet k at start + (k - LEAD) · ptime,
    never before start, each a deadline from the start (time.monotonic), so the time taken
    to encode and send one packet is not added to the next, and no drift builds up."""

    def __init__(self, ptime_s: float, start: float) -> None:
        self.ptime_s = ptime_s
        self.start = start  # moved on by the gaps the voice leaves
        self.began = start  # when the first packet went

    def due(self, k: int) -> float:
        return self.start + max(0, k - LEAD) * self.ptime_s

    def end(self, k: int) -> float:
        """When the audio of packets 0..k-1 ends, played from the start."""
        return self.start + k * self.ptime_s

    def late(self, k: int, now: float) -> float:
        """Packet k is due: how far its audio's start is behind the clock when the packet is
        more than CATCH_UP_S late (the voice fell behind), else 0. Within that (a busy
        gateway's scheduling delay) the late packets go at once and the receivers' jitter
        buffers absorb it; beyond, the start is moved on by as much, so what follows is sent
        at its time, not in a burst to catch up."""
        if now - self.due(k) <= CATCH_UP_S:
            return 0.0
        late = max(0.0, now - self.end(k))
        self.start += late
        return late


def sleep_until(until: float) -> None:
    """Sleep until time.monotonic() reaches `until`."""
    left = until - time.monotonic()
    if left > 0:
        time.sleep(left)


def payloads(
    chunks: Iterable[np.ndarray],
    in_rate: int,
    out_rate: int,
    size: int,
    encode: Callable[[np.ndarray], np.ndarray],
) -> Iterator[bytes]:
    """The chunks (int16 at in_rate) as the payloads of packets of `size` samples at
    out_rate, as they arrive; the last is padded with silence to a whole packet. Each
    chunk's whole packets are encoded at once: a few array operations a chunk, not a packet
    (encoding packet by packet cost 4 times the CPU, most of it in numpy's calls)."""
    resampler = None
    if in_rate != out_rate:
        resampler = soxr.ResampleStream(in_rate, out_rate, 1, dtype="int16", quality="HQ")
    pending = np.zeros(0, dtype=np.int16)
    for chunk in chunks:
        pcm = np.asarray(chunk, dtype=np.int16).reshape(-1)
        pending = np.concatenate([pending, resampler.resample_chunk(pcm) if resampler else pcm])
        whole = len(pending) - len(pending) % size
        yield from _cut(encode(pending[:whole]).tobytes(), whole // size)
        pending = pending[whole:]
    if resampler is not None:
        pending = np.concatenate([pending, resampler.resample_chunk(pending[:0], last=True)])
    if len(pending):
        pending = np.concatenate([pending, np.zeros(-len(pending) % size, dtype=np.int16)])
        yield from _cut(encode(pending).tobytes(), len(pending) // size)


def _cut(encoded: bytes, count: int) -> Iterator[bytes]:
    step = len(encoded) // count if count else 0
    for start in range(0, len(encoded), step or 1):
        yield encoded[start : start + step]
