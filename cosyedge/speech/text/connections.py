"""Ways to reach a device or a person, written beside the documented forms (en-8):

- An international telephone number with hyphens (`+1-555-010-9999`, `+86-138-1234-5678`):
  "plus", the country code, then each group digit by digit (zero "oh"), a pause between,
  as one written with spaces is said; not "+one dash five five five ..." nor a country code
  split in two ("eight, six").
- An OPC UA node id (`ns=2;s=Line1.Pump3`, `ns=3;i=1001`): "namespace two, string Line one
  dot Pump three", "namespace three, numeric one zero zero one"; a GUID or opaque id after
  its word, as written.
"""

from __future__ import annotations

import re

from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import cardinal, digits

HYPHENATED_PHONE = re.compile(r"(?<![\w+.])\+(\d{1,3})((?:-\d{1,5}){2,5})(?![\w-]|\.\d)")
NODE_ID = re.compile(r"(?<![\w.])ns=(\d{1,5});([isgb])=([^\s;,()\[\]\"]+)")
# A sentence's mark after an id is the sentence's (ns=2;s=Line1.Pump3.).
_TRAILING = re.compile(r"[.:!?]+$")
_KINDS = {"i": "numeric", "s": "string", "g": "guid", "b": "opaque"}


def _phone(m: re.Match[str]) -> str:
    """`+1-555-010-9999` → "plus one, five five five, oh one oh, nine nine nine nine"."""
    groups = [m[1], *m[2].split("-")[1:]]
    if len("".join(groups[1:])) < 6:
        return m.group(0)  # +5-10-20: too few digits to dial, left for the range rules
    return "plus " + ", ".join(digits(g, zero="oh") for g in groups)


def _node_id(m: re.Match[str]) -> str:
    """The namespace as a number, the kind of id as its word, a numeric id digit by digit, a
    string's dots said (its words and numbers left for the rules after)."""
    namespace, kind, identifier = m.groups()
    mark = _TRAILING.search(identifier)
    after = mark.group(0) if mark else ""
    identifier = identifier[: len(identifier) - len(after)]
    if not identifier:
        return m.group(0)
    if kind == "i":
        identifier = digits(identifier) if identifier.isdigit() else identifier
    elif kind == "s":
        identifier = " dot ".join(identifier.split("."))
    return f"namespace {cardinal(int(namespace))}, {_KINDS[kind]} {identifier}{after}"


RULES = (
    Rule("telephone number", HYPHENATED_PHONE, _phone),
    Rule("OPC UA node id", NODE_ID, _node_id),
)
"""Read before the telephone numbers, ranges and dotted fields take their pieces."""
