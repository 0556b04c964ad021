"""The vectors the knowledge rules compare: a statement's text alone, never the turn it answers.

A stored vector embeds a memory with the turn it answers (`preparing.embedding_text`):
"yes, the blue one" is found by what it refers to. That helps recall and hurts
every decision about what the user said: two repeats of one preference that answer
different turns sit far apart, and a change of mind that answers the assistant sits
close to whatever the assistant said. So duplicate merging, changes of mind,
conflicts and consolidation groups compare statements on their text alone
(`decision_vectors`), and recall keeps the context-bearing vectors. Nothing about
the store changes: the text-alone vector is embedded when a rule needs it (passage
side, one call per batch) and never stored.

Only a statement a similarity rule compares is embedded again (`judged_on_text`): the
user's own asserted words (a change of mind, a conflict or a group reads nothing else)
that carry a context. Everything else (questions, agent and tool text, memories
written alone, knowledge) is compared on the vector it is stored with, which for a
memory with no context is already its text alone.
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

    `stored_vectors[i]` is the vector `records[i]` is (or will be) stored with. With
    no `embed`, the stored vectors come back unchanged (a copy).
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
