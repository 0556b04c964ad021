#!/usr/bin/env bash
# Creates .venv-mcp-clients: exactly what a LangChain user installs to reach hindsight over MCP,
#   pip install "hindsight-memory[mcp]" langchain-mcp-adapters
# in an environment of its own. langchain-mcp-adapters 0.3.2 (the newest) requires mcp<2, so pip
# resolves mcp 1.x here, while the project's .venv has mcp 2.x (its tests use mcp 2's Client):
# tests/mcp/test_langchain_adapters.py runs hindsight's MCP server and the adapters' client in this one.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-mcp-clients
PYTHON=${PYTHON:-python3}
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
echo '*' > "$VENV/.gitignore"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet -e ".[mcp]" langchain-mcp-adapters
"$VENV/bin/python" -c 'import importlib.metadata as m; print(*(f"{p} {m.version(p)}" for p in ("mcp", "langchain-mcp-adapters", "hindsight-memory")), sep=", ")'
