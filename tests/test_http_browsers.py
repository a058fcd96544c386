"""The HTTP server in this process: what a browser's page on another site can make it do (DNS
rebinding, simple cross-site requests), and that tools sending JSON are unaffected."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any

import pytest
from test_http_server import exchange, serve

from cosyedge.http.server import ApiServer

SAY_BODY = b'{"text": "Pump one stopped.", "priority": "critical"}'


def request(
    server: ApiServer, method: str, path: str, headers: dict[str, str], body: bytes = b""
) -> tuple[int, dict[str, Any] | bytes]:
    """(status, JSON body or raw body) of one request with exactly `headers` (no Host added)."""
    lines = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    if body or method == "POST":
        lines += f"Content-Length: {len(body)}\r\n"
    head = f"{method} {path} HTTP/1.1\r\n{lines}\r\n".encode()
    answer = exchange(server, head + body)
    status = int(answer.split(b" ", 2)[1])
    payload = answer.partition(b"\r\n\r\n")[2]
    kind = answer.partition(b"\r\n\r\n")[0].lower()
    return status, json.loads(payload) if b"application/json" in kind else payload


@pytest.fixture
def api():
    server, backend = serve(hosts=("gateway1.plant.example",))
    said: list[bytes] = []
    say = backend.say

    def counted(body: bytes, written: Any, watch: Any) -> Any:
        said.append(body)
        return say(body, written, watch)

    backend.say = counted
    yield server, said
    server.stop()


JSON = {"Content-Type": "application/json"}
FOREIGN_HOSTS = ["evil.example", "evil.example:8088", "127.0.0.1.evil.example", "gateway1"]


@pytest.mark.parametrize("host", FOREIGN_HOSTS)
@pytest.mark.parametrize(
    "method,path", [("GET", "/"), ("GET", "/healthz"), ("GET", "/v1/status"), ("POST", "/v1/say")]
)
def test_a_host_the_api_is_not_served_at_is_421_on_every_route(api, host, method, path):
    """DNS rebinding: another site's name resolving to the gateway. Its page's requests carry
    that name as Host, and a matching Origin, so Host is what tells them apart."""
    server, said = api
    headers = {"Host": host, "Origin": f"http://{host}", **JSON}
    status, answer = request(server, method, path, headers, SAY_BODY if method == "POST" else b"")
    assert status == 421, answer
    assert "http.hosts" in answer["error"]
    assert said == []


@pytest.mark.parametrize(
    "host",
    [
        *("localhost", "localhost:8088", "127.0.0.1", "127.0.0.1:8088", "[::1]:8088"),
        *("10.1.2.3:80", "gateway1.plant.example", "GATEWAY1.plant.example.:8088"),
    ],
)
def test_addresses_localhost_and_the_configured_names_are_served(api, host):
    server, said = api
    assert request(server, "GET", "/healthz", {"Host": host})[0] == 200
    status, answer = request(server, "POST", "/v1/say", {"Host": host, **JSON}, SAY_BODY)
    assert status == 202, answer
    assert len(said) == 1


@pytest.mark.parametrize(
    "headers,status",
    [
        ({"Content-Type": "text/plain;charset=UTF-8"}, 415),  # fetch(..., {mode: "no-cors"})
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415),  # a form
        ({"Content-Type": "multipart/form-data; boundary=x"}, 415),
        ({}, 415),
        ({**JSON, "Sec-Fetch-Site": "cross-site"}, 403),
        ({**JSON, "Sec-Fetch-Site": "same-site"}, 403),
        ({**JSON, "Origin": "http://evil.example"}, 403),
        ({**JSON, "Origin": "null"}, 403),  # a sandboxed frame, a file
        ({"Content-Type": "text/plain", "Origin": "http://evil.example"}, 403),
    ],
)
@pytest.mark.parametrize("path", ["/v1/say", "/v1/page/command", "/v1/synthesize"])
def test_a_browser_request_from_another_site_changes_nothing(api, headers, status, path):
    """Without a token (loopback), any page the gateway's browser shows could say an alert at
    critical priority: a simple request needs no preflight. It is refused whole."""
    server, said = api
    got, answer = request(server, "POST", path, {"Host": "127.0.0.1:8088", **headers}, SAY_BODY)
    assert got == status, answer
    assert said == []


@pytest.mark.parametrize(
    "headers",
    [
        JSON,  # curl -H 'Content-Type: application/json', Node-RED, Home Assistant
        {"Content-Type": "application/json; charset=utf-8"},
        {**JSON, "Origin": "http://127.0.0.1:8088", "Sec-Fetch-Site": "same-origin"},  # the page
        {**JSON, "Origin": "https://127.0.0.1:8088"},  # the page behind a TLS proxy
    ],
)
def test_tools_sending_json_and_the_page_itself_still_say(api, headers):
    server, said = api
    status, answer = request(
        server, "POST", "/v1/say", {"Host": "127.0.0.1:8088", **headers}, SAY_BODY
    )
    assert status == 202, answer
    assert said == [SAY_BODY]


def test_a_request_without_host_is_taken_as_http_1_0_tools_send_it(api):
    server, said = api
    status, _ = request(server, "POST", "/v1/say", JSON, SAY_BODY)
    assert status == 202 and len(said) == 1


def test_the_page_may_run_its_own_inline_script_only_named_by_its_hash(api):
    """The CSP said `script-src 'unsafe-inline'`: any script injected into the page would
    have run. Now the served policy names the served script's SHA-256, and nothing else."""
    server, _ = api
    answer = exchange(server, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
    head, _, html = answer.partition(b"\r\n\r\n")
    (csp,) = re.findall(rb"\r\nContent-Security-Policy: ([^\r]*)", head)
    policy = dict(p.strip().split(b" ", 1) for p in csp.split(b";"))
    scripts = re.findall(rb"<script>(.*?)</script>", html, re.S)
    assert len(scripts) == 1 and b"<script" not in html.replace(b"<script>", b"", 1)
    digest = base64.b64encode(hashlib.sha256(scripts[0]).digest())
    assert policy[b"script-src"] == b"'sha256-" + digest + b"'", policy
    assert not re.search(rb"<[^>]*\son[a-z]+=", html)  # no handler in an attribute either
