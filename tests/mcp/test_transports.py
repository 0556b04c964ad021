"""`hindsight mcp` as a subprocess on 127.0.0.1, driven by real MCP clients over stdio, streamable HTTP and SSE."""

from __future__ import annotations

import json
import subprocess

import anyio
import pytest

pytest.importorskip("mcp")

import httpx2  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.sse import sse_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from ._process import HINDSIGHT, free_port, http_get, running, server_env  # noqa: E402

ALICE_TOKEN = "alice-token-7f3c9e1a2b4d6f80"
BOB_TOKEN = "bob-token-0a1b2c3d4e5f6a7b8c"
ALLERGY = "I am allergic to peanuts, so never suggest dishes with peanuts."
EDITOR = "My favourite editor is Neovim and I use it for all my Python work."
CALL_TIMEOUT = 120


def test_stdio_with_the_real_model(tmp_path):
    """What Claude Desktop does: start `hindsight mcp --user-id ...` and talk over stdin/stdout."""
    params = StdioServerParameters(command=HINDSIGHT[0], args=[*HINDSIGHT[1:], "mcp", "--user-id", "alice"],
                                   env=server_env(tmp_path))

    async def session():
        with anyio.fail_after(CALL_TIMEOUT):
            async with Client(params) as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                written = await client.call_tool("memory_write", {"what_to_remember": EDITOR})
                question = {"what_am_i_looking_for": "Which code editor do I use?"}
                found = await client.call_tool("memory_search", question)
                bad = await client.call_tool("memory_search", {**question, "time_range": "bogus"})
                forgotten = await client.call_tool("memory_forget", {"memory_id": written.structured_content["id"]})
                after = await client.call_tool("memory_search", question)
                return tools, written, found, bad, forgotten, after

    tools, written, found, bad, forgotten, after = anyio.run(session)
    assert {"memory_write", "memory_search", "memory_forget", "memory_summarize"} <= tools
    assert written.structured_content["outcome"] == "stored" and written.structured_content["kept"] is True
    assert found.structured_content["results"][0]["memory"] == EDITOR
    assert bad.is_error and "unknown time range" in bad.content[0].text
    assert forgotten.structured_content["count"] == 1
    assert after.structured_content["count"] == 0


def _messages(exc: BaseException) -> str:
    """The messages of an exception, or of every exception inside an exception group."""
    inner = getattr(exc, "exceptions", None)
    return " | ".join(_messages(e) for e in inner) if inner else str(exc)


async def _as(url: str, token: str | None, *steps: tuple[str, dict]) -> list:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            return [await client.call_tool(name, args) for name, args in steps]


def test_streamable_http_with_a_token_per_user(tmp_path):
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"alice": ALICE_TOKEN, "bob": BOB_TOKEN}))
    port = free_port()
    argv = [*HINDSIGHT, "mcp", "--http", "--host", "127.0.0.1", "--port", str(port), "--tokens-file", str(tokens)]
    env = server_env(tmp_path / "home", HINDSIGHT_EMBEDDING_MODEL="fake-hash-embedder")
    url = f"http://127.0.0.1:{port}/mcp"
    with running(argv, env, port, tmp_path / "server.log"):
        status, body = http_get(url, method="POST", body=b"{}", headers={"Content-Type": "application/json"})
        assert status == 401  # no token, no tools; and the refusal says why
        assert "needs an 'Authorization: Bearer <token>' header" in json.loads(body)["error"]["message"]
        status, body = http_get(url, method="POST", body=b"{}", headers={"Content-Type": "application/json",
                                                                         "Authorization": "Bearer not-a-known-token-00"})
        assert status == 401
        assert "not one this server knows" in json.loads(body)["error"]["message"]

        async def wrong_token():
            with anyio.fail_after(CALL_TIMEOUT):
                try:
                    await _as(url, "not-a-known-token-00", ("memory_stats", {}))
                except Exception as exc:  # what an MCP client shows its user
                    return _messages(exc)
            return "connected"

        assert "not one this server knows" in anyio.run(wrong_token)

        async def scenario():
            with anyio.fail_after(CALL_TIMEOUT):
                [written] = await _as(url, ALICE_TOKEN, ("memory_write", {"what_to_remember": ALLERGY}))
                memory_id = written.structured_content["id"]
                bob = await _as(url, BOB_TOKEN,
                                ("memory_search", {"what_am_i_looking_for": ALLERGY, "how_many_results": 20}),
                                ("memory_forget", {"memory_id": memory_id}),
                                ("memory_forget", {"topic": "peanuts"}),
                                ("memory_write", {"what_to_remember": EDITOR}))
                alice = await _as(url, ALICE_TOKEN,
                                  ("memory_search", {"what_am_i_looking_for": "peanuts dishes",
                                                     "how_many_results": 20}),
                                  ("memory_forget", {"memory_id": memory_id, "dry_run": True}))
                return memory_id, bob, alice

        memory_id, bob, alice = anyio.run(scenario)
    bob_search, bob_by_id, bob_by_topic, _ = bob
    assert bob_search.structured_content == {"count": 0, "results": []}
    assert bob_by_id.is_error and "MemoryNotFoundError" in bob_by_id.content[0].text
    assert bob_by_topic.structured_content["count"] == 0
    alice_search, alice_preview = alice
    assert [r["id"] for r in alice_search.structured_content["results"]] == [memory_id]  # not bob's editor
    assert alice_preview.structured_content["count"] == 1


def test_sse_transport(tmp_path):
    port = free_port()
    argv = [*HINDSIGHT, "mcp", "--sse", "--port", str(port), "--user-id", "alice"]
    env = server_env(tmp_path / "home", HINDSIGHT_EMBEDDING_MODEL="fake-hash-embedder")
    with running(argv, env, port, tmp_path / "server.log"):
        async def scenario():
            with anyio.fail_after(CALL_TIMEOUT):
                async with Client(sse_client(f"http://127.0.0.1:{port}/sse")) as client:
                    tools = {t.name for t in (await client.list_tools()).tools}
                    written = await client.call_tool("memory_write", {"what_to_remember": EDITOR})
                    found = await client.call_tool("memory_search", {"what_am_i_looking_for": "Neovim editor"})
                    return tools, written, found

        tools, written, found = anyio.run(scenario)
    assert "memory_search" in tools
    assert found.structured_content["results"][0]["id"] == written.structured_content["id"]


def test_a_loopback_server_without_a_token_warns(tmp_path):
    port = free_port()
    argv = [*HINDSIGHT, "mcp", "--http", "--port", str(port), "--user-id", "alice"]
    env = server_env(tmp_path / "home", HINDSIGHT_EMBEDDING_MODEL="fake-hash-embedder")
    with running(argv, env, port, tmp_path / "server.log"):
        log = (tmp_path / "server.log").read_text()
    warnings = [line for line in log.splitlines() if line.startswith("warning:")]
    assert warnings == ["warning: no token: any program on this machine can read and change alice's memories; "
                        "set --token (HINDSIGHT_MCP_TOKEN) to require one"]


@pytest.mark.parametrize("argv, message", [
    (["mcp"], "--user-id"),
    (["mcp", "--http", "--user-id", "alice", "--token", ""], "the token is empty"),
    (["mcp", "--sse", "--user-id", "alice", "--token", "  "], "the token is empty"),
    (["mcp", "--http", "--host", "0.0.0.0", "--user-id", "alice"], "without a token"),
    (["mcp", "--user-id", "alice", "--token", "a-long-enough-token-1234"], "apply to --http"),
    (["mcp", "--http", "--user-id", "alice", "--token", "short"], "at least 16 characters"),
])
def test_unsafe_or_incomplete_server_settings_are_refused(tmp_path, argv, message):
    env = server_env(tmp_path, HINDSIGHT_EMBEDDING_MODEL="fake-hash-embedder")
    out = subprocess.run([*HINDSIGHT, *argv], env=env, capture_output=True, text=True, timeout=120,
                         stdin=subprocess.DEVNULL, check=False)
    assert out.returncode != 0 and message in out.stderr, (out.stdout, out.stderr)
