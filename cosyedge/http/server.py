"""The HTTP server: one thread per request, at most `max_clients` at once, one request per
connection.

The standard library's ThreadingHTTPServer fits a daemon that is threads already (paho's
network thread, the announcer, the journal writer): a request blocks its own thread only,
waiting for the journal or for an outcome as the MQTT side does, and nothing new is loaded.
Its weak points are closed here: a connection over the limit is answered 503 at once instead
of queueing, and every connection is closed only once the client has stopped sending (or
after LINGER_S), so no answer is lost to a reset; a request line it cannot parse (TLS,
binary) is a 400 in JSON; a client that has not sent all of its headers and body within
`timeout_s` is cut off (a timer shuts the socket, so a client sending a byte at a time cannot
hold a thread); bodies are read only up to `max_body_bytes` (413 beyond); and every request
is logged in one line, without its headers, so a token never reaches the log.
"""

from __future__ import annotations

import contextlib
import hmac
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
from cosyedge.config.http import HttpConfig
from cosyedge.http.audio import wav_header
from cosyedge.http.metrics import CONTENT_TYPE, Metrics
from cosyedge.http.outcomes import OutcomeBoard
from cosyedge.intake import local
from cosyedge.intake.door import Accepted, Unavailable
from cosyedge.intake.local import BadField, Speak
from cosyedge.speech.render import Rendering
from cosyedge.speech.stream import Interrupted, Pump, Turns, pcm_bytes

log = logging.getLogger(__name__)

LINGER_S = 1.0  # after an answer, what the client still sends is read this long at most
REFUSERS = 32  # connections over max_clients answered 503 at once; more wait to be accepted
BACKLOG = 1024  # connections the kernel holds until accepted, rather than drop or reset


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

    def rendering(self, text: str, lang: str | None) -> Rendering: ...
    def busy(self) -> bool: ...  # an alert is being said or waits: synthesis gives way
    def status(self) -> dict[str, Any]: ...
    def problems(self) -> list[str]: ...  # why the daemon is not healthy; empty when it is
    def voices(self) -> dict[str, dict[str, Any]]: ...


def read_token(path: Path | None) -> bytes | None:
    return path.read_text(encoding="utf-8").strip().encode() if path is not None else None


class ApiServer(ThreadingHTTPServer, Component):
    daemon_threads = True  # a stop does not wait for a caller still reading
    block_on_close = False
    request_queue_size = BACKLOG  # a burst beyond it would see resets, not its 503s

    def __init__(
        self,
        config: HttpConfig,
        backend: Backend,
        board: OutcomeBoard,
        metrics: Metrics,
        turns: Turns,
    ) -> None:
        """`turns`: synthesis shared with the daemon's other callers (Wyoming)."""
        self.config, self.backend, self.board, self.metrics = config, backend, board, metrics
        self.turns = turns
        for warning in config.exposed_secrets():
            log.warning("%s", warning)
        self.token = read_token(config.token_file)
        if self.token is not None and not self.token:
            raise RuntimeError(f"http.token_file: {config.token_file} is empty")
        self.slots = threading.BoundedSemaphore(config.max_clients)
        self.refusers = threading.BoundedSemaphore(REFUSERS)
        host, port = config.address
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        super().__init__((host, port), Handler)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self.serve_forever, name="http", daemon=True)
        self._thread.start()
        host, port = self.server_address[:2]
        log.info("HTTP API on %s port %d%s", host, port, " (token needed)" if self.token else "")

    def stop(self) -> None:
        if self._thread is not None:
            self.shutdown()
        self.server_close()

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            self._refuse(request, client_address)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A fault of ours outside a route: one log record, not a traceback on stderr."""
        log.exception("http: %s: request failed", client_address[0])

    def _refuse(self, request: socket.socket, client_address: Any) -> None:
        """Answer 503 on a thread of its own, at most REFUSERS at once; beyond them accepting
        waits, and new connections wait in the kernel's queue for their 503."""
        log.warning(
            "http: %s refused: %d requests already being served",
            client_address[0],
            self.config.max_clients,
        )
        self.refusers.acquire()
        try:
            threading.Thread(target=self._refuse_thread, args=(request,), daemon=True).start()
        except BaseException:
            self.refusers.release()
            self.shutdown_request(request)
            raise

    def _refuse_thread(self, request: socket.socket) -> None:
        try:
            _refuse_busy(request)
        finally:
            self.shutdown_request(request)
            self.refusers.release()


def _refuse_busy(request: socket.socket) -> None:
    """503 without serving the request, then the close that lets the client read it."""
    body = b'{"error": "busy: too many requests at once; try again"}'
    head = (
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
        f"Retry-After: 1\r\nConnection: close\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    with contextlib.suppress(OSError):  # the client went away: nothing left to answer
        request.settimeout(LINGER_S)
        request.sendall(head.encode() + body)
    _close_gently(request)


def _close_gently(request: socket.socket) -> None:
    """Shut our side, then read and drop what the client still sends until it closes, for at
    most LINGER_S: closing with its request unread would reset the connection, and a reset
    can destroy the answer before the client has read it."""
    deadline = time.monotonic() + LINGER_S
    with contextlib.suppress(OSError):  # a timeout included: the client is left to the close
        request.shutdown(socket.SHUT_WR)
        while (left := deadline - time.monotonic()) > 0:
            request.settimeout(left)
            if not request.recv(65536):
                return


ROUTES = {
    ("POST", "/v1/say"): "say",
    ("POST", "/v1/synthesize"): "synthesize",
    ("POST", "/v1/audio/speech"): "speech",
    ("GET", "/v1/status"): "status",
    ("GET", "/v1/voices"): "voices",
    ("GET", "/healthz"): "healthz",
    ("GET", "/metrics"): "metrics",
}


class Refused(Exception):
    """Answer the request with `status` and a JSON error body."""

    def __init__(self, status: int, error: str, **detail: Any) -> None:
        super().__init__(error)
        self.status, self.error, self.detail = status, error, detail


class Handler(BaseHTTPRequestHandler):
    server: ApiServer
    protocol_version = "HTTP/1.1"  # for chunked answers; one request per connection all the same
    server_version = "cosyedge"

    def version_string(self) -> str:
        """The `Server` header: the product alone (the standard library's adds a space and
        Python's version)."""
        return self.server_version

    def setup(self) -> None:
        super().setup()
        self.started = time.monotonic()
        self.connection.settimeout(self.server.config.timeout_s)
        self._cut = threading.Timer(self.server.config.timeout_s, self._drop)
        self._cut.daemon = True
        self._cut.start()
        self.sent_bytes = 0
        self.answered = False  # the status line is sent: no other answer can follow

    def finish(self) -> None:
        self._cut.cancel()
        with contextlib.suppress(OSError):
            super().finish()
        _close_gently(self.connection)  # a 413 or 400 is read even with the body unread

    def _drop(self) -> None:
        """The request was not all read in time: shut the socket, which ends the blocked read."""
        log.warning(
            "http: %s dropped: request not received within %g s",
            self.client_address[0],
            self.server.config.timeout_s,
        )
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def handle(self) -> None:
        try:
            if self._speaks_http():
                super().handle()
            else:
                self.send_error(400, "not an HTTP request (this port speaks plain HTTP, not TLS)")
        except OSError as exc:  # the caller went away, or was cut off: nothing left to answer
            log.info("http: %s: connection ended early (%s)", self.client_address[0], exc)

    def _speaks_http(self) -> bool:
        """Whether the first byte could begin a request line (a method's letter), or none came.
        A TLS ClientHello or other binary is answered at once rather than read up to a line
        end that may never come."""
        first = self.connection.recv(1, socket.MSG_PEEK)
        return not first or first.isalpha()

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """What the standard library refuses (a request line or header it cannot parse, one too
        long, an unknown method) answered as any refusal is: JSON with a fixed status line, one
        log line. A request line never parsed has no version: the answer is HTTP/1.1."""
        self.close_connection = True
        if getattr(self, "request_version", "HTTP/0.9") in ("HTTP/0.9", ""):
            self.request_version = self.protocol_version
        reason = _shown(message or HTTPStatus(code).phrase)
        log.warning("http: %s refused %d: %s", self.client_address[0], code, reason)
        self._json(code, {"error": reason})

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")

    def _route(self, method: str) -> None:
        self.close_connection = True
        path, _, query = self.path.partition("?")
        name = ROUTES.get((method, path))
        try:
            if name is None:
                known = any(p == path for _, p in ROUTES)
                raise Refused(405 if known else 404, "no such method" if known else "not found")
            self._authorize()
            getattr(self, f"_{name}")(parse_qs(query, keep_blank_values=True))
        except Refused as refused:
            headers = _refusal_headers(refused.status, path)
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

    def _authorize(self) -> None:
        token = self.server.token
        if token is None:
            return
        given = self.headers.get("Authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), token):
            raise Refused(401, "a valid bearer token is needed")

    def _body(self) -> bytes:
        """The request body, once all of it has arrived; Refused when it cannot be taken."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raise Refused(411, "send the body with a Content-Length")
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            raise Refused(411, "a Content-Length is needed") from None
        limit = self.server.config.max_body_bytes
        if length > limit or length < 0:
            raise Refused(413, f"body over {limit} bytes (http.max_body_bytes)")
        body = self.rfile.read(length)
        self._cut.cancel()  # all of the request is in
        if len(body) < length:
            raise Refused(400, "body ended before its Content-Length")
        return body

    # -- the routes -------------------------------------------------------------------------
    def _say(self, query: dict[str, list[str]]) -> None:
        wait = self._wait(query)
        body = self._body()
        self.server.metrics.received("http")
        written = threading.Event()
        board = self.server.board
        accepted = self.server.backend.say(body, written.set, board.watch if wait else None)
        answer: dict[str, Any] = {"seq": accepted.seq, "id": accepted.id, "topic": accepted.topic}
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

    def _synthesize(self, query: dict[str, list[str]]) -> None:
        voices = self.server.backend.voices()
        self._stream(local.synthesis_request(local.request_object(self._body()), voices))

    def _speech(self, query: dict[str, list[str]]) -> None:
        voices = self.server.backend.voices()
        self._stream(local.speech_request(local.request_object(self._body()), voices))

    def _stream(self, speak: Speak) -> None:
        backend, turns = self.server.backend, self.server.turns
        if not turns.take():  # one synthesis at a time: alerts wait behind it
            raise Unavailable("the synthesizer is busy (alerts come first); try again")
        held = True

        def give_back() -> None:
            """The turn goes back once the phrase is made, before the answer's last bytes are
            written: a caller who asks again as soon as it has them finds it free."""
            nonlocal held
            if held:
                held = False
                turns.release()

        try:
            rendering = backend.rendering(speak.text, speak.lang)
            if rendering.source == "cache":
                self._whole(rendering, speak, give_back)
            else:
                self._chunked(rendering, speak, Pump(rendering, backend.busy), give_back)
        finally:
            give_back()

    def _whole(self, rendering: Rendering, speak: Speak, made: Callable[[], None]) -> None:
        pcm = b"".join(pcm_bytes(c) for c in rendering.chunks)
        made()
        head = wav_header(rendering.sample_rate, len(pcm) // 2) if speak.format == "wav" else b""
        headers = _audio_headers(rendering, speak)
        self._start(200, _audio_type(speak.format), len(head) + len(pcm), headers)
        self._write(head + pcm)

    def _chunked(
        self, rendering: Rendering, speak: Speak, pump: Pump, made: Callable[[], None]
    ) -> None:
        self._start(200, _audio_type(speak.format), None, _audio_headers(rendering, speak))
        clauses = pump.clauses()
        try:
            if speak.format == "wav":
                self._write_chunk(wav_header(rendering.sample_rate, None))
            for pcm in clauses:
                self._write_chunk(pcm_bytes(pcm))
            made()
            self._write(b"0\r\n\r\n")
        except Interrupted as exc:  # no last chunk: the caller sees the answer unfinished
            log.warning("http: synthesis for %s cut short: %s", self.client_address[0], exc)
        finally:
            clauses.close()

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
        self._cut.cancel()
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
        self.wfile.write(data)
        self.sent_bytes += len(data)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """One line per request: who, what, the answer, how long; never a header."""
        status = code.value if isinstance(code, HTTPStatus) else code
        took_ms = (time.monotonic() - self.started) * 1000
        # Neither is there when the request line could not be parsed.
        method = _shown(getattr(self, "command", None) or "-")
        path = _shown((getattr(self, "path", None) or "-").partition("?")[0])
        log.info("http: %s %s %s %s %.0f ms", self.client_address[0], method, path, status, took_ms)

    def log_error(self, format: str, *args: Any) -> None:
        log.warning("http: %s %s", self.client_address[0], format % args)


def _shown(text: str) -> str:
    """Request text as a log line shows it: escaped beyond printable ASCII (a control
    character cannot forge a line), at most 200 characters."""
    return ascii(text[:200])[1:-1]


def _audio_type(form: str) -> str:
    return "audio/wav" if form == "wav" else "audio/pcm"


def _audio_headers(rendering: Rendering, speak: Speak) -> dict[str, str]:
    """The PCM's format for a `pcm` caller, whether it came from the cache, and what of the
    request was taken but not applied (`X-Ignored`)."""
    rate = str(rendering.sample_rate)
    headers = {"X-Sample-Rate": rate, "X-Sample-Format": "s16le", "X-Source": rendering.source}
    return {**headers, "X-Ignored": ", ".join(speak.ignored)} if speak.ignored else headers


def _refusal_headers(status: int, path: str) -> dict[str, str] | None:
    """What a refusal says beside its body: how to authorize (401), and the methods the path
    takes (405; RFC 9110, section 15.5.6, requires `Allow`)."""
    if status == 401:
        return {"WWW-Authenticate": "Bearer"}
    if status == 405:
        return {"Allow": ", ".join(sorted(m for m, p in ROUTES if p == path))}
    return None
