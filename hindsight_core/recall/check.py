"""The retrieval check on recall: a recalled memory against the related memories it contradicts.

It runs only when an agent or a tool wrote one of the candidates. What an agent or a tool wrote is held back when the
related memories contradict it (returned in `RecallResults.held_back`, the verdict in its notes); what the user said is
only down-weighted (×0.5): two true statements can look contradictory to the cues. A superseded memory keeps its score,
the verdict in its notes: `recall.timeline` orders what is current. The rules are in `recall.consensus`. Each candidate
that would be shown (the top k as `recall.plan.final_order` places them), and only those, gets a verdict; every
candidate still votes, with the related memories the engine finds around it.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from ..contract.results import FLAGGED, ConsensusCheck, ConsensusReport, Verdict
from ..store.base import Hit, LiveStore, Scope
from ..types import ScoredMemory, Source
from .consensus import ConsensusConfig, ConsensusPool, apply_consensus
from .plan import final_order

_ACTIVE = Scope()
_DOWNWEIGHT: dict[Verdict, float] = {verdict: 0.5 for verdict in FLAGGED if verdict is not Verdict.SUPERSEDED}

HELD_BACK_NOTE = "held back by the retrieval check"


def _noted(r: ScoredMemory, note: str) -> ScoredMemory:
    return ScoredMemory(r.memory, r.score, r.retention, dataclasses.replace(
        r.explanation, final=r.score, notes=r.explanation.notes + (note,)))


def _planted(r: ScoredMemory, checks: dict[str, ConsensusCheck]) -> bool:
    """An agent's or a tool's memory that the related memories contradict: held back."""
    check = checks.get(r.memory.id)
    return check is not None and check.verdict is Verdict.CONTRADICTS and r.memory.source in (Source.AGENT, Source.TOOL)


def _after(results: list[ScoredMemory], checks: dict[str, ConsensusCheck]) -> list[ScoredMemory]:
    """The results once the verdicts so far apply: the planted held back, the contradicted and tied down-weighted."""
    kept = [r for r in results if not _planted(r, checks)]
    return list(apply_consensus(kept, ConsensusReport(tuple(checks.values())), drop=(), downweight=_DOWNWEIGHT))


def _shown_checked(results: list[ScoredMemory], k: int, pool: ConsensusPool) -> dict[str, ConsensusCheck]:
    """A verdict for each result that would be shown, and for those it lets up when it holds one back or
    down-weights it, until every result in the top k has one."""
    checks: dict[str, ConsensusCheck] = {}
    current = results
    while todo := [r for r in final_order(current, k) if r.memory.id not in checks]:
        checks.update((r.memory.id, pool.check(r.memory.id)) for r in todo)
        current = _after(results, checks)
    return checks


def check_recalled(store: LiveStore, user: str, results: list[ScoredMemory], hits: dict[str, Hit], *, k: int,
                   config: ConsensusConfig, judge: Callable[[str], str] | None
                   ) -> tuple[list[ScoredMemory], list[ScoredMemory], ConsensusReport]:
    """(the results after the check, those it held back, its report): all empty but the results when no agent
    or tool wrote a result. Held back: each agent's or tool's result that would have been in the top k but for
    the check, its notes saying why."""
    if all(r.memory.source in (Source.USER, Source.SYSTEM) for r in results):
        return results, [], ConsensusReport(())
    vectors = np.asarray([hits[r.memory.id].vector for r in results], dtype=np.float32)
    candidates = {r.memory.id for r in results}
    related: dict[str, Hit] = {}
    # the candidates are found again around each other: they count toward the limit, but are not read twice
    for near in store.neighbours(user, vectors, limit=5 + len(results), min_score=config.relate_at, scope=_ACTIVE,
                                 known=candidates):
        for hit in near:
            if hit.record.id not in candidates:
                related.setdefault(hit.record.id, hit)
    pool = ConsensusPool(results, vectors, [h.record for h in related.values()],
                         np.asarray([h.vector for h in related.values()], dtype=np.float32) if related else None,
                         config=config, judge=judge)
    checks = _shown_checked(results, k, pool)

    def why(check: ConsensusCheck) -> str:
        return check.verdict.value + (f" ({check.reasons[0]})" if check.reasons else "")

    out = [_noted(r, f"retrieval check: {why(checks[r.memory.id])}") if r.memory.id in checks
           and checks[r.memory.id].flagged else r for r in _after(results, checks)]
    held = [_noted(r, f"{HELD_BACK_NOTE}: {why(checks[r.memory.id])}") for r in results if _planted(r, checks)]
    return out, held, ConsensusReport(tuple(checks[r.memory.id] for r in results if r.memory.id in checks))
