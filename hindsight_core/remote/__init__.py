"""Several processes, one memory: `hindsight serve` holds the store; `HindsightClient` reaches it.

    wire        the JSON form of the facade's arguments, results and errors
    api         the operations the server offers (one per `Hindsight` method)
    service     the one ASGI app: JSON API, MCP endpoint, inspector; its checks
    recall_log  what the agent saw: a bounded per-user log of recalls
    discovery   server.json beside the store; who holds a locked store
    runner      `hindsight serve` itself
    client      `HindsightClient`, the facade's API over HTTP

Importing this package imports neither httpx nor Starlette.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ServerAuthError

if TYPE_CHECKING:
    from .client import HindsightClient

__all__ = ["HindsightClient", "ServerAuthError"]


def __getattr__(name: str) -> Any:
    if name == "HindsightClient":
        from .client import HindsightClient

        return HindsightClient
    raise AttributeError(name)
