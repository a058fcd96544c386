"""SIGHUP: which parts of a new configuration a running daemon takes over at once, and its
answer to each reload.

Templates, the site pronunciations, the MQTT connection, audio, the memory ceiling, the log
level and Home Assistant's discovery change live.
The rest (voice, cache and state directories, starting a local broker) is read only at start:
a change there is logged and waits for the next restart, so the running daemon never holds a
configuration it is not actually using.

A reload is answered in `state_dir/reload.json`: at once when the file was refused, else
once the new configuration is in force and the broker has acknowledged its subscriptions, or
after SUBSCRIBE_WAIT_S saying that it has not. The daemon's main loop keeps ticking meanwhile
(the watchdog, the self-watch, the status): `Answers` is polled, never waited on. Each answer
names the file the daemon read; at its start the daemon writes one too (generation 0).
`cosyedge reload` (systemd's ExecReload) tells before signalling whether the process runs the
file it was given from its command line (/proc), else from that answer; where the daemon
could write no answer (a read-only or full state_dir) it signals without waiting.
Otherwise the command sends SIGHUP and waits for the answer, so
`systemctl reload` returns only when an alert for a newly added template would be heard, and
fails, saying why, on a refused configuration, another file, or an unacknowledged one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from cosyedge.config.loader import ConfigError
from cosyedge.config.schema import Config
from cosyedge.faults import Faults
from cosyedge.observe import Observer
from cosyedge.regular import load_record

log = logging.getLogger(__name__)

ANSWER_FILE = "reload.json"
SUBSCRIBE_WAIT_S = 10.0  # an applied reload is answered once subscribed, or after this

# `cosyedge reload`'s exit statuses (2: `check` refused the file; the daemon was not signalled)
APPLIED = 0  # in force, its subscriptions acknowledged by the broker
REFUSED = 1  # refused or failed by the daemon, which runs on as before; or no answer at all
UNACKNOWLEDGED = 3  # in force, but the broker has not acknowledged its subscriptions (yet)
NOT_ITS_FILE = 4  # the process does not run the file named: not signalled, or it read its own
UNANSWERED = 5  # signalled, but it keeps no answer where the command reads it (state_dir)

LIVE_SECTIONS = frozenset(
    {"templates", "mqtt", "audio", "memory", "log_level", "pronunciations", "homeassistant"}
)


def effective_config(running: Config, new: Config) -> tuple[Config, list[str]]:
    """The configuration to run with now, and the keys whose change waits for a restart;
    ConfigError when the file's live sections need what only a restart brings (a template
    naming a zone the running daemon does not have)."""
    waiting: list[str] = []
    keep: dict[str, object] = {}
    for f in dataclasses.fields(Config):
        if f.name not in LIVE_SECTIONS and getattr(new, f.name) != getattr(running, f.name):
            waiting.append(f.name)
            keep[f.name] = getattr(running, f.name)
    if new.mqtt.local_broker != running.mqtt.local_broker:
        waiting.append("mqtt.local_broker")
        keep["mqtt"] = dataclasses.replace(new.mqtt, local_broker=running.mqtt.local_broker)
    try:
        return dataclasses.replace(new, **keep), waiting
    except ValueError as exc:
        kept = ", ".join(keep)
        raise ConfigError([f"{exc}; {kept} change only at a restart: restart to add it"]) from None


def restart_fault(waiting: list[str]) -> str | None:
    """The fault `restart`'s reason while keys of the file in force wait for a restart (the
    daemon runs them as it started: an HTTP API the file turns on stays off); None when none
    do. Without it the status would say `online` while the file is not all in force."""
    if not waiting:
        return None
    return f"{', '.join(waiting)} changed in the file: in force only after a restart"


@dataclass(frozen=True)
class ReloadAnswer:
    """The daemon's answer to one SIGHUP, or (generation 0) what it runs since its start."""

    pid: int
    generation: int  # this process's reloads so far, this one included
    applied: bool
    detail: str  # why not, or what waits for a restart
    config: str | None = None  # the file the daemon reads (absolute); None: embedded defaults
    subscribed: bool = True  # the broker acknowledged the subscriptions of what is in force
    began: float = 0.0  # CLOCK_MONOTONIC when the daemon took the reload up (read the file)

    @property
    def status(self) -> int:
        """The exit status of `cosyedge reload` for this answer."""
        if not self.applied:
            return REFUSED
        return APPLIED if self.subscribed else UNACKNOWLEDGED


class Subscriptions(Protocol):
    """The link to the broker (mqtt/link.py), as the answers see it."""

    @property
    def subscribed(self) -> threading.Event: ...

    @property
    def connected(self) -> bool: ...


@dataclass(frozen=True)
class _Waiting:
    """A reload taken, whose answer the next `poll` writes when it is due."""

    applied: bool
    detail: str
    broker: str  # host:port of the session in force, for the answer
    began: float  # monotonic: when the reload was taken up; the broker has SUBSCRIBE_WAIT_S


class Answers:
    """Answers each reload in `path`, never holding up the caller: the first `poll` after a
    reload answers a refused one, and an applied one once the subscriptions of the session
    in force are acknowledged and it is connected, or once SUBSCRIBE_WAIT_S have passed
    (saying they are not). A reload taken while another waits answers the other as it stands
    first; so does a stop."""

    def __init__(
        self,
        path: Path,
        config: Path | None,
        link: Subscriptions,
        observer: Observer | None = None,
        faults: Faults | None = None,
    ) -> None:
        """`config`: the file the daemon reads at each reload; None for the embedded defaults.
        `observer` is told when an answer cannot be written (`faults`: site `state.write`)."""
        self.path, self.link = path, link
        self.observer, self.faults = observer, faults
        self.config = os.path.abspath(config) if config is not None else None
        self.generation = 0
        self._waiting: _Waiting | None = None

    def started(self) -> None:
        """Say which file this process runs, before it takes any SIGHUP."""
        self._write(ReloadAnswer(os.getpid(), 0, True, "started", self.config))

    def take(self, applied: bool, detail: str, broker: str, began: float) -> None:
        """A reload done, taken up at `began` (monotonic): `applied` or not, `detail` saying
        how; `broker` the host:port of the session in force. Settle the reload before it
        first, before this one changes the link: its answer is about its own session (one
        still waiting here is answered as it stands, rather than never)."""
        self.settle("before another reload followed")
        self.generation += 1
        self._waiting = _Waiting(applied, detail, broker, began)

    def poll(self, now: float) -> bool:
        """Answer the reload taken if it is due: True when an answer was written (systemd
        then hears READY=1: the reload is over)."""
        waiting = self._waiting
        if waiting is None:
            return False
        if not waiting.applied:
            self._finish(False, waiting.detail)
        elif self.link.subscribed.is_set() and self.link.connected:  # alerts are heard
            self._finish(True, waiting.detail)
        elif now >= waiting.began + SUBSCRIBE_WAIT_S:
            tail = "alerts are heard once it does (the daemon keeps trying; see its status)"
            self._unacknowledged(f"within {SUBSCRIBE_WAIT_S:g} s: {tail}")
        return self._waiting is None

    def settle(self, when: str) -> None:
        """Answer the reload taken now, as it stands (`when`: why it cannot wait longer)."""
        if self._waiting is not None and not self.poll(time.monotonic()):
            self._unacknowledged(when)

    def _unacknowledged(self, when: str) -> None:
        waiting = self._waiting
        assert waiting is not None
        detail = (
            f"{waiting.detail}; the configuration is in force, but the broker at "
            f"{waiting.broker} has not acknowledged its subscriptions {when}"
        )
        log.warning("reload %d: %s", self.generation, detail)
        self._finish(True, detail, subscribed=False)

    def _finish(self, applied: bool, detail: str, subscribed: bool = True) -> None:
        waiting, self._waiting = self._waiting, None
        assert waiting is not None
        answer = ReloadAnswer(
            os.getpid(), self.generation, applied, detail, self.config, subscribed, waiting.began
        )
        self._write(answer)

    def _write(self, answer: ReloadAnswer) -> None:
        write_answer(self.path, answer, self.observer, self.faults)


def write_answer(
    path: Path, answer: ReloadAnswer, observer: Observer | None = None, faults: Faults | None = None
) -> None:
    """Replace the answer at `path` whole; a failure is logged and told to `observer` as not
    kept (`faults`: site `state.write`), never raised: the reload itself has happened either
    way, and `cosyedge reload` times out saying it had no answer."""
    temp = path.with_name(f".{path.name}.tmp")
    told = observer or Observer()
    try:
        (faults or Faults()).check("state.write", str(path))
        temp.write_text(json.dumps(dataclasses.asdict(answer)))
        os.replace(temp, path)
    except OSError as exc:
        log.error("cannot write the reload answer to %s: %s", path, exc)
        with contextlib.suppress(OSError):
            temp.unlink()
        told.unkept("the reload answer", exc.strerror or str(exc))
    else:
        told.unkept("the reload answer", None)


def read_answer(path: Path) -> ReloadAnswer | None:
    """The answer at `path`, or None when there is none or it is not one."""
    try:
        data = load_record(path)
        answer = ReloadAnswer(**data)
    except (OSError, ValueError, TypeError):
        return None
    numbers = isinstance(answer.pid, int) and isinstance(answer.began, int | float)
    return answer if numbers and isinstance(answer.generation, int) else None


def probe(pid: int) -> None:
    """Raises OSError (ProcessLookupError, PermissionError) when `pid` cannot be signalled:
    said first, before whatever its answers would tell."""
    os.kill(pid, 0)


def signal_only(pid: int) -> None:
    """SIGHUP `pid` without waiting for an answer; raises OSError as `probe` does."""
    os.kill(pid, signal.SIGHUP)


@dataclass(frozen=True)
class Started:
    """What a process's command line (/proc/PID/cmdline) says it was started as."""

    daemon: bool  # `cosyedge run`
    config: str | None  # the file it runs (absolute); None: the embedded defaults


def started_as(pid: int) -> Started | None:
    """How process `pid` was started; None when /proc does not tell (another user's process
    under hidepid, no /proc, a relative --config whose directory cannot be read)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:-1]
    except OSError:
        return None
    words = [a.decode(errors="surrogateescape") for a in argv]
    run = [i for i, w in enumerate(words[:-1]) if _is_cosyedge(w) and words[i + 1] == "run"]
    if not run:
        return Started(daemon=False, config=None)
    config = _config_argument(words[run[0] + 2 :])
    if config is None or os.path.isabs(config):
        return Started(daemon=True, config=config)
    try:
        return Started(daemon=True, config=os.path.join(os.readlink(f"/proc/{pid}/cwd"), config))
    except OSError:
        return None


def _is_cosyedge(word: str) -> bool:
    """`cosyedge` as `python -m cosyedge` or the installed script (any path) names it."""
    return os.path.basename(word) == "cosyedge"


def _config_argument(args: list[str]) -> str | None:
    """The value of `--config`/`-c` among `cosyedge run`'s arguments (the last one given,
    as argparse takes it); None without one."""
    found = None
    for i, arg in enumerate(args):
        if arg in ("--config", "-c") and i + 1 < len(args):
            found = args[i + 1]
        elif arg.startswith("--config="):
            found = arg.removeprefix("--config=")
        elif arg.startswith("-c") and len(arg) > 2:
            found = arg[2:]
    return found


def not_its_file(path: Path, pid: int, named: Path | None) -> str | None:
    """Why process `pid` does not run the file `named` as it is now (None: it does). Its
    command line tells, where /proc can be read: it is not a cosyedge daemon, or runs another
    file. Else its answers in `path`, the file's state_dir, tell: a daemon answers there at
    its start, so no answer of `pid` in `path` means it keeps its state elsewhere: it runs
    another file, or the file's state_dir was changed since (which takes a restart). An
    answer file that cannot be read tells nothing (signalling will)."""
    started = started_as(pid)
    if started is not None and not started.daemon:
        return f"process {pid} is not a cosyedge daemon{_command_line(pid)}"
    if started is not None:
        return _runs_other(pid, started.config, named)
    answer = read_answer(path)
    if answer is not None and answer.pid == pid:
        return other_file(answer, named)
    if path.exists() and answer is None:
        return None
    return (
        f"process {pid} has written no answer in {path} since it started: it keeps its state "
        f"elsewhere, so it runs another file than {_name(named)}, or that file's state_dir "
        "is not the one it started with (changed since, which takes a restart; or, with no "
        "state_dir in the file, $STATE_DIRECTORY is not the service's /var/lib/cosyedge "
        f"here: use `systemctl reload cosyedge`){_command_line(pid)}"
    )


def other_file(answer: ReloadAnswer, named: Path | None) -> str | None:
    """Why the daemon that gave `answer` does not run `named`; None when it does."""
    return _runs_other(answer.pid, answer.config, named)


def _runs_other(pid: int, config: str | None, named: Path | None) -> str | None:
    """Why daemon `pid`, running `config`, does not run `named`; None when it does."""
    if _same_file(config, named):
        return None
    return (
        f"process {pid} runs {_name(config)}, not {_name(named)}: a running daemon rereads "
        "only the file it was started with (restart it on the other one)"
    )


def no_answer_kept(path: Path, pid: int) -> str | None:
    """Why `cosyedge reload` cannot read daemon `pid`'s answer in `path`, the state_dir of
    the file it runs (None: it can). The daemon writes one there at its start; none of its
    own means it could not write it (a read-only or full state_dir) or keeps its state
    elsewhere (the file's state_dir changed since it started, which takes a restart)."""
    answer = read_answer(path)
    if (answer is not None and answer.pid == pid) or (path.exists() and answer is None):
        return None
    return (
        f"process {pid} has written no answer in {path} since it started (its state_dir is "
        "read-only or full: see its fault `state`; or the file's state_dir is not the one it "
        "started with, which takes a restart), so whether it took the file over only its "
        "log and status say"
    )


def _same_file(ours: str | None, named: Path | None) -> bool:
    if ours is None or named is None:
        return ours is None and named is None
    try:
        return os.path.samefile(ours, named)
    except OSError:  # one of them is gone: compare the names
        return ours == os.path.abspath(named)


def _name(config: str | Path | None) -> str:
    return "the embedded defaults" if config is None else str(config)


def _command_line(pid: int) -> str:
    """`pid`'s command line, to name its file where its answers cannot; empty when unknown."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return ""
    words = " ".join(a.decode(errors="replace") for a in argv if a)
    return f" (its command line: {words})" if words else ""


def request_reload(path: Path, pid: int, timeout_s: float) -> ReloadAnswer | None:
    """SIGHUP `pid` and wait for its answer to this very signal: None after `timeout_s`.
    Raises OSError (ProcessLookupError, PermissionError) when `pid` cannot be signalled.

    The answer is that of a reload begun after the signal was sent: one begun before (say,
    one still waiting for its broker, answered when this one begins) read the file before
    this signal and is another's; signals that arrive together are taken as one reload."""
    sent = time.monotonic()  # CLOCK_MONOTONIC, the daemon's clock too
    os.kill(pid, signal.SIGHUP)
    deadline = sent + timeout_s
    while time.monotonic() < deadline:
        answer = read_answer(path)
        if answer is not None and answer.pid == pid and answer.began >= sent:
            return answer
        time.sleep(0.05)
    return None
