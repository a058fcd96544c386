"""The operator page's sessions and sign-in, over the HTTP server in this process: a random
session per sign-in that ends (a shift, sign-out, a new token at reload, a restart), and
guessing the token throttled and logged."""

from __future__ import annotations

import json
import logging
import re
import socket
import time
from pathlib import Path

import pytest
from test_http_server import serve

from cosyedge.config import parse_config
from cosyedge.http.server import ApiServer

TOKEN = "0123456789abcdef-site-token"
PAGE = {"Host": "127.0.0.1", "X-Cosyedge-Page": "1"}


def send(
    server: ApiServer,
    method: str,
    path: str,
    headers: dict[str, str],
    body: bytes = b"",
    source: str = "127.0.0.1",
) -> tuple[int, str, str]:
    """(status, head, body) of one request from the address `source`."""
    lines = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    if method == "POST":
        lines += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    data = f"{method} {path} HTTP/1.1\r\n{lines}\r\n".encode() + body
    with socket.create_connection(server.server_address[:2], 10, (source, 0)) as s:
        s.sendall(data)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    head, _, payload = answer.decode().partition("\r\n\r\n")
    return int(head.split(" ", 2)[1]), head, payload


def sign_in(server: ApiServer, token: str = TOKEN, source: str = "127.0.0.1") -> tuple[int, str]:
    """(status, the session cookie's `name=value`, or the head)."""
    body = json.dumps({"token": token}).encode()
    status, head, _ = send(server, "POST", "/v1/page/session", PAGE, body, source)
    cookie = re.search(r"Set-Cookie: (cosyedge_session=[^;]*)(;.*)", head)
    return status, (cookie.group(1) if cookie and status == 200 else head)


def with_cookie(server: ApiServer, cookie: str) -> int:
    return send(server, "GET", "/healthz", {**PAGE, "Cookie": cookie})[0]


@pytest.fixture
def token(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    return path


@pytest.fixture
def api(token):
    server, _ = serve(token_file=token)
    yield server
    server.stop()


def test_each_sign_in_is_a_session_of_its_own_that_ends_at_sign_out_or_after_a_shift(api):
    """The cookie was an HMAC of the token: the same for every sign-in, also after a
    restart, with no Max-Age and no way to sign out."""
    status, head, _ = send(
        api, "POST", "/v1/page/session", PAGE, b'{"token": "%s"}' % TOKEN.encode()
    )
    assert status == 200 and "HttpOnly; SameSite=Strict; Path=/; Max-Age=43200" in head, head
    first, second = sign_in(api)[1], sign_in(api)[1]
    assert first != second and TOKEN not in first
    assert with_cookie(api, first) == 200 and with_cookie(api, second) == 200
    status, head, _ = send(api, "POST", "/v1/page/logout", {**PAGE, "Cookie": first}, b"{}")
    assert status == 200 and "cosyedge_session=; HttpOnly" in head and "Max-Age=0" in head
    assert with_cookie(api, first) == 401
    assert with_cookie(api, second) == 200  # another tablet's session goes on
    api.sessions.lifetime_s = 0.3
    short = sign_in(api)[1]
    assert with_cookie(api, short) == 200
    time.sleep(0.4)
    assert with_cookie(api, short) == 401


def test_a_restart_ends_every_session(token):
    server, _ = serve(token_file=token)
    cookie = sign_in(server)[1]
    server.stop()
    again, _ = serve(token_file=token)
    try:
        assert with_cookie(again, cookie) == 401
    finally:
        again.stop()


def test_a_new_token_at_reload_ends_the_old_one_and_every_session(api, token, caplog):
    """The token file was read once: after a change and SIGHUP the old token and cookies
    still worked, and nothing said so."""
    cookie = sign_in(api)[1]
    old = {"Host": "127.0.0.1", "Authorization": f"Bearer {TOKEN}"}
    assert send(api, "GET", "/healthz", old)[0] == 200
    token.write_text("fedcba9876543210-new-token\n")
    with caplog.at_level(logging.WARNING, "cosyedge.http"):
        api.reconfigure(parse_config(f"http:\n  token_file: {token}\n"))
    assert send(api, "GET", "/healthz", old)[0] == 401
    assert with_cookie(api, cookie) == 401
    new = {"Host": "127.0.0.1", "Authorization": "Bearer fedcba9876543210-new-token"}
    assert send(api, "GET", "/healthz", new)[0] == 200
    assert any("token" in r.getMessage() and "changed" in r.getMessage() for r in caplog.records)


def test_guessing_the_token_is_throttled_per_client_and_logged(api, caplog):
    """711 guesses a second were answered, each logged at INFO only."""
    with caplog.at_level(logging.INFO, "cosyedge.http"):
        answers = [sign_in(api, f"guess-{n}")[0] for n in range(8)]
        assert answers == [401] * 5 + [429] * 3, answers
        status, head = sign_in(api)  # the right token, but too late: not even checked
        assert status == 429 and re.search(r"Retry-After: \d+", head), head
        bearer = {"Host": "127.0.0.1", "Authorization": "Bearer guess"}
        assert send(api, "GET", "/healthz", bearer)[0] == 429
        # Another address is not held by this one's guesses.
        assert sign_in(api, source="127.0.0.2")[0] == 200
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert any("wrong token" in m for m in warnings), warnings
    assert len(warnings) <= 4, warnings  # a line a kind a minute, not one a guess


def test_past_the_overall_count_every_address_but_loopback_waits():
    from cosyedge.http.sessions import Throttle

    throttle = Throttle(per_client=5, overall=6, window_s=60)
    for n in range(6):
        throttle.failed(f"10.0.0.{n}")
    assert throttle.wait_s("10.0.0.99") > 50  # a new address all the same
    assert throttle.wait_s("127.0.0.1") == 0  # a tool on the gateway itself
    assert Throttle(window_s=0.1).wait_s("10.0.0.1") == 0
