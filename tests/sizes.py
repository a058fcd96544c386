"""How large the tests' inputs are. The suite checks each property on inputs large enough to
show it (a reading that grows as the square of its length, a table that reads one word in a
thousand wrong); `scripts/prove`'s `sizes` row runs the same tests with COSYEDGE_TEST_SIZE=full,
on the inputs they were first written for, where the margins are wider."""

from __future__ import annotations

import os

FULL = os.environ.get("COSYEDGE_TEST_SIZE") == "full"


def sized(suite: int, full: int) -> int:
    """`full` when the tests run at their full sizes, else `suite`."""
    return full if FULL else suite
