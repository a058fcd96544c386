"""Alarm flood detection (ISA-18.2: more than 10 alarms in 10 minutes) and the summary wording.

In a flood one summary replaces many announcements; critical alarms are still spoken one by
one. The flood is over when the count within the window has fallen to `end_at`.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence

from cosyedge.config.alarms import FloodConfig
from cosyedge.model import Counted


class FloodWatch:
    def __init__(self, config: FloodConfig) -> None:
        self.config = config
        self.active = False
        self._arrivals: deque[float] = deque()

    def arrive(self, now: float) -> bool:
        """Count one new alarm; True when it starts a flood."""
        self._forget(now)
        self._arrivals.append(now)
        if not self.active and len(self._arrivals) > self.config.threshold:
            self.active = True
            return True
        return False

    def ended(self, now: float) -> bool:
        """True once, when an active flood has calmed down."""
        self._forget(now)
        if self.active and len(self._arrivals) <= self.config.end_at:
            self.active = False
            return True
        return False

    def count(self, now: float) -> int:
        self._forget(now)
        return len(self._arrivals)

    def _forget(self, now: float) -> None:
        horizon = now - self.config.window_s
        while self._arrivals and self._arrivals[0] <= horizon:
            self._arrivals.popleft()


def most_spoken(counted: Sequence[Counted], top: Counted) -> str:
    """The language most of these alarms are said in; on a tie, the highest alarm's."""
    langs = Counter(c.lang for c in counted if c.lang)
    first = top.lang or "en"
    return max(langs, key=lambda lang: (langs[lang], lang == first), default=first)


def summary_text(
    priorities: Sequence[str], highest: str | None, final: bool, lang: str = "en"
) -> str:
    """ "Alarm flood: 12 new alarms, 3 critical. Highest: <its phrase>" and/or the flood's end,
    in English or Mandarin: an operator who hears alarms in Mandarin hears the summary so too."""
    zh = lang == "zh"
    parts = []
    if priorities:
        n, critical = len(priorities), sum(p == "critical" for p in priorities)
        if zh:
            head = f"报警泛滥：{n}条新报警" + (f"，其中{critical}条紧急" if critical else "")
            parts.append(head + "。")
            if highest:
                parts.append(f"最高：{highest.rstrip('.。')}。")
        else:
            head = f"Alarm flood: {n} new alarm{'s' if n != 1 else ''}"
            if critical:
                head += f", {critical} critical"
            parts.append(head + ".")
            if highest:
                parts.append(f"Highest: {highest.rstrip('.。')}.")
    if final:
        parts.append("报警泛滥已结束。" if zh else "The alarm flood is over.")
    return ("" if zh else " ").join(parts)
