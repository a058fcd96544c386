"""A network output: one announcement at a time as an RTP stream (RFC 3550) to a multicast
group or one device, the page IP speakers, horns and desk phones play without SIP.

The same contract as the sound device's player (`audio/player.py`): `play(sample_rate,
chunks, should_stop) -> Playback`, raising `AudioUnavailable` when the packets cannot be
sent, and a component whose fault `audio:NAME` says why while that lasts; it is over at
the next announcement sent whole. A page has no answer: a speaker that is off or unplugged
is not noticed, only what this gateway cannot send (no route, the interface down, a
firewall's EPERM).

Each announcement is one talkspurt of the output's stream: the marker bit on its first
packet, its timestamps continuing from the last announcement's plus the silence between
them, its sequence numbers from the last. The packets are paced by the clock
(`rtpstream.Pacer`: the first three at once, then each at its time) and `play` returns
when the audio it sent has played, as the player's does when the device has played it.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from cosyedge.audio.g711 import encoder
from cosyedge.audio.player import MAX_RETRY_S, MIN_RETRY_S, AudioUnavailable, Playback
from cosyedge.audio.rtpstream import Pacer, RtpCounters, payloads, sleep_until
from cosyedge.component import Component, Detail
from cosyedge.config.outputs import RtpOutputConfig
from cosyedge.model import Heartbeat

if TYPE_CHECKING:
    from cosyedge.config.schema import Config

log = logging.getLogger(__name__)

ENCODING_NAMES = {"pcmu": "PCMU", "pcma": "PCMA", "l16": "L16"}  # SDP's, RFC 3551


class RtpOutput(Component):
    """One network output: its stream (SSRC, sequence numbers, timestamps), its socket, and
    its part of the daemon: the fault `audio:NAME` and a reload's settings."""

    def __init__(
        self,
        config: RtpOutputConfig,
        heartbeat: Heartbeat | None = None,
        bits: Callable[[int], int] = secrets.randbits,
    ) -> None:
        """`bits(n)`: n random bits, for the SSRC and the first sequence number and timestamp."""
        self.config = config
        self.heartbeat = heartbeat or Heartbeat(f"output {config.name}")
        self._counters = RtpCounters.random(bits)
        self.available: bool | None = None  # None until the first announcement
        self.gaps = 0  # talkspurts begun again because the voice or the machine fell behind
        # The settings and the socket are shared with the main thread (a reload, the stop).
        self._lock = threading.Lock()
        self._pending: RtpOutputConfig | None = None
        self._socket: socket.socket | None = None
        self._playing = self._stopped = False
        self._failures = 0
        self._lost_since = 0.0
        self._why = ""  # the first error of the current outage
        self.missing: str | None = None  # why it could not send when last looked (`look`)

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def output(self) -> str:
        """Its name under `outputs`, as the zones' outputs name each (audio/outputs.py)."""
        return self.config.name

    def play(
        self,
        sample_rate: int,
        chunks: Iterable[np.ndarray],
        should_stop: Callable[[], bool] = lambda: False,
    ) -> Playback:
        """Send every chunk (int16 at sample_rate) as paced packets, or until should_stop()
        (asked before each packet) says to give way, and return once the audio sent has
        played; raises AudioUnavailable, one line naming the output, when a packet cannot be
        sent. `samples` counts at sample_rate, as the player's do."""
        config, sock = self._take()
        self.heartbeat.beat()
        try:
            sent, first, stopped = self._stream(config, sock, sample_rate, chunks, should_stop)
        finally:
            self.heartbeat.rest()
            self._release()
        if self.available is False:
            log.warning(
                "network output %s sends again after %.0f s", config.where, self._outage_s()
            )
        self.available, self._failures, self.missing = True, 0, None
        samples = round(sent * sample_rate / config.clock_rate)
        return Playback(True, samples, first, stopped, time.monotonic())

    def _stream(
        self,
        config: RtpOutputConfig,
        sock: socket.socket,
        sample_rate: int,
        chunks: Iterable[np.ndarray],
        should_stop: Callable[[], bool],
    ) -> tuple[int, float | None, bool]:
        """Send the packets; (codec samples sent, time of the first packet, stopped)."""
        rate, size = config.clock_rate, config.clock_rate * config.ptime_ms // 1000
        pacer, k, stopped = None, 0, False
        voice = self.heartbeat.beating(chunks)
        try:
            for payload in payloads(voice, sample_rate, rate, size, encoder(config.codec)):
                if should_stop():
                    stopped = True
                    break
                pacer, marker = self._when(pacer, k, config)
                self._send(sock, config, self._counters.header(config.pt, marker) + payload)
                self._counters.sent(size)
                k += 1
        finally:  # also when a send or the voice failed: the next talkspurt starts after it
            if pacer is not None:
                self._counters.ended = pacer.end(k)
        if pacer is None:
            return 0, None, stopped
        if not stopped:
            sleep_until(pacer.end(k))  # played out, as the device drains what it holds
        return k * size, pacer.began, stopped

    def _when(self, pacer: Pacer | None, k: int, config: RtpOutputConfig) -> tuple[Pacer, bool]:
        """Wait for packet k's time; the pacer and the packet's marker bit. The first packet
        begins a talkspurt after the silence since the last announcement, and so does one
        after a gap the voice left (`Pacer.late`): the timestamps skip the silence, so a
        receiver plays it as silence and takes nothing after it for late."""
        if pacer is None:
            pacer = Pacer(config.ptime_ms / 1000, time.monotonic())
            silence = pacer.start - (self._counters.ended or pacer.start)
            self._counters.skip(silence, config.clock_rate)
            return pacer, True
        sleep_until(pacer.due(k))
        late = pacer.late(k, time.monotonic())
        if late:
            self.gaps += 1
            self._counters.skip(late, config.clock_rate)
        return pacer, bool(late)

    def _send(self, sock: socket.socket, config: RtpOutputConfig, packet: bytes) -> None:
        try:
            sock.sendto(packet, (config.address, config.port))
        except OSError as exc:
            raise self._lost(config, exc) from None
        self.heartbeat.beat()

    def _take(self) -> tuple[RtpOutputConfig, socket.socket]:
        """The settings this announcement is sent with, a reload's since the last, and the
        socket, opened afresh after a reload or a failure (an interface that came back)."""
        with self._lock:
            if self._stopped:
                raise AudioUnavailable(f"network output {self.config.where}: stopped")
            if self._pending is not None:
                self.config, self._pending = self._pending, None
                self._close()
            config, sock, self._playing = self.config, self._socket, True
        if sock is None:
            try:
                sock = _open(config)
            except OSError as exc:
                self._release()
                raise self._lost(config, exc) from None
            with self._lock:
                self._socket = sock
        return config, sock

    def _release(self) -> None:
        with self._lock:
            self._playing = False
            if self._stopped:
                self._close()

    def _close(self) -> None:
        """Close the socket (the lock held); the next announcement opens another."""
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    def configure(self, config: RtpOutputConfig) -> None:
        """New settings, taken up by the next announcement (one being sent keeps its own)."""
        with self._lock:
            self._pending = None if config == self.config else config

    def sdp(self) -> str:
        """The session description a listener opens (ffplay, FFmpeg, VLC): the address and
        port, the payload type and its encoding, the packet time (RFC 4566, CRLF lines)."""
        c = self._pending or self.config
        ttl = f"/{c.ttl}" if c.multicast else ""  # RFC 4566 §5.7: a group's address has it
        lines = [
            "v=0",
            f"o=- {self._counters.ssrc} 1 IN IP4 {c.interface or '0.0.0.0'}",
            f"s=cosyedge {c.name}",
            f"c=IN IP4 {c.address}{ttl}",
            "t=0 0",
            f"m=audio {c.port} RTP/AVP {c.pt}",
            f"a=rtpmap:{c.pt} {ENCODING_NAMES[c.codec]}/{c.clock_rate}/1",
            f"a=ptime:{c.ptime_ms}",
            "a=recvonly",  # what a listener does with it
        ]
        return "\r\n".join(lines) + "\r\n"

    def retry_in(self) -> float:
        """Seconds before the next attempt: doubling from MIN_RETRY_S to MAX_RETRY_S."""
        return min(MAX_RETRY_S, MIN_RETRY_S * 2 ** max(0, self._failures - 1))

    def look(self) -> None:
        """While it sends nothing: whether it could, its socket opened with its settings and
        its destination routed (a UDP connect looks the route up and sends nothing), so an
        interface address the gateway lacks or a network it has no route to is the output's
        fault before an alert finds out. A send shows what this cannot (a host down)."""
        with self._lock:
            if self._playing or self._stopped:
                return
            config = self._pending or self.config
        try:
            with contextlib.closing(_open(config)) as sock:
                sock.connect((config.address, config.port))
        except OSError as exc:
            missing = exc.strerror or str(exc)
            if self.missing is None:
                log.error("network output %s cannot send (%s)", config.where, missing)
            self.missing = missing
            return
        self.missing = None

    @property
    def trouble(self) -> str | None:
        """Why nothing can be sent, while that lasts: the output's fault."""
        if self.missing is not None and self.available is not False:
            where = self.config.where
            return f"network output {where} cannot send ({self.missing}); alerts wait in the queue"
        if self.available is False:
            where = self.config.where
            return f"network output {where} cannot send ({self._why}); alerts wait in the queue"
        return None

    def describe(self) -> str:
        if self.missing is not None and self.available is not False:
            return f"cannot send ({self.missing})"
        if self.available is False:
            return f"unavailable for {self._outage_s():.0f} s, retrying every {self.retry_in():g} s"
        if not self.available:
            return "not used yet"
        gaps = self.gaps
        return f"ok, {gaps} gap{'' if gaps == 1 else 's'}" if gaps else "ok"

    def reconfigure(self, config: Config) -> None:
        """Take this output's entry of the configuration's `outputs`, once there is one (the
        zones add it); an output no longer there keeps its settings until it is let go."""
        section = config.outputs.get(self.name)
        if section is not None and section.rtp is not None:
            self.configure(section.rtp)

    def tick(self, now: float) -> Mapping[str, str | None]:
        return {f"audio:{self.name}": self.trouble}

    def state(self, detail: Detail) -> Mapping[str, Any]:
        return {"audio_up": self.trouble is None, "audio": self.describe()}

    def stop(self) -> None:
        """Refuse new announcements; the socket is closed once the one being sent ends."""
        with self._lock:
            self._stopped = True
            if not self._playing:
                self._close()

    def _lost(self, config: RtpOutputConfig, exc: OSError) -> AudioUnavailable:
        with self._lock:
            self._close()
        self._failures += 1
        reason = exc.strerror or str(exc)
        if self.available is not False:
            self._lost_since, self._why = time.monotonic(), reason
            log.error(
                "network output %s cannot send (%s): alerts stay queued and are said when it "
                "can; retrying with backoff up to %g s",
                config.where,
                reason,
                MAX_RETRY_S,
            )
        else:
            log.debug("network output %s still cannot send (%s)", config.where, reason)
        self.available = False
        return AudioUnavailable(f"network output {config.where}: cannot send: {reason}")

    def _outage_s(self) -> float:
        return time.monotonic() - self._lost_since


def _open(config: RtpOutputConfig) -> socket.socket:
    """A UDP socket with the output's DSCP and, for a group, its TTL, its interface and the
    loop back on (a listener on this host hears the page too)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, config.dscp << 2)
        if config.multicast:
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, config.ttl)
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
        if config.multicast and config.interface is not None:
            _send_from(sock, config.interface)
    except OSError:
        sock.close()
        raise
    return sock


def _send_from(sock: socket.socket, interface: str) -> None:
    """IP_MULTICAST_IF; an address no interface has is said as such."""
    try:
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(interface))
    except OSError as exc:
        raise OSError(exc.errno, f"interface {interface}: {exc.strerror}") from None
