"""The vectors the knowledge rules compare: a statement's text alone, never the turn it answers.

A stored vector embeds a memory with the turn it answers (`preparing.embedding_text`), which helps recall and hurts
every decision about what the user said: two repeats of one preference that answer different turns sit far apart. So
duplicates, changes of mind, conflicts and consolidation groups compare the user's asserted words that carry a context
on their text alone (`judged_on_text`), embedded when a rule needs it and never stored; everything else is compared on
its stored vector.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..types import MemoryRecord, Source
from .rules import asserted

#: embeds texts alone on the passage side, one row per text, unit length
EmbedTexts = Callable[[Sequence[str]], np.ndarray]


def judged_on_text(record: MemoryRecord) -> bool:
    """Whether a rule compares this record on its text alone: the user's own asserted statement with a context."""
    return bool(record.context) and record.source is Source.USER and asserted(record.raw_content)


def decision_vectors(records: Sequence[MemoryRecord], stored_vectors: np.ndarray | Sequence[np.ndarray | None],
                     embed: EmbedTexts | None) -> np.ndarray:
    """One row per record: its text alone (`judged_on_text`, embedded in one call) or the vector it is stored with.

    `stored_vectors[i]` is the vector `records[i]` is (or will be) stored with; with no `embed`, a copy of them.
    """
    out = np.array(stored_vectors, dtype=np.float32, copy=True)
    if out.ndim != 2 or len(out) != len(records):
        raise ValueError(f"{len(records)} records but stored vectors of shape {out.shape}")
    todo = [i for i, record in enumerate(records) if judged_on_text(record)] if embed is not None else []
    if todo and embed is not None:
        fresh = np.asarray(embed([records[i].raw_content for i in todo]), dtype=np.float32)
        if fresh.shape != (len(todo), out.shape[1]):
            raise ValueError(f"the embedder returned {fresh.shape} for {len(todo)} texts of dimension {out.shape[1]}")
        out[todo] = fresh
    return out
