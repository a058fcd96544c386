"""The package's map: stages import only downstream, shared types come from the model, the
daemon never loads the operator commands or the pack builders, and no module imports itself
round a cycle."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "cosyedge"
# Everyone may import these; they import only each other (the model: nothing at all).
BASE = ("__init__", "model", "config", "faults", "installed", "journal")
# In the order an alert passes through them (docs/architecture.md). The HTTP API is a source
# of alerts beside MQTT: first, so it may use intake and speech, and no stage may use it; so
# are Home Assistant's discovery and the Wyoming server.
STAGES = (
    "homeassistant",
    "wyoming",
    "http",
    "mqtt",
    "intake",
    "alarms",
    "announce",
    "speech",
    "audio",
)
# Who may import each of the rest.
TOP = {
    "service": ("service", "daemon", "cli"),
    "daemon": ("cli",),
    "cli": ("__main__",),
    "ops": ("ops", "cli"),  # the operator's commands
    "packs": ("packs", "cli"),  # building voices on a workstation
    "__main__": (),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path, known: dict[str, Path]) -> set[str]:
    """Every cosyedge module `path` imports, at any depth of the code (lazy ones too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("cosyedge"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cosyedge"):
            for alias in node.names:  # `from cosyedge.intake import hermes`: the module
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in known else node.module)
    return found


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def allowed(importer: str, imported: str) -> bool:
    if importer == imported:
        return True
    if importer == "model":
        return False
    if imported in BASE:
        return True  # anyone may use the base; the base itself uses nothing else (below)
    if imported in TOP:
        return importer in TOP[imported]
    if importer in STAGES:  # a stage: itself, or one downstream of it
        return STAGES.index(imported) >= STAGES.index(importer)
    return importer in TOP  # the top (service, daemon, cli, ops, packs) wires the stages


def test_each_import_points_downstream_or_to_the_base():
    known = modules()
    wrong = []
    for name, path in known.items():
        for imported in imports(path, known):
            if not allowed(layer(name), layer(imported)):
                wrong.append(f"{name} imports {imported}")
    assert not wrong, "\n".join(wrong)


def test_the_rule_itself_refuses_what_it_should():
    assert not allowed("alarms", "intake")  # downstream importing upstream
    assert not allowed("announce", "alarms")
    assert not allowed("speech", "service")
    assert not allowed("model", "config")
    assert not allowed("config", "intake")
    assert not allowed("daemon", "ops") and not allowed("daemon", "packs")
    assert not allowed("ops", "packs")
    assert allowed("intake", "speech") and allowed("mqtt", "alarms")
    assert allowed("daemon", "mqtt") and allowed("cli", "ops")


def test_no_module_imports_itself_round_a_cycle():
    known = modules()
    graph = {name: imports(path, known) & known.keys() for name, path in known.items()}
    cycles = []
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(name: str, path: list[str]) -> None:
        state[name] = 1
        for nxt in sorted(graph[name]):
            if nxt.startswith(f"{name}.") or name.startswith(f"{nxt}."):
                continue  # a package and its own modules
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*path[path.index(nxt) :], nxt]))
            elif nxt not in state:
                walk(nxt, [*path, nxt])
        state[name] = 2

    for name in graph:
        if name not in state:
            walk(name, [name])
    assert not cycles, "\n".join(cycles)


@pytest.mark.parametrize("entry", ["cosyedge.daemon", "cosyedge.cli"])
def test_the_daemon_never_loads_the_commands_or_the_pack_builders(entry):
    loaded = "sorted(m for m in sys.modules if m.startswith(('cosyedge.ops', 'cosyedge.packs')))"
    code = f"import sys, {entry}; print({loaded})"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
