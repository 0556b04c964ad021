"""The core's import graph: each stage imports only the stages below it, and no module imports itself back.

The layers, lowest first (ARCHITECTURE.md draws them):

    0 foundation   errors · types · clock · config · events · decay
    1 reading      language/ · embed/
    2 the contract api (MemoryAPI) · contract/ (its option values, their checks, its results, a record's JSON)
    3 engines      safety/ · store/
    4 write/       5 consolidate/       6 recall/ · forget/ · working/
    7 the facade   facade/ (its plumbing) · then maintenance/ · then memory.py (Hindsight)
    8 the faces    session/ · remote/ · cli/ · mcp/ · ui/ · demo · plots · testing

A unit may import its own folder and any lower layer. Within the foundation and the faces, units may also import
each other; within any other layer they may not (recall/ does not import forget/).
"""

from __future__ import annotations

import ast
from pathlib import Path

import hindsight_core

ROOT = Path(hindsight_core.__file__).parent
LAYERS = [{"errors", "types", "clock", "config", "events", "decay"}, {"language", "embed"}, {"api", "contract"},
          {"safety", "store"}, {"write"}, {"consolidate"}, {"recall", "forget", "working"}, {"facade"}, {"maintenance"},
          {"memory"},
          {"session", "remote", "cli", "mcp", "ui", "demo", "plots", "testing", "__init__"}]
RANK = {unit: rank for rank, layer in enumerate(LAYERS) for unit in layer}
OPEN_LAYERS = {0, 2, len(LAYERS) - 1}


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(path): path for path in ROOT.rglob("*.py")}


def _imports(path: Path, *, top_level_only: bool) -> set[str]:
    """The hindsight_core modules `path` imports (a name that is a module counts as that module); imports under
    `if TYPE_CHECKING:` are left out, and with `top_level_only` so are imports inside functions."""
    module = _module(path)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {id(node) for branch in ast.walk(tree) if isinstance(branch, ast.If)
               and "TYPE_CHECKING" in ast.unparse(branch.test) for node in ast.walk(branch)}
    if top_level_only:
        skipped |= {id(node) for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                    for node in ast.walk(fn)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1] + [node.module or ""]).strip(".") \
                if node.level else node.module or ""
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name in MODULES}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_unit_has_a_layer():
    assert {_unit(module) for module in MODULES} <= set(RANK)


def test_no_stage_imports_a_higher_or_a_sibling_stage():
    wrong = []
    for module, path in MODULES.items():
        mine = _unit(module)
        for imported in _imports(path, top_level_only=False):
            theirs = _unit(imported)
            if theirs == mine or (theirs == "__init__" and RANK[mine] in OPEN_LAYERS):
                continue
            if RANK[theirs] > RANK[mine] or (RANK[theirs] == RANK[mine] and RANK[mine] not in OPEN_LAYERS):
                wrong.append(f"{module} -> {imported}")
    assert wrong == []


def test_no_import_cycle():
    graph = {module: _imports(path, top_level_only=True) for module, path in MODULES.items()}
    done: set[str] = set()

    def visit(module: str, trail: list[str]) -> None:
        if module in trail:
            raise AssertionError("import cycle: " + " -> ".join(trail[trail.index(module):] + [module]))
        if module in done:
            return
        for imported in sorted(graph[module]):
            if imported != module and not module.startswith(imported + "."):  # a package's own __init__
                visit(imported, trail + [module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


def test_the_contract_and_the_client_load_no_stage_and_no_store():
    """Importing the contract (or `HindsightClient`) loads none of the stages, no store and no model: a program that
    reaches a `hindsight serve` stays small."""
    import subprocess
    import sys

    probe = ("import sys, hindsight_core.api, hindsight_core.remote.client; "
             "print(' '.join(sorted(m for m in sys.modules if m.startswith('hindsight_core'))))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                            cwd=ROOT.parent).stdout.split()
    assert len(loaded) <= 40
    stages = ("store", "write", "consolidate", "forget", "working", "facade", "maintenance", "memory", "embed")
    assert [m for m in loaded if m.split(".")[1:2] and m.split(".")[1] in stages] == []
