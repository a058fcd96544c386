"""Who may ask what of the HTTP API (docs/http.md, "Security and limits"): a Host the API is
served at, no browser's request from another site to a route that changes something, and
the token (a bearer token, or the operator page's session) with wrong tries throttled."""

from __future__ import annotations

import hmac
import logging
import math
from email.message import Message
from typing import Any

from cosyedge.http import origin, page
from cosyedge.http.refused import Refused


class Access:
    """For server.py's Handler (which gives `server`, `headers` and `client_address`)."""

    server: Any
    headers: Message
    client_address: Any

    def _authorize(self, method: str, name: str | None) -> None:
        """The bearer token, or the operator page's session cookie on a request the page
        sent (page.py `guard`); the page's POSTs are guarded however they are authorized."""
        if method == "POST" and name is not None:  # each changes something, or takes the voices
            self._refuse_cross_site()
        if method == "POST" and name in page.GUARDED:
            self._guard()
        token = self.server.token
        if token is None or name in page.OPEN:
            return
        given = self.headers.get("Authorization")
        if given is not None:
            scheme, _, value = given.partition(" ")
            if self._try_token(value.strip() if scheme.lower() == "bearer" else "", name):
                return
        elif self.server.sessions.valid(page.session_of(self.headers)):
            self._guard()  # a browser sends the cookie with any request: only the page's count
            return
        raise Refused(401, "a valid bearer token is needed")

    def _try_token(self, given: str, what: str) -> bool:
        """Whether `given` is the token; a wrong one is counted against the client and
        logged (a line a minute for all: a guesser floods), and a client past its count (or
        all of them, past theirs) is answered 429 without its try being checked."""
        client = self.client_address[0]
        wait = self.server.throttle.wait_s(client)
        if wait > 0:
            self.server.tally.log(
                "tries of the token refused unchecked",
                logging.WARNING,
                "http: %s: too many wrong tokens; refused for %.0f s",
                client,
                wait,
            )
            retry = {"Retry-After": str(math.ceil(wait))}
            raise Refused(429, "too many wrong tokens: try again later", retry)
        token = self.server.token or b""
        if hmac.compare_digest(given.encode(errors="replace"), token):
            return True
        count = self.server.throttle.failed(client)
        self.server.tally.log(
            "wrong tokens",
            logging.WARNING,
            "http: %s: a wrong token (%s; %d from it within %g s)",
            client,
            what,
            count,
            self.server.throttle.window_s,
        )
        return False

    def _refuse_foreign_host(self) -> None:
        """421 for a Host the API is not served at: a page of another site reaching the
        gateway through a name of its own (DNS rebinding)."""
        problem = origin.foreign_host(self.headers.get("Host"), self.server.names)
        if problem is not None:
            raise Refused(421, problem)

    def _refuse_cross_site(self) -> None:
        """403 for a browser's request from another site, 415 for a body that is not JSON
        (the only kind another site's page cannot send without a preflight)."""
        problem = origin.cross_site(self.headers)
        if problem is not None:
            raise Refused(403, problem)
        problem = origin.not_json(self.headers)
        if problem is not None:
            raise Refused(415, problem, header="Content-Type")

    def _guard(self) -> None:
        problem = page.guard(self.headers)
        if problem is not None:
            raise Refused(403, problem)
