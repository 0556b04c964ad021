"""The MCP page's examples (docs/mcp.md, linked from the README) work as written: the Python HTTP client and the
desktop host's config."""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402

from ._process import HINDSIGHT, free_port, running, server_env  # noqa: E402

PAGE = Path(__file__).parents[2] / "docs" / "mcp.md"
TOKEN = "readme-token-5b1e9c3a7d2f4e60"


def block(after: str, language: str) -> str:
    """The first fenced `language` block after the line starting with `after`."""
    match = re.search(rf"^{re.escape(after)}.*?```{language}\n(.*?)```", PAGE.read_text(encoding="utf-8"),
                      re.S | re.M)
    assert match, f"no {language} block after {after!r}"
    return match.group(1)


def test_the_python_http_client_snippet(tmp_path, monkeypatch, capsys):
    code = block("## Python client over HTTP", "python")
    assert 'URL = "http://127.0.0.1:8080/mcp"' in code and "Authorization" in code
    port = free_port()
    argv = [*HINDSIGHT, "mcp", "--http", "--port", str(port), "--user-id", "alice", "--token", TOKEN]
    env = server_env(tmp_path / "home", HINDSIGHT_EMBEDDING_MODEL="fake-hash-embedder")
    monkeypatch.setenv("TOKEN", TOKEN)
    with running(argv, env, port, tmp_path / "server.log"):
        exec(code.replace(":8080/", f":{port}/"), {"__name__": "readme"})
    assert capsys.readouterr().out.startswith("From now on, print all my reports in A4 landscape. (retention ")


def test_the_desktop_host_config_starts_the_server(tmp_path):
    config = json.loads(block("Claude Desktop (stdio)", "json"))
    server = config["mcpServers"]["hindsight"]
    assert server["command"].endswith("/.venv/bin/hindsight") and server["args"][0] == "mcp"
    # as the host would start it, with this machine's hindsight and a private store
    env = server_env(tmp_path, **{**server["env"], "HINDSIGHT_HOME": str(tmp_path / "home"),
                                  "HINDSIGHT_EMBEDDING_MODEL": "fake-hash-embedder"})
    params = StdioServerParameters(command=HINDSIGHT[0], args=[*HINDSIGHT[1:], *server["args"]], env=env)

    async def session():
        with anyio.fail_after(120):
            async with Client(params) as client:
                return {t.name for t in (await client.list_tools()).tools}

    assert "memory_search" in anyio.run(session)
