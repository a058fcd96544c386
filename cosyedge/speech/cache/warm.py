"""Pre-warming: render ahead every phrase the templates can say, so alerts start from cache.

A template with no placeholders says one fixed phrase; one whose every placeholder has
declared `values` says their combinations. These phrases are rendered through the same
template formatter and renderer as live alerts, so the keys match exactly, and they are
pinned: eviction only ever takes phrases nobody declared.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cosyedge.alerts.alert import Alert, RejectedAlert
from cosyedge.announcements.templates import Template
from cosyedge.speech.cache.values import combinations, placeholders

if TYPE_CHECKING:
    from cosyedge.config import TemplateConfig
    from cosyedge.speech.render import Renderer


@dataclass(frozen=True)
class Phrase:
    text: str
    lang: str


def declared_phrases(templates: Iterable[TemplateConfig]) -> list[Phrase]:
    """Every phrase the templates can say, for those whose phrases form a finite set."""
    phrases: dict[Phrase, None] = {}
    for config in templates:
        if placeholders(config.text) and not config.values:
            continue
        template = Template(config)
        for fields in combinations(config.values):
            alert = Alert(topic=config.topic, fields=fields, id="warm", received=0.0)
            try:
                announcement = template.render(alert, {})
            except RejectedAlert:
                continue
            phrases[Phrase(announcement.text, announcement.lang)] = None
    return list(phrases)


@dataclass
class WarmSummary:
    total: int
    new: int = 0
    cached: int = 0
    failed: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def done(self) -> int:
        return self.new + self.cached + self.failed

    def add(self, outcome: str) -> None:
        setattr(self, outcome, getattr(self, outcome) + 1)

    def line(self) -> str:
        seconds = time.monotonic() - self.started
        rate = self.done / seconds if seconds > 0 else 0.0
        return (
            f"{self.total} phrases: {self.new} new, {self.cached} already cached, "
            f"{self.failed} failed in {seconds:.1f} s ({rate:.1f} phrases/s)"
        )


def warm_one(
    renderer: Renderer, phrase: Phrase, interrupted: Callable[[], bool] = lambda: False
) -> str:
    """Render one phrase into the cache: new, cached, failed or interrupted.

    `interrupted` is asked after every clause; a phrase abandoned half-way is not stored.
    """
    rendering = renderer.render(phrase.text, phrase.lang, record=False)
    if rendering.source == "cache":
        return "cached"
    chunks = rendering.chunks
    try:
        for _ in chunks:
            if interrupted():
                return "interrupted"
    finally:
        close = getattr(chunks, "close", None)
        if close:
            close()
    return "new" if renderer.cache.contains(renderer.key(phrase.text, phrase.lang)) else "failed"
