"""The retrieval check on recall: a recalled memory against the related memories it contradicts.

It runs only when an agent or a tool wrote one of the candidates (a planted
memory can only come from them; the check costs more than the rest of recall).
What an agent or a tool wrote is held back when the related memories contradict
it; what the user said is only down-weighted (×0.5): two true statements can
look contradictory to the cues ("milestone 1" vs "milestone 2"), and a recall
must not come back empty because of that. A memory a newer one of the user's
supersedes steps back only for a question about the present, as for a change of
mind (`recall.plan.weights_for`): asked about the past ("What was my locker code?",
"What did you suggest?"), it is what was true or said then, and keeps its place
(its verdict is still noted). On the knowledge set and its four held-out slices this
raised recall@5 by -0.7 to +4.4 points and left the new value first unchanged
(`python -m benchmarks.knowledge`). Nothing is withheld silently: what
is held back is returned beside the results (`RecallResults.held_back`), each
with the check's verdict and reason in its explanation's notes. The rules
themselves are in `hindsight_core.recall.consensus`.

A verdict is given to every candidate that would be shown (the top k as
`recall.plan.final_order` places them), and only to those: what is held back or
down-weighted lets the next candidates up, and they are checked in turn, until
every memory shown has its verdict. Every candidate still votes, with the
related memories the engine finds around each of them (`store.neighbours`: ids
and scores in one round trip, then the records of those not among the
candidates), so a shown memory gets the verdict it got when every candidate was
checked; a turn no longer pays for verdicts nobody reads (docs/scale.md).
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
_DOWNWEIGHT = {verdict: 0.5 for verdict in FLAGGED}

HELD_BACK_NOTE = "held back by the retrieval check"


def _noted(r: ScoredMemory, note: str) -> ScoredMemory:
    return ScoredMemory(r.memory, r.score, r.retention, dataclasses.replace(
        r.explanation, final=r.score, notes=r.explanation.notes + (note,)))


def _planted(r: ScoredMemory, checks: dict[str, ConsensusCheck]) -> bool:
    """An agent's or a tool's memory that the related memories contradict: held back."""
    check = checks.get(r.memory.id)
    return check is not None and check.verdict is Verdict.CONTRADICTS and r.memory.source in (Source.AGENT,
                                                                                             Source.TOOL)


def _after(results: list[ScoredMemory], checks: dict[str, ConsensusCheck],
           downweight: dict[Verdict, float]) -> list[ScoredMemory]:
    """The results once the verdicts so far apply: the planted held back, the other flagged down-weighted."""
    return list(apply_consensus([r for r in results if not _planted(r, checks)], ConsensusReport(tuple(checks.values())),
                                drop=(), downweight=downweight))


def _shown_checked(results: list[ScoredMemory], k: int, pool: ConsensusPool,
                   downweight: dict[Verdict, float]) -> dict[str, ConsensusCheck]:
    """A verdict for each result that would be shown, and for those it lets up when it holds one back or
    down-weights it, until every result in the top k has one."""
    checks: dict[str, ConsensusCheck] = {}
    current = results
    while todo := [r for r in final_order(current, k) if r.memory.id not in checks]:
        checks.update((r.memory.id, pool.check(r.memory.id)) for r in todo)
        current = _after(results, checks, downweight)
    return checks


def check_recalled(store: LiveStore, user: str, results: list[ScoredMemory], hits: dict[str, Hit], *, k: int,
                   config: ConsensusConfig, judge: Callable[[str], str] | None, superseded_steps_back: bool = True
                   ) -> tuple[list[ScoredMemory], list[ScoredMemory], ConsensusReport]:
    """(the results after the check, those it held back, its report): all empty but the results when no agent
    or tool wrote a result. Every result in the top `k` afterwards (as `final_order` places them) was checked
    against every result and the related memories around each. Held back: each agent's or tool's result that
    would have been in the top k but for the check (at first, or let up when one above it was held back or
    down-weighted), its notes saying so and why. The report holds the checks made, in the results' order.
    `superseded_steps_back`: whether a superseded memory is down-weighted (a question about the present)."""
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
    downweight: dict[Verdict, float] = _DOWNWEIGHT if superseded_steps_back else \
        {verdict: factor for verdict, factor in _DOWNWEIGHT.items() if verdict is not Verdict.SUPERSEDED}
    checks = _shown_checked(results, k, pool, downweight)

    def why(check: ConsensusCheck) -> str:
        return check.verdict.value + (f" ({check.reasons[0]})" if check.reasons else "")

    out = [_noted(r, f"retrieval check: {why(checks[r.memory.id])}") if r.memory.id in checks
           and checks[r.memory.id].flagged else r for r in _after(results, checks, downweight)]
    held = [_noted(r, f"{HELD_BACK_NOTE}: {why(checks[r.memory.id])}") for r in results if _planted(r, checks)]
    return out, held, ConsensusReport(tuple(checks[r.memory.id] for r in results if r.memory.id in checks))
