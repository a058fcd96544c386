"""The HTTP server in this process, over a stand-in for the daemon: what it answers to requests
it cannot parse, text it cannot write and more clients than it serves."""

from __future__ import annotations

import contextlib
import json
import logging
import re
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest
from support import free_port, wait_until

from cosyedge.alarms.snapshot import Snapshot
from cosyedge.config import HttpConfig, parse_config
from cosyedge.http.metrics import Metrics
from cosyedge.http.outcomes import OutcomeBoard
from cosyedge.http.server import Accepted, ApiServer, Handler
from cosyedge.intake.intake import Intake
from cosyedge.speech.render import Rendering
from cosyedge.speech.stream import Turns

JSON = "Content-Type: application/json\r\n"
TEMPLATES = 'templates:\n  - topic: "plant/{line}/level"\n    text: "Level {value}."\n'


class Backend:
    """The daemon's say as far as the request is read; `hold` keeps each request busy."""

    def __init__(self) -> None:
        self.intake = Intake(parse_config(TEMPLATES))
        self.hold = threading.Event()
        self.hold.set()

    def say(self, body: bytes, written: Any, watch: Any) -> Accepted:
        self.hold.wait(30)
        message = self.intake.local_message(body)
        written()
        return Accepted(1, None, message.topic)

    def busy(self) -> bool:
        return False

    def status(self) -> dict[str, Any]:
        self.hold.wait(30)
        return {}

    def problems(self) -> list[str]:
        return []

    def voices(self) -> dict[str, dict[str, Any]]:
        return {}


@pytest.fixture
def api() -> Iterator[tuple[ApiServer, Backend]]:
    backend = Backend()
    config = HttpConfig(enabled=True, listen=f"127.0.0.1:{free_port()}", timeout_s=2)
    metrics = Metrics(lambda: Snapshot(0, None, None, None, None, 0.0, 0.0, True, True, 0))
    server = ApiServer(config, backend, OutcomeBoard(), metrics, Turns(backend.busy))
    server.start()
    yield server, backend
    backend.hold.set()
    server.stop()


class Phrases(Backend):
    """Renders every text as two clauses, from the cache or synthesized as `source` says."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def rendering(self, text: str, lang: str | None) -> Rendering:
        clauses = iter([np.zeros(800, np.int16), np.ones(800, np.int16)])
        return Rendering(16000, self.source, clauses)


@pytest.mark.parametrize("source", ["cache", "synth"])
def test_the_turn_is_free_before_the_answer_ends(source, monkeypatch):
    """A caller who asks again as soon as it has read an answer is not told the synthesizer is
    busy: the turn went back before the answer's last bytes, not after (on a busy machine the
    next request came in between)."""
    backend = Phrases(source)
    config = HttpConfig(enabled=True, listen=f"127.0.0.1:{free_port()}", timeout_s=5)
    metrics = Metrics(lambda: Snapshot(0, None, None, None, None, 0.0, 0.0, True, True, 0))
    turns = Turns(backend.busy)
    server = ApiServer(config, backend, OutcomeBoard(), metrics, turns)
    free_at_write: list[bool] = []
    write = Handler._write

    def watched(self: Handler, data: bytes) -> None:
        if free := turns.take():
            turns.release()
        free_at_write.append(free)
        write(self, data)

    monkeypatch.setattr(Handler, "_write", watched)
    server.start()
    try:
        body = json.dumps({"text": "Valve four is open."}).encode()
        head = f"POST /v1/synthesize HTTP/1.1\r\n{JSON}Content-Length: {len(body)}\r\n\r\n"
        answer = exchange(server, head.encode() + body)
    finally:
        server.stop()
    assert answer.startswith(b"HTTP/1.1 200 OK"), answer[:200]
    assert free_at_write[-1], free_at_write
    assert source == "cache" or not free_at_write[0]  # held while the clauses came


def exchange(server: ApiServer, data: bytes, timeout: float = 10) -> bytes:
    """What the server answers to `data`, up to its close."""
    with socket.create_connection(server.server_address[:2], timeout=timeout) as s:
        s.sendall(data)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
        return out


def test_a_lone_surrogate_in_a_say_request_is_never_a_500(api):
    server, _ = api
    for text in (b"Pump\\ud800 stopped.", b"\\udfff"):
        body = b'{"text": "' + text + b'"}'
        head = f"POST /v1/say HTTP/1.1\r\n{JSON}Content-Length: {len(body)}\r\n\r\n".encode()
        status = exchange(server, head + body).split(b"\r\n")[0]
        assert status in (b"HTTP/1.1 202 Accepted", b"HTTP/1.1 400 Bad Request"), status


TLS_HELLO = bytes.fromhex("160301009a01000096030300") + bytes(range(32)) + b"\x00\x02\x13\x01"


@pytest.mark.parametrize(
    "data",
    [
        TLS_HELLO,  # no line end: it would wait for one until timeout_s
        TLS_HELLO + b"\r\n" + TLS_HELLO,
        b"\x00\xff\xfe\x01\r\n\r\n",
        b"GET\r\n\r\n",
        b"GET / HTTP/1.1 extra\r\n\r\n",
        b"GET /\x00\x1b[31m HTTP/1.1 x\r\n\r\n",
        b"\xff" * 70000 + b"\r\n",
    ],
    ids=["tls", "tls-and-line-end", "binary", "no-path", "extra-word", "controls", "long"],
)
def test_a_request_line_that_cannot_be_parsed_is_400_and_no_traceback(api, data, caplog, capsys):
    server, _ = api
    started = time.monotonic()
    with caplog.at_level(logging.INFO, "cosyedge.http.server"):
        answer = exchange(server, data)
    assert answer.startswith(b"HTTP/1.1 400 Bad Request\r\n"), answer[:80]
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["error"]
    assert time.monotonic() - started < 1.5  # answered, not cut off at timeout_s
    assert "Traceback" not in capsys.readouterr().err
    assert all(r.levelno < logging.ERROR for r in caplog.records)
    assert all(r.getMessage().isprintable() for r in caplog.records)


def call_busy(server: ApiServer, go: threading.Barrier) -> str:
    """One say request, its body sent apart from its head; the status line, or the error."""
    body = b'{"text": "Pump one stopped."}'
    head = b"POST /v1/say HTTP/1.1\r\n%sContent-Length: %d\r\n\r\n" % (JSON.encode(), len(body))
    go.wait()
    try:
        with socket.create_connection(server.server_address[:2], timeout=20) as s:
            s.sendall(head)
            time.sleep(0.01)
            s.sendall(body)
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
    except OSError as exc:
        return type(exc).__name__
    return answer.partition(b"\r\n")[0].decode()


def test_clients_over_the_limit_get_503_not_resets(api):
    server, backend = api
    backend.hold.clear()  # the first max_clients requests stay busy
    clients = 150
    go = threading.Barrier(clients)
    started = time.monotonic()
    with ThreadPoolExecutor(clients) as pool:
        answers = [pool.submit(call_busy, server, go) for _ in range(clients)]
        time.sleep(3)
        backend.hold.set()
        counts = Counter(a.result(timeout=30) for a in answers)
    limit = server.config.max_clients
    assert counts == {
        "HTTP/1.1 503 Service Unavailable": clients - limit,
        "HTTP/1.1 202 Accepted": limit,
    }, counts
    assert time.monotonic() - started < 20


def serve(**config: Any) -> tuple[ApiServer, Backend]:
    backend = Backend()
    http = HttpConfig(enabled=True, listen=f"127.0.0.1:{free_port()}", **config)
    metrics = Metrics(lambda: Snapshot(0, None, None, None, None, 0.0, 0.0, True, True, 0))
    server = ApiServer(http, backend, OutcomeBoard(), metrics, Turns(backend.busy))
    server.start()
    return server, backend


SAY_BODY = b'{"text": "Pump one stopped."}'
SAY = b"POST /v1/say HTTP/1.1\r\n%sContent-Length: %d\r\n\r\n%s" % (
    JSON.encode(),
    len(SAY_BODY),
    SAY_BODY,
)
HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"


def test_idle_and_slow_clients_hold_no_thread_a_whole_request_is_answered_at_once():
    """Four hundred connections that send nothing, their headers a byte at a time, or their
    body a byte at a time (slowloris) hold no thread meanwhile: a say request and /healthz
    sent whole get their real answers, within a bound far above any answer's time."""
    server, _ = serve(timeout_s=60)
    address = server.server_address[:2]
    idle = [socket.create_connection(address) for _ in range(150)]
    slow_heads = [socket.create_connection(address) for _ in range(150)]
    slow_bodies = [socket.create_connection(address) for _ in range(100)]
    for s in slow_heads:
        s.sendall(b"POST /v1/say HTTP/1.1\r\nX-Pad: ")
    for s in slow_bodies:
        s.sendall(b'POST /v1/say HTTP/1.1\r\nContent-Length: 10000\r\n\r\n{"text": "')
    stop = threading.Event()

    def trickle() -> None:  # a byte more from each slow client, every 0.2 s
        while not stop.wait(0.2):
            for s in slow_heads + slow_bodies:
                with contextlib.suppress(OSError):
                    s.send(b"a")

    trickler = threading.Thread(target=trickle)
    trickler.start()
    try:
        for _ in range(3):
            for request, status in ((SAY, b"202 Accepted"), (HEALTHZ, b"200 OK")):
                started = time.monotonic()
                answer = exchange(server, request, timeout=5)
                assert answer.startswith(b"HTTP/1.1 " + status), answer[:100]
                assert time.monotonic() - started < 5
    finally:
        stop.set()
        trickler.join()
        for s in idle + slow_heads + slow_bodies:
            s.close()
        server.stop()


def test_over_max_connections_the_oldest_incomplete_is_closed_to_make_room():
    server, _ = serve(timeout_s=60, max_connections=16)
    address = server.server_address[:2]
    held = [socket.create_connection(address, timeout=5) for _ in range(40)]
    try:
        assert exchange(server, SAY, timeout=5).startswith(b"HTTP/1.1 202 ")
        for s in held[:25]:  # 24 made room for the later ones, 1 for the say request
            with contextlib.suppress(ConnectionResetError):
                assert s.recv(100) == b""
        for s in held[25:]:
            s.setblocking(False)
            with pytest.raises(BlockingIOError):  # still open, still waiting for its request
                s.recv(100)
    finally:
        for s in held:
            s.close()
        server.stop()


@pytest.mark.parametrize(
    "method,head,status,header",
    [
        ("POST", "Content-Length: -5", 400, "Content-Length"),
        ("POST", "Content-Length: 5\r\nContent-Length: 5", 400, "Content-Length"),
        ("POST", "Content-Length: 5\r\nContent-Length: 7", 400, "Content-Length"),
        ("POST", "Content-Length: 5, 5", 400, "Content-Length"),
        ("POST", "Content-Length: abc", 400, "Content-Length"),
        ("POST", "Content-Length: +5", 400, "Content-Length"),
        ("POST", "Content-Length: 0x10", 400, "Content-Length"),
        ("POST", "Content-Length: 1_0", 400, "Content-Length"),
        ("POST", "Content-Length: 5.0", 400, "Content-Length"),
        ("POST", "Content-Length: 5\r\n 7", 400, "head"),  # folded onto two lines
        ("POST", "Content-Length: 99999999999999999999", 413, "Content-Length"),
        ("POST", "Content-Length: " + "9" * 5000, 413, "Content-Length"),
        ("POST", "Content-Length: 20000", 413, "Content-Length"),
        ("POST", "", 411, "Content-Length"),
        ("POST", "Transfer-Encoding: chunked", 411, "Transfer-Encoding"),
        ("POST", "Transfer-Encoding: gzip", 411, "Transfer-Encoding"),
        ("POST", "Transfer-Encoding: chunked\r\nContent-Length: 5", 400, "Transfer-Encoding"),
        ("POST", "Content-Length: 5\r\nTransfer-Encoding: identity", 400, "Transfer-Encoding"),
        ("POST", "Content-Length : 5", 400, "head"),  # hides itself and every line after it
        ("GET", "Content-Length: 5\r\nContent-Length: 6", 400, "Content-Length"),
    ],
)
def test_a_body_framed_ambiguously_is_refused_at_once_naming_the_header(
    api, method, head, status, header
):
    """What could be read two ways (request smuggling) or not at all is refused from the
    head alone: nothing waits for a body that may never come."""
    server, _ = api
    path = "/v1/say" if method == "POST" else "/healthz"
    extra = (f"{head}\r\n" if head else "") + (JSON if method == "POST" else "")
    started = time.monotonic()
    answer = exchange(
        server, f"{method} {path} HTTP/1.1\r\nHost: localhost\r\n{extra}\r\n".encode()
    )
    assert answer.startswith(f"HTTP/1.1 {status} ".encode()), answer[:200]
    error = json.loads(answer.partition(b"\r\n\r\n")[2])
    assert error["header"] == header and error["error"], error
    assert time.monotonic() - started < 1.5  # answered, not cut off at timeout_s


@pytest.mark.parametrize(
    "lines,named",
    [
        (b"X-Trace: 1\r\n Transfer-Encoding: chunked", b" Transfer-Encoding: chunked"),
        (b"X-Trace: 1\r\n\tTransfer-Encoding: chunked", b"\\tTransfer-Encoding: chunked"),
        (b"X-Trace: 1\r\n \r\n", b"' '"),  # a fold of nothing
        (b"X-Trace: 1\rTransfer-Encoding: chunked", b"X-Trace: 1\\rTransfer-Encoding"),
        (b"X-Trace: a\x00b", b"X-Trace: a\\x00b"),
        (b"X-Trace: a\x01b", b"X-Trace: a\\x01b"),
        (b"X-Trace: a\x1bb", b"X-Trace: a\\x1bb"),
        (b"X-Trace: a\x7fb", b"X-Trace: a\\x7fb"),
        (b"X Trace: 1", b"X Trace: 1"),
        (b"X(Trace): 1", b"X(Trace): 1"),
        (b"X-Trace\x00: 1", b"X-Trace\\x00: 1"),
        (b": 1", b"': 1'"),
        (b"X-Trace", b"'X-Trace'"),
    ],
    ids=[
        "fold-space",
        "fold-tab",
        "fold-empty",
        "cr-alone",
        "nul",
        "soh",
        "esc",
        "del",
        "name-space",
        "name-parens",
        "name-nul",
        "no-name",
        "no-colon",
    ],
)
@pytest.mark.parametrize("method", ["POST", "GET"])
def test_a_header_line_that_is_not_name_colon_value_is_400_naming_it(api, lines, named, method):
    """Obsolete line folding (RFC 9112, 5.2), a CR alone, a control character in a value
    (HTAB aside) or a name that is not a token: each could hide or join lines a proxy reads
    otherwise, so the head is refused whatever else it holds, a valid body included."""
    server, _ = api
    path = b"/v1/say" if method == "POST" else b"/healthz"
    head = b"%s %s HTTP/1.1\r\nHost: localhost\r\n%sContent-Length: %d\r\n" % (
        method.encode(),
        path,
        JSON.encode(),
        len(SAY_BODY),
    )
    answer = exchange(server, head + lines + b"\r\n\r\n" + SAY_BODY)
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:200]
    error = json.loads(answer.partition(b"\r\n\r\n")[2])
    assert error["header"] == "head" and named.decode() in error["error"], error


def test_a_header_value_with_a_tab_or_text_beyond_ascii_is_taken(api):
    server, _ = api
    head = b"POST /v1/say HTTP/1.1\r\n%sContent-Length: %d\r\n" % (JSON.encode(), len(SAY_BODY))
    extra = b"X-Trace:\ta\tb \xe9\r\nX-Empty:\r\n\r\n"
    answer = exchange(server, head + extra + SAY_BODY)
    assert answer.startswith(b"HTTP/1.1 202 "), answer[:200]


@pytest.mark.parametrize("data", [b"GET /healthz\r\n\r\n", b"GET /healthz\n\n"])
def test_a_request_without_a_version_gets_a_status_line(api, data):
    """HTTP/0.9's answer is the body alone: refused, with a status line a client can read."""
    server, _ = api
    answer = exchange(server, data)
    assert answer.startswith(b"HTTP/1.1 400 Bad Request\r\n"), answer[:200]
    assert "version" in json.loads(answer.partition(b"\r\n\r\n")[2])["error"]


def test_a_client_that_waits_for_100_continue_gets_it_then_its_answer(api):
    server, _ = api
    with socket.create_connection(server.server_address[:2], timeout=5) as s:
        s.sendall(SAY.partition(b"\r\n\r\n")[0] + b"\r\nExpect: 100-continue\r\n\r\n")
        assert s.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        s.sendall(SAY_BODY)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 202 Accepted\r\n"), answer[:100]


HALF_SENT = [
    SAY.partition(b"\r\n\r\n")[0] + b"\r\n\r\n" + SAY_BODY[:4],  # the body cut short
    b"GET /heal",  # the request line cut short
    b"GET /healthz HTTP/1.1\r\nHost",  # the head cut short
]


def test_a_flood_of_half_sent_connections_logs_a_few_lines_with_their_count(caplog):
    """600 connections that send half a request and go (or are cut off at timeout_s) made
    850 log lines: now each kind is one line, then one a period saying how many more."""
    backend = Backend()
    config = HttpConfig(enabled=True, listen=f"127.0.0.1:{free_port()}", timeout_s=1)
    metrics = Metrics(lambda: Snapshot(0, None, None, None, None, 0.0, 0.0, True, True, 0))
    server = ApiServer(config, backend, OutcomeBoard(), metrics, Turns(backend.busy), 2.0)
    server.start()
    flood, held = 300, []
    try:
        with caplog.at_level(logging.INFO, "cosyedge.http"):
            started = time.monotonic()
            for n in range(flood):
                s = socket.create_connection(server.server_address[:2], timeout=10)
                s.sendall(HALF_SENT[n % len(HALF_SENT)])
                if n % 10 == 0:
                    held.append(s)  # left open: cut off at timeout_s
                else:
                    s.close()

            def counted() -> int:  # each line stands for itself, or for the count it names
                lines = [r.getMessage() for r in caplog.records if r.name != "cosyedge.http.server"]
                return sum(int(m.group(1)) if (m := MORE.match(t)) else 1 for t in lines)

            wait_until(lambda: counted() >= flood, 30, "every connection told")
            took = time.monotonic() - started
            assert exchange(server, HEALTHZ).startswith(b"HTTP/1.1 200 OK\r\n")
        lines = [
            r.getMessage()
            for r in caplog.records
            if r.name != "cosyedge.http.server"
            and ("127.0.0.1" in r.getMessage() or MORE.match(r.getMessage()))
        ]
        kinds = 4  # ended early, closed before whole, dropped at timeout_s, and the healthz line
        assert len(lines) <= kinds * (2 + took / 2.0), lines
        assert any(MORE.match(t) for t in lines), lines
    finally:
        for s in held:
            s.close()
        server.stop()


MORE = re.compile(r"http: (\d+) more .* in the last 2 s, not logged one by one")
