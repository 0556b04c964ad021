"""How a memory record becomes a Qdrant point, the same on both backends.

A point carries two vectors, `dense` (the embedding) and `bm25` (a sparse BM25 vector from `qdrant_edge.Bm25`, one
config for both backends so keyword scores agree), and a payload (`hindsight_core.store.payload`). This module holds the
keyword side (what the BM25 channel indexes and how a query becomes terms) and re-exports the field names and the
payload codec under the names the backends use.
"""

from __future__ import annotations

import threading
from typing import Any

from ..language.text_cache import per_text
from ..types import MemoryRecord
from .fields import (DENSE, FLOAT_INDEXED, ID_FIELDS, KEYWORD_INDEXED, RANKING_FIELDS, SPARSE, TEXT_FIELDS,
                     derived_fields, epoch_days, metadata_digest, metadata_digests, next_seq)
from .payload import (Digest, Seal, UnreadableRecord, Unseal, from_payload, neighbour_lists, ranking_fields,
                      ranking_values, record_from_payload, record_to_dict, sparse_terms, to_hit, to_payload)

__all__ = ["BM25_SETTINGS", "DENSE", "Digest", "FLOAT_INDEXED", "ID_FIELDS", "KEYWORD_INDEXED", "RANKING_FIELDS",
           "SPARSE", "Seal", "TEXT_FIELDS", "Unseal", "UnreadableRecord", "derived_fields", "document_terms",
           "epoch_days", "from_payload", "keyword_text", "metadata_digest", "metadata_digests", "neighbour_lists",
           "next_seq", "query_terms", "ranking_fields", "ranking_values", "record_from_payload", "record_to_dict",
           "sparse_terms", "to_hit", "to_payload"]

_BM25_LOCK = threading.Lock()
_BM25: Any = None
#: portable to a Qdrant server's own BM25 inference (same JSON shape)
BM25_SETTINGS: dict[str, Any] = {"tokenizer": "multilingual", "language": "english", "avg_len": 24.0,
                 "stopwords": ["english", "chinese"]}


def _bm25() -> Any:
    global _BM25
    if _BM25 is not None:
        return _BM25
    with _BM25_LOCK:
        if _BM25 is None:
            from qdrant_edge import Bm25, Bm25Config, Language, StopwordsSet, TokenizerType

            _BM25 = Bm25(Bm25Config(tokenizer=TokenizerType.Multilingual, language="english",
                                    avg_len=BM25_SETTINGS["avg_len"],
                                    stopwords=StopwordsSet(languages={Language.English, Language.Chinese})))
        return _BM25


def keyword_text(record: MemoryRecord) -> str:
    """What the keyword channel indexes: the text, what it answers, and its entities."""
    parts = [record.raw_content, record.context or "", " ".join(record.entities)]
    return " ".join(p for p in parts if p)


def document_terms(text: str) -> tuple[list[int], list[float]]:
    sparse = _bm25().embed_document(text)
    return list(sparse.indices), list(sparse.values)


def query_terms(text: str) -> tuple[list[int], list[float]]:
    indices, values = _query_terms(text)
    return list(indices), list(values)


@per_text
def _query_terms(text: str) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """A query's terms, kept: a recall reads them for its plan and again for its explanations."""
    sparse = _bm25().embed_query(text)
    return tuple(sparse.indices), tuple(sparse.values)
