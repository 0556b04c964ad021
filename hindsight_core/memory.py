"""`Hindsight`: the facade that agents and adapters call.

It validates input, runs the write path (audit, gate, embedding, the write plan against the nearest stored memories, one
journaled commit) and the recall plan (`recall.plan`), which ranks inside the storage engine. Every call reads the
store, so every process sees every acknowledged write; async methods run the same sync code in a worker thread.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from datetime import datetime
from typing import Any, Callable, ClassVar, Iterable, Mapping, Sequence, TextIO

import numpy as np
from typing_extensions import Unpack

from . import decay as decay_math
from . import maintenance
from .api import refuses_unknown
from .clock import ensure_utc
from .consolidate import plan as consolidation
from .consolidate.plan import link_fields
from .contract.checks import check_flag, check_metadata, check_one_target, check_predicate, check_visible
from .contract.options import RecallKeywords, RecallOptions, WriteKeywords, WriteManyKeywords
from .contract.results import ConsolidationReport, StoreStats, TransferSummary, WriteResult
from .errors import InvalidInputError, MemoryNotFoundError
from .events import Forgetting, Forgotten
from .facade.base import FacadeBase
from .forget import plan as forgetting
from .language.text import validate_id, validate_text
from .recall import plan as recall_plan
from .recall import timeline
from .recall.check import check_recalled
from .recall.formatting import format_for_prompt
from .store import Scope
from .store.base import ALL, ARCHIVE
from .types import ForgetReceipt, MemoryRecord, RecallResults, ScoredMemory, Status
from .write import preparing, writing

#: how many results past k the retrieval check and the cue check see, since they may drop some
_SPARE = 5
_ACTIVE = Scope()


def _contains(value: Any, pattern: Any) -> bool:
    """Whether `value` holds everything `pattern` does (mappings compared as subsets)."""
    if isinstance(pattern, Mapping):
        return isinstance(value, Mapping) and all(k in value and _contains(value[k], v) for k, v in pattern.items())
    return value == pattern


class Hindsight(FacadeBase):
    """Long-term memory for agents: episodic and semantic layers on Qdrant.

    Storage, pick one: `path` (embedded on disk), `location=":memory:"`, `url` (a Qdrant server), or `store` (any
    `MemoryStore`); with none, the embedded store under `HINDSIGHT_HOME` (default ~/.hindsight).

    `embedder`: an `Embedder`, or a model name (default multilingual-e5-small; any sentence-transformers name or path
    with the `st` extra). `clock`: a zero-argument callable returning an aware UTC datetime. `gate`: a write gate
    (default `RuleBasedGate`). `summarizer`: a `prompt -> text` callable that writes consolidated knowledge (without
    one, consolidation is extractive). `audit`: screens every write for poisoning (default `WriteAudit`,
    `safety.audit`): what it rejects is not stored, what it quarantines is never recalled. `consensus`: the retrieval
    check run when a recalled memory or a related one was written by an agent or a tool (`False` turns it off); `judge`:
    an optional `prompt -> text` model it may consult. `knowledge_judge`: who decides supersession and whether
    statements say one thing (`write.judge`: the rules by default, or `ModelJudge(llm)`).

    It implements `hindsight_core.api.MemoryAPI`, as `HindsightClient` does for a store held by `hindsight serve`.
    """

    #: the store lives in this process (see `MemoryAPI.holds_store`)
    holds_store: ClassVar[bool] = True

    # -- writing --------------------------------------------------------------------------
    @refuses_unknown("write")
    def write(self, text: str, *, user_id: str, **options: Unpack[WriteKeywords]) -> WriteResult:
        """Offer one piece of text to memory; returns the record (if stored) and the gate's verdict.

        `options` are `WriteOptions`'s fields. `context` is the turn this one answers: the two are embedded and indexed
        together, and the record keeps it beside its own text.
        """
        return self.write_many([text], user_id=user_id, **options)[0]

    @refuses_unknown("write_many")
    def write_many(self, texts: Sequence[str], *, user_id: str, **options: Unpack[WriteManyKeywords]
                   ) -> list[WriteResult]:
        """Offer many texts at once (one embedding batch, one store call): the fast path for imports.

        `timestamps`, `sources`, `metadatas` and `contexts`, if given, hold one entry per text; `options` are those of
        `write` and apply to every text. One bad text stores none. `merge_duplicates=False` stores a repeated text as a
        memory of its own (for keyed stores); None uses the config.
        """
        user = self._user(user_id)
        prepared = preparing.prepare_batch(
            texts, options, user_id=user, config=self.config, audit=self._audited, gate=self.gate, now=self.now,
            embedding_model=self.embedder.name, window=self.session_window)
        to_store = [record for record, _, _ in prepared if record is not None]
        plan = None
        if to_store:  # then every option was checked (`WriteOptions.checked`), merge_duplicates among them
            merge_duplicates = options.get("merge_duplicates")
            vectors = self._embed([preparing.embedding_text(r) for r in to_store])
            semantic = self.config.semantic if merge_duplicates is None else \
                dataclasses.replace(self.config.semantic, merge_duplicates=bool(merge_duplicates))
            with self._locked(user):
                self._open(user, create=True)
                plan = writing.plan_batch(self.store, user, to_store, vectors, semantic, self._embed_alone,
                                          self.knowledge_judge)
                self.store.commit(user, upserts=plan.upserts, updates=plan.changed_fields())
                if self.config.semantic.auto_consolidate and plan.touched:
                    self._consolidate(user, dry_run=False, around=plan.touched)
        return writing.results(prepared, plan)

    @refuses_unknown("remember")
    def remember(self, text: str, *, user_id: str, **options: Unpack[WriteKeywords]) -> MemoryRecord | None:
        """Store `text` if the write gate finds it worth keeping; None if not (see `write` for why)."""
        return self.write(text, user_id=user_id, **options).record

    # -- reading --------------------------------------------------------------------------
    @refuses_unknown("recall")
    def recall(self, query: str, *, user_id: str, where: Callable[[MemoryRecord], bool] | None = None,
               **options: Unpack[RecallKeywords]) -> RecallResults:
        """The `k` memories most worth bringing back for `query`, best first.

        The engine fuses a dense and a keyword channel and rescores (`recall.plan.ranking_formula`); what the retrieval
        check holds back is in the result's `held_back`, with why. Recall never hides: a store holding k memories in
        scope returns k, however faded. With `reinforce`, each returned memory the query cued (`recall.plan.cued`)
        counts as recalled (see `decay`). `where` is an extra predicate on each candidate record, applied to the
        engine's results.
        """
        user = self._user(user_id)
        limits = self.config.limits
        clean = check_visible(validate_text(query, max_bytes=limits.max_text_bytes, what="query"), "query")
        where, now = check_predicate(where), self.now()
        checked = RecallOptions(**options).checked(self.config, now)  # the one check of every option
        k, reinforce, scope = checked.k, checked.reinforce, Scope.of(checked)
        query_vector = self._embed_query([clean])[0]
        spare = _SPARE + k + (4 * k if where is not None else 0)  # the collapse of knowledge and episodes uses up to k
        priors = recall_plan.time_priors(clean, now)
        cfg = recall_plan.weights_for(clean, self.config.recall, priors)
        multilingual = bool(getattr(self.embedder, "multilingual", False))

        def request_for(foreign_keywords: bool) -> Any:
            return recall_plan.build_request(
                query_vector, clean, recall=cfg, decay=self.config.decay,
                episode_weight=self.config.semantic.episode_weight, now=now, scope=scope, limit=k + spare,
                min_similarity=cfg.min_similarity, multilingual_dense=multilingual, priors=priors,
                foreign_keywords=foreign_keywords)

        request = request_for(False)
        with self._locked(user):
            if not self._open(user, create=False):
                return RecallResults()
            found = self.store.search(user, request)
            if multilingual and len(request.channels) > 1 and recall_plan.keywords_cross_scripts(clean, found):
                request = request_for(True)  # asked across languages: let meaning, not shared names, rank
                found = self.store.search(user, request)
            results = recall_plan.select(found, request, query_vector, clean, now=now, decay=self.config.decay,
                                         recall=cfg, episode_weight=self.config.semantic.episode_weight)
            if where is not None:
                results = [r for r in results if where(r.memory)]
            report, held = None, list[ScoredMemory]()
            if self.consensus is not None and results:
                results, held, report = check_recalled(self.store, user, results,
                                                       {h.record.id: h for h in found.hits}, k=k,
                                                       config=self.consensus, judge=self.judge)
            vectors = {h.record.id: h.vector for h in found.hits if h.vector is not None}
            results = timeline.ordered(results, vectors, recall_plan.asked(clean, priors), cfg, shown=k)
            top = recall_plan.final_order(results, k)
            results = RecallResults(top, consensus=report, held_back=held)
            if reinforce and results:
                self._reinforce(user, [r.memory for r in results if recall_plan.cued(r, cfg)], now)
        return results

    def _reinforce(self, user: str, records: list[MemoryRecord], now: datetime) -> None:
        self.store.update_fields(user, [(r.id, decay_math.reinforcement(
            r.last_accessed or r.timestamp, now, r.access_count, r.spaced_recalls,
            self.config.decay.min_spacing_hours)) for r in records], durable=False)  # bookkeeping: no fsync

    def retention_of(self, record: MemoryRecord, at: datetime | None = None) -> float:
        """Retention of one record now (or at `at`); see `hindsight_core.decay`."""
        moment = ensure_utc(at) if at is not None else self.now()
        return decay_math.retention_of(record, moment, self.config.decay.reinforcement)

    def get(self, memory_id: str, *, user_id: str) -> MemoryRecord:
        user = self._user(user_id)
        found = []
        if isinstance(memory_id, str) and self._open(user, create=False):
            found = self.store.get(user, [memory_id])
        if not found:
            raise MemoryNotFoundError(f"no memory {memory_id!r} for this user")
        return found[0].record

    def memories(self, *, user_id: str, include_inactive: bool = True, agent_id: str | None = None
                 ) -> list[MemoryRecord]:
        """Every memory of one user (of one of its agents, with `agent_id`: the engine filters), oldest first."""
        user = self._user(user_id)
        include_inactive = check_flag(include_inactive, "include_inactive")
        agent = validate_id(agent_id, what="agent_id", required=False)
        if not self._open(user, create=False):
            return []
        scope = dataclasses.replace(ALL if include_inactive else _ACTIVE, agent_id=agent)
        hits = sorted(self.store.scan(user, scope), key=lambda h: (h.record.timestamp, h.seq))
        return [h.record for h in hits]

    def find(self, *, user_id: str, metadata: Mapping[str, Any]) -> list[MemoryRecord]:
        """The user's memories whose metadata contains `metadata` (nested dicts match as subsets)."""
        if metadata is None:
            raise InvalidInputError("metadata is required: the entries to look for, e.g. {'channel': 'chat'}; "
                                    "memories() lists them all")
        limits = self.config.limits
        metadata = check_metadata(metadata, max_depth=limits.max_metadata_depth, max_bytes=limits.max_metadata_bytes)
        user = self._user(user_id)
        if not self._open(user, create=False):
            return []
        hits = self.store.scan(user, dataclasses.replace(ALL, metadata=dict(metadata)))
        return [h.record for h in sorted((h for h in hits if _contains(h.record.metadata, metadata)),
                                         key=lambda h: (h.record.timestamp, h.seq))]

    def release(self, *, user_id: str, memory_id: str) -> MemoryRecord:
        """Let a quarantined memory be recalled (a person reviewed it and found it safe)."""
        user = self._user(user_id)
        record = self.get(memory_id, user_id=user)
        if record.status is not Status.QUARANTINED:
            raise InvalidInputError(f"memory {memory_id!r} is not quarantined")
        self.store.update_fields(user, [(record.id, {"status": Status.ACTIVE.value})])
        return record.evolve(status=Status.ACTIVE)

    def unreadable(self, *, user_id: str) -> list[tuple[str, str]]:
        """Stored records that could not be read (id, reason): set aside, never fatal."""
        return list(self.store.load_report(self._user(user_id)).unreadable)

    def users(self) -> list[str]:
        return self.store.users()

    # -- the store as a whole -------------------------------------------------------------
    def stats(self, *, users: Iterable[str] | None = None) -> StoreStats:
        """Counts per layer and status, the retention of every memory now, and the store's size."""
        return maintenance.stats(self, users=users)

    def export_jsonl(self, out: TextIO, *, users: Iterable[str] | None = None, vectors: bool = True,
                     include_archive: bool = True) -> TransferSummary:
        """Write the memories (of `users`, default all) to the text file `out` as JSON Lines (`maintenance`)."""
        return maintenance.export_jsonl(self.store, out, users=users, vectors=vectors,
                                        include_archive=include_archive, now=self.now())

    def import_jsonl(self, lines: Iterable[str]) -> TransferSummary:
        """Load an export; memories keep their ids, vectors are reused when the model matches (`maintenance`)."""
        return maintenance.import_jsonl(self.store, self.embedder, lines)

    # -- forgetting -----------------------------------------------------------------------
    def forget(self, *, user_id: str, memory_id: str | None = None, about: str | None = None,
               everything: bool = False, dry_run: bool = False, for_good: bool = True) -> ForgetReceipt:
        """Remove memories for good: one by id, all about a topic, or (with everything=True) all of a user.

        A topic matches a memory whose embedding is very close to it, or close and sharing an entity or keyword with it;
        `dry_run=True` shows what would go. Forgotten memories leave the store and their text is unreadable at once (the
        embedded store destroys each memory's key, `store.sealing`); every `on_forget` listener is told which texts
        went; knowledge drawn only from them goes too, knowledge drawn partly is re-derived. The user's shards are then
        compacted, so the points leave the segment files too (`store.indexing`); `for_good=False` leaves that to a later
        forget or `compact()`, for many forgets in a row.
        """
        user = self._user(user_id)
        everything, dry_run = check_flag(everything, "everything"), check_flag(dry_run, "dry_run")
        for_good = check_flag(for_good, "for_good")
        check_one_target(memory_id, about, everything)
        topic = check_visible(validate_text(about, max_bytes=self.config.limits.max_text_bytes, what="about"),
                              "about") if about is not None else None
        topic_vector = self._embed_query([topic])[0] if topic is not None else None
        if not dry_run:
            self._drop_cached_texts()  # the topic too: it is the user's words
            self.session_window.drop(user)
        self._before_forget.announce(Forgetting(user, everything, dry_run))  # what is queued is stored first
        try:
            with self._locked(user):
                if not self._open(user, create=False):
                    if memory_id is not None:
                        raise MemoryNotFoundError(f"no memory {memory_id!r} for this user")
                    # no long-term memories, but working-memory sessions may still hold the user's words
                    working = 0 if dry_run else self._forget_listeners.announce(
                        Forgotten.of(user, None if everything else (), topic))
                    return ForgetReceipt(user, dry_run, (), working_messages=working)
                if memory_id is not None:
                    victims = [self.get(memory_id, user_id=user)]
                elif everything:
                    victims = [h.record for h in self.store.scan(user, ALL)]
                else:
                    assert topic is not None and topic_vector is not None  # exactly one target: the topic
                    victims = forgetting.about(self.store, user, topic, topic_vector, self.config, self._embed)
                    archived = forgetting.archived_about(self.store, user, topic, topic_vector, self.config,
                                                         self._embed, named=victims)
                if everything:
                    working = 0
                    if not dry_run:
                        self.store.drop_user(user)
                        with self._lock:
                            self._opened.pop(user, None)
                        working = self._forget_listeners.announce(Forgotten.of(user, None))
                    return ForgetReceipt(user, dry_run, tuple(victims), working_messages=working)
                victims, rederived, released = forgetting.plan(self.store, user, victims, self.config, self._embed,
                                                               self.summarizer)
                archived = archived if memory_id is None else []
                working = 0
                if not dry_run and victims:
                    self.store.commit(user, upserts=rederived, deletes=[v.id for v in victims],
                                      updates=[(r.id, link_fields(r)) for r in released])
                if not dry_run and archived:  # archived memories about the topic go too (their keys with them)
                    self.store.delete_from_space(user, ARCHIVE, [a.id for a in archived])
                victims = victims + archived
                if not dry_run:  # even when nothing went: a copy may still hold words about the topic
                    working = self._forget_listeners.announce(Forgotten.of(user, [v.raw_content for v in victims], topic))
                if not dry_run and victims:
                    if for_good:
                        self.store.compact(user)  # the forgotten points leave the segment files too
            return ForgetReceipt(user, dry_run, tuple(victims), tuple(r.id for r, _ in rederived), working)
        finally:
            if not dry_run:  # and after: looking for the topic read its words into the caches again
                self._drop_cached_texts()

    def compact(self) -> int:
        """Rewrite every user's files so that deleted points leave the segments too (`forget` already compacts the
        user it forgot for)."""
        return self.store.compact()

    def optimize(self, *, user_id: str) -> bool:
        """Build the engine's vector index for one user (blocking; for large stores, off the write path)."""
        user = self._user(user_id)
        with self._locked(user):
            return bool(self._open(user, create=False) and self.store.optimize(user))

    # -- semantic memory ----------------------------------------------------------------------
    def consolidate(self, *, user_id: str, dry_run: bool = False) -> ConsolidationReport:
        """Turn groups of similar episodes into semantic memories (see `hindsight_core.consolidate`).

        Episodes are kept (down-weighted in recall), never deleted; `dry_run` writes nothing. Running it twice changes
        nothing the second time. Summariser failures are in `report.errors`; such a group is left untouched.
        """
        user = self._user(user_id)
        dry_run = check_flag(dry_run, "dry_run")
        with self._locked(user):
            if not self._open(user, create=False):
                return ConsolidationReport(user_id=user, dry_run=dry_run)
            return self._consolidate(user, dry_run=dry_run)

    def consolidate_all(self, *, dry_run: bool = False) -> list[ConsolidationReport]:
        """Consolidate every user's memories: the method a scheduler calls."""
        dry_run = check_flag(dry_run, "dry_run")  # refused even when there is no user to consolidate
        return [self.consolidate(user_id=user, dry_run=dry_run) for user in self.users()]

    def _consolidate(self, user: str, *, dry_run: bool,
                     around: Sequence[tuple[MemoryRecord, np.ndarray]] | None = None) -> ConsolidationReport:
        """Plan (all episodes, or the groups `around` new ones complete), embed the summaries in one call, commit."""
        semantic = self.config.semantic
        pool, fresh = consolidation.candidates(self.store, user, semantic, around, embed=self._embed_alone)
        drafted = consolidation.draft(pool, fresh, user_id=user, semantic=semantic, summarizer=self.summarizer,
                                      dry_run=dry_run, embed=self._embed_alone, judge=self.knowledge_judge)
        if not drafted.groups:
            return drafted.report
        vectors = self._embed(drafted.summaries)
        twins = consolidation.known_twins(self.store, user, drafted.summaries, vectors, semantic)
        plan = consolidation.finish(drafted, vectors, twins, user_id=user, semantic=semantic,
                                    decay=self.config.decay, now=self.now(), embedding_model=self.embedder.name)
        if not dry_run and (plan.upserts or plan.updates):
            self.store.commit(user, upserts=plan.upserts, updates=plan.changed_fields())
        return plan.report

    # -- prompt -----------------------------------------------------------------------------
    format_for_prompt = staticmethod(format_for_prompt)

    # -- async twins ------------------------------------------------------------------------
    @refuses_unknown("awrite")
    async def awrite(self, text: str, *, user_id: str, **options: Unpack[WriteKeywords]) -> WriteResult:
        return await asyncio.to_thread(functools.partial(self.write, text, user_id=user_id, **options))

    @refuses_unknown("aremember")
    async def aremember(self, text: str, *, user_id: str, **options: Unpack[WriteKeywords]) -> MemoryRecord | None:
        return await asyncio.to_thread(functools.partial(self.remember, text, user_id=user_id, **options))

    @refuses_unknown("arecall")
    async def arecall(self, query: str, *, user_id: str, where: Callable[[MemoryRecord], bool] | None = None,
                      **options: Unpack[RecallKeywords]) -> RecallResults:
        return await asyncio.to_thread(functools.partial(self.recall, query, user_id=user_id, where=where, **options))

    async def aforget(self, *, user_id: str, memory_id: str | None = None, about: str | None = None,
                      everything: bool = False, dry_run: bool = False, for_good: bool = True) -> ForgetReceipt:
        return await asyncio.to_thread(self.forget, user_id=user_id, memory_id=memory_id, about=about,
                                       everything=everything, dry_run=dry_run, for_good=for_good)
