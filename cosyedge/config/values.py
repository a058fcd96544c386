"""A template's declared field values: the finite set of phrases it can say, to render ahead.

In the config, `values` maps each placeholder of `text` to a list (`[open, closed]`), an
integer range written `"1..12"`, or a single value.
"""

from __future__ import annotations

import itertools
import math
import re
import string
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cosyedge.model import Scalar

MAX_PHRASES = 10000  # per template: more is not a phrase list but a number to synthesize
_RANGE = re.compile(r"\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*\Z")
_RANGE_DIGITS = 18  # plenty for a range of values; Python refuses to convert over 4300


def placeholders(text: str) -> list[str]:
    return list(dict.fromkeys(name for _, name, _, _ in string.Formatter().parse(text) if name))


def expand_values(text: str, values: Any) -> dict[str, tuple[Scalar, ...]]:
    """Validate and expand; raises ValueError("values.<field>: reason")."""
    if not isinstance(values, Mapping):
        raise ValueError("values: expected a mapping of field names to values")
    names = placeholders(text)
    out: dict[str, tuple[Scalar, ...]] = {}
    for name, spec in values.items():
        if name not in names:
            known = ", ".join(names) or "none"
            raise ValueError(f"values.{name}: not a placeholder of text (placeholders: {known})")
        out[str(name)] = _expand_one(str(name), spec)
    if out:
        missing = [n for n in names if n not in out]
        if missing:
            raise ValueError(
                f"values: no values for {', '.join(missing)}; declare every placeholder "
                "so the phrases can be listed"
            )
        count = math.prod(len(v) for v in out.values())
        if count > MAX_PHRASES:
            raise ValueError(f"values: {count} phrases, more than {MAX_PHRASES} per template")
    return out


def _expand_one(name: str, spec: Any) -> tuple[Scalar, ...]:
    where = f"values.{name}"
    if isinstance(spec, str) and (m := _RANGE.match(spec)):
        if max(len(m.group(1)), len(m.group(2))) > _RANGE_DIGITS:
            raise ValueError(f"{where}: range bounds of more than {_RANGE_DIGITS} digits")
        lo, hi = int(m.group(1)), int(m.group(2))
        if lo > hi:
            raise ValueError(f"{where}: range {spec} runs backwards")
        if hi - lo + 1 > MAX_PHRASES:
            raise ValueError(f"{where}: range {spec} has more than {MAX_PHRASES} values")
        return tuple(range(lo, hi + 1))
    items = spec if isinstance(spec, list) else [spec]
    if not items:
        raise ValueError(f"{where}: empty list")
    for i, item in enumerate(items):
        if not isinstance(item, (str, int, float, bool)):
            kind = {dict: "a mapping", list: "a list"}.get(type(item), "null")
            raise ValueError(f"{where}[{i}]: expected a plain value, got {kind}")
        if isinstance(item, float) and not math.isfinite(item):
            raise ValueError(f"{where}[{i}]: expected a finite number, got {item}")
    return tuple(dict.fromkeys(items))


def combinations(values: Mapping[str, tuple[Scalar, ...]]) -> Iterator[dict[str, Scalar]]:
    names = list(values)
    for combo in itertools.product(*(values[n] for n in names)):
        yield dict(zip(names, combo, strict=True))
