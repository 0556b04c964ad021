"""The retrieval check on recall: a recalled memory against the related memories it contradicts.

It runs only when an agent or a tool wrote one of the results (a planted
memory can only come from them; the check costs more than the rest of recall).
What an agent or a tool wrote is dropped when the related memories contradict
it; what the user said is only down-weighted (×0.5): two true statements can
look contradictory to the cues ("milestone 1" vs "milestone 2"), and a recall
must not come back empty because of that. The rules themselves are in
`hindsight_core.recall.consensus`.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from ..store.base import Hit, LiveStore, Scope
from ..types import ScoredMemory, Source
from .consensus import FLAGGED, ConsensusConfig, ConsensusReport, Verdict, apply_consensus, check_consensus

_ACTIVE = Scope()


def check_recalled(store: LiveStore, user: str, results: list[ScoredMemory], hits: dict[str, Hit], *,
                   config: ConsensusConfig, judge: Callable[[str], str] | None
                   ) -> tuple[list[ScoredMemory], ConsensusReport]:
    """The results after the check, and its report (empty when no agent or tool wrote a result)."""
    if all(r.memory.source in (Source.USER, Source.SYSTEM) for r in results):
        return results, ConsensusReport(())
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
    out = []
    for r in checked:
        check = flagged.get(r.memory.id)
        if check is not None:
            note = f"retrieval check: {check.verdict.value}" + (f" ({check.reasons[0]})" if check.reasons else "")
            r = ScoredMemory(r.memory, r.score, r.retention, dataclasses.replace(
                r.explanation, final=r.score, notes=r.explanation.notes + (note,)))
        out.append(r)
    return out, report
