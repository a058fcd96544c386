"""The documentation made from the code: the configuration reference and the man pages.

    python -m devtools.docs [--check]        (scripts/docs, in a checkout)

docs/config-reference.md and docs/man/cosyedge.yaml.5 come from the config schema: the
dataclasses of cosyedge.config, their types and defaults, and the help, range and choices in
each field's metadata. docs/man/cosyedge.1 comes from the command line parser. Nothing here
reads the machine (a default computed from the host or the environment is shown as the schema
describes it), so tests/test_docs.py can tell when a committed file is out of date.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from cosyedge import __version__
from cosyedge.cli import build_parser
from cosyedge.config import Config

REPO = Path(__file__).resolve().parents[1]
REFERENCE = "docs/config-reference.md"
CONFIG_PAGE = "docs/man/cosyedge.yaml.5"
CLI_PAGE = "docs/man/cosyedge.1"
# How a key path names one entry of the fields that hold several.
ENTRY = {
    "voices": "<lang>",
    "templates": "[i]",
    "priorities": "<priority>",
    "outputs": "<name>",
    "zones": "<name>",
    "sources": "[i]",
    "rules": "[i]",
}
KINDS: dict[Any, str] = {
    bool: "true/false",
    int: "integer",
    float: "number",
    str: "text",
    Path: "path",
    dict: "mapping",
    Mapping: "mapping",
    tuple: "list",
}
SOURCE = "cosyedge {version}"


@dataclass(frozen=True)
class Key:
    """One key of the configuration file, as the reference shows it."""

    path: str  # mqtt.port, voices.<lang>.engine, templates[i].topic
    kind: str  # integer, number, true/false, text, path, mapping, list or section; "or null"
    default: str  # YAML; markdown when described; "" for a section or a required key
    described: bool  # the default is a description, not a value
    required: bool
    span: str  # the allowed range, e.g. 1-65535
    choices: tuple[str, ...]
    help: str
    section: str  # the section that describes its keys, if any


@dataclass(frozen=True)
class Section:
    """The keys under one path ("" is the top level)."""

    path: str
    help: str
    keys: tuple[Key, ...]


def sections() -> list[Section]:
    """Every section of the configuration, the top level first, each followed by its own."""
    found: list[Section] = []
    _walk(Config, "", "The keys at the top of the file; each section is described below.", found)
    return found


def _walk(cls: type, path: str, help: str, found: list[Section], entry: str = "") -> None:
    """Add the section of cls at path, then the sections of its fields. With an entry name,
    fields that are all sections of one type (critical, high, ...) share one: path.<entry>."""
    hints = typing.get_type_hints(cls)
    fields = dataclasses.fields(cls)
    held = {f.name: _section_type(_unwrap(hints[f.name])[0]) for f in fields}
    shared = bool(entry) and len(set(held.values())) == 1 and None not in held.values()
    keys: list[Key] = []
    children: list[tuple[type, str, str, str]] = []
    for f in fields:
        key = f"{path}.{f.name}" if path else f.name
        hint, optional = _unwrap(hints[f.name])
        inner = held[f.name]
        sub = ""
        if inner is not None:
            sub = f"{path}.{entry}" if shared else _entry_path(key, f.name, hint)
            if not children or children[-1][1] != sub:
                names = ", ".join(f"`{g.name}`" for g in fields)
                about = f"{help}; `{entry}` is one of {names}" if shared else f.metadata["help"]
                plain = dataclasses.is_dataclass(hint)  # not a mapping or a list of them
                children.append((inner, sub, about, ENTRY.get(f.name, "") if plain else ""))
        keys.append(_key(f, key, hint, optional, sub))
    found.append(Section(path, help, tuple(keys)))
    for inner, sub, about, child_entry in children:
        _walk(inner, sub, about, found, child_entry)


def _unwrap(hint: Any) -> tuple[Any, bool]:
    """The type of a field without its `| None`, and whether it had one."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (types.UnionType, typing.Union) and type(None) in args:
        (inner,) = [a for a in args if a is not type(None)]
        return inner, True
    return hint, False


def _section_type(hint: Any) -> type | None:
    """The dataclass a field holds, itself or as the entries of a mapping or a list."""
    if dataclasses.is_dataclass(hint):
        return typing.cast(type, hint)
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (dict, tuple) and args:
        inner = args[-1] if typing.get_origin(hint) is dict else args[0]
        return inner if dataclasses.is_dataclass(inner) else None
    return None


def _entry_path(key: str, name: str, hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin is dict:
        return f"{key}.{ENTRY[name]}"
    if origin is tuple:
        return f"{key}{ENTRY[name]}"
    return key


def _key(f: dataclasses.Field[Any], path: str, hint: Any, optional: bool, sub: str) -> Key:
    meta = f.metadata
    required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    shown = meta.get("shown")
    if shown is not None or required:
        default = shown or ""
    elif f.default is not dataclasses.MISSING:
        default = _yaml(_plain(f.default))
    elif f.default_factory is hint:  # a section made with its own defaults
        default = ""
    else:
        default = _yaml(_plain(f.default_factory()))
    origin = typing.get_origin(hint) or hint
    kind = "section" if dataclasses.is_dataclass(hint) else KINDS[origin]
    lo, hi = meta.get("range", (None, None))
    return Key(
        path=path,
        kind=f"{kind} or null" if optional else kind,
        default=default,
        described=shown is not None,
        required=required,
        span="" if lo is None else f"{_number(lo)}-{_number(hi)}",
        choices=tuple(meta.get("choices", ())),
        help=meta["help"],
        section=sub,
    )


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _plain(value: Any) -> Any:
    """A value as it would be written in the file: a section as the keys it sets."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _plain(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if _differs(f, getattr(value, f.name))
        }
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _differs(f: dataclasses.Field[Any], value: Any) -> bool:
    if f.default is not dataclasses.MISSING:
        return bool(value != f.default)
    if f.default_factory is not dataclasses.MISSING:
        return bool(value != f.default_factory())
    return True


def _yaml(value: Any) -> str:
    """A value in YAML's flow style, on one line."""
    text = yaml.safe_dump(
        value, default_flow_style=True, sort_keys=False, allow_unicode=True, width=1 << 16
    )
    return text.removesuffix("...\n").strip()


# --- docs/config-reference.md --------------------------------------------------------------

GENERATED = "Generated by scripts/docs from {source}: edit it there, not here."
REFERENCE_INTRO = """\
Every key of the configuration file (`/etc/cosyedge/cosyedge.yaml` on a gateway, or the file
given with `--config`), with its type, its default and the values it allows. Every key is
optional unless marked **required**; a key left out keeps its default. The defaults are what
`cosyedge run` uses with no file at all, so a site file only says what it changes. `null`
means not set, and times are in seconds (keys ending in `_s`).

In key paths, `<lang>` stands for a language code (`en`, `en-GB`, `zh` …), `<priority>` for a
priority, and `templates[i]` for each entry of the list of templates.

[The configuration guide](configuration.md) shows how to point cosyedge at the site broker,
write templates and check and apply a file; `config/cosyedge.yaml` in the source (installed
as `/etc/cosyedge/cosyedge.yaml`) is a commented example. `cosyedge check --config FILE`
prints every problem with a file as `file: key.path: reason` (exit status 2).
"""


def config_reference() -> str:
    """docs/config-reference.md: one table per section."""
    found = sections()
    out = [
        "# Configuration reference",
        "",
        f"<!-- {GENERATED.format(source='the schema in cosyedge/config/')} -->",
        "",
        REFERENCE_INTRO,
        "Sections: " + ", ".join(f"[{_title(s.path)}](#{_anchor(s.path)})" for s in found) + ".",
    ]
    for section in found:
        out += ["", f"## {_title(section.path)}", "", _linked(_sentence(section.help)), ""]
        out += ["| key | type | default | allowed | meaning |", "|---|---|---|---|---|"]
        out += [_row(key) for key in section.keys]
    return "\n".join(out) + "\n"


def _linked(text: str) -> str:
    """Help that names a page of docs/ links to it (the reference is in docs/ too)."""
    return re.sub(r"\bdocs/([\w-]+\.md)\b", r"[\1](\1)", text)


def _title(path: str) -> str:
    return f"`{path}`" if path else "Top level"


def _anchor(path: str) -> str:
    """The anchor GitHub gives the section's heading."""
    text = path or "top level"
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def _sentence(text: str) -> str:
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _row(key: Key) -> str:
    if key.required:
        default = "**required**"
    elif key.described or not key.default:
        default = key.default
    else:
        default = f"`{key.default}`"
    allowed = ", ".join(f"`{c}`" for c in key.choices) or key.span
    meaning = _linked(key.help)
    if key.section:
        meaning += f" (keys: [`{key.section}`](#{_anchor(key.section)}))"
    cells = [f"`{key.path}`", key.kind, default, allowed, meaning]
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


# --- roff -----------------------------------------------------------------------------------


def _roff(text: str, code: bool = False) -> str:
    """Text for a man page: backslashes escaped, and in code hyphens as minus signs."""
    text = text.replace("\\", "\\e")
    return text.replace("-", "\\-") if code else text


def _roff_markdown(text: str) -> str:
    """The markdown of the help texts in roff: `code` and **strong** bold, links as their text."""
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    parts = re.split(r"(`[^`]+`|\*\*[^*]+\*\*)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"\\fB{_roff(part[1:-1], code=True)}\\fR")
        elif part.startswith("**") and part.endswith("**") and len(part) > 3:
            out.append(f"\\fB{_roff(part[2:-2])}\\fR")
        else:
            out.append(_roff(part))
    return _line("".join(out))


def _line(text: str) -> str:
    """A text line that roff cannot take for a request."""
    return "\\&" + text if text.startswith((".", "'")) else text


def _paragraphs(markdown: str) -> list[str]:
    out: list[str] = []
    for paragraph in markdown.strip().split("\n\n"):
        if out:
            out.append(".PP")
        out.append(_roff_markdown(" ".join(paragraph.split())))
    return out


def _header(name: str, section: int, manual: str, source: str) -> list[str]:
    return [
        f'.\\" {GENERATED.format(source=source)}',
        f'.TH {name.upper()} {section} "" "{SOURCE.format(version=__version__)}" "{manual}"',
    ]


CONFIG_PAGE_INTRO = """\
The configuration of **cosyedge**, the offline voice-alert daemon for factory gateways, in
YAML. Every key is optional unless marked required; a key left out keeps its default. The
defaults are what `cosyedge run` uses with no file at all, so a site file only says what it
changes. `null` means not set, and times are in seconds (keys ending in `_s`).

In key paths, `<lang>` stands for a language code (`en`, `en-GB`, `zh` …), `<priority>` for a
priority, and `templates[i]` for each entry of the list of templates.

`cosyedge check --config FILE` prints every problem with a file as `file: key.path: reason`
(exit status 2); `systemctl reload cosyedge` checks the file again and applies it.
"""


def config_man_page() -> str:
    """docs/man/cosyedge.yaml.5: the reference as a man page."""
    out = _header("cosyedge.yaml", 5, "File Formats", "the schema in cosyedge/config/")
    out += [".SH NAME", "cosyedge.yaml \\- configuration of the cosyedge voice-alert daemon"]
    out += [".SH SYNOPSIS", ".I /etc/cosyedge/cosyedge.yaml"]
    out += [".SH DESCRIPTION", *_paragraphs(CONFIG_PAGE_INTRO), ".SH KEYS"]
    for section in sections():
        out += [f".SS {_roff(section.path, code=True) or 'Top level'}"]
        out += [_roff_markdown(_sentence(section.help))]
        for key in section.keys:
            out += [".TP", f"\\fB{_roff(key.path, code=True)}\\fR ({_roff_facts(key)})"]
            below = f" See `{key.section}` below." if key.section else ""
            out.append(_roff_markdown(_sentence(key.help) + below))
    out += [
        ".SH FILES",
        ".TP",
        ".I /etc/cosyedge/cosyedge.yaml",
        "The site configuration of the installed service, a commented example to begin with.",
        ".TP",
        ".I /usr/share/doc/cosyedge/docs/config\\-reference.md",
        "This reference as markdown; the guide",
        ".I configuration.md",
        "is beside it.",
        ".SH SEE ALSO",
        ".BR cosyedge (1),",
        ".BR systemctl (1)",
    ]
    return "\n".join(out) + "\n"


def _roff_facts(key: Key) -> str:
    facts = [key.kind]
    if key.choices:
        facts.append("one of " + ", ".join(_roff(c, code=True) for c in key.choices))
    elif key.span:
        facts.append(_roff(key.span, code=True))
    if key.required:
        facts.append("required")
    text = ", ".join(facts)
    if key.described:
        text += "; default: " + _roff_markdown(key.default)
    elif key.default:
        text += f"; default: \\fB{_roff(key.default, code=True)}\\fR"
    return text


# --- docs/man/cosyedge.1 ------------------------------------------------------------------

CLI_INTRO = """\
**cosyedge** subscribes to MQTT alert topics, turns each alert into a spoken phrase through
configured templates, serves repeated phrases from an on-disk WAV cache, synthesizes the rest
on the CPU with an ONNX text-to-speech model and plays them on the local sound device. No
cloud, no GPU. It normally runs as the systemd service `cosyedge.service`; the other commands
check its configuration, fill and move its phrase cache and prepare voices.

Every command that takes `--config` reads the YAML configuration described in
**cosyedge.yaml**(5). Without it, the commands an operator runs on a gateway (all but `run`
and the voice builders) read the service's own file, `/etc/cosyedge/cosyedge.yaml`, when it
exists, and say so on standard error, so they see the configuration, state and phrase cache
the service has; elsewhere they, and `run`, use the embedded defaults. The service's file is
read as the service reads it: where it leaves `state_dir` or `cache.dir` out, they are
`/var/lib/cosyedge` and `/var/cache/cosyedge`, as the unit gives them.
"""
ENVIRONMENT = """\
`COSYEDGE_CONFIG`: the file the operator's commands read without `--config`, instead of
`/etc/cosyedge/cosyedge.yaml`; set but empty, the embedded defaults.
"""
# What a command's one-line help cannot say.
DETAILS = {
    "run": "`systemctl reload cosyedge` (SIGHUP) applies a changed configuration without a "
    "restart; what waits for a restart is logged.",
    "say": "Chinese and English parts are each said by their own voice.",
    "check": "Every problem is printed as `file: key.path: reason` and the exit status is 2; "
    "a valid file that is unwise passes with `file: warning: key: reason` lines on standard "
    "error.",
    "warm": "The phrases of templates with fixed text, or with `values` for every "
    "placeholder, are rendered and pinned; the exit status is 1 if any failed.",
    "cache import": "Entries made with a voice this gateway does not use are refused (exit "
    "status 1).",
    "withdraw": "Each is emptied by an empty retained message; without them Home Assistant "
    "no longer lists the gateway. A running daemon would publish them again, so it refuses "
    "while one runs on the configuration's `state_dir` (exit status 1), as when the broker "
    "cannot be reached or does not acknowledge them all. Removing the package runs it.",
    "quantize": "Weights are quantized to int8 except the vocoder's. The copy is written only "
    "if its log-mel distance to the original stays under 3 dB, or with `--force`; needs the "
    "`onnx` Python package (`pip install 'cosyedge[quantize]'`).",
}
EXIT_STATUS = """\
0 when the command did what it was asked; 1 when it failed or refused (the message says why);
2 when what it was given cannot be used: an invalid configuration file, a `--lang` without a
voice, a model that cannot be quantized, an archive that is not a cache export.
"""


def commands(
    parser: argparse.ArgumentParser, words: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], str, argparse.ArgumentParser]]:
    """Every command and subcommand of the parser, as (words, help, its parser)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield (*words, name), helps[name], sub
                yield from commands(sub, (*words, name))


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a
        for a in parser._actions
        if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
    ]


def _usage(words: tuple[str, ...], parser: argparse.ArgumentParser) -> str:
    """The synopsis line of a command, options first as argparse writes it."""
    parts = [f"\\fB{_roff(' '.join(('cosyedge', *words)), code=True)}\\fR"]
    for action in sorted(_options(parser), key=lambda a: not a.option_strings):
        if action.option_strings:
            text = f"\\fB{_roff(action.option_strings[0], code=True)}\\fR"
            if action.nargs != 0:
                text += f" \\fI{_metavar(action)}\\fR"
            parts.append(text if action.required else f"[{text}]")
        else:
            parts.append(f"\\fI{_metavar(action)}\\fR")
    return " ".join(parts)


def _metavar(action: argparse.Action) -> str:
    return _roff(str(action.metavar or action.dest.upper()), code=True)


def _option(action: argparse.Action) -> list[str]:
    help = action.help or ""
    if isinstance(action, argparse._HelpAction):
        help = "show the options of cosyedge, or of the command it follows, and exit"
    names = ", ".join(f"\\fB{_roff(o, code=True)}\\fR" for o in action.option_strings)
    if not action.option_strings:
        names = f"\\fI{_metavar(action)}\\fR"
    elif action.nargs != 0:
        names += f" \\fI{_metavar(action)}\\fR"
    return [".TP", names, _roff_markdown(_sentence(help))]


def cli_man_page(parser: argparse.ArgumentParser | None = None) -> str:
    """docs/man/cosyedge.1: every command and option of the parser, with its help."""
    parser = parser or build_parser()
    found = list(commands(parser))
    names = {" ".join(words) for words, _, _ in found}
    unknown = sorted(set(DETAILS) - names)
    if unknown:
        raise ValueError(f"DETAILS names commands the parser does not have: {unknown}")
    out = _header("cosyedge", 1, "User Commands", "the parser in cosyedge/arguments.py")
    out += [".SH NAME", "cosyedge \\- offline voice-alert daemon for factory gateways"]
    out += [".SH SYNOPSIS"]
    for words, _, sub in found:
        if not any(isinstance(a, argparse._SubParsersAction) for a in sub._actions):
            out += [_usage(words, sub), ".br"]
    out += ["\\fBcosyedge\\fR \\fB\\-\\-version\\fR", ".SH DESCRIPTION", *_paragraphs(CLI_INTRO)]
    out += [".SH COMMANDS"]
    for words, help, sub in found:
        out += [f".SS {_roff(' '.join(('cosyedge', *words)), code=True)}"]
        text = _sentence(help)
        if " ".join(words) in DETAILS:
            text += " " + DETAILS[" ".join(words)]
        out.append(_roff_markdown(text))
        for action in _options(sub):
            if action.help or action.option_strings:
                out += _option(action)
    out += [".SH OPTIONS"]
    for action in parser._actions:
        if action.option_strings:
            out += _option(action)
    out += [
        ".SH EXIT STATUS",
        *_paragraphs(EXIT_STATUS),
        ".SH ENVIRONMENT",
        *_paragraphs(ENVIRONMENT),
        ".SH FILES",
        ".TP",
        ".I /etc/cosyedge/cosyedge.yaml",
        "The site configuration: the service's, and the operator's commands' without",
        ".BR \\-\\-config .",
        ".TP",
        ".I /var/cache/cosyedge",
        "The phrase cache.",
        ".TP",
        ".I /var/lib/cosyedge",
        "The journal of alerts not yet handled, the local broker's persistence, and optimized "
        "voice models saved by the first start",
        ".RI ( models/ ).",
        ".TP",
        ".I /usr/share/doc/cosyedge",
        "The documentation: README.md, and under",
        ".I docs/",
        "configuration, alarms, voices, the phrase cache, Mandarin and operations.",
        ".SH SEE ALSO",
        ".BR cosyedge.yaml (5),",
        ".BR systemctl (1),",
        ".BR journalctl (1)",
    ]
    return "\n".join(out) + "\n"


# --- the files --------------------------------------------------------------------------------


def generated() -> dict[str, str]:
    """Every generated file, by its path in the repository, as the code makes it now."""
    return {
        REFERENCE: config_reference(),
        CONFIG_PAGE: config_man_page(),
        CLI_PAGE: cli_man_page(),
    }


def stale(root: Path = REPO) -> list[str]:
    """The generated files under root that differ from what the code makes now."""
    found = []
    for name, text in generated().items():
        path = root / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            found.append(name)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say which files are stale")
    parser.add_argument("--root", type=Path, default=REPO, help="the checkout (default: this)")
    args = parser.parse_args(argv)
    if args.check:
        found = stale(args.root)
        for name in found:
            print(f"{name}: out of date; run scripts/docs", file=sys.stderr)
        return 1 if found else 0
    for name, text in generated().items():
        path = args.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
