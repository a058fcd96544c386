"""Daemons forked from a process that imported the daemon's modules once per test worker.

A daemon start is about 1.2 s of CPU on a warm state directory, 0.5 s of it importing
cosyedge, numpy and paho; the suite starts about 200. `start` forks each from one process
per worker that did those imports (as `python -m cosyedge` would, with nothing else run), so
a daemon is the same code from the same interpreter, minus the imports it would repeat. Its
environment, working directory and output are set in the child before `cosyedge.cli.main`
runs, as exec would have them. Whatever the interpreter reads only as it starts (the
`PYTHON*` variables, the locale, the allocator's and the math libraries' settings) must be
the worker's own, else `start` returns None and the caller execs `python -m` as before.

The worker makes itself a child subreaper and the fork server forks twice, so the daemon is
the worker's own child: `Forked` waits for it, signals it and reads its exit status as
`subprocess.Popen` does, and a daemon killed with SIGKILL is seen as such."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import threading
import time

PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>
# Room in the fork server's command line for each daemon's own (see `retitle`).
ROOM = "." * 4096
# Read by the interpreter or the libraries it loads as the process starts, not later.
AT_START = ("PYTHON", "LD_", "MALLOC_", "GLIBC_", "OMP_", "OPENBLAS_", "MKL_", "LC_", "LANG")

SERVER = r"""
import ctypes, json, os, sys
import _strptime, importlib.metadata, numpy.fft, numpy.random
import cosyedge.build, cosyedge.cli, cosyedge.daemon  # what every daemon imports first
# What the default voices import as they load, short of the engines (onnxruntime starts a
# thread as it is imported, and a fork keeps none but the forking one).
import cosyedge.speech.text.english, cosyedge.speech.text.localtime
import cosyedge.speech.voices.espeak_pinyin, cosyedge.speech.zh.normalize
from cosyedge.cli import main


def become(request):
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.close(null)
    sys.stdin = open(0, closefd=False)
    retitle(request["argv"])


def retitle(argv):
    # The command line `python -m cosyedge ARGV` written over this process's own arguments,
    # as setproctitle does: `cosyedge reload --pid` reads it from /proc.
    stat = open("/proc/self/stat", "rb").read().rsplit(b")", 1)[1].split()
    start, end = int(stat[45]), int(stat[46])  # arg_start, arg_end: fields 48 and 49
    words = [sys.executable, "-m", "cosyedge", *argv]
    line = b"".join(os.fsencode(w) + b"\0" for w in words)
    if len(line) > end - start:
        raise SystemExit("the fork server's own command line is too short for " + str(words))
    ctypes.memmove(start, line.ljust(end - start, b"\0"), end - start)


def serve():
    requests = os.fdopen(0, "rb", buffering=0)
    for line in iter(requests.readline, b""):
        request = json.loads(line)
        read, write = os.pipe()
        helper = os.fork()
        if helper == 0:
            os.close(read)
            daemon = os.fork()
            if daemon == 0:
                os.close(write)
                become(request)
                return request["argv"]
            os.write(write, b"%d" % daemon)
            os._exit(0)
        os.close(write)
        pid = os.read(read, 32)
        os.close(read)
        os.waitpid(helper, 0)  # the daemon is the worker's child from here on
        os.write(1, pid + b"\n")
    sys.exit(0)


argv = serve()
sys.argv = [sys.argv[0], *argv]
raise SystemExit(main(argv))
"""


class Forked:
    """A forked daemon as the worker's child: what tests use of `subprocess.Popen`."""

    def __init__(self, pid: int, args: list[str]) -> None:
        self.pid, self.args = pid, args
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(self.args, timeout)
            time.sleep(0.01)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def terminate(self) -> None:
        self.send_signal(15)

    def kill(self) -> None:
        self.send_signal(9)


class ForkServer:
    """One per test worker, started at its first daemon; see the module's docstring."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._server: subprocess.Popen[bytes] | None = None
        self._environment = self._at_start(os.environ)

    @staticmethod
    def _at_start(env) -> dict[str, str]:
        return {k: v for k, v in env.items() if k.startswith(AT_START)}

    def start(self, argv: list[str], env: dict[str, str], cwd, log) -> Forked | None:
        """`cosyedge` with `argv` forked, or None when `env` differs from the worker's in
        what an interpreter reads only as it starts."""
        if self._at_start(env) != self._environment:
            return None
        request = {"argv": argv, "env": env, "cwd": str(cwd), "log": str(log)}
        with self._lock:
            server = self._running()
            server.stdin.write(json.dumps(request).encode() + b"\n")
            server.stdin.flush()
            pid = int(server.stdout.readline())
        return Forked(pid, [sys.executable, "-m", "cosyedge", *argv])

    def _running(self) -> subprocess.Popen[bytes]:
        if self._server is None or self._server.poll() is not None:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
            self._server = subprocess.Popen(
                [sys.executable, "-c", SERVER, ROOM], stdin=subprocess.PIPE, stdout=subprocess.PIPE
            )
        return self._server
