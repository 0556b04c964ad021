"""hindsight as a Model Context Protocol server (`hindsight mcp`; needs the `mcp` extra).

Tools: memory_write, memory_search, memory_forget, memory_summarize and memory_stats. The user whose memories a request
may reach is fixed by the server, never by the model: no tool has a user id argument.

- stdio (the default): one server process serves one user (`--user-id`).
- HTTP and SSE: one configured user, optionally behind a bearer token (`--token`), or several users with a token each
  (`--tokens-file`). Serving off loopback without a token is refused unless explicitly allowed.

Importing this package does not import `mcp`; `build_server` and `run_server` do, on mcp 2.3+ and on 1.x from 1.24
(`compat.py` is the one place that knows the two lines).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .scope import UserScope

if TYPE_CHECKING:
    from .server import build_server, run_server

__all__ = ["UserScope", "build_server", "run_server"]


def __getattr__(name: str) -> Any:
    if name in ("build_server", "run_server"):
        from . import server

        return getattr(server, name)
    raise AttributeError(name)
