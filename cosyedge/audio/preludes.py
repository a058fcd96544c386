"""What a template plays before its phrase: a standard signal tone in place of the priority's
chime, then a recorded message, which may stand in for the phrase (docs/zones.md).

The recorded messages are read and checked when the daemon starts and at each reload, never
at an alert: one that cannot be played (gone, not a WAV, stereo, clipped, silent) is the fault
`recorded`, named in the status, and the alerts of its template are said without it, their
phrase always: a broken file never makes an alert unheard. Tones are made at the rate they
are played at, once each.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from cosyedge.audio.recorded import RecordedMessage, RecordedRefused, load_recorded
from cosyedge.audio.tones import tone_for
from cosyedge.component import Component, Detail
from cosyedge.config.signals import RecordedConfig, ToneConfig
from cosyedge.model import Prelude

if TYPE_CHECKING:
    from collections.abc import Mapping

    from cosyedge.config.schema import Config
    from cosyedge.config.templates import TemplateConfig

log = logging.getLogger(__name__)


class Preludes(Component):
    """The templates' tones and recorded messages, ready to play (thread-safe for the zones'
    announcers: each table is replaced whole, never changed in place but for a new tone)."""

    def __init__(self, templates: Iterable[TemplateConfig]) -> None:
        self._messages: dict[RecordedConfig, RecordedMessage] = {}
        self.refused: dict[RecordedConfig, str] = {}  # messages that cannot be played, why
        self._pcm: dict[tuple[RecordedConfig, int], np.ndarray] = {}
        self._tones: dict[tuple[ToneConfig, int, float], np.ndarray] = {}
        self._load(templates)

    def _load(self, templates: Iterable[TemplateConfig]) -> None:
        """Read and check every recorded message the templates name (each file once)."""
        messages: dict[RecordedConfig, RecordedMessage] = {}
        refused: dict[RecordedConfig, str] = {}
        for config in dict.fromkeys(t.recorded for t in templates if t.recorded is not None):
            try:
                messages[config] = load_recorded(config)
            except RecordedRefused as exc:
                log.error("%s; its alerts are said without it", exc)
                refused[config] = str(exc)
        self._messages, self.refused, self._pcm = messages, refused, {}

    def replaces_text(self, prelude: Prelude) -> RecordedMessage | None:
        """The recorded message said in place of the phrase, when there is one to play."""
        recorded = prelude.recorded
        if recorded is None or not recorded.instead_of_text:
            return None
        return self._messages.get(recorded)

    def lead(
        self, prelude: Prelude, sample_rate: int, replaced: bool, tone_db: float = 0.0
    ) -> list[np.ndarray] | None:
        """What is played before the phrase at `sample_rate`: the tone, `tone_db` below its
        configured level (a zone's `tone_level_db`), then the recorded message unless it is
        the phrase itself (`replaced`); None: nothing of the template's (the priority's chime
        then)."""
        parts = []
        if prelude.tone is not None:
            parts.append(self._tone(prelude.tone, sample_rate, tone_db))
        message = self._messages.get(prelude.recorded) if prelude.recorded else None
        if message is not None and not replaced:
            parts.append(self.pcm(prelude.recorded, sample_rate))
        return parts or None

    def pcm(self, recorded: RecordedConfig | None, sample_rate: int) -> np.ndarray:
        """A recorded message's int16 samples at `sample_rate`, converted once."""
        assert recorded is not None
        key = (recorded, sample_rate)
        if key not in self._pcm:
            self._pcm[key] = self._messages[recorded].pcm(sample_rate)
        return self._pcm[key]

    def _tone(self, config: ToneConfig, sample_rate: int, db: float) -> np.ndarray:
        """The tone made once a rate, scaled once a level (a zone's): never at an alert."""
        key = (config, sample_rate, db)
        if key not in self._tones:
            made = self._tones.get((config, sample_rate, 0.0))
            if made is None:
                made = self._tones[(config, sample_rate, 0.0)] = tone_for(config, sample_rate)
            self._tones[key] = made if db == 0.0 else _scaled(made, db)
        return self._tones[key]

    # -- the component --------------------------------------------------------------------
    def reconfigure(self, config: Config) -> None:
        self._load(config.templates)

    def tick(self, now: float) -> Mapping[str, str | None]:
        return {"recorded": "; ".join(self.refused.values()) or None}

    def state(self, detail: Detail) -> Mapping[str, Any]:
        return {}


def _scaled(pcm: np.ndarray, db: float) -> np.ndarray:
    """int16 samples `db` (<= 0) lower, rounded to the nearest code."""
    return np.round(pcm * 10 ** (db / 20)).astype(np.int16)
