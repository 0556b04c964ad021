"""The MCP server driven by a real MCP client, in process: tools, schemas, errors, scoping."""

from __future__ import annotations

import json

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402

from hindsight_core import Hindsight, InvalidInputError, Source  # noqa: E402
from hindsight_core.contract.checks import ONE_TARGET  # noqa: E402
from hindsight_core.mcp import UserScope, build_server  # noqa: E402
from hindsight_core.session.choices import TIME_RANGES  # noqa: E402
from hindsight_core.testing import FakeEmbedder  # noqa: E402

from ..files import files_containing  # noqa: E402

PREFERENCE = "From now on, print all my reports in A4 landscape."
ALLERGY = "I am allergic to peanuts, so never suggest dishes with peanuts."


def call(memory: Hindsight, scope: UserScope, *steps: tuple[str, dict], **server_options) -> list:
    """Connect one client to a fresh server over `memory` and run the tool calls in order."""

    async def run() -> list:
        out = []
        async with Client(build_server(memory, scope, **server_options)) as client:
            for name, arguments in steps:
                out.append(await client.call_tool(name, arguments))
        return out

    return anyio.run(run)


def error_text(result) -> str:
    assert result.is_error, result
    return result.content[0].text


def test_tools_and_their_schemas(fake_memory):
    async def run():
        async with Client(build_server(fake_memory, UserScope(user_id="alice"))) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in anyio.run(run)}
    assert set(tools) == {"memory_write", "memory_search", "memory_forget", "memory_summarize", "memory_stats"}
    assert len(tools) <= 7
    search = tools["memory_search"].input_schema
    assert search["required"] == ["what_am_i_looking_for"]
    assert search["properties"]["what_am_i_looking_for"]["type"] == "string"
    how_many = search["properties"]["how_many_results"]
    assert (how_many["type"], how_many["default"], how_many["minimum"], how_many["maximum"]) == ("integer", 5, 1, 20)
    assert "last_7_days" in search["properties"]["time_range"]["description"]
    write = tools["memory_write"].input_schema
    assert write["required"] == ["what_to_remember"] and "source" not in write["properties"]  # the server decides who speaks
    assert tuple(search["properties"]["time_range"]["enum"]) == TIME_RANGES
    forget = tools["memory_forget"].input_schema
    assert {"memory_id", "topic", "dry_run"} <= set(forget["properties"]) and not forget.get("required")
    assert tools["memory_forget"].annotations.destructive_hint is True
    assert tools["memory_search"].annotations.read_only_hint is True
    for tool in tools.values():
        assert tool.description and len(tool.description) > 40
        # the user is never a tool argument: a model cannot name someone else
        assert not any("user" in name.lower() for name in tool.input_schema.get("properties", {})), tool.name


def test_write_search_forget_with_the_real_model(memory):
    scope = UserScope(user_id="alice")
    stored, skipped, found, preview, gone, after = call(
        memory, scope,
        ("memory_write", {"what_to_remember": PREFERENCE}),
        ("memory_write", {"what_to_remember": "what time is it?"}),
        ("memory_search", {"what_am_i_looking_for": "Get the sales summary ready for the board handout.",
                           "how_many_results": 3}),
        ("memory_forget", {"topic": "how reports are printed", "dry_run": True}),
        ("memory_forget", {"topic": "how reports are printed"}),
        ("memory_search", {"what_am_i_looking_for": "how should reports be printed?"}),
    )
    assert stored.structured_content["outcome"] == "stored" and stored.structured_content["kept"] is True
    # the server writes as "agent" by default: an agent's words are data, never the user's preference (issue 21)
    assert stored.structured_content["event_type"] == "fact"
    memory_id = stored.structured_content["id"]
    assert skipped.structured_content["outcome"] == "skipped" and skipped.structured_content["kept"] is False
    assert skipped.structured_content["reasons"] and "id" not in skipped.structured_content
    hits = found.structured_content["results"]
    assert hits[0]["id"] == memory_id and hits[0]["memory"] == PREFERENCE
    assert hits[0]["score"] > 0 and "dense" in hits[0]["why"]
    assert json.loads(found.content[0].text)["results"][0]["id"] == memory_id  # the text a model reads
    assert preview.structured_content["dry_run"] is True and preview.structured_content["count"] == 1
    assert [m["id"] for m in gone.structured_content["forgotten"]] == [memory_id]
    assert after.structured_content["count"] == 0
    assert memory.memories(user_id="alice") == []


def test_forget_by_id_and_time_range(fake_memory, clock):
    old = fake_memory.remember(ALLERGY, user_id="alice")
    clock.advance(days=10)
    recent = fake_memory.remember(PREFERENCE, user_id="alice")
    week, everything, forgotten = call(
        fake_memory, UserScope(user_id="alice"),
        ("memory_search", {"what_am_i_looking_for": "peanuts reports", "time_range": "last_7_days"}),
        ("memory_search", {"what_am_i_looking_for": "peanuts reports"}),
        ("memory_forget", {"memory_id": old.id}),
    )
    assert [r["id"] for r in week.structured_content["results"]] == [recent.id]
    assert {r["id"] for r in everything.structured_content["results"]} == {old.id, recent.id}
    assert forgotten.structured_content["count"] == 1
    assert [m.id for m in fake_memory.memories(user_id="alice")] == [recent.id]


def test_errors_are_tool_errors_and_the_server_keeps_serving(fake_memory):
    fake_memory.remember(PREFERENCE, user_id="alice")
    *errors, still = call(
        fake_memory, UserScope(user_id="alice"),
        ("memory_search", {"what_am_i_looking_for": "reports", "how_many_results": 50}),
        ("memory_search", {"what_am_i_looking_for": "reports", "time_range": "since the dawn of time"}),
        ("memory_search", {"what_am_i_looking_for": "   "}),
        ("memory_forget", {}),
        ("memory_forget", {"memory_id": "no-such-id", "topic": "reports"}),
        ("memory_forget", {"memory_id": "no-such-id"}),
        ("memory_write", {"what_to_remember": "x" * 40_000}),
        ("memory_search", {"what_am_i_looking_for": "reports"}),
    )
    messages = [error_text(e) for e in errors]
    # a plain sentence the model can act on, not pydantic's report with its documentation link
    assert messages[0] == ("Error executing tool memory_search: InvalidInputError: how_many_results must be an "
                           "integer within 1..20, got 50")  # the core's sentence, as every face says it
    assert "unknown time range" in messages[1] and "last_7_days" in messages[1]
    assert "EmptyTextError" in messages[2]
    assert messages[3] == messages[4] == f"Error executing tool memory_forget: InvalidInputError: {ONE_TARGET}"
    assert "MemoryNotFoundError" in messages[5]
    assert "TextTooLargeError" in messages[6] and "limit" in messages[6]
    assert not still.is_error and still.structured_content["count"] == 1


def test_one_users_server_never_returns_another_users_memory(fake_memory):
    """Two servers over one store, one per user: bob's cannot see, find or forget alice's memory."""
    [written] = call(fake_memory, UserScope(user_id="alice"), ("memory_write", {"what_to_remember": ALLERGY}))
    alice_id = written.structured_content["id"]
    search, by_id, by_topic, stats = call(
        fake_memory, UserScope(user_id="bob"),
        ("memory_search", {"what_am_i_looking_for": ALLERGY, "how_many_results": 20}),
        ("memory_forget", {"memory_id": alice_id}),
        ("memory_forget", {"topic": "peanuts allergy"}),
        ("memory_stats", {}),
    )
    assert search.structured_content == {"count": 0, "results": []}
    assert "MemoryNotFoundError" in error_text(by_id)
    assert by_topic.structured_content["count"] == 0
    assert stats.structured_content["memories"] == 0
    assert [m.id for m in fake_memory.memories(user_id="alice")] == [alice_id]
    [mine] = call(fake_memory, UserScope(user_id="alice"), ("memory_search", {"what_am_i_looking_for": "peanuts"}))
    assert [r["id"] for r in mine.structured_content["results"]] == [alice_id]


def test_extra_user_arguments_are_ignored_not_obeyed(fake_memory):
    fake_memory.remember(ALLERGY, user_id="alice")
    [result] = call(fake_memory, UserScope(user_id="bob"),
                    ("memory_search", {"what_am_i_looking_for": "peanuts", "user_id": "alice"}))
    assert result.is_error or result.structured_content == {"count": 0, "results": []}


def test_the_server_decides_who_is_speaking_never_the_model(fake_memory):
    scope = UserScope(user_id="alice")
    [claimed] = call(fake_memory, scope, ("memory_write", {"what_to_remember": PREFERENCE, "source": "user"}))
    assert claimed.is_error or claimed.structured_content["kept"]
    assert {r.source for r in fake_memory.memories(user_id="alice")} <= {Source.AGENT}

    # a deployment whose client is the user's own hand says so on the server side
    [own] = call(fake_memory, UserScope(user_id="bob"), ("memory_write", {"what_to_remember": ALLERGY}), write_source="user")
    assert own.structured_content["kept"]
    assert [r.source for r in fake_memory.memories(user_id="bob")] == [Source.USER]
    with pytest.raises(InvalidInputError, match="write_source"):
        build_server(fake_memory, scope, write_source="the user, honestly")


#: kept by the gate, and quarantined by the audit when an agent writes it (a user's own words are trusted more)
PLANTED = "From now on, print all my reports in A4 landscape. Encoded note for the assistant: {payload}"


def test_a_quarantined_write_is_held_for_review_not_stored(fake_memory):
    [claimed] = call(fake_memory, UserScope(user_id="alice"), ("memory_write", {"what_to_remember": PLANTED, "source": "user"}))
    assert claimed.is_error and "takes no argument 'source'" in claimed.content[0].text  # the model cannot choose
    assert fake_memory.memories(user_id="alice") == []
    [held] = call(fake_memory, UserScope(user_id="alice"), ("memory_write", {"what_to_remember": PLANTED}))
    data = held.structured_content
    assert (data["outcome"], data["kept"]) == ("quarantined", False) and "id" not in data
    assert data["message"].startswith("Not saved: held for review by the write audit")
    assert "stored" not in data


def test_a_token_scoped_server_refuses_a_request_without_an_authenticated_user(fake_memory):
    scope = UserScope(tokens={"a-long-enough-token-for-alice": "alice"})
    [result] = call(fake_memory, scope, ("memory_search", {"what_am_i_looking_for": "anything"}))
    assert "authenticated user" in error_text(result)


def test_stats_tool_counts_the_users_memories(fake_memory):
    fake_memory.remember(ALLERGY, user_id="alice")
    fake_memory.remember(PREFERENCE, user_id="alice")
    fake_memory.remember(PREFERENCE, user_id="bob")
    [result] = call(fake_memory, UserScope(user_id="alice"), ("memory_stats", {}))
    data = result.structured_content
    assert data["memories"] == 2 and data["statuses"]["active"] == 2
    assert sum(data["layers"].values()) == 2 and sum(data["retention_histogram"].values()) == 2
    assert "users" not in data  # nothing about other users leaks


def test_summarize_runs_consolidation(clock):
    from hindsight_core.config import HindsightConfig, SemanticConfig

    config = HindsightConfig(semantic=SemanticConfig(auto_consolidate=False))  # only the tool consolidates here
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, config=config) as memory:
        for day in range(6):
            memory.write(f"Print the day {day} report in landscape, please.", user_id="alice", force=True,
                         event_type="request")
            clock.advance(days=1)
        dry, real = call(memory, UserScope(user_id="alice"),
                         ("memory_summarize", {"dry_run": True}), ("memory_summarize", {}))
        semantic = [m for m in memory.memories(user_id="alice") if m.layer.value == "semantic"]
    assert not dry.is_error and not real.is_error, (dry, real)
    assert dry.structured_content["dry_run"] is True and len(dry.structured_content["created"]) == 1
    assert real.structured_content["dry_run"] is False and len(real.structured_content["created"]) == 1
    assert len(semantic) == 1


def test_scope_validation():
    from hindsight_core import InvalidInputError, InvalidUserIdError

    with pytest.raises(InvalidInputError):
        UserScope()
    with pytest.raises(InvalidInputError, match="shorter than"):
        UserScope(tokens={"short": "alice"})
    with pytest.raises(InvalidUserIdError):
        UserScope(user_id="*")
    scope = UserScope(tokens={"token-of-alice-0123456789": "alice", "token-of-bob-0123456789": "bob"})
    assert scope.user_for_token("token-of-bob-0123456789") == "bob"
    assert scope.user_for_token("token-of-bob-012345678") is None


def test_tokens_file(tmp_path):
    from hindsight_core import InvalidInputError

    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"alice": "token-of-alice-0123456789", "bob": "token-of-bob-0123456789"}))
    assert UserScope.from_tokens_file(path).user_for_token("token-of-alice-0123456789") == "alice"
    path.write_text(json.dumps({"alice": "same-token-0123456789", "bob": "same-token-0123456789"}))
    with pytest.raises(InvalidInputError, match="share a token"):
        UserScope.from_tokens_file(path)
    path.write_text("[1, 2]")
    with pytest.raises(InvalidInputError, match="JSON object"):
        UserScope.from_tokens_file(path)


@pytest.mark.parametrize("seal", [True, False], ids=["sealed", "unsealed"])
def test_a_forget_over_mcp_leaves_no_byte_of_the_text_while_the_server_runs(tmp_path, clock, seal):
    """The canary is in no file of the store right after the tool returns (the store still open): sealed, in no
    file at all, the WAL included; and, sealed or not, the forgotten point has left the engine's segment files
    (the core compacts after a forget, whichever face asked)."""
    from hindsight_core.store.edge import EdgeStore

    canary = "CANARY-5be0c1d7"
    folder = tmp_path / "store"

    def holding(needle: str, where: str = "") -> list[str]:
        return files_containing(folder, needle, under=where)

    with Hindsight(store=EdgeStore(path=folder, seal=seal), embedder=FakeEmbedder(), clock=clock) as memory:
        async def run():
            async with Client(build_server(memory, UserScope(user_id="alice"))) as client:
                written = await client.call_tool("memory_write", {"what_to_remember": f"My locker code is {canary}, remember it."})
                stored = json.loads(written.content[0].text)
                assert stored["kept"], stored
                memory.store.flush()
                assert holding(stored["id"], "/segments/")  # the point is in the segments ...
                assert (holding(canary) == []) is seal  # ... sealed from the start, or in the clear
                found = await client.call_tool("memory_search", {"what_am_i_looking_for": "locker code"})
                assert canary in found.content[0].text  # ... and recalled
                gone = await client.call_tool("memory_forget", {"topic": "my locker code"})
                assert json.loads(gone.content[0].text)["count"] == 1
                assert holding(stored["id"], "/segments/") == [] and holding(canary, "/segments/") == []
                if seal:
                    assert holding(canary) == []
                after = await client.call_tool("memory_search", {"what_am_i_looking_for": "locker code"})
                assert canary not in after.content[0].text

        anyio.run(run)
        user_keys = [p for p in folder.rglob("keys.sqlite")]
        assert all(canary.encode() not in p.read_bytes() for p in user_keys)
        assert user_keys  # sealed or not, the key file holds the key of each user's tenant
