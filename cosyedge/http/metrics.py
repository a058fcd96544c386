"""Prometheus metrics (`GET /metrics`), in the text format of `prometheus_client`.

What the daemon is now (queue, cache, memory, device, broker, faults) is its snapshot
(alarms/snapshot.py), made at scrape time for one collector, so no stage keeps counters for
it. Only what happened (alerts
received and accepted, outcomes, the latency to first audio) is counted, from the points every
alert passes: intake's hand-over to the journal and the outcome reports.

Names follow Prometheus' naming rules (https://prometheus.io/docs/practices/naming/): the
`cosyedge_` prefix, base units named as a suffix (`_seconds`, `_bytes`, `_ratio` for a
ratio), `_total` on counters only, and no gauge ending in the suffixes a histogram's or
summary's series use (`_count`, `_sum`, `_bucket`; https://prometheus.io/docs/concepts/
metric_types/). Every labelled counter and histogram shows its known label values from the
start, at zero, so that a first increase is seen as one (Prometheus' instrumentation
practices, "Avoid missing metrics").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from cosyedge.alarms.snapshot import Alarms, Snapshot
from cosyedge.model import OUTCOMES
from cosyedge.observe import Observer
from cosyedge.speech.cache.index import misses

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# From a cached phrase (tens of ms) to a long one synthesized on a busy gateway (seconds).
LATENCY_BUCKETS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0)
# Real-time factor of a clause: below 1 it is computed faster than it plays.
RTF_BUCKETS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0)
# An fdatasync on a good SSD takes a millisecond, on a worn SD card up to seconds.
FSYNC_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


VIAS = ("mqtt", "http")  # where alerts come in
SOURCES = ("cache", "synth")  # where a spoken alert's audio came from


class Metrics(Observer):
    """The daemon's metrics, in a registry of their own (never the library's global one):
    counted as the daemon tells them (observe.py), the rest read from `snapshot` at each
    scrape. `langs`: the configured voices' languages, the synthesis figures' labels."""

    def __init__(self, snapshot: Callable[[], Snapshot], langs: tuple[str, ...] = ()) -> None:
        self.registry = CollectorRegistry(auto_describe=False)  # no scrape while built
        counted = CollectorRegistry(auto_describe=False)
        r = counted
        self._received = Counter(
            "cosyedge_alerts_received", "alert messages and say requests", ["via"], registry=r
        )
        self._accepted = Counter(
            "cosyedge_alerts_accepted",
            "alerts journaled, to end in one outcome",
            ["via"],
            registry=r,
        )
        self._outcomes = Counter(
            "cosyedge_alert_outcomes", "outcomes reported, by kind", ["outcome"], registry=r
        )
        self._latency = Histogram(
            "cosyedge_first_audio_latency_seconds",
            "from receipt to the first audio of a spoken alert, by where its audio came from",
            ["source"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self._speech = Histogram(
            "cosyedge_first_speech_latency_seconds",
            "from receipt to the first audio of the phrase itself (after the chime) of a "
            "spoken alert, by where its audio came from",
            ["source"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self._rtf = Histogram(
            "cosyedge_synthesis_rtf_ratio",
            "real-time factor: seconds of computing per second of audio, per clause synthesized",
            ["lang"],
            buckets=RTF_BUCKETS,
            registry=r,
        )
        self._fsync = Histogram(
            "cosyedge_journal_fsync_seconds",
            "time the journal's fdatasync took",
            buckets=FSYNC_BUCKETS,
            registry=r,
        )
        self._zeros(langs)
        self.registry.register(_Uncreated(counted))
        self.registry.register(_Live(snapshot))

    def _zeros(self, langs: tuple[str, ...]) -> None:
        """Every known label value's series, at zero."""
        for via in VIAS:
            self._received.labels(via)
            self._accepted.labels(via)
        for outcome in OUTCOMES:
            self._outcomes.labels(outcome)
        for source in SOURCES:
            self._latency.labels(source)
            self._speech.labels(source)
        for lang in langs:
            self._rtf.labels(lang)

    def received(self, via: str) -> None:
        self._received.labels(via).inc()

    def accepted(self, via: str) -> None:
        self._accepted.labels(via).inc()

    def synced(self, seconds: float) -> None:
        self._fsync.observe(seconds)

    def synthesized(self, lang: str, computing_s: float, audio_s: float) -> None:
        if audio_s > 0:
            self._rtf.labels(lang).observe(computing_s / audio_s)

    def reported(self, report: Mapping[str, Any]) -> None:
        self._outcomes.labels(str(report.get("outcome"))).inc()
        source = report.get("source")
        if source not in SOURCES:
            return
        for name, histogram in (("latency_ms", self._latency), ("speech_latency_ms", self._speech)):
            latency = report.get(name)
            if isinstance(latency, (int, float)):
                histogram.labels(source).observe(max(0.0, latency / 1000))

    def text(self) -> bytes:
        return generate_latest(self.registry)


class _Uncreated(Collector):
    """The counters and histograms of `counted` without the `_created` series
    prometheus_client adds to each: this text format shows each as a gauge of its own, named
    with no unit and with a suffix OpenMetrics keeps for counters and histograms."""

    def __init__(self, counted: CollectorRegistry) -> None:
        self._counted = counted

    def collect(self) -> Iterator[Metric]:
        for family in self._counted.collect():
            kept = Metric(family.name, family.documentation, family.type, family.unit)
            for s in family.samples:
                if not s.name.endswith("_created"):
                    kept.add_sample(s.name, s.labels, s.value, s.timestamp, s.exemplar)
            yield kept


class _Live(Collector):
    def __init__(self, snapshot: Callable[[], Snapshot]) -> None:
        self._snapshot = snapshot

    def collect(self) -> Iterator[Metric]:
        g = self._snapshot()
        yield _gauge("cosyedge_queue_depth", "items waiting to be said or held", g.queue)
        zones = g.status.get("zones")
        if zones:
            depth = GaugeMetricFamily(
                "cosyedge_zone_queue_depth",
                "items waiting to be said in each zone",
                labels=["zone"],
            )
            for zone, its in sorted(zones.items()):
                depth.add_metric([zone], its["queue"])
            yield depth
        yield _gauge("cosyedge_memory_rss_bytes", "resident memory", g.rss_mb * 1e6)
        yield _gauge("cosyedge_memory_ceiling_bytes", "memory.ceiling_mb", g.ceiling_mb * 1e6)
        yield _gauge("cosyedge_audio_device_up", "1 while the sound device plays", g.audio_up)
        yield _gauge("cosyedge_broker_connected", "1 while connected", g.broker_connected)
        yield _gauge(
            "cosyedge_reports_unconfirmed",
            "outcomes whose reports the broker has not acknowledged yet",
            g.reports_unconfirmed,
        )
        faults = GaugeMetricFamily(
            "cosyedge_fault", "1 for each fault of the alarm system now", labels=["fault"]
        )
        for name in g.faults:
            faults.add_metric([name], 1)
        yield faults
        yield from _cache(g)
        yield CounterMetricFamily(
            "cosyedge_cache_evictions",
            "phrases evicted from the cache since start",
            g.cache_evictions,
        )
        shed = CounterMetricFamily(
            "cosyedge_memory_sheds",
            "the memory guard's actions since start: buffers dropped, voices unloaded, "
            "syntheses refused",
            labels=["what"],
        )
        for what, count in sorted(g.sheds.items()):
            shed.add_metric([what], count)
        yield shed
        if g.premium is not None:
            premium = GaugeMetricFamily(
                "cosyedge_cache_premium_phrases",
                "phrases of the premium tier: upgraded (premium), pending, failed",
                labels=["state"],
            )
            for state, count in sorted(g.premium.items()):
                premium.add_metric([state], count)
            yield premium
        if g.alarms is not None:
            yield from _isa(g.alarms)


def _cache(g: Snapshot) -> Iterator[Metric]:
    """Left out while the cache index cannot be read, rather than shown as zero."""
    if g.cache_entries is not None and g.cache_bytes is not None:
        yield _gauge("cosyedge_cache_entries", "phrases in the cache", g.cache_entries)
        yield _gauge("cosyedge_cache_bytes", "size of the cached phrases", g.cache_bytes)
    if g.cache_lookups is not None and g.cache_hits is not None:
        about = "phrase cache lookups since the cache was made"
        yield CounterMetricFamily("cosyedge_cache_hits", f"{about}: found", g.cache_hits)
        missed = misses(g.cache_lookups, g.cache_hits)
        yield CounterMetricFamily("cosyedge_cache_misses", f"{about}: synthesized", missed)


def _isa(a: Alarms) -> Iterator[Metric]:
    """ISA-18.2 alarm performance (docs/alarms.md, "Alarm performance"), the last 24 h."""
    day = a.day
    yield _gauge(
        "cosyedge_alarms_last_10m", "alarms annunciated in the last 10 minutes", a.last_10_min
    )
    yield _gauge("cosyedge_alarms_last_hour", "alarms annunciated in the last hour", a.last_hour)
    yield _gauge("cosyedge_alarms_last_day", "alarms annunciated in the last 24 h", day.alarms)
    yield _gauge(
        "cosyedge_alarm_flood_periods_ratio",
        "share of the last 24 h's 10-minute periods with more than 10 alarms",
        day.flood_periods / day.periods,
    )
    yield _gauge(
        "cosyedge_alarm_peak_10m",
        "most alarms in one 10-minute period, last 24 h",
        day.peak_alarms_per_10_min,
    )
    yield _gauge(
        "cosyedge_alarm_top10_ratio",
        "share of the last 24 h's alarms from its 10 most frequent alarms",
        day.top10_percent / 100,
    )
    top = GaugeMetricFamily(
        "cosyedge_alarm_top10_annunciations",
        "annunciations of each of the 10 most frequent alarms of the last 24 h",
        labels=["alarm"],
    )
    for alarm, count in day.top10:
        top.add_metric([alarm], count)
    yield top
    yield _gauge(
        "cosyedge_alarms_chattering",
        "alarms said 3 times within 60 s in the last 24 h",
        day.chattering_alarms,
    )
    yield _gauge("cosyedge_alarms_stale", "alarms standing unacknowledged for over 24 h", a.stale)
    yield _gauge("cosyedge_alarms_shelved", "sources shelved now", a.shelved)
    yield _gauge(
        "cosyedge_alarm_window_seconds",
        "the part of the last 24 h the alarm history covers, which these figures are of",
        day.end - day.start,
    )
    yield _gauge(
        "cosyedge_alarm_history_complete",
        "1 while every alarm of the last 24 h is counted in these figures",
        a.complete,
    )


def _gauge(name: str, help: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, help, value=float(value))
