"""English readings of the fields plant systems write as one token: compact durations, MAC
addresses, versions, and a known field inside a longer token.

Each is read before the numbers, ranges and units inside it could be: `3h40m` would be "three
h forty meters", `AC:DE:48:00:11:22` a row of clock times, the address in
`gw2-10.20.30.40-a` a decimal.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from cosyedge.speech import rx
from cosyedge.speech.text.spans import Rule
from cosyedge.speech.text.words import cardinal, count, digits, letters, number

# --- compact durations: 3h40m, 1h05m20s, 2d 4h, 1h30 -----------------------------------------

# The unit letters in the order a duration writes them, and what each is said as.
DURATION_UNITS = {"d": "day", "h": "hour", "min": "minute", "m": "minute", "s": "second"}
_ORDER = {"d": 0, "h": 1, "min": 2, "m": 2, "s": 3}
_PART = r"\d{1,3}(?:\.\d+)?(?:d|h|min|m|s)"
_PARTS = rx.compile(r"(\d+(?:\.\d+)?)(min|[dhms])")
# A duration's written form, without groups (for the split into languages).
DURATION_FORM = rf"\d{{1,3}}h\d{{2}}(?![A-Za-z0-9])|{_PART}(?:\s?{_PART})+"
DURATION = rx.compile(
    rf"(?<![\w./-])(?<!\d[,:])(?:({_PART}(?:\s?{_PART})+)|(\d{{1,3}})h(\d{{2}}))(?![\w/]|[.:]\d)"
)


def duration_parts(written: str) -> list[tuple[str, str]] | None:
    """(amount, unit) of each part of a compact duration, or None where the parts are not one
    duration: each unit once, largest first, a fraction only in the last part."""
    parts = _PARTS.findall(written)
    order = [_ORDER[unit] for _, unit in parts]
    if order != sorted(set(order)) or any("." in amount for amount, _ in parts[:-1]):
        return None
    return parts


def say_duration(parts: list[tuple[str, str]]) -> str:
    """`[("1", "h"), ("05", "m"), ("20", "s")]` → "one hour five minutes and twenty seconds":
    parts of nothing left out (all of them nothing: the last, "zero minutes")."""
    said = [(amount, unit) for amount, unit in parts if float(amount)] or parts[-1:]
    words = []
    for amount, unit in said:
        whole, _, fraction = amount.partition(".")
        spoken = cardinal(int(whole)) + (f" point {digits(fraction)}" if fraction else "")
        name = DURATION_UNITS[unit]
        words.append(f"{spoken} {name if spoken == 'one' else name + 's'}")
    if len(words) > 1:
        words[-1] = "and " + words[-1]
    return " ".join(words)


def read_duration(say: Callable[[list[tuple[str, str]]], str], m: re.Match[str]) -> str:
    """A compact duration matched as DURATION's groups are (the written duration, or hours
    and minutes of `1h30`), said by `say`; left as written when it is none."""
    if m.group(1) is None:  # 1h30: hours and minutes
        return say([(m.group(2), "h"), (m.group(3), "m")])
    parts = duration_parts(m.group(1))
    if parts is not None:
        return say(parts)
    runs = _runs(m.group(1))
    return m.group(0) if len(runs) < 2 else "".join(_said_run(say, run) for run in runs)


def _runs(written: str) -> list[str]:
    """`3h40m 3h40m` → ["3h40m", " 3h40m"]: a new duration starts where a unit is no smaller
    than the one before it or a fraction was written (en-10); what parts them stays with the
    run after it."""
    runs, last = [""], None
    for part in _PARTS.finditer(written):
        order = _ORDER[part[2]]
        if last is not None and (order <= last[0] or "." in last[1]):
            runs.append("")
        runs[-1] += written[len("".join(runs)) : part.end()]
        last = (order, part[1])
    return runs


def _said_run(say: Callable[[list[tuple[str, str]]], str], run: str) -> str:
    """One run of _runs said (its leading space kept); a lone part as a duration too, since
    it follows one (`3h40m 2h`)."""
    gap = run[: len(run) - len(run.lstrip())]
    return gap + say(_PARTS.findall(run))


# --- MAC addresses: AC:DE:48:00:11:22, ac-de-48-00-11-22 -------------------------------------

HEX = "[0-9A-Fa-f]{2}"  # one byte of a MAC address
# A MAC address's written form, without groups (for the split into languages).
MAC_FORM = rf"{HEX}(?::{HEX}){{5}}|{HEX}(?:-{HEX}){{5}}"
# Six pairs of hex digits, one separator throughout; a colon after it (a heading) is not a
# seventh pair.
MAC = rx.compile(rf"(?<![\w.-])(?<!\w:)({HEX}([:-]){HEX}(?:\2{HEX}){{4}})(?!\w|[:.-]\w)")


def say_hex_pair(pair: str) -> str:
    """`"AC"` → "eh C", `"48"` → "four eight": letters and digits one by one."""
    return " ".join(digits(c) if c.isdigit() else letters(c.upper())[0] for c in pair)


def _mac(m: re.Match[str]) -> str:
    """Pair by pair, with a pause between pairs, as an address is dictated."""
    return ", ".join(say_hex_pair(pair) for pair in re.split("[:-]", m.group(1)))


# --- version strings: v4.0.2, fw v1.12.3, firmware 4.12 -------------------------------------

# A version after a v, or after a word that says one follows (then two parts are a version
# too: firmware 4.12 is four point twelve, not a decimal). (en-9) A pre-release tag after a
# hyphen (`-rc1`, `-beta.2`, `-hotfix`) or a letter written onto the last part (`v4.12b`,
# `v1.2rc1`); without a v or a word, dotted numbers are a version only with a pre-release
# word after a hyphen (`1.0.0-beta`, `2.1.0-rc1`) or, three parts, a small letter written
# onto them (`1.2.3b`): a decimal has one point, and `1.5-fold` is no version.
_PRE_RELEASE = (
    r"(?i:alpha|beta|rc|pre|preview|dev|hotfix|patch|snapshot|nightly|final|stable|lts|build)"
)
_BARE_VERSION = rf"\d+(?:\.\d+){{1,3}}-{_PRE_RELEASE}|\d+(?:\.\d+){{2}}[a-z]"
VERSION = rx.compile(
    r"(?<![\w.])(?:[vV](?=\d)|(?i:(version|firmware|fw|software|sw|release|rev|build)\s+)(?=\d+\.\d)"
    rf"|(?=(?:{_BARE_VERSION})(?:[.-]?\d+)?(?![\w-]|\.\d)))"
    rf"(\d+(?:\.\d+){{1,3}})(?:-([A-Za-z]{{1,10}})(?:[.-]?(\d+))?|({_PRE_RELEASE}|[A-Za-z])(\d*))?"
    r"(?![\w-]|\.\d)"
)


def say_version(written: str) -> str:
    """`"4.12.07"` → "four point twelve point zero seven": each part a number (a leading zero
    makes it digits, as in any label)."""
    return " point ".join(number(part) for part in written.split("."))


def _version_tag(tag: str, tag_number: str | None) -> str:
    """`rc`, `1` → "R C one": a tag of three letters or fewer spelled, a longer one a word
    (beta, hotfix); its number a cardinal."""
    said = " ".join(tag.upper()) if len(tag) <= 3 else tag.lower()
    return said + (f" {count(tag_number)}" if tag_number else "")


def _version(m: re.Match[str]) -> str:
    """`v2.1.0-rc1` → "version two point one point zero dash R C one", `fw 1.2.3b` → "fw one
    point two point three B"."""
    word, parts, tag, tag_number, glued, glued_number = m.groups()
    said = f"{word} " if word else "version "
    said += say_version(parts)
    if tag:  # v2.1.0-rc1: "dash R C one"; a longer tag is a word (beta)
        said += " dash " + _version_tag(tag, tag_number)
    elif glued:  # v4.12b: the letter said after the number, no dash written
        said += " " + _version_tag(glued, glued_number)
    return said


# --- serial numbers and other identifiers: SN 8842-1190-07, order 20251130044 ----------------

# Words that say an identifier follows: its digits are a name, not an amount.
ID_WORDS = (
    r"S/?N|P/N|serial(?:\s+(?:no\.?|number))?|part\s+(?:no\.?|number)|order(?:\s+(?:no\.?|number))?"
    r"|PO|batch|lot|coil|register|reg|ticket|invoice|job"
    # (en-9) equipment and work identifiers, said as the words above are
    r"|asset(?:\s+(?:no\.?|number|id))?|unit\s+(?:no\.?|number)|recipe|WO|work\s+order"
    r"(?:\s+(?:no\.?|number))?|HR|IR|tag"
)
_DATES = r"\d{4}-\d{1,2}-\d{1,2}(?![\d-])|\d{1,2}-\d{1,2}-\d{4}(?![\d-])"
_NOT_A_DATE = rf"(?!{_DATES}|(?:{MAC_FORM})(?!\w))"  # nor a MAC address
# After such a word: four digits or more, or groups joined by hyphens. Without one: three
# groups or more (two are a range, 5-10).
_CUED = rf"(?i:({ID_WORDS}))(\s*(?:#|:)?\s*)(\d{{4,}}|\d+(?:-\d+)+)"
SERIAL = rx.compile(
    rf"(?<![\w./-])(?<!\d,)(?:{_CUED}|{_NOT_A_DATE}(\d+(?:-\d+){{2,}}))(?![\w-]|[.,]\d)"
)
# The cued form alone, read before telephone numbers: SN 555-1234 is no number to dial.
CUED_SERIAL = rx.compile(rf"(?<![\w./-])(?<!\d,){_CUED}()(?![\w-]|[.,]\d)")


def say_identifier(written: str) -> str:
    """`"8842-1190-07"` → "eight eight four two dash one one nine zero dash zero seven": digit by
    digit, in the groups it is written in."""
    return " dash ".join(digits(group) for group in written.split("-"))


def id_word(word: str) -> str:
    """`S/N` → "S N", `PO` → "P O" (letters, the slash silent), `Order No.` → "Order number"."""
    if re.fullmatch(r"[A-Za-z]/?[A-Za-z]", word) or word == "PO":
        return " ".join(c.upper() for c in word if c != "/")
    return re.sub(r"(?i)\bno\.?$", "number", word)


def read_serial(m: re.Match[str]) -> str:
    word, between, after_word, alone = m.groups()
    if alone:
        return say_identifier(alone)
    # Written onto the word (SN12345678), the digits are still a word apart: never "S None".
    between = " number " if "#" in between else between.rstrip() + " "
    return id_word(word) + between + say_identifier(after_word)


# --- numbers joined by colons: 1:2:3:4:5 --------------------------------------------------------

# (en-10) Four numbers or more joined by colons that are no MAC address (read before) are no
# clock and no ratio: each number, "colon" between, as written (`10:20:30:40` → "ten colon
# twenty colon thirty colon forty"). Three are a time or a ratio, read by their rules.
COLON_CHAIN = rx.compile(r"(?<![\w.:])\d{1,6}(?::\d{1,6}){3,}(?!\w|[.:]\d)")


# --- a known field inside a longer token: gw2-10.20.30.40-a, line3/PT-101A -------------------

# The written forms of the fields that keep their reading inside a token (without groups).
IP_FORM = r"\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?(?:/\d{1,2})?"
DATE_FORM = "|".join(
    rf"\d{{4}}{s}\d{{1,2}}{s}\d{{1,2}}|\d{{1,2}}{s}\d{{1,2}}{s}\d{{4}}" for s in ("-", "/", r"\.")
)
# A device tag, its digit runs whole; not a date or a MAC address after a word
# (`LOG-2026-11-15`, `GW2-00-1A-...`).
_WHOLE = r"(?!\d|\.\d)"
NOT_A_FIELD = rf"(?!\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}|{MAC_FORM})"
TAG_FORM = (
    rf"[A-Z]{{1,4}}-?{NOT_A_FIELD}\d{{1,6}}{_WHOLE}[A-Z]{{0,2}}(?:-{NOT_A_FIELD}\d{{1,6}}{_WHOLE})*"
)
FIELD_FORMS = (MAC_FORM, IP_FORM, DATE_FORM, TAG_FORM)
# The characters that join the pieces of a token, and how each is said between them.
JOINERS = "-_/"
JOINER_WORDS = {"-": "dash", "_": "underscore", "/": "slash"}


def joined(forms: tuple[str, ...], letter: str = "A-Za-z") -> re.Pattern[str]:
    """A field of `forms` with a joiner on either side that ties it to the rest of its token
    (groups: the joiner before, the field, the joiner after, a lone letter after that).
    Where no joiner ties it, the field stands alone: not inside a longer number, word or
    address."""
    fields = "|".join(f"(?:{form})" for form in forms)
    alnum = f"[{letter}0-9]"
    lone = rf"[{letter}](?!{alnum}|\.{alnum})"
    return rx.compile(
        rf"(?:(?<={alnum})([{JOINERS}])|(?<!{alnum}|\.)(?<!{alnum}:))({fields})"
        rf"(?:([{JOINERS}])(?={alnum})({lone})?|(?!{alnum}|[.:{JOINERS}]{alnum}))"
    )


def say_joined(m: re.Match[str], words: dict[str, str]) -> str:
    """The field set apart, each joiner said as `words` has it, a lone letter after the field
    as a capital (a label: `-a` is the letter, not the article). The field itself is left for
    its own rule."""
    before, field, after, letter = m.groups()
    if not (before or after):
        return m.group(0)
    spoken = [words[before]] if before else []
    spoken += [field] + ([words[after]] if after else []) + ([letter.upper()] if letter else [])
    # Spaces only where a piece of the token stands next to what is said.
    return " " * bool(before) + " ".join(spoken) + " " * bool(after and not letter)


JOINED = joined(FIELD_FORMS)
# (en-10) A word, a slash, then a version, a dated timestamp or a clock time (`fw/v1.2.3`,
# `log/2026-11-30T14:05:00Z`, `plc/14:05`): the slash said, the field read as it is alone.
# Only after letters: after digits a slash parts two values or a date's numbers.
SLASHED_FIELD = rx.compile(
    r"(?<=[A-Za-z])/(?=[vV]\d+(?:\.\d+)+|\d{4}-\d{1,2}-\d{1,2}T\d|\d{1,2}:\d\d(?!\d))"
)
# Three or four dotted numbers after a product's name are its version, never a date (en-11):
# `HA 2024.11.2` → "HA version two thousand twenty four point eleven point two" (was "HA
# November second twenty twenty four"), as after a word that says a version.
_PRODUCTS = r"HA|Home Assistant|Node-RED|Node|ESPHome|Zigbee2MQTT|Grafana|InfluxDB|Mosquitto"
PRODUCT_VERSION = rx.compile(rf"(?<![\w.-])({_PRODUCTS})\s+(?=\d+(?:\.\d+){{2,3}}(?![\w-]|\.\d))")
PRODUCT_VERSIONS = (Rule("version", PRODUCT_VERSION, lambda m: f"{m[1]} version "),)
"""Read before the dates: the version rule reads the number after "version"."""

SLASHED = (Rule("field inside a token", SLASHED_FIELD, lambda m: " slash "),)
"""Read before the registers and the clock times, which would take the field with its word."""

RULES = (
    # A version's numbers may look like an address (firmware 10.2.0.1-rc1): it goes first.
    Rule("version", VERSION, _version),
    # Hyphenated digit groups are one identifier before a date inside them could be taken.
    Rule("identifier", SERIAL, read_serial),
    Rule("field inside a token", JOINED, lambda m: say_joined(m, JOINER_WORDS)),
    Rule("MAC address", MAC, _mac),
    Rule("colon chain", COLON_CHAIN, lambda m: " colon ".join(m.group(0).split(":"))),
    Rule("duration", DURATION, functools.partial(read_duration, say_duration)),
)
