"""hindsight as a Model Context Protocol server (`hindsight mcp`; needs the `mcp` extra).

Tools: memory_write (through the write gate), memory_search, memory_forget,
memory_summarize (consolidation) and memory_stats.

Scoping model: the user whose memories a request may read or change is fixed by
the server, never by the model. No tool has a user id argument.

- stdio (the default): one server process serves one user, named by
  `--user-id` / `HINDSIGHT_USER_ID`. The MCP client (Claude Desktop, an IDE)
  starts the process for its user; the process boundary is the authentication.
- HTTP and SSE: either one configured user, optionally behind a bearer token
  (`--token` / `HINDSIGHT_MCP_TOKEN`), or several users, each with a token of
  their own (`--tokens-file`, a JSON object {"user_id": "token"}). With tokens,
  every request must carry `Authorization: Bearer <token>`; mcp's auth middleware
  verifies it and the tools act for the token's user only, so one user's client
  cannot reach another user's memories. Serving on anything but a loopback
  interface without a token is refused unless explicitly allowed.

Importing this package does not import `mcp`; `build_server` and `run_server` do.
They run on mcp 2.3+ and on mcp 1.x from 1.24 (what `langchain-mcp-adapters` installs);
`compat.py` is the one place that knows the two lines.
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
