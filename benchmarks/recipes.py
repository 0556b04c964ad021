"""How a benchmark builds its hindsight: defaults, or one mechanism changed (the ablations' variants).

A `Recipe` says which configuration, write options and embedder side to use;
every benchmark that writes through hindsight takes one, so `ablations.py` can
run the same harness with each mechanism off in turn. `E5Vectors` holds the
cached e5 vectors shared by hindsight and the plain baselines of one run.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from benchmarks.embedcache import CachedEmbedder

from hindsight_core import Hindsight, HindsightConfig
from hindsight_core.recall.formatting import DEFAULT_CONTEXT_CHARS


class RecipeUnavailable(Exception):
    """The variant names a setting this version of the core does not have."""


def tweak(part: str, **fields: Any) -> Callable[[HindsightConfig], HindsightConfig]:
    """A config change: tweak("recall", time_prior_weight=0.0) replaces those fields of config.recall."""
    def change(config: HindsightConfig) -> HindsightConfig:
        section = getattr(config, part, None)
        if section is None:
            raise RecipeUnavailable(f"HindsightConfig has no {part!r}")
        known = {f.name for f in dataclasses.fields(section)}
        if set(fields) - known:
            raise RecipeUnavailable(f"{type(section).__name__} has no {sorted(set(fields) - known)}")
        return dataclasses.replace(config, **{part: dataclasses.replace(section, **fields)})
    change.__name__ = f"{part}: " + ", ".join(f"{k}={v!r}" for k, v in fields.items())
    return change


@dataclass(frozen=True)
class Recipe:
    """hindsight with defaults, or with some mechanisms changed."""

    what: str = "defaults"
    changes: tuple[Callable[[HindsightConfig], HindsightConfig], ...] = ()
    #: write past the write gate (force=True)
    force: bool = False
    #: let the conversation policy pair a turn with the turn it answers (`context=`); False strips it
    pairing: bool = True
    #: E5Embedder(symmetric=...); None: the embedder's default
    symmetric: bool | None = None
    #: how much of the turn a memory answers its block line shows (`format_for_prompt(context_chars=)`); 0: none
    context_chars: int = DEFAULT_CONTEXT_CHARS
    #: other keyword arguments for Hindsight(...)
    options: dict[str, Any] = field(default_factory=dict)

    def config(self) -> HindsightConfig | None:
        config = None
        for change in self.changes:
            config = change(config or HindsightConfig())
        return config

    def describe(self) -> dict[str, Any]:
        return {"what": self.what, "changes": [c.__name__ for c in self.changes], "force": self.force,
                "pairing": self.pairing, "symmetric": self.symmetric, "context_chars": self.context_chars,
                "options": self.options}

    def block(self, memory: Hindsight, results) -> str:
        """The top-5 prompt block as the adapters render it, with this recipe's context width."""
        return memory.format_for_prompt(list(results)[:5], context_chars=self.context_chars)

    def build(self, vectors: "E5Vectors", clock, folder: str | None = None) -> Hindsight:
        where = {"path": folder} if folder else {"location": ":memory:"}
        return Hindsight(**where, embedder=vectors.for_hindsight(self.symmetric), clock=clock,
                         config=self.config(), **self.options)

    def writer(self, memory: Hindsight):
        """What the conversation policy writes through: the memory, with this recipe's write options."""
        if self.force or not self.pairing:
            return _WriteOptions(memory, force=self.force, pairing=self.pairing)
        return memory


class _WriteOptions:
    """A Hindsight whose writes are forced past the gate and/or lose the turn they answer; all else unchanged."""

    def __init__(self, memory: Hindsight, *, force: bool, pairing: bool) -> None:
        self._memory, self._force, self._pairing = memory, force, pairing

    def __getattr__(self, name: str) -> Any:
        return getattr(self._memory, name)

    def _options(self, options: dict[str, Any]) -> dict[str, Any]:
        if not self._pairing:
            options = {k: v for k, v in options.items() if k not in ("context", "contexts")}
        return {**options, "force": True} if self._force else options

    def write_many(self, texts, **options: Any):
        return self._memory.write_many(texts, **self._options(options))

    def write(self, text, **options: Any):
        return self._memory.write(text, **self._options(options))


class E5Vectors:
    """multilingual-e5-small behind one vector cache: its passage side, query side, and hindsight's own use."""

    def __init__(self, cache: Path | None, inner=None) -> None:
        from hindsight_core.embed.multilingual import E5Embedder

        self._e5 = E5Embedder
        self.default = CachedEmbedder(inner or E5Embedder(), cache)  # what Hindsight() gets by default
        self.passage_side = self.default if getattr(self.default.inner, "symmetric", True) else \
            self.default.sharing(E5Embedder(symmetric=True))
        self.query_side = self.default if not getattr(self.default.inner, "symmetric", True) else \
            self.default.sharing(E5Embedder(symmetric=False))

    @property
    def name(self) -> str:
        return self.default.name

    def for_hindsight(self, symmetric: bool | None) -> CachedEmbedder:
        if symmetric is None:
            return self.default
        return self.passage_side if symmetric else self.query_side

    def warm(self, texts) -> int:
        return self.default.warm(list(texts))

    def warm_queries(self, texts) -> int:
        """Both sides of each query: the passage rows (symmetric use) and the query side."""
        texts = list(texts)
        return self.default.warm(texts) + self.query_side.warm_queries(texts)

    def save(self) -> None:
        self.default.save()
