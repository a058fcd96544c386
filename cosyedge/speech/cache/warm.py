"""Pre-warming: render ahead every phrase the templates can say, so alerts start from cache.

The phrases come from `intake.templates.declared_phrases`, made by the same template
formatter as live alerts and rendered here by the same renderer, so the keys match exactly;
they are pinned: eviction only ever takes phrases nobody declared.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cosyedge.speech.render import Renderer


@dataclass(frozen=True)
class Phrase:
    text: str
    lang: str


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
