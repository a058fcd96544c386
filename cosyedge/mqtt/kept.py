"""The topic filters the broker keeps for this gateway's persistent session, as last
acknowledged, on disk: a session resumed after a restart still holds the subscriptions of the
configuration before (a changed `alarms.command_topic`, a template removed), and the broker
would go on delivering their messages; those no longer wanted are unsubscribed at once.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from pathlib import Path

from cosyedge.regular import SITE_RECORD_MAX, load_record

log = logging.getLogger(__name__)


class KeptFilters:
    """`path` holds `{"client_id": ..., "filters": [...]}`; a record of another client id
    (whose session is not ours) or one that cannot be read is none."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def earlier(self, client_id: str) -> list[str]:
        """The filters the broker acknowledged for `client_id`'s session last time."""
        try:
            record = load_record(self.path, SITE_RECORD_MAX)
        except (OSError, ValueError):
            return []
        if not isinstance(record, dict) or record.get("client_id") != client_id:
            return []
        filters = record.get("filters")
        return [f for f in filters if isinstance(f, str)] if isinstance(filters, list) else []

    def keep(self, client_id: str, filters: list[str]) -> None:
        """Note `filters` as the session's, whole or not at all; a failure is logged (the
        worst it costs is messages of an old filter refused after the next restart)."""
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        try:
            tmp.write_text(json.dumps({"client_id": client_id, "filters": filters}))
            os.replace(tmp, self.path)
        except OSError as exc:  # a full state directory: nothing half-written is left there
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            log.warning("cannot note the session's subscriptions in %s: %s", self.path, exc)
