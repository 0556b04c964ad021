"""Planning a batch of writes against what a user already remembers.

For each new record, in order: a near-duplicate of an active memory from the
same source is merged into it (confirmations + 1) instead of being stored (an
agent repeating the user's words never becomes the user's confirmation); otherwise it is stored,
older exclusive statements it contradicts are superseded (confidence lowered,
`superseded_by` set), and semantic memories it agrees with are re-confirmed.
The plan is pure: it sees each new record's nearest stored neighbours (found
by the engine), and `Hindsight` commits it to the store in one journaled step.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..config import SemanticConfig
from ..store.base import Hit, MemoryStore, Scope
from ..types import Layer, MemoryRecord, Status
from .rules import attributes_of, consolidation_candidates, is_conflict, is_duplicate


@dataclass
class WritePlan:
    upserts: list[tuple[MemoryRecord, np.ndarray]] = field(default_factory=list)
    #: id -> the record as it will be after the change
    updates: dict[str, MemoryRecord] = field(default_factory=dict)
    #: per input record: the record that now holds it (itself, or what it was merged into)
    outcome: list[MemoryRecord] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    #: positions of the input records that were merged into an existing memory
    merged_inputs: set[int] = field(default_factory=set)
    superseded: list[str] = field(default_factory=list)

    def changed_fields(self) -> list[tuple[str, dict]]:
        keys = ("confidence", "superseded_by", "confirmations", "last_confirmed", "consolidated_into")
        out = []
        for memory_id, record in self.updates.items():
            payload = record.to_payload()
            out.append((memory_id, {k: payload[k] for k in keys}))
        return out


#: how many stored neighbours of each new record the plan looks at
NEIGHBOURS = 20


def neighbour_floor(cfg: SemanticConfig) -> float:
    """The lowest cosine a write rule looks at. Supersession reads what two statements say, not their cosine
    (`semantic.is_conflict`), so with conflicts on every one of the nearest neighbours is looked at."""
    if cfg.detect_conflicts:
        return -1.0
    return min(cfg.duplicate_similarity, cfg.group_similarity)


def record_floor(record: MemoryRecord, cfg: SemanticConfig) -> float:
    """The lowest cosine worth fetching for one new record: only a statement that sets an attribute can
    supersede (`semantic.attributes_of`); any other needs only its near-duplicates and the knowledge it
    may confirm, so the engine decodes far fewer neighbours for it."""
    if cfg.detect_conflicts and attributes_of(record):
        return -1.0
    return min(cfg.duplicate_similarity, cfg.group_similarity)


def plan_writes(stored: list[list[Hit]], records: list[MemoryRecord], vectors: np.ndarray,
                cfg: SemanticConfig) -> WritePlan:
    """`stored[i]`: the active stored memories nearest to `records[i]` (with vectors and cosines)."""
    plan = WritePlan()
    floor = neighbour_floor(cfg)
    for i, (record, vector) in enumerate(zip(records, vectors)):
        # what this record is compared with: its stored neighbours, and the records of this batch stored before it
        neighbours: list[tuple[float, MemoryRecord]] = [
            (float(hit.score), plan.updates.get(hit.record.id, hit.record)) for hit in stored[i]]
        neighbours += [(float(vector @ v), r) for r, v in plan.upserts
                       if r.status is Status.ACTIVE and float(vector @ v) >= floor]
        neighbours.sort(key=lambda pair: -pair[0])

        if record.status is not Status.ACTIVE:  # quarantined: stored apart, touches nothing else
            plan.upserts.append((record, vector))
            plan.outcome.append(record)
            continue
        twin = next((old for sim, old in neighbours
                     if old.layer is record.layer and not old.superseded_by and old.source is record.source
                     and is_duplicate(record.raw_content, old.raw_content, sim, cfg)), None)
        if twin is not None and cfg.merge_duplicates:
            merged = twin.evolve(confirmations=twin.confirmations + 1, confidence=max(twin.confidence, record.confidence),
                                 last_confirmed=max(record.timestamp, twin.last_confirmed or twin.timestamp))
            _record_change(plan, merged)
            plan.merged.append(twin.id)
            plan.merged_inputs.add(i)
            plan.outcome.append(merged)
            continue

        plan.upserts.append((record, vector))
        plan.outcome.append(record)
        for sim, old in neighbours:
            if cfg.detect_conflicts and is_conflict(record, old, sim, cfg):
                _record_change(plan, old.evolve(confidence=round(old.confidence * cfg.superseded_factor, 4),
                                                superseded_by=record.id))
                plan.superseded.append(old.id)
            elif old.layer is Layer.SEMANTIC and sim >= cfg.group_similarity and not old.superseded_by \
                    and consolidation_candidates([record]):  # what the user states again, not a question or a tool
                _record_change(plan, old.evolve(confirmations=old.confirmations + 1,
                                                last_confirmed=max(record.timestamp,
                                                                   old.last_confirmed or old.timestamp)))
    return plan


def _record_change(plan: WritePlan, record: MemoryRecord) -> None:
    """Note a change to a stored record, or fold it into a record of this batch not yet stored."""
    for i, (pending, vector) in enumerate(plan.upserts):
        if pending.id == record.id:
            plan.upserts[i] = (record, vector)
            plan.outcome = [record if r.id == record.id else r for r in plan.outcome]
            return
    plan.updates[record.id] = record
    plan.outcome = [record if r.id == record.id else r for r in plan.outcome]


def store_batch(store: MemoryStore, user: str, records: list[MemoryRecord], vectors: np.ndarray,
                cfg: SemanticConfig) -> tuple[WritePlan, list[tuple[MemoryRecord, np.ndarray]]]:
    """Plan a batch against its stored neighbours and commit it in one journaled step.

    Returns the plan and the episodes that may now complete a group (the new
    ones, and those a repeat confirmed), for the consolidation check.
    """
    stored: list[list[Hit]] = [[] for _ in records]
    if cfg.merge_duplicates or cfg.detect_conflicts:  # else no write rule looks at the neighbours
        floors = [record_floor(r, cfg) for r in records]
        for floor in sorted(set(floors)):
            rows = [i for i, f in enumerate(floors) if f == floor]
            for i, hits in zip(rows, store.neighbours(user, vectors[rows], limit=NEIGHBOURS, min_score=floor,
                                                      scope=Scope())):
                stored[i] = hits
    plan = plan_writes(stored, records, vectors, cfg)
    store.commit(user, upserts=plan.upserts, updates=plan.changed_fields())
    touched = [(r, v) for r, v in plan.upserts if r.layer is Layer.EPISODIC and r.status is Status.ACTIVE]
    touched += [(plan.outcome[i], vectors[i]) for i in sorted(plan.merged_inputs)
                if plan.outcome[i].layer is Layer.EPISODIC]
    return plan, touched
