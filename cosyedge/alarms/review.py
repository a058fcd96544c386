"""The alarm history reviewed for people: the ISA-18.2 figures of a window as the history
covers it, and the audit trail's rows, as `cosyedge report` gives them and the operator page
shows them (one implementation for both: ops/ is the command line's alone).

CSV made here is safe to open in a spreadsheet: a text cell that begins with `=`, `+`, `-`,
`@`, a tab or a carriage return would be read as a formula (CSV injection, OWASP), and an
operator's comment or a topic is text anyone with the command topic may choose; such a cell
is written with a `'` before it, which spreadsheets show as text.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cosyedge.alarms.history import Fact, Skipped, read_facts
from cosyedge.alarms.kpi import FLOOD_ALARMS, Figures, Replay, figures

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet may read as a formula
AUDIT_HEADER = ("when", "who", "what", "target", "alarms", "why")


class ReportError(ValueError):
    """A window or an output the report cannot give; the text says which and why."""


@dataclasses.dataclass
class KpiReport:
    figures: Figures  # of the period covered: its start and end
    damaged: dict[str, int]  # history file -> lines passed over
    asked: tuple[float, float]  # the window asked for
    begins: float  # the history's first fact


def kpi(directory: Path, start: float, end: float, now: float | None = None) -> KpiReport:
    """The figures of the part of [start, end) the history covers: from its first fact, up
    to `now` (a rate over hours it never saw would be an average of nothing); stale alarms
    and shelves as they stood at its end. ReportError when it covers none of it."""
    if end <= start:
        raise ReportError("the window is empty: --since must come before --until")
    replay, skipped, first = Replay(start, end), Skipped(), math.inf
    for fact in read_facts(directory, 0.0, skipped):  # all of it: what stands began long ago
        first = min(first, fact["t"])
        if fact["t"] < end:
            replay.read(fact)
    covered = (max(start, first), min(end, time.time() if now is None else now))
    if covered[0] >= covered[1]:
        raise ReportError(_uncovered(first, start, end))
    found = figures(replay.annunciations, *covered)
    found.stale, found.shelved = replay.stale(covered[1]), replay.shelved_at(covered[1])
    return KpiReport(found, skipped.damaged, (start, end), first)


def _uncovered(first: float, start: float, end: float) -> str:
    if first == math.inf:
        return "the alarm history holds no facts yet"
    if first >= end:
        return f"the alarm history begins {when(first)}, after the window asked for ends"
    return "the window asked for lies in the future"


def kpi_csv(report: KpiReport) -> str:
    """Long form, one row each: `kind,name,value,benchmark`."""
    f = report.figures
    rows: list[tuple[Any, ...]] = [("kind", "name", "value", "benchmark")]
    rows += [("window", name, when(t), "") for name, t in window(report).items()]
    rows += [("figure", "alarms", f.alarms, "")]
    rows += [("figure", name, value, bench) for name, value, bench in f.table()]
    rows += [("priority", p, n, "") for p, n in f.by_priority.items()]
    rows += [("top10", alarm, n, "") for alarm, n in f.top10]
    rows += [(kind, name, "", "") for kind, names in lists(f) for name in names]
    rows += [("period", when(start), n, f"> {FLOOD_ALARMS}: flood") for start, n in f.per_period]
    return csv_text(rows)


def window(report: KpiReport) -> dict[str, float]:
    """The period covered (`start`, `end`), the window asked for and where the history
    begins, by name."""
    f, (start, end) = report.figures, report.asked
    return {
        "start": f.start,
        "end": f.end,
        "asked_start": start,
        "asked_end": end,
        "history_begins": report.begins,
    }


def lists(f: Figures) -> list[tuple[str, list[str]]]:
    return [("chattering", f.chattering), ("stale", f.stale), ("shelved", f.shelved)]


# -- the audit trail ------------------------------------------------------------------------
def audit_rows(facts: Iterable[Fact]) -> list[tuple[str, str, str, str, str, str]]:
    """(when, who, what, target, alarms affected, why) for each fact."""
    return [_audit_row(f) for f in facts]


def audit_csv(facts: Iterable[Fact]) -> str:
    return csv_text([AUDIT_HEADER, *audit_rows(facts)])


def _audit_row(f: Fact) -> tuple[str, str, str, str, str, str]:
    kind = f["e"]
    who = text(f.get("user")) or ("operator" if kind.startswith("command") else "cosyedge")
    if kind == "command":
        what, target = text(f.get("cmd")), _target(f)
        why = text(f.get("comment"))
    elif kind == "command_answer":  # a plant system's answer to an ack or confirm
        what, target = f"{text(f.get('cmd'))} answered {text(f.get('status'))}", _condition(f)
        why = text(f.get("comment"))
    elif kind == "command_refused":
        what, target, why = "refused", text(f.get("command")), text(f.get("reason"))
    elif kind == "test_announcement":
        what, target, why = "test announcement", f"seq {text(f.get('seq'))}", text(f.get("request"))
    elif kind.startswith("fault"):
        what, target, why = kind, text(f.get("fault")), text(f.get("reason"))
    else:
        what, target, why = kind, "", text(f.get("version") or f.get("unsaid") or "")
    ids = f.get("ids")
    affected = ", ".join(map(str, ids)) if isinstance(ids, list) else ""
    return (when(f["t"]), who, what, target, affected, why)


def _condition(f: Fact) -> str:
    return f"{text(f.get('source'))} condition {text(f.get('condition'))}"


def _target(f: Fact) -> str:
    if f.get("id") is not None:
        return f"id {text(f.get('id'))}"
    return f"topic {text(f.get('topic'))}" if f.get("topic") is not None else "all"


# -- shared ---------------------------------------------------------------------------------
def csv_text(rows: Iterable[Iterable[Any]]) -> str:
    """Rows as CSV, each text cell that a spreadsheet would take for a formula made text."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([[_cell(c) for c in row] for row in rows])
    return out.getvalue()


def _cell(value: Any) -> Any:
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_START) else value


def text(value: Any) -> str:
    """A value read back from disk as one line of text, whatever it is."""
    return " ".join(str(value).split())[:200] if value is not None else ""


def when(t: float) -> str:
    """A time as people at the plant read it: local, to the minute."""
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))
    except (OverflowError, OSError, ValueError):  # a time no calendar holds
        return f"@{t:.0f}"
