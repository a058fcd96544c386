"""Ways to reach a device or a person, written beside the documented forms (en-9):

- An international telephone number with hyphens (`+1-555-010-9999`, `+86-138-1234-5678`):
  "plus", the country code, then each group digit by digit (zero "oh"), a pause between,
  as one written with spaces is said; not "+one dash five five five ..." nor a country code
  split in two ("eight, six").
- A host name ending in a local or common domain (`plc-01.plant.local`, `scada.lan`,
  `hmi3.corp`): "plc dash 01 dot plant dot local", the labels left for the rules after
  (`01` digit by digit), not "plc-zero one.plant.local"; `www.` hosts, e-mail and URLs are
  read by their own rules (plant.py).
- A semantic version with a pre-release of several parts or build metadata (`2.0.0-rc.1`,
  `1.2.3+build.5`): the version read as a version, then "dash" and "plus", the parts joined
  by "dot", a short word spelled: "version two point zero point zero dash R C dot one".
- An OPC UA node id (`ns=2;s=Line1.Pump3`, `ns=3;i=1001`): "namespace two, string Line one
  dot Pump three", "namespace three, numeric one zero zero one"; a GUID or opaque id after
  its word, as written.
"""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import cardinal, digits, letters, number

HYPHENATED_PHONE = rx.compile(r"(?<![\w+.])\+(\d{1,3})((?:-\d{1,5}){2,5})(?![\w-]|\.\d)")
NODE_ID = rx.compile(r"(?<![\w.])ns=(\d{1,5});([isgb])=([^\s;,()\[\]\"]+)")
# A sentence's mark after an id is the sentence's (ns=2;s=Line1.Pump3.).
_TRAILING = rx.compile(r"[.:!?]+$")
_DOMAINS = "local|lan|internal|corp|intra|home|localdomain|com|net|org|io"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOST = rx.compile(rf"(?<![\w.@/:-])(?!www\.)((?:{_LABEL}\.)+(?:{_DOMAINS}))(?!\w|[.:/-]\w)")
_IDENT = r"[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*"
SEMVER = rx.compile(rf"(?<![\w.])(v?\d+\.\d+\.\d+)(-{_IDENT})?(\+{_IDENT})?(?!\w|[.+-]\w)")
_RUNS = rx.compile(r"[A-Za-z]+|\d+")
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


def _host(m: re.Match[str]) -> str:
    """`plc-01.plant.local` → "plc dash 01 dot plant dot local"."""
    return " dot ".join(label.replace("-", " dash ") for label in m[1].split("."))


def _suffix_part(part: str) -> str:
    """`rc` → "R C", `beta` → "beta", `1` → "one", `rc1` → "R C one"."""
    said = []
    for run in _RUNS.findall(part):
        if run.isdigit():
            said.append(number(run))
        else:
            said.append(" ".join(letters(run.upper())) if len(run) <= 3 else run)
    return " ".join(said)


def _semver(m: re.Match[str]) -> str:
    """`2.0.0-rc.1` → `v2.0.0 dash R C dot one` for the version rule; a plain pre-release
    of one part (`-rc1`) is the version rule's own."""
    core, pre, build = m.groups()
    if not build and (not pre or "." not in pre):
        return m.group(0)
    said = core if core.startswith("v") else "v" + core
    for mark, word in ((pre, "dash"), (build, "plus")):
        if mark:
            said += f" {word} " + " dot ".join(_suffix_part(p) for p in mark[1:].split("."))
    return said


RULES = (
    Rule("version", SEMVER, _semver),
    Rule("host name", HOST, _host),
    Rule("telephone number", HYPHENATED_PHONE, _phone),
    Rule("OPC UA node id", NODE_ID, _node_id),
)
"""Read before the telephone numbers, ranges and dotted fields take their pieces."""
