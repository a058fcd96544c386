"""The live ISA-18.2 figures, as a component: the last day's alarms heard as the history records
them, and read back from the history's files at a start on a thread of their own, so that the
daemon's snapshot can show them (`/metrics`). Built only with the metrics that show them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.history import Skipped, begins, read_facts, sizes
from cosyedge.alarms.kpi import DAY_S, PERIOD_S, STALE_S, RecentAlarms, annunciated
from cosyedge.alarms.snapshot import Alarms
from cosyedge.component import Component, Detail
from cosyedge.observe import Observer

log = logging.getLogger(__name__)


class AlarmFigures(Component, Observer):
    def __init__(self, history: Path, desk: AlarmDesk) -> None:
        """`history`: the history's directory; what it holds now is what was heard before
        this run (and is read back at `start`), what is recorded from now on is `recorded`."""
        self.history, self.desk = history, desk
        self.recent = RecentAlarms()
        self._before = sizes(history)  # what is read back, not heard
        self._started = time.time()  # where a history new with this run begins

    def start(self) -> None:
        threading.Thread(target=self._seed, name="history-read", daemon=True).start()

    def recorded(self, fact: Mapping[str, Any]) -> None:
        self.recent.heard(fact)

    def state(self, detail: Detail) -> Mapping[str, Any]:
        return {"alarms": self._figures()} if detail.alarms else {}

    def _figures(self) -> Alarms:
        """The day's figures, with the stale alarms and the shelves as the desk has them
        now (what `cosyedge report kpi` replays from the history)."""
        now = time.time()
        day = self.recent.figures(now)
        day.stale = sorted(a for a, since in self.desk.standing() if now - since > STALE_S)
        day.shelved = list(self.desk.status()["shelved"])
        return Alarms(
            day=day,
            last_10_min=self.recent.count(now - PERIOD_S),
            last_hour=self.recent.count(now - 3600),
            complete=self.recent.complete(now),
            stale=len(day.stale),
            shelved=len(day.shelved),
        )

    def _seed(self) -> None:
        """The last day's alarms from the history as it was before this run wrote to it."""
        now, skipped = time.time(), Skipped()
        facts = read_facts(self.history, now - DAY_S, skipped, self._before)
        older = [a for f in facts if f["e"] == "outcome" and (a := annunciated(f)) is not None]
        first = begins(self.history, self._before)
        self.recent.seed(older, now, self._started if first is None else first)
        for name, count in skipped.damaged.items():
            log.warning("history %s: %d damaged lines passed over", name, count)
