"""Logging that reads well in journald and on a terminal alike."""

from __future__ import annotations

import logging
import os
import sys

# sd-daemon(3) level prefixes: journald turns `<3>` into priority "err" and strips it.
_SYSLOG_LEVEL = {
    logging.DEBUG: 7,
    logging.INFO: 6,
    logging.WARNING: 4,
    logging.ERROR: 3,
    logging.CRITICAL: 2,
}


class _JournalFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{_SYSLOG_LEVEL.get(record.levelno, 6)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines())


def setup_logging(level: str = "info") -> None:
    # Our own copy of stderr: PortAudio's initialisation points fd 2 at /dev/null for a moment
    # to hush ALSA, and would swallow what other threads log meanwhile.
    stream = open(  # noqa: SIM115 - lives as long as the process
        os.dup(sys.stderr.fileno()), "w", buffering=1, errors="backslashreplace"
    )
    handler = logging.StreamHandler(stream)
    if os.environ.get("JOURNAL_STREAM"):
        # journald stamps time and unit itself.
        handler.setFormatter(_JournalFormatter("%(name)s: %(message)s"))
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
