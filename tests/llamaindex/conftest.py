"""LlamaIndex adapter fixtures: no test may reach the network."""

from __future__ import annotations

import socket
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Refuse internet connections, so a default OpenAI LLM or embedder would fail loudly."""
    real_connect = socket.socket.connect

    def guarded(sock: socket.socket, address: Any) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            raise RuntimeError(f"test tried to reach the network: {address!r}")
        return real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture(autouse=True)
def chat_memories_are_closed(monkeypatch):
    """Close every chat memory a test opens: a `HindsightChatMemory`, and LlamaIndex's own `Memory` that a test
    hands to a chat engine or an agent (each holds an aiosqlite connection and worker thread).

    One left to the garbage collector stops its thread with a future on whatever event loop is current, and once
    pytest has closed that loop the thread fails with "Event loop is closed" in whichever test runs then.
    """
    from llama_index.core.async_utils import asyncio_run
    from llama_index.core.memory import Memory

    from hindsight_llamaindex.memory_block import HindsightChatMemory

    opened: list = []
    plain: list = []
    make = HindsightChatMemory.from_defaults.__func__
    make_plain = Memory.from_defaults.__func__

    def recorded(cls, *args, **kwargs):
        opened.append(make(cls, *args, **kwargs))
        return opened[-1]

    def recorded_plain(cls, *args, **kwargs):
        memory = make_plain(cls, *args, **kwargs)
        if type(memory) is Memory:
            plain.append(memory)
        return memory

    monkeypatch.setattr(HindsightChatMemory, "from_defaults", classmethod(recorded))
    monkeypatch.setattr(Memory, "from_defaults", classmethod(recorded_plain))
    yield opened
    for chat_memory in opened:
        chat_memory.close()
    for memory in plain:  # what `HindsightChatMemory.aclose` does for the store it opened
        engine = getattr(memory.sql_store, "_async_engine", None)
        if engine is not None:
            asyncio_run(engine.dispose())
