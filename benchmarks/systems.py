"""The retrieval systems compared on LoCoMo: hindsight and the plain baselines.

A system is opened once per conversation with the turns' texts (one text per
turn, the same strings for every system) and then searched per question. A
search returns hits, best first; each hit names the dialog ids it covers and
the line it would put into a prompt.

Baselines (same texts, same MiniLM vectors): BM25 alone (rank-bm25's Okapi,
lower-cased word tokens), dense alone (cosine over the vectors with numpy), and
their reciprocal-rank fusion (k = 60). Their prompt is the same block as
hindsight's (same header and tags), one "- [date] text" line per hit.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Callable, Sequence

import numpy as np
from benchmarks.locomo import Conversation, Turn
from benchmarks.timeaware import fuse_rankings, query_window

from hindsight_core import Hindsight, HindsightConfig, Source, count_tokens
from hindsight_core.recall.formatting import CLOSE_TAG, DEFAULT_HEADER, OPEN_TAG, neutralise
from hindsight_core.testing import FrozenClock

#: questions are asked this long after the last session started
QUESTION_DELAY = timedelta(hours=1)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Hit:
    ids: tuple[str, ...]
    line: str


def block_tokens(lines: Sequence[str]) -> int:
    """Tokens of a prompt block shaped like hindsight's (header, tags, one line per hit)."""
    if not lines:
        return 0
    return count_tokens("\n".join([OPEN_TAG, DEFAULT_HEADER, *lines, CLOSE_TAG]))


class Session:
    """One conversation indexed by one system."""

    def search(self, query: str, k: int) -> list[Hit]:
        raise NotImplementedError

    def prompt_tokens(self, hits: Sequence[Hit]) -> int:
        return block_tokens([h.line for h in hits])

    def close(self) -> None:
        pass


class System:
    name = "system"
    kind = "baseline"

    def open(self, conversation: Conversation, texts: Sequence[str]) -> Session:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        return {}


def _lines(conversation: Conversation, texts: Sequence[str]) -> list[str]:
    return [f"- [{t.timestamp:%Y-%m-%d}] {neutralise(x)}" for t, x in zip(conversation.turns, texts)]


class _RankedSession(Session):
    def __init__(self, conversation: Conversation, texts: Sequence[str], ranker) -> None:
        self.ids = [(t.dia_id,) for t in conversation.turns]
        self.lines = _lines(conversation, texts)
        self.ranker = ranker

    def search(self, query: str, k: int) -> list[Hit]:
        return [Hit(self.ids[i], self.lines[i]) for i in self.ranker(query, k)]


def query_vector(embedder, text: str) -> np.ndarray:
    """A query's vector through the embedder's query side where it has one (e5), as hindsight does."""
    return getattr(embedder, "embed_query", embedder.embed)([text])[0]


def _top(scores: np.ndarray, k: int) -> list[int]:
    k = min(k, len(scores))
    part = np.argpartition(-scores, k - 1)[:k]
    return part[np.argsort(-scores[part], kind="stable")].tolist()


def rrf(rankings, k: int = 60) -> dict[int, float]:
    """Plain reciprocal-rank fusion: Σ 1 / (k + rank), ranks 1-based."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            fused[item] = fused.get(item, 0.0) + 1.0 / (k + rank)
    return fused


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class BM25System(System):
    name = "bm25"

    def open(self, conversation, texts):
        from rank_bm25 import BM25Okapi

        bm25 = BM25Okapi([words(t) for t in texts])
        return _RankedSession(conversation, texts, lambda q, k: _top(np.asarray(bm25.get_scores(words(q))), k))


class DenseSystem(System):
    name = "dense"

    def __init__(self, embedder) -> None:
        self.embedder = embedder

    def open(self, conversation, texts):
        matrix = np.asarray(self.embedder.embed(list(texts)), dtype=np.float32)
        return _RankedSession(conversation, texts, lambda q, k: _top(matrix @ query_vector(self.embedder, q), k))


class RRFSystem(System):
    """BM25 and dense, each ranking every turn, fused by reciprocal rank (k = 60, equal weights)."""

    name = "bm25+dense rrf"

    def __init__(self, embedder, rrf_k: int = 60, depth: int = 100) -> None:
        self.embedder, self.rrf_k, self.depth = embedder, rrf_k, depth

    def open(self, conversation, texts):
        from rank_bm25 import BM25Okapi

        bm25 = BM25Okapi([words(t) for t in texts])
        matrix = np.asarray(self.embedder.embed(list(texts)), dtype=np.float32)

        def rank(query: str, k: int) -> list[int]:
            channels = {"dense": _top(matrix @ query_vector(self.embedder, query), self.depth),
                        "bm25": _top(np.asarray(bm25.get_scores(words(query))), self.depth)}
            fused = rrf(channels.values(), self.rrf_k)
            return sorted(fused, key=lambda i: -fused[i])[:k]

        return _RankedSession(conversation, texts, rank)


SOURCE_MAPS = ("both_user", "a_user_b_agent")


@dataclass
class HindsightSystem(System):
    """hindsight's own write and recall paths, one user namespace per conversation.

    Each turn is one `write` (the session date as its timestamp, the speaker's
    source, `metadata={"dia_ids": [...], "speaker": ...}`, session_id
    "session-N"), so a recalled memory covers the dialog ids it was written from.
    Questions are asked with `recall(k=10, reinforce=False)` on a clock set one
    hour after the last session: reinforcing would let earlier questions reorder
    later ones. `force=True` stores every turn past the write gate.
    """

    embedder: Any
    name: str = "hindsight"
    force: bool = False
    config: HindsightConfig | None = None
    source_map: str = "both_user"
    storage: str = "path"  # "path": the embedded on-disk store (the default users get); "memory": :memory:
    recall_options: dict[str, Any] = field(default_factory=dict)
    #: what to write instead of one memory per turn: conversation -> [(text, dialog ids, first turn)]
    units: Callable[[Conversation], list[tuple[str, tuple[str, ...], Turn]]] | None = None
    #: prototype (timeaware.py): dates named in the question as a soft time prior
    time_aware: bool = False
    #: other keyword arguments for Hindsight(...), e.g. {"consensus": False}
    options: dict[str, Any] = field(default_factory=dict)
    #: write each turn with the turn it answers (the previous one of its session) as `context`, as the
    #: adapters do; the memory then covers both dialog ids
    exchanges: bool = True
    kind: str = "hindsight"
    stats: dict[str, int] = field(default_factory=lambda: {"offered": 0, "stored": 0, "memories": 0})

    def describe(self) -> dict[str, Any]:
        return {"force": self.force, "source_map": self.source_map, "storage": self.storage,
                "config": repr(self.config) if self.config else "default", "recall_options": self.recall_options,
                "time_aware": self.time_aware, "units": getattr(self.units, "__name__", None),
                "options": self.options, "exchanges": self.exchanges}

    def source_for(self, conversation: Conversation, speaker: str) -> Source:
        if self.source_map == "a_user_b_agent" and speaker == conversation.speaker_b:
            return Source.AGENT
        return Source.USER

    def open(self, conversation, texts):
        return _HindsightSession(self, conversation, texts)


class _HindsightSession(Session):
    def __init__(self, system: HindsightSystem, conversation: Conversation, texts: Sequence[str]) -> None:
        self.system, self.user = system, conversation.sample_id
        self.clock = FrozenClock(conversation.turns[0].timestamp)
        self.folder = tempfile.mkdtemp(prefix="hindsight-locomo-") if system.storage == "path" else None
        where = {"path": self.folder} if self.folder else {"location": ":memory:"}
        self.memory = Hindsight(**where, embedder=system.embedder, clock=self.clock, config=system.config,
                                **system.options)
        units = system.units(conversation) if system.units else \
            [(text, (turn.dia_id,), turn) for turn, text in zip(conversation.turns, texts)]
        if hasattr(system.embedder, "warm"):
            warm = [u[0] for u in units]
            if system.exchanges:  # what the writes embed: each turn with the one it answers
                warm += [f"{a[0]}\n{b[0]}" for a, b in zip(units, units[1:]) if a[2].session == b[2].session]
            system.embedder.warm(warm)  # one batch for the model; the writes read the cache
            if hasattr(system.embedder, "save"):
                system.embedder.save()  # an interrupted run keeps what it embedded
        self.covers: dict[str, set[str]] = {}  # memory id -> dialog ids written into it
        previous: tuple[str, tuple[str, ...], Any] | None = None
        for text, dia_ids, turn in units:
            self.clock.set(turn.timestamp)
            answers = previous if (system.exchanges and previous is not None
                                   and previous[2].session == turn.session) else None
            result = self.memory.write(text, user_id=self.user, timestamp=turn.timestamp,
                                       source=system.source_for(conversation, turn.speaker),
                                       session_id=f"session-{turn.session}", force=system.force,
                                       context=answers[0] if answers else None,
                                       metadata={"dia_ids": list(dia_ids) + (list(answers[1]) if answers else []),
                                                 "speaker": turn.speaker})
            previous = (text, dia_ids, turn)
            system.stats["offered"] += 1
            system.stats["stored"] += int(result.stored)
            if result.record is not None:  # a merged duplicate returns the memory it merged into
                self.covers.setdefault(result.record.id, set()).update(dia_ids)
        system.stats["memories"] += len(self.memory.memories(user_id=self.user, include_inactive=False))
        self.clock.set(conversation.last_time + QUESTION_DELAY)
        self.last_results: list = []

    def search(self, query, k):
        options = {"reinforce": False, **self.system.recall_options}
        self.last_results = self.memory.recall(query, user_id=self.user, k=k, **options)
        window = query_window(query, self.memory.now()) if self.system.time_aware else None
        if window is not None:
            within = self.memory.recall(query, user_id=self.user, k=k, time_range=window, **options)
            self.last_results = fuse_rankings([within, self.last_results], key=lambda r: r.memory.id)[:k]
        return [Hit(self.covered_by(r.memory), r.memory.summary) for r in self.last_results]

    def covered_by(self, record) -> tuple[str, ...]:
        """Dialog ids a memory was written from: its own, and those of the episodes it was derived from."""
        ids = set(record.metadata.get("dia_ids", ())) | self.covers.get(record.id, set())
        for source_id in getattr(record, "derived_from", None) or ():
            ids |= self.covers.get(source_id, set())
        return tuple(sorted(ids))

    def prompt_tokens(self, hits):
        return count_tokens(self.memory.format_for_prompt(self.last_results[: len(hits)])) if hits else 0

    def full_text_tokens(self, hits) -> int:
        """Tokens of the same block with each memory's whole text instead of its one-line summary."""
        return block_tokens([f"- [{r.memory.timestamp:%Y-%m-%d}] {neutralise(r.memory.raw_content)}"
                             for r in self.last_results[: len(hits)]])

    def close(self):
        self.memory.close()
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)
