"""The libraries a user would pick instead, driven through their own public APIs on the same turns.

- LangChain: `InMemoryVectorStore(...).as_retriever()`, one store per conversation;
- LlamaIndex: `VectorMemoryBlock` over a Qdrant in-memory vector store (it needs a
  store that keeps text), one block per conversation, one `aput` per turn;
- mem0 (open source): `Memory.add(..., infer=False)` on local Qdrant, with its
  HuggingFace embedder pointed at the same local MiniLM files. mem0ai pins
  protobuf < 7, which the project's venv cannot take, so it runs in `.venv-peers`
  (see peers_venv.sh) through `peer_mem0.py`, which prints its results as JSON.

The LangChain and LlamaIndex peers get the same embeddings as hindsight through a
thin wrapper of their `Embeddings` / `BaseEmbedding` interfaces. A peer that
cannot be imported is reported with the reason, never silently left out.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import uuid
from pathlib import Path
from typing import Any, Sequence

from benchmarks.locomo import Conversation
from benchmarks.systems import Hit, Session, System, _lines

ROOT = Path(__file__).resolve().parent.parent
PEERS_PYTHON = ROOT / ".venv-peers" / "bin" / "python"


class PeerUnavailable(RuntimeError):
    """A peer cannot be installed or run here; the message says why."""


def query_vector(embedder, text: str):
    """A query's vector through the embedder's query side where it has one (e5), as hindsight does."""
    return getattr(embedder, "embed_query", embedder.embed)([text])[0]


def _langchain_embeddings(embedder):
    from langchain_core.embeddings import Embeddings

    class Wrapped(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return embedder.embed(texts).tolist()

        def embed_query(self, text: str) -> list[float]:
            return query_vector(embedder, text).tolist()

    return Wrapped()


class LangChainSystem(System):
    name = "langchain InMemoryVectorStore"
    kind = "peer"

    def __init__(self, embedder) -> None:
        try:
            from langchain_core.vectorstores import InMemoryVectorStore  # noqa: F401
        except ImportError as exc:
            raise PeerUnavailable(f"langchain-core is not installed ({exc})") from None
        self.embeddings = _langchain_embeddings(embedder)

    def open(self, conversation, texts):
        from langchain_core.vectorstores import InMemoryVectorStore

        store = InMemoryVectorStore(self.embeddings)
        store.add_texts(list(texts), metadatas=[{"dia_id": t.dia_id, "line": line}
                                                for t, line in zip(conversation.turns, _lines(conversation, texts))])
        return _LangChainSession(store)


class _LangChainSession(Session):
    def __init__(self, store) -> None:
        self.store = store

    def search(self, query, k):
        docs = self.store.as_retriever(search_kwargs={"k": k}).invoke(query)
        return [Hit((d.metadata["dia_id"],), d.metadata["line"]) for d in docs]


def _llamaindex_embedding(embedder):
    from llama_index.core.base.embeddings.base import BaseEmbedding

    class Wrapped(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return query_vector(embedder, query).tolist()

        def _get_text_embedding(self, text: str) -> list[float]:
            return embedder.embed([text])[0].tolist()

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return embedder.embed(texts).tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

    return Wrapped(model_name=embedder.name, embed_batch_size=64)


class LlamaIndexSystem(System):
    name = "llamaindex VectorMemoryBlock"
    kind = "peer"

    def __init__(self, embedder) -> None:
        try:
            from llama_index.core.memory import VectorMemoryBlock  # noqa: F401
            from llama_index.vector_stores.qdrant import QdrantVectorStore  # noqa: F401
        except ImportError as exc:
            raise PeerUnavailable(f"llama-index-core or llama-index-vector-stores-qdrant is missing ({exc}); "
                                  "pip install -e '.[bench]'") from None
        self.embed_model = _llamaindex_embedding(embedder)
        self.loop = asyncio.new_event_loop()

    def open(self, conversation, texts):
        return _LlamaIndexSession(self, conversation, texts)


class _LlamaIndexSession(Session):
    def __init__(self, system: LlamaIndexSystem, conversation: Conversation, texts: Sequence[str]) -> None:
        from llama_index.core.llms import ChatMessage
        from llama_index.core.memory import VectorMemoryBlock
        from llama_index.core.postprocessor.types import BaseNodePostprocessor
        from llama_index.vector_stores.qdrant import QdrantVectorStore
        from qdrant_client import AsyncQdrantClient

        seen: list = []

        class Recorder(BaseNodePostprocessor):
            """Notes which nodes the block retrieved (it returns only their joined text); changes nothing."""

            def _postprocess_nodes(self, nodes, query_bundle=None):
                seen[:] = list(nodes)
                return nodes

        self.loop, self.seen = system.loop, seen
        self.client = AsyncQdrantClient(location=":memory:")
        store = QdrantVectorStore(collection_name=f"locomo_{uuid.uuid4().hex[:8]}", aclient=self.client)
        self.block = VectorMemoryBlock(vector_store=store, embed_model=system.embed_model, similarity_top_k=10,
                                       node_postprocessors=[Recorder()])
        self.lines = dict(zip((t.dia_id for t in conversation.turns), _lines(conversation, texts)))
        self.ChatMessage = ChatMessage
        for turn, text in zip(conversation.turns, texts):
            # the block files a message's session_id as node metadata and leaves it out of the text: the one
            # field through which a node can name the turn it came from without changing what is embedded
            message = ChatMessage(role="user", content=text, additional_kwargs={"session_id": turn.dia_id})
            self.loop.run_until_complete(self.block.aput([message]))

    def search(self, query, k):
        self.block.similarity_top_k = k
        self.seen.clear()
        self.loop.run_until_complete(self.block.aget([self.ChatMessage(role="user", content=query)]))
        ids = [n.node.metadata.get("session_id") for n in self.seen]
        return [Hit((i,), self.lines.get(i, "")) for i in ids if i]

    def close(self):
        self.loop.run_until_complete(self.client.close())


def run_mem0(data: Path, *, limit: int | None, text_format: str, caption: bool, max_questions: int | None,
             timeout_s: float = 3600) -> dict[str, Any]:
    """Run peer_mem0.py in .venv-peers; returns its JSON (rows per question) or raises PeerUnavailable."""
    if not PEERS_PYTHON.exists():
        raise PeerUnavailable("mem0ai pins protobuf<7, which conflicts with the project's venv (protobuf 7); "
                              "create its own venv with `bash benchmarks/peers_venv.sh` (or `make bench-peers`)")
    args = [str(PEERS_PYTHON), str(Path(__file__).with_name("peer_mem0.py")), str(data),
            "--text-format", text_format] + (["--limit", str(limit)] if limit else []) + \
        ([] if caption else ["--no-caption"]) + (["--max-questions", str(max_questions)] if max_questions else [])
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "MEM0_TELEMETRY": "False", "PYTHONPATH": ""}
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout_s, env=env)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise PeerUnavailable(f"mem0 run failed (exit {done.returncode}): {' | '.join(tail)}")
    return json.loads(done.stdout.strip().splitlines()[-1])

