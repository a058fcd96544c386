"""`cosyedge report kpi | audit`: the alarm history (alarms/history.py) for people.

`kpi` gives the ISA-18.2 alarm performance figures of a window beside their benchmarks
(alarms/kpi.py), for the plant's alarm rationalization meeting: as a table, as CSV (one row
per figure, alarm or period, for a spreadsheet) or as JSON, and optionally a plot of the
alarms per 10 minutes against the flood line. `audit` lists who did what to which alarm,
when and why: operator commands, refused ones, the alarm system's own faults, starts and
stops. Both read the history only; they run beside the daemon.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import re
from pathlib import Path
from typing import Any

from cosyedge.alarms.history import Fact, audit
from cosyedge.alarms.kpi import FLOOD_ALARMS, PERIOD_S
from cosyedge.alarms.review import (
    AUDIT_HEADER,
    KpiReport,
    ReportError,
    audit_csv,
    audit_rows,
    kpi,
    kpi_csv,
    when,
    window,
)
from cosyedge.installed import install_hint

_SPAN = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw])")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def moment(text: str, now: float, name: str) -> float:
    """`7d`, `24h`, `30m` (that long before `now`), or a date or time in ISO 8601
    (`2026-11-01`, `2026-11-01T06:00`; local time unless it names its offset)."""
    span = _SPAN.fullmatch(text.strip())
    if span:
        return now - float(span.group(1)) * _UNIT_S[span.group(2)]
    try:
        at = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ReportError(
            f"--{name}: expected a span such as 7d, 24h or 30m, or a date such as "
            f"2026-11-01 or 2026-11-01T06:00, got {text!r}"
        ) from None
    return at.timestamp() if at.tzinfo else at.astimezone().timestamp()


def history_dir(state_dir: Path) -> Path:
    """The daemon's alarm history; an error naming it when there is none to read."""
    directory = state_dir / "history"
    if not directory.is_dir():
        raise ReportError(f"no alarm history in {directory}: has the daemon run with this config?")
    os.listdir(directory)  # an OSError naming it (e.g. permission) rather than an empty report
    return directory


# -- kpi ------------------------------------------------------------------------------------
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
        f"Alarm performance, {when(f.start)} to {when(f.end)} "
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


def kpi_json(report: KpiReport) -> str:
    f = report.figures
    body = {
        **dataclasses.asdict(f),
        "chattering_alarms": f.chattering_alarms,
        "stale_alarms": f.stale_alarms,
        "benchmarks": {name: bench for name, _, bench in f.table()},
        "damaged_lines": report.damaged,
        **{k: v for k, v in window(report).items() if k not in ("start", "end")},
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
    starts = [dt.datetime.fromtimestamp(start) for start, _ in f.per_period]
    fig, ax = pyplot.subplots(figsize=(11, 4), layout="constrained")
    ax.bar(starts, [n for _, n in f.per_period], width=PERIOD_S / 86400, align="edge")
    ax.axhline(FLOOD_ALARMS + 0.5, color="red", linestyle="--", label="flood (> 10 per 10 min)")
    ax.set_ylabel("alarms per 10 minutes")
    ax.set_title(f"Alarms annunciated, {when(f.start)} to {when(f.end)}")
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


def audit_table(facts: list[Fact], damaged: dict[str, int]) -> str:
    lines = _columns([AUDIT_HEADER, *audit_rows(facts)]) if facts else ["nothing in this window"]
    lines += [f"warning: {n} damaged lines passed over in {name}" for name, n in damaged.items()]
    return "\n".join(lines)


def _coverage(report: KpiReport) -> list[str]:
    """A line saying what of the window asked the figures cover, when it is not all."""
    f, (start, end) = report.figures, report.asked
    if (f.start, f.end) == (start, end):
        return []
    why = f"the alarm history begins {when(report.begins)}" if f.start > start else ""
    if f.end < end:
        why += ("; " if why else "") + "the rest is still to come"
    return [
        f"Only {_span(f.end - f.start)} of the {_span(end - start)} asked for "
        f"({when(start)} to {when(end)}) is covered: {why}. The figures are of that period."
    ]


def _span(seconds: float) -> str:
    """A length of time as people say it: 7 d, 3 h 20 min, 12 min."""
    minutes = round(seconds / 60)
    days, hours, minutes = minutes // 1440, minutes // 60 % 24, minutes % 60
    parts = [(days, "d"), (hours, "h"), (minutes, "min")]
    return " ".join(f"{n} {unit}" for n, unit in parts if n) or "under a minute"


# -- shared ---------------------------------------------------------------------------------
def _damage(report: KpiReport) -> list[tuple[str, int]]:
    return sorted(report.damaged.items())


def _columns(rows: list[tuple[Any, ...]]) -> list[str]:
    """Rows as left-aligned columns, each as wide as its widest cell."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
