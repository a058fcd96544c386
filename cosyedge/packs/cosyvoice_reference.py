"""The reference CosyVoice-300M model classes, built from a released `cosyvoice.yaml`.

Conversion only (the CosyVoice conversion venv: torch and the reference classes of the
`cosyvoice2-eu` package, which bundles CosyVoice-300M's). The released yaml is a
HyperPyYAML file whose loading instantiates everything it names, training parts and data
pipeline included (pyarrow, whisper, discriminators). This reader builds only the three
models speech needs, `llm`, `flow` and `hift`, from their `!new:` entries, and reads the
rest as plain values.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import re
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

# What a CosyVoice-300M (v1) directory builds; CosyVoice2 and 3 name other classes here.
V1_CLASSES = {
    "llm": "cosyvoice.llm.llm.TransformerLM",
    "flow": "cosyvoice.flow.flow.MaskedDiffWithXvec",
    "hift": "cosyvoice.hifigan.generator.HiFTGenerator",
}
INSTALL_HINT = (
    "scripts/setup test makes .venv-cosyvoice; by hand: pip install 'cosyedge[convert-cosyvoice]' "
    "torch && pip install --no-deps cosyvoice2-eu openai-whisper"
)


class ModelDirError(Exception):
    """A model directory that is not a CosyVoice-300M one, or cannot be read."""


@dataclass(frozen=True)
class New:
    """`!new:module.Class` with its arguments, not built yet."""

    target: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    args: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class Name:
    """`!name:module.function` with bound arguments (a partial)."""

    target: str
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Ref:
    """`!ref <key>`: another top-level entry."""

    key: str


def _loader() -> type[yaml.SafeLoader]:
    class Loader(yaml.SafeLoader):
        pass

    def tagged(kind: type, loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
        if isinstance(node, yaml.MappingNode):
            return kind(suffix, loader.construct_mapping(node, deep=True))
        if isinstance(node, yaml.SequenceNode) and kind is New:
            return New(suffix, {}, loader.construct_sequence(node, deep=True))
        return kind(suffix)

    Loader.add_multi_constructor("!new:", lambda lo, s, n: tagged(New, lo, s, n))
    Loader.add_multi_constructor("!name:", lambda lo, s, n: tagged(Name, lo, s, n))
    Loader.add_multi_constructor("!apply:", lambda lo, s, n: None)  # seeds: not ours to set
    Loader.add_constructor("!ref", lambda lo, n: Ref(lo.construct_scalar(n).strip("<> ")))
    return Loader


def read_yaml(path: Path) -> dict[str, Any]:
    """The yaml's entries, with `!new:`/`!name:`/`!ref` kept as `New`/`Name`/`Ref`."""
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_loader())
    except (OSError, yaml.YAMLError) as exc:
        raise ModelDirError(f"{path}: unreadable: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise ModelDirError(f"{path}: not a model description")
    return data


def check_version(config: dict[str, Any], path: Path) -> None:
    """Refuse directories of other CosyVoice versions, naming what they are."""
    for part, wanted in V1_CLASSES.items():
        entry = config.get(part)
        found = entry.target if isinstance(entry, New) else None
        if found != wanted:
            later = bool(found) and ("Qwen2" in found or "Causal" in found)
            what = "a CosyVoice2/3 model directory, " if later else ""
            raise ModelDirError(
                f"{path}: {part} is {found or 'missing'}, not {wanted}: "
                f"{what}not a CosyVoice-300M (v1) one"
            )


def use_reference_classes() -> None:
    """Make the reference classes importable. Their utils module imports torchaudio only to
    read WAV files, which conversion does not use; where no torchaudio build matches the
    installed torch, an empty module stands in for it."""
    try:
        import torchaudio  # noqa: F401
    except (ImportError, OSError):
        stand_in = types.ModuleType("torchaudio")
        stand_in.__spec__ = importlib.machinery.ModuleSpec("torchaudio", None)
        sys.modules["torchaudio"] = stand_in
    if importlib.util.find_spec("cosyvoice") is None:
        raise ModelDirError(f"the reference CosyVoice classes are not installed ({INSTALL_HINT})")


def _resolve(value: Any, config: dict[str, Any], built: dict[str, Any]) -> Any:
    if isinstance(value, Ref):
        if value.key not in built:
            built[value.key] = _resolve(config[value.key], config, built)
        return built[value.key]
    if isinstance(value, New):
        cls = _import(value.target)
        args = [_resolve(a, config, built) for a in value.args]
        return cls(*args, **{k: _resolve(v, config, built) for k, v in value.kwargs.items()})
    if isinstance(value, Name):
        import functools

        kwargs = {k: _resolve(v, config, built) for k, v in value.kwargs.items()}
        return functools.partial(_import(value.target), **kwargs)
    if isinstance(value, dict):
        return {k: _resolve(v, config, built) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, config, built) for v in value]
    return value


def _import(target: str) -> Any:
    module, _, name = target.rpartition(".")
    return getattr(importlib.import_module(module), name)


def build_models(yaml_path: Path) -> dict[str, Any]:
    """`llm`, `flow` and `hift`, built as the yaml says, with their initial (random) weights."""
    config = read_yaml(yaml_path)
    check_version(config, yaml_path)
    use_reference_classes()
    built: dict[str, Any] = {}
    return {part: _resolve(Ref(part), config, built) for part in V1_CLASSES}


def tokenizer_settings(config: dict[str, Any]) -> dict[str, Any]:
    """How the yaml builds its text tokenizer: whisper's, multilingual, with how many
    languages (the 300M models use 100: 51866 text tokens)."""
    entry = config.get("get_tokenizer")
    if not isinstance(entry, Name) or not re.fullmatch(r"whisper\.tokenizer\.\w+", entry.target):
        found = entry.target if isinstance(entry, Name) else entry
        raise ModelDirError(f"get_tokenizer is {found!r}, not whisper's: not a 300M model")
    return {"multilingual": True, "num_languages": 99, **entry.kwargs}
