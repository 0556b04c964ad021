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
