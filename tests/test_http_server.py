"""The HTTP server in this process, over a stand-in for the daemon: what it answers to requests
it cannot parse, text it cannot write and more clients than it serves."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from support import free_port

from cosyedge.config import HttpConfig, parse_config
from cosyedge.http.metrics import Gauges, Metrics
from cosyedge.http.outcomes import OutcomeBoard
from cosyedge.http.server import Accepted, ApiServer
from cosyedge.intake.intake import Intake
from cosyedge.speech.stream import Turns

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
    metrics = Metrics(lambda: Gauges(0, None, None, None, None, 0.0, 0.0, True, True, 0))
    server = ApiServer(config, backend, OutcomeBoard(), metrics, Turns(backend.busy))
    server.start()
    yield server, backend
    backend.hold.set()
    server.stop()


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
        head = f"POST /v1/say HTTP/1.1\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        status = exchange(server, head + body).split(b"\r\n")[0]
        assert status in (b"HTTP/1.1 202 Accepted", b"HTTP/1.1 400 Bad Request"), status
