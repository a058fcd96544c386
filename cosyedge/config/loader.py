"""Reading a configuration: the file (bounded, regular, UTF-8), its YAML (bounded in depth and
integer length) and the schema's dataclasses built from it, every problem named by the file,
the key and the reason (`ConfigError`). The schema is the dataclasses' fields and type hints
(config/schema.py and its sections); this module knows none of them by name.
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

import yaml

from cosyedge.config.fields import show
from cosyedge.config.schema import Config
from cosyedge.regular import regular_only


class ConfigError(Exception):
    """All problems found in one configuration, one `file: key.path: reason` per line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


MAX_CONFIG_BYTES = 1 << 20  # a configuration is a few kB; more is the wrong file
MAX_DEPTH = 32  # YAML nodes deep; the schema needs 6, thousands exhaust Python's stack
_Section = TypeVar("_Section")
MAX_INT_CHARS = 100  # no setting needs a longer integer; Python refuses over 4300 digits


def load_config(path: Path | str | None) -> Config:
    """Read and validate a config file; None gives the embedded defaults.

    Every problem with the file, whatever it is, raises ConfigError."""
    if path is None:
        return Config()
    name = str(path)
    text = config_text(path)
    if _load_yaml(text, name) is None:  # empty, or comments only: a file cut short
        raise ConfigError(
            [f"{name}: no setting in it (a file cut short?); an empty file is never taken for "
             "the embedded defaults"]
        )  # fmt: skip
    return parse_config(text, name)


def config_text(path: Path | str) -> str:
    """The text of a config file; ConfigError when it is not a regular file (a FIFO or a
    device would block or never end), cannot be read, is over MAX_CONFIG_BYTES or not UTF-8."""
    name = str(path)
    try:
        with open(path, "rb", opener=regular_only) as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError([f"{name}: cannot read: {exc.strerror or exc}"]) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError([f"{name}: larger than {MAX_CONFIG_BYTES >> 20} MiB; not a config"])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError([f"{name}: not UTF-8 text"]) from None


def parse_config(text: str, name: str = "<config>") -> Config:
    """Validate a configuration text; raises ConfigError, one `name: key.path: reason` (or
    `name: line L, column C: reason`) per problem, and never anything else."""
    data = _load_yaml(text, name)
    return build_config({} if data is None else data, name)


def build_config(data: Any, name: str) -> Config:
    """Validate configuration data as YAML or JSON reads it (mappings, lists, scalars); raises
    ConfigError, one `name: key.path: reason` per problem, and never anything else."""
    problems: list[str] = []
    try:
        config = _build(Config, data, "", problems)
    except Exception as exc:  # a check that failed in a way not foreseen: still a refusal
        raise ConfigError([f"{name}: cannot be used: {type(exc).__name__}: {exc}"]) from None
    if problems:
        raise ConfigError([f"{name}: {p}" for p in problems])
    assert isinstance(config, Config)
    return config


def build_section(cls: type[_Section], data: Any, path: str, name: str = "<config>") -> _Section:
    """One section (a dataclass of the schema's kind) built alone, as build_config builds it
    at its place `path` (`zones.hall.tone`), for a section the schema does not hold itself;
    raises ConfigError, one `name: path.key: reason` per problem, and never anything else."""
    problems: list[str] = []
    try:
        section = _build(cls, data, path, problems)
    except Exception as exc:  # as in build_config: a check that failed unforeseen refuses
        raise ConfigError(
            [f"{name}: {path}: cannot be used: {type(exc).__name__}: {exc}"]
        ) from None
    if problems:
        raise ConfigError([f"{name}: {p}" for p in problems])
    return section


class _Refused(yaml.MarkedYAMLError):
    """Well-formed YAML this loader will not build: too deep, or an integer too long."""


class _Loader(yaml.SafeLoader):
    """yaml's SafeLoader with limits, so an absurd file is refused with its line instead of
    exhausting the stack (RecursionError) or Python's integer conversion (ValueError), and a
    key given twice in one mapping is refused instead of the last one silently winning."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise _Refused(problem=f"nested deeper than {MAX_DEPTH} levels", problem_mark=mark)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_yaml_int(self, node: Any) -> int:
        if len(node.value) > MAX_INT_CHARS:
            raise _Refused(
                problem=f"an integer of {len(node.value)} characters is too long for any "
                f"setting (at most {MAX_INT_CHARS})",
                problem_mark=node.start_mark,
            )
        return super().construct_yaml_int(node)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        """A mapping whose keys are each given once (`<<` merges are YAML's own overriding,
        not a repetition); raises _Refused naming the key's two lines."""
        first: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if isinstance(key, typing.Hashable) and key in first:
                raise _Refused(problem=f"line {line}: key {key!r} given twice (first at line "
                               f"{first[key]})")  # fmt: skip
            if isinstance(key, typing.Hashable):
                first[key] = line
        return super().construct_mapping(node, deep=deep)


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)


def readable_sections(text: str) -> tuple[dict[str, Any], dict[str, str]] | None:
    """What can still be taken from a refused file (config/lastgood.py): each top-level key
    given once whose value reads alone (no key given twice in it, nothing too absurd), and
    why each of the others cannot be taken; None when the text is no YAML mapping."""
    try:
        loader = _Loader(text)
        node = loader.get_single_node()
    except (yaml.YAMLError, ValueError, RecursionError):
        return None
    if not isinstance(node, yaml.MappingNode):
        return None
    keys = [k.value if isinstance(k, yaml.ScalarNode) else None for k, _ in node.value]
    sections: dict[str, Any] = {}
    refused: dict[str, str] = {}
    for key, (key_node, value_node) in zip(keys, node.value, strict=True):
        if key is None or keys.count(key) > 1:  # which of two is meant, nobody can say
            refused[str(key)] = f"line {key_node.start_mark.line + 1}: key {key!r} given twice"
            continue
        try:
            sections[key] = loader.construct_object(value_node, deep=True)
        except (yaml.YAMLError, ValueError, RecursionError) as exc:
            refused[key] = getattr(exc, "problem", None) or str(exc)
    return sections, refused


def _load_yaml(text: str, name: str) -> Any:
    loader: _Loader | None = None
    try:
        loader = _Loader(text)  # refuses a NUL or control character: yaml.reader.ReaderError
        return loader.get_single_data()
    except yaml.reader.ReaderError as exc:  # a character YAML refuses: its place in the text
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        what = f"unacceptable character #x{exc.character:04x}: {exc.reason}"
        raise ConfigError([f"{name}: line {line}, column {column}: invalid YAML: {what}"]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        what = "" if isinstance(exc, _Refused) else "invalid YAML: "
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError([f"{name}: {where}{what}{problem}"]) from None
    finally:
        if loader is not None:
            loader.dispose()


# --- the generic loader: dataclass fields and their type hints are the schema -------------

_MISSING = object()
_LANG = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{1,8})*\Z")


def _where(path: str) -> str:
    return f"{path}: " if path else ""


def _build(cls: type, node: Any, path: str, problems: list[str]) -> Any:
    if not isinstance(node, dict):
        problems.append(f"{_where(path)}expected a mapping, got {show(node)}")
        return _MISSING
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for key in node:
        if key not in fields:
            import difflib  # only for a key no section knows: most commands read none

            close = difflib.get_close_matches(str(key), fields, n=1)
            hint = f'; did you mean "{close[0]}"?' if close else f" (known: {', '.join(fields)})"
            problems.append(f"{path}{'.' if path else ''}{key}: unknown key{hint}")
    values: dict[str, Any] = {}
    before = len(problems)
    for name, f in fields.items():
        sub = f"{path}.{name}" if path else name
        if name in node:
            value = _convert(hints[name], node[name], sub, f.metadata, problems)
            if value is not _MISSING:
                values[name] = value
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            problems.append(f"{sub}: missing required key")
    if len(problems) > before:
        return _MISSING
    try:
        return cls(**values)
    except ValueError as exc:
        # __post_init__ reasons start with the key they are about.
        problems.append(f"{path}.{exc}" if path else str(exc))
        return _MISSING


def _convert(hint: Any, value: Any, path: str, meta: Any, problems: list[str]) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _convert(inner, value, path, meta, problems)
    if origin is dict:
        if not isinstance(value, dict):
            problems.append(f"{path}: expected a mapping, got {show(value)}")
            return _MISSING
        items = {}
        named = bool(meta and meta.get("named"))
        for key, v in value.items():
            if not isinstance(key, str) or not (named or _LANG.match(key)):
                what = "a name" if named else "a language code like en or zh"
                problems.append(f"{path}: {show(key)} is not {what}")
                continue
            items[key] = _convert(args[1], v, f"{path}.{key}", {}, problems)
        return _MISSING if _MISSING in items.values() or len(items) < len(value) else items
    if origin is tuple:
        if not isinstance(value, list):
            problems.append(f"{path}: expected a list, got {show(value)}")
            return _MISSING
        items = [_convert(args[0], v, f"{path}[{i}]", {}, problems) for i, v in enumerate(value)]
        return _MISSING if _MISSING in items else tuple(items)
    if dataclasses.is_dataclass(hint):
        return _build(hint, value, path, problems)
    error = _check_scalar(hint, value, meta)
    if error:
        problems.append(f"{path}: {error}")
        return _MISSING
    if hint is float:
        return float(value)
    if hint is Path:
        return _path(value, path, problems)
    return value


def _path(value: str, path: str, problems: list[str]) -> Path | object:
    try:
        return Path(value).expanduser()
    except RuntimeError:  # ~user with no such user, or ~ without a home
        problems.append(f"{path}: cannot find the home directory {show(value)} starts with")
        return _MISSING


def _check_scalar(hint: Any, value: Any, meta: Any) -> str | None:
    lo, hi = meta.get("range", (None, None))
    span = f" {lo:g}-{hi:g}" if lo is not None else ""
    if hint is bool:
        return None if isinstance(value, bool) else f"expected true or false, got {show(value)}"
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"expected an integer{span}, got {show(value)}"
    elif hint is float:
        # .inf and .nan are YAML floats; no setting means them (nan even passes no range).
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or not math.isfinite(value):
            return f"expected a number{span}, got {show(value)}"
    elif hint in (str, Path):
        if not isinstance(value, str) or (hint is Path and not value):
            kind = "a path" if hint is Path else "a string"
            return f"expected {kind}, got {show(value)}"
        if hint is Path and "\0" in value:  # the system cannot name such a file
            return f"expected a path without NUL characters, got {show(value)}"
        choices = meta.get("choices")
        if choices and value not in choices:
            return f"expected one of {', '.join(choices)}, got {show(value)}"
        return None
    if lo is not None and not lo <= value <= hi:
        return f"expected {'an integer' if hint is int else 'a number'}{span}, got {show(value)}"
    return None
