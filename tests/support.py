"""Real parts for tests: a Mosquitto on 127.0.0.1, an ALSA sink that records what is played,
and the daemon as a subprocess whose log can be waited on."""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import paho.mqtt.client as mqtt
import yaml
from daemon_forks import Forked, ForkServer
from paho.mqtt.enums import CallbackAPIVersion

REPO = Path(__file__).resolve().parent.parent


ALERT_FILES = (REPO.parent / "shared/data/alerts.jsonl", Path("/work/shared/data/alerts.jsonl"))


def shared_alerts() -> list[tuple[str, str]]:
    """(lang, text) of every alert of the shared set: the English ones as the example
    config's templates say them, the Mandarin ones as published. Skips without the set."""
    import pytest

    from cosyedge.config import load_config
    from cosyedge.intake.alert import parse_alert
    from cosyedge.intake.templates import TemplateSet

    path = next((p for p in ALERT_FILES if p.is_file()), None)
    if path is None:
        pytest.skip("the shared alert set is not here")
    templates = TemplateSet(load_config(REPO / "config" / "cosyedge.yaml").templates)
    said = []
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item["lang"] == "zh":
            said.append(("zh", item["payload"]["text"]))
            continue
        template, fields = templates.find(item["topic"])
        payload = json.dumps(item["payload"]).encode()
        alert = parse_alert(item["topic"], payload, template.config.payload)
        said.append(("en", template.announcement(alert, fields).text))
    return said


def unrunnable_as_nobody() -> str | None:
    """Why this interpreter cannot run as `nobody` (None when it can): a Python under a
    private home directory (pyenv under /root) cannot be executed, or its standard library
    read, by another user, so tests that act as one skip naming it."""
    if shutil.which("runuser") is None:
        return "runuser is not installed"
    probe = ["runuser", "-u", "nobody", "--", sys.executable, "-c", "import secrets, numpy"]
    done = subprocess.run(probe, capture_output=True, text=True, timeout=60)
    if done.returncode == 0:
        return None
    why = (done.stderr.strip().splitlines() or ["no reason given"])[-1]
    return f"{sys.executable} cannot run as nobody ({why}); use a Python all users can read"


@contextlib.contextmanager
def package_state_lock() -> Iterator[None]:
    """Held by the package test while cosyedge is installed on this machine, and by a box
    while it copies this machine's package database: a box never starts from a database that
    lists cosyedge installed on the host, nor from one dpkg is writing."""
    locks = Path("/run/lock") if Path("/run/lock").is_dir() else Path("/tmp")
    with open(locks / "cosyedge-package-test.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def once_per_run(base: Path, name: str, make: Callable[[Path], None]) -> Path:
    """The directory `name`, made by `make` once per test run and shared by every pytest-xdist
    worker of it: the first to ask makes it under a lock, the others wait and reuse it. `base`
    is the worker's `tmp_path_factory.getbasetemp()`; a worker's sits inside the run's own."""
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    target = root / "once" / name
    target.parent.mkdir(exist_ok=True)
    with (root / "once" / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / ".made").exists():
            # A maker that failed in another worker left its half: start again.
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir()
            make(target)
            (target / ".made").touch()
    return target


def state_dir_of(config_text: str, env: dict[str, str]) -> Path | None:
    """Where a daemon run on this config text keeps its state, as the loader decides it;
    None for a text that is not a mapping (a test of a broken config)."""
    try:
        data = yaml.safe_load(config_text)
    except yaml.YAMLError:
        return None
    data = {} if data is None else data
    if not isinstance(data, dict):
        return None
    chosen = data.get("state_dir")
    if isinstance(chosen, str):
        return Path(chosen) if Path(chosen).is_absolute() else None
    if env.get("STATE_DIRECTORY"):
        return Path(env["STATE_DIRECTORY"].split(":")[0])
    return Path(env["XDG_STATE_HOME"]) / "cosyedge" if env.get("XDG_STATE_HOME") else None


def seed_models(state_dir: Path | None, made: Path | None, config_text: str = "") -> None:
    """Copy a run's saved optimized graphs and tables into a daemon's `state_dir/models` before
    its first start, as a gateway has them after its own first start: each daemon in the suite
    would otherwise spend seconds making them again. A directory already there is left alone.
    A config with the Piper voice gets its files too (conftest's `saved_models`: made beside
    the default voices', in `../../piper/models`)."""
    if state_dir is None or made is None or (state_dir / "models").exists():
        return
    shutil.copytree(made, state_dir / "models", ignore=shutil.ignore_patterns(".made"))
    piper = made.parent.parent / "piper" / "models"
    if "engine: piper" in config_text and piper.is_dir():
        _add_models(piper, state_dir / "models")


def _add_models(source: Path, target: Path) -> None:
    """`source`'s kept files added to `target`'s, and its models' digests to target's."""
    for path in source.iterdir():
        if path.name != "digests.json" and not (target / path.name).exists():
            shutil.copy2(path, target / path.name)
    digests = [json.loads((d / "digests.json").read_text()) for d in (source, target)]
    (target / "digests.json").write_text(json.dumps({**digests[0], **digests[1]}))


def _worker_ports() -> itertools.cycle:
    """This test process's own block of ports, below the kernel's ephemeral range.

    A port the kernel hands out for bind(0) is free only until it is closed:
    another worker's bind(0), or any outgoing connection's source port, can take
    it before the daemon or broker under test binds it, and the test then talks
    to a stranger. Ports below 32768 are never given to outgoing connections,
    and each xdist worker gets a block no other worker draws from.
    """
    index = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    count = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    size = (32000 - 12000) // max(count, index + 1)
    start = 12000 + index * size
    return itertools.cycle(range(start, start + size))


_PORTS = _worker_ports()
_FORKS = ForkServer()  # this worker's daemons forked from one import (tests/daemon_forks.py)


def free_port() -> int:
    """A port of this worker's block that nothing is bound to now."""
    for port in itertools.islice(_PORTS, 20000):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("every port of this worker's block is in use")


def config_problems(text: str) -> list[str]:
    """The problems parse_config reports for a config text named site.yaml."""
    from cosyedge.config import ConfigError, parse_config

    try:
        parse_config(text, "site.yaml")
    except ConfigError as exc:
        return exc.problems
    raise AssertionError("the config was accepted")


def site_yaml(port: int, tmp: Path) -> str:
    """Config lines every daemon test shares: the test's broker, cache and state under tmp."""
    return (
        f"mqtt:\n  port: {port}\n  local_broker: false\n"
        f"cache:\n  dir: {tmp}/cache\nstate_dir: {tmp}/state\n"
    )


def cosyedge(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The command line, as a user runs it, in this interpreter."""
    command = [sys.executable, "-m", "cosyedge", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)


def cosyedge_here(capfd, *args: str) -> subprocess.CompletedProcess[str]:
    """The command line run in this process on the same code as `cosyedge` (no interpreter
    to start, no package to import again): its exit status and what it wrote, taken from
    pytest's `capfd`. A traceback is raised here. The logging a command sets up is taken
    down after it."""
    import logging

    from cosyedge.cli import main

    root = logging.getLogger()
    handlers = list(root.handlers)
    capfd.readouterr()
    try:
        status = main(list(args))
    except SystemExit as exc:  # argparse's refusal of the arguments
        status = exc.code if isinstance(exc.code, int) else 1
    finally:
        for handler in set(root.handlers) - set(handlers):
            handler.close()
            stream = getattr(handler, "stream", None)
            if stream not in (None, sys.stdout, sys.stderr):
                stream.close()  # the command's own copy of stderr
        root.handlers[:] = handlers
    out, err = capfd.readouterr()
    return subprocess.CompletedProcess(["cosyedge", *args], status, out, err)


def in_place_of(path: Path, what: str) -> None:
    """`path` made what no kept file may be: a symlink to a FIFO no one writes to ("fifo"),
    to /dev/zero ("zero"), or a directory ("directory")."""
    path.unlink(missing_ok=True)
    if what == "directory":
        path.mkdir()
    elif what == "fifo":
        os.mkfifo(path.with_name("fifo"))
        path.symlink_to(path.with_name("fifo"))
    else:
        path.symlink_to("/dev/zero")


def wait_until(predicate, timeout: float, what: str, interval: float = 0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


class Broker:
    """A real Mosquitto; `persistence` keeps messages across kill and restart."""

    def __init__(self, directory: Path, persistence: bool = True, acl: str | None = None) -> None:
        """`acl`: an ACL file's text (anonymous clients' lines); `set_acl` changes it live."""
        self.directory = directory
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        directory.mkdir(parents=True, exist_ok=True)
        self.conf = directory / "mosquitto.conf"
        lines = [
            f"listener {self.port} 127.0.0.1",
            "allow_anonymous true",
            f"persistence {'true' if persistence else 'false'}",
            f"persistence_location {directory}/",
            "autosave_on_changes true",
            "autosave_interval 1",  # with on_changes: save after every change
            "max_queued_messages 100000",
            "log_dest stderr",
        ]
        if os.geteuid() == 0:
            lines.append("user root")
        if acl is not None:
            self.acl = directory / "acl"
            self.acl.write_text(acl)
            lines.append(f"acl_file {self.acl}")
        self.conf.write_text("\n".join(lines) + "\n")

    def set_acl(self, text: str) -> None:
        """Replace the ACL and have Mosquitto reload it (SIGHUP): connections stay up."""
        self.acl.write_text(text)
        assert self.process is not None
        self.process.send_signal(signal.SIGHUP)

    def start(self) -> Broker:
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        log = (self.directory / "mosquitto.log").open("ab")
        self.process = subprocess.Popen([exe, "-c", str(self.conf)], stderr=log, stdout=log)
        wait_until(self._listening, 10, f"mosquitto on port {self.port}")
        return self

    def _listening(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return True
        except OSError:
            return False

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


class AlsaSink:
    """ALSA's default device as a `file` PCM: every stream opened writes one raw int16 file."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.conf = directory / "asoundrc"
        self.conf.write_text(
            "pcm.!default {\n"
            "  type file\n"
            '  slave.pcm "null"\n'
            f'  file "{directory}/play.raw"\n'
            '  format "raw"\n'
            "  truncate false\n"
            "}\n"
        )
        self.env = {"ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{self.conf}"}

    def files(self) -> list[Path]:
        def order(p: Path) -> int:
            suffix = p.name.removeprefix("play.raw").lstrip(".")
            return int(suffix) if suffix else 0

        return sorted(self.directory.glob("play.raw*"), key=order)

    def streams(self) -> list[np.ndarray]:
        """What each opened stream played, in order, as int16 samples."""
        return [np.frombuffer(p.read_bytes(), dtype="<i2") for p in self.files()]


class SwappableSink:
    """ALSA's default device as a `file` PCM under a config file the test can break."""

    def __init__(self, directory: Path) -> None:
        self.out = directory / "out"
        self.out.mkdir(parents=True)
        self.conf = directory / "asoundrc"
        self.good = (
            'pcm.!default {\n  type file\n  slave.pcm "null"\n'
            f'  file "{self.out}/play.raw"\n  format "raw"\n  truncate false\n}}\n'
        )
        self._write(self.good)
        self.env = {"ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{self.conf}"}

    def _write(self, text: str) -> None:
        # A new file, not an edit in place: alsa-lib notices a changed config by inode and mtime.
        tmp = self.conf.with_suffix(".tmp")
        tmp.write_text(text)
        os.replace(tmp, self.conf)

    def break_it(self, how: str) -> None:
        if how == "card unplugged":
            self._write("pcm.!default { type hw card 63 }\n")  # no such card
        else:  # the file PCM cannot create its output
            self.out.rename(self.out.with_name("out.gone"))

    def restore(self, how: str) -> None:
        if how == "card unplugged":
            self._write(self.good)
        else:
            self.out.with_name("out.gone").rename(self.out)

    def streams(self) -> list[np.ndarray]:
        files = sorted(self.out.glob("play.raw*"), key=lambda p: p.stat().st_mtime_ns)
        return [np.frombuffer(p.read_bytes(), dtype="<i2") for p in files]


READY_LOG = r"ready: the voices are loaded"  # the daemon's line as the start ends (READY=1)
SUBSCRIBED_LOG = r"subscribed to \d+ topic filters"  # alerts taken in, voices loaded or not


class Daemon:
    """`cosyedge run` as a real subprocess, stderr captured to a file."""

    def __init__(
        self,
        directory: Path,
        config_text: str,
        env: dict[str, str],
        preexec=None,
        models: Path | None = None,
        module: str = "cosyedge",
    ) -> None:
        """`models`: saved optimized graphs and tables copied into its state directory before
        the first start (`seed_models`); None starts it as a new gateway, making them.
        `module`: what `python -m` runs (`bench.paced_daemon`: sound paced as a card's)."""
        self.module = module
        self.directory = directory
        self.preexec = preexec  # runs in the child before exec: limits, cgroups
        directory.mkdir(parents=True, exist_ok=True)
        self.config = directory / "cosyedge.yaml"
        self.config.write_text(config_text)
        self.models = models
        self.log_path = directory / "daemon.log"
        self.env = {**os.environ, **env}
        self.process: subprocess.Popen[bytes] | Forked | None = None

    def start(self, wait_ready: bool = True) -> Daemon:
        text = self.config.read_text()
        seed_models(state_dir_of(text, self.env), self.models, text)
        self.log_path.touch()
        # The log is appended to: a restart waits for a ready line of its own.
        earlier = len(re.findall(READY_LOG, self.log()))
        argv = ["run", "--config", str(self.config)]
        self.process = self._forked(argv) or self._exec(argv)
        # Subscribed and the voices loaded: said as soon as received. Seconds on a quiet
        # machine; a start at load 15 on 2 cores took over a minute.
        if wait_ready:
            self.wait_for_log(READY_LOG, timeout=180, count=earlier + 1)
        return self

    def _forked(self, argv: list[str]) -> Forked | None:
        """Forked from this worker's import of cosyedge (tests/daemon_forks.py), where it can be."""
        if self.module != "cosyedge" or self.preexec is not None:
            return None
        return _FORKS.start(argv, self.env, self.directory, self.log_path)

    def _exec(self, argv: list[str]) -> subprocess.Popen[bytes]:
        with self.log_path.open("ab") as log:
            return subprocess.Popen(
                [sys.executable, "-m", self.module, *argv],
                stdout=log,
                stderr=log,
                env=self.env,
                cwd=self.directory,
                preexec_fn=self.preexec,
            )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, pattern: str, timeout: float = 30, count: int = 1) -> list[re.Match]:
        regex = re.compile(pattern)

        def found():
            if self.process and self.process.poll() is not None:
                raise AssertionError(f"daemon exited ({self.process.returncode}):\n{self.log()}")
            matches = list(regex.finditer(self.log()))
            return matches if len(matches) >= count else None

        try:
            return wait_until(found, timeout, f"{count}x /{pattern}/ in the daemon log")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n--- daemon log ---\n{self.log()}") from None

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> int | None:
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def fill(disk: Path, chunk: int = 65536) -> Path:
    """Fill the disk with one file, written `chunk` bytes at a time until it is full."""
    filler = disk / "filler"
    with contextlib.suppress(OSError), filler.open("wb") as f:
        while True:
            f.write(bytes(chunk))
            f.flush()
    return filler


def mount(*args: str) -> None:
    """Run mount(8); a machine that does not let us (not root) skips the test."""
    import pytest

    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"cannot mount here: {done.stderr.strip()}")


def publish(
    port: int,
    topic: str,
    payload: str | bytes,
    qos: int = 1,
    retain: bool = False,
    host: str = "127.0.0.1",
):
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"test-{uuid.uuid4().hex[:8]}")
    client.connect(host, port)
    client.loop_start()
    try:
        info = client.publish(topic, payload, qos=qos, retain=retain)
        info.wait_for_publish(timeout=10)
        assert info.is_published(), f"publish to {topic} not acknowledged"
        return time.monotonic()
    finally:
        client.disconnect()
        client.loop_stop()


class NotifySocket:
    """Stands in for systemd's notification socket: records every sd_notify(3) datagram."""

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="cosyedge-notify-", dir="/tmp"))
        self.path = self.directory / "notify"  # short: socket paths are limited to 107 bytes
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(self.path))
        self.messages: list[tuple[float, dict[str, str]]] = []  # (monotonic, fields)
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._receive, daemon=True)
        self._thread.start()

    def env(self, watchdog_s: float | None = None) -> dict[str, str]:
        env = {"NOTIFY_SOCKET": str(self.path)}
        if watchdog_s:
            env["WATCHDOG_USEC"] = str(int(watchdog_s * 1e6))
        return env

    def _receive(self) -> None:
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                return
            fields = dict(line.split("=", 1) for line in data.decode().splitlines() if "=" in line)
            with self._lock:
                self.messages.append((time.monotonic(), fields))

    def with_key(self, key: str, since: float = 0.0) -> list[tuple[float, str]]:
        with self._lock:
            return [(t, m[key]) for t, m in self.messages if key in m and t >= since]

    def statuses(self, since: float = 0.0) -> list[str]:
        return [v for _, v in self.with_key("STATUS", since)]

    def wait_for(self, key: str, pattern: str = "", timeout: float = 30, since: float = 0.0):
        """The time and value of the first `key` datagram whose value matches `pattern`."""
        regex = re.compile(pattern)

        def found():
            hits = [(t, v) for t, v in self.with_key(key, since) if regex.search(v)]
            return hits[0] if hits else None

        return wait_until(found, timeout, f"{key}= matching /{pattern}/ on the notify socket")

    def close(self) -> None:
        self.sock.close()
        shutil.rmtree(self.directory, ignore_errors=True)


class Listener:
    """A client that keeps every message on some topics; JSON payloads are decoded."""

    def __init__(self, port: int, *topics: str, persistent: bool = False) -> None:
        """`persistent`: a session the broker keeps, so reports sent while the broker was
        down and back reach us too (the subscription is renewed at every connect)."""
        self.messages: list[tuple[str, object]] = []
        self._subscribed = False
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"listen-{uuid.uuid4().hex[:8]}",
            clean_session=not persistent,
        )
        client.on_message = lambda c, u, m: self.messages.append((m.topic, _decoded(m.payload)))
        client.on_subscribe = lambda *a: setattr(self, "_subscribed", True)
        client.on_connect = lambda c, *a: c.subscribe([(t, 1) for t in topics])
        client.reconnect_delay_set(1, 2)
        client.connect("127.0.0.1", port)
        client.loop_start()
        self.client = client
        wait_until(lambda: self._subscribed, 10, f"subscription to {topics}")

    def on(self, topic: str) -> list:
        return [p for t, p in list(self.messages) if t == topic]

    def wait_for(self, topic: str, predicate, timeout: float = 30, what: str = "") -> list:
        """Waits until predicate(payloads on topic) is true; returns those payloads. The
        predicate sees at least one payload: on a busy machine the first (a status) can come
        after the first look, and `s[-1]` on none would fail the test instead of waiting."""
        wait_until(
            lambda: (payloads := self.on(topic)) and predicate(payloads),
            timeout,
            what or f"messages on {topic} (have {self.on(topic)})",
        )
        return self.on(topic)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _decoded(payload: bytes) -> object:
    try:
        return json.loads(payload)
    except (ValueError, RecursionError):  # raised in paho's thread, either would end it
        return payload


def kept_copy_removed_after_its_check(made: Path, directory: Path, monkeypatch) -> None:
    """Copy the kept files in `made` into `directory`, then make every kept file vanish right
    after it is checked, before it is opened (a state directory removed underneath)."""
    from cosyedge.speech.kept import KeptFile

    for kept in made.iterdir():
        shutil.copy(kept, directory)
    checked = KeptFile.ensure

    def checked_then_removed(self: KeptFile) -> Path | None:
        path = checked(self)
        if path is not None:
            path.unlink()
        return path

    monkeypatch.setattr(KeptFile, "ensure", checked_then_removed)


def fresh_portaudio() -> None:
    """Start this process's PortAudio afresh, so it lists the devices of the ALSA
    configuration the test has set: an earlier test in the same process may have started it
    under its own (PortAudio reads ALSA's configuration once, as it starts)."""
    import sounddevice as sd

    from cosyedge.audio.player import PortAudio

    assert PortAudio().rescan(sd)
