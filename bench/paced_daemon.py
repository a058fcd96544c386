"""`cosyedge run` with sound output paced to real time, for benchmarks only.

The ALSA `file` sink used on machines without a sound card accepts audio as fast as it is
written, so an announcement "plays" in milliseconds. A sound card takes it at its sample
rate, and the player's between-block checks (preemption) happen at that pace. This launcher
makes PortAudio writes behave like a card with `LEAD_S` of buffer: a write returns once the
audio written so far is no more than LEAD_S ahead of the wall clock. The daemon itself is
unchanged.

    python -m bench.paced_daemon run --config FILE
"""

from __future__ import annotations

import sys
import time

LEAD_S = 0.1  # how far ahead of playback a card's buffer lets the writer run


def pace_sounddevice(lead_s: float = LEAD_S) -> None:
    import sounddevice as sd

    write, start = sd.OutputStream.write, sd.OutputStream.start

    def paced_start(self: sd.OutputStream) -> None:
        self._bench_played_until = time.monotonic()
        start(self)

    def paced_write(self: sd.OutputStream, data) -> bool:
        underflowed = write(self, data)
        # After an underrun (the writer was late) a card plays new audio from now on.
        begins = max(self._bench_played_until, time.monotonic())
        self._bench_played_until = begins + len(data) / self.samplerate
        wait = self._bench_played_until - lead_s - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        return underflowed

    sd.OutputStream.start = paced_start
    sd.OutputStream.write = paced_write


if __name__ == "__main__":
    pace_sounddevice()
    from cosyedge.cli import main

    sys.exit(main(sys.argv[1:]))
