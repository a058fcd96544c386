"""Lifecycle: the alert path and the components beside it, started, ticked, reloaded, stopped.

MQTT session (or the local HTTP API) → the door (intake) → journal → alarm desk → announcer →
speech → audio, with reports going back out through the session (docs/architecture.md).
Everything is built when the daemon is made (build.py); `run` takes up what the last run
left, starts the alert path's threads and the components, connects, and ticks the components
until stopped; a stop winds the components down, then the alert path.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from pathlib import Path

from cosyedge import __version__
from cosyedge.alarms.snapshot import Snapshot, status_line
from cosyedge.build import STOP_WAIT_S, Start, VoiceFailed, build_beside, build_core
from cosyedge.component import Component, Detail
from cosyedge.config import lastgood
from cosyedge.config.lastgood import FILE, SAFE_CORE, StartPlan
from cosyedge.config.loader import ConfigError, load_config
from cosyedge.config.schema import Config
from cosyedge.faults import Faults
from cosyedge.model import error_text
from cosyedge.mqtt.broker import LocalBroker
from cosyedge.service.notify import Notifier, Watchdog
from cosyedge.service.reload import ANSWER_FILE, Answers, effective_config, restart_fault
from cosyedge.speech.allocator import one_malloc_arena

log = logging.getLogger(__name__)

STOP_GRACE_S = 5.0  # SIGTERM: how long the clause being spoken may take to finish
REPORT_DRAIN_S = 2.0  # a stop waits this long for the broker to acknowledge the last reports

__all__ = ["CannotStart", "Daemon", "VoiceFailed", "open_daemon"]


class CannotStart(RuntimeError):
    """Not even the safe core can announce: every configuration tried failed (the reasons)."""


def open_daemon(path: Path | None) -> Daemon:
    """The daemon on the file at `path`; when the file is refused, or its daemon cannot be
    built (a voice that does not load), on the last good configuration, else on the safe
    core, with the fault `config` saying why (config/lastgood.py). Raises CannotStart, with
    every reason, when not even the safe core can be built."""
    plan = StartPlan.read(path)
    notifier = Notifier()
    for choice in plan.choices():
        refused = plan.refusal(choice)
        if refused is not None:
            log.error("configuration refused: %s", "; ".join(plan.problems))
        try:
            return Daemon(choice.config, path, refused, choice.origin, notifier)
        except Exception as exc:  # whatever stops this configuration, the next one is tried
            log.exception("cannot start on %s", choice.what)
            plan.failed(choice, str(exc) if isinstance(exc, VoiceFailed) else error_text(exc))
    raise CannotStart("nothing to announce with: " + "; ".join(plan.problems))


class Daemon:
    def __init__(
        self,
        config: Config,
        config_path: Path | None = None,
        refused: str | None = None,
        origin: str = FILE,
        notifier: Notifier | None = None,
    ) -> None:
        """Runs `config`, which came from `origin` (config/lastgood.py); `refused`, when it
        is not the file's, says why the file is not run (the fault `config`). `notifier`:
        systemd's, shared by every configuration a start tries (it takes NOTIFY_SOCKET)."""
        one_malloc_arena()  # before any thread starts
        self.config, self.config_path = config, config_path
        self.refused, self.origin = refused, origin
        self.notifier = notifier or Notifier()
        self._reload = threading.Event()
        self._starting = ""  # what the start waits for, in the status line; empty once ready
        self._synthesizing = False  # a synthesis did not stop at shutdown
        start = Start(self.notifier, self.snapshot, self.status_line, origin == SAFE_CORE)
        self.faults = Faults.from_env()
        self.core = build_core(config, start, self.faults)
        self.beside = build_beside(self.core, start)
        self.parts = list(self.beside.parts)  # beside the alert path, in the order they start
        # Reconfigured and ticked with them, started and stopped in their place.
        self.path: list[Component] = [self.core.door, self.core.link, self.core.state_watch]
        answers = config.state_dir / ANSWER_FILE
        self.answers = Answers(
            answers, config_path, self.core.link, self.core.observers, self.faults
        )

    def snapshot(self, detail: Detail | None = None) -> Snapshot:
        """The daemon's state now: the alert path's part, then each component's; `detail`:
        what more than the cheap fields it holds (none unless asked)."""
        detail = detail or Detail()
        fields = self.core.state(detail)
        for part in [*self.path, *self.parts]:
            fields.update(part.state(detail))
        return Snapshot(**fields, starting=self._starting)

    def status_line(self) -> str:
        return status_line(self.snapshot())

    # -- lifecycle ---------------------------------------------------------------------------
    def run(self) -> int:
        self.answers.started()  # which file a reload rereads, before SIGHUP is taken
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self.core.stop.set())
        signal.signal(signal.SIGHUP, lambda *_: self._reload.set())
        broker = self._local_broker()
        try:
            code = self._serve()
        finally:
            if broker:
                broker.stop()
        if self._synthesizing or self.core.announcer.current is not None:
            # The announcer is stuck in a device write or a synthesis: do not wait for it.
            log.error("announcer did not stop within %g s; exiting without it", STOP_GRACE_S)
            logging.shutdown()
            os._exit(code)
        return code

    def _local_broker(self) -> LocalBroker | None:
        """The loopback Mosquitto, when configured and started. One that cannot start (not
        installed, another broker on a loopback address) is the fault `local-broker`, said
        aloud, while the session keeps trying host:port: never a silent exit."""
        mqtt = self.config.mqtt
        if not mqtt.local_broker:
            return None
        persist = self.config.state_dir / "mosquitto"
        broker = LocalBroker(mqtt.host, mqtt.port, persist, self.core.observers)
        try:
            broker.start()
        except (RuntimeError, OSError) as exc:
            log.error("local broker: %s", exc)
            self.core.health.set("local-broker", str(exc))
            return None
        return broker

    def _serve(self) -> int:
        core = self.core
        self._take_up()
        threads = [
            threading.Thread(target=core.announcer.run, name="announcer", daemon=True),
            threading.Thread(
                target=core.desk.run_clock, args=(core.stop,), name="clock", daemon=True
            ),
        ]
        for thread in threads:
            thread.start()
        for part in self.parts:
            part.start()
        # After every fault of the start is known: a status published before the connection
        # may reach the broker after the one published at it, and be the one retained.
        core.link.start()
        if self.origin == FILE:
            lastgood.save(self.config, self.config_path, self.core.observers, self.faults)
        watchdog = Watchdog(self.notifier, core.beats)
        self._starting = f"waiting for the MQTT broker at {core.link.address}"
        while not core.link.subscribed.is_set():
            self._tick(self.path)  # a broker that never answers is the fault `connection`
            self.notifier.status(self.status_line())
            watchdog.tick()
            if core.stop.wait(watchdog.tick_seconds):
                return self._shutdown(threads)
        self._starting = ""
        log.info("ready")
        core.selfwatch.subscribed(time.monotonic())  # timeouts from now, not from before
        self.notifier.ready(self.status_line())
        while not core.stop.wait(watchdog.tick_seconds):
            if self._reload.is_set():
                self._reload.clear()
                self._reload_config()
            if self.answers.poll(time.monotonic()):  # the reload is over
                self.notifier.ready(self.status_line())
            self._tick()
            watchdog.tick()
            self.notifier.status(self.status_line())
        return self._shutdown(threads)

    def _tick(self, parts: list[Component] | None = None) -> None:
        """Each part's periodic work (of `parts`, else all), and its faults into the fault set."""
        now = time.monotonic()
        for part in [*self.path, *self.parts] if parts is None else parts:
            for name, reason in part.tick(now).items():
                self.core.health.set(name, reason)

    def _take_up(self) -> None:
        """What the last run left: the journal's open alerts, reports and alarm state; then
        the faults of the start."""
        core = self.core
        recovered = core.journal.open()
        core.history.start()
        core.history.record("start", version=__version__, pid=os.getpid())
        core.desk.recover(recovered, core.door.intake.read_journaled)
        if recovered.pending:
            log.info("%d alerts left unsaid by the last run are queued", len(recovered.pending))
        if recovered.unsent:
            log.info("%d reports of the last run are sent again", len(recovered.unsent))
        cache = core.speech.renderer.cache
        if not cache.writable:
            core.health.fault("cache", f"cannot write the phrase cache in {cache.directory}")
        for name, reason in {**self.beside.unstarted, "state": core.state_watch.reason}.items():
            core.health.set(name, reason)
        if self.refused is not None:
            core.health.fault("config", self.refused)

    def _shutdown(self, threads: list[threading.Thread]) -> int:
        """The clause being spoken ends; whatever is unsaid stays in the journal for next time."""
        core = self.core
        log.info("stopping")
        self.notifier.stopping("stopping: finishing the clause being spoken")
        self.answers.settle("before the daemon stopped")
        for part in reversed(self.parts):  # no new request; background work ends
            part.stop()
        announcer, clock = threads
        announcer.join(timeout=STOP_GRACE_S)
        clock.join(timeout=STOP_WAIT_S)
        self._synthesizing = not core.speech.renderer.stop(timeout=STOP_GRACE_S)
        core.desk.publish_status("offline")
        if not core.reporter.drain(timeout=REPORT_DRAIN_S):
            log.info("reports not yet acknowledged by the broker are sent again at next start")
        core.link.stop()
        core.journal.stop()
        core.history.record("stop", unsaid=core.journal.unsaid())
        core.history.stop()
        unsaid = core.journal.unsaid()
        if unsaid:
            log.warning("%d unsaid alerts saved for the next start", unsaid)
        if not announcer.is_alive():
            core.speech.renderer.cache.close()  # else the stuck announcer may still use it
        return 0

    # -- reload ------------------------------------------------------------------------------
    def _reload_config(self) -> None:
        """SIGHUP: take over the configuration file if it is valid; the answer follows once
        it is refused, or in force and subscribed (service/reload.py), while the loop ticks."""
        began = time.monotonic()
        self.notifier.reloading()
        self.answers.settle("before another reload followed")  # about its own session
        applied, detail = self._reload_from_file()
        broker = f"{self.config.mqtt.host}:{self.config.mqtt.port}"
        self.answers.take(applied, detail, broker, began)

    def _reload_from_file(self) -> tuple[bool, str]:
        try:
            new = load_config(self.config_path)
        except ConfigError as exc:
            for problem in exc.problems:
                log.error("reload rejected: %s", problem)
            log.error("reload rejected: the running configuration stays in force")
            return False, "rejected: " + "; ".join(exc.problems)
        except Exception as exc:  # whatever a file does to the loader, the daemon keeps speaking
            log.exception("reload rejected: the running configuration stays in force")
            return False, f"rejected: {error_text(exc)}"
        try:
            detail = self._apply(new)
        except Exception as exc:
            log.exception("reload failed while applying it; the daemon keeps running")
            return False, f"failed while applying it: {error_text(exc)}"
        self.refused, self.origin = None, FILE  # the file is in force: no longer refused
        self.core.health.clear("config")
        lastgood.save(self.config, self.config_path, self.core.observers, self.faults)
        return True, detail

    def _apply(self, new: Config) -> str:
        """Take over a valid new configuration, queued alerts staying as they are; say what
        waits for a restart."""
        new, waiting = effective_config(self.config, new)
        self.config = new
        for part in [*self.path, *self.parts]:
            part.reconfigure(new)
        for part in self.beside.turned_on(new):  # a live feature switched on
            part.start()
            self.parts.append(part)
        logging.getLogger().setLevel(new.log_level.upper())
        for key in waiting:
            log.warning("reload: %s changed; that takes effect at the next restart", key)
        self.core.health.set("restart", restart_fault(waiting))  # shown until the restart
        log.info("configuration reloaded from %s", self.config_path or "embedded defaults")
        detail = "applied"
        if waiting:
            detail += f"; waiting for a restart: {', '.join(waiting)}"
        return detail
