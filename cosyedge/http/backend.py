"""The daemon as the HTTP API (server.py `Backend`) and the Wyoming server (wyoming/server.py
`Synthesizer`) see it: say requests and operator commands through the door, speech for
callers beside the alerts, renderings of the daemon's snapshot for `/v1/status` and
`/healthz`, and what the operator page shows (the desk's board, health, the audit trail).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.history import DAY_S, audit
from cosyedge.alarms.kpi import FLOOD_ALARMS, PERIOD_S
from cosyedge.alarms.review import KpiReport, ReportError, audit_csv, kpi, kpi_csv
from cosyedge.alarms.snapshot import Snapshot, problems, status_detail, status_report
from cosyedge.component import Detail
from cosyedge.config.voices import VoiceConfig, stand_in_voice
from cosyedge.intake.door import Accepted, Door, Unavailable
from cosyedge.model import CommandAnswer
from cosyedge.speech.cache.background import Activity
from cosyedge.speech.memory import MemoryGuard, SheddableVoice
from cosyedge.speech.reading import describe_in_pieces
from cosyedge.speech.render import Renderer, Rendering

READ_WAIT_S = 10.0  # for the synthesis thread to read a text between phrases


class LocalApi:
    def __init__(
        self,
        door: Door,
        configs: Mapping[str, VoiceConfig],
        voices: Mapping[str, SheddableVoice],
        renderer: Renderer,
        memory: MemoryGuard,
        activity: Activity,
        desk: AlarmDesk,
        snapshot: Callable[[Detail], Snapshot],
        history: Path | None = None,
    ) -> None:
        """`configs`: the voices' configuration, `voices` the loaded ones, by language;
        `history`: the alarm history's directory, whose audit trail the page shows."""
        self.door, self.configs, self.voices_loaded = door, configs, voices
        self.renderer, self.memory = renderer, memory
        self.activity, self.desk, self.snapshot = activity, desk, snapshot
        self.history = history

    def say(
        self, body: bytes, written: Callable[[], None], watch: Callable[[int], None] | None
    ) -> Accepted:
        return self.door.say(body, written, watch)

    def test_say(
        self,
        body: bytes,
        user: str,
        written: Callable[[], None],
        watch: Callable[[int], None] | None,
    ) -> Accepted:
        """A test announcement from the operator page: a say request, audited under the
        operator's name once it is taken."""
        accepted = self.door.say(body, written, watch)
        self.desk.audit_test(user, accepted.seq, body)
        return accepted

    def rendering(self, text: str, lang: str | None) -> Rendering:
        """Speech for a caller in the voice of `lang`, or (None) the one that reads the
        text's script; Unavailable near the memory ceiling, RejectedAlert when the voices can
        say nothing of it (the door's rule, as for every alert)."""
        if self.memory.trouble is not None:
            raise Unavailable(f"memory: {self.memory.trouble}")
        cleaned, chosen = self.door.speech(text, lang)
        return self.renderer.render(cleaned, chosen)

    def busy(self) -> bool:
        return self.activity.is_busy() or self.desk.waiting() > 0

    def status(self) -> dict[str, Any]:
        return status_report(self.snapshot(Detail(cache=True)))

    def problems(self) -> list[str]:
        return problems(self.snapshot(Detail()))

    def voices(self) -> dict[str, dict[str, Any]]:
        return {lang: self._voice(lang, voice) for lang, voice in self.voices_loaded.items()}

    def _voice(self, lang: str, voice: Any) -> dict[str, Any]:
        """What speaks `lang`: for a voice stood in for (`replaced`: why), the default one."""
        config, replaced = self.configs[lang], getattr(voice, "replaced", None)
        speaking = (stand_in_voice(lang, config) if replaced else None) or config
        return {
            "engine": speaking.engine,
            "name": voice.name,
            "sample_rate": voice.sample_rate,
            "loaded": getattr(voice, "loaded", True),
            "replaced": replaced,
        }

    # -- the operator page (docs/page.md) --------------------------------------------------
    def command(self, payload: bytes, written: Callable[[], None]) -> CommandAnswer:
        """An operator command as the command topic takes it (the door's one path): the ids
        it acted on, or why it was refused."""
        return self.door.command(payload, written)

    def now(self) -> dict[str, Any]:
        """The status (the cheap snapshot: no cache query), the connection as it is this
        moment, and the desk's unacknowledged alarms and shelves."""
        s = self.snapshot(Detail())
        shown = {"connected": s.broker_connected, "audio_up": s.audio_up, "audio": s.audio}
        return {"status": status_report(s), **shown, **self.desk.board(), "at": time.time()}

    def health(self) -> dict[str, Any]:
        """Voices, the phrase cache, memory against the ceiling, the premium tier and the
        self-watch (each filter's canary age among it), from the snapshot with the cache's
        totals."""
        s = self.snapshot(Detail(cache=True))
        cache = {"entries": s.cache_entries, "bytes": s.cache_bytes}
        memory = {"rss_mb": round(s.rss_mb, 1), "ceiling_mb": s.ceiling_mb, "said": s.memory}
        return {
            "voices": self.voices(),
            "cache": cache | {"hit_rate": status_detail(s)["cache_hit_rate"]},
            "memory": memory | {"sheds": dict(s.sheds)},
            "premium": None if s.premium is None else dict(s.premium),
            "intake": dict(s.intake),
            "canaries": dict(s.canaries),
            "broker": dict(s.broker),
        }

    def how_read(self, text: str, lang: str | None) -> dict[str, Any]:
        """How the voices will say `text` (`cosyedge read --explain`'s view) in `lang`, or
        (None) the voice that reads its script, with the daemon's own front ends and the
        configuration in force. RejectedAlert when the voices can say nothing of it,
        Unavailable when the synthesis thread has no moment for it."""
        cleaned, chosen = self.door.speech(text, lang)
        config = self.door.intake.config
        fronts = {each: voice.front for each, voice in self.voices_loaded.items()}
        try:
            return describe_in_pieces(
                config,
                fronts,
                cleaned,
                chosen,
                lambda part: self.renderer.beside(part, READ_WAIT_S),
            )
        except TimeoutError as exc:
            raise Unavailable(str(exc)) from None

    def audit(self, limit: int) -> list[dict[str, Any]]:
        """The last day's audit trail, newest first, at most `limit` facts."""
        return self._audit()[::-1][:limit]

    def review(self) -> dict[str, Any]:
        """The last day's ISA-18.2 figures, computed as `cosyedge report kpi --since 24h`
        computes them (alarms/kpi.py `figures`) from the alarms the daemon holds for
        `/metrics` (alarms/figures.py), not read from the history's files at each request:
        alarms per 10-minute period against the flood line, the top 10, chattering, stale
        and shelved alarms; `covered` false, with why, without those figures."""
        base = {"period_s": PERIOD_S, "flood_above": FLOOD_ALARMS}
        alarms = self.snapshot(Detail(alarms=True)).alarms
        if alarms is None:
            return base | {"covered": False, "why": "no alarm history is kept"}
        f = alarms.day
        lists = {"chattering": f.chattering, "stale": f.stale, "shelved": f.shelved}
        counts = {"alarms": f.alarms, "per_period": f.per_period, "top10": f.top10}
        table = [{"figure": n, "value": v, "benchmark": b} for n, v, b in f.table()]
        window = {"start": f.start, "end": f.end, "complete": alarms.complete}
        return base | {"covered": True, "figures": table} | window | counts | lists

    def export(self, kind: str) -> str:
        """The last day's audit trail (`audit`) or figures (`kpi`) as `cosyedge report ...
        --format csv` writes them; ReportError when the history covers none of the day."""
        return audit_csv(self._audit()) if kind == "audit" else kpi_csv(self._kpi())

    def _audit(self) -> list[dict[str, Any]]:
        if self.history is None:
            return []
        end = time.time()
        return audit(self.history, end - DAY_S, end + 1)[0]

    def _kpi(self) -> KpiReport:
        if self.history is None:
            raise ReportError("no alarm history is kept")
        end = time.time()
        return kpi(self.history, end - DAY_S, end, end)
