"""Every snippet of docs/frameworks.md runs as written, offline, and prints what the page says it does."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PAGE = ROOT / "docs" / "frameworks.md"
MCP_CLIENTS = ROOT / ".venv-mcp-clients" / "bin"


def snippet(section: str) -> str:
    """The python block of the section whose heading starts with `section`."""
    match = re.search(rf"^## {re.escape(section)}.*?```python\n(.*?)```", PAGE.read_text(encoding="utf-8"),
                      re.S | re.M)
    assert match, f"no python block under {section!r}"
    return match.group(1)


def run(section: str, capsys) -> str:
    exec(compile(snippet(section), f"docs/frameworks.md: {section}", "exec"), {"__name__": "__main__"})
    return capsys.readouterr().out


@pytest.mark.model
def test_deep_agents(capsys):
    pytest.importorskip("deepagents")  # the dev extra installs it
    printed = run("Deep Agents", capsys)
    assert printed.strip().endswith("Reports: A4 landscape."), printed  # read_file's answer in a new thread


def test_the_store_conformance_suite(capsys):
    assert run("LangGraph's store contract", capsys).strip() == (
        "35 steps, 0 unexpected differences, 1 intended")


@pytest.mark.model
def test_llamaindex_agents(capsys):
    printed = run("LlamaIndex agents", capsys)
    assert printed.startswith("You are an office assistant.") and "print all my reports in A4 landscape" in printed


def test_trace_policy(capsys):
    assert run("Keeping memories out", capsys).strip() == "True"


@pytest.mark.slow
def test_mcp_from_langchain(tmp_path):
    if not (MCP_CLIENTS / "python").exists():
        pytest.skip("run scripts/mcp_clients_venv.sh first (make test does)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    # the stdio client starts the server with only HOME, PATH and a few more of this environment (mcp's
    # get_default_environment): HOME is where the snippet's server keeps its store (~/.hindsight), never the real one
    env.update(HOME=str(tmp_path / "user"), HINDSIGHT_HOME=str(tmp_path / "home"), HF_HUB_OFFLINE="1",
               PATH=f"{MCP_CLIENTS}:{env['PATH']}")
    done = subprocess.run([str(MCP_CLIENTS / "python"), "-c", snippet("MCP from LangChain")], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "A4 landscape" in done.stdout
    assert (tmp_path / "user" / ".hindsight" / "store").is_dir()  # where the server kept the memory


def test_the_readme_points_to_this_page_instead_of_repeating_its_snippets():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## More frameworks"):readme.index("## Installing")]
    assert "(docs/frameworks.md)" in section and "Deep Agents" in section and "FunctionAgent" in section
    assert "```" not in section  # the snippets live on the page, where they are run
