"""The write plan compares a new record only with the earlier records of its batch a rule can act on: the same plan
as comparing it with every one of them (the rule as written, kept here as the reference)."""

from __future__ import annotations

import random
from datetime import timedelta

import numpy as np
import pytest

from hindsight_core.config import HindsightConfig, SemanticConfig
from hindsight_core.safety.audit import WriteAudit
from hindsight_core.safety.held import AuditMemory
from hindsight_core.store.base import Hit
from hindsight_core.testing import FakeEmbedder
from hindsight_core.types import Layer, MemoryRecord, Source, Status
from hindsight_core.write.gate import RuleBasedGate
from hindsight_core.write.preparing import prepare
from hindsight_core.contract.options import WriteOptions
from hindsight_core.write.rules import (consolidation_candidates, is_change_of, is_conflict, is_duplicate,
                                        is_question, lowest_subject_floor, same_subject_floor, shares_topic, subject_refused,
                                        text_script)
from hindsight_core.write.writing import neighbour_floor, plan_writes

from ..conftest import START

STATEMENTS = [
    "I live in Paris.", "I live in Berlin.", "I now live in Lisbon.", "My favourite colour is blue.",
    "My favourite colour is green.", "I prefer landscape for printed reports.", "I prefer portrait for printed reports.",
    "Please print my reports in landscape.", "my phone number is 555-0101", "My phone number is 555-0199.",
    "Caroline: I moved to Denver last week.", "Melanie: I moved to Osaka.", "We had ramen with Priya on Friday.",
    "What colour do I like?", "I prefer tea in the morning.", "I prefer coffee in the morning.",
    "We switched the app to Postgres.", "Our app runs on MySQL.", "公司改用钉钉了", "公司用企业微信",
]


def _reference(stored: list[list[Hit]], records: list[MemoryRecord], vectors: np.ndarray, cfg: SemanticConfig):
    """Every earlier active record of the batch compared with each new one, as the rules are written."""
    upserts: list[list] = []
    updates: dict[str, MemoryRecord] = {}
    outcome: list[MemoryRecord] = []
    merged, superseded, merged_inputs = [], [], set()

    def change(record: MemoryRecord) -> None:
        nonlocal outcome
        for pair in upserts:
            if pair[0].id == record.id:
                pair[0] = record
                break
        else:
            updates[record.id] = record
        outcome = [record if r.id == record.id else r for r in outcome]

    floor = neighbour_floor(cfg)
    for i, (record, vector) in enumerate(zip(records, vectors)):
        near = [(float(h.score), updates.get(h.record.id, h.record)) for h in stored[i]]
        near += [(float(vector @ v), r) for r, v in upserts if r.status is Status.ACTIVE and float(vector @ v) >= floor]
        near.sort(key=lambda pair: -pair[0])
        if record.status is not Status.ACTIVE:
            upserts.append([record, vector])
            outcome.append(record)
            continue
        twin = max((old for sim, old in near if old.layer is record.layer and not old.superseded_by
                    and old.source is record.source and is_duplicate(record.raw_content, old.raw_content, sim, cfg)),
                   key=lambda old: old.said_last, default=None)
        if twin is not None and cfg.merge_duplicates:
            held = twin.evolve(confirmations=twin.confirmations + 1, confidence=max(twin.confidence, record.confidence),
                               last_confirmed=max(record.timestamp, twin.last_confirmed or twin.timestamp))
            change(held)
            known = next((old for _, old in near if twin.consolidated_into and old.id == twin.consolidated_into), None)
            if known is not None:
                change(known.evolve(confirmations=known.confirmations + 1,
                                    last_confirmed=max(record.timestamp, known.last_confirmed or known.timestamp)))
            merged.append(twin.id)
            merged_inputs.add(i)
            outcome.append(held)
            continue
        same = [old for sim, old in ((float(h.score), h.record) for h in stored[i]) if sim >= cfg.conflict_similarity
                and old.source is Source.USER and old.layer is Layer.EPISODIC and old.timestamp <= record.timestamp
                and not is_question(old.raw_content)]
        if record.source is Source.USER and not is_question(record.raw_content) and same:  # fades no faster
            record = record.evolve(decay_rate=min([record.decay_rate, *(o.decay_rate for o in same)]),
                                   confidence=max([record.confidence, *(o.confidence for o in same)]))
        upserts.append([record, vector])
        outcome.append(record)
        changed = set()  # a change of mind replaces one statement per layer: about the same subject, the oldest
        for layer in (Layer.EPISODIC, Layer.SEMANTIC):  # sharing a topic word; none if that one was replaced by a
            eligible = [(sim, old) for sim, old in near  # statement sharing a topic word with it (told again)
                        if old.layer is layer and is_change_of(record, old.evolve(superseded_by=None), sim, cfg)
                        and subject_refused(record.raw_content, old.raw_content, sim,
                                            [s for s, other in near if other.id != old.id  # in the script of the old
                                             and text_script(other.raw_content) == text_script(old.raw_content)][:19])
                        is None]
            ranked = sorted(eligible, key=lambda p: (shares_topic(record.raw_content, p[1].raw_content),
                                                     -p[1].timestamp.timestamp(), round(p[0], 6), p[1].id))
            for _, old in reversed(ranked):
                if not cfg.detect_conflicts:
                    break
                if not old.superseded_by:
                    changed.add(old.id)
                    break
                by = next((other for _, other in near if other.id == old.superseded_by), None)
                if by is not None and shares_topic(record.raw_content, by.raw_content):
                    break
        for sim, old in near:
            if cfg.detect_conflicts and (old.id in changed or is_conflict(record, old, sim, cfg)):
                change(old.evolve(confidence=round(old.confidence * cfg.superseded_factor, 4), superseded_by=record.id))
                superseded.append(old.id)
            elif old.layer is Layer.SEMANTIC and sim >= cfg.group_similarity and not old.superseded_by \
                    and consolidation_candidates([record]):
                change(old.evolve(confirmations=old.confirmations + 1,
                                  last_confirmed=max(record.timestamp, old.last_confirmed or old.timestamp)))
    return [r for r, _ in upserts], updates, outcome, merged, superseded, merged_inputs


def _batch(seed: int, size: int, start: int = 0):
    rng = random.Random(seed)
    config = HindsightConfig()
    records = []
    for i in range(start, start + size):
        text = rng.choice(STATEMENTS)
        options = WriteOptions(timestamp=START + timedelta(minutes=i), force=True,
                               layer=Layer.SEMANTIC if rng.random() < 0.15 else Layer.EPISODIC)
        record, _, _ = prepare(text, options, user_id="u", config=config, audit=AuditMemory(WriteAudit()), gate=RuleBasedGate(),
                               now=START, embedding_model="fake")
        records.append(record)
    # some turns are embedded with the turn they answer: the same text, far from its twin
    contexts = [rng.choice(["", "", "", "What about the budget meeting with Lars and the Orion deadline?"])
                for _ in records]
    vectors = FakeEmbedder(dimension=32).embed([f"{c}\n{r.raw_content}" if c else r.raw_content
                                                for c, r in zip(contexts, records)])
    return records, vectors


def _stored(seed: int, records: list[MemoryRecord], vectors: np.ndarray) -> list[list[Hit]]:
    """Each new record's five nearest among a few memories stored before the batch."""
    old, old_vectors = _batch(seed + 1000, 12, start=-100)
    out = []
    for vector in vectors:
        scores = old_vectors @ vector
        out.append([Hit(old[j], float(scores[j]), old_vectors[j]) for j in np.argsort(-scores, kind="stable")[:5]])
    return out


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("cfg", [SemanticConfig(detect_conflicts=True), SemanticConfig(detect_conflicts=False),
                                 SemanticConfig(detect_conflicts=True, merge_duplicates=False),
                                 SemanticConfig(detect_conflicts=True, duplicate_similarity=0.8)])
def test_the_plan_is_the_one_comparing_every_pair(seed, cfg):
    records, vectors = _batch(seed, 60)
    stored = _stored(seed, records, vectors) if seed % 2 else [[] for _ in records]
    plan = plan_writes(stored, records, vectors, cfg)
    upserts, updates, outcome, merged, superseded, merged_inputs = _reference(stored, records, vectors, cfg)
    assert [r for r, _ in plan.upserts] == upserts
    assert plan.updates == updates and plan.outcome == outcome and plan.merged == merged
    assert plan.superseded == superseded and plan.merged_inputs == merged_inputs
    assert merged or superseded or cfg.merge_duplicates is False  # the batch does exercise the rules


@pytest.mark.parametrize("cfg", [SemanticConfig(), SemanticConfig(conflict_similarity=0.3, correction_similarity=0.7)])
def test_no_pair_below_the_lowest_subject_floor_is_a_change(cfg):
    """`plan_writes` skips the pairs below `lowest_subject_floor` before reading them: none of them could change."""
    records, _ = _batch(3, 40)
    floor = lowest_subject_floor(cfg)
    for new in records:
        for old in records:
            assert same_subject_floor(new.raw_content, old.raw_content, cfg) >= floor
            assert not is_change_of(new, old, floor - 1e-6, cfg)
    assert floor in {same_subject_floor(a.raw_content, b.raw_content, cfg) for a in records for b in records}
