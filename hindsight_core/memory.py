"""`Hindsight`: the facade that agents and adapters call.

It validates input, asks the write gate, embeds, stores in Qdrant, and keeps
each served user's in-process index (see `hindsight_core.index`) in step with
the store. Recall fuses a dense, a keyword and a recency channel and weighs
the result by retention (see `decay` and `fusion`). Async methods run the same
sync code in a worker thread, so the two faces cannot drift apart.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from . import decay as decay_math
from .clock import Clock, days_between, ensure_utc, read_clock, system_clock
from .config import HindsightConfig
from .embedder import DEFAULT_MODEL, Embedder, SentenceTransformerEmbedder
from .entities import extract_entities
from .errors import InvalidInputError, MemoryNotFoundError, StoreUnavailableError
from .formatting import format_for_prompt
from .fusion import reciprocal_rank_fusion
from .gate import SOURCE_TRUST, RuleBasedGate, WriteGate
from .audit import Action, AuditVerdict, WriteAudit
from .consensus import FLAGGED, ConsensusConfig, ConsensusReport, Verdict, apply_consensus, check_consensus, related_neighbours
from .consolidation import plan_consolidation, plan_forget_derived
from .index import UserIndex
from .semantic import ConsolidationReport
from .writing import plan_writes
from .store import MemoryStore, QdrantStore
from .text import keyword_tokens, summarize_line, validate_id, validate_text
from .timerange import TimeRangeLike
from .validation import (check_clock, check_confidence, check_entities, check_event_types, check_flag,
                         check_metadata_keys, check_store_path, time_window)
from .types import (Explanation, ForgetReceipt, GateDecision, Layer, MemoryRecord, RecallResults,
                    ScoredMemory, Source, Status)


#: how many results past k the retrieval check sees, since it may drop some
_CONSENSUS_SPARE = 5


def _notes(record: MemoryRecord) -> tuple[str, ...]:
    """Why a result's standing differs from its scores alone, for explanations."""
    notes = []
    if record.layer is Layer.SEMANTIC:
        notes.append(f"knowledge from {len(record.derived_from)} episodes")
    if record.consolidated_into:
        notes.append(f"consolidated into {record.consolidated_into}")
    if record.superseded_by:
        notes.append(f"superseded by {record.superseded_by}")
    if record.confirmations > 1:
        notes.append(f"said {record.confirmations} times")
    return tuple(notes)


def default_home() -> Path:
    """`HINDSIGHT_HOME`, or ~/.hindsight: where the embedded store lives by default."""
    return Path(os.environ.get("HINDSIGHT_HOME") or Path.home() / ".hindsight")


def _contains(value: Any, pattern: Any) -> bool:
    """Whether `value` holds everything `pattern` does (mappings compared as subsets)."""
    if isinstance(pattern, Mapping):
        return isinstance(value, Mapping) and all(k in value and _contains(value[k], v) for k, v in pattern.items())
    return value == pattern


def _link_fields(record: MemoryRecord) -> dict[str, Any]:
    """The fields consolidation changes on existing records."""
    payload = record.to_payload()
    return {k: payload[k] for k in ("consolidated_into", "derived_from", "confirmations", "last_confirmed")}


@dataclass(frozen=True)
class WriteResult:
    """What `write` did: the stored record (None if the gate declined) and the gate's verdict."""

    record: MemoryRecord | None
    decision: GateDecision
    #: True when the text repeated a memory already held: that memory was confirmed instead
    merged: bool = False
    #: the write audit's verdict (None if the text never reached it)
    audit: AuditVerdict | None = None

    @property
    def stored(self) -> bool:
        return self.record is not None


class Hindsight:
    """Long-term memory for agents: episodic and semantic layers on Qdrant.

    Storage, pick one: `path` (embedded on disk), `location=":memory:"`, `url`
    (a Qdrant server), or `store` (any `MemoryStore`). With none, the embedded
    store under `HINDSIGHT_HOME` (default ~/.hindsight) is used.

    `embedder`: an `Embedder`, or a sentence-transformers model name or path
    (default all-MiniLM-L6-v2, shipped offline). `clock`: a zero-argument
    callable returning an aware UTC datetime. `gate`: a write gate (default
    `RuleBasedGate`). `summarizer`: a `prompt -> text` callable (e.g. a chat
    model) that writes consolidated knowledge; without one, consolidation is
    extractive and needs no model. `audit`: screens every write for poisoning
    (default `WriteAudit`, see `hindsight_core.audit`); what it rejects is not
    stored, what it quarantines is stored but never recalled. `consensus`: the
    retrieval check that drops or down-weights a recalled memory contradicting
    the related ones, run whenever a recalled memory or one of its related ones
    was written by an agent or a tool (`False` turns it off); `judge`: an
    optional `prompt -> text` model it may consult.
    """

    def __init__(self, path: str | Path | None = None, *, location: str | None = None, url: str | None = None,
                 api_key: str | None = None, store: MemoryStore | None = None,
                 embedder: Embedder | str | None = None, clock: Clock = system_clock,
                 gate: WriteGate | None = None, summarizer: Callable[[str], str] | None = None,
                 audit: Callable[[str, Source], AuditVerdict] | None = None,
                 consensus: ConsensusConfig | None | bool = True, judge: Callable[[str], str] | None = None,
                 config: HindsightConfig | None = None) -> None:
        self.config = config or HindsightConfig()
        if store is None:
            if path is None and location is None and url is None:
                path = default_home() / "store"
            store = QdrantStore(path=check_store_path(path), location=location, url=url, api_key=api_key)
        self.store = store
        if embedder is None or isinstance(embedder, str):
            embedder = SentenceTransformerEmbedder(embedder or DEFAULT_MODEL)
        self.embedder = embedder
        self.clock = check_clock(clock)
        self.gate = gate or RuleBasedGate()
        self.summarizer = summarizer
        self.audit = audit or WriteAudit()
        self.consensus = ConsensusConfig() if consensus is True else (consensus or None)
        self.judge = judge
        self._indexes: dict[str, UserIndex] = {}
        self._working_backends: list[Any] = []
        self._lock = threading.RLock()
        self._closed = False

    # -- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._indexes.clear()
                self.store.close()

    def __enter__(self) -> "Hindsight":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> datetime:
        return read_clock(self.clock)

    # -- helpers --------------------------------------------------------------------------
    def _user(self, user_id: object) -> str:
        return validate_id(user_id, max_chars=self.config.limits.max_id_chars)  # type: ignore[return-value]

    def _index(self, user_id: str, *, create: bool) -> UserIndex | None:
        if self._closed:
            raise InvalidInputError("this Hindsight instance is closed")
        index = self._indexes.get(user_id)
        if index is not None:
            return index
        exists = self.store.open_user(user_id, embedding_model=self.embedder.name,
                                      dimension=self.embedder.dimension, create=create)
        if not exists:
            return None
        migration = self.store.get_meta("migration") if hasattr(self.store, "get_meta") else None
        if migration and user_id in migration.get("swapping", ()):
            raise StoreUnavailableError(
                f"a migration to {migration.get('model')} is half done for this user; run `hindsight migrate` "
                "to finish it before using the store")
        self.store.recover(user_id)  # finish any change a crash interrupted
        index = UserIndex(self.embedder.dimension, self.config.semantic.episode_weight)
        for record, vector in self.store.load(user_id):
            index.add(record, vector)
        self._indexes[user_id] = index
        return index

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.asarray(self.embedder.embed(list(texts)), dtype=np.float32)
        if vectors.shape != (len(texts), self.embedder.dimension):
            raise InvalidInputError(
                f"embedder {self.embedder.name} returned shape {vectors.shape}, expected "
                f"({len(texts)}, {self.embedder.dimension})")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)

    def _check_metadata(self, metadata: Mapping[str, Any] | None) -> dict[str, Any]:
        if metadata is None:
            return {}
        if not isinstance(metadata, Mapping):
            raise InvalidInputError("metadata must be a mapping of str to JSON values")
        check_metadata_keys(metadata)
        limits = self.config.limits

        def depth(value: Any, level: int) -> None:
            if level > limits.max_metadata_depth:
                raise InvalidInputError(f"metadata is nested deeper than {limits.max_metadata_depth} levels")
            if isinstance(value, Mapping):
                for v in value.values():
                    depth(v, level + 1)
            elif isinstance(value, (list, tuple)):
                for v in value:
                    depth(v, level + 1)

        depth(metadata, 1)
        try:
            encoded = json.dumps(metadata, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"metadata must be JSON-serialisable: {exc}") from None
        if len(encoded.encode()) > limits.max_metadata_bytes:
            raise InvalidInputError(f"metadata is larger than {limits.max_metadata_bytes} bytes")
        return json.loads(encoded)

    # -- writing --------------------------------------------------------------------------
    def _prepare(self, text: str, *, user_id: str, session_id: str | None = None, agent_id: str | None = None,
                 source: Source | str = Source.USER, event_type: str | None = None,
                 timestamp: datetime | None = None, confidence: float | None = None,
                 entities: Sequence[str] | None = None, metadata: Mapping[str, Any] | None = None,
                 force: bool = False, layer: Layer | str = Layer.EPISODIC
                 ) -> tuple[MemoryRecord | None, GateDecision, AuditVerdict]:
        """Validate, audit and judge one write; returns the record to store (None if declined).

        `force` skips the write gate (worth keeping?), never the audit (safe to keep?).
        """
        limits = self.config.limits
        clean = validate_text(text, max_bytes=limits.max_text_bytes)
        session_id = validate_id(session_id, what="session_id", max_chars=limits.max_id_chars, required=False)
        agent_id = validate_id(agent_id, what="agent_id", max_chars=limits.max_id_chars, required=False)
        try:
            source = Source(source)
            layer = Layer(layer)
        except ValueError as exc:
            raise InvalidInputError(f"{exc}; source is one of {[s.value for s in Source]}, "
                                    f"layer one of {[x.value for x in Layer]}") from None
        if layer is Layer.WORKING:
            raise InvalidInputError("working memory is per session; use WorkingMemory, not remember()")
        if event_type is not None and (not isinstance(event_type, str) or not event_type.strip()):
            raise InvalidInputError("event_type must be a non-empty string")
        confidence, entities = check_confidence(confidence), check_entities(entities)
        force = check_flag(force, "force")
        meta = self._check_metadata(metadata)
        verdict = self.audit(clean, source)
        if verdict.action is Action.REJECT:
            return None, GateDecision(False, "rejected", ("rejected by the write audit",) + verdict.reasons, 0.0), verdict
        decision = self.gate(clean, source)
        if not decision.store and not force:
            return None, decision, verdict
        kind = event_type or decision.event_type
        # forced past the gate: a neutral confidence, still scaled by who wrote it
        conf = decision.confidence if decision.confidence > 0 else round(0.6 * SOURCE_TRUST[source], 3)
        status = Status.ACTIVE
        if verdict.action is Action.QUARANTINE:
            status = Status.QUARANTINED
            meta = {**meta, "audit": {"action": verdict.action.value,
                                      "category": verdict.category.value if verdict.category else None,
                                      "reasons": list(verdict.reasons)}}
        now = self.now()
        record = MemoryRecord(
            id=str(uuid.uuid4()), user_id=user_id, summary=summarize_line(clean), raw_content=clean,
            timestamp=ensure_utc(timestamp) if timestamp is not None else now, layer=layer, event_type=kind,
            session_id=session_id, agent_id=agent_id,
            entities=list(entities) if entities is not None else extract_entities(clean),
            confidence=float(confidence if confidence is not None else conf), source=source,
            decay_rate=self.config.decay.rate_for(kind), embedding_model=self.embedder.name, metadata=meta,
            status=status,
        )
        return record, decision, verdict

    def write(self, text: str, *, user_id: str, session_id: str | None = None, agent_id: str | None = None,
              source: Source | str = Source.USER, event_type: str | None = None,
              timestamp: datetime | None = None, confidence: float | None = None,
              entities: Sequence[str] | None = None, metadata: Mapping[str, Any] | None = None,
              force: bool = False, layer: Layer | str = Layer.EPISODIC,
              merge_duplicates: bool | None = None) -> WriteResult:
        """Offer one piece of text to memory; returns the record (if stored) and the gate's verdict."""
        return self.write_many([text], user_id=user_id, session_id=session_id, agent_id=agent_id, source=source,
                               event_type=event_type, timestamp=timestamp, confidence=confidence,
                               entities=entities, metadata=metadata, force=force, layer=layer,
                               merge_duplicates=merge_duplicates)[0]

    def write_many(self, texts: Sequence[str], *, user_id: str, timestamps: Sequence[datetime | None] | None = None,
                   sources: Sequence[Source | str] | None = None,
                   metadatas: Sequence[Mapping[str, Any] | None] | None = None,
                   merge_duplicates: bool | None = None, **common: Any) -> list[WriteResult]:
        """Offer many texts at once (one embedding batch, one store call): the fast path for imports.

        `timestamps`, `sources` and `metadatas`, if given, hold one entry per text;
        other keyword arguments are as for `write` and apply to every text. All texts
        are checked before anything is stored: one bad text stores none.
        `merge_duplicates=False` stores a repeated text as a memory of its own (for
        keyed stores, where each write must hold its own record); None uses the config.
        """
        user = self._user(user_id)
        if isinstance(texts, str) or not isinstance(texts, Sequence):
            raise InvalidInputError("texts must be a list of strings")
        if len(texts) > self.config.limits.max_batch:
            raise InvalidInputError(f"{len(texts):,} texts in one batch; the limit is {self.config.limits.max_batch:,}")
        for name, values in (("timestamps", timestamps), ("sources", sources), ("metadatas", metadatas)):
            if values is not None and len(values) != len(texts):
                raise InvalidInputError(f"{name} must have one entry per text")
        base = {k: v for k, v in common.items() if k not in ("timestamp", "source", "metadata")}
        prepared = [
            self._prepare(text, user_id=user,
                          timestamp=timestamps[i] if timestamps is not None else common.get("timestamp"),
                          source=sources[i] if sources is not None else common.get("source", Source.USER),
                          metadata=metadatas[i] if metadatas is not None else common.get("metadata"), **base)
            for i, text in enumerate(texts)
        ]
        to_store = [record for record, _, _ in prepared if record is not None]
        outcome: dict[str, tuple[MemoryRecord, bool]] = {}
        if to_store:
            vectors = self._embed([r.raw_content for r in to_store])
            with self._lock:
                index = self._index(user, create=True)
                semantic = self.config.semantic if merge_duplicates is None else \
                    dataclasses.replace(self.config.semantic, merge_duplicates=bool(merge_duplicates))
                plan = plan_writes(index, to_store, vectors, semantic)
                self.store.commit(user, upserts=plan.upserts, updates=plan.changed_fields())
                for record, vector in plan.upserts:
                    index.add(record, vector)
                for record in plan.updates.values():
                    index.update(record)
                stored_ids = {r.id for r, _ in plan.upserts}
                outcome = {new.id: (held, i in plan.merged_inputs)
                           for i, (new, held) in enumerate(zip(to_store, plan.outcome))}
                if self.config.semantic.auto_consolidate and stored_ids:
                    self._consolidate(user, index, dry_run=False, around=[r.id for r, _ in plan.upserts
                                                                          if r.layer is Layer.EPISODIC])
        results = []
        for record, decision, verdict in prepared:
            held, merged = outcome.get(record.id, (None, False)) if record is not None else (None, False)
            results.append(WriteResult(held, decision, merged, verdict))
        return results

    def remember(self, text: str, *, user_id: str, session_id: str | None = None, source: Source | str = Source.USER,
                 event_type: str | None = None, **options: Any) -> MemoryRecord | None:
        """Store `text` if the write gate finds it worth keeping; None if not (see `write` for why)."""
        return self.write(text, user_id=user_id, session_id=session_id, source=source, event_type=event_type,
                          **options).record

    # -- reading --------------------------------------------------------------------------
    def recall(self, query: str, *, user_id: str, k: int = 5, time_range: TimeRangeLike = None,
               layers: Iterable[Layer | str] | None = None, event_types: Iterable[str] | None = None,
               session_id: str | None = None, agent_id: str | None = None, reinforce: bool = True,
               include_faded: bool = False, where: Callable[[MemoryRecord], bool] | None = None) -> RecallResults:
        """The `k` memories most worth bringing back for `query`, best first.

        Channels: dense (cosine of embeddings), keyword (BM25) and recency, fused
        by weighted reciprocal-rank fusion and multiplied by retention. Memories
        below the retention threshold are left out unless `include_faded`. With
        `reinforce`, each returned memory counts as recalled (see `decay`).
        `where` is an extra predicate on each candidate record (e.g. on metadata).
        """
        user = self._user(user_id)
        limits = self.config.limits
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= limits.max_k:
            raise InvalidInputError(f"k must be an integer within 1..{limits.max_k}")
        clean = validate_text(query, max_bytes=limits.max_text_bytes, what="query")
        try:
            layer_set = {Layer(x) for x in layers} if layers is not None else None
        except ValueError as exc:
            raise InvalidInputError(f"{exc}; layers are {[x.value for x in Layer]}") from None
        types = check_event_types(event_types)
        now = self.now()
        window = time_window(time_range, now)
        query_vector = self._embed([clean])[0]
        cfg = self.config.recall
        with self._lock:
            index = self._index(user, create=False)
            if index is None or len(index) == 0:
                return RecallResults()
            mask, retention = index.eligible(
                now, self.config.decay, layers=layer_set, event_types=types,
                start=window.start if window else None, end=window.end if window else None,
                session_id=session_id, agent_id=agent_id, include_faded=include_faded, where=where)
            cands = index.rank_channels(query_vector, clean, mask, retention, cfg.candidates_per_channel,
                                         cfg.min_similarity)
            recency = index.by_recency(np.union1d(cands.dense, cands.keyword))
            slots, fused, rank_of = reciprocal_rank_fusion(
                {"dense": cands.dense, "keyword": cands.keyword, "recency": recency},
                {"dense": cfg.dense_weight, "keyword": cfg.keyword_weight, "recency": cfg.recency_weight},
                k=cfg.rrf_k)
            weight = index.weight[slots].astype(np.float64)
            final = fused * retention[slots].astype(np.float64) ** cfg.retention_power * weight
            checked = self.consensus is not None
            top = np.argsort(-final, kind="stable")[: k + (_CONSENSUS_SPARE if checked else 0)]
            results = RecallResults()
            for i in top:
                slot = int(slots[i])
                record = index.records[slot]
                explanation = Explanation(
                    dense_rank=int(rank_of["dense"][i]) or None, dense_similarity=float(cands.similarity[slot]),
                    keyword_rank=int(rank_of["keyword"][i]) or None,
                    keyword_score=float(cands.keyword_scores[slot]),
                    recency_rank=int(rank_of["recency"][i]) or None, fused=float(fused[i]),
                    retention=float(retention[slot]), layer=record.layer.value, final=float(final[i]),
                    weight=float(weight[i]), notes=_notes(record))
                results.append(ScoredMemory(record, float(final[i]), float(retention[slot]), explanation))
            if checked and results:
                results = self._check_consensus(index, results, slots[top], slots)
            # within the top k, standing knowledge comes before episodes (superseded knowledge does not)
            results = RecallResults(sorted(results[:k], key=lambda r: not (
                r.memory.layer is Layer.SEMANTIC and not r.memory.superseded_by)), consensus=results.consensus)
            if reinforce:
                self._reinforce(user, index, [r.memory for r in results], now)
        return results

    def _check_consensus(self, index: UserIndex, results: RecallResults, recalled: np.ndarray,
                         pool: np.ndarray) -> RecallResults:
        """The retrieval check: each recalled memory against the others and the related candidates."""
        if all(index.records[int(s)].source in (Source.USER, Source.SYSTEM) for s in pool):
            # nothing an agent or a tool wrote is among the candidates: the check guards against planted
            # memories and costs more than the rest of recall, so it runs only where one could be
            return RecallResults(results, consensus=ConsensusReport(()))
        others = np.setdiff1d(pool, recalled)
        near = [int(others[i]) for i in related_neighbours(
            index.vectors[recalled], index.vectors[others], per_item=5,
            min_similarity=self.consensus.relate_at)] if len(others) else []
        report = check_consensus(results, index.vectors[recalled], [index.records[s] for s in near],
                                 index.vectors[near] if near else None, config=self.consensus, judge=self.judge)
        flagged = {c.memory_id: c for c in report.flagged}
        # what an agent or a tool wrote is dropped when the related memories contradict it; what the
        # user said is only down-weighted: two true statements can look contradictory to the cues
        # ("milestone 1" vs "milestone 2"), and a recall must not come back empty because of that
        planted = {r.memory.id for r in results if r.memory.source in (Source.AGENT, Source.TOOL)
                   and r.memory.id in flagged and flagged[r.memory.id].verdict is Verdict.CONTRADICTS}
        checked = apply_consensus([r for r in results if r.memory.id not in planted], report, drop=(),
                                  downweight={verdict: 0.5 for verdict in FLAGGED})
        out = RecallResults(consensus=report)
        for r in checked:
            check = flagged.get(r.memory.id)
            if check is not None:
                note = f"retrieval check: {check.verdict.value}" + (f" ({check.reasons[0]})" if check.reasons else "")
                r = ScoredMemory(r.memory, r.score, r.retention, dataclasses.replace(
                    r.explanation, final=r.score, notes=r.explanation.notes + (note,)))
            out.append(r)
        return out

    def _reinforce(self, user: str, index: UserIndex, records: list[MemoryRecord], now: datetime) -> None:
        for record in records:
            last = record.last_accessed or record.timestamp
            spaced = decay_math.is_spaced(last, now, self.config.decay.min_spacing_hours)
            updated = record.evolve(access_count=record.access_count + 1, last_accessed=max(now, last),
                                    spaced_recalls=record.spaced_recalls + (1 if spaced else 0))
            self.store.update_fields(user, record.id, {
                "access_count": updated.access_count, "spaced_recalls": updated.spaced_recalls,
                "last_accessed": updated.last_accessed.isoformat()})
            index.update(updated)

    def retention_of(self, record: MemoryRecord, at: datetime | None = None) -> float:
        """Retention of one record now (or at `at`); see `hindsight_core.decay`."""
        moment = ensure_utc(at) if at is not None else self.now()
        rate = decay_math.effective_rate(record.decay_rate, record.spaced_recalls, self.config.decay.reinforcement)
        return decay_math.retention(record.confidence, rate, days_between(record.last_accessed or record.timestamp,
                                                                             moment))

    def get(self, memory_id: str, *, user_id: str) -> MemoryRecord:
        user = self._user(user_id)
        with self._lock:
            index = self._index(user, create=False)
            record = index.get(memory_id) if index is not None and isinstance(memory_id, str) else None
        if record is None:
            raise MemoryNotFoundError(f"no memory {memory_id!r} for this user")
        return record

    def memories(self, *, user_id: str, include_inactive: bool = True) -> list[MemoryRecord]:
        """Every memory of one user, oldest first."""
        user = self._user(user_id)
        with self._lock:
            index = self._index(user, create=False)
            records = index.all_records() if index is not None else []
        if not include_inactive:
            records = [r for r in records if r.status is Status.ACTIVE]
        return sorted(records, key=lambda r: r.timestamp)

    def find(self, *, user_id: str, metadata: Mapping[str, Any]) -> list[MemoryRecord]:
        """The user's memories whose metadata contains `metadata` (nested dicts match as subsets)."""
        if not isinstance(metadata, Mapping):
            raise InvalidInputError("metadata must be a mapping")
        return [r for r in self.memories(user_id=user_id) if _contains(r.metadata, metadata)]

    def users(self) -> list[str]:
        return self.store.users()

    # -- forgetting -----------------------------------------------------------------------
    def forget(self, *, user_id: str, memory_id: str | None = None, about: str | None = None,
               everything: bool = False, dry_run: bool = False) -> ForgetReceipt:
        """Remove memories for good: one by id, all about a topic, or (with everything=True) all of a user.

        A topic matches a memory whose embedding is very close to it, or close and
        sharing an entity or keyword with it. Use `dry_run=True` to see what would go.
        Forgotten memories leave the store, the vector matrix and the keyword index,
        and their text leaves the working-memory sessions attached to this instance;
        knowledge drawn only from them goes too, knowledge drawn partly is re-derived.
        """
        user = self._user(user_id)
        everything, dry_run = check_flag(everything, "everything"), check_flag(dry_run, "dry_run")
        chosen = [x for x in (memory_id is not None, about is not None, everything) if x]
        if len(chosen) != 1:
            raise InvalidInputError("name exactly one of memory_id=..., about=... or everything=True")
        with self._lock:
            index = self._index(user, create=False)
            if index is None:
                if memory_id is not None:
                    raise MemoryNotFoundError(f"no memory {memory_id!r} for this user")
                return ForgetReceipt(user, dry_run, ())
            if memory_id is not None:
                victims = [self.get(memory_id, user_id=user)]
            elif everything:
                victims = index.all_records()
            else:
                victims = self._about(index, validate_text(about, max_bytes=self.config.limits.max_text_bytes,
                                                            what="about"))
            if everything:
                working = 0
                if not dry_run:
                    self.store.drop_user(user)
                    self._indexes.pop(user, None)
                    working = self._purge_working(user, None)
                return ForgetReceipt(user, dry_run, tuple(victims), working_messages=working)
            doomed, rederived, released = plan_forget_derived(
                index, {v.id for v in victims}, semantic=self.config.semantic, embed=self._embed,
                summarizer=self.summarizer)
            victims = victims + doomed
            if not dry_run and victims:
                self.store.commit(user, upserts=rederived, deletes=[v.id for v in victims],
                                  updates=[(r.id, _link_fields(r)) for r in released])
                for victim in victims:
                    index.remove(victim.id)
                for record, vector in rederived:
                    index.remove(record.id)
                    index.add(record, vector)
                for record in released:
                    index.update(record)
                working = self._purge_working(user, [v.raw_content for v in victims])
            else:
                working = 0
        return ForgetReceipt(user, dry_run, tuple(victims), tuple(r.id for r, _ in rederived), working)

    def attach_working_backend(self, backend: Any) -> None:
        """Let forgetting reach the working-memory sessions kept on `backend` (WorkingMemory does this)."""
        with self._lock:
            if all(b is not backend for b in self._working_backends):
                self._working_backends.append(backend)

    def _purge_working(self, user: str, contents: Iterable[str] | None) -> int:
        from .working.window import purge_user

        return sum(purge_user(backend, user, contents) for backend in list(self._working_backends))

    def compact(self) -> int:
        """Rewrite the store's files so that forgotten memories leave no trace on disk."""
        with self._lock:
            return self.store.compact()

    def _about(self, index: UserIndex, topic: str) -> list[MemoryRecord]:
        vector = self._embed([topic])[0]
        n = index.size
        similarity = index.vectors[:n] @ vector
        topic_terms = set(keyword_tokens(topic))
        topic_entities = {e.lower() for e in extract_entities(topic)}
        strong, weak = self.config.forget_similarity, self.config.forget_similarity_with_overlap
        victims = []
        for slot in np.flatnonzero(index.alive[:n] & (similarity >= weak)):
            record = index.records[slot]
            overlap = bool(topic_entities & {e.lower() for e in record.entities}) or \
                bool(topic_terms & set(keyword_tokens(record.raw_content)))
            if similarity[slot] >= strong or overlap:
                victims.append(record)
        return sorted(victims, key=lambda r: r.timestamp)

    # -- semantic memory ----------------------------------------------------------------------
    def consolidate(self, *, user_id: str, dry_run: bool = False) -> ConsolidationReport:
        """Turn groups of similar episodes into semantic memories (see `hindsight_core.semantic`).

        Episodes are kept (down-weighted in recall), never deleted. With `dry_run`
        nothing is written and the report lists what would be made. Running it
        twice changes nothing the second time. Summariser failures are reported in
        `report.errors` (and `report.ok` is False); such a group is left untouched.
        """
        user = self._user(user_id)
        with self._lock:
            index = self._index(user, create=False)
            if index is None:
                return ConsolidationReport(user_id=user, dry_run=dry_run)
            return self._consolidate(user, index, dry_run=dry_run)

    def consolidate_all(self, *, dry_run: bool = False) -> list[ConsolidationReport]:
        """Consolidate every user's memories: the method a scheduler calls."""
        return [self.consolidate(user_id=user, dry_run=dry_run) for user in self.users()]

    def _consolidate(self, user: str, index: UserIndex, *, dry_run: bool, around: Sequence[str] = ()
                     ) -> ConsolidationReport:
        report, upserts, updates = plan_consolidation(
            index, user_id=user, semantic=self.config.semantic, decay=self.config.decay, embed=self._embed,
            summarizer=self.summarizer, now=self.now(), embedding_model=self.embedder.name, dry_run=dry_run,
            around=around)
        if dry_run or (not upserts and not updates):
            return report
        self.store.commit(user, upserts=upserts, updates=[(r.id, _link_fields(r)) for r in updates])
        for record, vector in upserts:
            index.add(record, vector)
        for record in updates:
            index.update(record)
        return report

    # -- prompt -----------------------------------------------------------------------------
    @staticmethod
    def format_for_prompt(results: Iterable[ScoredMemory], **options: Any) -> str:
        return format_for_prompt(results, **options)

    # -- async twins ------------------------------------------------------------------------
    async def awrite(self, text: str, **kwargs: Any) -> WriteResult:
        return await asyncio.to_thread(self.write, text, **kwargs)

    async def aremember(self, text: str, **kwargs: Any) -> MemoryRecord | None:
        return await asyncio.to_thread(self.remember, text, **kwargs)

    async def arecall(self, query: str, **kwargs: Any) -> RecallResults:
        return await asyncio.to_thread(self.recall, query, **kwargs)

    async def aforget(self, **kwargs: Any) -> ForgetReceipt:
        return await asyncio.to_thread(self.forget, **kwargs)
