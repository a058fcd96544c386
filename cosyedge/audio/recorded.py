"""A recorded message (a person's voice saying to evacuate, say): a WAV file read and checked
once, when the configuration is loaded, and held in memory to be played at the output's rate.

What is accepted, and why the rest is refused (`RecordedRefused`, one line naming the file
and what is wrong with it, never a traceback):

- a WAV (RIFF/WAVE) file whose samples are 16- or 24-bit PCM or 32-bit float, plain or as
  WAVE_FORMAT_EXTENSIBLE (which editors write for 24-bit): the chunks are read here, since
  Python 3.11's `wave` reads neither float nor the extensible header, and no audio file
  library is a dependency. 8-bit PCM is refused: its quantisation noise, at -48 dBFS, is as
  loud as the silence check's threshold and is heard at evacuation volume; so is 32-bit PCM,
  which no recorder needs and float32 would hold only to 24 bits;
- mono: a stereo file is refused rather than mixed down, since a mix of two channels can
  cancel what they hold out of phase, and which channel is the message only its maker knows;
- 8000-48000 Hz; longer than 0.2 s and at most the configured `max_s`;
- not clipped: at most `max_clipped_percent` (0.1 %) of the samples at full scale;
- not near-silent: its RMS level over the whole file at least `min_rms_dbfs` (-45 dBFS; a
  full-scale sine reads -3 dBFS);
- a regular file: a FIFO, a device or a directory in its place is refused at once
  (regular.py), not waited on or read without end.

The samples are held as float32 (4 bytes a sample: a 30 s message at 16 kHz is 1.9 MB, the
longest at 48 kHz 23 MB) and brought to the output's rate when played (`pcm`).
"""

from __future__ import annotations

import math
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from cosyedge.audio.resample import Resampler, resample
from cosyedge.config.signals import RecordedConfig
from cosyedge.regular import regular_only

MIN_RATE, MAX_RATE = 8000, 48000
MIN_S = 0.2
PCM, FLOAT, EXTENSIBLE = 0x0001, 0x0003, 0xFFFE
# The GUID of an extensible header's subformat, after its first two bytes (the format tag).
_GUID_TAIL = b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
MAX_CHUNKS = 64  # chunks before the data; a file with more is no message
MAX_FMT_BYTES = 1024  # a format chunk is 16-40 bytes


class RecordedRefused(Exception):
    """A recorded message that cannot be used: `recorded message <file>: <reason>`."""


@dataclass(frozen=True)
class WavFormat:
    """What a WAV file's format chunk says."""

    tag: int  # PCM or FLOAT, after an extensible header's subformat
    channels: int
    rate: int
    bits: int
    block_align: int

    def describe(self) -> str:
        return f"{self.bits}-bit {'float' if self.tag == FLOAT else 'PCM'}, {self.rate} Hz"


@dataclass(frozen=True)
class RecordedMessage:
    """A message as read and checked: its samples (mono float32, full scale 1.0) at its own
    rate, and the levels measured."""

    file: Path
    sample_rate: int
    samples: np.ndarray
    encoding: str
    peak_dbfs: float
    rms_dbfs: float

    @property
    def duration_s(self) -> float:
        return len(self.samples) / self.sample_rate

    def pcm(self, sample_rate: int, convert: Resampler = resample) -> np.ndarray:
        """int16 samples at `sample_rate` (the output's), converted by `convert`."""
        converted = convert(self.samples, self.sample_rate, sample_rate)
        return np.clip(np.round(converted * 32767), -32767, 32767).astype(np.int16)


def load_recorded(config: RecordedConfig) -> RecordedMessage:
    """Read and check the configured message; raises RecordedRefused naming the file and why."""
    try:
        fmt, samples = read_wav(config.file, config.max_s)
        rms_dbfs, peak_dbfs = _check_level(samples, fmt, config)
    except _Why as why:
        raise RecordedRefused(f"recorded message {config.file}: {why}") from None
    return RecordedMessage(config.file, fmt.rate, samples, fmt.describe(), peak_dbfs, rms_dbfs)


class _Why(Exception):
    """The reason a file is refused, without the file's name."""


def read_wav(path: Path, max_s: float) -> tuple[WavFormat, np.ndarray]:
    """The format and the samples (float32, full scale 1.0) of a WAV file that passes every
    check but the level's; raises _Why."""
    try:
        with open(path, "rb", opener=regular_only) as f:
            return _read(f, max_s)
    except OSError as exc:
        raise _Why(f"cannot read: {exc.strerror or exc}") from None


def _read(f: BinaryIO, max_s: float) -> tuple[WavFormat, np.ndarray]:
    head = f.read(12)
    if len(head) < 12 or head[:4] != b"RIFF" or head[8:] != b"WAVE":
        raise _Why("not a WAV file (no RIFF/WAVE header)")
    fmt = None
    for _ in range(MAX_CHUNKS):
        chunk = f.read(8)
        if len(chunk) < 8:
            raise _Why(f"header cut short: no {'data' if fmt else 'format'} chunk")
        kind, size = chunk[:4], struct.unpack("<I", chunk[4:])[0]
        if kind == b"fmt ":
            fmt = _format(f.read(min(size + (size & 1), MAX_FMT_BYTES))[:size], size)
        elif kind == b"data":
            if fmt is None:
                raise _Why("a data chunk before the format chunk")
            return fmt, _data(f, fmt, size, max_s)
        else:
            f.seek(size + (size & 1), 1)  # a chunk of no concern (LIST, fact, cue)
    raise _Why(f"no data chunk in the first {MAX_CHUNKS} chunks")


def _format(raw: bytes, size: int) -> WavFormat:
    if not 16 <= size < MAX_FMT_BYTES or len(raw) < size:
        raise _Why(f"a format chunk of {size} bytes, cut short or malformed")
    tag, channels, rate, _, block_align, bits = struct.unpack("<HHIIHH", raw[:16])
    if tag == EXTENSIBLE and len(raw) >= 40 and raw[26:40] == _GUID_TAIL:
        tag = struct.unpack("<H", raw[24:26])[0]
    fmt = WavFormat(tag, channels, rate, bits, block_align)
    _check_format(fmt)
    return fmt


def _check_format(fmt: WavFormat) -> None:
    if fmt.tag not in (PCM, FLOAT):
        raise _Why(f"format tag 0x{fmt.tag:04x}, a message must be PCM or float")
    if fmt.channels != 1:
        raise _Why(f"{fmt.channels} channels, a message must be mono")
    if not MIN_RATE <= fmt.rate <= MAX_RATE:
        raise _Why(f"{fmt.rate} Hz, a message must be {MIN_RATE}-{MAX_RATE} Hz")
    if (fmt.tag, fmt.bits) not in ((PCM, 16), (PCM, 24), (FLOAT, 32)):
        kind = "float" if fmt.tag == FLOAT else "PCM"
        raise _Why(f"{fmt.bits}-bit {kind}, a message must be 16- or 24-bit PCM or 32-bit float")
    if fmt.block_align != fmt.bits // 8:
        raise _Why(f"{fmt.block_align} bytes a sample frame, not {fmt.bits // 8} as mono says")


def _data(f: BinaryIO, fmt: WavFormat, size: int, max_s: float) -> np.ndarray:
    # Cut short before the length is judged: a damaged size is no message's real length.
    held = os.fstat(f.fileno()).st_size - f.tell()
    if size > held:
        raise _Why(f"truncated: its data chunk holds {size} bytes, the file {held} of them")
    frames = size // fmt.block_align
    seconds = frames / fmt.rate
    if seconds <= MIN_S:
        raise _Why(f"{seconds:.2f} s long, a message must be longer than {MIN_S} s")
    if seconds > max_s:
        raise _Why(f"{seconds:.1f} s long, longer than the {max_s:g} s allowed (max_s)")
    raw = f.read(frames * fmt.block_align)
    if len(raw) < frames * fmt.block_align:  # cut short since it was looked at
        raise _Why(f"truncated: its data chunk holds {size} bytes, the file {len(raw)} of them")
    return _decoded(raw, fmt)


def _decoded(raw: bytes, fmt: WavFormat) -> np.ndarray:
    if fmt.tag == FLOAT:
        samples = np.frombuffer(raw, dtype="<f4").astype(np.float32)
        if not np.all(np.isfinite(samples)):
            raise _Why("samples that are not numbers (NaN or infinite)")
        return samples
    if fmt.bits == 24:  # three bytes a sample: widened to four, the sign kept by the shift
        wide = np.zeros((len(raw) // 3, 4), dtype=np.uint8)
        wide[:, 1:] = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3)
        return (wide.view("<i4")[:, 0] >> 8).astype(np.float32) / 2**23
    ints = np.frombuffer(raw, dtype=f"<i{fmt.bits // 8}")
    return (ints / 2.0 ** (fmt.bits - 1)).astype(np.float32)


def _check_level(
    samples: np.ndarray, fmt: WavFormat, config: RecordedConfig
) -> tuple[float, float]:
    """The RMS and peak levels in dBFS of samples that are neither clipped nor near-silent."""
    # Full scale: the largest code of a PCM file (either sign), 1.0 or beyond for float.
    full = 1.0 if fmt.tag == FLOAT else (2 ** (fmt.bits - 1) - 1) / 2 ** (fmt.bits - 1)
    clipped = 100.0 * np.count_nonzero(np.abs(samples) >= full) / len(samples)
    if clipped > config.max_clipped_percent:
        raise _Why(f"clipped: {clipped:.2f} % of its samples at full scale (at most "
                   f"{config.max_clipped_percent:g} %)")  # fmt: skip
    rms = float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))
    if rms == 0.0:
        raise _Why("silent: every sample is zero")
    rms_dbfs = 20 * math.log10(rms)
    if rms_dbfs < config.min_rms_dbfs:
        raise _Why(f"near-silent: RMS {rms_dbfs:.1f} dBFS, below {config.min_rms_dbfs:g} dBFS")
    return rms_dbfs, 20 * math.log10(float(np.max(np.abs(samples))))
