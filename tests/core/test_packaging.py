import subprocess
import sys
from pathlib import Path

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
        "HindsightError", "InvalidInputError", "InvalidUserIdError", "LLMGate", "Layer", "Limits",
        "EdgeStore", "LegacyStoreError", "MemoryNotFoundError", "MemoryRecord", "MemoryStore", "ServerStore", "RecallConfig", "RecallResults",
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


def test_configuration_is_read_from_the_environment_only_at_the_edge():
    """The core takes configuration explicitly; the CLI, the MCP server and the UI read the environment.

    Allowed inside the core: `memory.default_home` (HINDSIGHT_HOME, the documented default folder) and
    library plumbing that sets variables for third-party code (tiktoken's cache folder, an offline hub,
    OpenMP's spin while the default embedder's engine loads).
    """
    import re

    root = Path(hindsight_core.__file__).parent
    edge = {"cli", "mcp", "ui"}
    allowed = {("memory.py", "HINDSIGHT_HOME"), ("tokens.py", "TIKTOKEN_CACHE_DIR"),
               ("multilingual.py", "GOMP_SPINCOUNT")}
    found = []
    for path in root.rglob("*.py"):
        relative = path.relative_to(root)
        if relative.parts[0] in edge or relative.name == "demo.py":
            continue
        for match in re.finditer(r"os\.environ\.get\(\s*\"([A-Z_]+)\"|os\.getenv\(\s*\"([A-Z_]+)\"|"
                                 r"os\.environ\[\s*\"([A-Z_]+)\"\s*\]", path.read_text(encoding="utf-8")):
            name = next(g for g in match.groups() if g)
            if (relative.name, name) not in allowed:
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
