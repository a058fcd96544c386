"""The daemon as the HTTP API (server.py `Backend`) and the Wyoming server (wyoming/server.py
`Synthesizer`) see it: say requests through the door, speech for callers beside the alerts,
and renderings of the daemon's snapshot for `/v1/status` and `/healthz`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cosyedge.alarms.desk import AlarmDesk
from cosyedge.alarms.snapshot import Snapshot, problems, status_report
from cosyedge.component import Detail
from cosyedge.config.voices import VoiceConfig
from cosyedge.intake.door import Accepted, Door, Unavailable
from cosyedge.speech.cache.background import Activity
from cosyedge.speech.memory import MemoryGuard, SheddableVoice
from cosyedge.speech.render import Renderer, Rendering


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
    ) -> None:
        """`configs`: the voices' configuration, `voices` the loaded ones, by language."""
        self.door, self.configs, self.voices_loaded = door, configs, voices
        self.renderer, self.memory = renderer, memory
        self.activity, self.desk, self.snapshot = activity, desk, snapshot

    def say(
        self, body: bytes, written: Callable[[], None], watch: Callable[[int], None] | None
    ) -> Accepted:
        return self.door.say(body, written, watch)

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
        return {
            lang: {
                "engine": self.configs[lang].engine,
                "name": voice.name,
                "sample_rate": voice.sample_rate,
                "loaded": getattr(voice, "loaded", True),
            }
            for lang, voice in self.voices_loaded.items()
        }
