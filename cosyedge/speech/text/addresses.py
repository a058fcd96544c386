"""Addresses read as they are dictated, so an operator can type them back: a URL with an IPv4
address (`http://10.0.0.5:8080/status`), a URL with a host name or an IPv6 address, an e-mail
address, a bare IPv6 address."""

from __future__ import annotations

import re

from cosyedge.speech import rx
from cosyedge.speech.text.words import digits, letters

# --- URLs with an address: http://10.0.0.5:8080/status, opc.tcp://192.168.1.20:4840 -----------

URL = rx.compile(
    r"(?<![\w.+-])([A-Za-z][A-Za-z0-9+.-]*)://(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?"
    r"((?:/[\w.~%-]*)*)(?![\w/])"
)


def say_scheme(scheme: str) -> str:
    """`opc.tcp` → "O P C dot T C P": the letters of each part, as it is typed."""
    parts = re.split(r"([.+-])", scheme.upper())
    words = {".": "dot", "+": "plus", "-": "dash"}
    return " ".join(words.get(p) or " ".join(letters(p)) for p in parts if p)


def read_url(m: re.Match[str]) -> str:
    """Scheme, "colon slash slash", the address digit by digit, its port, then the path with
    "slash" (its words left for the other rules)."""
    scheme, address, port, path = m.groups()
    if any(int(o) > 255 for o in address.split(".")):
        return m.group(0)
    said = f"{say_scheme(scheme)} colon slash slash "
    said += " dot ".join(digits(o) for o in address.split("."))
    said += f" port {digits(port)}" if port else ""
    return said + "".join(f" slash {segment}".rstrip() for segment in path.split("/")[1:])


# --- URLs with a host name, e-mail addresses, IPv6 addresses: dictated ----------------------

# Each mark of an address, as it is dictated.
_MARKS = {"/": "slash", ".": "dot", "-": "dash", "_": "underscore", "?": "question mark"}
_MARKS |= {"=": "equals", "&": "and", ":": "colon", "%": "percent", "#": "hash", "~": "tilde"}
_MARKS |= {"+": "plus", "@": "at", "[": "", "]": ""}
_PIECES = rx.compile(r"[A-Za-z]+|\d+|.")
_HOST = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
# The path is as short as it can be: a mark that ends a sentence after it is punctuation.
_PATH = r"(?:[/?#][\w.~%&=+:@/?#-]*?)??"
# After an address: space or the end, closing punctuation and quotes between.
_AFTER_ADDRESS = r"(?=[.,;:!?)\"']*(?:\s|$))"
_IPV6 = r"(?:[0-9A-Fa-f]{1,4})?(?::[0-9A-Fa-f]{0,4}){2,7}"
ADDRESS = rx.compile(
    # a URL with a host name or an IPv6 address: mqtt://broker:1883, http://[fe80::1]:8080/
    rf"(?<![\w.+-])(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<host>{_HOST}(?:\.{_HOST})*|\[{_IPV6}\])"
    rf"(?::(?P<port>\d{{1,5}}))?(?P<path>{_PATH}){_AFTER_ADDRESS}"
    # www.example.com/help
    rf"|(?<![\w.])(?P<www>www\.{_HOST}(?:\.{_HOST})+{_PATH}){_AFTER_ADDRESS}"
    # ops@plant.com
    rf"|(?<![\w.+-])(?P<mail>[A-Za-z0-9._%+-]+@{_HOST}(?:\.{_HOST})+)(?![\w-]|\.\w)"
    # fe80::1, 2001:db8::8a2e:370:7334: a double colon, or eight groups
    # (a colon after one group is a heading's: fe80::1: down), with a hex letter, a leading
    # double colon or three colons (1::2 is no address)
    r"|(?<![\w:])(?P<ipv6>(?=[0-9A-Fa-f:]*::)(?=[0-9:]*[A-Fa-f]|::|(?:[0-9A-Fa-f]*:){3})"
    rf"{_IPV6}|[0-9A-Fa-f]{{1,4}}(?::[0-9A-Fa-f]{{1,4}}){{7}})"
    r"(?<![0-9A-Fa-f]:)(?![\w]|:[0-9A-Fa-f:])"
)


def dictated(written: str) -> str:
    """An address as it is dictated: words as written, digits one by one, each mark named:
    `plant.local/alarms?id=42` → "plant dot local slash alarms question mark id equals four
    two"."""
    said = []
    for piece in _PIECES.findall(written):
        if piece.isdigit():
            said.append(digits(piece))
        elif piece.lower() == "www":
            said.append("W W W")
        elif piece.isalpha():
            said.append(piece)
        elif _MARKS.get(piece, piece.strip()):
            said.append(_MARKS.get(piece, piece))
    return " ".join(said)


def _hex_group(group: str) -> str:
    """An IPv6 group, character by character: `fe80` → "F E eight zero"."""
    return " ".join(digits(c) if c.isdigit() else letters(c.upper())[0] for c in group)


def _ipv6(written: str) -> str:
    """`fe80::1` → "F E eight zero colon colon one"."""
    return " ".join("colon" if p == ":" else _hex_group(p) for p in re.split("(:)", written) if p)


def read_address(m: re.Match[str]) -> str:
    """A URL with a host name, an e-mail address, an IPv6 address: dictated; a URL's scheme as
    its letters ("H T T P colon slash slash"), its port "port" and its digits."""
    if m["mail"]:
        return dictated(m["mail"])
    if m["www"]:
        return dictated(m["www"])
    if m["ipv6"]:
        return _ipv6(m["ipv6"])
    host = m["host"]
    said = f"{say_scheme(m['scheme'])} colon slash slash "
    said += _ipv6(host[1:-1]) if host.startswith("[") else dictated(host)
    said += f" port {digits(m['port'])}" if m["port"] else ""
    return said + (" " + dictated(m["path"]) if m["path"] else "")
