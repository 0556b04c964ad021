"""What is true now, decided when recalling: the user's statements on one subject in the order of the time asked about.

A verdict made when writing must be right forever; at recall time a wrong guess costs only an order. Among the first
candidates (`RecallConfig.timeline_depth`), the user's statements (and an agent's answer standing for the one it
answers) are on one subject when their vectors are close (`RecallConfig.same_subject_similarity`) or a supersession
joined them, and so is a third close to either. A subject keeps its places, latest first for the present, earliest
first for the past tense; a question naming a date is left to the time priors. Each statement keeps the ids of the
later ones on its subject (`ScoredMemory.later`); an answer never stands above its statement (`_answers_below`), and
for the present one restating a statement ranked below the first candidates gives it its place
(`_statements_for_answers`).
"""
from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Mapping, Sequence

import numpy as np

from ..config import RecallConfig
from ..types import MemoryRecord, ScoredMemory, Source
from ..write.rules import is_question

#: what a question asks about in time (`language.asked_time.CLASSES`)
PRESENT, PAST, DATE = "present", "past", "date"


def states(result: ScoredMemory) -> bool:
    """Whether a result is a statement of the user's: their own words, not a question."""
    return result.memory.source is Source.USER and not is_question(result.memory.raw_content)


def stands_for(result: ScoredMemory, results: Sequence[ScoredMemory]) -> MemoryRecord | None:
    """The user's statement a result stands for: itself, or for an agent's or a tool's answer, the statement among
    `results` it answers; None for anything else."""
    if states(result):
        return result.memory
    return next((r.memory for r in results if states(r) and result.memory.answers(r.memory)), None)


def subjects(window: Sequence[ScoredMemory], statements: Sequence[MemoryRecord | None],
             vectors: Mapping[str, np.ndarray], recall: RecallConfig) -> list[set[int]]:
    """For each candidate of `window`, the positions of the others on its subject (see the module doc)."""
    rows = [vectors.get(r.memory.id) for r in window]
    root = list(range(len(window)))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for i, a in enumerate(statements):
        for j in range(i + 1, len(window)):
            b, va, vb = statements[j], rows[i], rows[j]
            if a is None or b is None:
                continue
            joined = a.id == b.id or a.superseded_by == b.id or b.superseded_by == a.id
            close = va is not None and vb is not None and float(np.dot(va, vb)) >= recall.same_subject_similarity
            if joined or close:
                root[find(i)] = find(j)
    return [{j for j in range(len(window)) if j != i and find(j) == find(i)} for i in range(len(window))]


def ordered(results: list[ScoredMemory], vectors: Mapping[str, np.ndarray], asked: str,
            recall: RecallConfig, shown: int) -> list[ScoredMemory]:
    """`results` (best first) with the first `timeline_depth` of the `shown` in the order of the time `asked` about
    (see the module docstring)."""
    depth = min(recall.timeline_depth, shown, len(results))
    if asked == PRESENT:  # asked about the past, what the assistant said then is what is asked about
        results = _statements_for_answers(results, depth, vectors, recall.same_subject_similarity)
    window, rest = results[:depth], results[depth:]
    statements = [stands_for(r, results) for r in window]
    related = subjects(window, statements, vectors, recall)
    when: list[datetime] = [s.said_last if s is not None else r.memory.said_last for r, s in zip(window, statements)]
    out = [dataclasses.replace(r, later=tuple(window[j].memory.id for j in sorted(later, key=lambda j: when[j])))
           if (later := [j for j in related[i] if when[j] > when[i]]) else r for i, r in enumerate(window)]
    if asked != DATE:
        marked, latest_first = list(out), asked != PAST
        for places in {tuple(sorted({i, *related[i]})) for i in range(depth) if related[i]}:
            # the subject keeps the places it holds; in them, its candidates in the order of the time asked about
            chosen = sorted(places, key=lambda i: (-when[i].timestamp() if latest_first else when[i].timestamp(), i))
            for place, i in zip(places, chosen):
                out[place] = marked[i]
    return _answers_below(out, depth) + rest


def _statements_for_answers(results: list[ScoredMemory], shown: int, vectors: Mapping[str, np.ndarray],
                            close: float) -> list[ScoredMemory]:
    """`results` with each agent's answer among the first `shown` that restates a statement of the user's ranked
    below them (their vectors `close`: an acknowledgement, a paraphrase) swapped with that statement: the user's words
    outrank what was said about them ("Understood, vegetarian from now on" gives its place to "I've gone vegetarian"),
    and the answer is not lost (it goes where the statement was). What a tool reports keeps its place."""
    out = list(results)

    def restates(answer: ScoredMemory, statement: ScoredMemory) -> bool:
        a, b = vectors.get(answer.memory.id), vectors.get(statement.memory.id)
        return answer.memory.source is Source.AGENT and answer.memory.answers(statement.memory) \
            and a is not None and b is not None and float(np.dot(a, b)) >= close

    for i in range(min(shown, len(out))):
        if not states(out[i]):
            j = next((j for j in range(shown, len(out)) if states(out[j]) and restates(out[i], out[j])), None)
            if j is not None:
                out[i], out[j] = out[j], out[i]
    return out


def _answers_below(results: list[ScoredMemory], shown: int) -> list[ScoredMemory]:
    """`results` with each answer among the first `shown` below the user's statement it answers, when both are: the
    user's words outrank what was said about them, and an answer to a statement not shown keeps its place (it may
    hold what the assistant said: "Try the market at dawn")."""
    out = list(results)
    top = min(shown, len(out))
    for i in range(top):
        for j in range(i + 1, top):
            if not states(out[i]) and states(out[j]) and out[i].memory.answers(out[j].memory):
                out[i], out[j] = out[j], out[i]
    return out
