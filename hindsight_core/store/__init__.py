"""Durable storage of memories. Only this package imports qdrant_client."""

from .base import MemoryStore
from .qdrant import QdrantStore

__all__ = ["MemoryStore", "QdrantStore"]
