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
import math
import uuid
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hindsight_core import Hindsight
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
