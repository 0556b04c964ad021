"""`memory_write` then `memory_search` through LangChain's MCP client (`langchain-mcp-adapters`), offline.

langchain-mcp-adapters 0.3.2 (the newest) requires mcp<2 and the project's own environment has
mcp 2.x, so this runs in the environment a LangChain user gets from
`pip install "hindsight-memory[mcp]" langchain-mcp-adapters` (.venv-mcp-clients, made by
scripts/mcp_clients_venv.sh, which `make test` runs): hindsight's server and the adapters' client
share one mcp 1.x there. Over stdio (load_mcp_tools, and the stateless get_tools) and streamable HTTP.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ._process import free_port, running, server_env

ROOT = Path(__file__).parents[2]
CLIENT_PYTHON = ROOT / ".venv-mcp-clients" / "bin" / "python"
TOKEN = "langchain-token-3c5e7a9b1d2f4860"


@pytest.mark.slow
def test_langchain_mcp_adapters_write_then_search(tmp_path):
    if not CLIENT_PYTHON.exists():
        pytest.skip("run scripts/mcp_clients_venv.sh first (make test does): it makes the environment of "
                    "`pip install hindsight-memory[mcp] langchain-mcp-adapters`")
    hindsight = str(CLIENT_PYTHON.with_name("hindsight"))
    home = tmp_path / "home"
    env = server_env(home)
    port = free_port()
    argv = [hindsight, "mcp", "--http", "--port", str(port), "--user-id", "alice", "--token", TOKEN]
    # the HTTP server answers from another store folder: written to below, before the client asks
    http_home = tmp_path / "http-home"
    subprocess.run([hindsight, "remember", "From now on, print all my reports in A4 landscape.", "--user-id",
                    "alice"], env=server_env(http_home), check=True, capture_output=True, timeout=300)
    with running(argv, server_env(http_home), port, tmp_path / "server.log"):
        done = subprocess.run([str(CLIENT_PYTHON), str(Path(__file__).with_name("langchain_adapters_client.py")),
                               str(home), str(port), TOKEN], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["versions"]["mcp"].startswith("1.")  # the line langchain-mcp-adapters installs
    assert {"memory_write", "memory_search", "memory_forget"} <= set(answer["tools"])
    written = json.loads(answer["written"])
    assert written["outcome"] == "stored" and written["kept"] is True
    assert answer["refused"]["is_error"] and "takes no argument 'user_id'" in answer["refused"]["text"]
    for way in ("found", "stateless", "http"):
        assert "A4 landscape" in answer[way], (way, answer[way])
