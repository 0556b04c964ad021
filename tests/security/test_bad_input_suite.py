"""The red team's bad-input suite (issue 21): every case gets a clear error and stores nothing.

Across the Python API (write, write_many, awrite, forget, recall), import
(the API and `hindsight import`), the command line (click's runner) and the MCP
tools (a real MCP client, in process). A case passes only if it is refused with
a `HindsightError` (the CLI's one-line error, the MCP tool's error answer) and
the store holds exactly what it held before.
"""

from __future__ import annotations

import asyncio
import io
import json
import math
import uuid
from datetime import date, datetime, timezone

import anyio
import numpy as np
import pytest
from click.testing import CliRunner

from hindsight_core import Hindsight, HindsightError, maintenance
from hindsight_core.cli import main
from hindsight_core.testing import FakeEmbedder

GOOD = "I keep the Orion receipts in the blue folder."
ZERO_WIDTH = ["\u200b", "\u200b\u200c\u200d", "\ufeff\u2060", "\u200e\u200f", "\U000e0041\U000e0042",
              "\u00ad", "\u202e\u202c", "\u200b \u200b", "\u3164", "\ufe0f\ufe0f", "\u2060\n\u2060"]


def nested(levels: int, leaf: object = 1) -> object:
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


def nested_list(levels: int) -> object:
    value: object = []
    for _ in range(levels):
        value = [value]
    return value


# -- write: each case is a set of keyword arguments that must be refused --------------------------------------
WRITE_CASES = {
    # timestamps: only an aware datetime
    "timestamp-str": dict(timestamp="2026-03-15T09:00:00+00:00"),
    "timestamp-int": dict(timestamp=1_773_565_200),
    "timestamp-float": dict(timestamp=1.7735652e9),
    "timestamp-date": dict(timestamp=date(2026, 3, 15)),
    "timestamp-naive": dict(timestamp=datetime(2026, 3, 15, 9)),
    "timestamp-bool": dict(timestamp=True),
    "timestamp-list": dict(timestamp=[2026, 3, 15]),
    "timestamp-dict": dict(timestamp={"year": 2026}),
    # event types: one hindsight knows
    "event_type-unknown": dict(event_type="flash"),
    "event_type-empty": dict(event_type=""),
    "event_type-space": dict(event_type=" "),
    "event_type-int": dict(event_type=5),
    "event_type-upper": dict(event_type="PREFERENCE"),
    "event_type-padded": dict(event_type="preference "),
    "event_type-list": dict(event_type=["fact"]),
    "event_type-injection": dict(event_type="fact'; drop"),
    # entities: a bounded list of short strings
    "entities-1mb": dict(entities=["x" * 1_000_000]),
    "entities-100k": dict(entities=["a"] * 100_000),
    "entities-65": dict(entities=[f"e{i}" for i in range(65)]),
    "entities-257-chars": dict(entities=["y" * 257]),
    "entities-bare-str": dict(entities="Maria"),
    "entities-int": dict(entities=[1]),
    "entities-empty-str": dict(entities=[""]),
    "entities-none-item": dict(entities=[None]),
    "entities-control": dict(entities=["a\x00b"]),
    "entities-dict": dict(entities={"Maria": 1}),
    "entities-set": dict(entities={"Maria"}),
    "entities-bytes": dict(entities=[b"Maria"]),
    # metadata: plain JSON within the limits
    "metadata-deep-10000": dict(metadata=nested(10_000)),
    "metadata-deep-list-10000": dict(metadata={"a": nested_list(10_000)}),
    "metadata-deep-5": dict(metadata=nested(5)),
    "metadata-int-key": dict(metadata={1: "x"}),
    "metadata-none-key": dict(metadata={None: "x"}),
    "metadata-nested-int-key": dict(metadata={"a": {2: "x"}}),
    "metadata-nan": dict(metadata={"a": float("nan")}),
    "metadata-inf": dict(metadata={"a": float("inf")}),
    "metadata-object": dict(metadata={"a": object()}),
    "metadata-bytes": dict(metadata={"a": b"x"}),
    "metadata-20kb": dict(metadata={"a": "x" * 20_000}),
    "metadata-str": dict(metadata="channel=chat"),
    "metadata-list": dict(metadata=[("a", 1)]),
    # confidence: a number within 0..1
    "confidence-5": dict(confidence=5),
    "confidence-negative": dict(confidence=-0.1),
    "confidence-nan": dict(confidence=float("nan")),
    "confidence-inf": dict(confidence=float("inf")),
    "confidence-1e308": dict(confidence=1e308),
    "confidence-true": dict(confidence=True),
    "confidence-str": dict(confidence="0.5"),
    # who wrote it and where it goes
    "source-unknown": dict(source="admin"),
    "source-empty": dict(source=""),
    "source-int": dict(source=1),
    "source-upper": dict(source="USER"),
    "layer-working": dict(layer="working"),
    "layer-unknown": dict(layer="long_term"),
    # ids
    "session-empty": dict(session_id=""),
    "session-wildcard": dict(session_id="*"),
    "session-control": dict(session_id="s\x00"),
    "session-int": dict(session_id=5),
    "session-long": dict(session_id="s" * 300),
    "session-zero-width": dict(session_id="s\u200b"),
    "agent-empty": dict(agent_id=""),
    "agent-wildcard": dict(agent_id="%"),
    "agent-newline": dict(agent_id="a\nb"),
    "agent-int": dict(agent_id=7),
    "user-empty": dict(user_id=""),
    "user-wildcard": dict(user_id="*"),
    "user-none": dict(user_id=None),
    "user-newline": dict(user_id="u\nv"),
    "user-int": dict(user_id=5),
    "user-padded": dict(user_id=" u"),
    # flags: real booleans only
    "force-yes": dict(force="yes"),
    "force-false-str": dict(force="false"),
    "force-1": dict(force=1),
    "force-none": dict(force=None),
    # the turn it answers
    "context-zero-width": dict(context="\u200b\u200b"),
    "context-int": dict(context=5),
    "context-64kb": dict(context="x" * 65_536),
    "context-space": dict(context="   "),
    # the text itself
    "text-empty": dict(text=""),
    "text-space": dict(text=" \n\t "),
    "text-none": dict(text=None),
    "text-int": dict(text=42),
    "text-bytes": dict(text=b"I like tea"),
    "text-64kb": dict(text="x" * 65_536),
    "text-64kb-cjk": dict(text="中" * 22_000),
    "text-control-only": dict(text="\x00\x01\x02"),
    **{f"text-invisible-{i}": dict(text=t) for i, t in enumerate(ZERO_WIDTH)},
}


def count(memory: Hindsight) -> int:
    return sum(len(memory.memories(user_id=u)) for u in memory.users())


def write_via(memory: Hindsight, how: str, case: dict) -> None:
    args = {"user_id": "u", "force": True, **case}
    text = args.pop("text", GOOD)
    if how == "write":
        memory.write(text, **args)
    elif how == "write_many":
        # the bad text among good ones: one bad text stores none
        memory.write_many([GOOD, text, "Second good memory about Orion."], **args)
    else:
        asyncio.run(memory.awrite(text, **args))


@pytest.mark.parametrize("how", ["write", "write_many", "awrite"])
@pytest.mark.parametrize("name", sorted(WRITE_CASES))
def test_a_bad_write_is_refused_and_stores_nothing(fake_memory, how, name):
    with pytest.raises(HindsightError) as caught:
        write_via(fake_memory, how, WRITE_CASES[name])
    assert str(caught.value).strip()
    assert count(fake_memory) == 0


def test_the_suite_would_notice_a_good_write(fake_memory):
    """The control: the same paths with good values store (so the refusals above are not an accident)."""
    for how in ("write", "write_many", "awrite"):
        write_via(fake_memory, how, {"timestamp": datetime(2026, 3, 1, tzinfo=timezone.utc), "event_type": "fact",
                                     "entities": ["Orion"], "metadata": nested(3), "confidence": 0.7})
    assert count(fake_memory) == 2  # GOOD (repeats merge into it) and the second memory write_many adds


# -- an embedder that returns NaN ----------------------------------------------------------------------------
class NaNEmbedder(FakeEmbedder):
    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def embed(self, texts):
        vectors = np.asarray(super().embed(texts), dtype=np.float32)
        vectors[:, 0] = self.value
        return vectors


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_an_embedder_returning_nan_stores_nothing(clock, value):
    with Hindsight(location=":memory:", embedder=NaNEmbedder(value), clock=clock) as memory:
        with pytest.raises(HindsightError, match="NaN or infinite"):
            memory.write(GOOD, user_id="u", force=True)
        assert count(memory) == 0


# -- forget and recall --------------------------------------------------------------------------------------
FORGET_CASES = {
    "dry_run-false-str": dict(about="Orion", dry_run="false"),
    "dry_run-0": dict(about="Orion", dry_run=0),
    "dry_run-none": dict(about="Orion", dry_run=None),
    "everything-true-str": dict(everything="true"),
    "everything-1": dict(everything=1),
    "about-empty": dict(about=""),
    "about-invisible": dict(about="\u200b"),
    "about-int": dict(about=5),
    "about-64kb": dict(about="x" * 65_536),
    "two-targets": dict(about="Orion", everything=True),
    "no-target": dict(),
    "id-unknown": dict(memory_id=str(uuid.uuid4())),
}


@pytest.mark.parametrize("name", sorted(FORGET_CASES))
def test_a_bad_forget_is_refused_and_forgets_nothing(fake_memory, name):
    fake_memory.write(GOOD, user_id="u", force=True)
    with pytest.raises(HindsightError):
        fake_memory.forget(user_id="u", **FORGET_CASES[name])
    assert count(fake_memory) == 1


RECALL_CASES = {
    "query-empty": dict(query=""), "query-none": dict(query=None), "query-int": dict(query=3),
    "k-0": dict(k=0), "k-negative": dict(k=-1), "k-str": dict(k="5"), "k-float": dict(k=2.5), "k-huge": dict(k=10**9),
    "k-bool": dict(k=True), "time_range-unknown": dict(time_range="last_fortnight"),
    "event_types-str": dict(event_types="fact"), "event_types-int": dict(event_types=[1]),
    "layers-unknown": dict(layers=["long_term"]), "user-wildcard": dict(user_id="*"),
}


@pytest.mark.parametrize("name", sorted(RECALL_CASES))
def test_a_bad_recall_is_refused(fake_memory, name):
    fake_memory.write(GOOD, user_id="u", force=True)
    args = {"query": "Orion receipts", "user_id": "u", **RECALL_CASES[name]}
    with pytest.raises(HindsightError):
        fake_memory.recall(args.pop("query"), **args)
    assert count(fake_memory) == 1


# -- import: the API and the command line -------------------------------------------------------------------
HEADER = json.dumps({"format": "hindsight-export", "version": 1, "vectors": True})


def good_record(**changes) -> dict:
    record = {"id": str(uuid.uuid4()), "user_id": "alice", "summary": "Orion receipts.", "raw_content": GOOD,
              "timestamp": "2026-03-15T09:00:00+00:00", "layer": "episodic", "event_type": "fact",
              "confidence": 0.8, "source": "user", "status": "active", "embedding_model": FakeEmbedder().name,
              "entities": ["Orion"], "metadata": {}}
    record.update(changes)
    return record


def line(record: dict | None = None, vector: object = None, raw: str | None = None) -> str:
    if raw is not None:
        return raw
    data: dict = {"record": record if record is not None else good_record()}
    if vector is not None:
        data["vector"] = vector
    return json.dumps(data)


DIM = FakeEmbedder().dimension
IMPORT_CASES = {
    "confidence-5": line(good_record(confidence=5)),
    "confidence-negative": line(good_record(confidence=-1)),
    "confidence-nan": line(raw=json.dumps({"record": good_record(confidence=float("nan"))})),
    "confidence-str": line(good_record(confidence="high")),
    "decay-negative": line(good_record(decay_rate=-3)),
    "vector-nan": line(raw=json.dumps({"record": good_record(), "vector": [float("nan")] * DIM})),
    "vector-inf": line(raw=json.dumps({"record": good_record(), "vector": [float("inf")] * DIM})),
    "vector-1e308": line(vector=[1e308] * DIM),
    "vector-1e39": line(vector=[1e39] + [0.0] * (DIM - 1)),
    "vector-str": line(vector=["x"] * DIM),
    "vector-bool": line(vector=[True] * DIM),
    "vector-dict": line(vector={"a": 1}),
    "text-64kb": line(good_record(raw_content="x" * 65_536)),
    "text-invisible": line(good_record(raw_content="\u200b\u200c")),
    "text-empty": line(good_record(raw_content="")),
    "text-int": line(good_record(raw_content=5)),
    "json-deep": line(raw='{"record": ' + "[" * 100_000 + "]" * 100_000 + "}"),
    "json-deep-metadata": line(good_record(metadata=nested(40))),
    "metadata-20kb": line(good_record(metadata={"a": "x" * 20_000})),
    "entities-100k": line(good_record(entities=["a"] * 100_000)),
    "entities-1mb": line(good_record(entities=["x" * 1_000_000])),
    "entities-str": line(good_record(entities="Orion")),
    "timestamp-naive": line(good_record(timestamp="2026-03-15T09:00:00")),
    "timestamp-garbage": line(good_record(timestamp="yesterday")),
    "timestamp-int": line(good_record(timestamp=1_773_565_200)),
    "id-not-uuid": line(good_record(id="m1")),
    "user-wildcard": line(good_record(user_id="*")),
    "layer-unknown": line(good_record(layer="long_term")),
    "source-unknown": line(good_record(source="admin")),
    "status-unknown": line(good_record(status="deleted")),
    "access-negative": line(good_record(access_count=-4)),
    "not-an-object": line(raw="[1, 2, 3]"),
    "not-json": line(raw="{record: nope"),
    "no-record": line(raw=json.dumps({"vector": [0.0] * DIM})),
}


@pytest.mark.parametrize("name", sorted(IMPORT_CASES))
def test_a_bad_import_line_is_refused_by_the_api_and_stores_nothing(tmp_path, name):
    from hindsight_core import EdgeStore

    store = EdgeStore(tmp_path / "store")
    try:
        with pytest.raises(HindsightError):
            maintenance.import_jsonl(store, FakeEmbedder(), io.StringIO(HEADER + "\n" + IMPORT_CASES[name] + "\n"))
        assert store.users() == [] or all(store.count(u) == 0 for u in store.users())
    finally:
        store.close()


def test_the_import_control_line_is_good(tmp_path):
    from hindsight_core import EdgeStore

    store = EdgeStore(tmp_path / "store")
    try:
        maintenance.import_jsonl(store, FakeEmbedder(), io.StringIO(HEADER + "\n" + line(vector=[0.1] * DIM) + "\n"))
        assert store.count("alice") == 1
    finally:
        store.close()


# -- the command line -----------------------------------------------------------------------------------------
SETTINGS = ("HINDSIGHT_HOME", "HINDSIGHT_STORE", "HINDSIGHT_QDRANT_URL", "HINDSIGHT_QDRANT_API_KEY",
            "HINDSIGHT_REDIS_URL", "HINDSIGHT_EMBEDDING_MODEL", "HINDSIGHT_USER_ID", "HINDSIGHT_MCP_TOKEN",
            "HINDSIGHT_MCP_TOKENS_FILE", "HINDSIGHT_MCP_HOST", "HINDSIGHT_MCP_PORT", "HINDSIGHT_MCP_WRITE_SOURCE")


def cli(home, *args: str, input: str | None = None):
    env = {name: None for name in SETTINGS}
    env.update(HINDSIGHT_HOME=str(home), HINDSIGHT_EMBEDDING_MODEL="fake-hash-embedder", HINDSIGHT_USER_ID="alice")
    return CliRunner().invoke(main, list(args), env=env, input=input, catch_exceptions=True)


def assert_one_line_error(result) -> None:
    assert result.exit_code != 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert "Error" in result.output and result.output.strip()


def stored(home) -> int:
    result = cli(home, "recall", "Orion receipts", "--json")
    return len(json.loads(result.output)) if result.exit_code == 0 and result.output.strip() else 0


@pytest.mark.parametrize("name", sorted(IMPORT_CASES))
def test_a_bad_import_line_gets_the_clis_one_line_error(tmp_path, name):
    path = tmp_path / "bad.jsonl"
    path.write_text(HEADER + "\n" + IMPORT_CASES[name] + "\n", encoding="utf-8")
    assert_one_line_error(cli(tmp_path / "home", "import", str(path)))
    assert stored(tmp_path / "home") == 0


CLI_CASES = {
    "archive-nan": ("archive", "--older-than", "nan"),
    "archive-inf": ("archive", "--older-than", "inf"),
    "archive-1e308": ("archive", "--older-than", "1e308"),
    "archive-negative": ("archive", "--older-than", "-1"),
    "archive-word": ("archive", "--older-than", "ninety"),
    "remember-invisible": ("remember", "\u200b\u200c\u200d", "--force"),
    "remember-unknown-type": ("remember", GOOD, "--event-type", "flash"),
    "remember-empty": ("remember", "   ", "--force"),
    "remember-wildcard-session": ("remember", GOOD, "--session-id", "*"),
    "recall-empty": ("recall", " "),
    "recall-k-0": ("recall", "Orion", "-k", "0"),
    "recall-bad-range": ("recall", "Orion", "--time-range", "last_fortnight"),
    "forget-nothing": ("forget",),
    "forget-invisible": ("forget", "--about", "\u200b"),
    "forget-unknown-id": ("forget", "--id", str(uuid.uuid4())),
}


@pytest.mark.parametrize("name", sorted(CLI_CASES))
def test_a_bad_command_gets_a_one_line_error(tmp_path, name):
    home = tmp_path / "home"
    assert cli(home, "remember", GOOD, "--force").exit_code == 0
    assert_one_line_error(cli(home, *CLI_CASES[name]))
    assert stored(home) == 1


# -- the MCP tools, through a real MCP client in process ------------------------------------------------------
MCP_CASES = {
    "forget-dry_run-false-str": ("memory_forget", {"topic": "Orion receipts", "dry_run": "false"}),
    "forget-dry_run-False-str": ("memory_forget", {"topic": "Orion receipts", "dry_run": "False"}),
    "forget-dry_run-0-str": ("memory_forget", {"topic": "Orion receipts", "dry_run": "0"}),
    "forget-dry_run-0": ("memory_forget", {"topic": "Orion receipts", "dry_run": 0}),
    "forget-dry_run-null": ("memory_forget", {"topic": "Orion receipts", "dry_run": None}),
    "forget-dry_run-list": ("memory_forget", {"topic": "Orion receipts", "dry_run": []}),
    "forget-dry_run-no": ("memory_forget", {"topic": "Orion receipts", "dry_run": "no"}),
    "forget-both": ("memory_forget", {"topic": "Orion receipts", "memory_id": str(uuid.uuid4()), "dry_run": True}),
    "forget-neither": ("memory_forget", {}),
    "forget-invisible-topic": ("memory_forget", {"topic": "\u200b", "dry_run": True}),
    "forget-unknown-id": ("memory_forget", {"memory_id": str(uuid.uuid4())}),
    "summarize-dry_run-false-str": ("memory_summarize", {"dry_run": "false"}),
    "summarize-dry_run-1": ("memory_summarize", {"dry_run": 1}),
    "write-empty": ("memory_write", {"what_to_remember": ""}),
    "write-invisible": ("memory_write", {"what_to_remember": "\u200b\u2060"}),
    "write-64kb": ("memory_write", {"what_to_remember": "x" * 65_536}),
    "write-int": ("memory_write", {"what_to_remember": 5}),
    "write-null": ("memory_write", {"what_to_remember": None}),
    "write-kind-wildcard": ("memory_write", {"what_to_remember": GOOD, "kind_of_memory": "*"}),
    "write-kind-int": ("memory_write", {"what_to_remember": GOOD, "kind_of_memory": 5}),
    "search-k-str": ("memory_search", {"what_am_i_looking_for": "Orion", "how_many_results": "5"}),
    "search-k-0": ("memory_search", {"what_am_i_looking_for": "Orion", "how_many_results": 0}),
    "search-k-21": ("memory_search", {"what_am_i_looking_for": "Orion", "how_many_results": 21}),
    "search-k-float": ("memory_search", {"what_am_i_looking_for": "Orion", "how_many_results": 2.5}),
    "search-k-bool": ("memory_search", {"what_am_i_looking_for": "Orion", "how_many_results": True}),
    "search-empty": ("memory_search", {"what_am_i_looking_for": ""}),
    "search-range": ("memory_search", {"what_am_i_looking_for": "Orion", "time_range": "last_fortnight"}),
}


@pytest.mark.parametrize("name", sorted(MCP_CASES))
def test_a_bad_mcp_call_gets_an_error_answer_and_changes_nothing(fake_memory, name):
    pytest.importorskip("mcp")
    from mcp import Client

    from hindsight_core.mcp import UserScope, build_server

    fake_memory.write(GOOD, user_id="alice", force=True)
    tool, arguments = MCP_CASES[name]

    async def run():
        async with Client(build_server(fake_memory, UserScope(user_id="alice"))) as client:
            return await client.call_tool(tool, arguments)

    result = anyio.run(run)
    assert result.is_error, result
    assert result.content[0].text.strip() and "Traceback" not in result.content[0].text
    assert len(fake_memory.memories(user_id="alice")) == 1


def test_the_suite_holds_at_least_300_cases():
    total = (3 * len(WRITE_CASES) + len(FORGET_CASES) + len(RECALL_CASES) + 2 * len(IMPORT_CASES) + len(CLI_CASES)
             + len(MCP_CASES) + 3)
    assert total >= 300, total
    assert not math.isnan(total)


def test_a_text_limit_past_what_a_request_carries_is_refused_everywhere(tmp_path):
    """Red team finding 13: `--max-text-bytes 1000000000000000000000000000000` was taken by the CLI and `serve`,
    and `Limits` took any number; and `export_jsonl(now=...)` raised AttributeError for a value not a datetime."""
    import io
    import subprocess
    import sys

    from hindsight_core import InvalidInputError, Limits
    from hindsight_core.config import TEXT_BYTES_CEILING
    from hindsight_core.maintenance import export_jsonl
    from hindsight_core.store import EdgeStore

    for value in (10 ** 30, TEXT_BYTES_CEILING + 1, 0, True, 2.5):
        with pytest.raises(InvalidInputError, match="max_text_bytes"):
            Limits(max_text_bytes=value)
    assert Limits(max_text_bytes=TEXT_BYTES_CEILING).max_text_bytes == TEXT_BYTES_CEILING
    for command in ("stats", "serve"):
        answer = subprocess.run([sys.executable, "-m", "hindsight_core.cli", "--store", str(tmp_path / "s"),
                                 "--max-text-bytes", str(10 ** 30), command], capture_output=True, text=True,
                                timeout=120)
        assert answer.returncode == 2 and "--max-text-bytes" in answer.stderr and "Traceback" not in answer.stderr
    store = EdgeStore(tmp_path / "store")
    try:
        for now in ("2026-03-01", 5, object()):
            with pytest.raises(InvalidInputError, match="now"):
                export_jsonl(store, io.StringIO(), now=now)
    finally:
        store.close()
