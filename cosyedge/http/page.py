"""The operator page (docs/page.md): one HTML file with its CSS and script inline, served at
`/`, and the routes it calls.

The page itself holds nothing secret, so it is served to anyone who reaches the API; what it
shows and does is behind the API's token, which a browser cannot put in a header of its own:
`POST /v1/page/session` with the token sets a session cookie, a random id held in memory for
a shift (sessions.py; HttpOnly, so no script reads it; SameSite=Strict, so no other site's
page sends it), which `POST /v1/page/logout` ends. A request the cookie
authorizes, and every POST of the page's, must carry the page's own header and come from the
page's origin (`guard`): a form or a script on another site can send neither without this
server's consent (a CORS preflight it never answers), which is the CSRF guard.

The page polls rather than holding a stream (server-sent events): the server answers each
request on one of `http.max_clients` threads, one request per connection, and a stream open
for as long as the page is would hold a thread each; two tablets and a phone left open would
take three of the eight. A poll is a short request, answered and gone.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import math
import re
import threading
import time
from email.message import Message
from importlib import resources
from typing import TYPE_CHECKING, Any

from cosyedge.alarms.review import ReportError
from cosyedge.http import origin
from cosyedge.http.refused import Refused
from cosyedge.http.sessions import SESSION_S, TEST_EVERY_S
from cosyedge.intake import local
from cosyedge.intake.alert import InvalidJson, load_json
from cosyedge.intake.door import Unavailable
from cosyedge.intake.local import BadField
from cosyedge.model import RejectedAlert

log = logging.getLogger("cosyedge.http.server")

GUARD_HEADER = "X-Cosyedge-Page"  # sent by the page's script with every request
COOKIE = "cosyedge_session"
AUDIT_LIMIT = 200  # facts of the last day the page lists, newest first
READ_MAX_CHARS = 2000  # what `/v1/page/read` reads: 14 KB held the synthesis thread 5.4 s

# Served without the token: the page holds nothing secret, the session checks the token itself,
# and signing out ends no more than the session the request names.
OPEN = frozenset({"page", "session", "logout"})
# Guarded however the request is authorized: they change something, and a browser sends them.
GUARDED = frozenset({"session", "logout", "command", "test_say"})
PAGE_ROUTES = {
    ("GET", "/"): "page",
    ("GET", "/v1/page/now"): "now",
    ("GET", "/v1/page/health"): "health",
    ("GET", "/v1/page/audit"): "audit",
    ("GET", "/v1/page/history"): "history",
    ("GET", "/v1/page/export"): "export",
    ("POST", "/v1/page/session"): "session",
    ("POST", "/v1/page/logout"): "logout",
    ("POST", "/v1/page/command"): "command",
    ("POST", "/v1/page/read"): "read",
    ("POST", "/v1/page/say"): "test_say",
}


def page_html() -> bytes:
    """The page as shipped in the package."""
    return resources.files("cosyedge.http").joinpath("page.html").read_bytes()


def page_headers(html: bytes) -> dict[str, str]:
    """The headers the page is served with. Its Content-Security-Policy lets it run its own
    inline script only, named by its SHA-256 (computed here, from the page as served, so an
    edit of the page can never leave it stale), its own inline style, and reach nothing but
    this server: a script injected into the page would not run."""
    scripts = _SCRIPT.findall(html)
    hashes = " ".join(f"'sha256-{_digest(s)}'" for s in scripts) or "'none'"
    csp = (
        f"default-src 'none'; script-src {hashes}; "
        "style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'none'"
    )
    return {"Content-Security-Policy": csp, **_PAGE_HEADERS}


def session_of(headers: Message) -> str | None:
    """The session cookie the request carries, or None."""
    for header in headers.get_all("Cookie") or ():
        for part in header.split(";"):
            name, _, value = part.strip().partition("=")
            if name == COOKIE:
                return value
    return None


def guard(headers: Message) -> str | None:
    """Why the request may not be the page's own (an HTTP 403), or None: the page's header,
    and where the browser says so, the page's origin."""
    if headers.get(GUARD_HEADER) != "1":
        return f"the operator page's requests carry {GUARD_HEADER}: 1"
    return origin.cross_site(headers)


class PageRoutes:
    """The page's routes, for server.py's Handler (which gives `server`, `headers`, `_json`,
    `_start`, `_write` and `_body`)."""

    server: Any
    headers: Message
    client_address: Any

    def _page(self, query: dict[str, list[str]]) -> None:
        page = self.server.page
        self._start(200, "text/html; charset=utf-8", len(page), self.server.page_headers)
        self._write(page)

    def _now(self, query: dict[str, list[str]]) -> None:
        """The state; `session`: whether the request came with a session (it may sign out)."""
        session = self.server.sessions.valid(session_of(self.headers))
        self._json(200, {**self.server.backend.now(), "session": session}, _NO_STORE)

    def _health(self, query: dict[str, list[str]]) -> None:
        self._json(200, self.server.backend.health(), _NO_STORE)

    def _audit(self, query: dict[str, list[str]]) -> None:
        self._json(200, {"facts": self.server.backend.audit(AUDIT_LIMIT)}, _NO_STORE)

    def _history(self, query: dict[str, list[str]]) -> None:
        self._json(200, self.server.backend.review(), _NO_STORE)

    def _export(self, query: dict[str, list[str]]) -> None:
        """The last day's audit trail (`?of=audit`, the default) or figures (`?of=kpi`) as a
        CSV file to save; 404 when the history holds nothing of the day's figures."""
        kind = (query.get("of") or ["audit"])[-1]
        if kind not in EXPORTS:
            raise BadField("of", f"expected one of {', '.join(EXPORTS)}")
        try:
            data = self.server.backend.export(kind).encode()
        except ReportError as exc:
            self._json(404, {"error": str(exc)})
            return
        self._start(200, "text/csv; charset=utf-8", len(data), _download(kind))
        self._write(data)

    def _session(self, query: dict[str, list[str]]) -> None:
        """The token, once, for a session's cookie (a random id, sessions.py); 401 for a
        wrong one, 429 after too many."""
        if self.server.token is None:  # no token file: nothing to sign in to
            self._json(200, {"session": False})
            return
        if not self._try_token(_field(self._body(), "token"), "sign-in"):
            self._json(401, {"error": "not the token"})
            return
        sid = self.server.sessions.open()
        log.info("http: %s signed in to the operator page", self.client_address[0])
        cookie = f"{COOKIE}={sid}; {_COOKIE_FLAGS}; Max-Age={SESSION_S:.0f}"
        self._json(200, {"session": True, "ends_in_s": SESSION_S}, {"Set-Cookie": cookie})

    def _logout(self, query: dict[str, list[str]]) -> None:
        """Sign out: the session ends here and its cookie in the browser."""
        self.server.sessions.close(session_of(self.headers))
        cookie = f"{COOKIE}=; {_COOKIE_FLAGS}; Max-Age=0"
        self._json(200, {"session": False}, {"Set-Cookie": cookie})

    def _command(self, query: dict[str, list[str]]) -> None:
        """An operator command, carried out as from the command topic; answered once what it
        changed is on disk, with the ids it acted on; refused with why: 409 when it matched
        nothing standing (unknown, or settled already: another operator came first), else
        400."""
        body = self._body()
        if _nameless(body):  # on the command topic a name is the site's choice
            raise BadField("user", "the operator's name is required on the page's commands")
        written = threading.Event()
        answer = self.server.backend.command(body, written.set)
        if answer.refused is not None:
            self._json(409 if answer.unmatched else 400, {"error": answer.refused})
            return
        if not written.wait(self.server.config.timeout_s):
            raise Unavailable("carried out, but the journal has not written it yet")
        self._json(200, {"done": True, "ids": list(answer.ids)})

    def _test_say(self, query: dict[str, list[str]]) -> None:
        """A test announcement: a say request (the same path, answered as `/v1/say` is) that
        names the operator (`user`, required), audited under that name, one per session
        every TEST_EVERY_S (429 sooner)."""
        wait = self._wait(query)
        request = local.request_object(self._body())
        user = request.pop("user", None)
        if not isinstance(user, str) or not user.strip():
            raise BadField("user", "the operator's name is required for a test announcement")
        key = session_of(self.headers) or self.client_address[0]
        too_soon = self.server.tests.take(key)
        if too_soon > 0:
            retry = {"Retry-After": str(math.ceil(too_soon))}
            every = f"{TEST_EVERY_S:g}"
            raise Refused(429, f"one test announcement every {every} s; try again shortly", retry)
        body = json.dumps(request).encode()
        backend = self.server.backend
        name = user.strip()[:64]
        self._speak(body, wait, lambda b, written, watch: backend.test_say(b, name, written, watch))

    def _read(self, query: dict[str, list[str]]) -> None:
        """How a text will be read (`cosyedge read --explain`), before it is said."""
        request = local.request_object(self._body())
        text, lang = request.get("text"), request.get("lang")
        if not isinstance(text, str) or not text.strip():
            raise BadField("text", "expected the text to read")
        if len(text) > READ_MAX_CHARS:  # the page's text box holds no more
            raise BadField("text", f"at most {READ_MAX_CHARS} characters are read here")
        if lang is not None and lang not in self.server.backend.voices():
            raise BadField("lang", "expected a language with a configured voice")
        try:
            reading = self.server.backend.how_read(text, lang)
        except BadField:
            raise
        except RejectedAlert as exc:  # nothing the voices can say: as a say request of it is
            raise BadField("text", str(exc)) from None
        self._json(200, reading)

    if TYPE_CHECKING:  # given by the Handler

        def _json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None: ...
        def _start(
            self, status: int, kind: str, length: int | None, headers: Any = None
        ) -> None: ...
        def _write(self, data: bytes) -> None: ...
        def _body(self) -> bytes: ...
        def _try_token(self, given: str, what: str) -> bool: ...
        def _wait(self, query: dict[str, list[str]]) -> float: ...
        def _speak(self, body: bytes, wait: float, say: Any) -> None: ...


_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.S)  # the page's inline scripts, as hashed
_PAGE_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
_NO_STORE = {"Cache-Control": "no-store"}
# No script reads it (HttpOnly), no other site's page sends it (SameSite=Strict).
_COOKIE_FLAGS = "HttpOnly; SameSite=Strict; Path=/"
EXPORTS = ("audit", "kpi")


def _download(kind: str) -> dict[str, str]:
    """The headers that make an export a file named after what it holds and when."""
    stamp = time.strftime("%Y%m%d-%H%M", time.localtime())
    name = f"cosyedge-{kind}-{stamp}.csv"
    return {"Content-Disposition": f'attachment; filename="{name}"'} | _NO_STORE


def _field(body: bytes, name: str) -> str:
    """A text field of a JSON object body; empty when there is none."""
    try:
        data = load_json(body)
    except InvalidJson:
        return ""
    value = data.get(name) if isinstance(data, dict) else None
    return value.strip() if isinstance(value, str) else ""


def _nameless(body: bytes) -> bool:
    """Whether a command is a JSON object without an operator's name (`user`); what is not
    an object is left to the desk, which tells what is wrong with it."""
    try:
        data = load_json(body)
    except InvalidJson:
        return False
    return isinstance(data, dict) and not _field(body, "user")


def _digest(script: bytes) -> str:
    return base64.b64encode(hashlib.sha256(script).digest()).decode()
