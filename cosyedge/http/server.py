"""The HTTP server: connections read whole by the front (front.py), then one thread per
request, at most `max_clients` at once, one request per connection.

The standard library's ThreadingHTTPServer fits a daemon that is threads already (paho's
network thread, the announcer, the journal writer): a request blocks its own thread only,
waiting for the journal or for an outcome as the MQTT side does, and nothing new is loaded.
Its weak points are closed here: a thread is given only to a request that has all arrived, so
idle and slow clients (slowloris) hold none (front.py); a request over the limit is answered
503 at once instead of queueing; every connection is closed only once the client has stopped
sending (or after LINGER_S), so no answer is lost to a reset; a request line it cannot parse
(TLS, binary) is a 400 in JSON; a body framed ambiguously (two lengths, a length and a
transfer coding, a length not in plain digits) is a 400 naming the header; bodies over
`max_body_bytes` are refused (413) unread; and every request is logged in one line, without
its headers, so a token never reaches the log.
"""

from __future__ import annotations

import io
import json
import logging
import math
import socket
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs

from cosyedge.component import Component
from cosyedge.config.http import HttpConfig, weak_token
from cosyedge.config.schema import Config
from cosyedge.http import page
from cosyedge.http.access import Access
from cosyedge.http.front import (
    HEAD_LIMIT,
    BadFraming,
    Front,
    Limits,
    Request,
    body_length,
    check_head,
    head_end,
)
from cosyedge.http.metrics import CONTENT_TYPE, Metrics
from cosyedge.http.outcomes import OutcomeBoard
from cosyedge.http.refused import Refused
from cosyedge.http.sessions import TEST_EVERY_S, Sessions, Spacing, Throttle
from cosyedge.http.speech import SpeechRoutes
from cosyedge.http.tally import EVERY_S, Tally
from cosyedge.intake.door import Accepted, Unavailable
from cosyedge.intake.local import BadField
from cosyedge.model import CommandAnswer
from cosyedge.speech.render import Rendering
from cosyedge.speech.stream import Turns

log = logging.getLogger(__name__)

BACKLOG = 1024  # connections the kernel holds until accepted, rather than drop or reset
STOP_WAIT_S = 5.0  # how long `stop` waits for the front's thread
_BUSY_BODY = b'{"error": "busy: too many requests at once; try again"}'
BUSY = (
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
    f"Retry-After: 1\r\nConnection: close\r\nContent-Length: {len(_BUSY_BODY)}\r\n\r\n"
).encode() + _BUSY_BODY


class Backend(Protocol):
    """What the API serves from: the door for say requests, the daemon for the rest (its
    `LocalApi`). No call blocks for long."""

    def say(
        self, body: bytes, written: Callable[[], None], watch: Callable[[int], None] | None
    ) -> Accepted:
        """Take a say request as the MQTT side takes a message: journaled (`written` runs
        once on disk), `watch` called with its seq before the rules see it. BadField when
        it is refused, Unavailable when nothing can be journaled now."""
        ...

    def rendering(self, text: str, lang: str | None) -> Rendering:
        """Speech for a caller; RejectedAlert when the voices can say nothing of the text."""
        ...

    def busy(self) -> bool: ...  # an alert is being said or waits: synthesis gives way
    def status(self) -> dict[str, Any]: ...
    def problems(self) -> list[str]: ...  # why the daemon is not healthy; empty when it is
    def voices(self) -> dict[str, dict[str, Any]]: ...
    # The operator page's (page.py): an operator command as the command topic takes it (the
    # ids it acted on, or why it was refused), the status with the desk's board, health, the
    # audit trail.
    def command(self, payload: bytes, written: Callable[[], None]) -> CommandAnswer: ...
    def test_say(
        self,
        body: bytes,
        user: str,
        written: Callable[[], None],
        watch: Callable[[int], None] | None,
    ) -> Accepted: ...  # `say`, audited as the operator's test announcement
    def now(self) -> dict[str, Any]: ...
    def health(self) -> dict[str, Any]: ...
    def audit(self, limit: int) -> list[dict[str, Any]]: ...
    def review(self) -> dict[str, Any]: ...  # the last day's ISA-18.2 figures
    def export(self, kind: str) -> str: ...  # `audit` or `kpi` as CSV; ReportError: none
    def how_read(self, text: str, lang: str | None) -> dict[str, Any]: ...


def read_token(path: Path | None) -> bytes | None:
    """The token in the file, without the whitespace around it."""
    return path.read_text(encoding="utf-8").strip().encode() if path is not None else None


class ApiServer(ThreadingHTTPServer, Component):
    daemon_threads = True  # a stop does not wait for a caller still reading
    block_on_close = False
    request_queue_size = BACKLOG  # a burst beyond it would see resets, not its answers

    def __init__(
        self,
        config: HttpConfig,
        backend: Backend,
        board: OutcomeBoard,
        metrics: Metrics,
        turns: Turns,
        log_every_s: float = EVERY_S,
    ) -> None:
        """`turns`: synthesis shared with the daemon's other callers (Wyoming);
        `log_every_s`: how often a line a flood of bad connections repeats is logged."""
        self.config, self.backend, self.board, self.metrics = config, backend, board, metrics
        self.turns = turns
        self.tally = Tally(log_every_s)
        for warning in config.exposed_secrets():
            log.warning("%s", warning)
        self.token = read_token(config.token_file)
        if self.token is not None and not self.token:
            raise RuntimeError(f"http.token_file: {config.token_file} is empty")
        self.page = page.page_html()
        self.page_headers = page.page_headers(self.page)
        self.names = config.names
        self.sessions, self.throttle = Sessions(), Throttle()
        self.tests = Spacing(TEST_EVERY_S)  # the page's test announcements, per session
        self.slots = threading.BoundedSemaphore(config.max_clients)
        host, port = config.address
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        super().__init__((host, port), Handler)
        limits = Limits(config.timeout_s, config.max_connections, config.max_body_bytes)
        self.front = Front(self.socket, limits, self._dispatch, self.tally)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self.front.run, name="http", daemon=True)
        self._thread.start()
        host, port = self.server_address[:2]
        log.info("HTTP API on %s port %d%s", host, port, " (token needed)" if self.token else "")

    def reconfigure(self, config: Config) -> None:
        """The token file is read again at every reload (the rest of `http` waits for a
        restart): a new token ends the old one and every page session at once."""
        path = self.config.token_file
        if path is None:
            return
        problem = weak_token(path)
        if problem is not None:  # the reload's check refuses this first; it changed since
            log.error("http.token_file: %s %s; the token in force stays", path, problem)
            return
        token = read_token(path)
        if token == self.token:
            return
        self.token = token
        ended = self.sessions.clear()
        log.warning(
            "http: the token in %s changed: the old token no longer works, %d page sessions ended",
            path,
            ended,
        )

    def stop(self) -> None:
        self.front.stop()
        if self._thread is not None:
            self._thread.join(STOP_WAIT_S)
        self.server_close()

    def _dispatch(self, request: Request) -> None:
        """A request that has all arrived (on the front's thread, so it never blocks): a
        thread of its own answers it, or a 503 at once when `max_clients` are being served."""
        if not self.slots.acquire(blocking=False):
            log.warning(
                "http: %s refused: %d requests already being served",
                request.address[0],
                self.config.max_clients,
            )
            self.front.close(request.sock, BUSY)
            return
        try:
            self.process_request(request, request.address)
        except Exception:  # no thread to be had: nothing better to give it than the close
            self.slots.release()
            log.exception("http: %s: cannot start a thread for it", request.address[0])
            self.front.close(request.sock)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def shutdown_request(self, request: Any) -> None:
        """After the answer: the front closes the connection, so this thread is free now."""
        self.front.close(request.sock)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A fault of ours outside a route: one log record, not a traceback on stderr."""
        log.exception("http: %s: request failed", client_address[0])


class _Sent(io.BufferedIOBase):
    """An answer written straight to the socket: each chunk of a stream goes out as it is
    made. The socket's timeout bounds each wait for the client to take more."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._sock.sendall(data)
        return len(data)


ROUTES = {
    ("POST", "/v1/say"): "say",
    ("POST", "/v1/synthesize"): "synthesize",
    ("POST", "/v1/audio/speech"): "speech",
    ("GET", "/v1/status"): "status",
    ("GET", "/v1/voices"): "voices",
    ("GET", "/healthz"): "healthz",
    ("GET", "/metrics"): "metrics",
    **page.PAGE_ROUTES,
}


class Handler(page.PageRoutes, SpeechRoutes, Access, BaseHTTPRequestHandler):
    server: ApiServer
    protocol_version = "HTTP/1.1"  # for chunked answers; one request per connection all the same
    server_version = "cosyedge"

    def version_string(self) -> str:
        """The `Server` header: the product alone (the standard library's adds a space and
        Python's version)."""
        return self.server_version

    def setup(self) -> None:
        """The request has all arrived (front.py): it is read from memory, the answer is
        written to the socket."""
        request: Request = self.request
        self.started = time.monotonic()
        self.connection = request.sock
        self.connection.settimeout(self.server.config.timeout_s)
        self.rfile = io.BytesIO(request.data)
        self.wfile = _Sent(self.connection)
        self.sent_bytes = 0
        self.answered = False  # the status line is sent: no other answer can follow
        self.refused: str | None = None  # why its head could not be read, when it could not

    def handle(self) -> None:
        try:
            problem = self._unreadable()
            if problem is None:
                super().handle()
            else:
                self.send_error(*problem)
        except OSError as exc:  # the caller went away, or was cut off: nothing left to answer
            self.server.tally.log(
                "connections ended early",
                logging.INFO,
                "http: %s: connection ended early (%s)",
                self.client_address[0],
                exc,
            )

    def _unreadable(self) -> tuple[int, str] | None:
        """Why the request cannot be read as HTTP at all: binary (a TLS ClientHello sent to
        this plain-HTTP port), answered at once rather than read up to a line end that may
        never come; or a head over HEAD_LIMIT."""
        request: Request = self.request
        if not request.data[:1].isalpha():
            return 400, "not an HTTP request (this port speaks plain HTTP, not TLS)"
        end = head_end(request.data)
        if (end is None and not request.ended) or (end or 0) > HEAD_LIMIT:
            return 431, f"request head over {HEAD_LIMIT} bytes"
        return None

    def parse_request(self) -> bool:
        """The standard library's reading, but a request line without a version (HTTP/0.9)
        is refused: the answer it would get is a body with no status line."""
        if not super().parse_request():
            return False
        if self.request_version == "HTTP/0.9":
            self.send_error(400, "a request line needs an HTTP version (HTTP/0.9 is not served)")
            return False
        return True

    def handle_expect_100(self) -> bool:
        """The front sent `100 Continue` already, as soon as the head was in."""
        return True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """What the standard library refuses (a request line or header it cannot parse, one too
        long, an unknown method) answered as any refusal is: JSON with a fixed status line, one
        log line. A request line never parsed has no version: the answer is HTTP/1.1."""
        self.close_connection = True
        if getattr(self, "request_version", "HTTP/0.9") in ("HTTP/0.9", ""):
            self.request_version = self.protocol_version
        reason = _shown(message or HTTPStatus(code).phrase)
        self.refused = reason  # logged with the request's line (log_request)
        self._json(code, {"error": reason})

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")

    # Methods no route takes: 405 naming those the path takes (or 404), not the standard
    # library's 501, which says the server does not know the method.
    def do_HEAD(self) -> None:
        self._route("HEAD")

    def do_OPTIONS(self) -> None:
        self._route("OPTIONS")

    def do_PUT(self) -> None:
        self._route("PUT")

    def do_PATCH(self) -> None:
        self._route("PATCH")

    def do_DELETE(self) -> None:
        self._route("DELETE")

    def do_TRACE(self) -> None:
        self._route("TRACE")

    def _route(self, method: str) -> None:
        self.close_connection = True
        path, _, query = self.path.partition("?")
        name = ROUTES.get((method, path))
        try:
            # Whatever the route: a head that frames a body two ways is refused (smuggling).
            data = self.request.data
            check_head(data, head_end(data) or len(data))
            body_length(self.headers, self.server.config.max_body_bytes)
            self._refuse_foreign_host()
            self._authorize(method, name)  # first: without the token, no route is told of
            if name is None:
                known = any(p == path for _, p in ROUTES)
                raise Refused(405 if known else 404, "no such method" if known else "not found")
            getattr(self, f"_{name}")(parse_qs(query, keep_blank_values=True))
        except BadFraming as bad:
            self.refused = _shown(str(bad))
            self._json(bad.status, {"error": str(bad), "header": bad.header})
        except Refused as refused:
            headers = _refusal_headers(refused.status, path) or refused.headers
            self._json(refused.status, {"error": refused.error, **refused.detail}, headers)
        except BadField as bad:
            self._json(400, {"error": str(bad), "field": bad.field, "reason": bad.reason})
        except Unavailable as exc:
            self._json(503, {"error": str(exc)}, {"Retry-After": "1"})
        except OSError:
            raise  # the connection: handled in `handle`
        except Exception as exc:  # a fault of ours: said to the caller, if it can still be
            log.exception("http: %s %s failed", method, path)
            if not self.answered:
                self._json(500, {"error": f"internal error: {type(exc).__name__}; see the log"})

    def _body(self) -> bytes:
        """The request body (all of it has arrived: front.py); Refused when there is none."""
        length = body_length(self.headers, self.server.config.max_body_bytes)
        if length is None:
            raise Refused(411, "Content-Length: needed for a body", header="Content-Length")
        body = self.rfile.read(length)
        if len(body) < length:
            raise Refused(400, "body ended before its Content-Length")
        return body

    # -- the routes -------------------------------------------------------------------------
    def _say(self, query: dict[str, list[str]]) -> None:
        self._speak(self._body(), self._wait(query), self.server.backend.say)

    def _speak(self, body: bytes, wait: float, say: Callable[..., Accepted]) -> None:
        """A say request through `say` (the backend's, or the page's test announcement):
        202 once journaled, 200 with the outcome when `wait` saw it decided."""
        self.server.metrics.received("http")
        written = threading.Event()
        board = self.server.board
        accepted = say(body, written.set, board.watch if wait else None)
        answer: dict[str, Any] = {
            "seq": accepted.seq,
            "id": accepted.id,
            "topic": accepted.topic,
            "priority": accepted.priority,
        }
        if not written.wait(self.server.config.timeout_s):
            # Taken (it will be spoken and reported), but not known to be on disk: a crash
            # could lose it, so the caller is not told 202. The same id again is a duplicate.
            board.wait(accepted.seq, 0)
            raise Refused(503, "accepted, but the journal has not written it yet", **answer)
        if wait:
            report = board.wait(accepted.seq, wait)
            if report is not None:
                self._json(200, report)
                return
        self._json(202, {**answer, "outcome": None})

    def _wait(self, query: dict[str, list[str]]) -> float:
        values = query.get("wait", [])
        if not values:
            return 0.0
        limit = self.server.config.max_wait_s
        try:
            wait = float(values[-1])
        except ValueError:
            wait = -1.0
        if not math.isfinite(wait) or not 0 <= wait <= limit:
            raise BadField("wait", f"expected seconds 0-{limit:g} (http.max_wait_s)")
        return wait

    def _status(self, query: dict[str, list[str]]) -> None:
        self._json(200, self.server.backend.status())

    def _voices(self, query: dict[str, list[str]]) -> None:
        self._json(200, self.server.backend.voices())

    def _healthz(self, query: dict[str, list[str]]) -> None:
        problems = self.server.backend.problems()
        self._json(503 if problems else 200, {"healthy": not problems, "problems": problems})

    def _metrics(self, query: dict[str, list[str]]) -> None:
        text = self.server.metrics.text()
        self._start(200, CONTENT_TYPE, len(text))
        self._write(text)

    # -- answering --------------------------------------------------------------------------
    def _json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        # `replace`: a lone surrogate quoted back from a request must not turn an answer into
        # a failure of its own.
        body = json.dumps(data, ensure_ascii=False).encode(errors="replace") + b"\n"
        self._start(status, "application/json", len(body), headers)
        self._write(body)

    def _start(
        self,
        status: int,
        content_type: str,
        length: int | None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.answered = True
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length is None:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(length))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Connection", "close")
        self.end_headers()

    def _write_chunk(self, data: bytes) -> None:
        if data:
            self._write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    def _write(self, data: bytes) -> None:
        if getattr(self, "command", None) == "HEAD":  # the head alone (RFC 9110, 9.3.2)
            return
        self.wfile.write(data)
        self.sent_bytes += len(data)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """One line per request: who, what, the answer, how long; never a header."""
        status = code.value if isinstance(code, HTTPStatus) else code
        took_ms = (time.monotonic() - self.started) * 1000
        # Neither is there when the request line could not be parsed.
        method = _shown(getattr(self, "command", None) or "-")
        path = _shown((getattr(self, "path", None) or "-").partition("?")[0])
        if self.request.ended:  # half-sent, then closed: a flood of them is one line a minute
            self.server.tally.log(
                "requests the client closed before sending them whole",
                logging.INFO,
                "http: %s %s %s %s: the client closed before sending it whole",
                self.client_address[0],
                method,
                path,
                status,
            )
            return
        if self.refused is not None:  # a head it cannot read: a flood is a line a kind a minute
            self.server.tally.log(
                f"requests refused {status} ({_kind_of(self.refused)})",
                logging.WARNING,
                "http: %s %s %s refused %s: %s",
                self.client_address[0],
                method,
                path,
                status,
                self.refused,
            )
            return
        log.info("http: %s %s %s %s %.0f ms", self.client_address[0], method, path, status, took_ms)

    def log_error(self, format: str, *args: Any) -> None:
        log.warning("http: %s %s", self.client_address[0], format % args)


def _shown(text: str) -> str:
    """Request text as a log line shows it: escaped beyond printable ASCII (a control
    character cannot forge a line), at most 200 characters."""
    return ascii(text[:200])[1:-1]


def _kind_of(reason: str) -> str:
    """What a refusal's reason says without what the request held (its quoted line): the
    kind its log lines are counted by."""
    return reason.split("(")[0].split(":")[0].strip()[:60]


def _refusal_headers(status: int, path: str) -> dict[str, str] | None:
    """What a refusal says beside its body: how to authorize (401), and the methods the path
    takes (405; RFC 9110, section 15.5.6, requires `Allow`)."""
    if status == 401:
        return {"WWW-Authenticate": "Bearer"}
    if status == 405:
        return {"Allow": ", ".join(sorted(m for m, p in ROUTES if p == path))}
    return None
