"""Retrieval metrics for LoCoMo, as in the paper, and their summary per category.

recall@k = |evidence ∩ ids covered by the top k| / |evidence|, averaged over
questions; a question without evidence counts as 1 (as in the LoCoMo paper).
any-hit@k = 1 if at least one evidence id is covered by the top k (1 without evidence).
"""

from __future__ import annotations

import json
import re
import statistics
from typing import Iterable, Sequence

from hindsight_core.recall.formatting import neutralise

from benchmarks.harness import percentiles  # noqa: F401  (re-exported: metrics and timings summarised one way)
from benchmarks.locomo import CATEGORIES


def covered(ranked: Sequence[Iterable[str]], k: int) -> set[str]:
    """Dialog ids covered by the first k results (each result covers one or more ids)."""
    out: set[str] = set()
    for ids in ranked[:k]:
        out.update(ids)
    return out


def recall_at_k(ranked: Sequence[Iterable[str]], evidence: Sequence[str], k: int) -> float:
    if not evidence:
        return 1.0
    return len(covered(ranked, k) & set(evidence)) / len(set(evidence))


def any_hit_at_k(ranked: Sequence[Iterable[str]], evidence: Sequence[str], k: int) -> float:
    if not evidence:
        return 1.0
    return 1.0 if covered(ranked, k) & set(evidence) else 0.0


def question_row(category: int, ranked: Sequence[Iterable[str]], evidence: Sequence[str], tokens: int,
                 latency_ms: float | None) -> dict:
    return {"category": category, "recall@5": recall_at_k(ranked, evidence, 5),
            "recall@10": recall_at_k(ranked, evidence, 10), "hit@5": any_hit_at_k(ranked, evidence, 5),
            "tokens": tokens, "latency_ms": latency_ms}


def summarise(rows: Sequence[dict]) -> dict:
    """Per category (by name) and 'overall': recall@5/@10 and hit@5 in percent, mean tokens, latency."""
    groups: dict[str, list[dict]] = {"overall": list(rows)}
    for row in rows:
        groups.setdefault(CATEGORIES.get(row["category"], f"category {row['category']}"), []).append(row)
    out = {}
    for name, group in groups.items():
        latencies = [r["latency_ms"] for r in group if r["latency_ms"] is not None]
        out[name] = {
            "questions": len(group),
            "recall@5": round(100 * statistics.fmean(r["recall@5"] for r in group), 1),
            "recall@10": round(100 * statistics.fmean(r["recall@10"] for r in group), 1),
            "hit@5": round(100 * statistics.fmean(r["hit@5"] for r in group), 1),
            "tokens": round(statistics.fmean(r["tokens"] for r in group), 1),
            **({"tokens_full_text": round(statistics.fmean(r["tokens_full_text"] for r in group), 1)}
               if all("tokens_full_text" in r for r in group) else {}),
            **({"latency": percentiles(latencies)} if latencies else {}),
        } if group else {"questions": 0}
    return out


_SPACE = re.compile(r"\s+")


def squash(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def shown_whole(words: str, block: str) -> bool:
    """Whether a text's own words appear whole in a prompt block: as they are, defused (`neutralise`), or
    quoted as a JSON string (how the block quotes what others said and the turn a memory answers)."""
    if not words:
        return False
    flat, defused = squash(block), squash(neutralise(words))
    return any(form in flat for form in (squash(words), defused, json.dumps(defused, ensure_ascii=False)[1:-1]))


def evidence_in_block(block: str, evidence: Sequence[str], words: dict[str, str]) -> float:
    """Share of the evidence whose own words appear whole in the block (1 without evidence)."""
    if not evidence:
        return 1.0
    return sum(shown_whole(words.get(e, ""), block) for e in set(evidence)) / len(set(evidence))
