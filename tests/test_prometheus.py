"""Every metric `/metrics` shows, checked against Prometheus' naming rules: in this process,
with every family the daemon can show (the premium tier's and the faults' included), and on
the real daemon as a scraper sees it; every labelled counter and histogram is there at zero
from the start, and a spoken alert is counted from its receipt to its speech.

The rules, from Prometheus' documentation:
- the data model (https://prometheus.io/docs/concepts/data_model/): names match
  `[a-zA-Z_:][a-zA-Z0-9_:]*`, and colons are for recording rules, not exporters; label names
  match `[a-zA-Z_][a-zA-Z0-9_]*`, and those beginning with `__` are reserved;
- metric and label naming (https://prometheus.io/docs/practices/naming/): an application
  prefix; base units (seconds, bytes; ratio for a share, not percent), named in plural as the
  suffix; `_total` for an accumulating count;
- metric types (https://prometheus.io/docs/concepts/metric_types/): a histogram's or
  summary's series end in `_bucket`, `_sum`, `_count` (and OpenMetrics' `_created`), so no
  other metric's name may;
- instrumentation (https://prometheus.io/docs/practices/instrumentation/), "Avoid missing
  metrics": a labelled series is shown at zero before its first increase.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from support import Listener, free_port, publish, wait_until
from test_http import call, http_config

from cosyedge.alarms.kpi import Annunciation, figures
from cosyedge.alarms.snapshot import Alarms, Snapshot
from cosyedge.http.metrics import Metrics
from cosyedge.model import OUTCOMES

NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*\Z")  # without the colon, which is not ours to use
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="')
SERIES_SUFFIXES = ("_bucket", "_sum", "_count", "_created")
BASE_UNITS = ("_seconds", "_bytes", "_ratio")  # the ones a cosyedge histogram can measure
NOT_BASE = ("_milliseconds", "_ms", "_minutes", "_hours", "_days", "_megabytes", "_mb")
NOT_BASE += ("_kilobytes", "_kb", "_percent")
DOCS = Path(__file__).resolve().parents[1] / "docs" / "http.md"


def naming_problems(text: str) -> list[str]:
    """What in a scrape breaks the rules above, one line each; none when it follows them."""
    problems = []
    types = dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))
    for name, kind in types.items():
        problems += [f"{name}: {why}" for why in _name_problems(name, kind)]
    for line in text.splitlines():
        if line and not line.startswith("#"):
            for label in LABEL.findall(line.partition("{")[2].rpartition("}")[0]):
                if label.startswith("__") or (label == "le" and "_bucket{" not in line):
                    problems.append(f"{line}: label {label} is reserved")
    return problems


def _name_problems(name: str, kind: str) -> list[str]:
    found = []
    if not NAME.match(name) or not name.startswith("cosyedge_"):
        found.append("not a name of ours: [a-zA-Z_][a-zA-Z0-9_]* with the prefix cosyedge_")
    if (kind == "counter") != name.endswith("_total"):
        found.append("_total is for counters, and every counter's name ends in it")
    if kind != "histogram" and name.endswith(SERIES_SUFFIXES):
        found.append("ends in a suffix of a histogram's or summary's series")
    if kind == "histogram" and not name.endswith(BASE_UNITS):
        found.append(f"a histogram measures something: its base unit last ({BASE_UNITS})")
    if name.removesuffix("_total").endswith(NOT_BASE):
        found.append("not a base unit (seconds, bytes, ratio)")
    return found


def every_family() -> Metrics:
    """The daemon's metrics with every family it can show: faults, the cache, the premium
    tier, the alarm figures, and each counted thing counted once."""
    day = figures([Annunciation(1000.0, "plant/1/temperature", "high")], 0.0, 86400.0)
    snapshot = Snapshot(
        *(3, 10, 20480, 9, 4, 120.0, 512.0, True, True, 0),
        cache_evictions=1,
        sheds={"buffers": 0, "voices": 1, "refusals": 0},
        faults={"audio": "no device"},
        premium={"premium": 1, "pending": 2, "failed": 0},
        status={"zones": {"hall": {"queue": 2, "speaking": None, "flood": False}}},
        alarms=Alarms(day, 1, 1, True, 0, 0),
    )
    metrics = Metrics(lambda: snapshot, ("en", "zh"))
    metrics.received("mqtt")
    metrics.accepted("mqtt")
    metrics.reported({"outcome": "spoken", "source": "synth", "latency_ms": 210})
    metrics.reported({"outcome": "spoken", "source": "synth", "speech_latency_ms": 900})
    metrics.synced(0.002)
    metrics.synthesized("en", 0.3, 2.0)
    return metrics


def test_the_rules_find_what_breaks_them():
    """The check can fail: the names the daemon used to show, and others that break a rule."""
    old = (
        "# TYPE cosyedge_alarm_top_count gauge\n"
        'cosyedge_alarm_top_count{alarm="plant/a"} 3.0\n'
        "# TYPE cosyedge_synthesis_rtf histogram\n"
        "# TYPE cosyedge_alerts_received_created gauge\n"
        "# TYPE cosyedge_latency_ms gauge\n"
        "# TYPE cosyedge_spoken counter\n"
        "# TYPE cosyedge_queue_total gauge\n"
        "# TYPE cosyedge:ratio gauge\n"
        'cosyedge_x{__name="a"} 1\n'
    )
    problems = naming_problems(old)
    for name in (
        "cosyedge_alarm_top_count",
        "cosyedge_synthesis_rtf",
        "cosyedge_alerts_received_created",
        "cosyedge_latency_ms",
        "cosyedge_spoken",
        "cosyedge_queue_total",
        "cosyedge:ratio",
        "__name",
    ):
        assert any(name in p for p in problems), (name, problems)


def test_every_family_the_daemon_can_show_follows_the_naming_rules():
    text = every_family().text().decode()
    assert naming_problems(text) == []
    shown = set(re.findall(r"^# TYPE (\S+) ", text, re.M))
    assert {"cosyedge_alarm_top10_annunciations", "cosyedge_cache_premium_phrases"} <= shown
    assert {"cosyedge_synthesis_rtf_ratio", "cosyedge_fault"} <= shown
    assert 'cosyedge_zone_queue_depth{zone="hall"} 2.0' in text
    documented = set(re.findall(r"`(cosyedge_[a-z0-9_]+)", DOCS.read_text()))
    assert shown == documented, "docs/http.md's table of metrics and /metrics differ"


def test_labelled_counters_and_histograms_are_at_zero_before_anything_happens():
    snapshot = Snapshot(0, None, None, None, None, 0.0, 0.0, True, True, 0)
    text = Metrics(lambda: snapshot, ("en", "zh")).text().decode()
    zero = set(re.findall(r"^(\S+) 0\.0$", text, re.M))
    for via in ("mqtt", "http"):
        assert f'cosyedge_alerts_received_total{{via="{via}"}}' in zero
        assert f'cosyedge_alerts_accepted_total{{via="{via}"}}' in zero
    for outcome in OUTCOMES:
        assert f'cosyedge_alert_outcomes_total{{outcome="{outcome}"}}' in zero
    for source in ("cache", "synth"):
        assert f'cosyedge_first_audio_latency_seconds_count{{source="{source}"}}' in zero
        assert f'cosyedge_first_speech_latency_seconds_count{{source="{source}"}}' in zero
    for lang in ("en", "zh"):
        assert f'cosyedge_synthesis_rtf_ratio_count{{lang="{lang}"}}' in zero


def test_the_daemon_s_metrics_follow_the_rules_and_count_from_receipt_to_speech(
    broker, alsa_sink, make_daemon, tmp_path
):
    http_port = free_port()
    reports = Listener(broker.port, "cosyedge/report")
    make_daemon(http_config(broker.port, tmp_path, http_port))
    status, before, _ = call(http_port, "GET", "/metrics")
    assert status == 200 and naming_problems(before.decode()) == []
    assert 'cosyedge_alerts_received_total{via="mqtt"} 0.0' in before.decode()

    publish(broker.port, "plant/2/temperature", json.dumps({"value": 90, "id": "t2"}))
    (report,) = reports.wait_for("cosyedge/report", lambda r: r, timeout=120)
    assert report["outcome"] == "spoken" and report["source"] == "synth", report
    # Receipt to the chime's first block, and to the phrase after it: later, never earlier.
    assert 0 <= report["latency_ms"] <= report["speech_latency_ms"]
    wanted = 'cosyedge_first_speech_latency_seconds_count{source="synth"} 1.0'
    text = wait_until(
        lambda: wanted in (t := call(http_port, "GET", "/metrics")[1].decode()) and t, 10, wanted
    )
    assert naming_problems(text) == []
    assert 'cosyedge_alarm_top10_annunciations{alarm="plant/2/temperature"} 1.0' in text
    reports.close()
