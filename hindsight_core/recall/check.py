"""The retrieval check on recall: a recalled memory against the related memories it contradicts.

It runs only when an agent or a tool wrote one of the results (a planted
memory can only come from them; the check costs more than the rest of recall).
What an agent or a tool wrote is held back when the related memories contradict
it; what the user said is only down-weighted (×0.5): two true statements can
look contradictory to the cues ("milestone 1" vs "milestone 2"), and a recall
must not come back empty because of that. Nothing is withheld silently: what
is held back is returned beside the results (`RecallResults.held_back`), each
with the check's verdict and reason in its explanation's notes. The rules
themselves are in `hindsight_core.recall.consensus`.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from ..store.base import Hit, LiveStore, Scope
from ..types import ScoredMemory, Source
from .consensus import FLAGGED, ConsensusConfig, ConsensusReport, Verdict, apply_consensus, check_consensus

_ACTIVE = Scope()


HELD_BACK_NOTE = "held back by the retrieval check"


def _noted(r: ScoredMemory, note: str) -> ScoredMemory:
    return ScoredMemory(r.memory, r.score, r.retention, dataclasses.replace(
        r.explanation, final=r.score, notes=r.explanation.notes + (note,)))


def check_recalled(store: LiveStore, user: str, results: list[ScoredMemory], hits: dict[str, Hit], *,
                   config: ConsensusConfig, judge: Callable[[str], str] | None
                   ) -> tuple[list[ScoredMemory], list[ScoredMemory], ConsensusReport]:
    """(the results after the check, those it held back, its report): all empty but the results when no agent
    or tool wrote a result. A held-back memory's notes say so and why."""
    if all(r.memory.source in (Source.USER, Source.SYSTEM) for r in results):
        return results, [], ConsensusReport(())
    vectors = np.asarray([hits[r.memory.id].vector for r in results], dtype=np.float32)
    recalled = {r.memory.id for r in results}
    related: dict[str, Hit] = {}
    for near in store.neighbours(user, vectors, limit=5 + len(results), min_score=config.relate_at, scope=_ACTIVE):
        for hit in near:
            if hit.record.id not in recalled:
                related.setdefault(hit.record.id, hit)
    pool = list(related.values())
    report = check_consensus(results, vectors, [h.record for h in pool],
                             np.asarray([h.vector for h in pool], dtype=np.float32) if pool else None,
                             config=config, judge=judge)
    flagged = {c.memory_id: c for c in report.flagged}
    planted = {r.memory.id for r in results if r.memory.source in (Source.AGENT, Source.TOOL)
               and r.memory.id in flagged and flagged[r.memory.id].verdict is Verdict.CONTRADICTS}
    checked = apply_consensus([r for r in results if r.memory.id not in planted], report, drop=(),
                              downweight={verdict: 0.5 for verdict in FLAGGED})
    def why(check) -> str:
        return check.verdict.value + (f" ({check.reasons[0]})" if check.reasons else "")

    out = [_noted(r, f"retrieval check: {why(flagged[r.memory.id])}") if r.memory.id in flagged else r
           for r in checked]
    held = [_noted(r, f"{HELD_BACK_NOTE}: {why(flagged[r.memory.id])}") for r in results if r.memory.id in planted]
    return out, held, report
