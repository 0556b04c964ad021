"""Forgetting: which memories a request names, and what forgetting them does to the knowledge drawn from them.

By topic: a memory whose embedding is at least `forget_similarity` close to the topic, or at least
`forget_similarity_with_overlap` close and sharing an entity or a keyword with it (read as recall's keyword channel
reads words). Knowledge drawn from forgotten episodes goes or is re-derived (`consolidate.plan.plan_forget_derived`).
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import numpy as np

from ..config import HindsightConfig
from ..consolidate.plan import plan_forget_derived
from ..language.entities import extract_entities
from ..language.text import is_cjk, keyword_tokens
from ..store.base import ALL, ARCHIVE, MemoryStore
from ..store.points import document_terms, query_terms
from ..types import Layer, MemoryRecord
from ..write.rules import text_script


Embedder = Callable[[Sequence[str]], np.ndarray]


#: the memories at least `forget_similarity_with_overlap` close to each of the vectors, with their cosine
Near = Callable[[np.ndarray], list[list[tuple[MemoryRecord, float]]]]


def about(store: MemoryStore, user: str, topic: str, vector: np.ndarray, config: HindsightConfig,
          embed: Embedder | None = None) -> list[MemoryRecord]:
    """The memories `forget(about=topic)` removes, oldest first (`_named`)."""
    def near(vectors: np.ndarray) -> list[list[tuple[MemoryRecord, float]]]:
        found = store.neighbours(user, vectors, limit=config.limits.max_batch,
                                 min_score=config.forget_similarity_with_overlap, scope=ALL)
        return [[(hit.record, hit.score) for hit in hits] for hits in found]

    return _named(topic, vector, near, config, embed)


def archived_about(store: MemoryStore, user: str, topic: str, vector: np.ndarray, config: HindsightConfig,
                   embed: Embedder | None = None, named: Sequence[MemoryRecord] = ()) -> list[MemoryRecord]:
    """The archived memories (`hindsight archive`) `forget(about=topic)` removes too, by the same rule as `about`;
    `named`: the live memories it removes, whose translations in the archive go too."""
    if not store.space_exists(user, ARCHIVE):
        return []
    weak = config.forget_similarity_with_overlap
    archived = [(record, np.asarray(stored, dtype=np.float32)) for record, stored, _ in store.load_space(user, ARCHIVE)]

    def near(vectors: np.ndarray) -> list[list[tuple[MemoryRecord, float]]]:
        scored = [[(record, float(np.dot(stored, row))) for record, stored in archived] for row in vectors]
        return [[(record, score) for record, score in row if score >= weak] for row in scored]

    return _named(topic, vector, near, config, embed, also=named)


def _named(topic: str, vector: np.ndarray, near: Near, config: HindsightConfig, embed: Embedder | None,
           also: Sequence[MemoryRecord] = ()) -> list[MemoryRecord]:
    """What the topic names among `near`'s memories (`_judged`), and what those, and `also`, say in another script
    (`_in_other_scripts`), oldest first."""
    named = _judged(topic, vector, near(vector[None, :])[0], config, embed)
    across = _in_other_scripts([*also, *named], near, config, embed)
    return sorted(named + [r for r in across if r.id not in {n.id for n in named}], key=lambda r: r.timestamp)


def _in_other_scripts(named: list[MemoryRecord], near: Near, config: HindsightConfig,
                      embed: Embedder | None) -> list[MemoryRecord]:
    """The memories in another script that a memory the topic names names in turn, by the topic's rule (`_judged`).

    A topic of a few words sits further from a sentence in the other script than from one in its own, while a
    sentence and its translation are close: so what the topic names in its own script stands for it in the
    others. Only across scripts, and one step only.
    """
    if not named or embed is None:
        return []
    own = np.asarray(embed([r.raw_content for r in named]), dtype=np.float32)
    taken = {r.id for r in named}
    found: list[MemoryRecord] = []
    for record, vector, hits in zip(named, own, near(own)):
        script = text_script(record.raw_content)
        across = [(other, score) for other, score in hits
                  if other.id not in taken and text_script(other.raw_content) != script]
        for other in _judged(record.raw_content, vector, across, config, embed):
            if other.id not in taken:
                taken.add(other.id)
                found.append(other)
    return found


def _judged(topic: str, vector: np.ndarray, candidates: list[tuple[MemoryRecord, float]], config: HindsightConfig,
            embed: Embedder | None) -> list[MemoryRecord]:
    """The candidates the topic names: close to it, or close and sharing an entity or a keyword with it.

    A memory stored with a context is judged on its own text, embedded again (`embed`): its stored vector is near
    what its context names. A shared Chinese keyword is a two-character word, never a single character.
    """
    topic_terms = _keywords(topic) | set(query_terms(topic)[0])
    topic_entities = {e.lower() for e in extract_entities(topic)}
    strong, weak = config.forget_similarity, config.forget_similarity_with_overlap
    with_context = [i for i, (record, _) in enumerate(candidates) if record.context]
    if embed is not None and with_context:
        own = embed([candidates[i][0].raw_content for i in with_context])
        for i, row in zip(with_context, own):
            candidates[i] = (candidates[i][0], float(np.dot(np.asarray(row, dtype=np.float32), vector)))
    victims = []
    for record, score in candidates:
        if score < weak:
            continue
        words = _keywords(record.raw_content) | set(document_terms(record.raw_content)[0])
        overlap = bool(topic_entities & {e.lower() for e in record.entities}) or bool(topic_terms & words)
        if score >= strong or overlap:
            victims.append(record)
    return sorted(victims, key=lambda r: r.timestamp)


def _keywords(text: str) -> set[str]:
    """The keyword tokens a topic and a memory may share: a single CJK character is not one."""
    return {t for t in keyword_tokens(text) if not (len(t) == 1 and is_cjk(t))}


def plan(store: MemoryStore, user: str, victims: Sequence[MemoryRecord], config: HindsightConfig,
         embed: Callable[[Sequence[str]], np.ndarray], summarizer: Callable[[str], str] | None
         ) -> tuple[list[MemoryRecord], list[tuple[MemoryRecord, np.ndarray]], list[MemoryRecord]]:
    """(everything to delete, knowledge re-derived with its vector, episodes released from deleted knowledge)."""
    victim_ids = {v.id for v in victims}
    # the engine finds the knowledge drawn from a victim: no scan of every semantic memory
    drawn = dataclasses.replace(ALL, layers=frozenset({Layer.SEMANTIC}), derived_from=frozenset(victim_ids))
    knowledge = [h.record for h in store.scan(user, drawn)] if victim_ids else []
    sources = {i for k in knowledge for i in k.derived_from}
    episodes = store.get(user, sorted(sources - victim_ids), with_vectors=True)
    doomed, rederived, released = plan_forget_derived(knowledge, episodes, victim_ids, semantic=config.semantic,
                                                      embed=embed, summarizer=summarizer)
    return list(victims) + doomed, rederived, released
