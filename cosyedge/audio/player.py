"""The player: PCM blocks to the sound device through PortAudio, one stream per announcement.

Opening a stream per announcement releases the device between alerts (no "device busy" for
others). When the device cannot be opened or fails mid-phrase (USB DAC unplugged, ALSA
"device busy"), `play` raises `AudioUnavailable`: the caller keeps the announcement and tries
again after `retry_in()` seconds, a backoff that grows to `MAX_RETRY_S`. Before each retry
PortAudio is started afresh, because it lists devices only once, so a device that comes back,
possibly as another card, is found without restarting the daemon.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from cosyedge.component import Component, Detail
from cosyedge.model import Heartbeat

if TYPE_CHECKING:
    from cosyedge.config.schema import Config

log = logging.getLogger(__name__)

MIN_RETRY_S = 0.5
MAX_RETRY_S = 10.0
# sounddevice's words for an unanticipated host error PortAudio recorded no reason for: the
# device failed at a write or an open on a thread other than the one that started PortAudio.
NO_HOST_DETAIL = "'' [<host API not found> error 0]"


class AudioUnavailable(Exception):
    """No sound could be played; the announcement was not (fully) heard."""


class PortAudio:
    """PortAudio as the players of one process share it: it is one per process, and starting
    it afresh (the way to see a device that came back) invalidates every stream open in the
    process, another zone's in the middle of an announcement too. So it is started afresh only
    while no player has a stream open; meanwhile the device is tried as PortAudio knows it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open = 0

    @contextlib.contextmanager
    def stream(self) -> Iterator[None]:
        """Around opening, playing and closing one stream."""
        with self._lock:
            self._open += 1
        try:
            yield
        finally:
            with self._lock:
                self._open -= 1

    def rescan(self, sd, then: Callable[[], None] = lambda: None) -> bool:
        """Start PortAudio afresh unless a stream is open, then `then` (no stream opens before
        it is done); whether it was."""
        with self._lock:
            if self._open:
                return False
            _rescan_devices(sd)
            then()
            return True

    def look_for(self, players: list[Player]) -> bool:
        """While no stream is open: PortAudio started afresh and each player told whether
        its device is there now (`Player.found`); whether it looked. A device that is there
        may still fail to open (busy, a sink that cannot write): only a stream shows that."""
        try:
            import sounddevice as sd
        except OSError as exc:  # no PortAudio: no device can be
            for player in players:
                player.found(_one_line(exc))
            return True

        def tell() -> None:
            for player in players:
                player.found(_missing(sd, player.device))

        # ALSA tells stderr of each card it cannot open, at every look: not into the log.
        with quiet_stderr():
            return self.rescan(sd, tell)


@dataclass
class Playback:
    played: bool
    samples: int
    first_audio: float | None  # time.monotonic() of the first block handed to the device
    stopped: bool = False  # cut short because should_stop() said so
    last_audio: float | None = None  # time.monotonic() when the last block was handed over


class Player(Component):
    """The sound device, and the player's part of the daemon: its fault `audio`, how it does
    in the status, and a reload's device and block size."""

    def __init__(
        self,
        device: str | None,
        block_ms: int,
        heartbeat: Heartbeat | None = None,
        output: str | None = None,
        portaudio: PortAudio | None = None,
    ):
        self.device = device
        self.portaudio = portaudio or PortAudio()  # shared by all players of the process
        self.output = output  # its name under `outputs`; None: `audio.device`, no zones
        self.block_ms = block_ms
        self.heartbeat = heartbeat or Heartbeat("player")
        self.available: bool | None = None  # None until the first attempt
        self._failures = 0
        self._lost_since = 0.0
        self._why = ""  # the first error of the current outage
        self.underruns = 0  # blocks after which the device reported it had run dry
        self.missing: str | None = None  # its device was not there when last looked for
        # Map PortAudio now, while memory is plentiful: near a memory limit, loading it at the
        # first alert can fail while synthesis for that alert is already under way.
        with contextlib.suppress(OSError):
            import sounddevice  # noqa: F401

    def play(
        self,
        sample_rate: int,
        chunks: Iterable[np.ndarray],
        should_stop: Callable[[], bool] = lambda: False,
    ) -> Playback:
        """Play every chunk, or until should_stop() (asked between blocks) says to give way;
        raises AudioUnavailable when the device cannot take them."""
        import sounddevice as sd

        retrying = self.available is False
        if retrying:  # before its own stream counts as open
            self.portaudio.rescan(sd)
        with self.portaudio.stream():
            return self._play(sd, sample_rate, chunks, should_stop, retrying)

    def _play(
        self,
        sd,
        sample_rate: int,
        chunks: Iterable[np.ndarray],
        should_stop: Callable[[], bool],
        retrying: bool,
    ) -> Playback:
        self.heartbeat.beat()
        try:
            samples, first, stopped = self._through(sd, sample_rate, chunks, should_stop, retrying)
        finally:
            self.heartbeat.rest()
        self._back()  # also when there was nothing to play
        return Playback(True, samples, first, stopped, time.monotonic())

    def _back(self) -> None:
        """The device takes audio: an outage, if one lasted, ends now (said once), not when
        the announcement that found it back ends, which may be many seconds later."""
        if self.available is False:
            log.warning("audio output device is back after %.0f s", self._outage_s())
        self.available, self.missing = True, None
        self._failures = 0

    def _through(
        self,
        sd,
        sample_rate: int,
        chunks: Iterable[np.ndarray],
        should_stop: Callable[[], bool],
        retrying: bool,
    ) -> tuple[int, float | None, bool]:
        """The chunks through a stream of its own (samples played, when the first was
        handed over, whether cut short); AudioUnavailable when the device fails."""
        try:
            # ALSA repeats the same complaint on every retry: it was logged once already.
            with quiet_stderr() if retrying else contextlib.nullcontext():
                stream = sd.OutputStream(
                    samplerate=sample_rate, channels=1, dtype="int16", device=self.device
                )
                stream.start()
        except (sd.PortAudioError, ValueError) as exc:
            raise self._lost(exc) from None
        try:
            return self._write(stream, sample_rate, chunks, should_stop, sd.PortAudioError)
        finally:
            close_stream(stream, sd.PortAudioError)

    def _write(
        self,
        stream,
        sample_rate: int,
        chunks: Iterable[np.ndarray],
        should_stop: Callable[[], bool],
        error: type[Exception],
    ) -> tuple[int, float | None, bool]:
        block = max(1, sample_rate * self.block_ms // 1000)
        samples, first = 0, None
        for chunk in chunks:
            self.heartbeat.beat()
            for start in range(0, len(chunk), block):
                if should_stop():
                    stream.abort()  # drop what the device still buffers: cut in now
                    return samples, first, True
                piece = chunk[start : start + block]
                try:
                    if stream.write(piece):  # PortAudio says the device ran dry meanwhile
                        self.underruns += 1
                except error as exc:
                    raise self._lost(exc) from None
                self.heartbeat.beat()
                if first is None:
                    first = time.monotonic()
                    self._back()
                samples += len(piece)
        return samples, first, False

    def retry_in(self) -> float:
        """Seconds to wait before the next attempt: doubling from MIN_RETRY_S to MAX_RETRY_S."""
        return min(MAX_RETRY_S, MIN_RETRY_S * 2 ** max(0, self._failures - 1))

    @property
    def trouble(self) -> str | None:
        """Why nothing can be played, while that lasts: the alarm system's `audio` fault. A
        device not there when looked for (`PortAudio.look_for`, while idle) is one too, so
        the status does not say all is well until an alert finds out."""
        if self.available is False:
            return f"sound device unavailable ({self._why}); alerts wait in the queue"
        if self.missing is not None:
            return f"sound device unavailable ({self.missing}); alerts wait in the queue"
        return None

    def found(self, missing: str | None) -> None:
        """What looking for its device found: None, there; else why not."""
        if missing is not None and self.missing is None:
            log.error("audio output device not found (%s): alerts wait for it", missing)
        self.missing = missing

    def describe(self) -> str:
        """The audio part of STATUS."""
        if self.available is False:
            return f"unavailable for {self._outage_s():.0f} s, retrying every {self.retry_in():g} s"
        if not self.available:
            return "not used yet"
        return f"ok, {self.underruns} underruns" if self.underruns else "ok"

    @property
    def fault(self) -> str:
        """Its fault's name: `audio`, or `audio:<output>` where the daemon has zones."""
        return "audio" if self.output is None else f"audio:{self.output}"

    def reconfigure(self, config: Config) -> None:
        # An output's device is named under `outputs`, which a restart changes.
        if self.output is None:
            self.device = config.audio.device
        self.block_ms = config.audio.block_ms

    def tick(self, now: float) -> Mapping[str, str | None]:
        return {self.fault: self.trouble}

    def state(self, detail: Detail) -> Mapping[str, Any]:
        return {"audio_up": self.trouble is None, "audio": self.describe()}

    def _lost(self, exc: Exception) -> AudioUnavailable:
        """Count a failure, tell the first of an outage; the error to raise."""
        self._failures += 1
        if self.available is not False:
            self._lost_since = time.monotonic()
            self._why = _reason(exc)
            log.error(
                "audio output device unavailable (%s): alerts stay queued and are spoken when "
                "it is back; retrying with backoff up to %g s",
                self._why,
                MAX_RETRY_S,
            )
        else:
            log.debug("audio output device still unavailable (%s)", _one_line(exc))
        self.available = False
        return AudioUnavailable(str(exc))

    def _outage_s(self) -> float:
        return time.monotonic() - self._lost_since


def _missing(sd, device: str | None) -> str | None:
    """Why PortAudio has no output device `device` (None: the default), or None."""
    try:
        sd.query_devices(device, "output")
    except (ValueError, sd.PortAudioError) as exc:
        return _one_line(exc) if device is not None else f"no default output ({_one_line(exc)})"
    return None


def _rescan_devices(sd) -> None:
    # PortAudio's device list is fixed at initialisation; restarting it is how sounddevice's
    # maintainers advise renewing it.
    try:
        sd._terminate()
        sd._initialize()
    except Exception as exc:
        log.debug("PortAudio restart failed: %s", exc)


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """Point fd 2 at /dev/null meanwhile (our log has its own descriptor, see logsetup)."""
    saved = os.dup(2)
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def close_stream(stream, error: type[Exception]) -> None:
    """Let the device play out what it holds (unless aborted), then release it."""
    try:
        if not stream.stopped:
            stream.stop()
    except error as exc:
        log.debug("stopping the audio stream failed: %s", _one_line(exc))
    try:
        stream.close()
    except error as exc:
        log.debug("closing the audio stream failed: %s", _one_line(exc))


def _reason(exc: Exception) -> str:
    """Why the device failed, in words. PortAudio's ALSA host API records ALSA's reason for an
    unexpected error only on the thread that started PortAudio (pa_linux_alsa.c); on an
    announcer's thread sounddevice shows an empty one, which is replaced by what is known."""
    text = _one_line(exc)
    if NO_HOST_DETAIL not in text:
        return text
    return "an ALSA error, whose reason ALSA wrote to stderr (PortAudio gives it no other way)"


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())
