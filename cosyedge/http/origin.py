"""Which requests the API takes from where (docs/http.md, "Browsers on the gateway's
network"): a Host it is served at, and, for what changes something, no browser's request
from another site and a JSON body.

A browser's page on any site can send a simple request (a form, or `fetch` in `no-cors`
mode: a `text/plain` body) to a gateway it can reach, and with DNS rebinding (a name of the
other site's that resolves to the gateway's address) it can even read the answer: its
requests then carry that name as their Host, and an Origin that matches it. So a Host that
is not the gateway's is refused (421) whatever the route, and a request that changes
something must carry JSON (a browser sends that only after a CORS preflight, never answered
here) and must not be marked as another site's (`Sec-Fetch-Site`, `Origin`). Tools (curl,
Node-RED, Home Assistant) send neither Origin nor Sec-Fetch-Site and are unaffected.
"""

from __future__ import annotations

import ipaddress
from email.message import Message

JSON = "application/json"


def host_name(value: str) -> str:
    """A Host header's name or address, without its port and brackets, in lower case."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    name, colon, port = value.rpartition(":")
    return name.rstrip(".") if colon and port.isdigit() and ":" not in name else value.rstrip(".")


def foreign_host(value: str | None, names: frozenset[str]) -> str | None:
    """Why a Host header names nothing the API is served at (answered 421), or None.

    Taken: an IP address (a rebinding needs a name), `localhost`, and `names` (the listen
    address, the host's own name, `http.hosts`). A request without a Host (HTTP/1.0) is
    taken: a browser always sends one."""
    if value is None:
        return None
    host = host_name(value)
    if host == "localhost" or host in names:
        return None
    try:
        ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        shown = ascii(value[:80])
        return f"Host {shown} is not a name this gateway is served at (add it to http.hosts)"
    return None


def cross_site(headers: Message) -> str | None:
    """Why a request is a browser's from another site (answered 403), or None: the browser
    says so (`Sec-Fetch-Site`), or its Origin is not the one the request is sent to."""
    site = headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return f"a request from another site ({site}) is refused"
    origin, host = headers.get("Origin"), headers.get("Host")
    # https: the page behind a TLS proxy that keeps the Host it was sent.
    if origin is not None and origin not in (f"http://{host}", f"https://{host}"):
        return f"a request from {origin[:80]!a} is refused"
    return None


def not_json(headers: Message) -> str | None:
    """Why a body is not taken as JSON (answered 415), or None: its Content-Type is not
    `application/json` (parameters such as a charset aside)."""
    kind = (headers.get("Content-Type") or "").partition(";")[0].strip().lower()
    if kind == JSON:
        return None
    return f"Content-Type: expected {JSON}, got {ascii(kind[:60]) if kind else 'none'}"
