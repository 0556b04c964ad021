"""What a question asks about in time, for pooling a benchmark's questions: the rule recall itself reads
(`hindsight_core.language.asked_time`: a date it names, the past, or the present)."""

from __future__ import annotations

from hindsight_core.language.asked_time import CLASSES, asked_time as query_class

__all__ = ["CLASSES", "query_class"]
