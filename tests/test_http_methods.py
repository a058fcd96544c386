"""The HTTP server in this process: methods no route takes, and paths none serves, answered
as docs/http.md says, and only to a caller with the token."""

from __future__ import annotations

import pytest
from test_http_server import serve
from test_page_sessions import TOKEN, send, token  # noqa: F401  (a fixture)

METHODS = ["HEAD", "OPTIONS", "PUT", "PATCH", "DELETE", "TRACE"]


@pytest.fixture
def open_api():
    server, _ = serve()
    yield server
    server.stop()


@pytest.mark.parametrize("method", METHODS)
def test_a_method_the_path_does_not_take_is_405_with_allow(open_api, method):
    """They were 501 (the server knows no such method), without Allow."""
    for path, allowed in (("/v1/say", "POST"), ("/healthz", "GET"), ("/v1/page/now", "GET")):
        status, head, body = send(open_api, method, path, {"Host": "localhost"})
        assert status == 405, head
        assert f"\r\nAllow: {allowed}\r\n" in head + "\r\n", head
        assert body == "" if method == "HEAD" else "no such method" in body
    assert send(open_api, method, "/nowhere", {"Host": "localhost"})[0] == 404


@pytest.mark.parametrize("method", ["GET", "POST", *METHODS])
def test_without_the_token_no_path_is_told_apart(token, method):  # noqa: F811
    """Unknown paths were 404 before the token was asked for: the routes could be listed
    by anyone. Now every answer without the token is the same 401."""
    server, _ = serve(token_file=token)
    try:
        host = {"Host": "localhost"}
        for path in ("/nowhere", "/v1/say", "/healthz", "/v1/secret/route"):
            assert send(server, method, path, host)[0] == 401, (method, path)
        bearer = {**host, "Authorization": f"Bearer {TOKEN}"}
        assert send(server, method, "/nowhere", bearer)[0] == 404
    finally:
        server.stop()
