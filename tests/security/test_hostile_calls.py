"""Hostile calls on every face: the Python API, the command line, the MCP tools and the HTTP API (issue 29).

Each call is labelled before it is made (`hostile.BAD`, `GOOD`, `EITHER`) and
scored by `hostile.Tally`: a refusal must be a `HindsightError` (or a `TypeError`
for a wrong signature) with a message; any other exception is a traceback; a
BAD call that succeeds is a silent acceptance. Hand-picked values (wrong types,
NaN and infinities, huge and invisible text, lone surrogates, unknown names,
negative k, bad timestamps and filters, bad metadata) are crossed with every
parameter of every operation, and hypothesis adds arbitrary text, numbers and
JSON. The engine is the real one (Qdrant Edge); the embedder is the hashing fake.

    pytest -s tests/security/test_hostile_calls.py      # prints each face's counts

Targets: 0 tracebacks, at most 1% silent, on at least 1,500 calls in all.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import math
import uuid
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hindsight_core import Hindsight
from hindsight_core.session.tools import KINDS
from hindsight_core.testing import FakeEmbedder

from .hostile import BAD, EITHER, GOOD, Tally, text_label

pytestmark = pytest.mark.timeout(900)

GOOD_TEXT = "I keep the Orion receipts in the blue folder."
UTC = timezone.utc
TALLIES: dict[str, Tally] = {}
FAST = settings(max_examples=60, database=None, deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))


def nested(levels: int, leaf: object = 1) -> object:
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


class Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("repr refused")


# -- values, each labelled -------------------------------------------------------------------------------
HOSTILE_TEXTS = [
    ("", BAD), (" \n\t ", BAD), ("\x00\x01\x02", BAD), ("\u200b\u200c\u200d", BAD), ("\ufeff\u2060", BAD),
    ("\U000e0041\U000e0042", BAD), ("\u3164", BAD), ("\ufe0f", BAD), ("\U000e0100\U000e0101", BAD),
    ("\ud800", BAD), ("tea\udfff", BAD), ("x" * 40_000, BAD), ("中" * 12_000, BAD), (None, BAD), (42, BAD),
    (4.2, BAD), (float("nan"), BAD), (b"I like tea", BAD), (["I like tea"], BAD), ({"text": "tea"}, BAD),
    (True, BAD), (GOOD_TEXT, GOOD), ("我把 Orion 的收据放在蓝色文件夹里。", GOOD), ("tea\x00 at nine", GOOD),
    ("e\u0301 accent and emoji 🍵", GOOD), ("x" * 30_000, GOOD), ("Robert'); DROP TABLE memories;--", GOOD),
    ("{{7*7}} ${jndi:ldap://x} %s%n", GOOD), ("\u202eevil reversed", GOOD),
]
HOSTILE_IDS = [
    ("", BAD), (" ", BAD), ("*", BAD), ("%", BAD), ("all", BAD), ("a\nb", BAD), ("a\x00", BAD), (5, BAD),
    ("x" * 300, BAD), ("\u200b", BAD), (" u", BAD), ("u\ud800", BAD), (b"u", BAD), (["u"], BAD), (1.5, BAD),
    ("alice", GOOD), ("用户一", GOOD), ("café", GOOD), ("o'brien;--", GOOD),
]
FLAGS = [("yes", BAD), ("false", BAD), (1, BAD), (0, BAD), (None, BAD), ([], BAD), (float("nan"), BAD),
         (True, GOOD), (False, GOOD)]
TIMESTAMPS = [
    ("2026-03-15T09:00:00+00:00", BAD), (1_773_565_200, BAD), (1.77e9, BAD), (date(2026, 3, 15), BAD),
    (datetime(2026, 3, 15, 9), BAD), (True, BAD), ([2026, 3, 15], BAD), ({"year": 2026}, BAD), (float("nan"), BAD),
    (float("inf"), BAD), (datetime(2026, 3, 15, 9, tzinfo=UTC), GOOD),
    (datetime(2026, 3, 15, 9, tzinfo=timezone(timedelta(hours=8))), GOOD), (None, GOOD),
    (datetime(1, 1, 1, tzinfo=UTC), EITHER), (datetime(9999, 12, 31, 23, 59, tzinfo=UTC), EITHER),
]
CONFIDENCES = [(5, BAD), (-0.1, BAD), (float("nan"), BAD), (float("inf"), BAD), (1e308, BAD), (True, BAD),
               ("0.5", BAD), ([0.5], BAD), (None, GOOD), (0, GOOD), (1, GOOD), (0.73, GOOD)]
EVENT_TYPES = [("flash", BAD), ("", BAD), (5, BAD), ("PREFERENCE", BAD), ("fact ", BAD), (["fact"], BAD),
               (float("nan"), BAD), ("fact", GOOD), ("preference", GOOD), (None, GOOD)]
ENTITIES = [(["x" * 1_000_000], BAD), (["a"] * 100_000, BAD), ([f"e{i}" for i in range(65)], BAD), ("Maria", BAD),
            ([1], BAD), ([""], BAD), ([None], BAD), (["a\x00b"], BAD), ({"Maria": 1}, BAD), ({"Maria"}, BAD),
            ([b"Maria"], BAD), (5, BAD), (["Maria\ud800"], BAD), (None, GOOD), ([], GOOD), (["Orion"], GOOD),
            (("Orion", "玛丽亚"), GOOD)]
METADATA = [
    (nested(10_000), BAD), ({1: "x"}, BAD), ({None: "x"}, BAD), ({"a": {2: "x"}}, BAD), ({"a": float("nan")}, BAD),
    ({"a": float("inf")}, BAD), ({"a": object()}, BAD), ({"a": b"x"}, BAD), ({"a": "x" * 20_000}, BAD),
    ("channel=chat", BAD), ([("a", 1)], BAD), (5, BAD), ({"a": Unprintable()}, BAD), ({"a\ud800": 1}, BAD),
    ({"a": "b\udfff"}, BAD), ({"a": datetime(2026, 1, 1, tzinfo=UTC)}, BAD), ({"a": {1, 2}}, BAD),
    (None, GOOD), ({}, GOOD), ({"channel": "chat", "n": 3}, GOOD), (nested(3), GOOD),
    ({"$timerange": [1, 2]}, GOOD), ({"a": [1, 2, {"b": None}]}, GOOD), ({"键": "值"}, GOOD),
]
SOURCES = [("admin", BAD), ("", BAD), (1, BAD), ("USER", BAD), (None, BAD), (["user"], BAD),
           ("agent", GOOD), ("tool", GOOD), ("user", GOOD)]
LAYERS_ONE = [("working", BAD), ("long_term", BAD), (1, BAD), (None, BAD), ("", BAD), ("episodic", GOOD)]
CONTEXTS = [("\u200b\u200b", BAD), (5, BAD), ("x" * 65_536, BAD), ("   ", BAD), ("q\ud800", BAD), (["q"], BAD),
            (None, GOOD), ("", GOOD), ("What do you drink in the morning?", GOOD)]
MERGE = [("no", BAD), (1, BAD), ("false", BAD), (None, GOOD), (True, GOOD), (False, GOOD)]

WRITE_PARAMS = {
    "text": HOSTILE_TEXTS, "user_id": HOSTILE_IDS, "session_id": HOSTILE_IDS[:-4] + [(None, GOOD), ("s-1", GOOD)],
    "agent_id": HOSTILE_IDS[:-4] + [(None, GOOD), ("planner", GOOD)], "source": SOURCES, "event_type": EVENT_TYPES,
    "timestamp": TIMESTAMPS, "confidence": CONFIDENCES, "entities": ENTITIES, "metadata": METADATA,
    "force": FLAGS, "layer": LAYERS_ONE, "merge_duplicates": MERGE, "context": CONTEXTS,
}

KS = [(0, BAD), (-1, BAD), (-(10 ** 9), BAD), ("5", BAD), (2.5, BAD), (5.0, BAD), (10 ** 9, BAD), (True, BAD),
      (None, BAD), (float("nan"), BAD), (float("inf"), BAD), ([5], BAD), (1, GOOD), (5, GOOD), (50, GOOD)]
TIME_RANGES = [
    ("last_fortnight", BAD), (5, BAD), ([1, 2], BAD), ({"$timerange": [1, 2]}, BAD), ((1, 2), BAD),
    (("2026-03-10", "2026-03-01"), BAD), (("yesterday", None), BAD), (("9999-12-31", "9999-12-31"), BAD),
    ("last_99999999999999_years", BAD), ((float("nan"), None), BAD), ((None, None, None), BAD), ({"a"}, BAD),
    ("2026-13-01..", BAD), (("2026-03-01", "2026-03-01"), GOOD), (b"today", BAD),
    (None, GOOD), ("last_7_days", GOOD), ("today", GOOD), ("all", GOOD), (("2026-01-01", "2026-12-31"), GOOD),
    ((datetime(2026, 1, 1, tzinfo=UTC), None), GOOD), ("2026-01-01..", GOOD), ((None, date(2026, 3, 1)), GOOD),
]
LAYER_LISTS = [(["long_term"], BAD), ("episodic", BAD), ([1], BAD), (5, BAD), ({"episodic": 1}, BAD),
               ([None], BAD), (["working"], EITHER), (None, GOOD), (["episodic"], GOOD),
               (("semantic", "episodic"), GOOD)]
EVENT_TYPE_LISTS = [("fact", BAD), ([1], BAD), ([""], BAD), (5, BAD), ({"fact": 1}, BAD), ([None], BAD),
                    (None, GOOD), (["fact"], GOOD), (["fact", "preference"], GOOD), ([], EITHER)]
RECALL_PARAMS = {
    "query": HOSTILE_TEXTS, "user_id": HOSTILE_IDS, "k": KS, "time_range": TIME_RANGES, "layers": LAYER_LISTS,
    "event_types": EVENT_TYPE_LISTS, "session_id": HOSTILE_IDS[:-4] + [(None, GOOD)],
    "agent_id": HOSTILE_IDS[:-4] + [(None, GOOD)], "reinforce": FLAGS,
    "where": [("metadata.a == 1", BAD), (5, BAD), (None, GOOD), (lambda record: True, GOOD)],
}
MEMORY_IDS = [(5, BAD), ("", BAD), ("not-a-uuid", BAD), (None, BAD), (["x"], BAD), ("x" * 100_000, BAD),
              ("\ud800", BAD), (str(uuid.uuid4()), BAD)]


def short(value: object, size: int = 40) -> str:
    """A value's repr for a call's name, cut short (and safe on values whose repr recurses or raises)."""
    try:
        return repr(value)[:size]
    except Exception:  # noqa: BLE001
        return f"<{type(value).__name__}>"


def add(calls: list, name: str, label: str, fn) -> None:
    calls.append((name, label, fn))


def api_calls(memory: Hindsight, known_id: str) -> list:
    """Every hand-picked API call: one parameter varied at a time, the rest good."""
    calls: list = []

    for param, values in WRITE_PARAMS.items():
        for i, (value, label) in enumerate(values):
            def write(value=value, param=param):
                args = {"user_id": "u", "force": True, param: value}
                text = args.pop("text", GOOD_TEXT)
                return memory.write(text, **args)

            def write_many(value=value, param=param):
                args = {"user_id": "u", "force": True, param: value}
                text = args.pop("text", "Second good memory about Orion.")
                return memory.write_many([GOOD_TEXT, text], **args)

            def awrite(value=value, param=param):
                args = {"user_id": "u", "force": True, param: value}
                text = args.pop("text", GOOD_TEXT)
                return asyncio.run(memory.awrite(text, **args))

            for how, fn in (("write", write), ("write_many", write_many), ("awrite", awrite)):
                add(calls, f"{how}.{param}[{i}]={short(value)}", label, fn)

    per_text = {"timestamps": TIMESTAMPS, "sources": SOURCES, "metadatas": METADATA, "contexts": CONTEXTS}
    for param, values in per_text.items():
        for i, (value, label) in enumerate(values):
            add(calls, f"write_many.{param}[{i}]", label, lambda value=value, param=param: memory.write_many(
                [GOOD_TEXT, "Second good memory about Orion."], user_id="u", force=True, **{param: [None, value]}
                if param != "sources" else {param: ["user", value]}))
        for shape, label in (("short", BAD), ("str", BAD), ("int", BAD), ("dict", BAD)):
            bad_shape = {"short": [None], "str": "ab", "int": 5, "dict": {0: None, 1: None}}[shape]
            add(calls, f"write_many.{param}-{shape}", label, lambda bad_shape=bad_shape, param=param: memory.write_many(
                [GOOD_TEXT, "Second good memory about Orion."], user_id="u", force=True, **{param: bad_shape}))
    for i, (texts, label) in enumerate([
            ("one string", BAD), (5, BAD), (None, BAD), ((t for t in [GOOD_TEXT]), BAD), ({"a": GOOD_TEXT}, BAD),
            ([GOOD_TEXT, None], BAD), ([GOOD_TEXT] * 100_001, BAD), ([GOOD_TEXT, ""], BAD), ({GOOD_TEXT}, BAD),
            ([], EITHER), ((GOOD_TEXT,), GOOD)]):
        add(calls, f"write_many.texts[{i}]", label,
            lambda texts=texts: memory.write_many(texts, user_id="u", force=True))
    for name, kwargs in (("unknown-kw", {"colour": "blue"}), ("user-kw-typo", {"userid": "u"}),
                         ("positional-user", None)):
        fn = (lambda kwargs=kwargs: memory.write(GOOD_TEXT, user_id="u", **kwargs)) if kwargs else \
            (lambda: memory.write(GOOD_TEXT, "u"))  # type: ignore[misc]
        add(calls, f"write.{name}", BAD, fn)

    for param, values in RECALL_PARAMS.items():
        for i, (value, label) in enumerate(values):
            def recall(value=value, param=param):
                args = {"user_id": "u", param: value}
                query = args.pop("query", "Orion receipts")
                return memory.recall(query, **args)

            add(calls, f"recall.{param}[{i}]={short(value)}", label, recall)
            add(calls, f"arecall.{param}[{i}]", label, lambda value=value, param=param: asyncio.run(memory.arecall(
                **{"query": "Orion receipts", "user_id": "u", **{param: value}})))

    forget_targets = [({"about": v}, lab if lab == BAD else GOOD) for v, lab in HOSTILE_TEXTS[:-7]] + [
        ({"memory_id": v}, lab) for v, lab in MEMORY_IDS] + [
        ({}, BAD), ({"about": "Orion", "everything": True}, BAD), ({"memory_id": known_id, "about": "x"}, BAD),
        ({"about": "Orion", "dry_run": True}, GOOD), ({"memory_id": known_id, "dry_run": True}, GOOD)]
    for i, (target, label) in enumerate(forget_targets):
        add(calls, f"forget.target[{i}]={short(target)}", label,
            lambda target=target: memory.forget(user_id="u", **({"dry_run": True} | target)))
    for flag in ("everything", "dry_run", "for_good"):
        for i, (value, label) in enumerate(FLAGS):
            target = {"everything": value, "dry_run": True} if flag == "everything" else \
                {"about": "nothing of the sort", flag: value} if flag == "for_good" else {"about": "Orion", flag: value}
            if flag == "everything" and value is False:
                label = BAD  # then no target is named
            add(calls, f"forget.{flag}[{i}]={short(value)}", label,
                lambda target=target: memory.forget(user_id="u", **target))
    for i, (value, label) in enumerate(HOSTILE_IDS):
        add(calls, f"forget.user_id[{i}]", label, lambda value=value: memory.forget(user_id=value, about="x",
                                                                                   dry_run=True))

    add(calls, "get.memory_id-known", GOOD, lambda: memory.get(
        memory.write("A memory to get back by its id.", user_id="u", force=True).record.id, user_id="u"))
    for i, (value, label) in enumerate(MEMORY_IDS + [(known_id, EITHER)]):  # known_id may be forgotten by then
        add(calls, f"get.memory_id[{i}]", label, lambda value=value: memory.get(value, user_id="u"))
        add(calls, f"release.memory_id[{i}]", BAD, lambda value=value: memory.release(user_id="u", memory_id=value))
    for i, (value, label) in enumerate(HOSTILE_IDS):
        add(calls, f"get.user_id[{i}]", BAD, lambda value=value: memory.get(known_id, user_id=value))
        add(calls, f"memories.user_id[{i}]", label, lambda value=value: memory.memories(user_id=value))
        add(calls, f"unreadable.user_id[{i}]", label, lambda value=value: memory.unreadable(user_id=value))
        add(calls, f"consolidate.user_id[{i}]", label, lambda value=value: memory.consolidate(user_id=value,
                                                                                             dry_run=True))
    for i, (value, label) in enumerate(FLAGS):
        add(calls, f"memories.include_inactive[{i}]", label,
            lambda value=value: memory.memories(user_id="u", include_inactive=value))
        add(calls, f"consolidate.dry_run[{i}]", label if value is not False else GOOD,
            lambda value=value: memory.consolidate(user_id="u", dry_run=value))
    for i, (value, label) in enumerate(HOSTILE_IDS[:-4] + [(None, GOOD), ("planner", GOOD)]):
        add(calls, f"memories.agent_id[{i}]", label, lambda value=value: memory.memories(user_id="u", agent_id=value))
    finds = [(m, lab) for m, lab in METADATA if m is not None and m != {}] + [
        (None, BAD), ({}, EITHER), ({"a": [1, 2]}, GOOD), ({"channel": None}, GOOD), ({"": 1}, EITHER)]
    for i, (value, label) in enumerate(finds):
        if isinstance(value, dict) and "a" in value and isinstance(value["a"], str) and len(value["a"]) > 10_000:
            label = EITHER  # a long value to look for is a question, not something stored
        add(calls, f"find.metadata[{i}]={short(value)}", label, lambda value=value: memory.find(user_id="u",
                                                                                              metadata=value))

    USERS = [("alice", BAD), ([1], BAD), (["*"], BAD), (5, BAD), ([None], BAD), ("u", BAD), (None, GOOD),
             (["u"], GOOD), ([], EITHER), (("u",), GOOD)]
    for i, (value, label) in enumerate(USERS):
        add(calls, f"stats.users[{i}]={short(value)}", label, lambda value=value: memory.stats(users=value))
        add(calls, f"export.users[{i}]={short(value)}", label,
            lambda value=value: memory.export_jsonl(io.StringIO(), users=value))

    class Closed(io.StringIO):
        pass

    closed = Closed()
    closed.close()
    OUTS = [(None, BAD), ("/tmp/export.jsonl", BAD), (io.BytesIO(), BAD), (closed, BAD), (5, BAD),
            (io.StringIO(), GOOD)]
    for i, (value, label) in enumerate(OUTS):
        add(calls, f"export.out[{i}]={type(value).__name__}", label,
            lambda value=value: memory.export_jsonl(value, users=["u"]))
    for flag in ("vectors", "include_archive"):
        for i, (value, label) in enumerate(FLAGS):
            add(calls, f"export.{flag}[{i}]={short(value)}", label,
                lambda value=value, flag=flag: memory.export_jsonl(io.StringIO(), users=["u"], **{flag: value}))

    header = json.dumps({"format": "hindsight-export", "version": 1, "vectors": False})
    record = {"id": str(uuid.uuid4()), "user_id": "imported", "summary": "s", "raw_content": GOOD_TEXT,
              "timestamp": "2026-03-15T09:00:00+00:00", "layer": "episodic", "event_type": "fact",
              "confidence": 0.8, "source": "user", "status": "active", "embedding_model": FakeEmbedder().name,
              "entities": [], "metadata": {}}

    def rec(**changes) -> str:
        return json.dumps({"record": {**record, "id": str(uuid.uuid4()), **changes}})

    IMPORTS = [
        ("one string", BAD), (None, BAD), (5, BAD), ([b"\xff\xfe"], BAD), ([header, rec(confidence=5)], BAD),
        ([header, rec(timestamp="yesterday")], BAD), ([header, rec(user_id="*")], BAD),
        ([header, rec(raw_content="\u200b")], BAD), ([header, rec(id="m1")], BAD), ([header, "[1, 2]"], BAD),
        ([header, json.dumps({"record": record, "vector": [float("nan")] * FakeEmbedder().dimension})], BAD),
        ([header, rec(metadata={"a": "x" * 20_000})], BAD), ([header, rec(layer="long_term")], BAD),
        ([header, rec(raw_content="x\ud800")], BAD), ([header, rec(entities="Orion")], BAD),
        ([header, rec(event_type=5)], BAD), ([header, rec(timestamp="2026-03-15T09:00:00")], BAD),
        ([header, rec(confidence=float("nan"))], BAD), ([header, rec(last_accessed="soon")], BAD),
        ([header, rec(decay_rate="fast")], BAD), ([header, rec(metadata=[1])], BAD),
        ([header, rec(embedding_model=5)], BAD), ([header, rec(session_id="*")], BAD),
        ([header, rec(context=5)], BAD), ([header, rec(derived_from="abc")], BAD),
        ([json.dumps({"format": "hindsight-export", "version": "1"})], BAD),
        ([json.dumps({"format": "hindsight-export", "version": 99})], BAD), ([], BAD), (["", "  "], BAD),
        ([header, rec()], GOOD), ([header], EITHER), ((line for line in [header, rec()]), GOOD),
    ]
    for i, (value, label) in enumerate(IMPORTS):
        add(calls, f"import.lines[{i}]={short(value)}", label, lambda value=value: memory.import_jsonl(value))
    return calls


@pytest.fixture
def api_memory(clock, tmp_path):
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder(), clock=clock) as memory:
        yield memory


def finish(tally: Tally, capsys=None) -> None:
    TALLIES[tally.face] = tally
    print("\n" + tally.report())
    assert tally.outcomes["traceback"] == 0, tally.report()
    assert tally.outcomes["silent"] <= 0.01 * tally.calls, tally.report()


def test_the_python_api(api_memory):
    tally = Tally("api")
    known = api_memory.write(GOOD_TEXT, user_id="u", force=True).record.id
    for name, label, fn in api_calls(api_memory, known):
        tally.judge(name, label, fn)

    @FAST
    @given(st.text(alphabet=st.characters(codec=None, categories=["L", "M", "N", "P", "S", "Z", "Cc", "Cf", "Cs"]),
                   max_size=40))
    def arbitrary_text(text):
        tally.judge(f"write.text={short(text)}", text_label(text), lambda: api_memory.write(text, user_id="h", force=True))
        tally.judge(f"recall.query={short(text)}", text_label(text), lambda: api_memory.recall(text, user_id="h"))

    @FAST
    @given(st.one_of(st.integers(-10 ** 12, 10 ** 12), st.floats(), st.booleans(), st.none(), st.text(max_size=5)))
    def arbitrary_k(k):
        label = GOOD if isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= 1000 else BAD
        tally.judge(f"recall.k={short(k)}", label, lambda: api_memory.recall("Orion", user_id="u", k=k))

    json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8))
    json_value = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.one_of(st.text(max_size=4), st.integers()), inner, max_size=3), max_leaves=8)

    def metadata_label(value) -> str:
        if value is None:
            return GOOD  # no metadata
        stack, ok = [(value, 1)], isinstance(value, dict)
        while stack and ok:
            item, level = stack.pop()
            if level > 4:  # Limits.max_metadata_depth: the mapping is level 1, its values level 2
                ok = False
            elif isinstance(item, dict):
                ok = all(isinstance(key, str) for key in item)
                stack.extend((inner, level + 1) for inner in item.values())
            elif isinstance(item, list):
                stack.extend((inner, level + 1) for inner in item)
            elif isinstance(item, float):
                ok = math.isfinite(item)
        return GOOD if ok else BAD

    @FAST
    @given(json_value)
    def arbitrary_metadata(value):
        tally.judge(f"write.metadata={short(value)}", metadata_label(value),
                    lambda: api_memory.write(GOOD_TEXT, user_id="m", force=True, metadata=value))
        tally.judge(f"find.metadata={short(value)}", EITHER if metadata_label(value) == GOOD else BAD,
                    lambda: api_memory.find(user_id="m", metadata=value))

    @FAST
    @given(st.datetimes(timezones=st.one_of(st.none(), st.timezones())))
    def arbitrary_timestamp(moment):
        tally.judge(f"write.timestamp={short(moment)}", GOOD if moment.tzinfo is not None else BAD,
                    lambda: api_memory.write(GOOD_TEXT, user_id="t", force=True, timestamp=moment))

    for run in (arbitrary_text, arbitrary_k, arbitrary_metadata, arbitrary_timestamp):
        run()
    finish(tally)


# -- the client of `hindsight serve` ---------------------------------------------------------------------
def test_the_client(clock, tmp_path, monkeypatch):
    """The same hand-picked and generated calls as the Python API, through `HindsightClient` and a live
    `hindsight serve`: the client refuses what the facade refuses, with the same `HindsightError` subclass."""
    from hindsight_core import HindsightClient

    from ..mcp._process import HINDSIGHT, free_port, running, server_env

    monkeypatch.setenv("HINDSIGHT_HOME", str(tmp_path / "client-home"))  # the client's journal stays in here
    tally = Tally("client")
    home, port = tmp_path / "served", free_port()
    home.mkdir()
    env = server_env(home, HINDSIGHT_EMBEDDING_MODEL="fake-hash-embedder")
    with running([*HINDSIGHT, "serve", "--port", str(port)], env, port, home / "serve.log"), \
            HindsightClient(f"http://127.0.0.1:{port}", queue_journal=False) as client:
        known = client.write(GOOD_TEXT, user_id="u", force=True).record.id
        for name, label, fn in api_calls(client, known):
            tally.judge(name, label, fn)

        @FAST
        @given(st.text(alphabet=st.characters(codec=None, categories=["L", "M", "N", "P", "S", "Z", "Cc", "Cf"]),
                       max_size=40))
        def arbitrary_text(text):
            tally.judge(f"write.text={short(text)}", text_label(text),
                        lambda: client.write(text, user_id="h", force=True))
            tally.judge(f"recall.query={short(text)}", text_label(text), lambda: client.recall(text, user_id="h"))

        @FAST
        @given(st.one_of(st.integers(-10 ** 12, 10 ** 12), st.floats(), st.booleans(), st.none(), st.text(max_size=5)))
        def arbitrary_k(k):
            label = GOOD if isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= 1000 else BAD
            tally.judge(f"recall.k={short(k)}", label, lambda: client.recall("Orion", user_id="u", k=k))

        @FAST
        @given(st.datetimes(timezones=st.one_of(st.none(), st.timezones())))
        def arbitrary_timestamp(moment):
            tally.judge(f"write.timestamp={short(moment)}", GOOD if moment.tzinfo is not None else BAD,
                        lambda: client.write(GOOD_TEXT, user_id="t", force=True, timestamp=moment))

        for run in (arbitrary_text, arbitrary_k, arbitrary_timestamp):
            run()
    finish(tally)


# -- the command line ------------------------------------------------------------------------------------
CLI_ENV = ("HINDSIGHT_HOME", "HINDSIGHT_STORE", "HINDSIGHT_QDRANT_URL", "HINDSIGHT_QDRANT_API_KEY",
           "HINDSIGHT_REDIS_URL", "HINDSIGHT_EMBEDDING_MODEL", "HINDSIGHT_USER_ID", "HINDSIGHT_MAX_TEXT_BYTES")


def cli_judge(tally: Tally, home: Path, name: str, label: str, args: list[str]) -> None:
    from click.testing import CliRunner

    from hindsight_core.cli import main

    env = {variable: None for variable in CLI_ENV}
    env.update(HINDSIGHT_HOME=str(home), HINDSIGHT_EMBEDDING_MODEL="fake-hash-embedder")
    result = CliRunner().invoke(main, args, env=env, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        tally.score(name, label, "traceback", f"{type(result.exception).__name__}: {result.exception}")
    elif result.exit_code == 0:
        tally.score(name, label, "accepted", result.output[:120])
    elif "Error" in result.output and "Traceback" not in result.output:
        tally.score(name, label, "refused", result.output.strip().splitlines()[-1][:160])
    else:
        tally.score(name, label, "traceback", f"exit {result.exit_code} without a message: {result.output[:160]}")


def cli_calls(home: Path, tmp: Path) -> list:
    calls: list = []
    texts = [(t, lab) for t, lab in HOSTILE_TEXTS if isinstance(t, str)]
    ids = [(v, lab) for v, lab in HOSTILE_IDS if isinstance(v, str)]
    for i, (text, label) in enumerate(texts):
        calls.append((f"remember.text[{i}]", label, ["remember", "-u", "alice", "--force", "--", text]))
        calls.append((f"recall.query[{i}]", label, ["recall", "-u", "alice", "--", text]))
        calls.append((f"forget.about[{i}]", label, ["forget", "-u", "alice", "--dry-run", "--about", text]))
    for i, (value, label) in enumerate(ids):
        calls.append((f"remember.user[{i}]", label, ["remember", "-u", value, "--force", GOOD_TEXT]))
        calls.append((f"remember.session[{i}]", label, ["remember", "-u", "alice", "--session-id", value, GOOD_TEXT]))
        calls.append((f"recall.user[{i}]", label, ["recall", "-u", value, "Orion"]))
        calls.append((f"stats.user[{i}]", label, ["stats", "-u", value]))
        calls.append((f"export.user[{i}]", label, ["export", "-u", value, str(tmp / f"user-{i}.jsonl")]))
        calls.append((f"forget.user[{i}]", label, ["forget", "-u", value, "--about", "Orion", "--dry-run"]))
        calls.append((f"forget.id[{i}]", BAD, ["forget", "-u", "alice", "--id", value]))
    for i, (value, label) in enumerate([(v, lab) for v, lab in EVENT_TYPES if isinstance(v, str)]):
        calls.append((f"remember.event_type[{i}]", label, ["remember", "-u", "alice", "--event-type", value,
                                                           GOOD_TEXT]))
    for i, value in enumerate(["admin", "", "USER", "user ", "system"]):
        calls.append((f"remember.source[{i}]", GOOD if value == "system" else BAD,
                      ["remember", "-u", "alice", "--source", value, GOOD_TEXT]))
    for i, (k, label) in enumerate([("0", BAD), ("-1", BAD), ("abc", BAD), ("1e3", BAD), ("2.5", BAD), ("nan", BAD),
                                    ("1001", BAD), ("", BAD), ("99999999999999999999", BAD), ("3", GOOD)]):
        calls.append((f"recall.k[{i}]", label, ["recall", "-u", "alice", "-k", k, "Orion"]))
    for i, (value, label) in enumerate([(v, lab) for v, lab in TIME_RANGES if isinstance(v, str)] + [
            ("2026-03-10..2026-03-01", BAD), ("..", GOOD), ("9999-12-31..9999-12-31", BAD), ("yesterday..", BAD)]):
        calls.append((f"recall.time_range[{i}]", label, ["recall", "-u", "alice", "--time-range", value, "Orion"]))
    for i, (days, label) in enumerate([("nan", BAD), ("inf", BAD), ("1e308", BAD), ("-1", BAD), ("ninety", BAD),
                                       ("30", GOOD)]):
        calls.append((f"archive.days[{i}]", label, ["archive", "--dry-run", "--older-than", days]))
    for i, (value, label) in enumerate([("0", BAD), ("-1", BAD), ("abc", BAD), ("", BAD), ("100000", GOOD)]):
        calls.append((f"max_text_bytes[{i}]", label, ["--max-text-bytes", value, "recall", "-u", "alice", "Orion"]))
    typo = str(tmp / "stroe")
    for i, command in enumerate([["recall", "-u", "alice", "Orion"], ["stats"], ["stats", "--json"], ["export", "-"],
                                 ["export", str(tmp / "typo.jsonl")], ["forget", "-u", "alice", "--about", "Orion"],
                                 ["archive", "--dry-run"], ["migrate", "--abort"],
                                 ["recall", "-u", "alice", "--json", "Orion"]]):
        calls.append((f"typo-store[{i}]", BAD, ["--store", typo, *command]))
    for i, (target, label) in enumerate([("/dev/full", BAD), (str(tmp / "no" / "such" / "dir.jsonl"), BAD),
                                         (str(tmp), BAD), ("/proc/version", BAD), (str(tmp / "ok.jsonl"), GOOD)]):
        calls.append((f"export.file[{i}]", label, ["export", target]))
    header = json.dumps({"format": "hindsight-export", "version": 1, "vectors": False})
    record = {"id": str(uuid.uuid4()), "user_id": "imported", "summary": "s", "raw_content": GOOD_TEXT,
              "timestamp": "2026-03-15T09:00:00+00:00", "layer": "episodic", "event_type": "fact",
              "confidence": 0.8, "source": "user", "status": "active", "embedding_model": FakeEmbedder().name,
              "entities": [], "metadata": {}}
    files = {
        "not-json": ("hello\n", BAD), "empty": ("", BAD), "header-only": (header + "\n", EITHER),
        "binary": (b"\xff\xfe\x00garbage", BAD), "bad-302": (header + "\n" + "\n".join(
            json.dumps({"record": {**record, "id": str(uuid.uuid4())}}) for _ in range(300)) + "\n{\"record\": 1}\n",
            BAD), "deep": (header + "\n" + "[" * 100_000 + "]" * 100_000 + "\n", BAD),
        "nan-confidence": (header + "\n" + json.dumps({"record": {**record, "confidence": float("nan")}}) + "\n", BAD),
        "good": (header + "\n" + json.dumps({"record": record}) + "\n", GOOD),
    }
    for name, (content, label) in files.items():
        path = tmp / f"{name}.jsonl"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        calls.append((f"import.{name}", label, ["import", str(path)]))
    calls.append(("import.missing", BAD, ["import", str(tmp / "missing.jsonl")]))
    calls.append(("import.folder", BAD, ["import", str(tmp)]))
    return calls


def test_the_command_line(tmp_path):
    tally = Tally("cli")
    home = tmp_path / "home"
    cli_judge(tally, home, "setup", GOOD, ["remember", "-u", "alice", "--force", GOOD_TEXT])
    for name, label, args in cli_calls(home, tmp_path):
        cli_judge(tally, home, name, label, args)

    words = st.text(alphabet=st.characters(codec=None, categories=["L", "N", "P", "S", "Z", "Cc", "Cf"]), max_size=30)

    @settings(FAST, max_examples=300)
    @given(words)
    def arbitrary_text(text):
        cli_judge(tally, home, f"remember={short(text)}", text_label(text),
                  ["remember", "-u", "alice", "--force", "--", text])

    @settings(FAST, max_examples=300)
    @given(words)
    def arbitrary_query(text):
        cli_judge(tally, home, f"recall={short(text)}", text_label(text), ["recall", "-u", "alice", "--", text])

    @settings(FAST, max_examples=360)
    @given(words)
    def arbitrary_user(user):
        cli_judge(tally, home, f"memories.user={short(user)}", EITHER, ["memories", "-u", user])

    @settings(FAST, max_examples=420)
    @given(st.one_of(st.integers(-10 ** 6, 10 ** 6).map(str), words))
    def arbitrary_k(k):
        label = GOOD if k.strip().lstrip("+").isdecimal() and k.isascii() and 1 <= int(k) <= 1000 else BAD
        cli_judge(tally, home, f"recall.k={short(k)}", EITHER if k != k.strip() else label,
                  ["recall", "-u", "alice", "-k", k, "Orion"])

    for run in (arbitrary_text, arbitrary_query, arbitrary_user, arbitrary_k):
        run()
    finish(tally)


# -- the MCP tools, as a model calls them --------------------------------------------------------------------
def json_cases(values: list) -> list:
    """The values a JSON caller can send (what cannot be encoded is left out)."""
    out = []
    for value, label in values:
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            continue
        if isinstance(value, str) and any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
            continue  # a JSON text is UTF-8: a lone surrogate cannot be sent
        out.append((value, label))
    return out


def mcp_calls() -> list:
    texts, ids = json_cases(HOSTILE_TEXTS), json_cases(HOSTILE_IDS)
    calls: list = []
    for i, (text, label) in enumerate(texts):
        calls.append((f"write.text[{i}]", label, "memory_write", {"what_to_remember": text}))
        calls.append((f"search.query[{i}]", label, "memory_search", {"what_am_i_looking_for": text}))
        calls.append((f"forget.topic[{i}]", label, "memory_forget", {"topic": text, "dry_run": True}))
    for i, (value, _) in enumerate(ids + [(None, GOOD), ("preference", GOOD), ("Preference", BAD)]):
        label = GOOD if value is None or value in KINDS else BAD  # a kind is one of the tool's choices
        calls.append((f"write.kind[{i}]", label, "memory_write", {"what_to_remember": GOOD_TEXT,
                                                                  "kind_of_memory": value}))
    for i, (value, label) in enumerate(json_cases(MEMORY_IDS) + [(None, BAD)]):
        calls.append((f"forget.id[{i}]", label, "memory_forget", {"memory_id": value}))
    for i, (k, label) in enumerate(json_cases(KS) + [(20, GOOD), (21, BAD)]):
        calls.append((f"search.k[{i}]", BAD if label == GOOD and k > 20 else label, "memory_search",
                      {"what_am_i_looking_for": "Orion", "how_many_results": k}))
    ranges = [("last_fortnight", BAD), (5, BAD), (None, BAD), ("", EITHER), (["today"], BAD), ("2026-01-01..", BAD),
              ("today", GOOD), ("any_time", GOOD), ("last_7_days", GOOD), ("TODAY", EITHER)]
    for i, (value, label) in enumerate(ranges):
        calls.append((f"search.range[{i}]", label, "memory_search",
                      {"what_am_i_looking_for": "Orion", "time_range": value}))
    for i, (value, label) in enumerate(json_cases(FLAGS) + [("true", BAD), ("no", BAD)]):
        calls.append((f"forget.dry_run[{i}]", label if value is not False else GOOD, "memory_forget",
                      {"topic": "nothing like it at all", "dry_run": value}))
        calls.append((f"summarize.dry_run[{i}]", label if value is not False else GOOD, "memory_summarize",
                      {"dry_run": value}))
    for tool, base in (("memory_write", {"what_to_remember": GOOD_TEXT}),
                       ("memory_search", {"what_am_i_looking_for": "Orion"}),
                       ("memory_stats", {}), ("memory_summarize", {"dry_run": True})):
        for i, extra in enumerate([{"user_id": "bob"}, {"source": "user"}, {"k": 5}, {"": 1}]):
            calls.append((f"{tool}.extra[{i}]", BAD, tool, {**base, **extra}))
    calls.append(("no-such-tool", BAD, "memory_delete_all", {}))
    calls.append(("forget.both", BAD, "memory_forget", {"topic": "Orion", "memory_id": str(uuid.uuid4())}))
    calls.append(("forget.neither", BAD, "memory_forget", {}))
    calls.append(("write.missing", BAD, "memory_write", {}))
    calls.append(("search.missing", BAD, "memory_search", {}))
    calls.append(("stats", GOOD, "memory_stats", {}))
    return calls


def test_the_mcp_tools(clock, tmp_path):
    pytest.importorskip("mcp")
    import anyio
    from mcp import Client

    from hindsight_core.mcp import UserScope, build_server

    from .hostile import Spy

    tally = Tally("mcp")
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder(), clock=clock) as memory:
        memory.write(GOOD_TEXT, user_id="alice", force=True)
        spy = Spy(memory)
        json_value = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                                            st.text(max_size=10)),
                                  lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                                      st.text(max_size=4), inner, max_size=3), max_leaves=6)
        tools = {"memory_write": ("what_to_remember", "kind_of_memory"), "memory_search": ("what_am_i_looking_for",
                                                                          "how_many_results", "time_range"),
                 "memory_forget": ("memory_id", "topic", "dry_run"), "memory_summarize": ("dry_run",)}
        random_calls: list = []

        @settings(FAST, max_examples=1420)
        @given(st.sampled_from(sorted(tools)), st.data())
        def arbitrary_arguments(tool, data):
            names = tools[tool]
            chosen = data.draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
            args = {name: data.draw(json_value) for name in chosen}
            if tool == "memory_forget":
                args["dry_run"] = True  # only the arguments vary: nothing is erased by a random call
            random_calls.append((f"random {tool}", EITHER, tool, args))

        arbitrary_arguments()

        async def run_all():
            async with Client(build_server(spy, UserScope(user_id="alice"))) as client:
                for name, label, tool, arguments in mcp_calls() + random_calls:
                    before = len(spy.escaped)
                    try:
                        result = await client.call_tool(tool, arguments)
                    except Exception as exc:  # noqa: BLE001 - a protocol error is not a crash if it says why
                        message = str(exc)
                        tally.score(name, label, "refused" if message.strip() else "traceback",
                                    f"{type(exc).__name__}: {message}")
                        continue
                    text = " ".join(getattr(c, "text", "") for c in result.content)
                    if len(spy.escaped) > before:
                        tally.score(name, label, "traceback", spy.escaped[-1])
                    elif result.is_error:
                        tally.score(name, label, "refused" if text.strip() and "Traceback" not in text
                                    else "traceback", text[:200])
                    else:
                        tally.score(name, label, "accepted", text[:120])

        crashes = CrashLog()
        logging.getLogger("mcp").addHandler(crashes)
        try:
            anyio.run(run_all)
        finally:
            logging.getLogger("mcp").removeHandler(crashes)
    for crash in crashes.records:  # a tool that raised something other than a tool error: mcp logged its traceback
        tally.score("tool crash", EITHER, "traceback", crash)
    finish(tally)


class CrashLog(logging.Handler):
    """Keeps every log record that carries a traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.records.append(f"{record.getMessage()}: {record.exc_info[1]!r}"[:200])


# -- the HTTP API of `hindsight serve`, in process -----------------------------------------------------------
def dated(value: object) -> bool:
    """Whether `value` is, or is a pair holding, a date (the wire tags them)."""
    return isinstance(value, (datetime, date)) or isinstance(value, tuple) and any(
        isinstance(v, (datetime, date)) for v in value)


def sent_as_is(value: object) -> bool:
    """Whether JSON carries `value` unchanged (tuples as lists)."""
    def plain(v: object) -> object:
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        return v

    try:
        return json.loads(json.dumps(value)) == plain(value) or value != value  # noqa: PLR0124 - NaN
    except (TypeError, ValueError, RecursionError):
        return False


def wire_cases(values: list) -> list:
    """The values an HTTP caller can send, in the wire's form (datetimes tagged); NaN travels as JSON's NaN."""
    from hindsight_core.remote import wire

    out = []
    for value, label in values:
        if callable(value):
            continue
        try:
            sent = wire.value_out(value)
            json.dumps(sent)
        except (TypeError, ValueError, RecursionError):
            continue
        if not (dated(value) or sent_as_is(value)):
            continue  # JSON would change it (an int key becomes a string, a set a list): not what was meant
        if isinstance(value, dict) and any(str(key).startswith("$") for key in value):
            label = EITHER  # "$datetime", "$timerange": the wire's tags, read as such
        if isinstance(sent, str) and any(0xD800 <= ord(ch) <= 0xDFFF for ch in sent):
            continue
        out.append((sent, label))
    return out


def http_calls() -> list:
    calls: list = []
    for param, values in WRITE_PARAMS.items():
        for i, (value, label) in enumerate(wire_cases(values)):
            body = {"text": GOOD_TEXT, "user_id": "u", "force": True, param: value}
            calls.append((f"write.{param}[{i}]", label, "write", body))
            many = {"texts": [GOOD_TEXT, "Second good memory about Orion."], "user_id": "u", "force": True}
            if param != "text":
                calls.append((f"write_many.{param}[{i}]", label, "write_many", {**many, param: value}))
    for param, values in RECALL_PARAMS.items():
        if param == "where":
            continue
        for i, (value, label) in enumerate(wire_cases(values)):
            if param == "time_range" and isinstance(value, list) and label == BAD and len(value) == 2 and all(
                    isinstance(v, str) or v is None for v in value) and value != ["2026-03-10", "2026-03-01"]:
                label = EITHER  # on the wire a pair is a list
            body = {"query": "Orion receipts", "user_id": "u", param: value}
            calls.append((f"recall.{param}[{i}]", label, "recall", body))
    for i, (value, label) in enumerate([({"$timerange": [1, 2]}, BAD), ({"$timerange": None}, BAD),
                                        ({"$timerange": [{"$datetime": "soon"}, None]}, BAD),
                                        ({"$timerange": [{"$datetime": "2026-03-02T00:00:00+00:00"},
                                                         {"$datetime": "2026-03-01T00:00:00+00:00"}]}, BAD),
                                        ({"$datetime": "2026-03-01T00:00:00+00:00"}, BAD), ({"$date": 5}, BAD),
                                        ({"$timerange": [None, {"$datetime": "2026-03-01T00:00:00+00:00"}]}, GOOD)]):
        calls.append((f"recall.tagged_range[{i}]", label, "recall", {"query": "Orion", "user_id": "u",
                                                                       "time_range": value}))
        calls.append((f"write.tagged_timestamp[{i}]", BAD if "$timerange" in value or "$date" in value else
                      GOOD if i == 4 else BAD, "write", {"text": GOOD_TEXT, "user_id": "u", "force": True,
                                                          "timestamp": value}))
    for i, (value, label) in enumerate(wire_cases(MEMORY_IDS)):
        calls.append((f"get.memory_id[{i}]", label, "get", {"memory_id": value, "user_id": "u"}))
        calls.append((f"forget.memory_id[{i}]", label, "forget", {"memory_id": value, "user_id": "u"}))
        calls.append((f"release.memory_id[{i}]", label, "release", {"memory_id": value, "user_id": "u"}))
    for i, (value, label) in enumerate(wire_cases(FLAGS)):
        calls.append((f"forget.dry_run[{i}]", label if value is not False else GOOD, "forget",
                      {"about": "nothing like it at all", "dry_run": value, "user_id": "u"}))
        calls.append((f"memories.include_inactive[{i}]", label, "memories", {"include_inactive": value,
                                                                             "user_id": "u"}))
        calls.append((f"consolidate.dry_run[{i}]", label if value is not False else GOOD, "consolidate",
                      {"dry_run": value, "user_id": "u"}))
        calls.append((f"export.vectors[{i}]", label, "export_jsonl", {"vectors": value, "users": ["u"]}))
        calls.append((f"export.include_archive[{i}]", label, "export_jsonl", {"include_archive": value,
                                                                               "users": ["u"]}))
        calls.append((f"consent.given[{i}]", label, "recall_log_consent", {"given": value, "user_id": "c"}))
    for i, (value, label) in enumerate(wire_cases(HOSTILE_IDS)):
        for op in ("memories", "unreadable", "consolidate", "recall_log"):
            calls.append((f"{op}.user_id[{i}]", label, op, {"user_id": value}))
    for i, (value, label) in enumerate(wire_cases(METADATA) + [(None, BAD)]):
        if value in ({}, None) and label == GOOD:
            continue
        calls.append((f"find.metadata[{i}]", label, "find", {"metadata": value, "user_id": "u"}))
    for i, (value, label) in enumerate([("alice", BAD), ([1], BAD), (["*"], BAD), (5, BAD), ([None], BAD),
                                        ({"u": 1}, BAD), (None, GOOD), (["u"], GOOD)]):
        calls.append((f"stats.users[{i}]", label, "stats", {"users": value}))
        calls.append((f"export.users[{i}]", label, "export_jsonl", {"users": value}))
    header = json.dumps({"format": "hindsight-export", "version": 1, "vectors": False})
    for i, (value, label) in enumerate([("one string", BAD), (None, BAD), (5, BAD), ([1, 2], BAD),
                                        ([header, "not json"], BAD), ([header, '{"record": 5}'], BAD), ([], BAD)]):
        calls.append((f"import.lines[{i}]", label, "import_jsonl", {"lines": value}))
    for name, body in (("unknown-arg", {"text": GOOD_TEXT, "user_id": "u", "colour": "blue"}),
                       ("no-text", {"user_id": "u"}), ("no-user", {"text": GOOD_TEXT}),
                       ("texts-str", {"texts": "abc", "user_id": "u"})):
        calls.append((f"write.{name}", BAD, "write_many" if "texts" in body else "write", body))
    return calls


def test_the_http_api(clock, tmp_path):
    from starlette.testclient import TestClient

    from hindsight_core.remote.recall_log import RecallLog
    from hindsight_core.remote.service import Access, build_app

    from .hostile import Spy

    tally = Tally("http")
    port = 8765
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder(), clock=clock) as memory:
        memory.write(GOOD_TEXT, user_id="u", force=True)
        spy = Spy(memory)
        app = build_app(spy, port=port, access=Access(), log=RecallLog(clock=clock))
        with TestClient(app, base_url=f"http://127.0.0.1:{port}", raise_server_exceptions=False) as client:
            def send(name: str, label: str, operation: str, body: object, raw: bytes | None = None) -> None:
                before = len(spy.escaped)
                content = raw if raw is not None else json.dumps(body).encode()
                answer = client.post(f"/api/v1/{operation}", content=content,
                                     headers={"content-type": "application/json"})
                if len(spy.escaped) > before:
                    tally.score(name, label, "traceback", spy.escaped[-1])
                elif answer.status_code >= 500:
                    tally.score(name, label, "traceback", f"{answer.status_code}: {answer.text[:160]}")
                elif answer.status_code == 200:
                    tally.score(name, label, "accepted", answer.text[:100])
                else:
                    try:
                        message = answer.json()["error"]["message"]
                    except (ValueError, KeyError, TypeError):
                        message = ""
                    tally.score(name, label, "refused" if message.strip() else "traceback",
                                f"{answer.status_code}: {message or answer.text[:100]}")

            for name, label, operation, body in http_calls():
                send(name, label, operation, body)
            for name, raw in (("not-json", b"{nope"), ("array", b"[1, 2]"), ("deep", b"[" * 100_000 + b"]" * 100_000),
                              ("not-utf8", b"\xff\xfe{}"), ("string", b'"write"'), ("nan", b"NaN")):
                send(f"body.{name}", BAD, "write", None, raw)
            send("no-such-operation", BAD, "drop_everything", {})

            json_value = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
                                                st.text(max_size=10)),
                                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                                          st.text(max_size=6), inner, max_size=3), max_leaves=6)
            fields = {"write": ("text", "timestamp", "metadata", "confidence", "entities", "event_type"),
                      "recall": ("query", "k", "time_range", "layers", "event_types"),
                      "find": ("metadata",), "forget": ("about", "memory_id"), "stats": ("users",)}

            @settings(FAST, max_examples=900)
            @given(st.sampled_from(sorted(fields)), st.data())
            def arbitrary_body(operation, data):
                names = fields[operation]
                chosen = data.draw(st.lists(st.sampled_from(names), unique=True, min_size=1, max_size=len(names)))
                body = {"user_id": "r", **{name: data.draw(json_value) for name in chosen}}
                if operation == "forget":
                    body["dry_run"] = True
                send(f"random {operation} {short(body, 80)}", EITHER, operation, body)

            arbitrary_body()
    finish(tally)


def test_every_face_takes_at_least_1500_calls():
    if len(TALLIES) < 5:
        pytest.skip("run the whole file: the count is per face, over the five faces")
    print("\n" + "\n".join(t.line() for t in TALLIES.values()))
    assert {face: tally.calls for face, tally in TALLIES.items() if tally.calls < 1500} == {}
