"""Generators of the forms each reading class covers, for the property tests of both
languages: each draws a written form and the parts it was made of, from which a reference
verbalizer (reference_en.py, reference_zh.py) computes what should be heard."""

from __future__ import annotations

import os
from dataclasses import dataclass

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("COSYEDGE_FUZZ_EXAMPLES", "300"))
CLASSES = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@dataclass(frozen=True)
class Form:
    """One generated instance: how it is written, and what it is (for the references)."""

    written: str
    parts: tuple


# --- compact durations -----------------------------------------------------------------------

_DURATION_UNITS = (("d", "day", 400), ("h", "hour", 100), ("m", "minute", 60), ("s", "second", 60))


@st.composite
def durations(draw) -> Form:
    """Two or more of days, hours, minutes, seconds, largest first: `3h40m`, `1h05m20s`,
    `2d 4h`, `5min 30.5s`; the last part may have decimals."""
    chosen = draw(st.lists(st.sampled_from(range(4)), min_size=2, max_size=4, unique=True))
    chosen.sort()
    space = draw(st.sampled_from(["", " "]))
    written, parts = [], []
    for i, index in enumerate(chosen):
        unit, word, limit = _DURATION_UNITS[index]
        amount = str(draw(st.integers(0, limit - 1 if i else min(limit, 999))))
        if i and draw(st.booleans()):
            amount = amount.zfill(2)
        if i == len(chosen) - 1 and draw(st.integers(0, 4)) == 0:
            amount += "." + str(draw(st.integers(0, 99)))
        symbol = "min" if unit == "m" and draw(st.booleans()) else unit
        written.append(amount + symbol)
        parts.append((amount, word))
    return Form(space.join(written), tuple(parts))


# --- MAC addresses -----------------------------------------------------------------------------


@st.composite
def macs(draw) -> Form:
    """Six pairs of hex digits with `:` or `-` throughout, in either case."""
    pairs = draw(st.lists(st.integers(0, 255), min_size=6, max_size=6))
    case = draw(st.sampled_from([str.upper, str.lower]))
    written = [case(f"{p:02X}") for p in pairs]
    return Form(draw(st.sampled_from(":-")).join(written), tuple(written))
