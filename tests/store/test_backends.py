"""One behavioural suite for both storage backends, and congruence between them.

`EdgeStore` runs on real Qdrant Edge shards; `ServerStore` runs on
qdrant-client's local mode (`QdrantClient(":memory:")`), which implements the
same Query API as a server (prefetch, weighted RRF, formula). What a real
server adds (its own optimiser, payload indexes, several processes) is not
exercised here; see the README.
"""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from hindsight_core import Hindsight
from hindsight_core.config import DecayConfig, RecallConfig
from hindsight_core.errors import EmbedderMismatchError
from hindsight_core.recall import formula as f
from hindsight_core.recall import plan as recall_plan
from hindsight_core.store import ALL, EdgeStore, Scope, ServerStore
from hindsight_core.store import points as pts
from hindsight_core.store.base import ARCHIVE
from hindsight_core.contract.records import record_to_dict
from hindsight_core.testing import FakeEmbedder, FrozenClock
from hindsight_core.types import Layer, MemoryRecord, Status

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


def server_store():
    from qdrant_client import QdrantClient

    return ServerStore(client=QdrantClient(":memory:"))


@pytest.fixture(params=["edge", "server"])
def store(request, tmp_path):
    made = EdgeStore(tmp_path / "store") if request.param == "edge" else server_store()
    yield made
    made.close()


def record(text, *, user="alice", days=0, layer=Layer.EPISODIC, status=Status.ACTIVE, **fields):
    return MemoryRecord(id=str(uuid.uuid4()), user_id=user, summary=text, raw_content=text,
                        timestamp=T0 + timedelta(days=days), layer=layer, status=status,
                        embedding_model="fake-hash-embedder", **fields)


EMBED = FakeEmbedder()


def put(store, records, user="alice"):
    store.open_user(user, embedding_model=EMBED.name, dimension=EMBED.dimension, create=True)
    store.commit(user, upserts=list(zip(records, EMBED.embed([r.raw_content for r in records]))))


def test_records_round_trip_with_every_field(store):
    original = record("Project Orion uses the blue theme.", entities=["Orion"], metadata={"k": "v", "n": [1, 2]},
                      context="Which theme does Orion use?", confirmations=2)
    put(store, [original])
    [hit] = store.get("alice", [original.id], with_vectors=True)
    assert record_to_dict(hit.record) == record_to_dict(original)
    assert hit.vector.shape == (EMBED.dimension,)
    assert [h.record.id for h in store.scan("alice")] == [original.id]


def test_users_are_apart(store):
    put(store, [record("Alice's secret is 1234.")])
    put(store, [record("Bob likes tea.", user="bob")], user="bob")
    assert store.users() == ["alice", "bob"]
    assert all(h.record.user_id == "bob" for h in store.scan("bob"))
    assert store.get("bob", [h.record.id for h in store.scan("alice")]) == []
    store.drop_user("alice")
    assert store.users() == ["bob"] and list(store.scan("alice")) == []


def test_scope_filters(store):
    rows = [record("one", days=0), record("two", days=5, session_id="s1"), record("three", days=9, layer=Layer.SEMANTIC),
            record("four", days=3, status=Status.QUARANTINED), record("five", days=4, consolidated_into="x",
                                                                       event_type="preference")]
    put(store, rows)
    ids = lambda scope: sorted(h.record.summary for h in store.scan("alice", scope))
    assert ids(ALL) == ["five", "four", "one", "three", "two"]
    assert ids(Scope()) == ["five", "one", "three", "two"]  # active only
    assert ids(Scope(session_id="s1")) == ["two"]
    assert ids(Scope(layers=frozenset({Layer.SEMANTIC}))) == ["three"]
    assert ids(Scope(start=T0 + timedelta(days=4), end=T0 + timedelta(days=9))) == ["five", "two"]
    assert ids(Scope(unconsolidated=True)) == ["one", "three", "two"]
    assert ids(Scope(event_types=frozenset({"preference"}))) == ["five"]
    assert store.count("alice", Scope()) == 4


def test_metadata_lookup_uses_digests(store):
    rows = [record("a", metadata={"key": "k1", "ns": "x"}), record("b", metadata={"key": "k2", "ns": "x"})]
    put(store, rows)
    found = list(store.scan("alice", Scope(statuses=None, metadata={"key": "k2"})))
    assert [h.record.summary for h in found] == ["b"]


def test_commit_updates_and_deletes(store):
    a, b = record("a"), record("b")
    put(store, [a, b])
    store.commit("alice", updates=[(a.id, {"superseded_by": b.id, "confidence": 0.4})], deletes=[b.id])
    [hit] = list(store.scan("alice"))
    assert hit.record.superseded_by == b.id and hit.record.confidence == 0.4


def test_neighbours_are_cosine_ranked_with_a_floor(store):
    rows = [record("print the report in landscape"), record("print the invoice in landscape"), record("cats purr")]
    put(store, rows)
    [near] = store.neighbours("alice", EMBED.embed(["print the report in landscape"]), limit=5, min_score=0.3,
                              scope=Scope())
    assert [h.record.raw_content for h in near][:2] == ["print the report in landscape",
                                                       "print the invoice in landscape"]
    assert near[0].score == pytest.approx(1.0, abs=1e-5) and all(h.score >= 0.3 for h in near)
    assert "cats purr" not in [h.record.raw_content for h in near]


def test_overlapping_neighbour_lists_keep_each_querys_own_score(store):
    texts = ["print the report in landscape", "print the invoice in landscape", "print the memo in portrait"]
    put(store, [record(t) for t in texts])
    queries = EMBED.embed(["print the report in landscape", "print the memo in portrait"])
    lists = store.neighbours("alice", queries, limit=5, min_score=-1.0, scope=Scope())
    assert [len(found) for found in lists] == [3, 3]  # the same three points found by both queries
    for query, found in zip(queries, lists):
        for hit in found:
            assert hit.score == pytest.approx(float(hit.vector @ query), abs=1e-4)
        assert [h.score for h in found] == sorted((h.score for h in found), reverse=True)
    assert lists[0][0].record.raw_content != lists[1][0].record.raw_content


def test_neighbours_leave_out_the_ids_the_caller_holds_and_never_read_them(store, monkeypatch):
    texts = ["print the report in landscape", "print the invoice in landscape", "print the memo in portrait",
             "print the letter in landscape", "cats purr"]
    rows = [record(t) for t in texts]
    put(store, rows)
    queries = EMBED.embed(["print the report in landscape", "print the memo in portrait"])
    every = store.neighbours("alice", queries, limit=3, min_score=-1.0, scope=Scope())
    held = {rows[0].id, rows[2].id}
    read = []
    original = pts.to_hit
    monkeypatch.setattr(pts, "to_hit", lambda user, point, *a, **kw: read.append(str(point.id)) or
                        original(user, point, *a, **kw))
    lists = store.neighbours("alice", queries, limit=3, min_score=-1.0, scope=Scope(), known=held)
    # the known ids still take their places within the limit: the rest is what came back without them
    assert [[(h.record.id, h.score, h.seq, h.vector.tolist()) for h in found] for found in lists] == \
        [[(h.record.id, h.score, h.seq, h.vector.tolist()) for h in found if h.record.id not in held]
         for found in every]
    assert [h.record for found in lists for h in found] == \
        [h.record for found in every for h in found if h.record.id not in held]
    assert read and not held & set(read) and len(read) == len(set(read))  # each read once, the held ones never


def test_embedder_mismatch_is_refused(store):
    put(store, [record("a")])
    with pytest.raises(EmbedderMismatchError, match="hindsight migrate"):
        store.open_user("alice", embedding_model="other", dimension=EMBED.dimension, create=False)


def test_spaces_hold_archives_apart(store):
    put(store, [record("hot")])
    cold = record("cold")
    store.put_space("alice", ARCHIVE, [cold], EMBED.embed(["cold"]), [{"archived": {"at": "x"}}])
    assert [r.summary for r, _, x in store.load_space("alice", ARCHIVE)] == ["cold"]
    assert [x for _, _, x in store.load_space("alice", ARCHIVE)] == [{"archived": {"at": "x"}}]
    assert [h.record.summary for h in store.scan("alice")] == ["hot"]
    store.drop_space("alice", ARCHIVE)
    assert store.count_space("alice", ARCHIVE) == 0


def _request(query, now, store_kind_limit=5):
    vector = EMBED.embed([query])[0]
    # every term of the formula in play: a retention prior (off by default) and a consolidation weight
    return vector, recall_plan.build_request(vector, query, recall=RecallConfig(retention_influence=0.1),
                                             decay=DecayConfig(),
                                             episode_weight=0.5, now=now, scope=Scope(), limit=store_kind_limit,
                                             min_similarity=0.0, multilingual_dense=False)


def test_the_engine_ranks_by_the_formula(store):
    """The engine's score equals the formula computed by hand from each point's fields."""
    now = T0 + timedelta(days=30)
    rows = [record("landscape printing for the sales report", confidence=0.9, decay_rate=0.01),
            record("landscape printing for the invoice", confidence=0.5, decay_rate=0.05, days=10),
            record("the sales report is due friday", consolidated_into="k", spaced_recalls=2, decay_rate=0.04)]
    put(store, rows)
    _, request = _request("landscape sales report", now)
    found = store.search("alice", request)
    assert len(found.hits) == 3
    for hit in found.hits:
        r = hit.record
        elapsed = (now - r.timestamp).total_seconds() / 86400
        retention = r.confidence * np.exp(-r.decay_rate / (1 + 0.5 * r.spaced_recalls) * elapsed)
        weight = 0.5 if r.consolidated_into else 1.0
        fused = hit.score / (weight * (0.9 + 0.1 * retention))
        assert 1 / 62 - 1e-6 <= fused <= 2 / 60 + 1e-6  # between one channel's rank 3 and both channels' rank 1
    scores = [h.score for h in found.hits]
    assert scores == sorted(scores, reverse=True)


def test_both_backends_answer_the_same(tmp_path):
    """Congruence: the same memories and the same plan give the same ranking and scores on both engines."""
    now = T0 + timedelta(days=40)
    rows = [record(t, days=i, confidence=0.5 + 0.05 * i, decay_rate=0.02) for i, t in enumerate([
        "Print the sales report in landscape, please.", "Landscape orientation again for this invoice printout.",
        "我家猫叫“团子”，是一只橘猫。", "The server restart is at noon.", "Please print the quarterly summary in landscape.",
        "我们team用PostgreSQL", "Maria approves the travel budget."])]
    edge, server = EdgeStore(tmp_path / "e"), server_store()
    try:
        for store in (edge, server):
            put(store, rows)
        for query in ("how should I print the report?", "我的猫叫什么名字？", "which database does my team use?"):
            _, request = _request(query, now, 7)
            a, b = edge.search("alice", request), server.search("alice", request)
            assert [h.record.id for h in a.hits] == [h.record.id for h in b.hits], query
            assert [h.score for h in a.hits] == pytest.approx([h.score for h in b.hits], rel=1e-4)
    finally:
        edge.close()
        server.close()


def test_formula_by_hand():
    tree = f.mul(f.var("$score"), f.add(f.const(1.0), f.neg(f.var("x"))), f.exp(f.const(0.0)))
    assert f.evaluate(tree, {"$score": np.array([0.5, 0.25]), "x": np.array([0.2, 0.5])}).tolist() == \
        pytest.approx([0.4, 0.125])
    assert f.variables(tree) == {"$score", "x"}


def test_a_second_process_is_refused(tmp_path):
    first = EdgeStore(tmp_path / "s")
    try:
        import subprocess
        import sys

        code = ("import sys\nfrom hindsight_core.store import EdgeStore\nfrom hindsight_core.errors import StoreInUseError\n"
                "try:\n    EdgeStore(sys.argv[1])\nexcept StoreInUseError as e:\n    print('refused:', e)\n")
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "s")], capture_output=True, text=True,
                             timeout=60)
        assert "refused:" in out.stdout and "hindsight serve" in out.stdout and "held by process" in out.stdout
    finally:
        first.close()
    EdgeStore(tmp_path / "s").close()  # free again once closed


def test_many_users_share_a_few_shards_and_one_key_file_and_keep_a_few_users_keys_in_memory(tmp_path):
    from hindsight_core.store.edge_files import BUCKETS

    store = EdgeStore(tmp_path / "s", max_open=4)
    try:
        for i in range(10):
            put(store, [record(f"note {i}", user=f"u{i}")], user=f"u{i}")
        assert len(store._shards) <= BUCKETS and len(store._key_file._cache) <= 4
        assert [h.record.raw_content for h in store.scan("u0")] == ["note 0"]  # its keys read again from the file
    finally:
        store.close()


def test_two_instances_on_one_server_see_each_others_writes():
    """No per-process copy: a second client sees the first one's write on its next call (same server)."""
    from qdrant_client import QdrantClient

    client = QdrantClient(":memory:")
    clock = FrozenClock(T0)
    one = Hindsight(store=ServerStore(client=client), embedder=EMBED, clock=clock)
    two = Hindsight(store=ServerStore(client=client), embedder=EMBED, clock=clock)
    assert two.recall("Orion theme", user_id="alice") == []
    one.remember("Project Orion uses the blue theme.", user_id="alice", force=True)
    assert two.recall("Orion theme", user_id="alice")[0].memory.raw_content == "Project Orion uses the blue theme."
    one.forget(user_id="alice", about="Orion theme")
    assert two.recall("Orion theme", user_id="alice") == []


def test_field_updates_share_one_engine_update_per_distinct_change():
    from hindsight_core.errors import HindsightError
    from hindsight_core.store.payload import field_updates

    now = "2026-03-02T00:00:00+00:00"
    same = {"access_count": 1, "spaced_recalls": 0, "last_accessed": now}
    grouped = field_updates([("a", same), ("b", dict(same)), ("c", {**same, "access_count": 4}), ("d", same)])
    assert [ids for ids, _ in grouped] == [["a", "b", "d"], ["c"]]
    assert grouped[1][1]["access_count"] == 4
    assert all(fields["reinforced_days"] == pytest.approx(T0.timestamp() / 86400 + 1) for _, fields in grouped)
    # an id changed twice keeps its updates apart and in order: the later one wins, as it would alone
    twice = field_updates([("a", {"access_count": 1}), ("b", {"access_count": 1}), ("a", {"access_count": 2})])
    assert twice == [(["a"], {"access_count": 1}), (["b"], {"access_count": 1}), (["a"], {"access_count": 2})]
    with pytest.raises(HindsightError, match="text fields"):
        field_updates([("a", {"raw_content": "new"})])


def test_one_recall_reinforces_every_memory_it_returns(store):
    """Reinforcement is batched into shared engine updates; each recalled memory still gets its own counts."""
    clock = FrozenClock(T0)
    texts = ["Orion review notes, part one.", "Orion review notes, part two.", "Orion review notes, part three.",
             "Lunch menu has pasta on Fridays."]
    with Hindsight(store=store, embedder=FakeEmbedder(), clock=clock) as memory:
        made = [memory.remember(t, user_id="u", force=True) for t in texts]
        clock.advance(days=1)
        memory.recall("Orion review notes part one", user_id="u", k=1)  # one of them recalled before
        clock.advance(days=2)
        before = {m.id: memory.get(m.id, user_id="u") for m in made}
        results = memory.recall("Orion review notes", user_id="u", k=3)
        recalled = {r.memory.id for r in results if recall_plan.cued(r, memory.config.recall)}
        assert len(recalled) == 3 and len({before[i].access_count for i in recalled}) == 2  # two distinct changes
        for m in made:
            after, old = memory.get(m.id, user_id="u"), before[m.id]
            if m.id in recalled:
                assert after.access_count == old.access_count + 1
                assert after.last_accessed == clock()
                assert after.spaced_recalls == old.spaced_recalls + 1  # a day or more since the last one
            else:
                assert record_to_dict(after) == record_to_dict(old)
        # the derived field the engine's formula reads was written with them: score each point by it alone
        _, request = _request("Orion review notes", clock())
        found = store.search("u", dataclasses.replace(request, formula=f.var("reinforced_days"), limit=10))
        assert recalled <= {h.record.id for h in found.hits}
        for hit in found.hits:
            moment = clock() if hit.record.id in recalled else before[hit.record.id].last_accessed or T0
            assert hit.score == pytest.approx(moment.timestamp() / 86400, abs=0.01)


@pytest.mark.parametrize("backend", [EdgeStore, ServerStore])
def test_each_backend_implements_both_interfaces(backend):
    """Every method of the hot-path and the maintenance interface, with the interface's parameters."""
    import inspect

    from hindsight_core.store.base import LiveStore, MaintenanceStore

    for interface in (LiveStore, MaintenanceStore):
        methods = [name for name, value in vars(interface).items() if callable(value) and not name.startswith("_")]
        assert methods
        for name in methods:
            wanted = list(inspect.signature(getattr(interface, name)).parameters)
            given = list(inspect.signature(getattr(backend, name)).parameters)
            assert given[:len(wanted)] == wanted, (backend.__name__, name)
