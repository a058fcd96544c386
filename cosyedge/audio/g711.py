"""The payloads of the network outputs: G.711 µ-law and A-law (ITU-T G.711) and L16, from int16.

Both G.711 laws are written here rather than taken from a library: each is a few array
operations over the whole packet, with no table kept between calls, and Python's own
`audioop` is deprecated and gone from 3.13. The segment of a sample is found with
`numpy.frexp` (its exponent is the bit length of an integer), so a packet is encoded with
no loop in Python. The rules, from G.711's tables:

- Both take a negative sample as its ones' complement (-1 as 0, -32768 as 32767), as ITU-T
  G.191's reference does, so the laws are symmetric: a sample and its complement differ
  only in the sign bit.
- µ-law: the magnitude, clipped to 32635, plus the bias 132, has its highest set bit at
  position 7 + segment (0-7); the four bits below it are the step; the byte is sign
  (1: negative), segment and step, all inverted (a positive sample's top bit is 1).
  Decoded, a code gives the middle of its step.
- A-law: on the 13-bit scale (the sample shifted right by 3), the segment is 0 below 32,
  else the magnitude's bit length minus 5 (at most 7), and the step the four bits below the
  highest (segments 0 and 1 share a shift of 1); the byte is sign (1: positive), segment
  and step, its even bits inverted (XOR 0x55).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

ULAW_BIAS = 132  # 0x84: moves every magnitude to a segment whose step is exact
ULAW_CLIP = 32635  # the largest magnitude that, biased, still fits segment 7
ALAW_CLIP = 4095  # 13-bit magnitudes


def ulaw(pcm: np.ndarray) -> np.ndarray:
    """µ-law bytes (uint8) of int16 samples, one a sample."""
    x = np.asarray(pcm, dtype=np.int32)
    biased = np.minimum(np.where(x < 0, ~x, x), ULAW_CLIP) + ULAW_BIAS
    segment = _bit_length(biased >> 7) - 1  # 132..32767 >> 7 is 1..255: segments 0..7
    step = (biased >> (segment + 3)) & 0x0F
    sign = np.where(x < 0, 0x80, 0)
    return (~(sign | (segment << 4) | step) & 0xFF).astype(np.uint8)


def alaw(pcm: np.ndarray) -> np.ndarray:
    """A-law bytes (uint8) of int16 samples, one a sample."""
    x = np.asarray(pcm, dtype=np.int32) >> 3  # the law is defined on 13 bits
    negative = x < 0
    magnitude = np.minimum(np.where(negative, ~x, x), ALAW_CLIP)
    segment = np.maximum(_bit_length(magnitude) - 5, 0)
    step = (magnitude >> np.maximum(segment, 1)) & 0x0F
    sign = np.where(negative, 0, 0x80)
    return ((sign | (segment << 4) | step) ^ 0x55).astype(np.uint8)


def l16(pcm: np.ndarray) -> np.ndarray:
    """L16 (RFC 3551 §4.5.11): the int16 samples in network byte order."""
    return np.asarray(pcm, dtype=np.int16).astype(">i2")


def encoder(codec: str) -> Callable[[np.ndarray], np.ndarray]:
    """The encoder of `codec` (pcmu, pcma or l16): int16 samples to the payload's array."""
    encoders = {"pcmu": ulaw, "pcma": alaw, "l16": l16}
    return encoders[codec]


def _bit_length(values: np.ndarray) -> np.ndarray:
    """Bits needed for each non-negative integer (0 for 0): frexp's exponent."""
    return np.frexp(values.astype(np.float64))[1].astype(np.int32)
