"""The CosyVoice conversion venv, for the tests that build a tiny pack in it."""

from __future__ import annotations

import functools
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "cosyvoice_tiny.py"
SPEAKER = "英文女"
SUITE_FLOW_STEPS = 2  # the shared pack's flow (conftest's cosyvoice_pack), without guidance


def cosyvoice_python() -> Path:
    return Path(os.environ.get("COSYEDGE_COSYVOICE_PYTHON", REPO / ".venv-cosyvoice/bin/python"))


def conversion_unavailable() -> str | None:
    """Why a CosyVoice pack cannot be converted here, or None when it can."""
    python = cosyvoice_python()
    if not python.exists():
        return f"no CosyVoice conversion venv at {python} (scripts/setup test makes it)"
    probe = (
        "import importlib.util as u; "
        "print(*[m for m in ('torch', 'cosyvoice', 'whisper', 'onnx') if not u.find_spec(m)])"
    )
    missing = subprocess.run([python, "-c", probe], capture_output=True, text=True).stdout.split()
    return f"{python} lacks {', '.join(missing)}" if missing else None


def run_cosyvoice_python(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run `python ARGS` in the conversion venv, on one thread (the machine is shared), at the
    suite's own priority (at nice 10 beside five busy workers it waited minutes for the CPU).
    Each runs in a fork of this test process's one server of the venv (cosyvoice_forkserver.py),
    which has imported torch and the reference's classes once."""
    return _server().run(list(args), timeout)


def run_cosyvoice_python_alone(
    *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`python ARGS` in a fresh interpreter of the conversion venv, for a command that imports
    none of torch and the model classes (the reference's text rules): a fresh interpreter
    takes a fraction of a second, where the server's imports take 11 s of CPU in a test
    process that has not started it."""
    command = [str(cosyvoice_python()), *args]
    env = _env()
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, env=env, cwd=REPO
    )


def start_cosyvoice_python(*args: str, timeout: float = 600) -> Forked:
    """`python ARGS` as run_cosyvoice_python runs it, without waiting for its end: its pid to
    signal, its `wait` for its status and output."""
    return _server().start(list(args), timeout)


@functools.cache
def _server() -> ForkServer:
    return ForkServer()


def forked_cpu_seconds() -> float:
    """The CPU of the commands run so far in this test process's server and of its imports,
    which its own accounting cannot see (they are not its children)."""
    return _server().cpu if _server.cache_info().currsize else 0.0


def _env() -> dict[str, str]:
    """The checkout's own cosyedge first: the venv's editable install may name another."""
    path = os.pathsep.join([str(REPO), str(REPO / "tests")])
    return {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": path}


class ForkServer:
    """The conversion venv's process that forks a child per command; it ends with its input,
    so with the test process."""

    def __init__(self) -> None:
        self.pending = b""
        self.process = subprocess.Popen(
            [str(cosyvoice_python()), str(REPO / "tests" / "cosyvoice_forkserver.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=REPO,
            env=_env(),
        )
        self.cpu = self.reply(600)["cpu"]

    def run(self, args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
        return self.start(args, timeout).wait(timeout)

    def start(self, args: list[str], timeout: float) -> Forked:
        """The command forked, not waited for; `timeout` bounds the wait for the fork."""
        tmp = Path(tempfile.mkdtemp(prefix="cosyvoice-run-"))
        request = {"args": args, "env": _env(), "cwd": str(REPO), "out": str(tmp / "out")}
        self._send({**request, "err": str(tmp / "err")})
        return Forked(self, args, self.reply(timeout)["pid"], tmp)

    def _send(self, request: dict) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(request) + "\n").encode())
        self.process.stdin.flush()

    def reply(self, timeout: float) -> dict:
        """The server's next line; TimeoutExpired when none comes in `timeout` seconds, and
        an error naming its exit when it has ended (an import failed: its stderr is the
        test's). Read from the descriptor itself: a buffered reader could hold the second
        line while select waits for more."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            if not select.select([fd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(self.process.args, timeout)
            chunk = os.read(fd, 4096)
            if not chunk:
                raise RuntimeError(f"the conversion venv's server ended ({self.process.wait()})")
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return json.loads(line)


@dataclass
class Forked:
    """A command the server forked, running until `wait` has seen it end; `pid` is there to
    be signalled (it is the server's child, not the test's)."""

    server: ForkServer
    args: list[str]
    pid: int
    files: Path  # its standard output and error, removed once it has ended

    def wait(self, timeout: float) -> subprocess.CompletedProcess[str]:
        """Its end; TimeoutExpired (the command killed) when it takes over `timeout` seconds."""
        try:
            ended = self.server.reply(timeout)
        except subprocess.TimeoutExpired:
            os.kill(self.pid, signal.SIGKILL)
            self.server.cpu += self.server.reply(10)["cpu"]
            shutil.rmtree(self.files, ignore_errors=True)
            raise
        self.server.cpu += ended["cpu"]
        out, err = ((self.files / name).read_text() for name in ("out", "err"))
        shutil.rmtree(self.files, ignore_errors=True)
        return subprocess.CompletedProcess(self.args, ended["rc"], out, err)


class PackUnavailable(Exception):
    """The tiny pack cannot be built here; the message says why."""


def build_tiny_pack(directory: Path) -> Path:
    """The tiny random-weight model (seed 7) converted into a pack under `directory`, by the
    real converter in the conversion venv; PackUnavailable where it cannot be."""
    reason = conversion_unavailable()
    if reason:
        raise PackUnavailable(reason)
    model, pack = directory / "cosyvoice-model", directory / "cosyvoice-pack"
    for args in (
        (str(TINY), str(model), "--seed", "7"),
        ("-m", "cosyedge", "voice", "convert-cosyvoice", "--model-dir", str(model),
         "--out", str(pack), "--speaker", SPEAKER),
    ):  # fmt: skip
        done = run_cosyvoice_python(*args)
        if done.returncode:
            raise PackUnavailable(f"cannot build the CosyVoice pack: {done.stderr[-300:]}")
    return pack
