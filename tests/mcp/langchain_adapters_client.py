"""LangChain's MCP client (`langchain-mcp-adapters`) against `hindsight mcp`, in the environment of
`pip install "hindsight-memory[mcp]" langchain-mcp-adapters` (mcp 1.x there: scripts/mcp_clients_venv.sh).

Run by tests/mcp/test_langchain_adapters.py with that environment's Python; prints one JSON object.
Usage: python langchain_adapters_client.py HOME PORT TOKEN
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import sys
from pathlib import Path

from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HINDSIGHT = str(Path(sys.executable).with_name("hindsight"))
PREFERENCE = "From now on, print all my reports in A4 landscape."
QUESTION = {"what_am_i_looking_for": "How does the user want reports printed?"}


def text_of(result) -> str:
    """A LangChain tool's answer as text (content blocks or a plain string)."""
    if isinstance(result, list):
        return " ".join(block.get("text", "") if isinstance(block, dict) else str(block) for block in result)
    return str(result)


async def over_stdio(env: dict[str, str]) -> dict:
    """load_mcp_tools on a session the caller holds: write, then search, in one server process."""
    params = StdioServerParameters(command=HINDSIGHT, args=["mcp", "--user-id", "alice"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name: tool for tool in await load_mcp_tools(session)}
        written = await tools["memory_write"].ainvoke({"what_to_remember": PREFERENCE})
        found = await tools["memory_search"].ainvoke(QUESTION)
        # an argument the tool does not take is refused on mcp 1.x too, not ignored
        other_user = await session.call_tool("memory_search", {**QUESTION, "user_id": "bob"})
    refused = {"is_error": other_user.isError, "text": " ".join(getattr(c, "text", "") for c in other_user.content)}
    return {"tools": sorted(tools), "written": text_of(written), "found": text_of(found), "refused": refused}


async def stateless(env: dict[str, str]) -> str:
    """MultiServerMCPClient.get_tools: each call starts its own server process on the same store."""
    client = MultiServerMCPClient({"hindsight": {"transport": "stdio", "command": HINDSIGHT,
                                                 "args": ["mcp", "--user-id", "alice"], "env": env}})
    tools = {tool.name: tool for tool in await client.get_tools()}
    return text_of(await tools["memory_search"].ainvoke(QUESTION))


async def over_http(port: int, token: str) -> str:
    """The same search over streamable HTTP, with the bearer token (a server started by the test)."""
    client = MultiServerMCPClient({"hindsight": {"transport": "streamable_http", "url": f"http://127.0.0.1:{port}/mcp",
                                                 "headers": {"Authorization": f"Bearer {token}"}}})
    tools = {tool.name: tool for tool in await client.get_tools()}
    return text_of(await tools["memory_search"].ainvoke(QUESTION))


async def main(home: str, port: int, token: str) -> None:
    env = {**os.environ, "HINDSIGHT_HOME": home, "HF_HUB_OFFLINE": "1"}
    answer = await over_stdio(env)
    answer["stateless"] = await stateless(env)
    answer["http"] = await over_http(port, token)
    answer["versions"] = {p: importlib.metadata.version(p) for p in ("mcp", "langchain-mcp-adapters")}
    print(json.dumps(answer))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
