"""What a recall may be asked besides its query and user, stated once: the frozen value `RecallOptions`, and its check.

Its fields are the keyword options of `MemoryAPI.recall`, with their defaults
(`tests/serve/test_same_api.py` holds `Hindsight.recall` to them). The relays
derive from them: the server's allow-list (`api.keywords`), the LangChain
retriever's per-call options.

`checked` is the one validation of every value (an `InvalidInputError` that
says what to pass): k against the configured limit, the layers and event types,
the ids, the flag, and the time range read at one moment. The facade runs it on
every recall; a face that wants to refuse bad input before it opens a store or
loads a model (the CLI) runs the same check, never one of its own.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping, Sequence

from ..clock import ensure_utc
from ..config import HindsightConfig
from ..errors import InvalidInputError
from ..language.text import validate_id
from ..store import Scope
from ..types import Layer
from ..write.validation import check_event_types, check_flag, check_layers, check_names, time_window

__all__ = ["RECALL_OPTIONS", "RecallOptions", "check_k"]


@dataclass(frozen=True)
class RecallOptions:
    """What a recall may be asked besides its query and user: the defaults of `MemoryAPI.recall`."""

    k: int = 5
    time_range: Any = None
    layers: Sequence[str] | None = None
    event_types: Sequence[str] | None = None
    session_id: str | None = None
    agent_id: str | None = None
    reinforce: bool = True

    @classmethod
    def named(cls, options: Mapping[str, Any]) -> RecallOptions:
        """The options given by name (keyword arguments, a retriever's per-call options); any other name is refused."""
        check_names(options, RECALL_OPTIONS, "recall")
        return cls(**options)

    def checked(self, config: HindsightConfig, now: datetime | None = None) -> RecallOptions:
        """Every value validated against `config`'s limits and in its one form: k an int, layers a list of names,
        event types a set, and the time range a `TimeRange` read at `now` (default: this moment), or None."""
        limits = config.limits
        spec = tuple(self.time_range) if isinstance(self.time_range, list) else self.time_range  # a JSON pair
        moment = ensure_utc(now) if now is not None else datetime.now(timezone.utc)
        return RecallOptions(
            k=check_k(self.k, limits.max_k), time_range=time_window(spec, moment), layers=check_layers(self.layers),
            event_types=check_event_types(self.event_types),  # type: ignore[arg-type]
            session_id=validate_id(self.session_id, what="session_id", max_chars=limits.max_id_chars, required=False),
            agent_id=validate_id(self.agent_id, what="agent_id", max_chars=limits.max_id_chars, required=False),
            reinforce=check_flag(self.reinforce, "reinforce"))

    def scope(self) -> Scope:
        """The filters of a `checked` value as the engine's `Scope`."""
        window = self.time_range
        return Scope(layers=frozenset(Layer(x) for x in self.layers) if self.layers is not None else None,
                     event_types=frozenset(self.event_types) if self.event_types is not None else None,
                     session_id=self.session_id, agent_id=self.agent_id,
                     start=window.start if window else None, end=window.end if window else None)


#: the names of the recall options, in order (the server's allow-list, the LangChain retriever's per-call options)
RECALL_OPTIONS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RecallOptions))


def check_k(k: object, max_k: int, what: str = "k") -> int:
    """How many results to return: an int within 1..`max_k` (True is not 1)."""
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= max_k:
        raise InvalidInputError(f"{what} must be an integer within 1..{max_k}, got {k!r}")
    return k
