"""`hindsight mcp`: who the server's writes come from is a server setting, read here at the edge."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")


@pytest.fixture
def served(monkeypatch):
    """Run `hindsight mcp` up to the point of serving; returns the options build_server was given."""
    from hindsight_core.mcp import server

    seen: dict = {}

    def build(memory, scope, **options):
        seen.update(options, user=scope.user_id)
        return object()

    monkeypatch.setattr(server, "build_server", build)
    monkeypatch.setattr(server, "run_server", lambda *args, **kwargs: None)
    return seen


def test_the_server_writes_as_the_agent_unless_told_otherwise(hs, served):
    hs("mcp", "-u", "alice")
    assert served["write_source"] == "agent" and served["user"] == "alice"


def test_a_flag_or_the_environment_says_the_client_is_the_users_own_hand(hs, served):
    hs("mcp", "-u", "alice", "--write-source", "user")
    assert served["write_source"] == "user"
    hs("mcp", "-u", "alice", HINDSIGHT_MCP_WRITE_SOURCE="tool")
    assert served["write_source"] == "tool"
    refused = hs("mcp", "-u", "alice", "--write-source", "system", ok=False)
    assert refused.exit_code != 0 and "write-source" in refused.output
