"""The two mcp SDK lines hindsight's server runs on: 2.x (`MCPServer`) and 1.x from 1.24 (`FastMCP`).

langchain-mcp-adapters requires mcp<2, so a LangChain user gets mcp 1.x. The server is the same on both: 1.x
keeps the classes elsewhere, takes no `version`, and reads its apps' path and host from its settings. This module
is the only place that knows; the rest of `hindsight_core.mcp` imports from here.
"""

from __future__ import annotations

import importlib.util
from typing import Any, Awaitable, Callable, Literal

from ..errors import StoreUnavailableError

#: the SDK line installed (mypy reads the 2.x line, `always_false` in pyproject.toml; tests/mcp runs 1.x too)
MCP_1 = importlib.util.find_spec("mcp.server.mcpserver") is None
if MCP_1:
    from mcp.server.fastmcp import Context, FastMCP as _Server
    from mcp.server.fastmcp.exceptions import ToolError
else:
    from mcp.server.mcpserver import Context, MCPServer as _Server
    from mcp.server.mcpserver.exceptions import ToolError

__all__ = ["MCP_1", "Context", "MCPServer", "ToolError", "check_tool_calls", "new_server", "tool_arguments"]

if MCP_1:
    class MCPServer(_Server):
        """mcp 1.x's FastMCP, answering the 2.x calls hindsight makes (`streamable_http_app(path, host)`)."""

        def streamable_http_app(self, *, streamable_http_path: str = "/mcp",
                                host: str | None = None, max_sessions: int | None = None,
                                session_idle_timeout: float | None = None) -> Any:
            self._check_host(host)
            self.settings.streamable_http_path = streamable_http_path
            # 1.x keeps the session bounds in its settings; a release without them is refused, not left unbounded
            for name, value in (("max_sessions", max_sessions), ("session_idle_timeout", session_idle_timeout)):
                if value is None:
                    continue
                if not hasattr(self.settings, name):
                    raise StoreUnavailableError(f"this mcp release cannot bound its HTTP sessions ({name}); "
                                       "upgrade mcp (`pip install -U 'mcp>=1.24,<2'` or mcp>=2.3)")
                setattr(self.settings, name, value)
            return super().streamable_http_app()

        def sse_app(self, *, host: str | None = None) -> Any:
            self._check_host(host)
            return super().sse_app()

        def _check_host(self, host: str | None) -> None:
            # 1.x fixes its DNS-rebinding protection from the host given at construction (new_server)
            if host is not None and host != self.settings.host:
                raise ValueError(f"this server was built for host {self.settings.host!r}, not {host!r}")
else:
    MCPServer = _Server


LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


def new_server(name: str, *, version: str, instructions: str, log_level: LogLevel, host: str, port: int,
               **auth: Any) -> Any:
    """An MCP server of the installed SDK line, with the same name, version, instructions and auth."""
    if not MCP_1:
        return MCPServer(name, version=version, instructions=instructions, log_level=log_level, **auth)
    server = MCPServer(name, instructions=instructions, log_level=log_level, host=host, port=port, **auth)
    server._mcp_server.version = version  # 1.x's FastMCP takes no version; its low-level server does
    return server


async def tool_arguments(server: Any, name: str) -> set[str] | None:
    """The argument names the tool `name` takes, from the server's public listing (`list_tools`, whose schema field
    is `input_schema` on 2.x and `inputSchema` on 1.x); None when the server has no such tool."""
    for tool in await server.list_tools():
        if tool.name == name:
            schema = tool.inputSchema if MCP_1 else tool.input_schema
            return set((schema or {}).get("properties", {}))
    return None


def check_tool_calls(server: Any, check: Callable[[str, Any], Awaitable[None]]) -> None:
    """Run `check(name, arguments)` before every tool call of `server`; it refuses a call by raising `ToolError`.

    Both lines answer through the server's public `call_tool`; 1.x registered the bound method with its
    low-level server when it was made, so there it is registered again.
    """
    call_tool = server.call_tool

    async def checked(name: str, arguments: Any, *context: Any) -> Any:
        await check(name, arguments)
        return await call_tool(name, arguments, *context)

    server.call_tool = checked
    if MCP_1:
        server._mcp_server.call_tool(validate_input=False)(checked)
