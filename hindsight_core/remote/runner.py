"""Run `hindsight serve`: open the store, bind the port, build the one app, record the address, serve, clean up."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..mcp.sessions import SessionLimits
from ..ui.security import is_loopback
from .discovery import ServerRecord, remove_record, write_record
from .recall_log import DEFAULT_MAX_TOTAL, RecallLog
from .service import REQUEST_TIMEOUT, Access, build_app


@dataclass
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None
    user_tokens: dict[str, str] | None = None
    #: the user MCP tools act for when no per-user token names one
    mcp_user: str | None = None
    write_source: str = "agent"
    recall_log: bool | None = None  # None: on for loopback, off elsewhere
    recall_log_entries: int = 200
    recall_log_days: float = 7.0
    #: entries of the recall log across every user (the oldest leave first)
    recall_log_total: int = DEFAULT_MAX_TOTAL
    #: MCP sessions open at once and per user, and seconds before an idle one is closed (`mcp.sessions`)
    mcp_sessions: SessionLimits = SessionLimits()
    #: seconds a request may take to send its head, then its body
    request_timeout: float = REQUEST_TIMEOUT


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # asyncio sets TCP_NODELAY on accepted sockets only with IPPROTO_TCP (else answers wait for a delayed ACK)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url_of(host: str, port: int) -> str:
    return f"http://[{host.strip('[]')}]:{port}" if ":" in host else f"http://{host}:{port}"


def make_app(memory: Any, options: ServeOptions, port: int) -> tuple[Any, RecallLog]:
    """The ASGI app for `memory` on `port`, and its recall log."""
    from datetime import timedelta

    from ..mcp.scope import UserScope, user_tokens
    from ..mcp.server import build_server, http_app
    from ..ui.app import InspectorApp
    from ..ui.security import Guard

    consent = options.recall_log if options.recall_log is not None else is_loopback(options.host)
    log = RecallLog(memory.now, enabled=consent, max_entries=options.recall_log_entries,
                    max_age=timedelta(days=options.recall_log_days), max_total=options.recall_log_total)
    memory.on_forget(log.forget)
    access = Access(options.token, user_tokens(options.user_tokens or {}))  # ids as the store compares them
    tokens = dict(access.user_tokens)
    if options.token and options.mcp_user:
        tokens[options.token] = options.mcp_user
    scope = UserScope(tokens=tokens) if tokens else (UserScope(user_id=options.mcp_user) if options.mcp_user else None)
    mcp_app = None
    if scope is not None:
        server = build_server(memory, scope, host=options.host, port=port, write_source=options.write_source,
                              on_recall=lambda user, query, results: log.add(user, query, results, caller="mcp"))
        mcp_app = http_app(server, host=options.host, limits=options.mcp_sessions)
    # the inspector shows every user: it needs the server's own token, or none at all (loopback)
    inspector = None
    if options.token is not None or access.open:
        inspector = InspectorApp(memory, Guard(port=port, token=options.token), recall_log=log)
    return build_app(memory, port=port, access=access, log=log, mcp=mcp_app, mcp_scope=scope,
                     mcp_sessions=options.mcp_sessions, inspector=inspector, request_timeout=options.request_timeout), log


def _timed_h11(head_timeout: float) -> type:
    """uvicorn's h11 protocol with a deadline on each request's head (uvicorn has none): a connection that sends
    no request, or a head that never ends, is closed `head_timeout` seconds after it opened or after the last
    answer. The body's own deadline is `service.Checks`'."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class TimedH11(H11Protocol):
        _head_timer: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
            self._head_timer = self.loop.call_later(head_timeout, self._head_late)

        def _head_late(self) -> None:
            waiting = self.cycle is None or self.cycle.response_complete  # no request is being answered
            if waiting and not self.transport.is_closing():
                self.transport.close()

    return TimedH11


def server_config(app: Any, options: ServeOptions, **more: Any) -> Any:
    """uvicorn's settings for `app`: quiet, its lifespan run (MCP's sessions), heads and bodies on a deadline.

    An idle connection is kept as long as a head may take (uvicorn's 5 s is httpx's own keep-alive expiry, so a
    client reusing a connection at that moment had it reset under its request)."""
    import uvicorn

    return uvicorn.Config(app, log_level="warning", lifespan="on", http=_timed_h11(options.request_timeout),
                          timeout_keep_alive=max(1, round(options.request_timeout)), **more)


def serve(open_memory: Callable[[], Any], options: ServeOptions, *, store_folder: Path | None,
          say: Callable[[str], None]) -> None:
    """Serve until SIGINT or SIGTERM; the record beside the store exists exactly while the server answers."""
    import uvicorn

    sock = bind(options.host, options.port)
    port = sock.getsockname()[1]
    url = url_of(options.host, port)
    memory = open_memory()
    try:
        memory.embedder.load() if hasattr(memory.embedder, "load") else None
        app, log = make_app(memory, options, port)
        server = uvicorn.Server(server_config(app, options, timeout_graceful_shutdown=5))
        original_startup = server.startup

        async def startup(sockets: Any = None) -> None:
            await original_startup(sockets=sockets)
            if store_folder is not None:
                write_record(store_folder, ServerRecord(url, os.getpid(), options.token))
            say(f"hindsight serving on {url}/ (API {url}/api/v1, MCP {url}/mcp, inspector {url}/); "
                f"recall log {'on' if log.enabled else 'off'}; Ctrl-C stops it")

        original_shutdown = server.shutdown

        async def shutdown(sockets: Any = None) -> None:
            # uvicorn re-raises SIGTERM/SIGINT once it has stopped, ending the process: clean up here, not after
            await original_shutdown(sockets=sockets)
            finish()

        def finish() -> None:
            if store_folder is not None:
                remove_record(store_folder, os.getpid())
            memory.close()

        vars(server).update(startup=startup, shutdown=shutdown)  # the instance's own, around uvicorn's
        try:
            server.run(sockets=[sock])
        finally:
            finish()
    finally:
        memory.close()
        sock.close()


class BackgroundServer:
    """`hindsight serve`'s app for `memory`, in a thread of this process (tests, notebooks, benchmarks).

    `with BackgroundServer(memory, ServeOptions(port=0)) as server:` serves at `server.url`; the caller closes `memory`.
    """

    def __init__(self, memory: Any, options: ServeOptions | None = None) -> None:
        import uvicorn

        self.options = options or ServeOptions(port=0)
        self.sock = bind(self.options.host, self.options.port)
        self.port = self.sock.getsockname()[1]
        self.app, self.log = make_app(memory, self.options, self.port)
        self._server = uvicorn.Server(server_config(self.app, self.options))
        self._thread: Any = None

    @property
    def url(self) -> str:
        return url_of(self.options.host, self.port) + "/"

    @property
    def login_url(self) -> str:
        from urllib.parse import quote

        return self.url + (f"?token={quote(self.options.token, safe='')}" if self.options.token else "")

    def __enter__(self) -> "BackgroundServer":
        import threading
        import time

        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self.sock]},
                                        name="hindsight-serve", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the background hindsight server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=15)
        self.sock.close()
