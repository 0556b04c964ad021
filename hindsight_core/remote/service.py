"""`hindsight serve`'s one ASGI application: the JSON API, the MCP endpoint and the inspector, on one port.

    GET  /healthz          no token needed (container health checks)
    POST /api/v1/<name>    the operations of `api.Operations`, JSON in and out
    *    /mcp              MCP streamable HTTP (when the server knows its user(s))
    *    /...              the inspector's pages (`hindsight_core.ui.app.InspectorApp`)

Security, outermost first (`Checks`): strict framing (Content-Length with Transfer-Encoding is a 400, the connection
closed); a body limit (a bad Content-Length a 400, a body over the limit a 413, counted as it streams too); a body not
arrived `request_timeout` seconds after its head a 408; without a token, a Host other than loopback:port is refused; a
browser's cross-origin request to the API is refused. The API needs `Authorization: Bearer` with the server's token or a
user's own; the MCP endpoint checks the same tokens, and the inspector keeps its own guard.
"""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Mapping

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .. import __version__
from ..errors import (ForbiddenError, HindsightError, InvalidInputError, MemoryNotFoundError, StoreInUseError,
                      StoreUnavailableError)
from ..ui.security import host_name, is_loopback
from . import wire
from .api import EVERYONE, Call, Operations
from .recall_log import RecallLog

#: an ASGI message, and a callable that receives one
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]

#: the largest request body: a batch of writes or a slice of an import
MAX_BODY_BYTES = 16 * 1024 * 1024
#: the longest caller or session label kept in the recall log
MAX_LABEL = 200
#: seconds a request may take to send its head, and then its body (a client that stops half-way is cut off)
REQUEST_TIMEOUT = 30.0


@dataclass(frozen=True)
class Access:
    """Who may call: the server's own token (every user), per-user tokens, or anyone on loopback (no token)."""

    token: str | None = None
    user_tokens: Mapping[str, str] = field(default_factory=dict)

    @property
    def open(self) -> bool:
        return self.token is None and not self.user_tokens

    def who(self, authorization: str | None) -> str | None:
        """EVERYONE, one user id, or None (refused), for an Authorization header."""
        import hmac

        if self.open:
            return EVERYONE
        if not authorization or not authorization.lower().startswith("bearer "):
            return None
        offered = authorization[7:].encode()
        found = None
        if self.token is not None and hmac.compare_digest(offered, self.token.encode()):
            found = EVERYONE
        for token, user in self.user_tokens.items():
            if hmac.compare_digest(offered, token.encode()):
                found = user
        return found


def _status(exc: HindsightError) -> int:
    if isinstance(exc, ForbiddenError):
        return 403
    if isinstance(exc, MemoryNotFoundError):
        return 404
    if isinstance(exc, (StoreInUseError, StoreUnavailableError)):
        return 503
    return 400


def api_route(operations: Operations, access: Access) -> Route:
    async def endpoint(request: Request) -> Response:
        who = access.who(request.headers.get("authorization"))
        if who is None:
            return JSONResponse({"error": {"type": "AuthenticationError", "message": (
                "this server needs 'Authorization: Bearer <token>' with its token or a user's token"
                if not request.headers.get("authorization") else "this token is not one the server knows")}},
                status_code=401)
        name = request.path_params["name"]
        operation = operations.table.get(name)
        if operation is None:
            return JSONResponse(wire.error_out(InvalidInputError(f"no operation {name!r}")), status_code=404)
        try:
            body = json.loads(await request.body() or b"{}")
            if not isinstance(body, dict):
                raise ValueError("not an object")
        except (ValueError, RecursionError):
            return JSONResponse(wire.error_out(InvalidInputError("the body must be a JSON object")), status_code=400)
        # the caller and session only label entries of the recall log (shown escaped): bounded, never trusted
        caller = (request.headers.get("x-hindsight-caller") or "api")[:MAX_LABEL]
        session = (request.headers.get("x-hindsight-session") or "")[:MAX_LABEL] or None
        try:
            call = Call(wire.value_in(body), who, caller=caller, session=session, operation=name)
            result = await anyio.to_thread.run_sync(operation, call)
        except HindsightError as exc:
            return JSONResponse(wire.error_out(exc), status_code=_status(exc))
        except (TypeError, ValueError) as exc:  # an argument of the wrong shape that slipped past validation
            return JSONResponse(wire.error_out(InvalidInputError(str(exc))), status_code=400)
        return JSONResponse({"result": result})

    return Route(wire.PREFIX + "/{name}", endpoint, methods=["POST"])


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok", "version": __version__})


class Checks:
    """ASGI middleware: framing, body limit and deadline, Host check without a token, no cross-origin browser calls
    to the API."""

    def __init__(self, app: Any, *, port: int, guarded: bool, max_body: int = MAX_BODY_BYTES,
                 request_timeout: float = REQUEST_TIMEOUT) -> None:
        self.app, self.port, self.guarded, self.max_body = app, port, guarded, max_body
        self.request_timeout = request_timeout

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or ()}
        refusal = self.refusal(scope, headers)
        if refusal is not None:
            return await _plain(send, *refusal)
        limit = self.max_body
        seen = 0
        refused = False
        deadline = anyio.current_time() + self.request_timeout
        complete = False  # the whole body arrived: from then on `receive` waits for a disconnect, unbounded

        async def bounded() -> Message:
            nonlocal seen, refused, complete
            if refused:
                return {"type": "http.disconnect"}
            if complete:
                return await receive()
            with anyio.move_on_after(max(0.0, deadline - anyio.current_time())) as waited:
                message = await receive()
            if waited.cancelled_caught:
                refused = True
                await _plain(send, 408, f"the request body did not arrive within {self.request_timeout:g} s")
                return {"type": "http.disconnect"}
            complete = message["type"] != "http.request" or not message.get("more_body", False)
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:  # answer now; the app sees the client leave, and what it sends is dropped
                    refused = True
                    await _plain(send, 413, f"the request body is larger than {limit:,} bytes")
                    return {"type": "http.disconnect"}
            return message

        async def unless_refused(message: Message) -> None:
            if not refused:
                await send(message)

        try:
            await self.app(scope, bounded, unless_refused)
        except Exception:
            if not refused:
                raise

    def refusal(self, scope: dict[str, Any], headers: dict[str, str]) -> tuple[int, str] | None:
        length = headers.get("content-length")
        if length is not None and "transfer-encoding" in headers:  # read two ways, a body can hide a second request
            return 400, "a request may not carry both Content-Length and Transfer-Encoding; send one of them"
        if length is not None:
            if not length.strip().isdigit():
                return 400, f"Content-Length {length!r} is not a byte count"
            if int(length) > self.max_body:
                return 413, f"the request body is larger than {self.max_body:,} bytes"
        if not self.guarded:
            name, port = host_name(headers.get("host", ""))
            if not (is_loopback(name) and port == str(self.port)):
                return 403, f"this server answers only at 127.0.0.1:{self.port}"
        origin = headers.get("origin")
        if scope.get("path", "").startswith("/api/") and origin is not None and \
                origin not in (f"http://{headers.get('host')}", f"https://{headers.get('host')}"):
            return 403, "the API does not answer web pages of another origin"
        return None


async def _plain(send: Any, status: int, message: str) -> None:
    """A refusal; the connection closes after it (what is left of the request is never read as another one)."""
    body = json.dumps(wire.error_out(InvalidInputError(message))).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def inspector_endpoint(inspector: Any, max_body: int) -> Callable[..., Any]:
    """The inspector's WSGI app served from Starlette: the body read first (bounded), the page made in a thread."""

    async def endpoint(request: Request) -> Response:
        body = await request.body()
        environ = {
            "REQUEST_METHOD": request.method, "PATH_INFO": request.url.path, "QUERY_STRING": request.url.query,
            "CONTENT_LENGTH": str(len(body)), "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr,
            **{"HTTP_" + k.upper().replace("-", "_"): v for k, v in request.headers.items()
               if k.lower() not in ("content-length", "content-type")},
        }
        answer: dict[str, Any] = {}

        def start_response(status: str, headers: list[tuple[str, str]]) -> None:
            answer["status"], answer["headers"] = status, headers

        chunks = await anyio.to_thread.run_sync(lambda: b"".join(inspector(environ, start_response)))
        headers = [(k, v) for k, v in answer["headers"] if k.lower() != "content-length"]
        response = Response(chunks, status_code=int(answer["status"].split()[0]))
        response.raw_headers = [(b"content-length", str(len(chunks)).encode())] + [
            (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
        return response

    return endpoint


class _ExplainMcpRefusals:
    """mcp's `ExplainedUnauthorized` (a 401 that says why) on the MCP endpoint only."""

    def __init__(self, app: Any, scope: Any) -> None:
        from ..mcp.server import ExplainedUnauthorized

        self.app = app
        self.explained = ExplainedUnauthorized(app, scope)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        target = self.explained if scope["type"] == "http" and scope.get("path", "").startswith("/mcp") else self.app
        await target(scope, receive, send)


def build_app(memory: Any, *, port: int, access: Access, log: RecallLog, mcp: Any = None, mcp_scope: Any = None,
              mcp_sessions: Any = None, inspector: Any = None, max_body: int = MAX_BODY_BYTES,
              request_timeout: float = REQUEST_TIMEOUT) -> Any:
    """The one ASGI app. `mcp`: an MCP streamable-HTTP Starlette app (its lifespan runs the sessions) or None,
    with `mcp_scope` its `UserScope` and `mcp_sessions` its `SessionLimits`, shared fairly between its users
    (`mcp.sessions.SessionQuota`); `inspector`: an `InspectorApp` or None."""
    operations = Operations(memory, log)
    app = mcp if mcp is not None else Starlette()
    routes = [Route("/healthz", healthz, methods=["GET"]), api_route(operations, access)]
    app.router.routes[:0] = routes
    if inspector is not None:
        app.router.routes.append(Route("/{path:path}", inspector_endpoint(inspector, max_body),
                                       methods=["GET", "POST"]))
    inner: Any = app
    if mcp is not None:
        from ..mcp.sessions import SessionLimits, SessionQuota

        inner = SessionQuota(inner, mcp_scope, mcp_sessions or SessionLimits())
        inner = _ExplainMcpRefusals(inner, mcp_scope) if mcp_scope.authenticated else inner
    return Checks(inner, port=port, guarded=not access.open, max_body=max_body, request_timeout=request_timeout)
