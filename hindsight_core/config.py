"""Configuration as small frozen value objects; every field has a documented default."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Mapping

from .errors import InvalidInputError

#: Decay rate λ per day for each event type: preferences and corrections fade slowly,
#: one-off task results and small talk fast.
DEFAULT_DECAY_RATES: Mapping[str, float] = MappingProxyType(
    {
        "preference": 0.01,
        "correction": 0.01,
        "fact": 0.02,
        "event": 0.03,
        "dialogue": 0.04,
        "task_result": 0.05,
        # a request that carries a parameter: fades fast unless repeated, and repetition makes it a preference
        "request": 0.06,
    }
)


@dataclass(frozen=True)
class DecayConfig:
    """Ebbinghaus decay settings (see `hindsight_core.decay`)."""

    rates: Mapping[str, float] = field(default_factory=lambda: DEFAULT_DECAY_RATES)
    default_rate: float = 0.03
    #: each spaced recall divides λ by (1 + reinforcement · n)
    reinforcement: float = 0.5
    #: recalls closer together than this do not count as spaced repetitions
    min_spacing_hours: float = 12.0
    #: memories whose retention falls below this are "faded": still recalled (ranked by what the query asks), marked
    #: "faded" in their explanation and the statistics, and what `hindsight archive` may move out of the way
    retention_threshold: float = 0.1

    def __post_init__(self) -> None:
        for name, rate in {**dict(self.rates), "default": self.default_rate}.items():
            if not 0 <= rate <= 10:
                raise InvalidInputError(f"decay rate for {name!r} must be within 0..10 per day, got {rate}")
        if not 0 <= self.retention_threshold < 1:
            raise InvalidInputError("retention_threshold must be within [0, 1)")
        if self.reinforcement < 0 or self.min_spacing_hours < 0:
            raise InvalidInputError("reinforcement and min_spacing_hours must not be negative")

    def rate_for(self, event_type: str) -> float:
        return float(self.rates.get(event_type, self.default_rate))


@dataclass(frozen=True)
class RecallConfig:
    """Hybrid recall settings (see `hindsight_core.recall.plan` for the formula)."""

    dense_weight: float = 1.0
    keyword_weight: float = 1.0
    #: the k of reciprocal-rank fusion: larger flattens the rank curve
    rrf_k: int = 60
    #: how many candidates each channel contributes before fusion
    candidates_per_channel: int = 100
    #: ρ: how much retention moves the ranking (0: not at all; up to 1: final ∝ retention); decay still shows in
    #: every result (retention, "faded") and drives archiving
    retention_influence: float = 0.0
    #: σ: recall weight of a memory superseded by a newer one
    superseded_weight: float = 0.3
    #: σ applies only to questions about the present: one that asks in the past tense or names a date
    #: (`language.asked_time`) wants what was true then, and ranks a superseded memory as any other
    supersede_in_present_only: bool = True
    #: two of the user's statements among the first candidates are on one subject from this cosine
    #: (`recall.timeline`: the later one goes first for a question about the present, the earlier for the past)
    same_subject_similarity: float = 0.62
    #: how many of the first candidates `recall.timeline` orders by the time a question asks about, in the places
    #: they hold (the five an adapter's block shows)
    timeline_depth: int = 5
    #: τ: how much a date named in the query lifts memories from around then
    time_prior_weight: float = 0.5
    #: the dense channel's weight is multiplied by this for queries in a script the embedder cannot read
    foreign_dense_factor: float = 0.2
    #: a returned memory counts as recalled (and is strengthened) when it holds one of the query's keywords or is
    #: at least this close to it by meaning (see `recall.plan.cued`)
    cue_similarity: float = 0.6
    #: the dense channel only proposes memories at least this similar to the query; None (the default): no floor,
    #: so a store that holds k memories in scope answers k
    min_similarity: float | None = None

    def __post_init__(self) -> None:
        if min(self.dense_weight, self.keyword_weight) < 0:
            raise InvalidInputError("channel weights must not be negative")
        if self.rrf_k < 1 or self.candidates_per_channel < 1 or self.timeline_depth < 0:
            raise InvalidInputError("rrf_k and candidates_per_channel must be at least 1, timeline_depth at least 0")
        if not -1 <= self.same_subject_similarity <= 1:
            raise InvalidInputError("same_subject_similarity must be within -1..1")
        for name in ("retention_influence", "foreign_dense_factor"):
            if not 0 <= getattr(self, name) <= 1:
                raise InvalidInputError(f"{name} must be within 0..1")
        if not 0 <= self.retention_influence < 1:
            raise InvalidInputError("retention_influence must be within [0, 1): decay ranks, it never takes out")
        if not 0 < self.superseded_weight <= 1:
            raise InvalidInputError("superseded_weight must be within (0, 1]: a weight never reaches zero")
        if self.time_prior_weight < 0:
            raise InvalidInputError("time_prior_weight must not be negative")


#: the largest text a configuration may allow: what one request to `hindsight serve` may carry
TEXT_BYTES_CEILING = 16 * 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Input limits: anything larger is refused with a clear error before any work."""

    max_text_bytes: int = 32 * 1024
    max_batch: int = 10_000
    max_k: int = 1_000
    max_metadata_depth: int = 4
    max_metadata_bytes: int = 16 * 1024
    max_id_chars: int = 256

    def __post_init__(self) -> None:
        for limit in fields(self):
            value = getattr(self, limit.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInputError(f"Limits.{limit.name} must be a whole number of at least 1, got {value!r}")
        if self.max_text_bytes > TEXT_BYTES_CEILING:
            raise InvalidInputError(f"Limits.max_text_bytes is at most {TEXT_BYTES_CEILING:,} (what one request may "
                                    f"carry), got {self.max_text_bytes:,}")


@dataclass(frozen=True)
class SemanticConfig:
    """Consolidation, duplicates and conflicts (see `hindsight_core.write.rules` and `hindsight_core.consolidate`)."""

    #: a group of similar episodes becomes knowledge once it has this many occurrences ...
    min_episodes: int = 3
    #: ... said on at least this many different days (`groups.days_said`), so a subject talked over in one session
    #: never becomes knowledge however often it comes up ...
    min_days: int = 3
    #: ... spread over at least this many days
    min_span_days: float = 3.0
    #: cosine at or above which two episodes belong to one group
    group_similarity: float = 0.7
    #: cosine at or above which a new memory made of the same words as an old one is a near-duplicate (merged, not
    #: stored: `write.rules.is_duplicate`)
    duplicate_similarity: float = 0.95
    #: cosine at or above which two exclusive statements are about the same thing
    conflict_similarity: float = 0.6
    #: ... lowered when the new statement is marked as a change ("actually", "现在", "改成")
    correction_similarity: float = 0.45
    #: recall weight of episodes already consolidated into a semantic memory (1: as findable as before;
    #: `recall.plan.final_order` collapses them with their knowledge)
    episode_weight: float = 1.0
    #: confidence of a superseded memory is multiplied by this
    superseded_factor: float = 0.5
    #: semantic memories decay at this fraction of their event type's rate
    semantic_decay_factor: float = 0.5
    #: check for a new group after each write. Off by default: the groups it forms are not yet right often enough
    #: for a store that never asked for knowledge (docs/how-it-works.md#knowledge-and-changes-of-mind);
    #: `consolidate()` runs the same plan over all episodes whenever called, and `knowledge_on()` turns this on
    auto_consolidate: bool = False
    merge_duplicates: bool = True
    #: supersession (`write.rules.is_change_of`, `write.rules.is_conflict`): the older statement steps back for
    #: questions about the present. Off by default: in everyday chit-chat it replaces the wrong statement
    #: (docs/how-it-works.md#knowledge-and-changes-of-mind); `knowledge_on` turns it on
    detect_conflicts: bool = False

    def __post_init__(self) -> None:
        if self.min_episodes < 2:
            raise InvalidInputError("min_episodes must be at least 2")
        if self.min_days < 1:
            raise InvalidInputError("min_days must be at least 1")
        for name in ("group_similarity", "duplicate_similarity", "conflict_similarity", "correction_similarity",
                     "episode_weight", "superseded_factor", "semantic_decay_factor"):
            if not 0 <= getattr(self, name) <= 1:
                raise InvalidInputError(f"{name} must be within 0..1")
        if self.episode_weight <= 0:
            raise InvalidInputError("episode_weight must be above 0: a weight never takes a memory out")


@dataclass(frozen=True)
class HindsightConfig:
    decay: DecayConfig = field(default_factory=DecayConfig)
    semantic: SemanticConfig = field(default_factory=SemanticConfig)
    recall: RecallConfig = field(default_factory=RecallConfig)
    limits: Limits = field(default_factory=Limits)
    #: forget(about=...) removes memories at least this similar to the topic ...
    forget_similarity: float = 0.62
    #: ... or at least this similar when they also share an entity or keyword with it
    forget_similarity_with_overlap: float = 0.4


def knowledge_on(config: HindsightConfig | None = None) -> HindsightConfig:
    """`config` (default: the defaults) with supersession and consolidation after each write turned on: both are
    off by default (see `SemanticConfig.auto_consolidate` and `detect_conflicts` for the measurements)."""
    config = config or HindsightConfig()
    return replace(config, semantic=replace(config.semantic, auto_consolidate=True, detect_conflicts=True))


def on_similarity_scale(value: float, baseline: float) -> float:
    """A similarity threshold stated for a model whose unrelated texts sit near cosine 0, moved to a model
    whose unrelated texts sit near `baseline`: t ↦ b + (1 − b)·t (0 ↦ b, 1 ↦ 1)."""
    return baseline + (1.0 - baseline) * value


def scaled_for_embedder(config: HindsightConfig, baseline: float, query_baseline: float | None = None
                        ) -> HindsightConfig:
    """Every cosine threshold of `config` moved to an embedder's scale (see `on_similarity_scale`).

    Thresholds are written for all-MiniLM-L6-v2, where unrelated sentences sit near cosine 0; `baseline` is where
    they sit for the embedder (0: no change). `query_baseline` (default: `baseline`) is the same for a query against
    memories: the dense floor and the cue check use it.
    """
    query_baseline = baseline if query_baseline is None else query_baseline
    if not baseline and not query_baseline:
        return config
    s = lambda v: round(on_similarity_scale(v, baseline), 6)  # noqa: E731
    q = lambda v: round(on_similarity_scale(v, query_baseline), 6)  # noqa: E731
    semantic, recall = config.semantic, config.recall
    return replace(
        config,
        semantic=replace(semantic, group_similarity=s(semantic.group_similarity),
                         duplicate_similarity=s(semantic.duplicate_similarity),
                         conflict_similarity=s(semantic.conflict_similarity),
                         correction_similarity=s(semantic.correction_similarity)),
        recall=replace(recall, min_similarity=None if recall.min_similarity is None else q(recall.min_similarity),
                       cue_similarity=q(recall.cue_similarity),
                       same_subject_similarity=s(recall.same_subject_similarity)),
        # a topic to forget is a few words, not a request: it sits on the memories' scale
        forget_similarity=s(config.forget_similarity),
        forget_similarity_with_overlap=s(config.forget_similarity_with_overlap))
