"""The package's map: stages import only downstream, shared types come from the model, the
daemon never loads the operator commands or the pack builders, no module imports itself round
a cycle or relatively, none changes an object it did not make, and modules stay small."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "cosyedge"
# Everyone may import these; they import only each other (the model: nothing at all).
BASE = (
    "__init__",
    "model",
    "config",
    "faults",
    "installed",
    "journal",
    "observe",
    "component",
    "regular",
)
# In the order an alert passes through them (docs/architecture.md). The HTTP API is a source
# of alerts beside MQTT: first, so it may use intake and speech, and no stage may use it; so
# are Home Assistant's discovery and the Wyoming server, and the plant systems' sources.
STAGES = (
    "homeassistant",
    "wyoming",
    "http",
    "sources",
    "mqtt",
    "intake",
    "alarms",
    "announce",
    "speech",
    "audio",
)
# Who may import each of the rest.
TOP = {
    "service": ("service", "daemon", "cli", "build"),
    "daemon": ("cli",),
    "build": ("daemon",),  # the daemon's parts, built
    "features": ("build", "cli"),  # the optional ones
    "cli": ("__main__",),
    "arguments": ("cli",),  # the command line's words
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


def test_imports_are_absolute():
    """`from cosyedge.speech import x`, never `from . import x`: a module's imports read the
    same wherever it is moved, and the map above sees every one of them."""
    relative = [
        f"{name}:{node.lineno}"
        for name, path in modules().items()
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.ImportFrom) and node.level > 0
    ]
    assert not relative, "\n".join(relative)


def reached_into(path: Path) -> list[str]:
    """Where `path` changes an object it did not make: an attribute assigned (or added to with
    `append`, `extend`, `insert`) through a collaborator (`self.journal.beat = ...`), or on a
    parameter of a class another module defines. Its own state (`self.x`, `self._x.y`), and
    records of classes it defines, it may change."""
    tree = ast.parse(path.read_text(), str(path))
    defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    found: list[str] = []

    def foreign(base: ast.expr, handed: dict[str, str]) -> bool:
        if isinstance(base, ast.Attribute):  # self.<collaborator>...: another object's
            first = base
            while isinstance(first.value, ast.Attribute):
                first = first.value
            root = first.value
            return isinstance(root, ast.Name) and root.id == "self" and first.attr[0] != "_"
        if isinstance(base, ast.Name) and base.id in handed:
            return handed[base.id].split("|")[0].strip(" \"'") not in defined
        return False

    def targets(node: ast.AST) -> list[ast.expr]:
        if isinstance(node, ast.Assign):
            found = [e for t in node.targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
            return found
        return [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []

    def visit(node: ast.AST, handed: dict[str, str]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            given = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            handed = {a.arg: ast.unparse(a.annotation) for a in given if a.annotation}
        for target in targets(node):
            if isinstance(target, ast.Attribute) and foreign(target.value, handed):
                found.append(f"{path.name}:{target.lineno}: {ast.unparse(target)}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            added = node.func.attr in ("append", "extend", "insert")
            if added and isinstance(owner, ast.Attribute) and foreign(owner.value, handed):
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node.func)}")
        for child in ast.iter_child_nodes(node):
            visit(child, handed)

    visit(tree, {})
    return found


def test_no_module_changes_an_object_it_did_not_make():
    """Parts are wired by what they are given when they are made, or by the one observer
    interface (observe.py): never by a hook assigned on them afterwards."""
    found = [where for path in modules().values() for where in reached_into(path)]
    assert not found, "\n".join(found)


def test_the_attribute_rule_itself_refuses_what_it_should(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "class Own:\n    pass\n\n\n"
        "class Part:\n"
        "    def __init__(self, journal: 'Journal', own: Own) -> None:\n"
        "        self.journal = journal\n"
        "        self._own = own\n"
        "        self._own.count = 1\n"
        "        own.count = 2\n"
        "        journal.beat = None\n"
        "        self.journal.on_sync, self.x = None, 1\n"
        "        self.journal.listeners.append(print)\n"
    )
    assert reached_into(sample) == [
        "sample.py:11: journal.beat",
        "sample.py:12: self.journal.on_sync",
        "sample.py:13: self.journal.listeners.append",
    ]


def test_modules_stay_small():
    """A module over 600 lines holds more than one thing; the daemon only wires (300)."""
    limits = {"cosyedge.daemon": 300}
    long = [
        f"{name}: {lines} lines"
        for name, path in modules().items()
        if (lines := len(path.read_text().splitlines())) > limits.get(name, 600)
    ]
    assert not long, "\n".join(long)


def test_every_test_file_with_module_fixtures_runs_whole_on_one_worker():
    """conftest.TOGETHER names them: spread over workers, what their module-scoped fixtures
    make (a box, tables, a loaded voice) would be made again on each."""
    from conftest import TOGETHER

    tests = Path(__file__).parent
    with_module_fixtures = {
        f"tests/{path.name}"
        for path in tests.glob("test_*.py")
        if re.search(r"fixture\(\s*scope=\"module\"", path.read_text())
    }
    assert with_module_fixtures == set(TOGETHER)
