"""The premium voice's own process, and the daemon's side of it.

A process of its own rather than a thread, for what an annunciator must keep:
- memory: the voice needs about 1.3 GB at full size. When the process ends all of it goes
  back, and an allocation failure (onnxruntime aborts on some) ends the worker, not the
  daemon. Under a cgroup's memory limit the kernel's OOM killer picks the largest process,
  which is this one.
- CPU: it runs at nice 19 (BACKGROUND_NICE), on its own interpreter lock, so the live
  voice's Python never waits on it.
- alerts first: the daemon stops it with SIGSTOP the moment an alert is rendered or played,
  at once rather than at its next step, and lets it go on with SIGCONT once all is quiet.

The pipes carry pickles between the daemon and its own child: the spec, then one text per
request on stdin; `("ready", identity, sample_rate)`, then per request `("audio", identity,
sample_rate, pcm bytes)` or `("error", why)` on stdout. The worker dies with the daemon
(PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from cosyedge.config.pronunciation import PronunciationConfig
from cosyedge.config.voices import SessionConfig
from cosyedge.model import error_text

log = logging.getLogger(__name__)

START_TIMEOUT_S = 300.0  # loading a full-size pack (and optimizing its graphs the first time)
_TICK_S = 0.1
_PR_SET_PDEATHSIG = 1
# The lowest CPU priority: on a gateway busy with alerts the worker gets what is left. On a
# machine kept busy by others it may get nothing for minutes: a WorkerSpec says its own.
BACKGROUND_NICE = 19

Tick = Callable[[], bool]  # asked every _TICK_S while waiting: False gives up (the worker ends)


@dataclass(frozen=True)
class WorkerSpec:
    lang: str
    pack: Path
    session: SessionConfig
    saved_dir: Path | None
    pronunciations: tuple[PronunciationConfig, ...]
    nice: int = BACKGROUND_NICE  # the worker's CPU priority, set before it loads the voice


class WorkerFailed(Exception):
    """The worker could not render: `phrase` is true when the phrase itself failed (the voice
    answered with an error), false when the worker is gone or was given up on."""

    def __init__(self, reason: str, phrase: bool = False) -> None:
        super().__init__(reason)
        self.phrase = phrase


@dataclass(frozen=True)
class Rendered:
    identity: str
    sample_rate: int
    pcm: np.ndarray  # mono int16


class PremiumWorker:
    """One premium voice process: started, asked phrase by phrase, paused, ended."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self.identity = ""
        self.sample_rate = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._replies: queue.Queue[object] = queue.Queue()
        self._lock = threading.Lock()  # pause/resume/close come from other threads
        self.paused = False

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self, tick: Tick) -> None:
        """Spawn the process and wait for its voice to load; WorkerFailed if it cannot."""
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "cosyedge.speech.premium.worker", str(os.getpid())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                close_fds=True,
            )
        except OSError as exc:  # no memory to fork, no process slots, no interpreter
            raise WorkerFailed(f"cannot start the premium voice process: {exc}") from None
        with self._lock:
            self._proc = proc
        reader = threading.Thread(target=self._read, args=(proc,), name="premium-reader")
        reader.daemon = True
        reader.start()
        self._send(self.spec)
        reply = self._wait(tick, START_TIMEOUT_S)
        if reply[0] != "ready":
            self.close()
            raise WorkerFailed(f"the premium voice did not load: {reply[-1]}")
        _, self.identity, self.sample_rate = reply

    def synthesize(self, text: str, tick: Tick, timeout_s: float) -> Rendered:
        """The phrase's audio; WorkerFailed when it cannot be had (see its `phrase`)."""
        self._send(text)
        reply = self._wait(tick, timeout_s)
        if reply[0] == "error":
            raise WorkerFailed(str(reply[1]), phrase=True)
        _, identity, rate, data = reply
        return Rendered(identity, int(rate), np.frombuffer(data, dtype=np.int16))

    def pause(self) -> None:
        self._signal(signal.SIGSTOP, True)

    def resume(self) -> None:
        self._signal(signal.SIGCONT, False)

    def rss_mb(self) -> float:
        """The process's resident memory now; 0 when it is not running."""
        proc = self._proc
        try:
            with open(f"/proc/{proc.pid}/statm", "rb") as f:  # type: ignore[union-attr]
                pages = int(f.read().split()[1])
        except (AttributeError, OSError, ValueError, IndexError):
            return 0.0
        return pages * os.sysconf("SC_PAGE_SIZE") / (1 << 20)

    def close(self) -> None:
        """End the process (at once: it holds nothing that must be saved) and reap it."""
        with self._lock:
            proc, self._proc = self._proc, None
            self.paused = False
        if proc is None:
            return
        with contextlib.suppress(OSError):
            proc.kill()
        for pipe in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                pipe.close()  # type: ignore[union-attr]
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)

    def _signal(self, sig: int, paused: bool) -> None:
        with self._lock:
            if self._proc is None or self.paused == paused:
                return
            with contextlib.suppress(OSError):
                self._proc.send_signal(sig)
            self.paused = paused

    def _send(self, item: object) -> None:
        proc = self._proc
        try:
            pickle.dump(item, proc.stdin)  # type: ignore[union-attr, arg-type]
            proc.stdin.flush()  # type: ignore[union-attr]
        except (AttributeError, OSError, ValueError) as exc:
            raise WorkerFailed(f"the premium voice process is gone ({exc})") from None

    def _wait(self, tick: Tick, timeout_s: float) -> tuple:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                reply = self._replies.get(timeout=_TICK_S)
            except queue.Empty:
                if not tick():
                    self.close()
                    raise WorkerFailed("given up") from None
                if not self.paused and time.monotonic() > deadline:
                    self.close()
                    raise WorkerFailed(f"no answer within {timeout_s:.0f} s") from None
                if self.paused:  # time spent stopped for alerts is not the worker's
                    deadline += _TICK_S
                continue
            if isinstance(reply, tuple) and reply and reply[0] in ("ready", "audio", "error"):
                return reply
            self.close()
            raise WorkerFailed(f"the premium voice process ended ({reply})")

    def _read(self, proc: subprocess.Popen[bytes]) -> None:
        """On its own thread: every reply in order, then how the process ended."""
        try:
            while True:
                self._replies.put(pickle.load(proc.stdout))  # type: ignore[arg-type]
        except Exception:  # EOF, a closed pipe, a torn pickle: the process is gone
            pass
        code = proc.wait()
        self._replies.put(f"exit status {code}" if code >= 0 else f"signal {-code}")


# -- the worker process ---------------------------------------------------------------------


def _die_with(parent: int) -> None:
    """Be killed when the daemon dies, however it dies (kill -9 too); exit now if it is
    already gone (it died before the request was in place)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        sys.exit(0)


def serve(spec: WorkerSpec, requests: BinaryIO, replies: BinaryIO) -> None:
    """Load the voice, say it is ready, then render each text asked until stdin ends."""
    from cosyedge.speech.kept import saved_dir_of
    from cosyedge.speech.voices import lexicon_for
    from cosyedge.speech.voices.cosyvoice import CosyvoiceVoice

    def send(item: object) -> None:
        pickle.dump(item, replies)
        replies.flush()

    try:
        lexicon = lexicon_for({spec.lang: spec.pronunciations}, spec.lang)
        saved = saved_dir_of(spec.saved_dir)  # a path: the spec crosses to this process
        voice = CosyvoiceVoice.load(spec.lang, spec.pack, spec.session, saved, lexicon)
    except Exception as exc:
        send(("error", error_text(exc)))
        return
    send(("ready", voice.identity, voice.sample_rate))
    while True:
        try:
            text = pickle.load(requests)
        except EOFError:
            return
        try:
            # The whole phrase is this voice's: its `say` entries apply to all of it.
            parts = list(voice.synthesize(voice.front.lexicon.rewrite(str(text), [])))
            if not parts:
                raise ValueError("the text holds nothing the voice can say")
            pcm = np.concatenate(parts).astype(np.int16)
        except Exception as exc:
            send(("error", error_text(exc)))
            continue
        send(("audio", voice.identity, voice.sample_rate, pcm.tobytes()))


def main(argv: list[str]) -> None:
    _die_with(int(argv[0]))
    logging.basicConfig(level=logging.WARNING, format="premium voice: %(name)s: %(message)s")
    # The replies get a descriptor of their own and fd 1 goes to stderr: a library printing
    # to stdout must not tear the stream of pickles.
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    spec = pickle.load(sys.stdin.buffer)
    os.setpriority(os.PRIO_PROCESS, 0, spec.nice)  # every thread onnxruntime starts inherits it
    serve(spec, sys.stdin.buffer, replies)


if __name__ == "__main__":
    main(sys.argv[1:])
