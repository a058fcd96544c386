"""Canaries: where a canary for each topic filter goes, and how it is signed and checked.

Every filter the daemon subscribes to is proven by canaries of its own (service/selfwatch.py
sends them and watches them come back). A filter's canary topic is one the filter matches
and no real source uses: each `+` and `#` level becomes the reserved level `RESERVED`
(`plant/+/temperature` → `plant/_cosyedge_canary/temperature`). A filter with no wildcard
matches only its own topic. When that topic is one cosyedge defines (its command topic, its
say topic, its own canary topic, Home Assistant's notify topic: `own`), its canaries go there,
told from alerts by their payload, a JSON object whose first key is `PAYLOAD_KEY`. A plant's
exact alert topic gets none: a canary there would reach every other subscriber of it (a
SCADA historian, a Node-RED flow that lights a beacon on any message), so it is reported as
not proven, and a wildcard level in its template (`plant/line3/+`) has it proven. A filter
starting with `$` has none either: clients may not publish under `$SYS`, and `$share/...`
delivers to one member only.

A canary carries this run's id, a sequence number, the filter and an HMAC-SHA256 over them
and its topic, with a key only this daemon knows (`state_dir/canary.key`, 0600, made at the
first start). So no other client can keep a filter proven: not on purpose, not with a stale
retained message, not by replaying a canary it saw. It also says when it was sent (`sent`,
the daemon's monotonic clock in seconds, as its pace is kept by), so whoever watches the
broker sees that pace whatever the delivery does to it; that is not signed and proves nothing.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import json
import logging
import os
import secrets
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from cosyedge.config.templates import CANARY_KEY, CANARY_LEVEL
from cosyedge.faults import Faults
from cosyedge.regular import read_record

log = logging.getLogger(__name__)

RESERVED = CANARY_LEVEL  # the level in place of each wildcard; no real source uses it
PAYLOAD_KEY = CANARY_KEY
KEY_BYTES = 32


def canary_topic(topic_filter: str, own: Collection[str] = ()) -> str | None:
    """A topic `topic_filter` matches and no real source publishes on; the filter itself
    when it has no wildcard and is one of cosyedge's `own` topics. None when none may be
    used (`unproven`)."""
    levels = topic_filter.split("/")
    if topic_filter.startswith("$") or not ({"+", "#"} & set(levels) or topic_filter in own):
        return None
    return "/".join(RESERVED if level in ("+", "#") else level for level in levels)


def unproven(topic_filter: str) -> str:
    """Why no canary proves `topic_filter` (one `canary_topic` gives None for)."""
    if topic_filter.startswith("$"):
        return "a client may not publish on topics starting with '$'"
    wildcard = f"{topic_filter.rsplit('/', 1)[0]}/+" if "/" in topic_filter else "+"
    return (
        "an exact topic others subscribe to, where a canary would reach them; for a "
        f"template, a wildcard level in its topic ({wildcard!r}) has it proven"
    )


def underivable(filters: list[str]) -> list[str]:
    """What `check` refuses: one line per filter no canary topic can be derived for."""
    return [
        f"topic filter {f!r}: no canary topic can be derived (a client may not publish on "
        "topics starting with '$'), so its delivery cannot be proven"
        for f in filters
        if f.startswith("$")
    ]


@dataclass(frozen=True)
class Proof:
    """What a genuine canary of this run says: its sequence number and its filter."""

    seq: int
    topic_filter: str


class BadCanary(ValueError):
    """A message on a canary topic that proves nothing; `kind` is `stale` (another run's),
    `forged` (not signed with our key, or not a canary at all) or `retained`."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


class Signer:
    """Signs this run's canaries and checks the ones that come back."""

    def __init__(self, key: bytes, run: str | None = None, gateway: str = "") -> None:
        """`gateway`: this daemon's client id, carried so that the canaries of another
        gateway on the same broker are told apart from forgeries (they prove nothing all
        the same: only our key does)."""
        self._key = key
        self.run = run or secrets.token_hex(8)
        self.gateway = gateway

    def payload(self, seq: int, topic_filter: str, topic: str, sent: float = 0.0) -> str:
        """The canary `seq` for `topic_filter`, sent on `topic` at `sent` (monotonic)."""
        body = {"gw": self.gateway, "run": self.run, "seq": seq, "filter": topic_filter}
        body["mac"] = self._mac(body, topic)
        body["sent"] = round(sent, 6)
        return json.dumps({PAYLOAD_KEY: body}, separators=(",", ":"))

    def signed(self, topic: str, payload: bytes) -> bool:
        """Whether a message on a canary topic is signed with this daemon's key (of this run
        or an earlier one): only such a canary is no message for the intake."""
        body = _body(payload)
        return body is not None and hmac.compare_digest(
            str(body.get("mac", "")), self._mac(body, topic)
        )

    def foreign(self, payload: bytes) -> bool:
        """Whether a message on a canary topic has a canary's shape and names another client
        id: another gateway's canary on a topic both subscribe to (a standby and its primary
        share every alert filter). It proves nothing and is no alert either."""
        body = _body(payload)
        return body is not None and isinstance(body.get("gw"), str) and body["gw"] != self.gateway

    def check(self, topic: str, payload: bytes, retained: bool) -> Proof:
        """The proof a canary gives; BadCanary when it gives none (`another-gateway` for one
        that names another client id). Whether its sequence number was seen before is the
        watcher's to say."""
        if retained:
            raise BadCanary("retained", f"a retained message on {topic!r}")
        body = _body(payload)
        if body is None:
            raise BadCanary("forged", f"not a canary payload on {topic!r}")
        if body.get("gw", self.gateway) != self.gateway:
            raise BadCanary("another-gateway", f"gateway {str(body.get('gw'))[:64]!r}'s canary")
        if not hmac.compare_digest(str(body.get("mac", "")), self._mac(body, topic)):
            raise BadCanary("forged", f"a canary on {topic!r} not signed with this daemon's key")
        if body.get("run") != self.run:
            raise BadCanary("stale", f"a canary of an earlier run on {topic!r}")
        return Proof(int(body["seq"]), str(body["filter"]))

    def _mac(self, body: dict[str, object], topic: str) -> str:
        # The topic is signed too, so a canary copied onto another filter's topic proves nothing.
        text = f"{body.get('run')}\n{body.get('seq')}\n{body.get('filter')}\n{topic}"
        return hmac.new(self._key, text.encode(), hashlib.sha256).hexdigest()


def _body(payload: bytes) -> dict[str, object] | None:
    """The canary's fields when the payload has the canary's shape, else None."""
    try:
        body = json.loads(payload)[PAYLOAD_KEY]
    except (ValueError, TypeError, KeyError, RecursionError):
        return None
    if not isinstance(body, dict) or not isinstance(body.get("seq"), int):
        return None
    return body


def load_key(path: Path, faults: Faults | None = None) -> bytes:
    """The canary key kept at `path`, made on first use: random, mode 0600, and written
    whole under another name then linked into place, so a crash or a second process never
    leaves a short key and two starts never make two keys. Raises OSError when it can be
    neither read nor made (`faults`: site `state.write`, before it is made)."""
    if not path.exists():
        (faults or Faults()).check("state.write", str(path))
        _make_key(path)
    key = read_record(path)
    if len(key) < KEY_BYTES:
        raise OSError(f"{path}: a canary key of {len(key)} bytes; remove it to make a new one")
    if path.stat().st_mode & 0o077:
        log.warning("%s can be read by others: only the daemon should (chmod 600)", path)
    return key


def _make_key(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")  # one per maker
    try:
        _write_key(tmp)
        with contextlib.suppress(FileExistsError):  # another start made it first: it holds
            os.link(tmp, path)
    finally:  # a key that could not be written whole leaves nothing behind
        tmp.unlink(missing_ok=True)


def _write_key(tmp: Path) -> None:
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        if os.write(fd, secrets.token_bytes(KEY_BYTES)) != KEY_BYTES:
            raise OSError(errno.ENOSPC, "a short write of the canary key")
        os.fsync(fd)
    finally:
        os.close(fd)
