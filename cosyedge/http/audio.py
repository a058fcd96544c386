"""Rendered speech for an HTTP caller: WAV framing. Its clauses come through the pump of
`speech/stream.py`, which the Wyoming server shares: the caller never holds the synthesizer."""

from __future__ import annotations

import struct

STREAMING = 0xFFFFFFFF  # a WAV size not known when the header is sent, as streaming players take it


def wav_header(sample_rate: int, samples: int | None) -> bytes:
    """A 16-bit mono PCM WAV header; `samples` None while the length is not known yet."""
    data = STREAMING if samples is None else samples * 2
    riff = STREAMING if samples is None else 36 + data
    fmt = struct.pack("<HHIIHH", 1, 1, sample_rate, sample_rate * 2, 2, 16)
    return (
        b"RIFF"
        + struct.pack("<I", riff)
        + b"WAVEfmt "
        + struct.pack("<I", 16)
        + fmt
        + (b"data" + struct.pack("<I", data))
    )
