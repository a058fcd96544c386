"""Lifecycle: the alert path and the components beside it, started, ticked, reloaded, stopped.

MQTT session (or the local HTTP API) → the door (intake) → journal → alarm desk → announcer →
speech → audio, with reports going back out through the session (docs/architecture.md).
The alert path up to the queue is built when the daemon is made (build.py); `run` takes up
what the last run left, connects and subscribes at once, while the voices load on a thread of
their own (alerts are journaled, reported accepted and queued meanwhile), then starts the
announcer and the components beside the path, and ticks them until stopped; the phase
`starting` is in the fault set until the voices are loaded and the broker has the
subscriptions, READY=1 goes once the voices are loaded (docs/architecture.md, "A start that
hears at once"). A stop winds the components down, then the alert path.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from pathlib import Path

from cosyedge.alarms.health import STARTING
from cosyedge.alarms.snapshot import Snapshot, status_line
from cosyedge.announce.announcer import join_all, last_spoken, speaking, start_speaking
from cosyedge.build import STOP_WAIT_S, Start, Voiced, VoiceFailed, Voices, VoicesHung, build_core
from cosyedge.component import Component, Detail
from cosyedge.config import lastgood
from cosyedge.config.lastgood import FILE, SAFE_CORE
from cosyedge.config.loader import ConfigError, load_config
from cosyedge.config.schema import Config
from cosyedge.faults import Faults
from cosyedge.model import error_text
from cosyedge.mqtt.broker import local_broker
from cosyedge.service.notify import Notifier, Watchdog
from cosyedge.service.reload import ANSWER_FILE, Answers, effective_config, restart_fault
from cosyedge.speech.allocator import one_malloc_arena

log = logging.getLogger(__name__)

STOP_GRACE_S = 5.0  # SIGTERM: how long the clause being spoken may take to finish
REPORT_DRAIN_S = 2.0  # a stop waits this long for the broker to acknowledge the last reports

__all__ = ["Daemon", "VoiceFailed", "VoicesHung"]


class Daemon:
    def __init__(
        self,
        config: Config,
        config_path: Path | None = None,
        refused: str | None = None,
        origin: str = FILE,
        notifier: Notifier | None = None,
        voices_by: float | None = None,
    ) -> None:
        """Runs `config`, which came from `origin` (config/lastgood.py); `refused`, when it
        is not the file's, says why the file is not run (the fault `config`). `notifier`:
        systemd's, shared by every configuration a start tries (it takes NOTIFY_SOCKET);
        `voices_by`: the monotonic time its voices must be loaded by (build.Voices)."""
        one_malloc_arena()  # before any thread starts
        self.config, self.config_path = config, config_path
        self.refused, self.origin = refused, origin
        self.notifier = notifier or Notifier()
        self._reload = threading.Event()
        self._synthesizing = False  # a synthesis did not stop at shutdown
        start = Start(self.notifier, self.snapshot, self.status_line, origin == SAFE_CORE)
        self.faults = Faults.from_env()
        self.core = build_core(config, start, self.faults)
        self.voices = Voices(self.core, start, self.faults, voices_by)
        self.voiced: Voiced | None = None  # once the voices are loaded
        self._speakers: list[threading.Thread] = []  # the announcers', once they are
        self._subscribed = False  # the broker acknowledged the subscriptions once
        self.parts: list[Component] = []  # beside the alert path, once the voices are loaded
        self.path = self.core.components()  # reconfigured and ticked with the parts
        answers = config.state_dir / ANSWER_FILE
        self.answers = Answers(
            answers, config_path, self.core.link, self.core.observers, self.faults
        )

    def snapshot(self, detail: Detail | None = None) -> Snapshot:
        """The daemon's state now: the alert path's part, then each component's; `detail`:
        what more than the cheap fields it holds (none unless asked)."""
        detail = detail or Detail()
        fields = self.core.state(detail)
        if self.voiced is not None:
            fields["last"] = last_spoken(self.voiced.announcers)
        for part in [*self.path, *self.parts]:
            fields.update(part.state(detail))
        return Snapshot(**fields)

    def status_line(self) -> str:
        return status_line(self.snapshot())

    # -- lifecycle ---------------------------------------------------------------------------
    def run(self) -> int:
        """Serve until stopped: the exit code; VoiceFailed (after a stop) if no voice loads."""
        self.answers.started()  # which file a reload rereads, before SIGHUP is taken
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self.core.stop.set())
        signal.signal(signal.SIGHUP, lambda *_: self._reload.set())
        core = self.core
        broker = local_broker(self.config, core.observers, core.health.fault)
        try:
            code = self._serve()
        finally:
            if broker:
                broker.stop()
        if self.voices.failed is not None:
            raise (VoicesHung if self.voices.hung else VoiceFailed)(self.voices.failed)
        busy = self.voiced is not None and speaking(self.voiced.announcers)
        if self._synthesizing or busy:  # a device write, say
            log.error("announcer did not stop within %g s; exiting without it", STOP_GRACE_S)
        elif not self.voices.loading():  # else a model's load, which cannot be cut short
            return code
        logging.shutdown()
        os._exit(code)

    def _serve(self) -> int:
        """Take in alerts at once, load the voices meanwhile, speak once they are loaded."""
        core = self.core
        core.take_up(self.refused)
        clock = threading.Thread(
            target=core.desk.run_clock, args=(core.stop,), name="clock", daemon=True
        )
        clock.start()
        core.selfwatch.start()
        # After every fault of the start is known: a status published before the connection
        # may reach the broker after the one published at it, and be the one retained.
        core.link.start()
        self.voices.start()
        watchdog = Watchdog(self.notifier, core.beats)  # fed while the voices load, too
        while not core.stop.wait(watchdog.tick_seconds):
            if self._reload.is_set():
                self._reload.clear()
                self._reload_config()
            # The reload is over; before the start's own READY=1, that one ends it.
            if self.answers.poll(time.monotonic()) and self.notifier.is_ready:
                self.notifier.ready(self.status_line())
            self._advance()
            self._tick()
            watchdog.tick()
            self.notifier.status(self.status_line())
        return self._shutdown(clock)

    def _advance(self) -> None:
        """The start's steps as they come: subscribed (alerts taken in), voices loaded
        (alerts said, READY), both (`starting` cleared). The stop that follows a voice that
        failed keeps what was taken in for the configuration tried next."""
        core, voices = self.core, self.voices
        hung = None if self.voiced else voices.overdue(time.monotonic())
        if hung is not None:  # said as a fault; the next configuration runs (cli.py)
            log.error("voices given up on: %s", hung)
            core.health.fault("voices", hung)
        elif voices.extended:  # still loading, and working: to the next judgement, and one more
            self.notifier.extend_start(2 * voices.extended)
        if self.voiced is None and voices.done.is_set():
            core.observers.settle()
            if voices.failed is not None:
                core.stop.set()
                return
            self._speak(voices.voiced)
        if not self._subscribed and core.link.subscribed.is_set():
            self._subscribed = True
            core.selfwatch.subscribed(time.monotonic())  # timeouts from now, not from before
            if self.voiced is None:
                log.info("subscribed: alerts are journaled and queued while the voices load")
        waiting = [] if self.voiced else ["loading voices"]
        if not self._subscribed:
            waiting.append(f"waiting for the MQTT broker at {core.link.address}")
        if waiting:
            core.health.fault(STARTING, "; ".join(waiting))
        elif STARTING in core.health.faults():
            core.health.clear(STARTING)
            log.info("ready: the voices are loaded and the broker has the subscriptions")
        # READY=1 once it can speak: a broker down at boot is a fault the status names, not a
        # start systemd would time out, kill and restart while the journal's alerts are said.
        if self.voiced is not None and not self.notifier.is_ready:
            self.notifier.ready(self.status_line())

    def _speak(self, voiced: Voiced | None) -> None:
        """The voices are loaded: the announcer and the components beside the path start,
        on the configuration now in force (a reload may have come while they loaded)."""
        assert voiced is not None
        core, self.voiced, beside = self.core, voiced, voiced.beside
        self._speakers = start_speaking(voiced.announcers)
        cache = voiced.speech.renderer.cache
        if not cache.writable:
            core.health.fault("cache", f"cannot write the phrase cache in {cache.directory}")
        for name, reason in beside.unstarted.items():
            core.health.fault(name, reason)
        for part in beside.parts:
            if self.config is not core.config:
                part.reconfigure(self.config)
            part.start()
            self.parts.append(part)
        if self.config is not core.config:  # reloaded while they loaded
            self._turn_on(self.config)
        if self.origin == FILE:  # its voices load: a good configuration
            lastgood.save(self.config, self.config_path, core.observers, self.faults)

    def _turn_on(self, config: Config) -> None:
        """Start the live features `config` turns on (once the voices are loaded)."""
        if self.voiced is None:
            return
        for part in self.voiced.beside.turned_on(config):
            part.start()
            self.parts.append(part)

    def _tick(self) -> None:
        """Each part's periodic work, and its faults into the fault set."""
        now = time.monotonic()
        for part in [*self.path, *self.parts]:
            for name, reason in part.tick(now).items():
                self.core.health.set(name, reason)

    def _shutdown(self, clock: threading.Thread) -> int:
        """The clause being spoken ends; whatever is unsaid stays in the journal for next time."""
        core, voiced = self.core, self.voiced
        # Intake first: what comes now is left to the broker for the next start, so nothing
        # is journaled that the session closes on before its acknowledgement.
        core.link.refuse()
        log.info("stopping")
        if self.voices.failed is None:
            self.notifier.stopping("stopping: finishing the clause being spoken")
        else:  # no STOPPING=1: this process runs the next configuration (systemd: Type=notify)
            self.notifier.status("starting: the voices did not load; the next configuration runs")
        self.answers.settle("before the daemon stopped")
        for part in reversed(self.parts):  # no new request; background work ends
            part.stop()
        join_all(self._speakers, STOP_GRACE_S)
        clock.join(timeout=STOP_WAIT_S)
        if voiced is not None:
            self._synthesizing = not voiced.speech.renderer.stop(timeout=STOP_GRACE_S)
        core.journal.flush(REPORT_DRAIN_S)  # the acks of what was just taken in, given
        core.link.settle(REPORT_DRAIN_S)  # and read by the broker
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
        if voiced is not None and not speaking(voiced.announcers):
            voiced.speech.renderer.cache.close()  # else the stuck announcer may still use it
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
            new, waiting = effective_config(self.config, load_config(self.config_path))
        except ConfigError as exc:
            for problem in exc.problems:
                log.error("reload rejected: %s", problem)
            log.error("reload rejected: the running configuration stays in force")
            return False, "rejected: " + "; ".join(exc.problems)
        except Exception as exc:  # whatever a file does to the loader, the daemon keeps speaking
            log.exception("reload rejected: the running configuration stays in force")
            return False, f"rejected: {error_text(exc)}"
        try:
            detail = self._apply(new, waiting)
        except Exception as exc:
            log.exception("reload failed while applying it; the daemon keeps running")
            return False, f"failed while applying it: {error_text(exc)}"
        self.refused, self.origin = None, FILE  # the file is in force: no longer refused
        self.core.health.clear("config")
        if self.voiced is not None:  # else saved once its voices loaded (`_speak`)
            lastgood.save(self.config, self.config_path, self.core.observers, self.faults)
        return True, detail

    def _apply(self, new: Config, waiting: list[str]) -> str:
        """Take over a valid new configuration (`effective_config`'s), queued alerts staying
        as they are; say what waits for a restart."""
        self.config = new
        for part in [*self.path, *self.parts]:
            part.reconfigure(new)
        self._turn_on(new)
        logging.getLogger().setLevel(new.log_level.upper())
        for key in waiting:
            log.warning("reload: %s changed; that takes effect at the next restart", key)
        self.core.health.set("restart", restart_fault(waiting))  # shown until the restart
        log.info("configuration reloaded from %s", self.config_path or "embedded defaults")
        detail = "applied"
        if waiting:
            detail += f"; waiting for a restart: {', '.join(waiting)}"
        return detail
