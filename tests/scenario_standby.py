"""The proving ground's standby scenario: a primary gateway and its standby on one Mosquitto,
the primary killed with kill -9 again and again while alerts flow, restarted each time.

Part one: K kills of the primary, paced as a card takes audio (so that an announcement is
in progress when most kills land), alerts published before, during and after each death.
Part two: the primary restarted unpaced and a run of alerts with both gateways up, which
the standby must hold and see covered, saying none. The account: every alert said once by
one of them (or an outcome telling why it was not), each kill's takeover latency (kill -9
to the standby's first alert audio), each restart's handback hold, and what became of each
announcement a kill cut short. Sizes: `standby_kills`, `standby_alerts` (part one) and
`standby_normal` (part two) in scenarios.SIZES.
"""

from __future__ import annotations

import base64
import contextlib
import json
import queue
import re
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from support import REPO, AlsaSink, Daemon, Listener, wait_until

# The standby's own report topics (never the primary's), and what it names of the primary.
STANDBY_REPORT, STANDBY_STATUS, STANDBY_EVENT = "standby/report", "standby/status", "standby/event"
PRIMARY_REPORT = "cosyedge/report"
PRIMARY_SECTION = f"standby:\n  reports_of: {STANDBY_REPORT}\n"
STANDBY_SECTION = f"""reports:
  outcome_topic: {STANDBY_REPORT}
  event_topic: {STANDBY_EVENT}
  error_topic: standby/error
  status_topic: {STANDBY_STATUS}
standby:
  enabled: true
  client_id: gw-primary
  takeover_s: {{takeover_s}}
"""
# Three short phrases: each gateway synthesizes them once, then plays them from its cache.
TEXTS = ("Pump one has stopped.", "Valve two is open.", "Fan three has failed.")
PRIORITIES = ("medium", "high", "low", "medium", "critical")
HOLD_LOG = r"handback: what the broker kept is in after ([\d.]+) s"
HOLD_TIMED_OUT = "handback: what the broker kept did not come in"


def alert(i: int) -> tuple[str, str]:
    payload = {"id": f"sb-{i}", "text": TEXTS[i % 3], "priority": PRIORITIES[i % 5]}
    return f"plant/{i % 5 + 1}/alarm", json.dumps(payload)


class Feed:
    """Publishes what it is given, one message per `gap_s`, on a thread of its own: alerts
    go on while the test kills and restarts the primary."""

    def __init__(self, publisher) -> None:
        self.publisher = publisher
        self.queue: queue.Queue[tuple[str, str, float] | None] = queue.Queue()
        self.sent: list[str] = []  # ids, in the order published
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def add(self, messages: list[tuple[str, str]], gap_s: float) -> None:
        for topic, payload in messages:
            self.queue.put((topic, payload, gap_s))

    def _run(self) -> None:
        while (item := self.queue.get()) is not None:
            topic, payload, gap_s = item
            self.publisher.send(topic, payload)
            self.sent.append(json.loads(payload)["id"])
            self.queue.task_done()
            time.sleep(gap_s)
        self.queue.task_done()

    def drain(self) -> None:
        """Until everything given has been published."""
        self.queue.join()

    def close(self) -> None:
        self.queue.put(None)
        self._thread.join(timeout=10)


@dataclass
class Kill:
    """One kill -9 of the primary: when, how, and what it cut short."""

    at: float  # wall clock, as the reports' start and end
    idle: bool  # the primary had said everything sent to it
    cut: list[str] = field(default_factory=list)  # ids whose speaking began, unreported
    latency_s: float | None = None  # the kill to the standby's first alert audio
    untold: list[str] = field(default_factory=list)  # idle: what it had no outcome of, 60 s on


def gateway(lab, name: str, takeover_s: float | None = None) -> str:
    """A gateway's configuration on the lab's broker: the primary's, or with `takeover_s`
    the standby's; each with its own client id, state and phrase cache."""
    home = lab.root / name
    section = (
        PRIMARY_SECTION if takeover_s is None else STANDBY_SECTION.format(takeover_s=takeover_s)
    )
    text = lab.config(extra=section, cache_dir=home / "cache")
    text = text.replace(f"state_dir: {lab.root}/state", f"state_dir: {home}/state")
    return text.replace("  reconnect_max_s: 2\n", f"  reconnect_max_s: 2\n  client_id: gw-{name}\n")


def start_gateway(lab, name: str, config: str, module: str = "cosyedge") -> Daemon:
    sink = AlsaSink(lab.root / name / "sound")
    env = {
        **sink.env,
        "XDG_STATE_HOME": str(lab.root / name / "state-home"),
        "PYTHONPATH": str(REPO),  # bench.paced_daemon
    }
    daemon = Daemon(lab.root / name / "run", config, env, models=lab.models, module=module)
    lab.daemons.append(daemon)
    lab.current = daemon  # the probe follows it
    return daemon.start()


def reports(heard: Listener, topic: str) -> list[dict]:
    """A gateway's reports, one per seq: a report sent again after a kill counts once."""
    by_seq: dict[int, dict] = {}
    for report in heard.on(topic):
        if isinstance(report, dict) and "seq" in report:
            by_seq.setdefault(report["seq"], report)
    return list(by_seq.values())


def spoken(heard: Listener, topic: str) -> list[dict]:
    return [r for r in reports(heard, topic) if r["outcome"] == "spoken"]


def final(heard: Listener, topic: str) -> dict[str, list[dict]]:
    """Each id's own outcomes on one gateway (a copy's `deduplicated` is none)."""
    by_id: dict[str, list[dict]] = {}
    for r in reports(heard, topic):
        if r["outcome"] != "deduplicated":
            by_id.setdefault(r.get("id"), []).append(r)
    return by_id


def cut_short(journal: Path) -> list[str]:
    """Ids the announcer began to speak (a `try` record) and had no outcome of (`out`) when
    the journal stopped: what a kill cut short. A torn last line is skipped."""
    records = []
    for line in journal.read_bytes().splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    ids = {}
    for r in records:
        if "in" in r and "payload" in r:
            ids[r["in"]] = json.loads(base64.b64decode(r["payload"])).get("id")
    outs = {r["out"] for r in records if "out" in r}
    tried = [seq for r in records if "try" in r for seq in r["try"]]
    return [ids[s] for s in dict.fromkeys(tried) if s not in outs and s in ids]


def wait_outcomes(heard: Listener, ids: list[str], timeout: float) -> None:
    """Until each id has an outcome of its own on both gateways (the account then shows
    what is missing)."""

    def done() -> bool:
        return all(set(ids) <= final(heard, t).keys() for t in (PRIMARY_REPORT, STANDBY_REPORT))

    with contextlib.suppress(AssertionError):
        wait_until(done, timeout, f"both gateways' outcomes of {len(ids)} alerts", 0.25)


def kill(primary: Daemon, heard: Listener, idle: bool, sent: list[str]) -> Kill:
    """Kill -9 the primary: `idle`, once it has an outcome of everything sent; otherwise
    half a second into an announcement after one it finished (it has more waiting)."""
    before, untold = len(spoken(heard, PRIMARY_REPORT)), []
    if idle:
        wanted = set(sent)
        with contextlib.suppress(AssertionError):  # the account tells what it never told
            wait_until(lambda: wanted <= final(heard, PRIMARY_REPORT).keys(), 60, "idle", 0.05)
        untold = sorted(wanted - final(heard, PRIMARY_REPORT).keys())
    else:
        wait_until(lambda: len(spoken(heard, PRIMARY_REPORT)) > before, 120, "a report", 0.02)
        time.sleep(0.5)
    assert primary.process is not None
    primary.process.kill()
    at = time.time()
    primary.process.wait()
    state = Path(re.search(r"state_dir: (\S+)", primary.config.read_text())[1])
    return Kill(at=at, idle=idle, cut=cut_short(state / "journal.jsonl"), untold=untold)


def first_standby_audio(heard: Listener, after: float, timeout: float) -> float | None:
    """Seconds from `after` (wall clock) to the start of the standby's first alert said
    after it; None if it said none within `timeout`."""

    def first() -> float | None:
        starts = [r["start"] for r in spoken(heard, STANDBY_REPORT) if r["start"] > after]
        return min(starts) if starts else None

    try:
        return wait_until(first, timeout, "the standby's first audio", 0.05) - after
    except AssertionError:
        return None


@dataclass
class Run:
    """What the two parts left to account for."""

    heard: Listener  # both gateways' reports, the standby's status
    primary: Daemon
    ids: dict[str, list[str]]  # "kills": part one's alerts, "normal": part two's
    kills: list[Kill]
    up: list[tuple[float, float]]  # spans (wall clock) the primary was up: none for the standby
    held_from: float = 0.0  # when the standby's status last said the primary was back
    statuses: int = 0  # the standby's statuses heard by then


def run(lab, size: dict, publisher_class) -> Run:
    """Both parts, on the lab's broker; `publisher_class`: scenarios.Publisher."""
    kills_n, n = int(size["standby_kills"]), int(size["standby_alerts"])
    takeover_s = float(size["standby_takeover_s"])
    topics = (PRIMARY_REPORT, STANDBY_REPORT, STANDBY_STATUS)
    heard = Listener(lab.broker.port, *topics, persistent=True)
    start_gateway(lab, "standby", gateway(lab, "standby", takeover_s))
    primary = start_gateway(lab, "primary", gateway(lab, "primary"), "bench.paced_daemon")
    feed = Feed(publisher_class(lab.broker.port))
    done = Run(heard, primary, {}, [], [])
    _held_again(done)
    messages = [alert(i) for i in range(n)]
    per = n // kills_n
    for k in range(kills_n):
        share = messages[k * per : (k + 1) * per if k < kills_n - 1 else n]
        _cycle(done, feed, share, idle=k % 2 == 1, gap_s=float(size["standby_gap_s"]))
        if k == kills_n - 1:
            primary.module = "cosyedge"  # part two: both up, the primary as fast as its sink
        primary.start()
        _held_again(done)
    feed.drain()
    done.ids["kills"] = [json.loads(p)["id"] for _, p in messages]
    wait_outcomes(heard, done.ids["kills"], 120 + n)
    _both_running(done, feed, [alert(i) for i in range(n, n + int(size["standby_normal"]))])
    time.sleep(takeover_s + 1)  # past takeover_s: still nothing said by the standby
    done.up[-1] = (done.up[-1][0], time.time())
    feed.close()
    feed.publisher.close()
    return done


def _cycle(done: Run, feed: Feed, share: list, idle: bool, gap_s: float) -> None:
    """One kill: part of `share` published while the primary is up (all of it said first,
    if `idle`), the rest while it is dead and as it starts again."""
    alive = 2 if idle else len(share) // 2
    feed.add(share[:alive], gap_s)
    feed.drain()
    done.kills.append(kill(done.primary, done.heard, idle, list(feed.sent)))
    done.up.append((done.held_from, done.kills[-1].at))
    feed.add(share[alive:], 0.05)
    done.kills[-1].latency_s = first_standby_audio(done.heard, done.kills[-1].at, 60)

    def gone() -> bool:
        return _primary_seen(done.heard.on(STANDBY_STATUS)) not in (None, "online")

    wait_until(gone, 60, "the standby's status: the primary gone", 0.05)
    done.statuses = len(done.heard.on(STANDBY_STATUS))


def _primary_seen(statuses: list) -> str | None:
    """What the last of the standby's `statuses` says of the primary."""
    last = statuses[-1] if statuses else None
    return last.get("standby", {}).get("primary") if isinstance(last, dict) else None


def _held_again(done: Run) -> None:
    """Until a status of the standby's since the kill says the primary is back: from then
    on, it says nothing while the primary lives."""

    def back() -> bool:
        since = done.heard.on(STANDBY_STATUS)[done.statuses :]
        return any(_primary_seen([s]) == "online" for s in since)

    wait_until(back, 120, "the standby's status: the primary back", 0.05)
    done.held_from = time.time()


def _both_running(done: Run, feed: Feed, normal: list) -> None:
    feed.add(normal, 0.02)
    feed.drain()
    done.ids["normal"] = [json.loads(p)["id"] for _, p in normal]
    wait_outcomes(done.heard, done.ids["normal"], 120 + len(normal))
    done.up.append((done.held_from, time.time()))


def account(done: Run) -> dict:
    """The tally, as scenarios.Result's fields but scenario and duration."""
    heard, ids, kills = done.heard, done.ids, done.kills
    everything = ids["kills"] + ids["normal"]
    said = Counter(r["id"] for t in (PRIMARY_REPORT, STANDBY_REPORT) for r in spoken(heard, t))
    by_standby = {r["id"]: r for r in spoken(heard, STANDBY_REPORT)}
    primary, standby = final(heard, PRIMARY_REPORT), final(heard, STANDBY_REPORT)
    other: Counter[str] = Counter()
    for ident in everything:
        if not said[ident]:  # not said: the outcome telling why, on either gateway
            other.update(r["outcome"] for r in _told(primary, standby, ident)[:1])
    twice = sorted(i for i in everything if said[i] > 1)
    notes = [f"{len(twice)} alerts spoken twice: {twice[:5]}"] if twice else []
    notes += coverage_notes(primary, standby, everything)
    log = done.primary.log()
    untold = [i for i in everything if i not in primary]
    if untold:  # taken in and never told, or never taken in (lost on its way in)?
        taken = [i for i in untold if f"accepted alert {i} " in log]
        notes.append(f"of those the primary never told, its log accepted {taken[:8]}")
    notes += kill_notes(kills, primary, by_standby)
    notes += normal_notes(heard, ids["normal"], by_standby, done.up)
    notes += hold_notes(log, len(kills))
    spoken_n = sum(1 for i in everything if said[i])
    unsaid = [i for i in everything if not said[i]]
    latencies = [k.latency_s for k in kills if k.latency_s is not None]
    return {
        "sent": len(everything),
        "spoken": spoken_n,
        "other": dict(sorted(other.items())),
        "lost": len(unsaid) - sum(other.values()),
        "recovery_s": round(percentile(latencies, 50), 3) if latencies else None,
        "missing_reasons": sum(1 for i in unsaid if not _reasoned(primary, standby, i)),
        "notes": notes,
    }


def _told(primary: dict, standby: dict, ident: str) -> list[dict]:
    """An alert's outcomes on both gateways but `covered` (which points at the other's)."""
    both = primary.get(ident, []) + standby.get(ident, [])
    return [r for r in both if r["outcome"] != "covered"]


def _reasoned(primary: dict, standby: dict, ident: str) -> bool:
    return any(r.get("reason") or r.get("summary") for r in _told(primary, standby, ident))


def coverage_notes(primary: dict, standby: dict, everything: list[str]) -> list[str]:
    """Each gateway: one outcome of its own for each alert."""
    notes = []
    for name, outcomes in (("primary", primary), ("standby", standby)):
        none = [i for i in everything if i not in outcomes]
        many = [i for i in everything if len({r["outcome"] for r in outcomes.get(i, [])}) > 1]
        kinds = Counter(r["outcome"] for i in everything for r in outcomes.get(i, [])[:1])
        notes.append(f"the {name}'s outcomes: {dict(sorted(kinds.items()))}")
        if none:
            notes.append(f"the {name} never told an outcome of {len(none)}: {none[:5]}")
        if many:
            notes.append(f"the {name} told two outcomes of {len(many)}: {many[:5]}")
    return notes


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile: with few values, p99 is the largest."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def kill_notes(kills: list[Kill], primary: dict, by_standby: dict) -> list[str]:
    """Takeover latency per kill, and what each cut announcement became."""
    notes = []
    for kind, chosen in (("all", kills), ("mid-announcement", [k for k in kills if k.cut])):
        ms = [k.latency_s * 1000 for k in chosen if k.latency_s is not None]
        if ms:
            notes.append(
                f"takeover latency, kill -9 to the standby's first alert audio, {kind} "
                f"({len(ms)} kills): p50 {percentile(ms, 50):.0f} ms, p99 "
                f"{percentile(ms, 99):.0f} ms, max {max(ms):.0f} ms"
            )
    silent = [i for i, k in enumerate(kills) if k.latency_s is None]
    if silent:
        notes.append(f"the standby never spoke after kills {silent}")
    notes.append(
        "per kill (ms): "
        + ", ".join("-" if k.latency_s is None else f"{k.latency_s * 1000:.0f}" for k in kills)
    )
    idle = [k for k in kills if k.idle and not k.untold]
    notes.append(
        f"{sum(1 for k in kills if k.cut)} of {len(kills)} kills cut an announcement short; "
        f"{len(idle)} kills with the primary idle"
    )
    for i, k in enumerate(kills):
        if k.untold:  # its queue ordered by priority: low ones wait while others come
            notes.append(f"kill {i}: after 60 s the primary still had {len(k.untold)} waiting")
    notes.append(cut_note(kills, primary, by_standby))
    return notes


def cut_note(kills: list[Kill], primary: dict, by_standby: dict) -> str:
    """What became of each alert a kill found begun and not ended in the journal: said whole
    after the kill by the standby (the restarted primary's copy `covered`) or by the
    restarted primary (the standby held it: received less than `takeover_s` before the kill,
    the primary back before then); or ended before the kill after all (its report out, its
    journal record not yet written)."""
    kinds: Counter[str] = Counter()
    unsaid = []
    for k in kills:
        for i in k.cut:
            mine = [r for r in primary.get(i, []) if r["outcome"] == "spoken"]
            if i in by_standby and by_standby[i]["start"] > k.at:
                covered = [r["outcome"] for r in primary.get(i, [])] == ["covered"]
                kinds["standby, covered" if covered else "standby, not covered"] += 1
            elif mine and mine[0]["start"] > k.at:
                kinds["restarted primary"] += 1
            elif mine and mine[0]["end"] <= k.at:
                kinds["ended before the kill"] += 1
            else:
                unsaid.append(i)
    total = sum(kinds.values()) + len(unsaid)
    told = ", ".join(f"{kinds[n]} {n}" for n in sorted(kinds))
    never = f"; never said whole after the kill: {unsaid}" if unsaid else ""
    return f"{total} cut alerts, said whole by: {told or 'none'}{never}"


def normal_notes(heard: Listener, normal: list[str], by_standby: dict, up: list) -> list[str]:
    """Part two's promise, and the standby's silence whenever the primary was up."""
    mine = {r["id"]: r for r in spoken(heard, PRIMARY_REPORT)}
    covered = [r for r in reports(heard, STANDBY_REPORT) if r["outcome"] == "covered"]
    copies = {r["id"] for r in covered if r["id"] in set(normal)}
    notes = [
        f"with both running: {len(normal)} alerts, {sum(i in mine for i in normal)} said by "
        f"the primary, {sum(i in by_standby for i in normal)} by the standby, "
        f"{len(copies)} standby copies covered"
    ]
    while_up = [r["id"] for r in by_standby.values() if any(a <= r["start"] <= b for a, b in up)]
    if while_up:
        notes.append(
            f"the standby said {len(while_up)} while the primary was up: said twice? {while_up[:5]}"
        )
    return notes


def hold_notes(log: str, restarts: int) -> list[str]:
    """The primary's handback hold at each of its starts (the first one's included)."""
    held = [float(m) for m in re.findall(HOLD_LOG, log)]
    notes = [
        f"handback hold per start of the primary ({len(held)} of {restarts + 1}): "
        + ", ".join(f"{h:.1f}" for h in held)
        + (f" s; median {statistics.median(held):.1f} s, max {max(held):.1f} s" if held else "")
    ]
    if HOLD_TIMED_OUT in log:
        notes.append(
            f"{log.count(HOLD_TIMED_OUT)} holds ended by standby.handback_s (marker never back)"
        )
    return notes
