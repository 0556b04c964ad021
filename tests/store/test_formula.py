"""The ranking rule is written once (`recall.plan`): the engine's scores and Python's evaluation of the same
expression trees agree, on random records and random settings, on both backends."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from hindsight_core import decay as decay_math
from hindsight_core.config import DecayConfig, RecallConfig
from hindsight_core.recall import formula as f
from hindsight_core.recall import plan
from hindsight_core.store import EdgeStore, Scope, ServerStore
from hindsight_core.store.points import epoch_days, ranking_values
from hindsight_core.testing import FakeEmbedder
from hindsight_core.types import MemoryRecord

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
EMBED = FakeEmbedder()


def random_records(rng, n=40):
    out = []
    for i in range(n):
        made = T0 + timedelta(days=float(rng.uniform(0, 60)))
        out.append(MemoryRecord(
            id=str(uuid.UUID(int=int(rng.integers(1, 2**62)))), user_id="u", summary=f"note {i} about printing",
            raw_content=f"note {i} about printing and reports", timestamp=made, embedding_model=EMBED.name,
            confidence=float(rng.uniform(0.05, 1.0)), decay_rate=float(rng.choice([0.0, rng.uniform(0, 0.3)])),
            spaced_recalls=int(rng.integers(0, 6)),
            last_accessed=made + timedelta(days=float(rng.uniform(0, 20))) if rng.random() < 0.5 else None,
            consolidated_into="k" if rng.random() < 0.3 else None, superseded_by="s" if rng.random() < 0.3 else None))
    return out


def random_settings(rng):
    recall = RecallConfig(retention_influence=float(rng.choice([0.0, rng.uniform(0, 0.95)])),
                          superseded_weight=float(rng.uniform(0.05, 1.0)),
                          time_prior_weight=float(rng.uniform(0, 2)))
    decay = DecayConfig(reinforcement=float(rng.uniform(0, 1.5)))
    priors = [plan.TimePrior(epoch_days(T0) + float(rng.uniform(0, 60)), float(rng.uniform(0.5, 20)),
                             float(rng.uniform(0.2, 1))) for _ in range(int(rng.integers(0, 3)))]
    # `now` may come before a memory's last recall: elapsed time is never negative
    return recall, decay, float(rng.choice([1.0, rng.uniform(0.05, 1)])), priors, T0 + timedelta(
        days=float(rng.uniform(10, 120)))


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_python_and_simplified_trees_agree_with_decay_rules(seed):
    rng = np.random.default_rng(seed)
    records = random_records(rng)
    recall, decay, episode_weight, priors, now = random_settings(rng)
    values = ranking_values(records)
    retention = f.evaluate(plan.retention_expr(now, decay), values)
    by_hand = [decay_math.retention(r.confidence, decay_math.effective_rate(r.decay_rate, r.spaced_recalls,
                                                                              decay.reinforcement),
                                    epoch_days(now) - epoch_days(r.last_accessed or r.timestamp)) for r in records]
    assert retention == pytest.approx(by_hand, rel=1e-12)
    values["$score"] = rng.uniform(0.01, 0.05, len(records))
    full = f.mul(f.var(f.SCORE), *plan.prior_terms(now, decay, recall, episode_weight, priors))
    folded = plan.ranking_formula(now, decay, recall, episode_weight, priors)
    assert f.evaluate(folded, values) == pytest.approx(f.evaluate(full, values), rel=1e-12)
    assert f.variables(folded) <= f.variables(full)


def test_simplify_drops_only_what_cannot_change_a_value():
    x, y = f.var("x"), f.var("y")
    assert f.simplify(f.mul(x, f.const(1.0), f.add(f.const(0.0), y))) == f.mul(x, y)
    assert f.simplify(f.add(f.const(1.0), f.mul(f.const(-0.0), x))) == f.const(1.0)
    assert f.simplify(f.neg(f.const(2.0))) == f.const(-2.0)
    assert f.simplify(f.exp(f.add(x, f.const(0.0)))) == f.exp(x)
    # the default settings (no retention influence, episodes at full weight) read one field besides the score
    default = plan.ranking_formula(T0, DecayConfig(), RecallConfig(), 1.0)
    assert f.variables(default) == {f.SCORE, "is_superseded"}


@pytest.fixture(params=["edge", "server"])
def store(request, tmp_path):
    if request.param == "edge":
        made = EdgeStore(tmp_path / "store")
    else:
        from qdrant_client import QdrantClient

        made = ServerStore(client=QdrantClient(":memory:"))
    yield made
    made.close()


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_the_engine_computes_what_python_computes(store, seed):
    """Each record's prior (weight · retention factor · time factor) from the engine equals numpy's, and the
    ranking formula's score is the fused score times it."""
    rng = np.random.default_rng(seed)
    records = random_records(rng)
    recall, decay, episode_weight, priors, now = random_settings(rng)
    store.open_user("u", embedding_model=EMBED.name, dimension=EMBED.dimension, create=True)
    store.commit("u", upserts=list(zip(records, EMBED.embed([r.raw_content for r in records]))))
    vector = EMBED.embed(["printing reports"])[0]
    request = plan.build_request(vector, "printing reports", recall=recall, decay=decay, episode_weight=episode_weight,
                                 now=now, scope=Scope(), limit=len(records), min_similarity=None,
                                 multilingual_dense=False, priors=priors)
    prior_tree = f.mul(*plan.prior_terms(now, decay, recall, episode_weight, priors))
    priors_found = store.search("u", dataclasses.replace(request, formula=prior_tree)).hits
    assert len(priors_found) == len(records)
    expected = f.evaluate(prior_tree, ranking_values([h.record for h in priors_found]))
    assert [h.score for h in priors_found] == pytest.approx(expected.tolist(), rel=1e-4, abs=1e-7)  # the engine computes in float32
    fused = {h.record.id: h.score for h in store.search("u", dataclasses.replace(request, formula=f.var(f.SCORE))).hits}
    prior_of = {h.record.id: p for h, p in zip(priors_found, expected)}
    ranked = store.search("u", request).hits
    assert [h.score for h in ranked] == pytest.approx([fused[h.record.id] * prior_of[h.record.id] for h in ranked],
                                                      rel=1e-4, abs=1e-9)
    # explanations: retention and weight by decay's rules, and `fused` is the engine's fused score (time prior
    # included in what it is divided by)
    found = store.search("u", request)
    for result in plan.select(found, request, vector, "printing reports", now=now, decay=decay, recall=recall,
                              episode_weight=episode_weight):
        r, why = result.memory, result.explanation
        retention = decay_math.retention(r.confidence, decay_math.effective_rate(
            r.decay_rate, r.spaced_recalls, decay.reinforcement), epoch_days(now) - epoch_days(r.last_accessed or
                                                                                              r.timestamp))
        assert result.retention == why.retention == pytest.approx(retention, rel=1e-9)
        weight = (episode_weight if r.consolidated_into else 1.0) * (recall.superseded_weight if r.superseded_by
                                                                     else 1.0)
        assert why.weight == pytest.approx(weight, rel=1e-9)
        assert why.fused == pytest.approx(fused[r.id], rel=1e-4)
