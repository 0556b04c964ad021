"""Planning consolidation: groups of episodes become semantic memories.

Nothing here writes. `candidates` reads the episodes that may group (all of a user's, or after a write the
`neighbourhood` of the new ones); `draft` finds the groups and writes their summaries; the facade embeds them in
one call; `known_twins` finds the knowledge each summary repeats; `finish` returns the `ConsolidationPlan`, which
`Hindsight.consolidate` commits in one journaled step.
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable, Sequence

import numpy as np

from ..config import DecayConfig, SemanticConfig
from ..store.base import Hit, MemoryStore, Scope
from ..contract.records import record_to_dict
from ..contract.results import ConsolidationReport
from ..types import Layer, MemoryRecord, Source
from ..write.decisions import EmbedTexts, decision_vectors
from ..write.judge import KnowledgeJudge
from ..write.rules import consolidation_candidates, content_tokens, excluded_because, may_group, normalise_for_duplicates
from .groups import Group, days_said, find_groups, group_around, largest_group, qualifies, span_days, times_said
from .summary import SummaryRejected, extractive_summary, llm_summary, shared_entities

Embed = Callable[[Sequence[str]], np.ndarray]
_EPISODES = Scope(layers=frozenset({Layer.EPISODIC}), unconsolidated=True)
_KNOWLEDGE = Scope(layers=frozenset({Layer.SEMANTIC}))


@dataclass
class Draft:
    """Groups found and summarised, before their summaries are embedded: (group, members, summary, entities)."""

    report: ConsolidationReport
    groups: list[tuple[Group, list[MemoryRecord], str, list[str]]] = field(default_factory=list)

    @property
    def summaries(self) -> list[str]:
        return [summary for _, _, summary, _ in self.groups]


@dataclass
class ConsolidationPlan:
    """What consolidating does: semantic records to store (with vectors), and records whose links change."""

    report: ConsolidationReport
    upserts: list[tuple[MemoryRecord, np.ndarray]] = field(default_factory=list)
    updates: list[MemoryRecord] = field(default_factory=list)

    def changed_fields(self) -> list[tuple[str, dict]]:
        return [(r.id, link_fields(r)) for r in self.updates]


#: up to this many unconsolidated episodes, the check after a write reads them all (the background a group's members
#: must stand out from); above it, the new episodes' neighbourhood (a narrower background: see `neighbourhood`)
FULL_BACKGROUND = 4096


def candidates(store: MemoryStore, user: str, semantic: SemanticConfig,
               around: Sequence[tuple[MemoryRecord, np.ndarray]] | None = None,
               embed: EmbedTexts | None = None) -> tuple[list[Hit], list[str]]:
    """(the episodes that may be grouped, with vectors; the ids of the new ones the groups must hold).

    Without `around`, every unconsolidated episode, and any group counts. With `around` (new episodes and their
    decision vectors), only the groups they complete: the cheap check after a write. `embed` embeds a text alone
    (`write.decisions.decision_vectors`).
    """
    if around is None:
        return list(store.scan(user, _EPISODES, with_vectors=True)), []
    around = [(r, v) for r, v in around if may_group(r)]  # most turns can join no group: no question asked
    if not around:
        return [], []
    pool = neighbourhood(store, user, around, semantic, embed)
    if pool and store.count(user, _EPISODES) <= FULL_BACKGROUND:
        # a member must stand out from the user's other statements: a small history is read whole
        pool = list(store.scan(user, _EPISODES, with_vectors=True))
    return pool, [r.id for r, _ in around]


def draft(pool: Sequence[Hit], around: Sequence[str], *, user_id: str, semantic: SemanticConfig,
          summarizer: Callable[[str], str] | None, dry_run: bool, embed: EmbedTexts | None = None,
          judge: KnowledgeJudge | None = None) -> Draft:
    """The groups in `pool` (those holding one of `around`, if given) with their summaries.

    The groups compare statements on their texts alone (`write.decisions.decision_vectors`, with `embed`),
    never on the turns they answer; a `judge` (`write.judge`) keeps those that say one thing, all in one call."""
    out = Draft(ConsolidationReport(user_id=user_id, dry_run=dry_run))
    pool = sorted(pool, key=lambda h: (h.record.timestamp, h.seq))  # oldest first, whatever the engine's order
    pool_records = [h.record for h in pool]
    keep = consolidation_candidates(pool_records)
    records = [pool_records[i] for i in keep]
    vectors = decision_vectors(records, [pool[i].vector for i in keep], embed) if keep else \
        np.zeros((0, 1), np.float32)
    if around:
        position = {r.id: i for i, r in enumerate(records)}
        groups = [g for g in (group_around(position[m], records, vectors, semantic)
                              for m in around if m in position) if g is not None]
        groups = _disjoint(groups)
    else:
        groups = find_groups(records, vectors, semantic)
    if groups and judge is not None:
        verdicts = judge.same([[records[i] for i in group.members] for group in groups])
        groups = [group for group, keep in zip(groups, verdicts) if keep]
    if not groups:
        out.report.why_nothing = _why_nothing(pool_records, records, vectors, semantic, around)
    for group in groups:
        members = [records[i] for i in group.members]
        entities = shared_entities(members)
        try:
            summary = (llm_summary(summarizer, members, entities) if summarizer is not None
                       else extractive_summary(members, vectors[list(group.members)]))
        except SummaryRejected as exc:
            out.report.errors.append(f"group of {len(members)} episodes ('{members[0].summary[:60]}'): {exc}")
            continue
        except Exception as exc:  # the summariser itself failed: report it, write nothing for this group
            out.report.errors.append(
                f"group of {len(members)} episodes: summariser failed: {type(exc).__name__}: {exc}")
            continue
        out.groups.append((group, members, summary, entities))
    return out


def _why_nothing(pool: Sequence[MemoryRecord], records: Sequence[MemoryRecord], vectors: np.ndarray,
                 semantic: SemanticConfig, around: Sequence[str]) -> str:
    """Why no knowledge formed: no episodes, none that may group (and why not), or no group large or long enough."""
    if not pool:
        return "no unconsolidated episodes" + (" near the new ones" if around else "")
    if not records:
        reasons = Counter(excluded_because(r) for r in pool)
        return f"none of {len(pool)} episodes may become knowledge: " + \
            ", ".join(f"{n} {why}" for why, n in sorted(reasons.items(), key=lambda p: (-p[1], p[0])))
    need = (f"{semantic.min_episodes} times on {semantic.min_days} different days over "
            f"{semantic.min_span_days:g} days")
    if around:  # after a write: only the groups holding the new episodes were looked for, and scanning for the
        # largest group of the whole pool would cost every write a pass over all of a user's statements
        return f"no group of similar statements completed around the new episodes (needs {need})"
    best = largest_group(records, vectors, semantic)
    if best is None or best.occurrences < 2:
        return f"{len(records)} episodes may become knowledge, but none is said again in similar words (needs {need})"
    return (f"{len(records)} episodes may become knowledge; the largest group of similar statements "
            f"('{records[best.members[0]].summary[:60]}') was said {best.occurrences} times on "
            f"{best.days} different days over {best.span_days:.1f} days (needs {need})")


#: how many close semantic memories one summary is compared with by cosine (more means a fallback to all of them)
_CLOSE_KNOWLEDGE = 64


#: the share of content words a summary must have in common with the knowledge it repeats (Jaccard): a summary
#: says how often and when a group was said, so it is never word for word what an earlier one said
TWIN_OVERLAP = 0.6


def repeats(summary: str, knowledge: str, similarity: float, semantic: SemanticConfig) -> bool:
    """Whether a group's summary says what existing knowledge says: the same text once normalised, or close
    (`duplicate_similarity`) and mostly the same content words (`TWIN_OVERLAP`)."""
    if normalise_for_duplicates(summary) == normalise_for_duplicates(knowledge):
        return True
    a, b = content_tokens(summary), content_tokens(knowledge)
    return similarity >= semantic.duplicate_similarity and len(a & b) >= TWIN_OVERLAP * len(a | b)


def known_twins(store: MemoryStore, user: str, summaries: Sequence[str], vectors: np.ndarray,
                semantic: SemanticConfig) -> list[MemoryRecord | None]:
    """For each summary, the first active semantic memory it repeats (`repeats`), or None.

    A duplicate is close (found by the engine at `duplicate_similarity`) or the same text once normalised.
    """
    if not summaries:
        return []
    close = store.neighbours(user, vectors, limit=_CLOSE_KNOWLEDGE, scope=_KNOWLEDGE,
                             min_score=semantic.duplicate_similarity - 1e-3)
    if any(len(hits) >= _CLOSE_KNOWLEDGE for hits in close):  # more close knowledge than asked for: read it all
        known = list(store.scan(user, _KNOWLEDGE, with_vectors=True))
        cosines = [{h.record.id: float(h.vector @ v) for h in known} for v in vectors]
    else:
        known = list(store.scan(user, _KNOWLEDGE))
        cosines = [{h.record.id: float(h.vector @ v) for h in hits} for hits, v in zip(close, vectors)]
    return [next((h.record for h in known if repeats(summary, h.record.raw_content,
                                                      near.get(h.record.id, -1.0), semantic)), None)
            for summary, near in zip(summaries, cosines)]


def finish(drafted: Draft, vectors: np.ndarray, twins: Sequence[MemoryRecord | None], *, user_id: str,
           semantic: SemanticConfig, decay: DecayConfig, now: datetime, embedding_model: str) -> ConsolidationPlan:
    """The plan: a group whose summary repeats knowledge (`twins`) confirms it; any other makes a semantic memory."""
    plan = ConsolidationPlan(drafted.report)
    for (group, members, summary, entities), vector, twin in zip(drafted.groups, vectors, twins):
        if twin is not None:  # the knowledge exists already: the group confirms it
            target = twin.evolve(derived_from=list(dict.fromkeys(twin.derived_from + [m.id for m in members])),
                                 confirmations=twin.confirmations + group.occurrences,
                                 last_confirmed=max(m.last_confirmed or m.timestamp for m in members))
            plan.updates.append(target)
            plan.report.merged.append(twin.id)
        else:
            target = _semantic_record(members, summary, entities, group, semantic, decay, user_id, now, embedding_model)
            plan.upserts.append((target, vector))
            plan.report.created.append(target)
        plan.updates.extend(m.evolve(consolidated_into=target.id) for m in members)
    return plan


def _disjoint(groups: list[Group]) -> list[Group]:
    seen: set[int] = set()
    out = []
    for group in groups:
        if not seen & set(group.members):
            seen |= set(group.members)
            out.append(group)
    return out


def _semantic_record(members: list[MemoryRecord], summary: str, entities: list[str], group: Group,
                     semantic: SemanticConfig, decay: DecayConfig, user_id: str, now: datetime,
                     embedding_model: str) -> MemoryRecord:
    kind = Counter(m.event_type for m in members).most_common(1)[0][0]
    if kind == "request":  # the same request, again and again, is a standing preference
        kind = "preference"
    source = Counter(m.source for m in members).most_common(1)[0][0]
    base_confidence = float(np.mean([m.confidence for m in members]))
    confidence = min(0.95, base_confidence + 0.02 * max(0, group.occurrences - semantic.min_episodes + 1))
    return MemoryRecord(
        id=str(uuid.uuid4()), user_id=user_id, summary=summary, raw_content=summary, timestamp=now,
        layer=Layer.SEMANTIC, event_type=kind, entities=entities, confidence=round(confidence, 4),
        source=Source(source), decay_rate=decay.rate_for(kind) * semantic.semantic_decay_factor,
        embedding_model=embedding_model, derived_from=[m.id for m in members], confirmations=group.occurrences,
        last_confirmed=max(m.last_confirmed or m.timestamp for m in members),
    )


def plan_forget_derived(semantic_memories: Sequence[MemoryRecord], episodes: Sequence[Hit], victim_ids: set[str], *,
                        semantic: SemanticConfig, embed: Embed, summarizer: Callable[[str], str] | None
                        ) -> tuple[list[MemoryRecord], list[tuple[MemoryRecord, np.ndarray]], list[MemoryRecord]]:
    """What forgetting `victim_ids` does to the knowledge drawn from them.

    `episodes`: the remaining episodes the knowledge was drawn from (with vectors). Returns (knowledge to delete,
    knowledge re-derived from its remaining episodes, episodes released from deleted knowledge): knowledge drawn
    only from forgotten episodes goes; drawn partly, it is re-derived if the rest still make a group, else it goes.
    """
    doomed: list[MemoryRecord] = []
    rederived: list[tuple[MemoryRecord, np.ndarray]] = []
    released: list[MemoryRecord] = []
    remaining_by_id = {h.record.id: h for h in episodes if h.record.id not in victim_ids}
    for record in semantic_memories:
        if record.layer is not Layer.SEMANTIC or record.id in victim_ids or not victim_ids & set(record.derived_from):
            continue
        hits = [remaining_by_id[i] for i in record.derived_from if i in remaining_by_id]
        remaining = [h.record for h in hits]
        summary = None
        if remaining:
            vectors = np.asarray([h.vector for h in hits], dtype=np.float32)
            group = Group(tuple(range(len(remaining))), sum(times_said(r) for r in remaining),
                          span_days(remaining), days=days_said(remaining))
            if qualifies(group, semantic):
                try:
                    entities = shared_entities(remaining)
                    summary = (llm_summary(summarizer, remaining, entities) if summarizer is not None
                               else extractive_summary(remaining, vectors))
                except Exception:  # no trustworthy re-derivation: drop the knowledge rather than keep stale text
                    summary = None
        if summary is None:
            doomed.append(record)
            released.extend(r.evolve(consolidated_into=None) for r in remaining)
        else:
            updated = record.evolve(summary=summary, raw_content=summary, entities=shared_entities(remaining),
                                    derived_from=[r.id for r in remaining],
                                    confirmations=sum(r.confirmations for r in remaining))
            rederived.append((updated, embed([summary])[0]))
    return doomed, rederived, released


#: how many neighbours of new episodes the after-write check tries as group leaders
LEADERS = 64


def neighbourhood(store: MemoryStore, user: str, around: Sequence[tuple[MemoryRecord, np.ndarray]],
                  semantic: SemanticConfig, embed: EmbedTexts | None = None) -> list[Hit]:
    """The episodes any group completed by the new ones can hold: two hops of neighbours, bounded.

    A group's leader is a neighbour of a new episode, and its members are the leader's neighbours. The first hop takes
    the 64 nearest whatever their cosine, so the pool holds the background a member must stand out from too; at most
    `LEADERS` leaders are tried. Closeness is read on the decision vectors (`write.decisions`).
    """
    asked = np.asarray([v for _, v in around])
    first = store.neighbours(user, asked, limit=64, min_score=-1.0, scope=_EPISODES)
    pool = {h.record.id: h for hits in first for h in hits}
    hits = list(pool.values())
    near = (decision_vectors([h.record for h in hits], [h.vector for h in hits], embed) @ asked.T).max(axis=1) \
        if hits else np.zeros(0)
    score = {h.record.id: float(s) for h, s in zip(hits, near)}
    close = {i for i, s in score.items() if s >= semantic.group_similarity}
    fresh = {r.id for r, _ in around}
    if not close - fresh and sum(times_said(r) for r, _ in around) < semantic.min_episodes:
        return []  # no episode near the new ones, and they were not said often enough alone: no group to complete
    leaders = sorted((h for h in hits if h.record.id not in fresh and h.record.id in close),
                     key=lambda h: (-score[h.record.id], h.seq))[:LEADERS]
    if leaders:
        for more in store.neighbours(user, decision_vectors([h.record for h in leaders], [h.vector for h in leaders],
                                                            embed), limit=64, min_score=-1.0, scope=_EPISODES):
            for h in more:
                pool.setdefault(h.record.id, h)
    return list(pool.values())


def link_fields(record: MemoryRecord) -> dict:
    """The fields consolidation changes on existing records."""
    payload = record_to_dict(record)
    return {k: payload[k] for k in ("consolidated_into", "derived_from", "confirmations", "last_confirmed")}


