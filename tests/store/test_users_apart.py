"""Users share the engine's shards, and nothing of one reaches another: a user's scores do not move with what
others store (red team finding 3), and a forgotten user's id is in no file of the store (finding 4)."""

from __future__ import annotations

import math

import pytest

from hindsight_core import Hindsight
from hindsight_core.store import points as pts
from hindsight_core.store.edge_files import bucket_of, user_dir_name
from hindsight_core.store.keywords import TermCounts, idf
from hindsight_core.testing import FakeEmbedder

from ..files import files_holding

#: "cardiology" is rarer than "appointment" among Alice's notes, so her note about it ranks first for the query
ALICE_NOTES = ["Cardiology notes from the clinic.",
               "My appointment is on Tuesday.",
               "Another appointment was moved to May.",
               "I walk for thirty minutes every morning."]
QUERY = "cardiology appointment"


def same_bucket(user: str, prefix: str) -> str:
    """A user id (`prefix`-N) whose points share `user`'s shard."""
    return next(f"{prefix}-{n}" for n in range(10_000) if bucket_of(f"{prefix}-{n}") == bucket_of(user))


def scores(memory: Hindsight, user: str) -> list[tuple[str, float, float, int | None, int | None]]:
    return [(r.memory.id, r.score, r.explanation.fused, r.explanation.dense_rank, r.explanation.keyword_rank)
            for r in memory.recall(QUERY, user_id=user, k=4, reinforce=False)]


def test_a_users_scores_do_not_move_with_what_another_user_of_the_shard_stores(tmp_path, clock):
    alice = "alice"
    mallory = same_bucket(alice, "mallory")
    with Hindsight(path=tmp_path / "s", embedder=FakeEmbedder(), clock=clock) as memory:
        memory.write_many(ALICE_NOTES, user_id=alice, force=True)
        before = scores(memory, alice)
        assert len(before) == 4 and before[0][4] == 1  # the keyword channel ranks the cardiology note first
        # a shard-wide IDF made "cardiology" common here: Alice's note about it fell below her appointments
        memory.write_many([f"Cardiology report {n}." for n in range(5)], user_id=mallory, force=True)
        assert scores(memory, alice) == before  # to the last digit
        memory.write_many([f"Note {n} about the weather." for n in range(40)], user_id=mallory, force=True)
        assert scores(memory, alice) == before
        memory.forget(user_id=mallory, memory_id=memory.memories(user_id=mallory)[0].id, for_good=False)
        assert scores(memory, alice) == before
    with Hindsight(path=tmp_path / "s", embedder=FakeEmbedder(), clock=clock) as memory:  # counted again: the same
        assert scores(memory, alice) == before


def test_kept_keyword_counts_follow_every_change_exactly(tmp_path, clock):
    """The counts a recall keeps are updated by writes, merges, forgets and replays as if counted afresh."""
    with Hindsight(path=tmp_path / "s", embedder=FakeEmbedder(), clock=clock) as memory:
        written = memory.write_many(ALICE_NOTES, user_id="alice", force=True)
        memory.recall(QUERY, user_id="alice")  # the counts are kept from here
        memory.write_many(["The heart clinic opens at eight.", ALICE_NOTES[0]], user_id="alice")  # one merged
        memory.forget(user_id="alice", memory_id=written[2].record.id)
        memory.write("Ana moved to the heart clinic in Porto.", user_id="alice", force=True)
        store = memory.store
        kept = store._keywords.kept("alice")
        store._keywords.forget("alice")
        afresh = store._keyword_counts("alice", store._shard("alice", "memories"), store._tenant("alice"))
        assert (kept.documents, kept.holding) == (afresh.documents, afresh.holding)
        assert kept.documents == store.count("alice")


def test_the_idf_is_qdrants_formula_over_one_users_memories(tmp_path):
    """ln(1 + (N − n + 0.5) / (n + 0.5)), by hand; and over a shard of one user's memories, the engine's own IDF
    scored them as the user's weights score them on a shard without it."""
    import uuid

    from qdrant_edge import (
        Distance,
        EdgeConfig,
        EdgeShard,
        EdgeSparseVectorParams,
        EdgeVectorParams,
        Modifier,
        Point,
        Query,
        QueryRequest,
        SparseVector,
        UpdateOperation,
    )

    from hindsight_core.store.edge_files import shard_config

    assert idf(6, 5) == pytest.approx(math.log(1 + 1.5 / 5.5))
    assert idf(6, 1) == pytest.approx(math.log(1 + 5.5 / 1.5))
    texts = ALICE_NOTES + ["The cardiology appointment is at the clinic.", "An appointment again.", "the and of"]
    counts = TermCounts()
    for text in texts:
        counts.add(pts.document_terms(text)[0])
    assert counts.documents == len(texts) - 1  # stop words only: no term, not counted (as the engine counts)
    points = [Point(id=str(uuid.uuid4()), vector={"dense": [1.0, 0, 0, 0], "bm25": SparseVector(
        *pts.document_terms(t))}) for t in texts]
    terms, values = pts.query_terms(QUERY)
    found = {}
    engine_idf = EdgeConfig(vectors={"dense": EdgeVectorParams(size=4, distance=Distance.Cosine)},
                            sparse_vectors={"bm25": EdgeSparseVectorParams(modifier=Modifier.Idf)})
    for name, config, query in (("engine", engine_idf, values),
                                ("ours", shard_config(4), counts.weights(terms, values))):
        shard = EdgeShard.create(str(tmp_path / name), config)
        shard.update(UpdateOperation.upsert_points(points))
        found[name] = {str(p.id): p.score for p in shard.query(QueryRequest(
            limit=10, query=Query.Nearest(SparseVector(terms, list(query)), using="bm25")))}
        shard.close()
    assert len(found["ours"]) == 5 and found["ours"].keys() == found["engine"].keys()  # those with a query term
    for key, score in found["engine"].items():
        assert found["ours"][key] == pytest.approx(score, rel=1e-6)


EMAIL = "jo.doe+cardio@example.org"
CANARY = "Quetzalcoatlus"


def test_no_file_of_the_store_holds_a_forgotten_users_id_nor_their_words(tmp_path, clock):
    """An e-mail address as user id, forgotten for good: not in the engine's log, its segments, the key file, nor
    anywhere else, after close, reopen, compact() and 600 writes by others."""
    root = tmp_path / "s"
    other = same_bucket(EMAIL, "bob")
    with Hindsight(path=root, embedder=FakeEmbedder(), clock=clock) as memory:
        memory.write_many([f"My {CANARY} figurine is on the shelf.", "I moved to Lisbon."], user_id=EMAIL,
                          session_id="s1", force=True)
        memory.write("Bob keeps notes.", user_id=other, force=True)
        memory.store.flush()
        registry = root / "users" / user_dir_name(EMAIL) / "user.json"
        assert files_holding(root, EMAIL) == [str(registry)]  # the registry entry names the user, nothing else
        memory.forget(user_id=EMAIL, everything=True)
    with Hindsight(path=root, embedder=FakeEmbedder(), clock=clock) as memory:
        memory.compact()
        for n in range(6):
            memory.write_many([f"Note {n}-{i} about the weather." for i in range(100)], user_id=other, force=True)
        assert memory.users() == [other]
    for needle in (EMAIL, CANARY, "Lisbon"):
        assert files_holding(root, needle) == [], needle
