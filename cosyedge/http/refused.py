"""A request refused: raised by a route or a rule, answered by server.py's Handler."""

from __future__ import annotations

from typing import Any


class Refused(Exception):
    """Answer the request with `status` and a JSON error body (and `headers`)."""

    def __init__(
        self, status: int, error: str, headers: dict[str, str] | None = None, **detail: Any
    ) -> None:
        super().__init__(error)
        self.status, self.error, self.detail = status, error, detail
        self.headers = headers
