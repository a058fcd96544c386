"""The HTTP server in this process: heads the standard library's parser cannot read are
answered at once, logged a line per kind, and never slow the other connections."""

from __future__ import annotations

import json
import logging
import threading
import time

import pytest
from test_http_server import HEALTHZ, exchange, serve

from cosyedge.http.front import HEAD_LIMIT


def headers(count: int) -> bytes:
    return b"".join(b"X-%d: y\r\n" % i for i in range(count))


# Every way a head's parse fails: http.client's own limits (over 100 headers, a line over
# 65,536 bytes), a head over the limit that arrived whole, bytes no field line holds.
BAD_HEADS = {
    "101-headers": (b"GET /healthz HTTP/1.1\r\n" + headers(101) + b"\r\n", 431),
    "5000-headers": (b"GET /healthz HTTP/1.1\r\n" + headers(5000) + b"\r\n", 431),
    "101-headers-post": (
        b"POST /v1/say HTTP/1.1\r\nContent-Length: 2\r\n" + headers(101) + b"\r\n{}",
        431,
    ),
    "long-line": (b"GET /healthz HTTP/1.1\r\nX-A: " + b"a" * 70000 + b"\r\n\r\n", 431),
    "long-head": (b"GET /healthz HTTP/1.1\r\n" + b"X-A: aaaa\r\n" * 7000 + b"\r\n", 431),
    "binary-name": (b"GET /healthz HTTP/1.1\r\n\xff\xfe: 1\r\n\r\n", 400),
    "binary-line": (b"GET /healthz HTTP/1.1\r\n\x00\x01\x02\r\n\r\n", 400),
}


@pytest.mark.parametrize("name", list(BAD_HEADS))
def test_every_head_the_parser_refuses_is_answered_at_once_in_one_line(name, caplog, capsys):
    data, status = BAD_HEADS[name]
    server, _ = serve(timeout_s=5)
    caplog.clear()  # the server's own start line, taken when an earlier test left INFO on
    try:
        with caplog.at_level(logging.INFO, "cosyedge.http"):
            started = time.monotonic()
            answer = exchange(server, data)
            took = time.monotonic() - started
    finally:
        server.stop()
    assert answer.startswith(b"HTTP/1.1 %d " % status), answer[:100]
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["error"]
    assert took < 1.5, took  # answered, not left until timeout_s
    assert "Traceback" not in capsys.readouterr().err
    assert all(r.exc_info is None and r.levelno < logging.ERROR for r in caplog.records)
    lines = [r.getMessage() for r in caplog.records if "127.0.0.1" in r.getMessage()]
    assert len(lines) == 1 and f"refused {status}:" in lines[0], lines


def test_a_head_of_99_headers_is_still_taken():
    """http.client counts the empty line that ends the head among its 100."""
    server, _ = serve()
    try:
        data = b"GET /healthz HTTP/1.1\r\n" + headers(98) + b"Host: localhost\r\n\r\n"
        assert len(data) < HEAD_LIMIT
        assert exchange(server, data).startswith(b"HTTP/1.1 200 ")
    finally:
        server.stop()


def test_a_flood_of_bad_heads_neither_slows_others_nor_fills_the_log(caplog):
    """The report: 50 a second of over 100 headers each made a traceback a poll and stopped
    the whole API. Now each is answered at once and a kind is a line a period."""
    server, _ = serve(timeout_s=5)
    stop = threading.Event()
    answered: list[bytes] = []

    def flood() -> None:
        names = list(BAD_HEADS)
        n = 0
        while not stop.is_set():
            data = BAD_HEADS[names[n % len(names)]][0]
            n += 1
            try:
                answered.append(exchange(server, data, timeout=5)[:12])
            except OSError as exc:
                answered.append(str(exc).encode())

    threads = [threading.Thread(target=flood) for _ in range(2)]
    try:
        with caplog.at_level(logging.INFO, "cosyedge.http"):
            for t in threads:
                t.start()
            time.sleep(0.3)
            took = []
            for _ in range(10):
                started = time.monotonic()
                assert exchange(server, HEALTHZ, timeout=5).startswith(b"HTTP/1.1 200 ")
                took.append(time.monotonic() - started)
                time.sleep(0.05)
            stop.set()
            for t in threads:
                t.join()
    finally:
        stop.set()
        server.stop()
    assert max(took) < 0.5, took
    assert len(answered) > 20 and all(a.startswith(b"HTTP/1.1 4") for a in answered), answered
    refusals = [r.getMessage() for r in caplog.records if "/healthz 200" not in r.getMessage()]
    assert len(refusals) <= len(BAD_HEADS), refusals  # a line per kind at most
    assert not [r for r in caplog.records if r.exc_info is not None]
