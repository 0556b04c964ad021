"""What a write may carry besides its text and user, stated once: the frozen value `WriteOptions`, and its check.

Its fields are the keyword options of `MemoryAPI.write`, with their defaults
(`tests/serve/test_same_api.py` holds `Hindsight.write` to them). Every relay
of a write derives from them and names none: the server's allow-list and the
client's request body (`remote/`), the write queue's journal entry
(`session/write_queue.py`), the conversation policy's pass-through
(`session/turns.py`). So a new option is a field here, its check in `checked`,
and what it does where it is used (`preparing`, for the record).

`checked` is the one validation of every value (an `InvalidInputError` that
says what to pass); the facade runs it for each text, and a write queue runs it
when a write is handed over, so a bad value is refused before it is journaled.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping, Sequence

from ..config import HindsightConfig
from ..errors import InvalidInputError
from ..language.text import validate_id, validate_text
from ..types import Layer, Source
from .validation import (
    check_confidence,
    check_entities,
    check_event_type,
    check_flag,
    check_flag_or_none,
    check_metadata,
    check_names,
    check_per_text,
    check_timestamp,
    check_visible,
)

__all__ = ["PER_TEXT", "WRITE_MANY_OPTIONS", "WRITE_OPTIONS", "WriteOptions", "per_text"]


@dataclass(frozen=True)
class WriteOptions:
    """What a write may carry besides its text and user: the defaults of `MemoryAPI.write`."""

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

    A per-text list given (`PER_TEXT`) overrides its single form; each must hold one entry per text. A name
    that is neither an option nor a per-text list is refused.
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
