"""The HTTP API's front: every connection is read here, on one thread, until its request is
whole; only then does it get one of the `max_clients` threads that answer (server.py).

A thread per connection from the moment it opens lets clients that send nothing, or a byte at
a time (slowloris: idle, slow headers, slow body), hold every thread while a real request
waits. Here a connection costs a buffer until its request has all arrived: at most
`max_connections` are open at once (the oldest still incomplete is closed to make room for a
new one, so connecting is never refused), each must be whole within `timeout_s` of
connecting, and a request sent at once is answered at once whatever the others do. The close
after an answer, which reads what the client still sends so that the close does not reset
the connection under the answer, is made here too (for at most LINGER_S), so a thread is free
the moment its answer is written.

How long a body is comes from its head, by one rule for the front and the answers
(`check_head`, `body_length`): a head that frames its body ambiguously (two lengths, a length
and a transfer coding, a length that is not plain digits, a header line that is not `Name:
value`, such as a folded one) is answered at once, its body never read.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import logging
import queue
import re
import selectors
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from email import errors
from email.message import Message
from typing import Any

from cosyedge.http.tally import Tally

log = logging.getLogger(__name__)

LINGER_S = 1.0  # after an answer, what the client still sends is read this long at most
HEAD_LIMIT = 65536  # a request line and headers together; a longer head is refused (431)
ACCEPT_BATCH = 64  # connections accepted per turn of the loop, so reading is not starved
PAUSE_S = 0.1  # accepting waits this long when the process has no file descriptor left
EVICTIONS_LOG_S = 10.0  # connections closed to make room are logged at most this often
_DIGITS = re.compile(r"[0-9]+\Z")  # int() would also take "+5", " 5", "1_0", other scripts
# A field line (RFC 9110, 5.1 and 5.5): a token, a colon, then no control character but HTAB.
# So never a fold (a line starting with a space or tab), a CR alone or a NUL.
_FIELD_LINE = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[^\x00-\x08\x0a-\x1f\x7f]*\Z")


# What the email parser finds wrong with a multipart body it looks for in a head alone: not a
# header line's fault (the Content-Type is then refused for what it is, 415).
_BODY_DEFECTS = (
    errors.StartBoundaryNotFoundDefect,
    errors.CloseBoundaryNotFoundDefect,
    errors.MultipartInvariantViolationDefect,
    errors.NoBoundaryInMultipartDefect,
)


class BadFraming(Exception):
    """A head whose body cannot be read one way only: answered with `status`, naming the
    header."""

    def __init__(self, status: int, header: str, reason: str) -> None:
        super().__init__(f"{header}: {reason}")
        self.status, self.header, self.reason = status, header, reason


def body_length(headers: Message, limit: int) -> int | None:
    """The length of the body the head declares (None: no body declared); BadFraming when
    it could be read two ways or not at all. One length, plain ASCII digits, at most `limit`
    (413 beyond); never a transfer coding (411 alone, 400 with a length: the two together are
    how requests are smuggled past a proxy); no header line that is not `Name: value`, which
    would hide the lines after it."""
    if any(not isinstance(d, _BODY_DEFECTS) for d in headers.defects):
        raise BadFraming(400, "head", "a header line that is not `Name: value`")
    lengths = headers.get_all("Content-Length") or []
    codings = headers.get_all("Transfer-Encoding") or []
    if codings and lengths:
        raise BadFraming(400, "Transfer-Encoding", "not accepted, least of all beside a length")
    if codings:
        raise BadFraming(411, "Transfer-Encoding", "not accepted: send a Content-Length")
    if not lengths:
        return None
    if len(lengths) > 1 or "," in lengths[0]:
        raise BadFraming(400, "Content-Length", "given more than once")
    value = lengths[0].strip(" \t")
    if not _DIGITS.match(value):
        raise BadFraming(400, "Content-Length", f"expected a number of bytes, got {value[:40]!r}")
    if len(value) > len(str(limit)) or int(value) > limit:
        raise BadFraming(413, "Content-Length", f"body over {limit} bytes (http.max_body_bytes)")
    return int(value)


def check_head(data: bytes, end: int) -> None:
    """BadFraming (400) naming the first header line of `data[:end]` that is not `Name:
    value`: a line folded onto the one before (obsolete since RFC 7230), a CR alone, a control
    character (HTAB aside) or a name that is not a token. Each is a line that a proxy may read
    as a header of its own, or as part of another, where this server would read it otherwise."""
    first = data.find(b"\n") + 1
    for line in data[first:end].split(b"\n"):
        line = line.removesuffix(b"\r")
        if line and not _FIELD_LINE.match(line):
            shown = ascii(line[:80].decode("latin-1"))
            raise BadFraming(400, "head", f"a header line that is not `Name: value`: {shown}")


def head_end(data: bytes) -> int | None:
    """Where the head ends (after its empty line), as the standard library reads lines; None
    while it has not."""
    line_end = data.find(b"\n")
    if line_end < 0:
        return None
    ends = [i for i in (data.find(b"\n\r\n", line_end), data.find(b"\n\n", line_end)) if i >= 0]
    if not ends:
        return None
    end = min(ends)
    return end + (3 if data[end + 1 : end + 2] == b"\r" else 2)


def parse_head(data: bytes, end: int) -> Message:
    """The headers of a whole head (its request line left out)."""
    first = data.find(b"\n") + 1
    return http.client.parse_headers(io.BytesIO(data[first:end]))


@dataclass(frozen=True)
class Request:
    """A connection whose request has all arrived (or never will): what an answering thread
    gets. `data` is the head and the body; `ended`: the client closed before the request was
    whole."""

    sock: socket.socket
    address: Any
    data: bytes
    ended: bool = False


@dataclass
class _Reading:
    """A connection whose request has not all arrived."""

    sock: socket.socket
    address: Any
    deadline: float
    data: bytearray = field(default_factory=bytearray)
    need: int | None = None  # head and body, once the head is whole


@dataclass
class _Closing:
    """A connection being closed gently: what is left to send, then what the client still
    sends is read and dropped until it closes or the deadline."""

    sock: socket.socket
    deadline: float
    out: bytes = b""


@dataclass(frozen=True)
class Limits:
    timeout_s: float  # from connecting to the request being whole
    max_connections: int  # open and still being read
    max_body_bytes: int


class Front:
    """Reads connections until their request is whole and hands each to `dispatch` (on this
    thread: it must not block). `run` on a thread of its own; `stop`, `close` from any."""

    def __init__(
        self,
        listener: socket.socket,
        limits: Limits,
        dispatch: Callable[[Request], None],
        tally: Tally,
    ) -> None:
        """`tally`: the lines a flood of connections would repeat, rate-limited by kind."""
        self.listener, self.limits, self.dispatch, self.tally = listener, limits, dispatch, tally
        self._reading: OrderedDict[socket.socket, _Reading] = OrderedDict()  # oldest first
        self._closing: OrderedDict[socket.socket, _Closing] = OrderedDict()
        self._handed: queue.SimpleQueue[_Closing] = queue.SimpleQueue()  # from other threads
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._stopped = threading.Event()
        self._paused_until = 0.0
        self._evicted = 0  # closed to make room, not logged yet
        self._evictions_logged = 0.0

    # -- from any thread ----------------------------------------------------------------------
    def close(self, sock: socket.socket, out: bytes = b"") -> None:
        """Send `out`, then close gently (see the module's docstring); never blocks."""
        if self._stopped.is_set():
            _quiet_close(sock)
            return
        self._handed.put(_Closing(sock, time.monotonic() + LINGER_S, out))
        self._wake()

    def stop(self) -> None:
        self._stopped.set()
        self._wake()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # full: it is awake already; closed: it stopped
            self._wake_w.send(b"\0")

    # -- the loop -----------------------------------------------------------------------------
    def run(self) -> None:
        self.listener.setblocking(False)
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        try:
            while not self._stopped.is_set():
                try:
                    self._turn()
                except Exception:  # one bad turn must not end the API; nor spin on a fault
                    log.exception("http: reading connections failed; going on")
                    self._stopped.wait(PAUSE_S)
        finally:
            self._shut_all()

    def _turn(self) -> None:
        """One turn: wait for something to do (at most until the next deadline), do it."""
        self._listen(time.monotonic() >= self._paused_until)
        for key, _ in self._selector.select(self._wait_s()):
            sock = key.fileobj
            if sock is self.listener:
                self._accept()
            elif sock is self._wake_r:
                self._take_handed()
            elif sock in self._reading:
                self._read(self._reading[sock])
            elif sock in self._closing:
                self._drain(self._closing[sock])
        self._expire(time.monotonic())
        self.tally.flush()

    def _listen(self, on: bool) -> None:
        """Watch the listener, or not while accepting is paused."""
        watched = self.listener in self._selector.get_map()
        if on and not watched:
            self._selector.register(self.listener, selectors.EVENT_READ)
        elif not on and watched:
            self._selector.unregister(self.listener)

    def _wait_s(self) -> float:
        """Until the nearest deadline (the oldest of each kind has it: one timeout each), or
        the end of a pause; at most a second."""
        now = time.monotonic()
        deadlines = [now + 1.0, *(next(iter(d.values())).deadline for d in self._kinds() if d)]
        if self._paused_until > now:
            deadlines.append(self._paused_until)
        return max(0.0, min(deadlines) - now)

    def _kinds(self) -> tuple[OrderedDict[socket.socket, Any], ...]:
        return (self._reading, self._closing)

    # -- connections being read ---------------------------------------------------------------
    def _accept(self) -> None:
        for _ in range(ACCEPT_BATCH):
            try:
                sock, address = self.listener.accept()
            except BlockingIOError:
                return
            except OSError as exc:  # out of file descriptors: make room, else wait a moment
                self._out_of_descriptors(exc)
                return
            sock.setblocking(False)
            if len(self._reading) >= self.limits.max_connections:
                self._evict()
            deadline = time.monotonic() + self.limits.timeout_s
            self._reading[sock] = _Reading(sock, address, deadline)
            self._selector.register(sock, selectors.EVENT_READ)

    def _out_of_descriptors(self, exc: OSError) -> None:
        if self._reading:
            self._evict()
        else:
            log.warning("http: cannot accept a connection (%s); trying again shortly", exc)
            self._paused_until = time.monotonic() + PAUSE_S

    def _evict(self) -> None:
        """Close the oldest connection still being read, to make room for a new one: of all
        of them it has had the longest to send its request."""
        oldest = next(iter(self._reading.values()))
        self._forget(oldest.sock)
        _quiet_close(oldest.sock)
        self._evicted += 1
        now = time.monotonic()
        if now - self._evictions_logged >= EVICTIONS_LOG_S:
            log.warning(
                "http: %d connections closed to make room: %d open with their requests "
                "incomplete (http.max_connections), the oldest closed first",
                self._evicted,
                self.limits.max_connections,
            )
            self._evicted, self._evictions_logged = 0, now

    def _read(self, reading: _Reading) -> None:
        try:
            data = reading.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:  # reset by the client: nobody to answer
            self._forget(reading.sock)
            _quiet_close(reading.sock)
            return
        if not data and not reading.data:  # connected and closed without a word
            self._forget(reading.sock)
            _quiet_close(reading.sock)
            return
        reading.data += data
        if not data or self._whole_or_unreadable(reading):
            self._forget(reading.sock)
            reading.sock.setblocking(True)
            self.dispatch(Request(reading.sock, reading.address, bytes(reading.data), not data))

    def _whole_or_unreadable(self, reading: _Reading) -> bool:
        """`_whole`, and True for a head this loop cannot read (whatever the fault): it is
        handed on at once, to be answered, never left to stall the loop or wait for its
        deadline."""
        try:
            return self._whole(reading)
        except Exception as exc:  # a fault in reading one head must not touch the others
            self.tally.log(
                f"heads that could not be read ({type(exc).__name__})",
                logging.WARNING,
                "http: %s: a head that could not be read (%s); answered at once",
                reading.address[0],
                exc,
            )
            return True

    def _whole(self, reading: _Reading) -> bool:
        """Whether all of the request is in: one that cannot be read as HTTP (TLS, binary), a
        head too long or framed ambiguously are answered at once, without their body."""
        data = reading.data
        if not data[:1].isalpha():
            return True
        if reading.need is None:
            end = head_end(data)
            if end is None or end > HEAD_LIMIT:
                return end is not None or len(data) >= HEAD_LIMIT
            reading.need = end + self._length(bytes(data), end, reading)
        return len(data) >= reading.need

    def _length(self, data: bytes, end: int, reading: _Reading) -> int:
        """The body's length (0 when it will not be read), and a `100 Continue` for a client
        that waits for one before it sends its body."""
        try:
            headers = parse_head(data, end)
            check_head(data, end)
            length = body_length(headers, self.limits.max_body_bytes) or 0
        except (BadFraming, http.client.HTTPException):  # too many headers, a line too long
            return 0  # answered from the head alone
        if length and (headers.get("Expect") or "").lower() == "100-continue":
            with contextlib.suppress(OSError):  # a few bytes into an empty buffer
                reading.sock.send(b"HTTP/1.1 100 Continue\r\n\r\n")
        return length

    def _forget(self, sock: socket.socket) -> None:
        self._reading.pop(sock, None)
        self._closing.pop(sock, None)
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(sock)

    def _expire(self, now: float) -> None:
        while self._reading and (oldest := next(iter(self._reading.values()))).deadline <= now:
            self.tally.log(
                "connections dropped: request not received within http.timeout_s",
                logging.WARNING,
                "http: %s dropped: request not received within %g s",
                oldest.address[0],
                self.limits.timeout_s,
            )
            self._forget(oldest.sock)
            _quiet_close(oldest.sock)
        while self._closing and (done := next(iter(self._closing.values()))).deadline <= now:
            self._forget(done.sock)
            _quiet_close(done.sock)

    # -- connections being closed -------------------------------------------------------------
    def _take_handed(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while self._wake_r.recv(4096):
                pass
        while True:
            try:
                closing = self._handed.get_nowait()
            except queue.Empty:
                return
            self._start_closing(closing)

    def _start_closing(self, closing: _Closing) -> None:
        sock = closing.sock
        if self._stopped.is_set():
            _quiet_close(sock)
            return
        try:
            sock.setblocking(False)
            if not closing.out:
                sock.shutdown(socket.SHUT_WR)
            interest = selectors.EVENT_WRITE if closing.out else selectors.EVENT_READ
            self._selector.register(sock, interest)
        except (OSError, ValueError, KeyError):  # gone meanwhile: nothing left to do
            _quiet_close(sock)
            return
        self._closing[sock] = closing
        if closing.out:
            self._drain(closing)

    def _drain(self, closing: _Closing) -> None:
        """Send what is left, then shut our side and read what comes until the client closes."""
        sock = closing.sock
        try:
            if closing.out:
                closing.out = closing.out[sock.send(closing.out) :]
                if not closing.out:
                    sock.shutdown(socket.SHUT_WR)
                    self._selector.modify(sock, selectors.EVENT_READ)
                return
            if sock.recv(65536):
                return
        except BlockingIOError:
            return
        except OSError:
            pass  # reset, or shut already: closed below
        self._forget(sock)
        _quiet_close(sock)

    def _shut_all(self) -> None:
        for sock in [*self._reading, *self._closing]:
            self._forget(sock)
            _quiet_close(sock)
        self._take_handed()  # closed at once: stopped
        self._selector.close()
        self._wake_r.close()
        self._wake_w.close()


def _quiet_close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.close()
