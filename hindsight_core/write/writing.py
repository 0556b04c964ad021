"""Planning a batch of writes against what a user already remembers.

For each new record, in order: a near-duplicate of an active memory from the same source is merged into it
(confirmations + 1); otherwise it is stored, the older statements it supersedes are marked (`write.rules`), and
knowledge it agrees with is re-confirmed. `plan_writes` is pure over each record's nearest stored neighbours
(`stored_neighbours`, one engine call for the batch), and `Hindsight` commits the plan in one journaled step.
Every cosine a rule reads is between statements' texts alone (`decisions.decision_vectors`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..config import SemanticConfig
from ..safety.audit import AuditVerdict
import dataclasses

from ..store.base import Hit, MemoryStore, Scope
from ..contract.records import record_to_dict
from ..contract.results import WriteResult
from ..types import GateDecision, Layer, MemoryRecord, Source, Status
from .decisions import EmbedTexts, decision_vectors, judged_on_text
from .judge import KnowledgeJudge, Question, RuleJudge
from .rules import (NEIGHBOURS, attributes_of, consolidation_candidates, is_duplicate, is_question,
                    normalise_for_duplicates, says_change)


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
    #: the episodes that may now complete a group (the new ones, and those a repeat confirmed), with vectors
    touched: list[tuple[MemoryRecord, np.ndarray]] = field(default_factory=list)
    #: where each record of the batch sits in `upserts`, and which `outcome` entries hold each record
    _upserted: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    _holding: dict[str, list[int]] = field(default_factory=dict, repr=False, compare=False)

    def changed_fields(self) -> list[tuple[str, dict]]:
        keys = ("confidence", "superseded_by", "confirmations", "last_confirmed", "consolidated_into")
        out = []
        for memory_id, record in self.updates.items():
            payload = record_to_dict(record)
            out.append((memory_id, {k: payload[k] for k in keys}))
        return out

    def _store(self, record: MemoryRecord, vector: np.ndarray) -> None:
        self._upserted[record.id] = len(self.upserts)
        self.upserts.append((record, vector))
        self._hold(record)

    def _hold(self, record: MemoryRecord) -> None:
        self._holding.setdefault(record.id, []).append(len(self.outcome))
        self.outcome.append(record)

    def _change(self, record: MemoryRecord) -> None:
        """Note a change to a stored record, or fold it into a record of this batch not yet stored."""
        at = self._upserted.get(record.id)
        if at is not None:
            self.upserts[at] = (record, self.upserts[at][1])
        else:
            self.updates[record.id] = record
        for i in self._holding.get(record.id, ()):
            self.outcome[i] = record


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
    if cfg.detect_conflicts and (attributes_of(record) or says_change(record.raw_content)):
        return -1.0
    return min(cfg.duplicate_similarity, cfg.group_similarity)


def plan_writes(stored: list[list[Hit]], records: list[MemoryRecord], vectors: np.ndarray,
                cfg: SemanticConfig, decide: np.ndarray | None = None,
                judge: KnowledgeJudge | None = None) -> WritePlan:
    """`stored[i]`: the active stored memories nearest to `records[i]` (with cosines, on the decision vectors);
    `vectors`: what each record is stored with; `decide`: what the rules compare (`decisions.decision_vectors`;
    None: the stored vectors). With `cfg.detect_conflicts`, `judge` says what each new statement replaces
    (`judge.KnowledgeJudge`; default: the rules), one statement at a time, in order."""
    plan = WritePlan()
    judge = (judge or RuleJudge(cfg)) if cfg.detect_conflicts else None
    floor = neighbour_floor(cfg)
    decide = vectors if decide is None else decide
    earlier = _EarlierInBatch(records, decide, cfg)
    for i, (record, vector) in enumerate(zip(records, vectors)):
        # what this record is compared with: its stored neighbours, and the records of this batch stored before it
        neighbours: list[tuple[float, MemoryRecord]] = [
            (float(hit.score), plan.updates.get(hit.record.id, hit.record)) for hit in stored[i]]
        for j in earlier.worth_comparing(i):
            similarity = float(decide[i] @ decide[j])
            if similarity >= floor:
                neighbours.append((similarity, plan.upserts[plan._upserted[records[j].id]][0]))
        neighbours.sort(key=lambda pair: -pair[0])

        if record.status is not Status.ACTIVE:  # quarantined: stored apart, touches nothing else
            plan._store(record, vector)
            continue
        # of the memories it repeats, the one said last: a restatement confirms the value that is current
        twin = max((old for sim, old in neighbours
                    if old.layer is record.layer and not old.superseded_by and old.source is record.source
                    and is_duplicate(record.raw_content, old.raw_content, sim, cfg)),
                   key=lambda old: old.said_last, default=None)
        if twin is not None and cfg.merge_duplicates:
            merged = twin.evolve(confirmations=twin.confirmations + 1, confidence=max(twin.confidence, record.confidence),
                                 last_confirmed=max(record.timestamp, twin.last_confirmed or twin.timestamp))
            plan._change(merged)
            # a repeat of an episode that is already knowledge confirms that knowledge too
            known = next((old for _, old in neighbours if twin.consolidated_into and old.id == twin.consolidated_into),
                         None)
            if known is not None:
                plan._change(known.evolve(confirmations=known.confirmations + 1,
                                          last_confirmed=max(record.timestamp, known.last_confirmed or known.timestamp)))
            plan.merged.append(twin.id)
            plan.merged_inputs.add(i)
            plan._hold(merged)
            continue

        record = _fades_no_faster(record, [(float(hit.score), hit.record) for hit in stored[i]], cfg)
        plan._store(record, vector)
        earlier.stored(i)
        restates: bool | None = None  # what the user states again, not a question or a tool: read when knowledge is near
        # one question at a time: what this statement replaces is settled before the next is merged or judged
        [replaced] = judge.replaced([Question(record, tuple(neighbours))]) if judge else [frozenset()]
        for sim, old in neighbours:
            if old.id in replaced:
                plan._change(old.evolve(confidence=round(old.confidence * cfg.superseded_factor, 4),
                                        superseded_by=record.id))
                plan.superseded.append(old.id)
            elif old.layer is Layer.SEMANTIC and sim >= cfg.group_similarity and not old.superseded_by:
                if restates is None:
                    restates = bool(consolidation_candidates([record]))
                if restates:
                    plan._change(old.evolve(confirmations=old.confirmations + 1,
                                            last_confirmed=max(record.timestamp, old.last_confirmed or old.timestamp)))
    position = {r.id: i for i, r in enumerate(records)}
    plan.touched = [(r, decide[position[r.id]]) for r, _ in plan.upserts
                    if r.layer is Layer.EPISODIC and r.status is Status.ACTIVE]
    plan.touched += [(plan.outcome[i], decide[i]) for i in sorted(plan.merged_inputs)
                     if plan.outcome[i].layer is Layer.EPISODIC]
    return plan


def _fades_no_faster(record: MemoryRecord, neighbours: list[tuple[float, MemoryRecord]],
                     cfg: SemanticConfig) -> MemoryRecord:
    """`record` with the slowest decay rate and the highest confidence of the user's stored statements on its
    subject (close on the texts alone: `conflict_similarity`), where its own are lower: a correction never fades
    faster than what it corrects, whatever kind the gate guessed for each."""
    if record.source is not Source.USER or is_question(record.raw_content):
        return record
    same = [old for sim, old in neighbours
            if sim >= cfg.conflict_similarity and old.source is Source.USER and old.layer is Layer.EPISODIC
            and old.timestamp <= record.timestamp and not is_question(old.raw_content)]
    rate = min([record.decay_rate, *(old.decay_rate for old in same)])
    confidence = max([record.confidence, *(old.confidence for old in same)])
    if (rate, confidence) == (record.decay_rate, record.confidence):
        return record
    return record.evolve(decay_rate=rate, confidence=confidence)


class _EarlierInBatch:
    """The active records of a batch stored before each one, narrowed to those a write rule could act on.

    A rule acts on an earlier record only if it is a near-duplicate, knowledge it may confirm, or sets one of the
    new one's attributes: the others are left out before any exact cosine is taken.
    """

    #: a margin keeps every pair a rule's threshold may admit (cosines come from one matrix-vector product per record)
    _MARGIN = 1e-3

    def __init__(self, records: list[MemoryRecord], vectors: np.ndarray, cfg: SemanticConfig) -> None:
        self.records, self.vectors, self.cfg = records, vectors, cfg
        self.active = np.zeros(len(records), dtype=bool)
        self.knowledge = np.zeros(len(records), dtype=bool)
        self.by_text: dict[str, list[int]] = {}
        self.by_attribute: dict[str, list[int]] = {}

    def stored(self, i: int) -> None:
        record = self.records[i]
        if record.status is not Status.ACTIVE:
            return
        self.active[i] = True
        self.knowledge[i] = record.layer is Layer.SEMANTIC
        self.by_text.setdefault(normalise_for_duplicates(record.raw_content), []).append(i)
        if self.cfg.detect_conflicts:
            for attribute in attributes_of(record):
                self.by_attribute.setdefault(attribute, []).append(i)

    def worth_comparing(self, i: int) -> list[int]:
        """Positions (ascending, as they were stored) of the earlier records a rule may act on for record i."""
        if not self.active[:i].any():
            return []
        record, row = self.records[i], self.vectors[:i] @ self.vectors[i]
        close = (row >= self.cfg.duplicate_similarity - self._MARGIN) | \
            (self.knowledge[:i] & (row >= self.cfg.group_similarity - self._MARGIN))
        chosen = set(np.flatnonzero(close & self.active[:i]).tolist())
        chosen.update(self.by_text.get(normalise_for_duplicates(record.raw_content), ()))
        if self.cfg.detect_conflicts:
            for attribute in attributes_of(record):
                chosen.update(self.by_attribute.get(attribute, ()))
            if says_change(record.raw_content):  # a change of mind is read against every earlier statement
                chosen.update(np.flatnonzero(self.active[:i]).tolist())
        return sorted(chosen)


def stored_neighbours(store: MemoryStore, user: str, records: list[MemoryRecord], vectors: np.ndarray,
                      cfg: SemanticConfig, decide: np.ndarray | None = None,
                      embed: EmbedTexts | None = None) -> list[list[Hit]]:
    """The active stored memories nearest to each record (`NEIGHBOURS`, from `record_floor` up), scored on the
    decision vectors (`decide`; the neighbours' own embedded with `embed`).

    The engine is asked once per floor for the whole batch, and for a record judged on its text alone with that vector
    too. Nothing when no write rule looks at neighbours.
    """
    stored: list[list[Hit]] = [[] for _ in records]
    if not (cfg.merge_duplicates or cfg.detect_conflicts):
        return stored
    decide = vectors if decide is None else decide
    alone = {i for i, r in enumerate(records) if judged_on_text(r)} if decide is not vectors else set()
    floors = [record_floor(r, cfg) for r in records]
    asks = [(i, vectors[i], -1.0 if i in alone else floors[i]) for i in range(len(records))]
    asks += [(i, decide[i], -1.0) for i in sorted(alone)]
    found: list[dict[str, Hit]] = [{} for _ in records]
    for floor in sorted({f for _, _, f in asks}):
        rows = [(i, v) for i, v, f in asks if f == floor]
        for (i, _), hits in zip(rows, store.neighbours(user, np.asarray([v for _, v in rows]), limit=NEIGHBOURS,
                                                       min_score=floor, scope=Scope())):
            for hit in hits:
                found[i].setdefault(hit.record.id, hit)
    if decide is vectors:
        return [sorted(f.values(), key=lambda h: -h.score) for f in found]
    # every neighbour rescored on the decision vectors: its text alone where a rule judges it so
    every = {hit.record.id: hit for f in found for hit in f.values()}
    hits = list(every.values())
    texts_alone = decision_vectors([h.record for h in hits], [h.vector for h in hits], embed) if hits else decide[:0]
    row_of = {h.record.id: n for n, h in enumerate(hits)}
    for i, f in enumerate(found):
        scored = [dataclasses.replace(hit, score=float(texts_alone[row_of[hit.record.id]] @ decide[i]))
                  for hit in f.values()]
        scored = [hit for hit in scored if hit.score >= floors[i]]
        stored[i] = sorted(scored, key=lambda h: (-h.score, h.seq))[:NEIGHBOURS]
    return stored


def plan_batch(store: MemoryStore, user: str, records: list[MemoryRecord], vectors: np.ndarray,
               cfg: SemanticConfig, embed: EmbedTexts | None = None, judge: KnowledgeJudge | None = None) -> WritePlan:
    """Plan a batch against its stored neighbours (read from the store, nothing written); the facade commits it.

    `embed` embeds a text alone (`decisions.decision_vectors`): with it the rules compare statements without
    the turns they answer; without it, on the stored vectors."""
    decide = decision_vectors(records, vectors, embed) if embed is not None else vectors
    stored = stored_neighbours(store, user, records, vectors, cfg, decide, embed)
    return plan_writes(stored, records, vectors, cfg, decide, judge)


def results(prepared: Sequence[tuple[MemoryRecord | None, GateDecision, AuditVerdict]],
            plan: WritePlan | None) -> list[WriteResult]:
    """One `WriteResult` per offered text: the record that holds it (itself, or the memory it was merged into)."""
    held: dict[str, tuple[MemoryRecord, bool]] = {}
    if plan is not None:
        stored = [record for record, _, _ in prepared if record is not None]
        held = {new.id: (outcome, i in plan.merged_inputs)
                for i, (new, outcome) in enumerate(zip(stored, plan.outcome))}
    out = []
    for record, decision, verdict in prepared:
        holder, merged = held.get(record.id, (None, False)) if record is not None else (None, False)
        out.append(WriteResult(holder, decision, merged, verdict))
    return out
