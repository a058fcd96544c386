"""`cosyedge report kpi | audit`: the alarm history (alarms/history.py) for people.

`kpi` gives the ISA-18.2 alarm performance figures of a window beside their benchmarks
(alarms/kpi.py), for the plant's alarm rationalization meeting: as a table, as CSV (one row
per figure, alarm or period, for a spreadsheet) or as JSON, and optionally a plot of the
alarms per 10 minutes against the flood line. `audit` lists who did what to which alarm,
when and why: operator commands, refused ones, the alarm system's own faults, starts and
stops. Both read the history only; they run beside the daemon.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import io
import json
import math
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cosyedge.alarms.history import Fact, Skipped, audit, read_facts
from cosyedge.alarms.kpi import FLOOD_ALARMS, PERIOD_S, Figures, Replay, figures
from cosyedge.installed import install_hint

_SPAN = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw])")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class ReportError(ValueError):
    """A window or an output the report cannot give; the text says which and why."""


def moment(text: str, now: float, name: str) -> float:
    """`7d`, `24h`, `30m` (that long before `now`), or a date or time in ISO 8601
    (`2026-11-01`, `2026-11-01T06:00`; local time unless it names its offset)."""
    span = _SPAN.fullmatch(text.strip())
    if span:
        return now - float(span.group(1)) * _UNIT_S[span.group(2)]
    try:
        when = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ReportError(
            f"--{name}: expected a span such as 7d, 24h or 30m, or a date such as "
            f"2026-11-01 or 2026-11-01T06:00, got {text!r}"
        ) from None
    return when.timestamp() if when.tzinfo else when.astimezone().timestamp()


def history_dir(state_dir: Path) -> Path:
    """The daemon's alarm history; an error naming it when there is none to read."""
    directory = state_dir / "history"
    if not directory.is_dir():
        raise ReportError(f"no alarm history in {directory}: has the daemon run with this config?")
    os.listdir(directory)  # an OSError naming it (e.g. permission) rather than an empty report
    return directory


# -- kpi ------------------------------------------------------------------------------------
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
        return f"the alarm history begins {_when(first)}, after the window asked for ends"
    return "the window asked for lies in the future"


def kpi_text(directory: Path, start: float, end: float, form: str, plot_to: Path | None) -> str:
    """The figures of [start, end), as far as the history covers it, as `form` (table, csv,
    json); drawn to `plot_to` too."""
    report = kpi(directory, start, end)
    if plot_to is not None:
        plot(report, plot_to)
    return {"table": kpi_table, "csv": kpi_csv, "json": kpi_json}[form](report)


def kpi_table(report: KpiReport) -> str:
    f = report.figures
    lines = [
        f"Alarm performance, {_when(f.start)} to {_when(f.end)} "
        f"({f.alarms} alarms annunciated, {f.periods} periods of 10 minutes)",
        *_coverage(report),
        "",
        *_columns([("figure", "value", "ISA-18.2 benchmark"), *f.table()]),
        "",
        "By priority: " + ", ".join(f"{p} {n}" for p, n in f.by_priority.items()),
        "10 most frequent alarms:",
        *(f"  {n:6d}  {alarm}" for alarm, n in f.top10),
    ]
    for title, names in (("Chattering", f.chattering), ("Stale", f.stale), ("Shelved", f.shelved)):
        lines.append(f"{title}: " + (", ".join(names) if names else "none"))
    lines += [f"warning: {n} damaged lines passed over in {name}" for name, n in _damage(report)]
    return "\n".join(lines)


def kpi_csv(report: KpiReport) -> str:
    """Long form, one row each: `kind,name,value,benchmark`."""
    f = report.figures
    rows: list[tuple[Any, ...]] = [("kind", "name", "value", "benchmark")]
    rows += [("window", name, _when(t), "") for name, t in _window(report).items()]
    rows += [("figure", "alarms", f.alarms, "")]
    rows += [("figure", name, value, bench) for name, value, bench in f.table()]
    rows += [("priority", p, n, "") for p, n in f.by_priority.items()]
    rows += [("top10", alarm, n, "") for alarm, n in f.top10]
    rows += [(kind, name, "", "") for kind, names in _lists(f) for name in names]
    rows += [("period", _when(start), n, f"> {FLOOD_ALARMS}: flood") for start, n in f.per_period]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def kpi_json(report: KpiReport) -> str:
    f = report.figures
    body = {
        **dataclasses.asdict(f),
        "chattering_alarms": f.chattering_alarms,
        "stale_alarms": f.stale_alarms,
        "benchmarks": {name: bench for name, _, bench in f.table()},
        "damaged_lines": report.damaged,
        **{k: v for k, v in _window(report).items() if k not in ("start", "end")},
    }
    return json.dumps(body, ensure_ascii=False, indent=1)


def plot(report: KpiReport, out: Path) -> None:
    """Alarms per 10 minutes over the window, with the flood line, as PNG (or SVG, PDF by
    the file's suffix); needs matplotlib (the `report` extra), else a ReportError names how to
    get it (on a gateway: the CSV, and the plot elsewhere)."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display on a gateway
        from matplotlib import pyplot
    except ImportError:
        raise ReportError(f"--plot needs matplotlib: {install_hint('report')}") from None
    f = report.figures
    when = [dt.datetime.fromtimestamp(start) for start, _ in f.per_period]
    fig, ax = pyplot.subplots(figsize=(11, 4), layout="constrained")
    ax.bar(when, [n for _, n in f.per_period], width=PERIOD_S / 86400, align="edge")
    ax.axhline(FLOOD_ALARMS + 0.5, color="red", linestyle="--", label="flood (> 10 per 10 min)")
    ax.set_ylabel("alarms per 10 minutes")
    ax.set_title(f"Alarms annunciated, {_when(f.start)} to {_when(f.end)}")
    ax.legend(loc="upper right")
    fig.savefig(out)
    pyplot.close(fig)


# -- audit ----------------------------------------------------------------------------------
def audit_text(directory: Path, start: float, end: float, form: str) -> str:
    """The audit trail of [start, end) as `form` (table, csv, json)."""
    facts, damaged = audit(directory, start, end)
    if form == "json":
        return json.dumps(facts, ensure_ascii=False, indent=1)
    return audit_csv(facts) if form == "csv" else audit_table(facts, damaged)


def audit_rows(facts: Iterable[Fact]) -> list[tuple[str, str, str, str, str, str]]:
    """(when, who, what, target, alarms affected, why) for each fact."""
    return [_audit_row(f) for f in facts]


def audit_table(facts: list[Fact], damaged: dict[str, int]) -> str:
    header = ("when", "who", "what", "target", "alarms", "why")
    lines = _columns([header, *audit_rows(facts)]) if facts else ["nothing in this window"]
    lines += [f"warning: {n} damaged lines passed over in {name}" for name, n in damaged.items()]
    return "\n".join(lines)


def audit_csv(facts: list[Fact]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("when", "who", "what", "target", "alarms", "why"))
    writer.writerows(audit_rows(facts))
    return out.getvalue()


def _audit_row(f: Fact) -> tuple[str, str, str, str, str, str]:
    kind = f["e"]
    who = _str(f.get("user")) or ("operator" if kind.startswith("command") else "cosyedge")
    if kind == "command":
        what, target = _str(f.get("cmd")), _target(f)
        why = _str(f.get("comment"))
    elif kind == "command_refused":
        what, target, why = "refused", _str(f.get("command")), _str(f.get("reason"))
    elif kind.startswith("fault"):
        what, target, why = kind, _str(f.get("fault")), _str(f.get("reason"))
    else:
        what, target, why = kind, "", _str(f.get("version") or f.get("unsaid") or "")
    ids = f.get("ids")
    affected = ", ".join(map(str, ids)) if isinstance(ids, list) else ""
    return (_when(f["t"]), who, what, target, affected, why)


def _coverage(report: KpiReport) -> list[str]:
    """A line saying what of the window asked the figures cover, when it is not all."""
    f, (start, end) = report.figures, report.asked
    if (f.start, f.end) == (start, end):
        return []
    why = f"the alarm history begins {_when(report.begins)}" if f.start > start else ""
    if f.end < end:
        why += ("; " if why else "") + "the rest is still to come"
    return [
        f"Only {_span(f.end - f.start)} of the {_span(end - start)} asked for "
        f"({_when(start)} to {_when(end)}) is covered: {why}. The figures are of that period."
    ]


def _window(report: KpiReport) -> dict[str, float]:
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


def _span(seconds: float) -> str:
    """A length of time as people say it: 7 d, 3 h 20 min, 12 min."""
    minutes = round(seconds / 60)
    days, hours, minutes = minutes // 1440, minutes // 60 % 24, minutes % 60
    parts = [(days, "d"), (hours, "h"), (minutes, "min")]
    return " ".join(f"{n} {unit}" for n, unit in parts if n) or "under a minute"


# -- shared ---------------------------------------------------------------------------------
def _target(f: Fact) -> str:
    if f.get("id") is not None:
        return f"id {_str(f.get('id'))}"
    return f"topic {_str(f.get('topic'))}" if f.get("topic") is not None else "all"


def _str(value: Any) -> str:
    """A value read back from disk as one line of text, whatever it is."""
    return " ".join(str(value).split())[:200] if value is not None else ""


def _lists(f: Figures) -> list[tuple[str, list[str]]]:
    return [("chattering", f.chattering), ("stale", f.stale), ("shelved", f.shelved)]


def _damage(report: KpiReport) -> list[tuple[str, int]]:
    return sorted(report.damaged.items())


def _when(t: float) -> str:
    """A time as people at the plant read it: local, to the minute."""
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))
    except (OverflowError, OSError, ValueError):  # a time no calendar holds
        return f"@{t:.0f}"


def _columns(rows: list[tuple[Any, ...]]) -> list[str]:
    """Rows as left-aligned columns, each as wide as its widest cell."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
