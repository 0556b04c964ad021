"""What a write and a recall may carry besides their text and user, stated once, and the one check of each.

Each option is a field of a frozen value, `WriteOptions` or `RecallOptions`: its name, type and default, and its
check in `checked` (an `InvalidInputError` that says what to pass). `WriteKeywords` and `RecallKeywords` name the
same fields with the same types for `MemoryAPI`'s `**options: Unpack[...]` (`tests/core/test_options_typed.py`
holds them together). Every relay derives from the fields and names none; the facade runs `checked` on every
call, a write queue at hand-over and the CLI before it opens a store.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Sequence, cast

from typing_extensions import TypedDict

from ..clock import ensure_utc
from ..config import HindsightConfig
from ..errors import InvalidInputError
from ..language.text import validate_id, validate_text
from ..language.timerange import TimeRangeLike
from ..types import Layer, Source
from .checks import (check_confidence, check_entities, check_event_type, check_event_types, check_flag,
                     check_flag_or_none, check_layers, check_metadata, check_names, check_per_text, check_timestamp,
                     check_visible, time_window)

__all__ = ["PER_TEXT", "RECALL_OPTIONS", "RecallKeywords", "RecallOptions", "WRITE_MANY_OPTIONS", "WRITE_OPTIONS",
           "WriteKeywords", "WriteManyKeywords", "WriteOptions", "check_k", "per_text"]


class WriteKeywords(TypedDict, total=False):
    """The write options as keyword arguments: the fields of `WriteOptions`, with their types."""

    session_id: str | None
    agent_id: str | None
    source: Source | str
    event_type: str | None
    timestamp: datetime | None
    confidence: float | None
    entities: Sequence[str] | None
    metadata: Mapping[str, Any] | None
    force: bool
    layer: Layer | str
    merge_duplicates: bool | None
    context: str | None


class WriteManyKeywords(WriteKeywords, total=False):
    """`write_many`'s keyword arguments: the write options, and the lists holding one entry per text (`PER_TEXT`)."""

    timestamps: Sequence[datetime | None] | None
    sources: Sequence[Source | str] | None
    metadatas: Sequence[Mapping[str, Any] | None] | None
    contexts: Sequence[str | None] | None


@dataclass(frozen=True)
class WriteOptions:
    """What a write may carry besides its text and user, with the defaults of `MemoryAPI.write`."""

    session_id: str | None = None
    agent_id: str | None = None
    source: Source | str = Source.USER
    event_type: str | None = None
    timestamp: datetime | None = None
    confidence: float | None = None
    entities: Sequence[str] | None = None
    metadata: Mapping[str, Any] | None = None
    force: bool = False
    layer: Layer | str = Layer.EPISODIC
    merge_duplicates: bool | None = None
    context: str | None = None

    @classmethod
    def named(cls, options: Mapping[str, Any]) -> WriteOptions:
        """The options given by name (keyword arguments, a journal entry); a name that is none of them is refused."""
        check_names(options, WRITE_OPTIONS, "write")
        return cls(**options)

    def keywords(self) -> WriteKeywords:
        """The options as the keyword arguments of `MemoryAPI.write` (what a relay passes on)."""
        return cast(WriteKeywords, dict(vars(self)))

    def checked(self, config: HindsightConfig) -> WriteOptions:
        """Every value validated against `config`'s limits and in its one form (enums, a list, a plain dict)."""
        limits = config.limits
        try:
            source, layer = Source(self.source), Layer(self.layer)
        except ValueError as exc:
            raise InvalidInputError(f"{exc}; source is one of {[s.value for s in Source]}, "
                                    f"layer one of {[x.value for x in Layer]}") from None
        if layer is Layer.WORKING:
            raise InvalidInputError("working memory is per session; use WorkingMemory, not remember()")
        context = None
        if self.context is not None and self.context != "":
            context = check_visible(validate_text(self.context, max_bytes=limits.max_text_bytes, what="context"),
                                    "context")
        return WriteOptions(
            session_id=validate_id(self.session_id, what="session_id", max_chars=limits.max_id_chars, required=False),
            agent_id=validate_id(self.agent_id, what="agent_id", max_chars=limits.max_id_chars, required=False),
            source=source, event_type=check_event_type(self.event_type, config.decay.rates),
            timestamp=check_timestamp(self.timestamp), confidence=check_confidence(self.confidence),
            entities=check_entities(self.entities),
            metadata=check_metadata(self.metadata, max_depth=limits.max_metadata_depth,
                                    max_bytes=limits.max_metadata_bytes),
            force=check_flag(self.force, "force"), layer=layer,
            merge_duplicates=check_flag_or_none(self.merge_duplicates, "merge_duplicates"), context=context)


#: the names of the write options, in order
WRITE_OPTIONS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(WriteOptions))
#: `write_many` arguments that hold one entry per text, and the option each entry stands for
PER_TEXT: Mapping[str, str] = {"timestamps": "timestamp", "sources": "source", "metadatas": "metadata",
                               "contexts": "context"}
#: what `write_many` takes by name besides its texts and user
WRITE_MANY_OPTIONS: tuple[str, ...] = (*PER_TEXT, *WRITE_OPTIONS)


def per_text(options: Mapping[str, Any], count: int) -> list[WriteOptions]:
    """The options of each of `count` texts, from `write_many`'s keyword arguments (not yet `checked`).

    A per-text list given (`PER_TEXT`) overrides its single form and holds one entry per text; any other name is
    refused.
    """
    check_names(options, WRITE_MANY_OPTIONS, "write_many")
    lists = {name: options[name] for name in PER_TEXT if options.get(name) is not None}
    for name, values in lists.items():
        check_per_text(name, values, count)
    common = WriteOptions.named({k: v for k, v in options.items() if k not in PER_TEXT})
    if not lists:
        return [common] * count
    return [dataclasses.replace(common, **{PER_TEXT[name]: values[i] for name, values in lists.items()})
            for i in range(count)]


class RecallKeywords(TypedDict, total=False):
    """The recall options as keyword arguments: the fields of `RecallOptions`, with their types."""

    k: int
    time_range: TimeRangeLike
    layers: Iterable[Layer | str] | None
    event_types: Iterable[str] | None
    session_id: str | None
    agent_id: str | None
    reinforce: bool


@dataclass(frozen=True)
class RecallOptions:
    """What a recall may be asked besides its query and user, with the defaults of `MemoryAPI.recall`."""

    k: int = 5
    time_range: TimeRangeLike = None
    layers: Iterable[Layer | str] | None = None
    event_types: Iterable[str] | None = None
    session_id: str | None = None
    agent_id: str | None = None
    reinforce: bool = True

    @classmethod
    def named(cls, options: Mapping[str, Any]) -> RecallOptions:
        """The options given by name (keyword arguments, a retriever's per-call options); any other name is refused."""
        check_names(options, RECALL_OPTIONS, "recall")
        return cls(**options)

    def keywords(self) -> RecallKeywords:
        """The options as the keyword arguments of `MemoryAPI.recall` (what a relay passes on)."""
        return cast(RecallKeywords, dict(vars(self)))

    def checked(self, config: HindsightConfig, now: datetime | None = None) -> RecallOptions:
        """Every value validated against `config`'s limits and in its one form: k an int, layers a list of names,
        event types a set, and the time range a `TimeRange` read at `now` (default: this moment), or None."""
        limits = config.limits
        spec = tuple(self.time_range) if isinstance(self.time_range, list) else self.time_range  # a JSON pair
        moment = ensure_utc(now) if now is not None else datetime.now(timezone.utc)
        return RecallOptions(
            k=check_k(self.k, limits.max_k), time_range=time_window(spec, moment), layers=check_layers(self.layers),
            event_types=check_event_types(self.event_types),
            session_id=validate_id(self.session_id, what="session_id", max_chars=limits.max_id_chars, required=False),
            agent_id=validate_id(self.agent_id, what="agent_id", max_chars=limits.max_id_chars, required=False),
            reinforce=check_flag(self.reinforce, "reinforce"))


#: the names of the recall options, in order (the server's allow-list, the adapters' retriever fields)
RECALL_OPTIONS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RecallOptions))


def check_k(k: object, max_k: int, what: str = "k") -> int:
    """How many results to return: an int within 1..`max_k` (True is not 1). The one rule of every face."""
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= max_k:
        raise InvalidInputError(f"{what} must be an integer within 1..{max_k}, got {k!r}")
    return k
